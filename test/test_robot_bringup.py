"""The robot bringup end to end without a robot: `nao-motion robot` (the suite and the robot
adapter, wall time, V6) drives the simulator presenting nao_lola's topics (``interface:=nao_lola``:
the same names, message types and 12 ms cycle as nao_lola on a real NAO V6), exactly as it would
drive the real robot. It walks a moveTo through the ALMotion client and must end within the
bounds of the simulator bringup's demo (test_walk_demo.py); then Ctrl-C sits the robot down and
sets it limp. What the robot did comes from the simulator's ground truth.

The simulator runs in real time, not in lockstep (conftest.LOCKSTEP) as the other simulation
tests: on this path the suite runs on wall time, and the footstep planner times its steps on its
own (wall) clock while the walk executes them on the joint_states stamps, so the robot's clock
must keep up with the wall clock, as LoLA's does. Stamps advancing one cycle per lockstep step
fall behind the wall clock whenever the simulator waits (seconds already before the suite
answers: a step per lockstep_timeout_s), and the walk then finds the planner's steps ended before
it made them (tried: the robot fell 2.4 s into the walk). nao_lola's imu has no orientation: the
walk's heading is its gyro's, integrated (``walk.imu_yaw``); without it, cycles the suite missed
on a busy host turned up in the heading (6-33 deg off)."""

import math
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")
pytest.importorskip("nao_lola_sensor_msgs")

from conftest import NodeGroup  # noqa: E402
from nao_lola_sensor_msgs.msg import JointStiffnesses  # noqa: E402

from nao_motion.demo import _walk_result  # noqa: E402
from nao_motion.lola.adapter import SIT_POSTURE  # noqa: E402
from nao_motion.lola.joint_indexes import LOLA_JOINT_NAMES  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.monitor import SuiteMonitor  # noqa: E402
from nao_motion.ros.sampled import SampledSubscription  # noqa: E402
from nao_motion.ros.walk_recorder import WalkRecorder  # noqa: E402
from nao_motion.suite import SIMULATOR  # noqa: E402

GOAL = (0.4, 0.0, 0.0)  # test_walk_demo.py's
MODEL = NaoModel("V6")


def _sample(monitor) -> dict | None:
    truth = monitor.torso_pose
    if truth is None:
        return None
    p, o = truth.pose.pose.position, truth.pose.pose.orientation
    return {"position": (p.x, p.y, p.z), "orientation": (o.x, o.y, o.z, o.w), "tilt_rad": monitor.tilt_rad()}


def test_robot_bringup_walks_the_simulated_v6_through_nao_lola_and_sits_it_down(tmp_path):
    nodes = NodeGroup(tmp_path)
    # The robot: what nao_lola on a NAO V6 presents (real time, as the robot runs: not lockstep,
    # see the module docstring).
    nodes.start(SIMULATOR, params={"nao_version": "V6", "interface": "nao_lola"})
    bringup = subprocess.Popen(
        [sys.executable, "-m", "nao_motion.cli", "robot", "--quiet", "--logs", str(tmp_path / "robot")],
        env=nodes.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    from nao_motion.almotion import ALMotion

    rclpy.init()
    node = rclpy.create_node("robot_bringup_probe")
    monitor = SuiteMonitor(node, tf=False)
    stiffness = SampledSubscription(node, JointStiffnesses, "sensors/joint_stiffnesses")
    recorder = WalkRecorder(node)  # the steps planned, as the demo counts them
    motion = None
    samples = []
    try:
        assert monitor.spin_for(90.0, until=lambda: monitor.joint_commands is not None and
                                monitor.diagnostics.get("nao_motion: lola_adapter", {}).get("_message") == "ok"), \
            "the robot bringup did not take the robot over (joint_commands, adapter ok)"
        adapter = monitor.diagnostics["nao_motion: lola_adapter"]
        assert int(adapter["positions_sent"]) > 0 and adapter["stiffness_ramp"] == "1.00"

        motion = ALMotion("V6", timeout_s=30.0)
        motion.moveInit()
        task = motion.post.moveTo(*GOAL)
        deadline = time.monotonic() + 90.0
        while motion.isRunning(task) and time.monotonic() < deadline:
            monitor.spin_for(0.1)
            if (sample := _sample(monitor)) is not None:
                samples.append(sample)
        assert not motion.isRunning(task), "moveTo did not finish within 90 s"
        assert motion.post.errors.get(task) is None, motion.post.errors.get(task)
        monitor.spin_for(1.0)  # the robot settles
        samples.append(_sample(monitor))
        walk = _walk_result(samples, GOAL)
        max_tilt_deg = math.degrees(max(s["tilt_rad"] for s in samples))
        assert monitor.falls() == 0 and max_tilt_deg < 10.0, (monitor.falls(), max_tilt_deg)
        assert walk["position_error_m"] < 0.08 and walk["heading_error_deg"] < 5.0, walk
        assert walk["reached"][0] > 0.3, walk
        assert len(recorder.steps) >= 8, len(recorder.steps)  # 0.4 m at MaxStepX 0.04 m: at least 10 steps
        print(f"robot bringup walked to {np.round(walk['reached'], 3).tolist()} (goal {list(GOAL)}): error "
              f"{walk['position_error_m']:.3f} m, {walk['heading_error_deg']:.1f} deg, max tilt {max_tilt_deg:.1f} deg, "
              f"{len(recorder.steps)} steps")
        adapter = monitor.diagnostics["nao_motion: lola_adapter"]
        assert adapter["commands_refused"] == "0" and adapter["fsr_dropped"] == "0", adapter

        # Ctrl-C: the adapter sits the robot down (Crouch), then sets it limp; the simulated robot
        # keeps running, as the real one does.
        motion.close()
        motion = None
        bringup.send_signal(signal.SIGINT)
        sat = None  # the robot's joints, tilt and falls when the stiffness starts going down: sitting
        deadline = time.monotonic() + 30.0
        while (bringup.poll() is None or sat is None) and time.monotonic() < deadline:
            monitor.spin_for(0.02)
            measured = stiffness.take_latest()
            if sat is None and measured is not None and max(measured.stiffnesses) < 0.99:
                sat = (np.array(monitor.joint_states.position), math.degrees(monitor.tilt_rad()), monitor.falls())
        output = bringup.communicate(timeout=60)[0]
        assert bringup.returncode == 0 and "all nodes exited cleanly" in output, output
        assert sat is not None, "the stiffness never went down"
        crouch = posture(MODEL, SIT_POSTURE)
        for joint in ("LHipPitch", "RHipPitch", "LKneePitch", "RKneePitch", "LAnklePitch", "RAnklePitch"):
            assert sat[0][LOLA_JOINT_NAMES.index(joint)] == pytest.approx(crouch[MODEL.joint_index(joint)], abs=0.1), \
                joint
        # Seated without a fall; what the limp robot does afterwards is the simulator's physics
        # (a limp robot folds where it sits: now and then the simulator counted that as a fall).
        assert sat[1] < 20.0 and sat[2] == 0, sat[1:]
        monitor.spin_for(1.0)
        assert max(stiffness.take_latest().stiffnesses) == pytest.approx(0.0, abs=1e-6)
        assert list(monitor.joint_states.name) == list(LOLA_JOINT_NAMES)
        # nao_lola's imu has no orientation: the walk took its heading from the integrated gyro, and said so.
        started = [line for log in (tmp_path / "robot").glob("*.log") for line in log.read_text().splitlines()
                   if "[walk]: walk started" in line]
        assert started and all("with the heading from the integrated gyro" in line for line in started), started
    finally:
        if motion is not None:
            motion.close()
        monitor.close()
        node.destroy_node()
        rclpy.try_shutdown()
        if bringup.poll() is None:
            bringup.send_signal(signal.SIGINT)
            bringup.communicate(timeout=60)
        nodes.stop()
