"""Planar poses (x, y in metres, theta in radians) and SE(2) helpers.

A ``Pose2D`` is both a pose in a frame and a rigid motion: ``a * b`` composes
(``b`` expressed in ``a``'s frame), as ``AL::Math::Pose2D`` does. ``se2_log`` /
``se2_exp`` give the constant-twist ("SE3 interpolation" restricted to the
ground plane) path that moveTo follows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Pose2D",
    "normalize_angle",
    "se2_exp",
    "se2_log",
    "mean_pose",
]

_TWO_PI = 2.0 * math.pi


def normalize_angle(angle_rad: float) -> float:
    """Wrap an angle to (-pi, pi] radians."""
    a = math.fmod(angle_rad, _TWO_PI)
    if a <= -math.pi:
        a += _TWO_PI
    elif a > math.pi:
        a -= _TWO_PI
    return a


@dataclass(frozen=True, slots=True)
class Pose2D:
    """Pose on the ground plane: ``x_m``/``y_m`` in metres, ``theta`` in radians.

    Field names follow ALMath (``x``, ``y``, ``theta``) so that NAOqi users read
    them as they know them; units are metres and radians throughout.
    """

    x: float = 0.0
    y: float = 0.0
    theta: float = 0.0

    @classmethod
    def from_transform(cls, t) -> "Pose2D":
        """(x, y, heading) of a 4x4 pose on the floor plane."""
        return cls(float(t[0][3]), float(t[1][3]), math.atan2(t[1][0], t[0][0]))

    def to_transform(self) -> np.ndarray:
        """4x4 of this pose on the floor plane (z = 0)."""
        c, s = math.cos(self.theta), math.sin(self.theta)
        return np.array([[c, -s, 0.0, self.x], [s, c, 0.0, self.y], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])

    def __mul__(self, other: "Pose2D") -> "Pose2D":
        """Compose: ``other`` expressed in this pose's frame, returned in the parent frame."""
        c = math.cos(self.theta)
        s = math.sin(self.theta)
        return Pose2D(
            self.x + c * other.x - s * other.y,
            self.y + s * other.x + c * other.y,
            self.theta + other.theta,
        )

    def compose(self, other: "Pose2D") -> "Pose2D":
        """Same as ``self * other``."""
        return self * other

    def inverse(self) -> "Pose2D":
        """The pose whose composition with this one is the identity."""
        c = math.cos(self.theta)
        s = math.sin(self.theta)
        return Pose2D(-c * self.x - s * self.y, s * self.x - c * self.y, -self.theta)

    def relative_to(self, base: "Pose2D") -> "Pose2D":
        """This pose expressed in ``base``'s frame (``base.inverse() * self``)."""
        c = math.cos(base.theta)
        s = math.sin(base.theta)
        dx = self.x - base.x
        dy = self.y - base.y
        return Pose2D(c * dx + s * dy, -s * dx + c * dy, self.theta - base.theta)

    def transform_point(self, x_m: float, y_m: float) -> tuple[float, float]:
        """Point given in this pose's frame, returned in the parent frame (metres)."""
        c = math.cos(self.theta)
        s = math.sin(self.theta)
        return (self.x + c * x_m - s * y_m, self.y + s * x_m + c * y_m)

    def point_in_frame(self, x_m: float, y_m: float) -> tuple[float, float]:
        """Point given in the parent frame, returned in this pose's frame (``transform_point``'s inverse)."""
        c = math.cos(self.theta)
        s = math.sin(self.theta)
        dx, dy = x_m - self.x, y_m - self.y
        return (c * dx + s * dy, -s * dx + c * dy)

    def normalized(self) -> "Pose2D":
        """Same pose with theta wrapped to (-pi, pi]."""
        return Pose2D(self.x, self.y, normalize_angle(self.theta))

    def is_finite(self) -> bool:
        return math.isfinite(self.x) and math.isfinite(self.y) and math.isfinite(self.theta)

    def as_list(self) -> list[float]:
        """NAOqi's ``[x, y, theta]`` layout."""
        return [self.x, self.y, self.theta]


def _v_coefficients(w: float) -> tuple[float, float]:
    """(sin w / w, (1 - cos w) / w) with series expansions near 0 to keep precision."""
    if abs(w) < 1e-6:
        w2 = w * w
        return (1.0 - w2 / 6.0, w / 2.0 - w * w2 / 24.0)
    return (math.sin(w) / w, (1.0 - math.cos(w)) / w)


def se2_exp(vx: float, vy: float, w: float) -> Pose2D:
    """Pose reached after following the body twist (vx, vy, w) for unit time.

    vx, vy in metres (per unit parameter), w in radians: the robot moves with a
    constant velocity expressed in its own frame, i.e. along a circular arc.
    """
    a, b = _v_coefficients(w)
    return Pose2D(a * vx - b * vy, b * vx + a * vy, w)


def se2_log(pose: Pose2D) -> tuple[float, float, float]:
    """Body twist (vx_m, vy_m, w_rad) whose ``se2_exp`` is ``pose``; w in (-pi, pi].

    Inverse of ``se2_exp``; the heading is wrapped first so the robot turns the
    short way round.
    """
    w = normalize_angle(pose.theta)
    a, b = _v_coefficients(w)
    det = a * a + b * b  # > 0 for |w| <= pi (det = 2(1 - cos w)/w^2 >= 4/pi^2)
    vx = (a * pose.x + b * pose.y) / det
    vy = (-b * pose.x + a * pose.y) / det
    return (vx, vy, w)


def mean_pose(a: Pose2D, b: Pose2D) -> Pose2D:
    """Midpoint of two poses with the mean heading (short way round).

    Used for the robot position between both feet (REP-120 base_footprint).
    """
    return Pose2D(
        0.5 * (a.x + b.x),
        0.5 * (a.y + b.y),
        normalize_angle(a.theta + 0.5 * normalize_angle(b.theta - a.theta)),
    )
