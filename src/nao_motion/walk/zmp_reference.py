"""ZMP reference over the preview window, from the planned footsteps and the planted feet.

The reference is piecewise linear in time (odometry plane, metres):

* before the first step and with no step planned: at rest between the feet (the mean of the two
  feet's ZMP points);
* in each step's double support (``StepPhases``): a straight line from the previous support
  foot's ZMP point (the rest point for a step that starts from standing) to the new support
  foot's; then constant on the support foot during the swing;
* after the last planned step: back to the rest point between the final feet, over the same
  double-support time as that step's;
* steps added after the walk ran out of them, starting after that return (setFootStepsWithSpeed
  called step by step, a move sent while the walk settles): from the rest point, as from
  standing, once the return is complete.

The ZMP point of a sole is a fixed point in the sole frame: ``forward_m`` ahead of the ankle
(NAO's sole box spans -0.047..0.11 m, so the ankle is near its back; the default puts the ZMP
under StandInit's CoM, see ``WalkConfig.for_model``, so a walk starts without a CoM shift) and
``inward_m`` toward the other foot, which shortens the lateral CoM sway and keeps the ZMP away
from the sole's outer edge, where the cart-table's ZMP overshoots. Both are well inside the sole
box (``foot_boxes``), whose inner edge is 0.038 m from the ankle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..footsteps.footstep import FeetState, Footstep, Leg
from ..footsteps.pose2d import Pose2D
from .step_phase import StepPhases

__all__ = ["ZmpReferenceConfig", "ZmpReference"]


@dataclass(frozen=True)
class ZmpReferenceConfig:
    """The ZMP point in each sole (m, sole frame): ahead of the ankle and toward the other foot."""

    forward_m: float = 0.015
    # 2 cm: with the feet 0.16 m apart (NAOqi's widest stance, the cha-cha's sidesteps) and the
    # ZMP 1 cm inside the support ankle, the other leg could not reach its foot at the walk's CoM
    # height: its knee went straight in the double support before lift-off, the foot landed
    # 7 mm low, the CoM stayed 8 mm high and the next walk started from there and fell.
    inward_m: float = 0.02

    def __post_init__(self) -> None:
        if not (-0.03 <= self.forward_m <= 0.06 and 0.0 <= self.inward_m <= 0.03):
            raise ValueError("the ZMP point must stay well inside the sole: forward_m in "
                             f"[-0.03, 0.06] m, inward_m in [0, 0.03] m; got {self}")

    def point(self, sole: Pose2D, leg: Leg) -> tuple[float, float]:
        """The ZMP point of ``leg``'s sole at ``sole`` (odometry plane)."""
        return sole.transform_point(self.forward_m, -leg.side * self.inward_m)

    def rest_point(self, left: Pose2D, right: Pose2D) -> tuple[float, float]:
        """Between the feet: the mean of both ZMP points."""
        lx, ly = self.point(left, Leg.LEFT)
        rx, ry = self.point(right, Leg.RIGHT)
        return 0.5 * (lx + rx), 0.5 * (ly + ry)


class ZmpReference:
    """Fills p_ref(k..k+N) for both axes each cycle (knot buffers prepared at start-up)."""

    def __init__(self, config: ZmpReferenceConfig, phases: StepPhases, dt_s: float, n_preview: int):
        self.config, self.phases = config, phases
        self._offsets_s = dt_s * np.arange(n_preview + 1)
        self._times_s = np.empty(n_preview + 1)
        self._last_step: Footstep | None = None
        # (the step the walk had ended with or None, the first step added after it): see fill
        self._resumed: tuple[Footstep | None, Footstep] | None = None
        # What the knots in the buffers were made from (see fill; None: nothing reusable), the
        # objects whose ids it holds (kept alive, so the ids are not reused), and their count.
        self._knots_key: tuple | None = None
        self._knots_of: tuple = ()
        self._n_knots = 0
        self._grow(8)

    def _grow(self, n_knots: int) -> None:
        self._knot_t = np.empty(n_knots)
        self._knot_x = np.empty(n_knots)
        self._knot_y = np.empty(n_knots)
        self._knots_key = None

    def fill(self, t_s: float, steps: Sequence[Footstep], feet: FeetState, out: np.ndarray) -> None:
        """Write the reference at t_s, t_s + dt, ..., t_s + N dt into ``out`` ((N + 1) x 2).

        ``steps`` are the planner's queued steps at ``t_s`` (the one in progress first), ``feet``
        its planted feet (a swinging foot at its lift-off pose). The last planned step is
        remembered: once it has landed and the queue is empty, the ZMP still completes its move
        back to the rest point (unless the feet were reset meanwhile, e.g. after killMove).
        """
        np.add(self._offsets_s, t_s, out=self._times_s)
        cfg = self.config
        if not steps:
            self._knots_key = None  # the knots below are not made from steps
            last = self._last_step
            if last is None or t_s >= self._final_knot_s(last) or feet.pose(last.leg) != last.target:
                self._last_step = None
                out[:, 0], out[:, 1] = cfg.rest_point(feet.left, feet.right)
                return
            self._set_knot(0, last.end_s, cfg.point(last.support, last.support_leg))
            self._set_knot(1, self._final_knot_s(last), cfg.rest_point(feet.left, feet.right))
            self._interpolate(2, out)
            return
        previous, self._last_step = self._last_step, steps[-1]
        horizon_s = self._times_s[-1]
        in_window = 0
        while in_window < len(steps) and steps[in_window].start_s <= horizon_s:
            in_window += 1
        if 2 * in_window + 4 > len(self._knot_t):
            self._grow(2 * in_window + 4)
        last_moved = feet.last_moved
        if last_moved is None:
            self._resumed = None
            start = None  # from rest
        elif self._starts_from_rest(previous, steps[0]):
            start = self._resumed
        else:
            start = last_moved
        # The knots depend on nothing else: from one cycle to the next (the same plan, the same
        # feet) only the times they are sampled at move on.
        key = (id(steps), in_window, feet.left, feet.right, id(start))
        if key != self._knots_key:
            self._knots_key, self._knots_of = key, (steps, start)
            self._n_knots = self._set_knots(steps, feet, in_window, start)
        self._interpolate(self._n_knots, out)

    def _set_knots(self, steps: Sequence[Footstep], feet: FeetState, in_window: int,
                   start: tuple[Footstep | None, Footstep] | Leg | None) -> int:
        """The knots of ``steps`` (the first ``in_window`` in the window; ``start``: None from rest,
        a ``_resumed`` pair after the walk ran out of steps, else the leg that moved last); their count."""
        cfg = self.config
        n = 0
        if start is None:
            prev = cfg.rest_point(feet.left, feet.right)
        elif isinstance(start, tuple):
            ended, prev = start[0], cfg.rest_point(feet.left, feet.right)
            if ended is not None:  # the return to rest after the walk's former last step, completed
                self._set_knot(0, ended.end_s, cfg.point(ended.support, ended.support_leg))
                self._set_knot(1, self._final_knot_s(ended), prev)
                n = 2
        else:
            prev = cfg.point(feet.pose(start.other), start.other)
        self._set_knot(n, steps[0].start_s, prev)
        n += 1
        for step in steps[:in_window]:
            support = cfg.point(step.support, step.support_leg)
            self._set_knot(n, self.phases.swing_start_s(step), support)
            self._set_knot(n + 1, step.end_s, support)
            n += 2
        if in_window == len(steps):
            step = steps[-1]
            if step.leg is Leg.LEFT:
                final = cfg.rest_point(step.target, step.support)
            else:
                final = cfg.rest_point(step.support, step.target)
            self._set_knot(n, self._final_knot_s(step), final)
            n += 1
        return n

    def _starts_from_rest(self, previous: Footstep | None, first: Footstep) -> bool:
        """Whether ``first`` (the first queued step) comes after the walk ran out of steps: later
        than the return to rest after ``previous`` (the last step planned until now; None: that
        return is over). Such a step starts from rest, as from standing, not from the former
        support foot (the ZMP back on it for the whole wait rocked the robot over that foot)."""
        if self._resumed is not None and self._resumed[1] == first:
            return True
        self._resumed = None
        if previous is None or (previous.end_s <= first.start_s and self._final_knot_s(previous) < first.start_s):
            self._resumed = (previous, first)
            return True
        return False

    def _final_knot_s(self, last: Footstep) -> float:
        """When the ZMP is back at rest after the last step: one double support after it."""
        return last.end_s + self.phases.double_support_share(last) * last.duration_s

    def _set_knot(self, i: int, t_s: float, xy_m: tuple[float, float]) -> None:
        self._knot_t[i] = t_s
        self._knot_x[i], self._knot_y[i] = xy_m

    def _interpolate(self, n: int, out: np.ndarray) -> None:
        # np.interp holds the end values outside the knots: the previous support (or the rest
        # point) before the first knot, the last support or rest point after the last one.
        kt = self._knot_t[:n]
        out[:, 0] = np.interp(self._times_s, kt, self._knot_x[:n])
        out[:, 1] = np.interp(self._times_s, kt, self._knot_y[:n])
