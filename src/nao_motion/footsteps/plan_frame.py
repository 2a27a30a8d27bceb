"""The footstep planner's own frame (the plan) against ``odom`` (the walk's sensed odometry).

Why. The planner's feet are where the robot was commanded: each step is planned from the
previous planned one (NAOqi's command odometry, getRobotPosition(False)). The walk's ``odom`` is
sensed (joints, IMU, FSRs; REP-105: continuous, it drifts): a robot whose steps fall short ends
short of its plan, and from then on the two frames differ. A ROS user's goal in ``odom`` means
that place in the sensed frame; read in the plan's frame it would be off by every metre the
robot ever fell short. So a goal in ``odom`` is brought into the plan's frame by
``plan_from_odom`` before the planner takes it, and the plan's feet are brought into ``odom`` to
be shown under the robot.

What. ``plan_from_odom = planned base_footprint * sensed base_footprint^-1`` at one instant: the
planned one is the plan's planted feet (midpoint, mean heading), the sensed one the odometry
sample. They are compared only where both stand on the same feet: at the sample's stamp no step
of the plan has started, and none ended (nor was dropped by killMove) after it. Mid-step the
sensed footprint moves with the swinging foot while the plan's jumps at touch-down, so during a
walk the transform of the last standing moment is kept: a goal sent while walking is off by
what the robot has drifted from its plan since the walk started (a few cm per metre at most in
the simulator). Before any odometry the two frames coincide (identity), as they do at
start-up (the walk's odometry starts in the planner's frame).

Pure Python (no rclpy): the planner node decodes ``odom`` and calls ``observe``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .footstep import FeetState, Footstep
from .pose2d import Pose2D

__all__ = ["PlanFrame", "frame_shift"]


class PlanFrame:
    """``plan_from_odom``: the planner's frame against the sensed ``odom`` (module docstring)."""

    def __init__(self) -> None:
        self.plan_from_odom = Pose2D(0.0, 0.0, 0.0)  # identity until an odometry sample is compared
        self.samples = 0  # odometry samples compared so far
        self._planted_since_s = -math.inf  # the plan's feet stand as they are now since then

    def feet_planted_at(self, time_s: float) -> None:
        """The plan's feet stand as they are now from ``time_s`` on (a step ended then, or killMove
        dropped the one in progress): odometry stamped earlier is not compared with them."""
        self._planted_since_s = max(self._planted_since_s, time_s)

    def restart_clock(self) -> None:
        """The clock went back: the times kept are meaningless, the transform stands."""
        self._planted_since_s = -math.inf

    def observe(self, sensed_odom: Pose2D, stamp_s: float, feet: FeetState, steps: Sequence[Footstep]) -> bool:
        """One odometry sample: base_footprint ``sensed_odom`` at ``stamp_s`` (the planner's
        clock); ``feet`` the plan's planted feet now, ``steps`` its queue (the one in progress
        first). Whether it was compared (the plan stood on the same feet at ``stamp_s``)."""
        if stamp_s < self._planted_since_s or (steps and steps[0].start_s <= stamp_s):
            return False
        self.plan_from_odom = (feet.robot_pose() * sensed_odom.inverse()).normalized()
        self.samples += 1
        return True

    def to_plan(self, pose_odom: Pose2D) -> Pose2D:
        """A pose in ``odom`` in the plan's frame."""
        return (self.plan_from_odom * pose_odom).normalized()

    def to_odom(self, pose_plan: Pose2D) -> Pose2D:
        """A pose in the plan's frame in ``odom``."""
        return (self.plan_from_odom.inverse() * pose_plan).normalized()


def frame_shift(plan_from_odom: Pose2D, other: Pose2D, at_plan: Pose2D) -> tuple[float, float]:
    """How far apart two ``plan_from_odom`` put a pose of the plan in ``odom``, at ``at_plan``
    (the robot's, where the plan's poses are looked at): (m, rad). A frame's translation alone
    says little: a turn of the frame moves a pose metres from its origin by as many times more."""
    a, b = plan_from_odom.inverse() * at_plan, other.inverse() * at_plan
    return math.hypot(a.x - b.x, a.y - b.y), abs(math.remainder(a.theta - b.theta, 2.0 * math.pi))
