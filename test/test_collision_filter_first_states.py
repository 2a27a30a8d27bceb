"""The collision filter node as its own process over real DDS: a motion sent before the robot's
first joint_states is not lost; it waits for them (the node reads its motions at its cycle)."""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from test_collision_filter_node import FILTER, LARM, LARM_IDX, START, STANDALONE, Robot, send_targets  # noqa: E402


def test_a_motion_sent_before_the_first_joint_states_is_carried_out_when_they_come(tmp_path):
    nodes = NodeGroup(tmp_path)
    nodes.start(FILTER, remaps=STANDALONE)
    rclpy.init()
    robot = Robot(START, states_period_s=np.inf)  # no joint_states yet
    try:
        assert robot.wait(lambda: robot.targets_pub.get_subscription_count() > 0, 20.0), "the node never came"
        target = START[LARM_IDX] + np.array([-0.3, 0.1, 0.2, 0.15])
        send_targets(robot, LARM, target, [2.0] * 4)
        time.sleep(0.3)
        assert robot.count() == 0  # the filter commands nothing before it knows the robot's pose
        with robot.cond:
            robot.states_period_s = 0.0
        assert robot.wait(lambda: robot.commands, 20.0), "no joint_commands from the node"
        end = robot.settle()
        np.testing.assert_allclose(end[LARM_IDX], target, atol=1e-6)
    finally:
        robot.close()
        rclpy.shutdown()
        nodes.stop()
