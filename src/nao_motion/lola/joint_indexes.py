"""LoLA's joint order (nao_lola's ``JointIndexes``) and its mapping to the model's joints.

LoLA drives 25 motors: one HipYawPitch motor (index 7, LHipYawPitch), so the model's 26 joints
map onto 25 indexes; RHipYawPitch follows LHipYawPitch (``NaoModel.mimic_hip_yaw_pitch``).
"""

from __future__ import annotations

import numpy as np

from ..model import NaoModel, motor_of

# Index i of LoLA (nao_lola_command_msgs/JointIndexes, nao_lola_sensor_msgs/JointIndexes) is the
# model joint LOLA_JOINT_NAMES[i]; the constants' names are these upper-cased.
LOLA_JOINT_NAMES: tuple[str, ...] = (
    "HeadYaw", "HeadPitch",
    "LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll", "LWristYaw",
    "LHipYawPitch", "LHipRoll", "LHipPitch", "LKneePitch", "LAnklePitch", "LAnkleRoll",
    "RHipRoll", "RHipPitch", "RKneePitch", "RAnklePitch", "RAnkleRoll",
    "RShoulderPitch", "RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw",
    "LHand", "RHand",
)
LOLA_JOINT_COUNT = len(LOLA_JOINT_NAMES)  # JointIndexes.NUMJOINTS


class LolaJointMap:
    """Index arrays between the model's joint order (26) and LoLA's (25)."""

    def __init__(self, model: NaoModel):
        # model index of each LoLA index: lola_values = model_values[self.model_of_lola]
        self.model_of_lola = np.array([model.joint_index(n) for n in LOLA_JOINT_NAMES], dtype=np.intp)
        # LoLA index of each model joint (RHipYawPitch: the shared motor, LoLA index 7):
        # model_values = lola_values[self.lola_of_model]
        self.lola_of_model = np.array([LOLA_JOINT_NAMES.index(motor_of(n)) for n in model.joint_names],
                                      dtype=np.intp)
        self.indexes = bytes(range(LOLA_JOINT_COUNT))  # every LoLA index, in order

    def to_lola(self, model_values: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Model-order values (26) as LoLA-order values (25), written into `out`."""
        np.take(model_values, self.model_of_lola, out=out)
        return out

    def to_model(self, lola_values: np.ndarray, out: np.ndarray) -> np.ndarray:
        """LoLA-order values (25) as model-order values (26, RHipYawPitch = LHipYawPitch)."""
        np.take(lola_values, self.lola_of_model, out=out)
        return out
