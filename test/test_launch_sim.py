"""sim.launch.py under launch_testing, as upstream intends (its pytest plugin runs the launch in the
main thread, these tests beside it): the simulated robot stands, every stream comes at its rate
(counted over sim time), a walk through cmd_vel moves the robot's true position without a fall,
and every process exits cleanly on launch's Ctrl-C.

Needs launch_testing and launch_ros (a sourced distribution, or scripts/setup_ros2_tools.sh)."""

import math
import unittest

import pytest

launch_testing = pytest.importorskip(
    "launch_testing", reason="launch_testing is not on PyPI: needs a sourced ROS 2 distribution or the upstream "
    "sources scripts/setup_ros2_tools.sh installs (../shared/ros2-upstream, NAO_MOTION_ROS2_UPSTREAM)")

import launch  # noqa: E402
import launch_testing.actions  # noqa: E402
import launch_testing.asserts  # noqa: E402
from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402

from launch_probe import NODE_EXIT_CODES, LaunchProbe, installed_launch_file  # noqa: E402

# Nominal rates on a V5 (the 100 Hz motion cycle; the kinematics node's transforms at its
# publish_frequency, 50 Hz; the walk's odometry every cycle), each required at half of it at
# least: the simulator runs at wall time on a busy 2-core machine.
NOMINAL_RATES_HZ = {"joint_states": 100.0, "imu": 100.0, "clock": 100.0, "joint_commands": 100.0,
                    "/tf base_footprint->base_link": 50.0, "/tf odom->base_footprint": 100.0}
RATE_MARGIN = 0.5
WALK_SPEED_MPS = 0.06
CMD_VEL_PERIOD_S = 0.1  # cmd_vel is a stream: the planner stops a walk whose cmd_vel stops coming


@pytest.mark.launch_test
def generate_test_description():
    sim = launch.actions.IncludeLaunchDescription(
        PythonLaunchDescriptionSource(installed_launch_file("sim.launch.py")),
        launch_arguments={"nao_version": "V5"}.items())
    return launch.LaunchDescription([sim, launch_testing.actions.ReadyToTest()])


class TestSimLaunch(unittest.TestCase):
    """Run in order (unittest sorts by name): stand and rates, then the walk."""

    @classmethod
    def setUpClass(cls):
        cls.probe = LaunchProbe("sim_launch_probe")

    @classmethod
    def tearDownClass(cls):
        cls.probe.close()

    def test_1_the_robot_stands_and_every_stream_comes_at_its_rate(self):
        probe = self.probe
        monitor = probe.monitor
        self.assertTrue(probe.spin_for(120.0, until=lambda: monitor.joint_commands is not None
                                       and probe.tf_counts and monitor.torso_pose is not None),
                        f"the suite did not answer the simulator: {probe.counts()}")
        probe.spin_for(1.0)
        sim_start_s, counts_start = monitor.sim_time_s, probe.counts()
        self.assertTrue(probe.spin_for(60.0, until=lambda: monitor.sim_time_s - sim_start_s >= 5.0),
                        "sim time did not advance 5 s in 60 s")
        sim_elapsed_s, counts = monitor.sim_time_s - sim_start_s, probe.counts()
        rates_hz = {name: (counts.get(name, 0) - counts_start.get(name, 0)) / sim_elapsed_s for name in NOMINAL_RATES_HZ}
        print(f"rates over {sim_elapsed_s:.1f} s of sim time: " + ", ".join(f"{k} {v:.1f} Hz" for k, v in rates_hz.items()))
        for name, nominal_hz in NOMINAL_RATES_HZ.items():
            self.assertGreaterEqual(rates_hz[name], RATE_MARGIN * nominal_hz, f"{name}: {rates_hz}")
            self.assertLessEqual(rates_hz[name], 1.5 * nominal_hz, f"{name}: {rates_hz}")
        self.assertTrue(probe.standing(), (monitor.torso_pose, monitor.falls()))

    def test_2_a_walk_through_cmd_vel_moves_the_robot(self):
        probe = self.probe
        monitor = probe.monitor
        x0, y0, yaw0 = probe.torso_xy_yaw()
        sim_start_s = monitor.sim_time_s
        while monitor.sim_time_s - sim_start_s < 8.0:
            probe.cmd_vel.publish(Twist(linear=Vector3(x=WALK_SPEED_MPS)))
            probe.spin_for(CMD_VEL_PERIOD_S)
            self.assertTrue(probe.standing(), f"fell walking: {monitor.torso_pose}, falls {monitor.falls()}")
        probe.cmd_vel.publish(Twist())  # zero twist: stopMove
        probe.spin_for(3.0)
        x1, y1, _ = probe.torso_xy_yaw()
        forward_m = (x1 - x0) * math.cos(yaw0) + (y1 - y0) * math.sin(yaw0)
        # 8 s at 6 cm/s, less the walk's start and stop: well over 10 cm, forward
        print(f"cmd_vel walk: {forward_m:.3f} m forward by ground truth")
        self.assertGreater(forward_m, 0.10, (x0, y0, x1, y1))
        self.assertTrue(probe.standing(), f"fell after the walk: {monitor.torso_pose}, falls {monitor.falls()}")


@launch_testing.post_shutdown_test()
class TestSimLaunchShutdown(unittest.TestCase):

    def test_every_process_exited_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info, allowable_exit_codes=NODE_EXIT_CODES)
