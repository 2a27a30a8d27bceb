"""A walk starts from where the feet are, not from where the plan left them.

The footstep planner's feet are open loop: after a walk they are where its steps put them, while
the balancer holds the soles where they really ended (the heading correction turned the executed
steps, a slip moved a foot). When the next walk starts, one transform maps the planner's frame
onto the balancer's (the feet's midpoint and mean heading), which cannot also match each foot:
a foot's first swing would then start from its planned pose, away from where it is held, and
the foot reference would jump at lift-off. So, for the first step of each leg, the planned start
pose is replaced by the actual one, as the step's origin, as the support pose and in the planted
feet; every later step starts from a planned target, which the walk itself puts the foot on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..footsteps.footstep import FeetState, Footstep, Leg
from ..footsteps.pose2d import Pose2D

__all__ = ["start_from_actual_feet"]

SAME_POSE_TOL = 1e-9  # m, rad: a pose taken over from the plan unchanged


def _same(a: Pose2D, b: Pose2D) -> bool:
    return max(abs(a.x - b.x), abs(a.y - b.y), abs(a.theta - b.theta)) <= SAME_POSE_TOL


def start_from_actual_feet(steps: Sequence[Footstep], feet: FeetState, planned: dict[Leg, Pose2D],
                           actual: dict[Leg, Pose2D]) -> tuple[tuple[Footstep, ...], FeetState]:
    """`steps` and `feet` with every occurrence of a leg's planned start pose (`planned`, the
    plan's planted feet when the walk started) replaced by that leg's `actual` pose (odom plane)."""
    def actual_pose(leg: Leg, pose: Pose2D) -> Pose2D:
        return actual[leg] if _same(pose, planned[leg]) else pose

    rebased = []
    for step in steps:
        origin, support = actual_pose(step.leg, step.origin), actual_pose(step.leg.other, step.support)
        rebased.append(step if origin is step.origin and support is step.support
                       else replace(step, origin=origin, support=support))
    left, right = actual_pose(Leg.LEFT, feet.left), actual_pose(Leg.RIGHT, feet.right)
    return tuple(rebased), FeetState(left, right, feet.last_moved, feet.time_s)
