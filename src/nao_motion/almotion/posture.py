"""NAOqi's ALRobotPosture, as far as the ported examples use it: goToPosture over an ALMotion
client (the named postures of :mod:`nao_motion.postures`, reached with angleInterpolationWithSpeed).

NAOqi's module plans a path through intermediate postures (e.g. from lying down); this one goes
straight to the posture's angles, which is what it does between the standing postures.
"""

from __future__ import annotations

from numbers import Real

from ..postures import POSTURES, posture
from .client_base import ALMotionError


class ALRobotPosture:
    def __init__(self, motion) -> None:
        self.motion = motion

    def getPostureList(self) -> list[str]:
        return sorted(POSTURES)

    def goToPosture(self, postureName: str, maxSpeedFraction: float) -> bool:
        """Blocking: every joint to the posture's angles at maxSpeedFraction; True when done."""
        if postureName not in POSTURES:
            raise ALMotionError(f"unknown posture {postureName!r}: expected one of {self.getPostureList()}")
        if not isinstance(maxSpeedFraction, Real) or not 0.0 < maxSpeedFraction <= 1.0:
            raise ALMotionError(f"maxSpeedFraction must be in (0, 1], got {maxSpeedFraction!r}")
        target = posture(self.motion.model, postureName)
        self.motion.angleInterpolationWithSpeed("Body", target.tolist(), maxSpeedFraction)
        return True
