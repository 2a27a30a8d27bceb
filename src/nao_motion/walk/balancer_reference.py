"""The generator's output as the whole-body balancer's ``WalkReference``.

The balancer works in its world frame W (on the floor, z up, anchored when the walk starts);
the generator in the footstep planner's odometry plane. ``world_from_odom`` (4x4, default
identity: the walk node anchors the odometry where W is) maps one onto the other. Sole poses
become 4x4 transforms with the sole flat (yaw only), the CoM a 3-vector at the cart-table's
height, the torso's TorsoWx / TorsoWy of the cycle its tilt about the feet's mean heading. Not
carried by ``WalkReference``: the arm-swing offsets (joint targets of their own).
"""

from __future__ import annotations

import math

import numpy as np

from .. import spatial
from ..footsteps.pose2d import Pose2D, mean_pose
from ..wholebody.balancer import WalkReference
from .pattern_generator import WalkOutput

__all__ = ["sole_transform", "pose_transform", "world_from_odom", "balancer_reference"]

_IDENTITY = np.eye(4)
_IDENTITY.setflags(write=False)


def _sole_rows(sole) -> list[list[float]]:
    """The 4x4 of a sole (x_m, y_m, z_m, yaw_rad) as nested lists."""
    x, y, z, yaw = sole
    c, s = math.cos(yaw), math.sin(yaw)
    return [[c, -s, 0.0, x], [s, c, 0.0, y], [0.0, 0.0, 1.0, z], [0.0, 0.0, 0.0, 1.0]]


def sole_transform(sole) -> np.ndarray:
    """4x4 pose of a sole given as (x_m, y_m, z_m, yaw_rad)."""
    return np.array(_sole_rows(sole))


def pose_transform(pose: Pose2D, z_m: float = 0.0) -> np.ndarray:
    """4x4 pose of a floor-plane pose lifted to height z_m."""
    return sole_transform((pose.x, pose.y, z_m, pose.theta))


def world_from_odom(left_odom: Pose2D, right_odom: Pose2D, left_sole_world: np.ndarray,
                    right_sole_world: np.ndarray) -> np.ndarray:
    """Yaw + translation putting the feet's midpoint and mean heading in odom onto the soles' in
    wb_world (4x4 each); z: the lower sole (the floor of wb_world)."""
    odom_mid = mean_pose(left_odom, right_odom)
    world_mid = mean_pose(Pose2D.from_transform(left_sole_world), Pose2D.from_transform(right_sole_world))
    floor_m = min(left_sole_world[2, 3], right_sole_world[2, 3])
    return pose_transform(world_mid, floor_m) @ spatial.inverse(pose_transform(odom_mid))


def balancer_reference(output: WalkOutput, world_from_odom: np.ndarray | None = None) -> WalkReference:
    w = _IDENTITY if world_from_odom is None else np.asarray(world_from_odom, dtype=float)
    # Both soles in one product, from one array built of Python floats (a walk cycle's references:
    # a few numpy calls, not a dozen); each reference gets arrays of its own, which its users keep.
    soles = np.matmul(w, np.array([_sole_rows(output.left_sole.tolist()), _sole_rows(output.right_sole.tolist())]))
    return WalkReference(
        com_world_m=w[:3, :3] @ output.com_m + w[:3, 3],
        left_sole_world=soles[0],
        right_sole_world=soles[1],
        support=output.support,
        torso_tilt_rad=(output.torso_wx_rad, output.torso_wy_rad),
    )
