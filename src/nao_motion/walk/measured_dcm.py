"""The measured divergent component of motion (DCM): xi = c + c_dot / omega of the measured CoM.

Why. The walk plans on the LIPM, whose unstable part is the DCM: it runs away from the ZMP as
exp(omega t) (omega = sqrt(g / z_c)), so where it is, against the feet, says what the support
can still absorb and where a foot must land to catch the robot. The plan has its own; a push,
a slip or weak servos show as the measured one leaving it. Two parts of the walk read it: the
lift-off check (``walk.lift_off``: a foot is not lifted while its step could not catch the
robot) and balance recovery by stepping (``walk.step_recovery``).

What, each walking cycle with a fresh IMU (``WalkController``): the measured CoM in the walk
generator's plane (the balancer's CoM of the measured joints, turned about the support sole to
the IMU's roll and pitch: the tilt the balancer's model does not have), its velocity by finite
differences, low-pass filtered over ``VELOCITY_FILTER_S`` (encoder and IMU noise at 100 Hz).

No rclpy; frames: the walk generator's plane, m, s.
"""

from __future__ import annotations

import math

import numpy as np

from .preview_control import GRAVITY_MPS2

__all__ = ["MeasuredDcm", "VELOCITY_FILTER_S", "dcm_of"]

# 0.02 let IMU noise of 0.3 deg read as lateral DCM errors of 3.5 cm in unpushed walks.
VELOCITY_FILTER_S = 0.04


def dcm_of(com_m: np.ndarray, velocity_mps: np.ndarray, omega: float, out: np.ndarray) -> np.ndarray:
    """The DCM xi = c + c_dot / omega of a CoM and its velocity (the plane's 2 axes), into ``out``."""
    # Two axes: Python floats (each operation rounded as numpy's elementwise one) for 4 ufunc calls.
    (cx, cy), (vx, vy), scale = com_m.tolist(), velocity_mps.tolist(), 1.0 / omega
    out[0], out[1] = vx * scale + cx, vy * scale + cy
    return out


class MeasuredDcm:
    """The measured CoM, its filtered velocity and the DCM they make (module docstring)."""

    def __init__(self, com_height_m: float, dt_s: float):
        self.omega = math.sqrt(GRAVITY_MPS2 / com_height_m)
        self.dt_s = dt_s
        self._alpha = dt_s / (VELOCITY_FILTER_S + dt_s)
        self.com_m = np.zeros(2)
        self.velocity_mps = np.zeros(2)
        self.dcm_m = np.zeros(2)  # com_m + velocity_mps / omega
        self.fresh = False  # measured this cycle
        self._previous = (0.0, 0.0)
        self._has_previous = False

    def reset(self) -> None:
        """Nothing measured yet (a walk starts): the next measurement starts the velocity at 0."""
        self._has_previous = self.fresh = False
        self.velocity_mps[:] = 0.0

    def measure(self, com_xy_m: np.ndarray) -> None:
        """A new measured CoM (the generator's plane): its velocity, filtered, and the DCM."""
        x, y = float(com_xy_m[0]), float(com_xy_m[1])  # two axes: Python floats, not ufunc calls
        self.com_m[0], self.com_m[1] = x, y
        if self._has_previous:
            (px, py), (vx, vy) = self._previous, self.velocity_mps.tolist()
            dt_s, gain = self.dt_s, self._alpha / self.dt_s
            # the raw velocity * dt, less the filtered one's, a share of it added to the filtered
            self.velocity_mps[0] = vx + ((x - px) - dt_s * vx) * gain
            self.velocity_mps[1] = vy + ((y - py) - dt_s * vy) * gain
        self._previous = (x, y)
        self._has_previous = self.fresh = True
        dcm_of(self.com_m, self.velocity_mps, self.omega, out=self.dcm_m)
