"""Regular walking pattern: a fixed robot increment per step and a stance.

Both moveTo and move/moveToward walk the same way: between steps the robot
reference pose advances by a constant increment ``delta`` (the constant-twist
path), and each foot lands at that reference pose offset by
``foot_offset(leg, h, e)``: ``h`` to its side and ``e = h * tan(dphi / 2)``
forward for the left foot (back for the right). With that fore-aft offset
the move of a foot relative to its support foot is

    left foot:  (dx, dy + 2h, dphi)      right foot: (dx, dy - 2h, dphi)

so turning costs no forward stride (without it, every other step would get
``h sin(dphi)`` more forward reach and the other one as much less). The half
width ``h`` is chosen per command, not fixed at FootSeparation / 2: lateral
walking needs a wider stance so that the opening step reaches MaxStepY while
the closing step stays beyond MinFootSeparation (0.052 m per two steps with
the defaults, as in NAOqi's own per-foot formulas), and turning needs one so
that the toed-in step clears the other foot.

In general, with support offset (e_a, h_a), swing offset (e_b, h_b) and
s_s = +1 for a left support (-1 right):

    r.x = dx - s_s (e_a + cos(dphi) e_b - sin(dphi) h_b)
    r.y = dy - s_s (h_a + sin(dphi) e_b + cos(dphi) h_b)
    r.theta = dphi

A step is *feasible* when it is inside the moving leg's gait box (user/default
move config, 1e-9 tolerance) and NAOqi's clipping leaves it unchanged: the
user box lies inside the extremal one, the step is inside the ellipse, and the
feet are strictly apart (a separating-axis test, so mere contact counts as a
collision: slightly stricter than libalmath, never looser).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .clipping import ELLIPSE_TOLERANCE, EXTREMAL_CLIP_LIMITS, ClipLimits
from .foot_boxes import NAO_FOOT_BOXES, FootBoxes, rectangles_separated
from .footstep import Leg
from .gait_config import GaitConfig
from .pose2d import Pose2D

__all__ = [
    "FEASIBILITY_TOL",
    "StepShape",
    "turn_offset_ratio",
    "step_relative",
    "is_step_feasible",
    "is_move_feasible",
    "choose_half_width",
]

#: Slack (m, rad) on the planner's own limits; keeps exact boundary steps
#: (e.g. 0.04 m computed as 0.04000000000000001) from being rejected.
FEASIBILITY_TOL = 1e-9

# Where to look inside the admissible stance interval when the preferred
# width fails (tried nearest to the preferred width first).
_FRACTIONS = (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)

#: A foot offset in the pattern: (forward e_m, half width h_m), or None for the
#: pattern's free stance (tau * h, h).
Offset = tuple[float, float] | None


def turn_offset_ratio(dphi_rad: float) -> float:
    """e / h = tan(dphi / 2): the fore-aft offset that balances turning steps."""
    return math.tan(0.5 * dphi_rad)


def step_relative(
    support_leg: Leg, a: tuple[float, float], delta: Pose2D, b: tuple[float, float]
) -> Pose2D:
    """Swing-foot move relative to the support foot; a, b = (forward, half width) in metres."""
    c = math.cos(delta.theta)
    s = math.sin(delta.theta)
    ss = support_leg.side
    ea, ha = a
    eb, hb = b
    return Pose2D(
        delta.x - ss * (ea + c * eb - s * hb),
        delta.y - ss * (ha + s * eb + c * hb),
        delta.theta,
    )


def is_step_feasible(
    move: Pose2D,
    swing_leg: Leg,
    gait: GaitConfig,
    limits: ClipLimits = EXTREMAL_CLIP_LIMITS,
    boxes: FootBoxes = NAO_FOOT_BOXES,
) -> bool:
    """Inside the swing leg's gait box and left unchanged by NAOqi's clipping.

    True implies ``clip_footstep(move) == move`` (to 1e-9); it only differs
    from that comparison on exact foot contact, which it refuses. Built for
    speed (no clipped poses): it runs thousands of times per moveTo.
    """
    return is_move_feasible(move.x, move.y, move.theta, swing_leg, gait, limits, boxes)


def is_move_feasible(
    x: float,
    y: float,
    theta: float,
    swing_leg: Leg,
    gait: GaitConfig,
    limits: ClipLimits = EXTREMAL_CLIP_LIMITS,
    boxes: FootBoxes = NAO_FOOT_BOXES,
) -> bool:
    """``is_step_feasible`` on plain floats (m, m, rad)."""
    tol = FEASIBILITY_TOL
    if not (gait.min_step_x_m - tol <= x <= gait.max_step_x_m + tol):
        return False
    if abs(theta) > gait.max_step_theta_rad + tol:
        return False
    ay = y if swing_leg is Leg.LEFT else -y
    if not (gait.min_foot_separation_m - tol <= ay <= gait.max_step_y_m + tol):
        return False
    sep = limits.min_foot_separation_m
    if ay > sep:  # the ellipse stage only looks at |y| > MinFootSeparation
        a = limits.max_step_x_m if x >= 0.0 else limits.min_step_x_m
        b = limits.max_step_y_m - sep
        if (x * x) / (a * a) + ((ay - sep) ** 2) / (b * b) >= ELLIPSE_TOLERANCE:
            return False
    if swing_leg is Leg.RIGHT:
        fixed, moving = boxes.left, boxes.right
    else:
        fixed, moving = boxes.right, boxes.left
    # Strictly apart implies libalmath's test finds no collision, so the
    # clipping will not touch theta (touching is treated as a collision here).
    return rectangles_separated(fixed, moving, Pose2D(x, y, theta))


@dataclass(frozen=True, slots=True)
class StepShape:
    """One kind of step in a pattern: support leg, increment, support and swing offsets.

    ``a`` / ``b`` = None stands for the pattern's free stance (tau * h, h).
    """

    support_leg: Leg
    a: Offset
    delta: Pose2D
    b: Offset
    tau: float = 0.0

    def offsets(self, h_m: float) -> tuple[tuple[float, float], tuple[float, float]]:
        free = (self.tau * h_m, h_m)
        return (free if self.a is None else self.a, free if self.b is None else self.b)

    def relative(self, h_m: float) -> Pose2D:
        a, b = self.offsets(h_m)
        return step_relative(self.support_leg, a, self.delta, b)

    def h_interval(self, gait: GaitConfig) -> tuple[float, float] | None:
        """Half widths for which this step's x and y are inside the gait box."""
        c = math.cos(self.delta.theta)
        s = math.sin(self.delta.theta)
        ss = self.support_leg.side
        # r.x = x0 + x1 h ; r.y = y0 + y1 h (see the module docstring)
        x0, x1 = self.delta.x, 0.0
        y0, y1 = self.delta.y, 0.0
        if self.a is None:
            x1 -= ss * self.tau
            y1 -= ss
        else:
            x0 -= ss * self.a[0]
            y0 -= ss * self.a[1]
        if self.b is None:
            x1 -= ss * (c * self.tau - s)
            y1 -= ss * (s * self.tau + c)
        else:
            x0 -= ss * (c * self.b[0] - s * self.b[1])
            y0 -= ss * (s * self.b[0] + c * self.b[1])
        if self.support_leg is Leg.RIGHT:  # left foot moves
            ylo, yhi = gait.min_foot_separation_m, gait.max_step_y_m
        else:
            ylo, yhi = -gait.max_step_y_m, -gait.min_foot_separation_m
        lo, hi = 0.0, gait.max_step_y_m
        for k0, k1, vlo, vhi in (
            (x0, x1, gait.min_step_x_m, gait.max_step_x_m),
            (y0, y1, ylo, yhi),
        ):
            if abs(k1) < 1e-12:
                if not (vlo - FEASIBILITY_TOL <= k0 <= vhi + FEASIBILITY_TOL):
                    return None
                continue
            h0 = (vlo - k0) / k1
            h1 = (vhi - k0) / k1
            if h0 > h1:
                h0, h1 = h1, h0
            lo = max(lo, h0)
            hi = min(hi, h1)
        return (lo, hi)


def choose_half_width(
    shapes: list[tuple[StepShape, GaitConfig]], preferred_m: float, max_candidates: int = 10
) -> float | None:
    """A stance half width (m) that makes every listed step feasible, or None.

    The gait box bounds the half width to an interval (x and y are affine in
    it); inside, ``preferred_m`` (FootSeparation / 2) is tried first, then
    points spread over the interval, nearest first, for the ellipse and
    collision stages (at most ``max_candidates`` in all).
    """
    lo, hi = 0.0, math.inf
    for shape, gait in shapes:
        iv = shape.h_interval(gait)
        if iv is None:
            return None
        lo = max(lo, iv[0])
        hi = min(hi, iv[1])
    if lo > hi + 1e-12:
        return None
    if hi - lo > 4e-12:
        # Stay strictly inside so rounding cannot push a boundary step out.
        lo += 1e-12
        hi -= 1e-12
    else:
        lo = hi = 0.5 * (lo + hi)
    first = min(hi, max(lo, preferred_m))
    candidates = [first]
    if hi > lo:
        # Nearest to the natural stance first: a wider stance than needed
        # only costs lateral sway.
        grid = [lo + f * (hi - lo) for f in _FRACTIONS]
        candidates.extend(sorted(grid, key=lambda h: abs(h - first)))
    for h in candidates[:max_candidates]:
        if all(
            is_step_feasible(shape.relative(h), shape.support_leg.other, gait)
            for shape, gait in shapes
        ):
            return h
    return None
