"""`nao-motion sim` end to end: the simulator and the suite as processes, on sim time."""

import os
import subprocess
import sys

import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from nao_motion.ros.monitor import SuiteMonitor  # noqa: E402


def test_bringup_publishes_states_imu_and_tf_at_the_cycle_rate(tmp_path):
    bringup = subprocess.Popen(
        # Half real time leaves headroom on a loaded 2-core machine; rates are per simulated second.
        [sys.executable, "-m", "nao_motion.cli", "sim", "--duration", "6", "--rtf", "0.5", "--quiet",
         "--logs", str(tmp_path)],
        env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    rclpy.init()
    node = rclpy.create_node("bringup_probe")
    monitor = SuiteMonitor(node)
    counts = {}
    try:
        assert monitor.spin_for(60.0, until=lambda: monitor.sim_time_s >= 2.0), "no /clock from the simulator"
        start = (monitor.sim_time_s, monitor.rates["joint_states"].count, monitor.rates["imu"].count,
                 monitor.tf.dynamic_messages)
        monitor.spin_for(90.0, until=lambda: monitor.sim_time_s >= 5.0)
        sim_s = monitor.sim_time_s - start[0]
        counts = {"joint_states": (monitor.rates["joint_states"].count - start[1]) / sim_s,
                  "imu": (monitor.rates["imu"].count - start[2]) / sim_s,
                  "tf": (monitor.tf.dynamic_messages - start[3]) / sim_s}
        frames = monitor.tf.frames()
    finally:
        monitor.close()
        node.destroy_node()
        rclpy.shutdown()
        output = bringup.communicate(timeout=60)[0]
    # V5 motion cycle: 10 ms -> 100 messages per simulated second (a few may be lost under load);
    # /tf has two publishers: the kinematics node (the links, publish_frequency 50 Hz) and the
    # walk (odom, every cycle).
    expected = {"joint_states": 100.0, "imu": 100.0, "tf": 150.0}
    for topic, per_sim_second in counts.items():
        assert 0.9 * expected[topic] <= per_sim_second <= 1.01 * expected[topic], (topic, per_sim_second, output)
    assert {"odom", "l_sole", "r_sole", "base_footprint", "CameraTop", "l_gripper"} <= frames
    assert bringup.returncode == 0, output
    assert "all nodes exited cleanly" in output
