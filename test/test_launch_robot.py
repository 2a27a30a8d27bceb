"""robot.launch.py (the suite and the lola_adapter, V6, wall time) under launch_testing, against
the simulator presenting nao_lola's interface (``interface:=nao_lola``, started in the test's
launch description as the robot): a moveTo through the ALMotion client reaches its goal by the
simulator's ground truth without a fall, and every process exits cleanly on launch's Ctrl-C (the
adapter's sit-down first). test_robot_bringup.py covers the same bringup through `nao-motion robot`.

Needs launch_testing and launch_ros (a sourced distribution, or scripts/setup_ros2_tools.sh)."""

import math
import time
import unittest

import pytest

launch_testing = pytest.importorskip(
    "launch_testing", reason="launch_testing is not on PyPI: needs a sourced ROS 2 distribution or the upstream "
    "sources scripts/setup_ros2_tools.sh installs (../shared/ros2-upstream, NAO_MOTION_ROS2_UPSTREAM)")

import launch  # noqa: E402
import launch_testing.actions  # noqa: E402
import launch_testing.asserts  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402

from launch_probe import NODE_EXIT_CODES, LaunchProbe, installed_launch_file, simulator_action  # noqa: E402
from nao_motion.almotion import ALMotion  # noqa: E402

GOAL = (0.3, 0.0, 0.0)  # x m, y m, theta rad in the robot's frame
GOAL_TOLERANCE_M = 0.08  # test_robot_bringup.py's
MOVE_TIMEOUT_S = 90.0


@pytest.mark.launch_test
def generate_test_description():
    robot = launch.actions.IncludeLaunchDescription(
        PythonLaunchDescriptionSource(installed_launch_file("robot.launch.py")))
    # The robot: nao_lola's topics, real time (not lockstep: see test_robot_bringup.py).
    return launch.LaunchDescription([simulator_action(nao_version="V6", interface="nao_lola"), robot,
                                     launch_testing.actions.ReadyToTest()])


class TestRobotLaunch(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.probe = LaunchProbe("robot_launch_probe")

    @classmethod
    def tearDownClass(cls):
        cls.probe.close()

    def test_move_to_reaches_its_goal_by_ground_truth(self):
        probe = self.probe
        monitor = probe.monitor
        self.assertTrue(probe.spin_for(120.0, until=lambda: monitor.joint_commands is not None and
                                       monitor.diagnostics.get("nao_motion: lola_adapter", {}).get("_message") == "ok"),
                        "robot.launch.py did not take the robot over (joint_commands, adapter ok)")
        motion = ALMotion("V6", timeout_s=30.0)
        try:
            motion.moveInit()
            probe.spin_for(0.5)
            x0, y0, yaw0 = probe.torso_xy_yaw()
            task = motion.post.moveTo(*GOAL)
            deadline = time.monotonic() + MOVE_TIMEOUT_S
            while motion.isRunning(task) and time.monotonic() < deadline:
                probe.spin_for(0.1)
                self.assertTrue(probe.standing(), f"fell: {monitor.torso_pose}, falls {monitor.falls()}")
            self.assertFalse(motion.isRunning(task), f"moveTo did not finish within {MOVE_TIMEOUT_S} s")
            self.assertIsNone(motion.post.errors.get(task))
        finally:
            motion.close()
        probe.spin_for(1.0)  # the robot settles
        x1, y1, _ = probe.torso_xy_yaw()
        dx, dy = x1 - x0, y1 - y0
        # where the robot went, in the frame it started in
        reached = (dx * math.cos(yaw0) + dy * math.sin(yaw0), -dx * math.sin(yaw0) + dy * math.cos(yaw0))
        print(f"robot.launch.py moveTo{GOAL}: reached ({reached[0]:.3f}, {reached[1]:.3f}) m by ground truth")
        self.assertLess(math.dist(reached, GOAL[:2]), GOAL_TOLERANCE_M, reached)
        self.assertTrue(probe.standing(), (monitor.torso_pose, monitor.falls()))


@launch_testing.post_shutdown_test()
class TestRobotLaunchShutdown(unittest.TestCase):

    def test_every_process_exited_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info, allowable_exit_codes=NODE_EXIT_CODES)
