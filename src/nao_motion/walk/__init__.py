"""Walk core (pure Python on numpy/scipy; no rclpy).

NAOqi's walk: a linear inverted pendulum (cart-table) under ZMP preview control (Kajita et al.,
0.8 s preview), fed by the footstep planner's steps (``nao_motion.footsteps``). The whole walk
cycle is ``WalkController.cycle(inputs)`` (``controller``: state machine, protections,
``odom -> wb_world`` anchoring, start from the held feet, heading correction
(``HeadingCorrection``), balance recovery by stepping (``StepRecovery``),
``WalkPatternGenerator``, arm swing ownership, odometry); it hands the
whole-body balancer ``balancer_reference(output)``, and the whole-body cycle
(``nao_motion.wholebody.cycle.WholeBodyCycle``) adds ``WalkStabilizer``'s ankle damping from
the IMU gyro to the balancer's command before it is sent to the robot.
"""

from .arm_swing import ARM_SWING_JOINTS, ArmSwing, ArmSwingConfig, swing_amplitude_rad
from .balancer_reference import balancer_reference, sole_transform
from .com_feedback import ComFeedback, ComFeedbackConfig
from .controller import (WalkController, WalkControllerConfig, WalkInputs, WalkOutputs, WalkPlan, WalkState,
                         footsteps_of, walk_plan)
from .heading_correction import HeadingCorrection, HeadingCorrectionConfig, rotation_about
from .pattern_generator import WalkConfig, WalkOutput, WalkPatternGenerator, stand_com_in_feet_frame
from .preview_control import GRAVITY_MPS2, PreviewConfig, PreviewController, PreviewGains, preview_gains
from .stabilizer import StabilizerConfig, WalkStabilizer
from .step_phase import StepPhases
from .step_recovery import StepRecovery, StepRecoveryConfig
from .swing_foot import horizontal_scaling, lift_profile, rotation_scaling, swing_foot_pose
from .zmp_reference import ZmpReference, ZmpReferenceConfig

__all__ = [
    "ARM_SWING_JOINTS",
    "ArmSwing",
    "ArmSwingConfig",
    "ComFeedback",
    "ComFeedbackConfig",
    "GRAVITY_MPS2",
    "HeadingCorrection",
    "HeadingCorrectionConfig",
    "PreviewConfig",
    "PreviewController",
    "PreviewGains",
    "StabilizerConfig",
    "StepPhases",
    "StepRecovery",
    "StepRecoveryConfig",
    "WalkConfig",
    "WalkController",
    "WalkControllerConfig",
    "WalkInputs",
    "WalkOutput",
    "WalkOutputs",
    "WalkPatternGenerator",
    "WalkPlan",
    "WalkStabilizer",
    "WalkState",
    "ZmpReference",
    "ZmpReferenceConfig",
    "balancer_reference",
    "footsteps_of",
    "horizontal_scaling",
    "lift_profile",
    "preview_gains",
    "rotation_about",
    "rotation_scaling",
    "sole_transform",
    "stand_com_in_feet_frame",
    "swing_amplitude_rad",
    "swing_foot_pose",
    "walk_plan",
]
