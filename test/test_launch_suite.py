"""nao_motion.launch.py (the suite alone, as against a real robot driver) under launch_testing,
with the simulator started beside it in the test's launch description as the robot: the suite
answers the robot's every cycle, publishes TF, keeps the robot standing, and every process exits
cleanly on launch's Ctrl-C.

Needs launch_testing and launch_ros (a sourced distribution, or scripts/setup_ros2_tools.sh)."""

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

# The kinematics node's frames the robot needs placed (REP-120), besides its links
TF_FRAMES = {"base_footprint", "base_link", "torso", "l_sole", "r_sole", "Head"}


@pytest.mark.launch_test
def generate_test_description():
    suite = launch.actions.IncludeLaunchDescription(
        PythonLaunchDescriptionSource(installed_launch_file("nao_motion.launch.py")),
        launch_arguments={"nao_version": "V5"}.items())
    # The robot: the suite runs on wall time, as on a robot, so the simulator keeps wall time too.
    return launch.LaunchDescription([simulator_action(nao_version="V5", real_time_factor=1.0), suite,
                                     launch_testing.actions.ReadyToTest()])


class TestSuiteLaunch(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.probe = LaunchProbe("suite_launch_probe")

    @classmethod
    def tearDownClass(cls):
        cls.probe.close()

    def test_the_suite_drives_the_robot_and_publishes_tf(self):
        probe = self.probe
        monitor = probe.monitor
        self.assertTrue(probe.spin_for(120.0, until=lambda: monitor.joint_commands is not None
                                       and TF_FRAMES <= set(monitor.tf.frames())),
                        f"no joint_commands or TF frames from the suite: {probe.counts()}, "
                        f"frames {sorted(monitor.tf.frames())}")
        commands_start = probe.counts()["joint_commands"]
        probe.spin_for(3.0)
        self.assertGreater(probe.counts()["joint_commands"], commands_start, "the suite stopped answering")
        self.assertTrue(probe.standing(), (monitor.torso_pose, monitor.falls()))


@launch_testing.post_shutdown_test()
class TestSuiteLaunchShutdown(unittest.TestCase):

    def test_every_process_exited_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info, allowable_exit_codes=NODE_EXIT_CODES)
