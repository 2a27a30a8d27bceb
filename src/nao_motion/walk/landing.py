"""killMove's landing: the walk stops at once, and a foot in the air is set straight down.

NAOqi's killMove "ends the walk task brutally, without attempting to return to a balanced
state. If the robot has one foot in the air, he could easily fall." Here it is as abrupt for
the walk (no further step, no centre-of-mass settling: the walk ends within the landing), but
the foot in the air is not left there: from the walk's last references, the swinging sole goes
straight down (x, y, yaw kept) at ``LANDING_SPEED_MPS`` while the supporting foot, the centre
of mass and the torso hold; on the floor, both feet are held ("Legs") and the walk ends. From the
default 2 cm peak that is 0.1 s, from the highest StepHeight (4 cm) 0.2 s. The whole body then
keeps the robot as it is (its foot states, its balance constraint if on; disabled, the legs stay
where they landed and its pass-through brings the arms and the head back to their wish).
"""

from __future__ import annotations

import numpy as np

from ..wholebody.balancer import WalkReference

__all__ = ["LANDING_SPEED_MPS", "Landing"]

LANDING_SPEED_MPS = 0.2
LANDED_M = 1e-3  # a sole this close to the floor is on it


class Landing:
    """The references that set a swinging foot down from ``reference`` (``wb_world``)."""

    def __init__(self, reference: WalkReference, floor_z_m: float):
        self.com_world_m = np.array(reference.com_world_m, dtype=float)
        self.soles = [np.array(reference.left_sole_world, dtype=float),
                      np.array(reference.right_sole_world, dtype=float)]
        self.support = reference.support
        self.torso_tilt_rad = reference.torso_tilt_rad
        self.swing = {"LLeg": 1, "RLeg": 0}.get(reference.support)
        self.floor_z_m = floor_z_m

    @property
    def needed(self) -> bool:
        """A foot is in the air."""
        return self.swing is not None and self.soles[self.swing][2, 3] > self.floor_z_m + LANDED_M

    def step(self, dt_s: float) -> WalkReference:
        """The next cycle's references; their support is "Legs" once the foot is down."""
        sole = self.soles[self.swing]
        sole[2, 3] = max(self.floor_z_m, sole[2, 3] - LANDING_SPEED_MPS * dt_s)
        if sole[2, 3] <= self.floor_z_m + LANDED_M:  # on it: held on the floor, not this close above it
            sole[2, 3] = self.floor_z_m
            self.support = "Legs"
        return WalkReference(self.com_world_m.copy(), self.soles[0].copy(), self.soles[1].copy(), self.support,
                             self.torso_tilt_rad)
