"""Swing-foot trajectory: pure functions of the swing phase (0 at lift-off, 1 at touch-down).

Horizontal (x, y in the odometry plane): the quintic time scaling
s(phase) = 10 phase^3 - 15 phase^4 + 6 phase^5 from the origin pose to the target pose, so the
foot leaves and lands with zero velocity and zero acceleration (no impact, no slip).
Yaw: the cubic (minimum-acceleration) time scaling r(phase) = 3 phase^2 - 2 phase^3, zero turn
rate at lift-off and touch-down too, and a peak rate of 1.5 times the mean instead of the
quintic's 1.875. The turn is what costs the legs most speed: the hip yaw-pitch is one motor for
both legs, its axis 45 deg off the vertical, so the foot's yaw takes it and the hip and ankle
rolls that undo its tilt. At NAOqi's MaxStepTheta (0.524 rad, a foot turns 1.05 rad per swing
of 0.36 s) the quintic asked the hip yaw-pitch, the hip roll and the ankle roll for more than
their motors' no-load speed even with perfect servos, and the simulated NAO fell within 2.3 s
of turning; the cubic asks 0.76 of it (hip yaw-pitch) and turns at the commanded speed. The
foot's position keeps the quintic: its travel asks the knee less than the turn asks the hips,
and a faster start of the swing (the cubic's) made the default gait's stance foot slip.
Vertical: z = StepHeight * 64 phase^3 (1 - phase)^3, peak StepHeight at mid-swing, zero velocity
and acceleration at both ends, never below the ground. The foot stays parallel to the floor.

The swing phase runs over the single-support part of the step only (``step_phase``): during the
double support that opens each step the swing foot is still on the ground at its origin.
"""

from __future__ import annotations

from ..footsteps.pose2d import Pose2D, normalize_angle

__all__ = ["horizontal_scaling", "lift_profile", "rotation_scaling", "swing_foot_pose"]


def horizontal_scaling(phase: float) -> float:
    """Fraction of the horizontal move done at ``phase`` (clamped to [0, 1])."""
    p = min(1.0, max(0.0, phase))
    return p * p * p * (10.0 + p * (-15.0 + 6.0 * p))


def rotation_scaling(phase: float) -> float:
    """Fraction of the yaw turn done at ``phase`` (clamped to [0, 1]): minimum acceleration."""
    p = min(1.0, max(0.0, phase))
    return p * p * (3.0 - 2.0 * p)


def lift_profile(phase: float) -> float:
    """Height as a fraction of StepHeight at ``phase``: 0 at both ends, 1 at mid-swing."""
    p = min(1.0, max(0.0, phase))
    q = p * (1.0 - p)
    return 64.0 * q * q * q


def swing_foot_pose(
    origin: Pose2D, target: Pose2D, step_height_m: float, phase: float
) -> tuple[float, float, float, float]:
    """Sole pose (x_m, y_m, z_m, yaw_rad) of the swing foot, odometry plane, z above the floor."""
    s = horizontal_scaling(phase)
    return (
        origin.x + s * (target.x - origin.x),
        origin.y + s * (target.y - origin.y),
        step_height_m * lift_profile(phase),
        normalize_angle(origin.theta + rotation_scaling(phase) * normalize_angle(target.theta - origin.theta)),
    )
