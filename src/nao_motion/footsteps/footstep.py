"""Legs, planned footsteps and the state of both feet.

A ``Footstep`` carries everything the walk generator needs each cycle: the
moving leg and its support leg, the move relative to the support foot (after
clipping, NAOqi's convention), the absolute lift-off and touch-down poses in the
odometry/world plane, start and end times (seconds on the planner's clock) and
the per-foot gait values (step height, torso rotation).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum

from .clipping import clip_footstep
from .errors import InvalidCommandError
from .gait_config import GaitConfig
from .pose2d import Pose2D, mean_pose

__all__ = ["Leg", "Footstep", "FeetState", "delayed", "make_step", "foot_offset"]


class Leg(str, Enum):
    """NAOqi leg names."""

    LEFT = "LLeg"
    RIGHT = "RLeg"

    @property
    def other(self) -> "Leg":
        return Leg.RIGHT if self is Leg.LEFT else Leg.LEFT

    @property
    def is_left(self) -> bool:
        return self is Leg.LEFT

    @property
    def side(self) -> float:
        """+1 for the left leg, -1 for the right leg (sign of its lateral offset)."""
        return 1.0 if self is Leg.LEFT else -1.0

    @classmethod
    def parse(cls, name: object) -> "Leg":
        if isinstance(name, Leg):
            return name
        if name == "LLeg":
            return cls.LEFT
        if name == "RLeg":
            return cls.RIGHT
        raise InvalidCommandError(f"unknown leg name {name!r}; use 'LLeg' or 'RLeg'")


def foot_offset(leg: Leg, half_width_m: float, forward_m: float = 0.0) -> Pose2D:
    """Pose of a foot in the robot frame: ``half_width_m`` to its side, ``forward_m`` ahead.

    ``forward_m`` is mirrored (the right foot goes back by as much as the left
    goes forward), which is what keeps turning steps symmetric.
    """
    return Pose2D(leg.side * forward_m, leg.side * half_width_m, 0.0)


@dataclass(frozen=True, slots=True)
class Footstep:
    """One planned step (poses in metres/radians, times in seconds)."""

    leg: Leg  # moving leg
    move: Pose2D  # relative to the support foot, after clipping
    requested: Pose2D  # relative to the support foot, before clipping
    origin: Pose2D  # moving foot at lift-off, world/odometry plane
    target: Pose2D  # moving foot at touch-down, world/odometry plane
    support: Pose2D  # support foot during the step, world/odometry plane
    start_s: float
    end_s: float
    step_height_m: float
    torso_wx_rad: float
    torso_wy_rad: float

    @property
    def support_leg(self) -> Leg:
        return self.leg.other

    @property
    def is_left_support(self) -> bool:
        """NAOqi's clipping flag: True when the right foot moves."""
        return self.leg is Leg.RIGHT

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    @property
    def was_clipped(self) -> bool:
        return self.move != self.requested


def delayed(steps: Iterable[Footstep], delay_s: float) -> tuple[Footstep, ...]:
    """The steps, each ``delay_s`` later."""
    return tuple(replace(s, start_s=s.start_s + delay_s, end_s=s.end_s + delay_s) for s in steps)


@dataclass(frozen=True, slots=True)
class FeetState:
    """Both feet's planted poses at ``time_s``, and the leg that moved last (None if idle)."""

    left: Pose2D
    right: Pose2D
    last_moved: Leg | None
    time_s: float

    def pose(self, leg: Leg) -> Pose2D:
        return self.left if leg is Leg.LEFT else self.right

    def robot_pose(self) -> Pose2D:
        """Midpoint of the feet with their mean heading (base_footprint, REP-120)."""
        return mean_pose(self.left, self.right)

    def after(self, step: Footstep) -> "FeetState":
        if step.leg is Leg.LEFT:
            return FeetState(step.target, self.right, Leg.LEFT, step.end_s)
        return FeetState(self.left, step.target, Leg.RIGHT, step.end_s)

    def feet_together(self, foot_separation_m: float, tol: float = 1e-9) -> bool:
        """True when the right foot is exactly beside the left one, ``foot_separation_m`` apart."""
        r = self.right.relative_to(self.left)
        return (
            abs(r.x) <= tol
            and abs(r.y + foot_separation_m) <= tol
            and abs(math.remainder(r.theta, 2.0 * math.pi)) <= tol
        )


def make_step(
    state: FeetState, leg: Leg, requested: Pose2D, duration_s: float, gait: GaitConfig
) -> tuple[Footstep, FeetState]:
    """Clip ``requested`` (relative to the other foot) into a step starting at ``state.time_s``."""
    support = state.pose(leg.other)
    move = clip_footstep(requested, leg is Leg.RIGHT)
    step = Footstep(
        leg=leg,
        move=move,
        requested=requested,
        origin=state.pose(leg),
        target=(support * move).normalized(),
        support=support,
        start_s=state.time_s,
        end_s=state.time_s + duration_s,
        step_height_m=gait.step_height_m,
        torso_wx_rad=gait.torso_wx_rad,
        torso_wy_rad=gait.torso_wy_rad,
    )
    return step, state.after(step)
