"""Time-ordered queue of planned footsteps, advanced by the walk generator.

Time is the planner's clock in seconds (the walk generator's cycle clock, or
ROS time). Steps are contiguous in time: each starts when the previous one
ends; a new plan from standing starts one preview window after the command.

Unchangeable steps are those that start inside the preview window, i.e.
``start_s < now_s + preview_s`` (0.8 s, NAOqi's preview): the walk's preview
controller has already committed to them, so new commands keep them and
apply after the last of them. The step in progress is always unchangeable.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from .errors import InvalidCommandError
from .footstep import FeetState, Footstep, delayed
from .pose2d import Pose2D

__all__ = ["StepQueue", "DEFAULT_PREVIEW_S"]

DEFAULT_PREVIEW_S = 0.8
# Steps ending within this of "now" count as done (float round-off of sums of
# durations must not leave a finished step in the queue for one more cycle).
_TIME_EPS_S = 1e-9


class StepQueue:
    """Planned steps plus the planted feet at ``now_s``."""

    def __init__(
        self, left: Pose2D, right: Pose2D, now_s: float = 0.0, preview_s: float = DEFAULT_PREVIEW_S
    ) -> None:
        if not (math.isfinite(preview_s) and preview_s >= 0.0):
            raise InvalidCommandError(f"preview window {preview_s!r} s must be finite and >= 0")
        if not (math.isfinite(now_s) and left.is_finite() and right.is_finite()):
            raise InvalidCommandError("initial feet poses and time must be finite")
        self._feet = FeetState(left.normalized(), right.normalized(), None, float(now_s))
        self._steps: list[Footstep] = []
        self.preview_s = float(preview_s)

    # -- inspection -------------------------------------------------------
    @property
    def now_s(self) -> float:
        return self._feet.time_s

    @property
    def feet(self) -> FeetState:
        """Planted feet now (a swinging foot counts at its lift-off pose)."""
        return self._feet

    @property
    def steps(self) -> tuple[Footstep, ...]:
        return tuple(self._steps)

    def __len__(self) -> int:
        return len(self._steps)

    def unchangeable_count(self) -> int:
        horizon = self._feet.time_s + self.preview_s
        n = 0
        for step in self._steps:
            if step.start_s < horizon - _TIME_EPS_S:
                n += 1
            else:
                break
        return n

    def unchangeable(self) -> tuple[Footstep, ...]:
        return tuple(self._steps[: self.unchangeable_count()])

    def changeable(self) -> tuple[Footstep, ...]:
        return tuple(self._steps[self.unchangeable_count():])

    def in_progress(self) -> Footstep | None:
        """The step being executed now, if any."""
        if self._steps and self._steps[0].start_s <= self._feet.time_s + _TIME_EPS_S:
            return self._steps[0]
        return None

    def state_after(self, count: int | None = None) -> FeetState:
        """Feet after the first ``count`` queued steps (all when None); time = end of the last.

        With no step before it (the robot stands), the time is one preview window from now: a
        plan from standing starts then, so that the walk's preview controller sees its first
        step a whole preview ahead and shifts the COM in time (NAOqi: "the walk will take this
        time to react"); a step starting at once would need the ZMP to jump under the COM.
        """
        steps = self._steps if count is None else self._steps[:count]
        if not steps:
            feet = self._feet
            return FeetState(feet.left, feet.right, feet.last_moved, feet.time_s + self.preview_s)
        state = self._feet
        for step in steps:
            state = state.after(step)
        return state

    # -- mutation ---------------------------------------------------------
    def replace_changeable(self, new_steps: Iterable[Footstep]) -> None:
        """Keep the unchangeable steps and put ``new_steps`` after them."""
        del self._steps[self.unchangeable_count():]
        self._steps.extend(new_steps)

    def postpone_start(self, start_s: float) -> None:
        """The plan starts at ``start_s`` instead (every step shifted by as much), if that is
        later: also when its first step has begun on this clock, for the walk has not taken it."""
        if self._steps:
            self.postpone(start_s - self._steps[0].start_s)

    def postpone(self, shift_s: float) -> None:
        """Every step (the one in progress too) ``shift_s`` later, if that is > 0."""
        if shift_s > 0.0:
            self._steps = list(delayed(self._steps, shift_s))

    def append(self, new_steps: Iterable[Footstep]) -> None:
        self._steps.extend(new_steps)

    def clear(self) -> None:
        """Drop every step, including the one in progress (killMove)."""
        self._steps.clear()
        self._feet = FeetState(self._feet.left, self._feet.right, None, self._feet.time_s)

    def reset(self, left: Pose2D, right: Pose2D, now_s: float | None = None) -> None:
        """Empty the queue and set the planted feet (e.g. from odometry after killMove)."""
        t = self._feet.time_s if now_s is None else float(now_s)
        if not (math.isfinite(t) and left.is_finite() and right.is_finite()):
            raise InvalidCommandError("feet poses and time must be finite")
        self._steps.clear()
        self._feet = FeetState(left.normalized(), right.normalized(), None, t)

    def advance_to(self, t_s: float) -> list[Footstep]:
        """Move the clock to ``t_s``; return the steps completed meanwhile (in order)."""
        if not math.isfinite(t_s):
            raise InvalidCommandError(f"time {t_s!r} is not finite")
        if t_s < self._feet.time_s:
            raise InvalidCommandError(
                f"time cannot go backwards ({t_s} s < now {self._feet.time_s} s)"
            )
        done: list[Footstep] = []
        feet = self._feet
        while self._steps and self._steps[0].end_s <= t_s + _TIME_EPS_S:
            step = self._steps.pop(0)
            feet = feet.after(step)
            done.append(step)
        last = feet.last_moved if self._steps else None  # idle again once the queue drains
        self._feet = FeetState(feet.left, feet.right, last, float(t_s))
        return done
