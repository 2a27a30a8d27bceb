"""NAOqi's three footstep-clipping stages (seed 003, libalmath semantics).

A footstep ``move`` is the pose of the moving foot relative to the support foot
(metres, radians). ``is_left_support`` is True when the RIGHT foot moves. The
stages use the *extremal* gait values (``EXTREMAL_CLIP_LIMITS``: MaxStepX 0.08,
MinStepX -0.04, MaxStepY 0.16, MaxStepTheta 0.524, MinFootSeparation 0.088),
not the user's move config, exactly as NAOqi documents.

Edge cases, decided and tested:

* boundaries are inclusive: a move on the gait box or on the ellipse (within
  libalmath's 1.00001 tolerance on the normalised radius) is returned unchanged;
  when the ellipse stage leaves a move unchanged the *original* object is
  returned, so no rounding from the y shift and back creeps in;
* the ellipse stage skips moves with |y| <= MinFootSeparation (seed);
* ``clip_foot_with_ellipse`` with a zero axis (a or b = 0) uses the limit of the
  radial formula instead of dividing by zero: a point on the remaining axis is
  clipped along it, any other point goes to the origin; a = b = 0 clips to the
  origin;
* ``avoid_foot_collision`` only bisects theta over [0, theta] (5 iterations,
  keeping the last collision-free value, 0 if none): x and y never change. With
  theta = 0, or when the boxes overlap by translation alone, it returns theta =
  0 and reports the collision. After the gait-box stage |y| >= 0.088 m, which
  keeps NAO's boxes 12 mm apart at theta = 0, so the chained clip always ends
  collision-free.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import InvalidCommandError
from .foot_boxes import NAO_FOOT_BOXES, Box, FootBoxes, boxes_collide, place_box
from .gait_config import GAIT_PARAMETERS, GaitConfig
from .pose2d import Pose2D

__all__ = [
    "ClipLimits",
    "EXTREMAL_CLIP_LIMITS",
    "ELLIPSE_TOLERANCE",
    "COLLISION_BISECTION_ITERATIONS",
    "clip_footstep_on_gait_config",
    "clip_foot_with_ellipse",
    "clip_footstep_with_ellipse",
    "avoid_foot_collision",
    "clip_footstep_to_avoid_collision",
    "clip_footstep",
]

#: libalmath treats x^2/a^2 + y^2/b^2 < 1.00001 as inside the ellipse.
ELLIPSE_TOLERANCE = 1.00001
#: libalmath's ``dichotomie`` runs a fixed number of bisection steps on theta.
COLLISION_BISECTION_ITERATIONS = 5


@dataclass(frozen=True)
class ClipLimits:
    """Step limits used by the clipping stages (metres, radians)."""

    max_step_x_m: float
    min_step_x_m: float
    max_step_y_m: float
    max_step_theta_rad: float
    min_foot_separation_m: float

    @classmethod
    def extremal(cls) -> "ClipLimits":
        """The extremal values of NAOqi's gait table (what NAOqi's clipping uses)."""
        g = GAIT_PARAMETERS
        return cls(
            g["MaxStepX"].maximum,
            g["MinStepX"].minimum,
            g["MaxStepY"].maximum,
            g["MaxStepTheta"].maximum,
            g["MinFootSeparation"].minimum,
        )

    @classmethod
    def from_gait(cls, gait: GaitConfig) -> "ClipLimits":
        """The (tighter) box of a user or default gait config, for the planners."""
        return cls(
            gait.max_step_x_m,
            gait.min_step_x_m,
            gait.max_step_y_m,
            gait.max_step_theta_rad,
            gait.min_foot_separation_m,
        )


EXTREMAL_CLIP_LIMITS = ClipLimits.extremal()


def _clip_float(min_value: float, max_value: float, value: float) -> float:
    # Same order as the seed's clipFloat: min first, then max.
    if value < min_value:
        value = min_value
    if value > max_value:
        value = max_value
    return value


def clip_footstep_on_gait_config(
    move: Pose2D, is_left_support: bool, limits: ClipLimits = EXTREMAL_CLIP_LIMITS
) -> Pose2D:
    """Stage 1: clip x, y, theta independently onto the gait box.

    x in [MinStepX, MaxStepX]; y in [MinFootSeparation, MaxStepY] for a left-foot
    move (right support), [-MaxStepY, -MinFootSeparation] for a right-foot move;
    theta in [-MaxStepTheta, MaxStepTheta].
    """
    x = _clip_float(limits.min_step_x_m, limits.max_step_x_m, move.x)
    if not is_left_support:
        y = _clip_float(limits.min_foot_separation_m, limits.max_step_y_m, move.y)
    else:
        y = _clip_float(-limits.max_step_y_m, -limits.min_foot_separation_m, move.y)
    t = _clip_float(-limits.max_step_theta_rad, limits.max_step_theta_rad, move.theta)
    if x == move.x and y == move.y and t == move.theta:
        return move
    return Pose2D(x, y, t)


def clip_foot_with_ellipse(
    max_foot_x_m: float, max_foot_y_m: float, move: Pose2D
) -> tuple[Pose2D, bool]:
    """libalmath ``clipFootWithEllipse``: radial clip of (x, y) onto an ellipse.

    a = |max_foot_x_m|, b = |max_foot_y_m|. Inside when x^2/a^2 + y^2/b^2 < 1.00001
    (returns the move unchanged and False); otherwise the point is moved along
    its own direction from the origin onto the ellipse (theta untouched) and
    True is returned. Zero axes: see the module docstring.
    """
    a = abs(max_foot_x_m)
    b = abs(max_foot_y_m)
    x, y = move.x, move.y
    if a == 0.0 or b == 0.0:
        return _clip_with_degenerate_ellipse(a, b, move)
    norm = x * x / (a * a) + y * y / (b * b)
    if norm < ELLIPSE_TOLERANCE:
        return move, False
    th = math.atan2(y, x)
    c = math.cos(th)
    s = math.sin(th)
    t = a * b / math.sqrt(b * b * c * c + a * a * s * s)
    return Pose2D(t * c, t * s, move.theta), True


def _clip_with_degenerate_ellipse(a: float, b: float, move: Pose2D) -> tuple[Pose2D, bool]:
    # The ellipse collapsed to a segment on one axis (or to a point). The radial
    # formula's radius t = ab / sqrt(b^2 cos^2 + a^2 sin^2) tends to 0 off that
    # axis and to the remaining half-axis on it; use that limit.
    x, y = move.x, move.y
    if a == 0.0 and b == 0.0:
        inside = x == 0.0 and y == 0.0
        return (move, False) if inside else (Pose2D(0.0, 0.0, move.theta), True)
    if a == 0.0:
        if x == 0.0:
            if y * y / (b * b) < ELLIPSE_TOLERANCE:
                return move, False
            return Pose2D(0.0, math.copysign(b, y), move.theta), True
        return Pose2D(0.0, 0.0, move.theta), True
    if y == 0.0:
        if x * x / (a * a) < ELLIPSE_TOLERANCE:
            return move, False
        return Pose2D(math.copysign(a, x), 0.0, move.theta), True
    return Pose2D(0.0, 0.0, move.theta), True


def clip_footstep_with_ellipse(
    move: Pose2D, limits: ClipLimits = EXTREMAL_CLIP_LIMITS
) -> Pose2D:
    """Stage 2: clip inside the ellipse that avoids leg singularities (seed).

    y is first shifted by MinFootSeparation towards 0 (skipped when
    |y| <= MinFootSeparation), then clipped with ``clip_foot_with_ellipse``
    (a = MaxStepX when x >= 0, |MinStepX| otherwise; b = MaxStepY -
    MinFootSeparation), then shifted back on the side of the clipped y.
    """
    sep = limits.min_foot_separation_m
    if move.y < -sep:
        shifted_y = move.y + sep
    elif move.y > sep:
        shifted_y = move.y - sep
    else:
        return move
    a = limits.max_step_x_m if move.x >= 0.0 else limits.min_step_x_m
    clipped, changed = clip_foot_with_ellipse(
        a, limits.max_step_y_m - sep, Pose2D(move.x, shifted_y, move.theta)
    )
    if not changed:
        return move
    y = clipped.y + sep if clipped.y >= 0.0 else clipped.y - sep
    return Pose2D(clipped.x, y, clipped.theta)


def avoid_foot_collision(
    l_foot_box: Box, r_foot_box: Box, is_left_support: bool, move: Pose2D
) -> tuple[Pose2D, bool]:
    """libalmath ``avoidFootCollision``: reduce theta until the feet do not collide.

    The moving foot's box (right box when ``is_left_support``) is placed at
    ``move`` and tested against the support box at the origin. On collision,
    theta is bisected over [0, move.theta] for 5 iterations, keeping the last
    collision-free value (0 if none was found); x and y are never changed.
    Returns (new move, whether the initial move collided).
    """
    if is_left_support:
        fixed, moving = l_foot_box, r_foot_box
    else:
        fixed, moving = r_foot_box, l_foot_box
    if not boxes_collide(fixed, place_box(moving, move)):
        return move, False
    lo, hi = 0.0, move.theta
    best = 0.0
    for _ in range(COLLISION_BISECTION_ITERATIONS):
        mid = 0.5 * (lo + hi)
        if boxes_collide(fixed, place_box(moving, Pose2D(move.x, move.y, mid))):
            hi = mid
        else:
            best = mid
            lo = mid
    return Pose2D(move.x, move.y, best), True


def clip_footstep_to_avoid_collision(
    move: Pose2D, is_left_support: bool, boxes: FootBoxes = NAO_FOOT_BOXES
) -> Pose2D:
    """Stage 3: ``avoid_foot_collision`` with NAO's foot boxes."""
    return avoid_foot_collision(boxes.left, boxes.right, is_left_support, move)[0]


def clip_footstep(
    move: Pose2D,
    is_left_support: bool,
    limits: ClipLimits = EXTREMAL_CLIP_LIMITS,
    boxes: FootBoxes = NAO_FOOT_BOXES,
) -> Pose2D:
    """The three stages in NAOqi's order: gait box, ellipse, foot collision.

    Raises ``InvalidCommandError`` for a non-finite move (NaN would pass every
    comparison unclipped).
    """
    if not move.is_finite():
        raise InvalidCommandError(f"footstep {move} is not finite")
    move = clip_footstep_on_gait_config(move, is_left_support, limits)
    move = clip_footstep_with_ellipse(move, limits)
    return clip_footstep_to_avoid_collision(move, is_left_support, boxes)
