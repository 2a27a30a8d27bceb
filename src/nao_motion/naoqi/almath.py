"""The part of NAOqi's ``almath`` a motion script uses: ``Pose2D`` and the footstep clipping
functions (seed 003: ``clipFootWithEllipse``, ``avoidFootCollision``), on the planner's own
clipping (``nao_motion.footsteps.clipping``), so a script clips a step as the planner does.

As in libalmath, a ``Pose2D`` is mutable and the clipping functions change the pose they are given
and return whether they did: seed 003's ``almath_foot_clip.py`` relies on both.
"""

from __future__ import annotations

import math

from ..footsteps import clipping
from ..footsteps.pose2d import Pose2D as _Pose2D
from ..footsteps.pose2d import normalize_angle

TO_RAD = math.pi / 180.0
TO_DEG = 180.0 / math.pi
PI = math.pi


class Pose2D:
    """ALMath's Pose2D: ``x``, ``y`` (m), ``theta`` (rad); ``a * b`` composes (b in a's frame)."""

    __slots__ = ("x", "y", "theta")

    def __init__(self, x=0.0, y=0.0, theta=0.0):
        if isinstance(x, (list, tuple)):  # ALMath's Pose2D(std::vector<float>)
            if len(x) != 3:
                raise RuntimeError(f"Pose2D of a list needs [x, y, theta], got {len(x)} values")
            x, y, theta = x
        self.x, self.y, self.theta = float(x), float(y), float(theta)

    @classmethod
    def _of(cls, pose: _Pose2D) -> "Pose2D":
        return cls(pose.x, pose.y, pose.theta)

    def _pose(self) -> _Pose2D:
        return _Pose2D(self.x, self.y, self.theta)

    def _set(self, pose: _Pose2D) -> None:
        self.x, self.y, self.theta = pose.x, pose.y, pose.theta

    def __mul__(self, other: "Pose2D") -> "Pose2D":
        return Pose2D._of(self._pose() * other._pose())

    def __add__(self, other: "Pose2D") -> "Pose2D":
        return Pose2D(self.x + other.x, self.y + other.y, self.theta + other.theta)

    def __sub__(self, other: "Pose2D") -> "Pose2D":
        return Pose2D(self.x - other.x, self.y - other.y, self.theta - other.theta)

    def __neg__(self) -> "Pose2D":
        return Pose2D(-self.x, -self.y, -self.theta)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pose2D) and self.toVector() == other.toVector()

    __hash__ = None  # mutable

    def inverse(self) -> "Pose2D":
        return Pose2D._of(self._pose().inverse())

    def diff(self, other: "Pose2D") -> "Pose2D":
        """``other`` seen from this pose (``inverse() * other``)."""
        return self.inverse() * other

    def distance(self, other: "Pose2D") -> float:
        """The distance between the two positions (m)."""
        return math.hypot(self.x - other.x, self.y - other.y)

    def norm(self) -> float:
        return math.hypot(self.x, self.y)

    def isNear(self, other: "Pose2D", epsilon: float = 0.0001) -> bool:  # noqa: N802 (ALMath's name)
        return (abs(self.x - other.x) <= epsilon and abs(self.y - other.y) <= epsilon
                and abs(normalize_angle(self.theta - other.theta)) <= epsilon)

    def toVector(self) -> list[float]:  # noqa: N802 (ALMath's name)
        return [self.x, self.y, self.theta]

    def __repr__(self) -> str:
        return f"Pose2D(x={self.x!r}, y={self.y!r}, theta={self.theta!r})"


def clipFootWithEllipse(maxFootX: float, maxFootY: float, move: Pose2D) -> bool:  # noqa: N802,N803
    """libalmath's clipFootWithEllipse: ``move`` clipped radially onto the ellipse of half-axes
    |maxFootX|, |maxFootY| when outside it (theta kept); True if it was."""
    clipped, changed = clipping.clip_foot_with_ellipse(float(maxFootX), float(maxFootY), _checked(move)._pose())
    move._set(clipped)
    return changed


def avoidFootCollision(lFootBoundingBox, rFootBoundingBox, isLeftSupport: bool, move: Pose2D) -> bool:  # noqa: N802,N803
    """libalmath's avoidFootCollision: ``move``'s theta bisected toward 0 until the moving foot's
    box (the right one when ``isLeftSupport``) at ``move`` clears the support foot's box at the
    origin; True if they collided. The boxes: four corners each, as Pose2D (theta unused)."""
    changed_pose, collided = clipping.avoid_foot_collision(
        _box(lFootBoundingBox, "lFootBoundingBox"), _box(rFootBoundingBox, "rFootBoundingBox"),
        bool(isLeftSupport), _checked(move)._pose())
    move._set(changed_pose)
    return collided


def _checked(move: object) -> Pose2D:
    if not isinstance(move, Pose2D):
        raise RuntimeError(f"the move must be an almath.Pose2D, got {type(move).__name__}")
    return move


def _box(corners, name: str) -> tuple[tuple[float, float], ...]:
    if len(corners) != 4 or not all(isinstance(c, Pose2D) for c in corners):
        raise RuntimeError(f"{name} must be four almath.Pose2D corners")
    return tuple((c.x, c.y) for c in corners)
