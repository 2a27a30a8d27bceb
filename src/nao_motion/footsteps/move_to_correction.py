"""moveTo closes on its goal as the sensed odometry sees it: the closing steps.

Why. The plan's steps are where the robot was commanded; a robot whose steps fall short (weak or
late servos, slipping soles) ends short of its goal while the plan says it arrived. NAOqi's
moveTo is odometry based; here the walk's sensed odometry (``odom``: support-foot kinematics of
the measured joints, ``walk.leg_odometry``) measures where the robot ended, and a moveTo that
ended farther than the tolerance from its goal walks the rest: a moveTo of what is left, with the
same gait, at most ``max_corrections`` times. Each closing moveTo is planned and clipped like any
other (NAOqi's step limits), so a correction never makes a step longer than the gait allows
(shifting the steps in flight did: ``position_correction_gain``, off by default, made the weak
robot fall).

What. When a moveTo is accepted its goal is kept in ``odom`` (through ``plan_from_odom`` of that
moment). When its last step has ended and an odometry sample taken on the planted feet has been
compared (``PlanFrame``), the goal is brought back into the plan's frame through the new
``plan_from_odom`` and compared with the plan's robot position: within ``tolerance_m`` and
``tolerance_rad`` the moveTo is done; else the rest is walked. Any other locomotion command ends
the correction (the user moved on). Without odometry the two frames coincide and nothing is
corrected: the behaviour of a plan-only moveTo.

Pure Python (no rclpy): ``FootstepPlannerCycle`` runs it, in the planner node and in process.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .pose2d import Pose2D

__all__ = ["MAX_CORRECTIONS_RANGE", "MoveToCorrectionConfig", "MoveToCorrection", "TOLERANCE_M_RANGE",
           "TOLERANCE_RAD_RANGE"]

# The accepted values (the planner node's parameter ranges are these).
TOLERANCE_M_RANGE = (0.005, 1.0)
TOLERANCE_RAD_RANGE = (0.01, math.pi)
MAX_CORRECTIONS_RANGE = (0, 10)


@dataclass(frozen=True)
class MoveToCorrectionConfig:
    """When a moveTo walks the rest of the way (m, rad); ``max_corrections`` 0: never."""

    tolerance_m: float = 0.02
    tolerance_rad: float = 0.05
    max_corrections: int = 3

    def validate(self) -> str | None:
        """The reason this configuration is refused, or None."""
        (m_low, m_high), (rad_low, rad_high), (n_low, n_high) = (TOLERANCE_M_RANGE, TOLERANCE_RAD_RANGE,
                                                                 MAX_CORRECTIONS_RANGE)
        if not (math.isfinite(self.tolerance_m) and m_low <= self.tolerance_m <= m_high):
            return f"move_to_tolerance_m must be in [{m_low:g}, {m_high:g}] m, got {self.tolerance_m!r}"
        if not (math.isfinite(self.tolerance_rad) and rad_low <= self.tolerance_rad <= rad_high):
            return f"move_to_tolerance_rad must be in [{rad_low:g}, pi] rad, got {self.tolerance_rad!r}"
        if not (isinstance(self.max_corrections, int) and n_low <= self.max_corrections <= n_high):
            return f"move_to_max_corrections must be an integer in [{n_low}, {n_high}], got {self.max_corrections!r}"
        return None


class MoveToCorrection:
    """The running moveTo's goal in ``odom`` and the closing moveTos walked so far."""

    def __init__(self, config: MoveToCorrectionConfig | None = None):
        self.config = config or MoveToCorrectionConfig()
        self.goal_odom: Pose2D | None = None  # None: no moveTo to close on
        self.move_config: Any = None  # the moveTo's config entries, as given (NAOqi's list)
        self.corrections = 0  # closing moveTos of the running moveTo
        self.last_remaining: Pose2D | None = None  # what was left when the last moveTo ended

    def start(self, goal_odom: Pose2D, move_config: Any) -> None:
        """A moveTo was accepted (not a closing one): close on this goal."""
        self.goal_odom, self.move_config, self.corrections = goal_odom, move_config, 0

    def cancel(self) -> None:
        """Another command replaced the moveTo: nothing to close on."""
        self.goal_odom = None

    def rest(self, goal_plan: Pose2D, robot_plan: Pose2D) -> Pose2D | None:
        """The moveTo's last step has ended and the odometry was compared: what is left to walk,
        relative to the robot (``goal_plan``: the goal through the new ``plan_from_odom``), or
        None when the moveTo is done (within the tolerance, or out of corrections)."""
        rest = goal_plan.relative_to(robot_plan)
        self.last_remaining = rest
        cfg = self.config
        within = (math.hypot(rest.x, rest.y) <= cfg.tolerance_m
                  and abs(math.remainder(rest.theta, math.tau)) <= cfg.tolerance_rad)
        if within or self.corrections >= cfg.max_corrections:
            self.goal_odom = None
            return None
        self.corrections += 1
        return rest
