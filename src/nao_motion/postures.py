"""Named postures (NAOqi ALRobotPosture names), as joint-angle tables in radians.

Joints not listed in a posture are 0. One table serves the player, the simulator's
initial state, moveInit and the tests.
"""

from __future__ import annotations

import numpy as np

from .model import NaoModel

_ARMS_DOWN = {
    "LShoulderPitch": 1.40, "LShoulderRoll": 0.30, "LElbowYaw": -1.39, "LElbowRoll": -1.00,
    "LWristYaw": 0.0, "LHand": 0.25,
    "RShoulderPitch": 1.40, "RShoulderRoll": -0.30, "RElbowYaw": 1.39, "RElbowRoll": 1.00,
    "RWristYaw": 0.0, "RHand": 0.25,
}


def _legs(hip_pitch: float, knee_pitch: float, ankle_pitch: float) -> dict[str, float]:
    return {f"{side}{joint}": value for side in "LR" for joint, value in
            (("HipPitch", hip_pitch), ("KneePitch", knee_pitch), ("AnklePitch", ankle_pitch))}


POSTURES: dict[str, dict[str, float]] = {
    "StandZero": {},
    # NAOqi's StandInit bends the knees so the walk can start from it; the pitches sum to 0 here
    # so the torso is upright when the soles are flat.
    "StandInit": {**_ARMS_DOWN, **_legs(-0.35, 0.70, -0.35)},
    "Stand": {**_ARMS_DOWN, **_legs(-0.17, 0.35, -0.18)},
    "Crouch": {**_ARMS_DOWN, **_legs(-0.87, 2.11, -1.18)},
}


def posture(model: NaoModel, name: str) -> np.ndarray:
    """Full configuration (model.joint_names order) of a named posture."""
    if name not in POSTURES:
        raise KeyError(f"unknown posture {name!r}: expected one of {sorted(POSTURES)}")
    q = model.zero_configuration()
    for joint, value in POSTURES[name].items():
        q[model.joint_index(joint)] = value
    return model.clip_to_limits(q)
