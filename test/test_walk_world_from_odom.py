"""The walk's odom -> wb_world mapping puts the plan's feet onto the held soles."""

import numpy as np

from nao_motion import spatial
from nao_motion.footsteps import Pose2D
from nao_motion.walk.balancer_reference import pose_transform, world_from_odom


def test_the_feet_midpoint_and_heading_map_onto_the_soles_and_z_onto_the_lower_sole():
    left_odom, right_odom = Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, -0.05, 0.0)
    placed = pose_transform(Pose2D(0.3, -0.2, 0.7))  # where the robot stands in wb_world
    left_world = placed @ pose_transform(left_odom, 0.002)
    right_world = placed @ pose_transform(right_odom, -0.001)
    w = world_from_odom(left_odom, right_odom, left_world, right_world)
    np.testing.assert_allclose(w[:3, 3], [0.3, -0.2, -0.001], atol=1e-12)  # midpoint, lower sole
    assert abs(spatial.yaw_of(w) - 0.7) < 1e-12
    np.testing.assert_allclose((w @ pose_transform(left_odom))[:2, 3], left_world[:2, 3], atol=1e-12)
