"""Arm swing while walking (NAOqi's setMoveArmsEnabled): offsets on L/RShoulderPitch (rad).

Each arm swings opposite to the leg on its side: while the left leg swings forward the left arm
goes back (ShoulderPitch grows: positive is down/back) and the right arm forward. Over a step
the arms move from where they were when the step began to their end-of-step offsets
(+A on the moving leg's side, -A on the other), with the swing foot's time scaling, so they are
still during double support and turn round when the foot lands.

Amplitude A grows with step length and frequency: A = gain * d / T_step, clamped to
``max_amplitude_rad``, with d the swing foot's forward travel along the support foot's heading
(signed: walking backward swings the arms the other way) and T_step the step duration, i.e. the
swing foot's mean forward speed. NAOqi's default 0.04 m steps at 0.5 s (foot travel ~0.08 m)
give about 0.48 rad.

Why that large: the arms are what balances the swing leg's yaw angular momentum, and what is not
balanced turns the planted feet. Measured in the simulator (true sole poses, moveTo(1.0, 0.5,
1.57), 31 steps), at half this gain (1.5 rad per m/s, at most 0.3 rad) the foot that has just
landed turned 0.4-0.5 deg in the turning direction in every double support (+13 deg of heading
over the walk) and the support foot crept ~1.4 mm forward per single support (moveTo(2, 0, 0)
ended 6 % long); at 3.0 rad per m/s those fell to +3 deg and ~0.5 % (without arm swing the robot
fell within 5 s).

Enabling, disabling, starting and stopping never jump: the output moves toward its target at no
more than ``max_rate_radps``, and goes back to 0 when no step is in progress or the arm is
disabled.

How the walk node combines them with user commands: the walk only provides these offsets. The
node adds an arm's offset to the ShoulderPitch the collision filter / user wish holds for that
arm, unless the user is commanding that arm (a joint target or trajectory for it is active), in
which case it calls ``set_enabled`` with that arm off while the command lasts and on again after
(NAOqi: user arm commands have priority; the arm motion resumes automatically), so the offset
fades out and back in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..footsteps.footstep import Footstep, Leg
from .swing_foot import horizontal_scaling

__all__ = ["ArmSwingConfig", "swing_amplitude_rad", "ArmSwing", "ARM_SWING_JOINTS"]

ARM_SWING_JOINTS = ("LShoulderPitch", "RShoulderPitch")


@dataclass(frozen=True)
class ArmSwingConfig:
    gain_rad_per_mps: float = 3.0  # amplitude per m/s of the swing foot's mean forward speed
    max_amplitude_rad: float = 0.6  # reached by the fastest default gait (0.04 m at 0.42 s: 0.57 rad)
    # Bounds every change, fades included, well below the motor's 8.3 rad/s: at the fastest gait
    # it rounds the swing's turn-rounds off (its peak would be ~7 rad/s), which was measured with.
    max_rate_radps: float = 4.0

    def __post_init__(self) -> None:
        if not (self.gain_rad_per_mps >= 0.0 and 0.0 <= self.max_amplitude_rad <= 0.6
                and self.max_rate_radps > 0.0):
            raise ValueError(f"invalid arm swing configuration {self}")


def swing_amplitude_rad(step: Footstep, config: ArmSwingConfig) -> float:
    """Signed amplitude A of the arm on the moving leg's side (positive: that arm ends back)."""
    heading = step.support.theta
    travel_m = ((step.target.x - step.origin.x) * math.cos(heading)
                + (step.target.y - step.origin.y) * math.sin(heading))
    a = config.gain_rad_per_mps * travel_m / step.duration_s
    return min(config.max_amplitude_rad, max(-config.max_amplitude_rad, a))


class ArmSwing:
    """The offsets of (LShoulderPitch, RShoulderPitch), updated once per cycle."""

    def __init__(self, config: ArmSwingConfig, dt_s: float):
        self.config = config
        self._max_change_rad = config.max_rate_radps * dt_s
        self.enabled = (1.0, 1.0)  # 1.0 / 0.0 per arm: multiplies the target
        self.offsets_rad = np.zeros(2)  # the output buffer (copy to keep)
        self._from_rad = (0.0, 0.0)  # the offsets when the step in progress began
        self._step_start_s: float | None = None

    def set_enabled(self, left: bool, right: bool) -> None:
        """NAOqi's setMoveArmsEnabled(left, right)."""
        self.enabled = (float(left), float(right))

    def update(self, step: Footstep | None, swing_phase: float) -> np.ndarray:
        """Offsets for the step in progress (None: none) at its swing phase."""
        # Two arms: Python floats (each operation rounded as numpy's elementwise one), not ufunc calls.
        if step is None:
            self._step_start_s = None
            left, right = 0.0, 0.0
        else:
            if step.start_s != self._step_start_s:
                self._step_start_s = step.start_s
                self._from_rad = tuple(self.offsets_rad.tolist())
            a = swing_amplitude_rad(step, self.config)
            end_left = a if step.leg is Leg.LEFT else -a
            s = horizontal_scaling(swing_phase)
            from_left, from_right = self._from_rad
            left = from_left + s * (end_left - from_left)
            right = from_right + s * (-end_left - from_right)
        offsets, limit = self.offsets_rad, self._max_change_rad
        (enabled_left, enabled_right), (offset_left, offset_right) = self.enabled, offsets.tolist()
        offsets[0] = offset_left + min(max(left * enabled_left - offset_left, -limit), limit)
        offsets[1] = offset_right + min(max(right * enabled_right - offset_right, -limit), limit)
        return offsets
