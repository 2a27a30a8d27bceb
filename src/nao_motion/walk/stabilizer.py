"""Walk stabiliser: the IMU's angular velocity damps the torso's rocking at the supporting ankles.

Why. The walk pattern is planned on the cart-table and executed by position servos; what the
plan does not model (servo compliance under load, the swing foot's touch-down, the foot rolling
a little onto a sole edge) makes the whole robot rock about its supporting foot. Without
feedback these oscillations grow from step to step: in the simulator the torso rocks by 3-8 deg,
the feet land off their targets and slip, and the robot falls within a few metres at the
default gait. NAOqi's walk "absorbs torso oscillations in the frontal and lateral planes" with
sensor feedback; this is the ankle strategy's damping term: each supporting ankle turns with
the torso's measured roll / pitch rate, which rotates the leg against the rocking and moves the
centre of pressure the way that brakes it. A rate term needs no attitude reference (the torso
may lean on purpose, TorsoWx / TorsoWy) and no calibration; measured in the simulator over
60 s of random velocity commands, 0.05 rad per rad/s brings the worst tilt from ~10 deg to
~2 deg (gains far above that excite the servos' own ~5 Hz mode).

Which joints. The ankle(s) of the supporting leg(s) (``WalkOutput.support``: both in double
support, the stance leg in single support): the swing foot's ankle only orients the foot in the
air, and turning it would land the foot tilted.

Per cycle (the walk node, after the balancer's step)::

    q_command = balancer.step(wish, walk_reference, q_measured).q.copy()
    stabilizer.apply(q_command, imu_angular_velocity_radps, walk_output.support)

``apply`` adds the corrections in place and allocates nothing; ``corrections`` returns them
(the stabiliser's buffer, 26 joints in ``model.joint_names`` order) for logging. The corrections
change at ``max_rate_radps`` at most, and a cycle without damping (the walk over, the gyro
stale) calls ``fade``: what is left goes to zero at that rate instead of vanishing at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import NaoModel, ankle_roll_range

__all__ = ["StabilizerConfig", "WalkStabilizer"]

SUPPORT_LEGS = {"Legs": ("L", "R"), "LLeg": ("L",), "RLeg": ("R",)}


@dataclass(frozen=True)
class StabilizerConfig:
    """Gains (rad of joint command per rad/s of torso rate, i.e. seconds) and the correction's bound."""

    ankle_roll_damping_s: float = 0.05
    ankle_pitch_damping_s: float = 0.05
    # A bound on each joint's correction: a fall or a hard impact spikes the gyro, and the
    # correction must stay a small change of the balancer's command.
    max_correction_rad: float = 0.1
    # ... and on how fast it changes, also when the walk ends and it fades out: a gyro that jumps
    # (a footfall's jolt, a knock) made the ankle's command jump. On top of the balancer's own
    # step (at most half the motor's speed) the ankle stays within its motor's speed (AnkleRoll:
    # 4.16 rad/s; the bad-input flood saw it commanded 4.5 rad/s).
    max_rate_radps: float = 2.0

    def __post_init__(self) -> None:
        gains = (self.ankle_roll_damping_s, self.ankle_pitch_damping_s)
        if not all(np.isfinite(g) and 0.0 <= g <= 0.2 for g in gains):
            raise ValueError(f"damping gains must be in [0, 0.2] s, got {self}")
        if not (np.isfinite(self.max_correction_rad) and 0.0 < self.max_correction_rad <= 0.3):
            raise ValueError(f"max_correction_rad must be in (0, 0.3], got {self.max_correction_rad!r}")
        if not (np.isfinite(self.max_rate_radps) and 0.0 < self.max_rate_radps <= 10.0):
            raise ValueError(f"max_rate_radps must be in (0, 10], got {self.max_rate_radps!r}")


class WalkStabilizer:
    """Ankle damping from the IMU gyro, per cycle (see the module docstring)."""

    def __init__(self, model: NaoModel, config: StabilizerConfig | None = None):
        self.model = model
        self.config = config or StabilizerConfig()
        self._roll = {side: model.joint_index(f"{side}AnkleRoll") for side in "LR"}
        self._pitch = {side: model.joint_index(f"{side}AnklePitch") for side in "LR"}
        self.correction_rad = np.zeros(model.n_joints)  # this cycle's, moved toward the wanted one
        self._wanted = np.zeros(model.n_joints)
        self._max_change_rad = self.config.max_rate_radps * model.cycle_time_s
        self._lower, self._upper = model.lower.tolist(), model.upper.tolist()

    def corrections(self, angular_velocity_radps, support: str) -> np.ndarray:
        """Joint corrections (rad, 26) for the IMU's angular velocity (torso frame, rad/s): the
        damping's, reached at ``max_rate_radps`` from the last cycle's.

        ``support``: the walk's ("Legs", "LLeg", "RLeg"); ValueError otherwise.
        """
        legs = SUPPORT_LEGS.get(support)
        if legs is None:
            raise ValueError(f"support must be one of {sorted(SUPPORT_LEGS)}, got {support!r}")
        cfg, wanted = self.config, self._wanted
        limit = cfg.max_correction_rad
        roll = min(limit, max(-limit, cfg.ankle_roll_damping_s * float(angular_velocity_radps[0])))
        pitch = min(limit, max(-limit, cfg.ankle_pitch_damping_s * float(angular_velocity_radps[1])))
        wanted.fill(0.0)
        for side in legs:
            wanted[self._roll[side]] = roll
            wanted[self._pitch[side]] = pitch
        return self._move_toward_wanted()

    def _move_toward_wanted(self) -> np.ndarray:
        c, step = self.correction_rad, self._max_change_rad
        for side in "LR":
            for j in (self._roll[side], self._pitch[side]):
                c[j] += min(step, max(-step, float(self._wanted[j]) - float(c[j])))
        return c

    def apply(self, q_command: np.ndarray, angular_velocity_radps, support: str) -> np.ndarray:
        """Add the corrections to ``q_command`` (26 joints, rad; within the joint limits) in place,
        keeping the corrected ankles within their limits and the coupled AnkleRoll/AnklePitch
        range (an ankle the balancer left at its limit would be pushed past it); returns it."""
        q_command += self.corrections(angular_velocity_radps, support)
        return self._within_limits(q_command)

    def reset(self) -> None:
        """No correction left (the whole body starts afresh)."""
        self.correction_rad.fill(0.0)

    def fade(self, q_command: np.ndarray) -> np.ndarray:
        """No damping this cycle (not walking, or no fresh gyro): what is left of the correction
        goes to zero at ``max_rate_radps``, added to ``q_command`` meanwhile; returns it."""
        if not self.correction_rad.any():
            return q_command
        self._wanted.fill(0.0)
        q_command += self._move_toward_wanted()
        return self._within_limits(q_command)

    def _within_limits(self, q_command: np.ndarray) -> np.ndarray:
        lower, upper = self._lower, self._upper
        for side in "LR":
            p, r = self._pitch[side], self._roll[side]
            pitch = min(max(float(q_command[p]), lower[p]), upper[p])
            lo, hi = ankle_roll_range(side, pitch)
            q_command[p] = pitch
            q_command[r] = min(max(min(max(float(q_command[r]), lower[r]), upper[r]), lo), hi)
        return q_command
