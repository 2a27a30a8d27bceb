"""Walk pattern generator core (pure Python on numpy/scipy; no rclpy).

NAOqi's walk: a linear inverted pendulum (cart-table) under ZMP preview control (Kajita et al.,
0.8 s preview), fed by the footstep planner's steps (``nao_motion.footsteps``). Per cycle the walk
node turns the planner's steps by the measured heading error (``HeadingCorrection.update``, IMU
yaw against the balancer's torso yaw) and calls ``WalkPatternGenerator.step(t_s, steps, feet)``
with them, after advancing the planner to ``t_s`` (optionally ``feed_back_com(measured)`` first) and hands
``balancer_reference(output)`` to the whole-body balancer; the balancer's command then goes
through ``WalkStabilizer.apply(q_command, imu_angular_velocity_radps, output.support)`` (ankle
damping from the IMU gyro, in place, allocation-free) before it is sent to the robot.
"""

from .arm_swing import ARM_SWING_JOINTS, ArmSwing, ArmSwingConfig, swing_amplitude_rad
from .balancer_reference import balancer_reference, sole_transform
from .com_feedback import ComFeedback, ComFeedbackConfig
from .heading_correction import HeadingCorrection, HeadingCorrectionConfig, rotation_about
from .pattern_generator import WalkConfig, WalkOutput, WalkPatternGenerator, stand_com_in_feet_frame
from .preview_control import GRAVITY_MPS2, PreviewConfig, PreviewController, PreviewGains, preview_gains
from .stabilizer import StabilizerConfig, WalkStabilizer
from .step_phase import StepPhases
from .swing_foot import horizontal_scaling, lift_profile, swing_foot_pose
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
    "WalkConfig",
    "WalkOutput",
    "WalkPatternGenerator",
    "WalkStabilizer",
    "ZmpReference",
    "ZmpReferenceConfig",
    "balancer_reference",
    "horizontal_scaling",
    "lift_profile",
    "preview_gains",
    "rotation_about",
    "sole_transform",
    "stand_com_in_feet_frame",
    "swing_amplitude_rad",
    "swing_foot_pose",
]
