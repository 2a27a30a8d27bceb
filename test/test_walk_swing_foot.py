"""Swing-foot trajectory: ends, zero velocity at lift-off and touch-down, the turn's peak rate, peak
height, no ground penetration; and the generator's soles over a planned walk."""

import math

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner, Pose2D
from nao_motion.model import NaoModel
from nao_motion.walk import WalkPatternGenerator, swing_foot_pose

ORIGIN = Pose2D(-0.03, 0.05, 0.1)
TARGET = Pose2D(0.05, 0.09, -0.25)
HEIGHT_M = 0.02


def pose(phase):
    return np.array(swing_foot_pose(ORIGIN, TARGET, HEIGHT_M, phase))


def test_starts_at_origin_and_ends_at_target_on_the_ground():
    assert pose(0.0) == pytest.approx([ORIGIN.x, ORIGIN.y, 0.0, ORIGIN.theta], abs=1e-12)
    assert pose(1.0) == pytest.approx([TARGET.x, TARGET.y, 0.0, TARGET.theta], abs=1e-12)


@pytest.mark.parametrize("phase", [0.0, 1.0])
def test_zero_velocity_at_lift_off_and_touch_down(phase):
    h = 1e-4
    inside = phase + h if phase == 0.0 else phase - h
    velocity = (pose(inside) - pose(phase)) / h  # per unit phase
    # A linear profile would give |dx/dphase| = 0.08 here; the quintic and the lift give O(h^2),
    # the yaw's cubic O(h) (|dyaw/dphase| = 0.35 for a linear one).
    assert np.abs(velocity[:3]).max() < 1e-5
    assert abs(velocity[3]) < 1e-3
    # and the foot does move in between
    assert np.abs((pose(0.5 + h) - pose(0.5 - h)) / (2 * h))[:2].max() > 0.1


def test_peak_height_is_the_step_height_and_never_below_ground():
    phases = np.linspace(0.0, 1.0, 2001)
    z = np.array([pose(p)[2] for p in phases])
    assert z.max() == pytest.approx(HEIGHT_M, rel=1e-9)
    assert phases[z.argmax()] == pytest.approx(0.5)
    assert z.min() >= 0.0


def test_yaw_turn_rate_peaks_at_one_and_a_half_times_its_mean():
    # The foot's turn asks the hip yaw-pitch most: a minimum-acceleration turn (peak 1.5 x the
    # mean rate), not the position's minimum-jerk one (1.875 x), which NAOqi's MaxStepTheta made
    # faster than the motors.
    phases = np.linspace(0.0, 1.0, 4001)
    yaw = np.array([pose(p)[3] for p in phases])
    rate = np.abs(np.diff(yaw) / np.diff(phases))
    assert rate.max() == pytest.approx(1.5 * abs(TARGET.theta - ORIGIN.theta), rel=1e-3)
    x = np.array([pose(p)[0] for p in phases])  # the position keeps the quintic
    assert np.abs(np.diff(x) / np.diff(phases)).max() == pytest.approx(1.875 * abs(TARGET.x - ORIGIN.x), rel=1e-3)


def test_yaw_turns_the_short_way_round():
    yaw = swing_foot_pose(Pose2D(0, 0, 3.0), Pose2D(0, 0, -3.0), HEIGHT_M, 0.5)[3]
    assert abs(abs(yaw) - math.pi) < 1e-9  # through pi, not through 0


def test_generator_soles_are_continuous_and_only_the_swing_foot_lifts():
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    planner.move(0.06, 0.0, 0.2)
    dt = gen.config.dt_s
    prev = None
    max_z = 0.0
    for k in range(300):
        t = k * dt
        planner.advance_to(t)
        out = gen.step(t, planner.steps(), planner.feet)
        soles = np.stack([out.left_sole, out.right_sole])
        if prev is not None:
            # 2 cm per 10 ms would be 2 m/s: a jump, not a swing
            assert np.abs(soles[:, :3] - prev[:, :3]).max() < 0.004
        lifted = soles[:, 2] > 0.0
        if out.support == "Legs":
            assert not lifted.any()
        else:
            swing = 0 if out.support == "RLeg" else 1
            assert not lifted[1 - swing]
        max_z = max(max_z, soles[:, 2].max())
        prev = soles
    assert max_z == pytest.approx(0.02, abs=1e-4)  # NAOqi's default StepHeight
