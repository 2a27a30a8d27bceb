"""What the launch_testing tests (test_launch_*.py) share: the installed launch files, the exit
codes a node ends with on launch's Ctrl-C, and a probe node that watches the suite and the
simulated robot (its ground truth) from the test's thread while launch runs in the main one."""

from __future__ import annotations

import math
import os

import rclpy
from ament_index_python.packages import get_package_share_directory
from geometry_msgs.msg import Twist
from launch_ros.actions import Node
from tf2_msgs.msg import TFMessage

from nao_motion.processes import CLEAN_EXIT_CODES
from nao_motion.ros.monitor import COUNT_HISTORY, SuiteMonitor
from nao_motion.ros.sampled import SampledSubscription
from nao_motion.suite import SIMULATOR

# Exit codes of a node that stopped cleanly on launch's SIGINT (None: never started is not one).
NODE_EXIT_CODES = [code for code in CLEAN_EXIT_CODES if code is not None]
STANDING_TORSO_Z_M = 0.30  # StandInit's torso is ~0.32 m high (test_sim_node.py)


def installed_launch_file(name: str) -> str:
    """A launch file as `ros2 launch nao_motion <name>` finds it (the ament index's share dir)."""
    return os.path.join(get_package_share_directory("nao_motion"), "launch", name)


def simulator_action(**parameters) -> Node:
    """The simulator node as sim.launch.py starts it (its parameter file), with `parameters` over it."""
    share = get_package_share_directory("nao_motion")
    return Node(package="nao_motion", executable=SIMULATOR.executable, name=SIMULATOR.executable,
                output="screen", parameters=[os.path.join(share, "config", SIMULATOR.config), parameters])


class LaunchProbe:
    """An rclpy node watching the suite's streams (counted), TF and the simulator's ground truth."""

    def __init__(self, name: str):
        # a context of its own: whatever another test left in rclpy's default one does not matter
        self.context = rclpy.Context()
        rclpy.init(context=self.context)
        self.node = rclpy.create_node(name, context=self.context)
        self.monitor = SuiteMonitor(self.node)
        self._tf = SampledSubscription(self.node, TFMessage, "/tf", depth=COUNT_HISTORY)
        self.tf_counts: dict[str, int] = {}  # "/tf parent->child": messages carrying that transform
        self.cmd_vel = self.node.create_publisher(Twist, "cmd_vel", 10)

    def close(self) -> None:
        self.monitor.close()
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)

    def spin_for(self, seconds: float, until=None) -> bool:
        """Poll for `seconds` or until `until()`; False if `until` was given and never held."""
        def poll_tf_then_check() -> bool:
            for msg in self._tf.take_all():  # counted at every poll: none is dropped
                for key in {f"/tf {t.header.frame_id}->{t.child_frame_id}" for t in msg.transforms}:
                    self.tf_counts[key] = self.tf_counts.get(key, 0) + 1
            return until is not None and until()
        reached = self.monitor.spin_for(seconds, until=poll_tf_then_check)
        return reached if until is not None else True

    def counts(self) -> dict[str, int]:
        """Messages received so far per stream (joint_states, imu, clock, joint_commands) and per
        transform on /tf (two nodes publish there, at their own rates)."""
        return {name: rate.count for name, rate in self.monitor.rates.items()} | self.tf_counts

    def standing(self) -> bool:
        pose = self.monitor.torso_pose
        return (pose is not None and pose.pose.pose.position.z > STANDING_TORSO_Z_M
                and math.degrees(self.monitor.tilt_rad()) < 15.0 and self.monitor.falls() == 0)

    def torso_xy_yaw(self) -> tuple[float, float, float]:
        pose = self.monitor.torso_pose.pose.pose
        q = pose.orientation
        yaw = math.atan2(2.0 * (q.w * q.z + q.x * q.y), 1.0 - 2.0 * (q.y * q.y + q.z * q.z))
        return pose.position.x, pose.position.y, yaw
