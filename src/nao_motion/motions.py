"""Keyframe motions for the built-in joint-state player (no rclpy).

A motion is a list of (time, posture) keyframes; between keyframes each joint follows a
smooth cosine ease, so velocities are zero at keyframes and the motion never jumps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import NaoModel
from .postures import posture


@dataclass
class KeyframeMotion:
    """Full-body keyframes: times (s, increasing) and configurations (model.joint_names order)."""

    times_s: np.ndarray
    configurations: np.ndarray  # (n_keyframes, n_joints)
    loop: bool = True

    @property
    def duration_s(self) -> float:
        return float(self.times_s[-1])

    def sample(self, t_s: float) -> tuple[np.ndarray, np.ndarray]:
        """(positions rad, velocities rad/s) at time t_s."""
        if self.loop:
            t_s = t_s % self.duration_s
        t_s = float(np.clip(t_s, self.times_s[0], self.times_s[-1]))
        k = int(np.clip(np.searchsorted(self.times_s, t_s, side="right") - 1, 0, len(self.times_s) - 2))
        t0, t1 = self.times_s[k], self.times_s[k + 1]
        u = (t_s - t0) / (t1 - t0)
        ease = 0.5 - 0.5 * np.cos(np.pi * u)
        ease_rate = 0.5 * np.pi * np.sin(np.pi * u) / (t1 - t0)
        delta = self.configurations[k + 1] - self.configurations[k]
        return self.configurations[k] + ease * delta, ease_rate * delta


def _with(model: NaoModel, base: np.ndarray, **angles: float) -> np.ndarray:
    q = base.copy()
    for joint, value in angles.items():
        q[model.joint_index(joint)] = value
    return model.clip_to_limits(q)


def wave_motion(model: NaoModel) -> KeyframeMotion:
    """NAO's greeting: from StandInit, raise the right arm, wave twice, look left and right."""
    stand = posture(model, "StandInit")
    up = _with(model, stand, RShoulderPitch=-1.0, RShoulderRoll=-0.35, RElbowYaw=1.4, RElbowRoll=0.6, RHand=1.0,
               HeadPitch=-0.2)
    wave_out = _with(model, up, RElbowRoll=1.2, HeadYaw=0.5)
    wave_in = _with(model, up, RElbowRoll=0.3, HeadYaw=-0.5)
    keys = [(0.0, stand), (1.2, up), (1.8, wave_out), (2.4, wave_in), (3.0, wave_out), (3.6, wave_in),
            (4.4, up), (5.6, stand), (6.0, stand)]
    return KeyframeMotion(np.array([t for t, _ in keys]), np.stack([q for _, q in keys]))


def squat_motion(model: NaoModel) -> KeyframeMotion:
    """Stand, crouch half-way with the arms forward, and stand again (exercises the legs)."""
    stand = posture(model, "StandInit")
    low = _with(model, stand, **{f"{s}{j}": v for s in "LR" for j, v in
                                 (("HipPitch", -0.8), ("KneePitch", 1.6), ("AnklePitch", -0.8))},
                LShoulderPitch=0.2, RShoulderPitch=0.2)
    keys = [(0.0, stand), (2.0, low), (3.0, low), (5.0, stand), (5.5, stand)]
    return KeyframeMotion(np.array([t for t, _ in keys]), np.stack([q for _, q in keys]))


MOTIONS = {"wave": wave_motion, "squat": squat_motion}


def motion(model: NaoModel, name: str) -> KeyframeMotion:
    if name not in MOTIONS:
        raise KeyError(f"unknown motion {name!r}: expected one of {sorted(MOTIONS)}")
    return MOTIONS[name](model)
