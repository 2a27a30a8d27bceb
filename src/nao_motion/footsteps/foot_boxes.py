"""NAO's foot bounding boxes and libalmath's box-collision test.

Boxes are the rectangles NAOqi's clipping uses (sole frame, metres), listed
clockwise FL, FR, RR, RL as in the seed and nao-model.md. The collision test
follows libalmath's ``areTwoBoxesInCollision``: two boxes collide when an edge
of one crosses an edge of the other (end points included, so corner contact
counts) or when a vertex of one lies strictly inside the other.

Deliberate differences from libalmath (float32, absolute tolerance):

* parallel edges never "cross" (as in libalmath), but parallelism is judged
  with a relative tolerance (|sin angle| < 1e-9) in float64 instead of an
  absolute 1e-5 on the cross product, which in metres treated edges within
  about 0.04 degrees of each other as parallel;
* every vertex is tested for containment, not only the first one (same answer
  whenever one box is inside the other, more robust at degenerate contacts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from .pose2d import Pose2D

__all__ = [
    "Box",
    "FootBoxes",
    "LEFT_FOOT_BOX",
    "RIGHT_FOOT_BOX",
    "NAO_FOOT_BOXES",
    "place_box",
    "segments_intersect",
    "point_strictly_inside",
    "boxes_collide",
    "rectangles_separated",
]

#: Convex polygon as clockwise (x_m, y_m) vertices.
Box = tuple[tuple[float, float], ...]

LEFT_FOOT_BOX: Box = ((0.11, 0.050), (0.11, -0.038), (-0.047, -0.038), (-0.047, 0.050))
RIGHT_FOOT_BOX: Box = ((0.11, 0.038), (0.11, -0.050), (-0.047, -0.050), (-0.047, 0.038))

_PARALLEL_SIN_TOL = 1e-9


@dataclass(frozen=True)
class FootBoxes:
    """Left and right sole boxes, each in its own sole frame (clockwise, metres)."""

    left: Box = LEFT_FOOT_BOX
    right: Box = RIGHT_FOOT_BOX


NAO_FOOT_BOXES = FootBoxes()


def place_box(box: Box, pose: Pose2D) -> Box:
    """Box vertices moved by ``pose`` (rotate by theta, then translate)."""
    c = math.cos(pose.theta)
    s = math.sin(pose.theta)
    px, py = pose.x, pose.y
    return tuple((px + c * x - s * y, py + s * x + c * y) for x, y in box)


def segments_intersect(
    a1: tuple[float, float],
    a2: tuple[float, float],
    b1: tuple[float, float],
    b2: tuple[float, float],
) -> bool:
    """True when segments [a1, a2] and [b1, b2] meet in a single point (ends included).

    Parallel or collinear segments and zero-length segments return False, as in
    libalmath's ``intersectionSegment2D``.
    """
    gax, gay = a2[0] - a1[0], a2[1] - a1[1]
    gbx, gby = b2[0] - b1[0], b2[1] - b1[1]
    den = gax * gby - gay * gbx
    scale = (gax * gax + gay * gay) * (gbx * gbx + gby * gby)
    if scale == 0.0 or den * den <= _PARALLEL_SIN_TOL * _PARALLEL_SIN_TOL * scale:
        return False
    dx, dy = b1[0] - a1[0], b1[1] - a1[1]
    ra = (dx * gby - dy * gbx) / den
    if ra < 0.0 or ra > 1.0:
        return False
    rb = (dx * gay - dy * gax) / den
    return 0.0 <= rb <= 1.0


def point_strictly_inside(box: Box, x: float, y: float) -> bool:
    """True when (x, y) is strictly inside the clockwise convex ``box``.

    Clockwise means the interior is on the right of every edge (negative cross
    product); a point on an edge is not inside.
    """
    n = len(box)
    for i in range(n):
        x0, y0 = box[i]
        x1, y1 = box[(i + 1) % n]
        if (x1 - x0) * (y - y0) - (y1 - y0) * (x - x0) >= 0.0:
            return False
    return True


@lru_cache(maxsize=64)
def _bounds(box: Box) -> tuple[float, float, float, float]:
    xs = [v[0] for v in box]
    ys = [v[1] for v in box]
    return (min(xs), max(xs), min(ys), max(ys))


def boxes_collide(fixed: Box, moving: Box) -> bool:
    """libalmath's ``areTwoBoxesInCollision`` (edge crossing or vertex strictly inside)."""
    # Cheap exact reject: strictly beyond one side of the fixed box's bounding
    # rectangle means no common point at all, so the full test would say False.
    # This is the usual case while walking and keeps clipping fast.
    xmin, xmax, ymin, ymax = _bounds(fixed)
    if (
        all(v[1] > ymax for v in moving)
        or all(v[1] < ymin for v in moving)
        or all(v[0] > xmax for v in moving)
        or all(v[0] < xmin for v in moving)
    ):
        return False
    na, nb = len(fixed), len(moving)
    for i in range(na):
        a1, a2 = fixed[i], fixed[(i + 1) % na]
        for j in range(nb):
            if segments_intersect(a1, a2, moving[j], moving[(j + 1) % nb]):
                return True
    for x, y in moving:
        if point_strictly_inside(fixed, x, y):
            return True
    for x, y in fixed:
        if point_strictly_inside(moving, x, y):
            return True
    return False


@lru_cache(maxsize=64)
def _is_axis_aligned_rectangle(box: Box) -> bool:
    xmin, xmax, ymin, ymax = _bounds(box)
    return len(box) == 4 and all(x in (xmin, xmax) and y in (ymin, ymax) for x, y in box)


def rectangles_separated(fixed: Box, moving: Box, pose: Pose2D) -> bool:
    """True when ``moving`` placed at ``pose`` is strictly apart from ``fixed``.

    Separating-axis test for two rectangles given axis-aligned in their own
    frames (NAO's foot boxes): strictly apart along one of the four axes.
    Conservative with respect to ``boxes_collide``: touching counts as not
    separated, and whenever this returns True ``boxes_collide`` is False. The
    planners use it to test thousands of candidate steps cheaply.
    """
    if not (_is_axis_aligned_rectangle(fixed) and _is_axis_aligned_rectangle(moving)):
        return not boxes_collide(fixed, place_box(moving, pose))
    c = math.cos(pose.theta)
    s = math.sin(pose.theta)
    px, py = pose.x, pose.y
    fxmin, fxmax, fymin, fymax = _bounds(fixed)
    mxmin, mxmax, mymin, mymax = _bounds(moving)
    # moving corners in the fixed frame
    xs = [px + c * x - s * y for x, y in moving]
    ys = [py + s * x + c * y for x, y in moving]
    if min(xs) > fxmax or max(xs) < fxmin or min(ys) > fymax or max(ys) < fymin:
        return True
    # fixed corners in the moving frame
    us = [c * (x - px) + s * (y - py) for x, y in fixed]
    vs = [-s * (x - px) + c * (y - py) for x, y in fixed]
    return min(us) > mxmax or max(us) < mxmin or min(vs) > mymax or max(vs) < mymin
