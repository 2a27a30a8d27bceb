"""The LIPM capturability bound (walk.capturability) against closed-form values."""

import math

import pytest

from nao_motion.model import NaoModel
from nao_motion.walk.capturability import (CaptureLimits, StepInProgress, catchable_dcm_m, dcm_shortfall_m,
                                           two_feet_reach_m)

OMEGA = math.sqrt(9.81 / 0.26)


def test_one_phase_catches_what_is_within_reach():
    assert catchable_dcm_m(OMEGA, [(0.3, 0.05)]) == pytest.approx(0.05)


def test_endless_steps_reach_the_infinite_step_capture_point():
    # A step of L every T, the CoP at most d past each foot: the DCM a foot can keep is
    # d + L / (exp(omega T) - 1) past it (the fixed point of one step; Koolen et al. 2012).
    d, step_m, period_s = 0.058, 0.08, 0.42
    phases = [(period_s, d + k * step_m) for k in range(60)]
    expected = d + step_m / (math.exp(OMEGA * period_s) - 1.0)
    assert catchable_dcm_m(OMEGA, phases) == pytest.approx(expected, abs=1e-9)
    # Fewer steps catch less; none, only the first foot's reach.
    assert catchable_dcm_m(OMEGA, phases[:2]) < expected
    assert catchable_dcm_m(OMEGA, phases[:1]) == pytest.approx(d)


def test_two_feet_split_the_weight_to_reach_farthest():
    toe, torque, weight = 0.0994, 3.023, 52.0
    # Side by side, half the weight each: the ankles hold the CoP at the toes (26 N x 9.94 cm < 3.02 N m).
    assert two_feet_reach_m(0.0, toe, 0.0, toe, torque, weight) == pytest.approx(toe)
    # One foot 4 cm ahead: as much weight on it as its ankle holds at the toe, the rest at the
    # other toe; farther than all of it on the front foot (its ankle: 4 + 5.8 cm).
    front_n = torque / toe
    expected = (front_n * (0.04 + toe) + (weight - front_n) * toe) / weight
    assert two_feet_reach_m(0.04, toe, 0.0, toe, torque, weight) == pytest.approx(expected)
    assert expected > 0.04 + torque / weight
    # The order of the feet does not matter.
    assert two_feet_reach_m(0.0, toe, 0.04, toe, torque, weight) == pytest.approx(expected)


LIMITS = CaptureLimits.for_model(NaoModel("V5"))
LIFTED = StepInProgress(left_moving=True, start_s=0.0, lift_s=0.08, end_s=0.42)


def test_limits_of_the_nao_v5():
    # AnklePitch's 3.02 N m hold the CoP 5.8 cm ahead of the ankle of a 5.3 kg robot, short of its toe.
    assert LIMITS.ankle_pitch_torque_nm / LIMITS.weight_n == pytest.approx(0.058, abs=5e-4)
    assert LIMITS.sole_x_m[1] == pytest.approx(0.0994)
    assert (LIMITS.max_step_x_m, LIMITS.max_step_y_m, LIMITS.min_step_period_s) == (0.08, 0.16, 0.42)


def test_a_dcm_within_the_support_foots_reach_is_caught():
    reach = LIMITS.ankle_pitch_torque_nm / LIMITS.weight_n
    kwargs = dict(left_m=0.0, right_m=0.0, step=LIFTED, now_s=0.1, forward=True)
    assert dcm_shortfall_m(LIMITS, OMEGA, reach, **kwargs) <= 0.0
    assert dcm_shortfall_m(LIMITS, OMEGA, 0.5, **kwargs) > 0.0
    # The bound is the DCM's distance past it, in metres.
    assert (dcm_shortfall_m(LIMITS, OMEGA, 0.5, **kwargs) - dcm_shortfall_m(LIMITS, OMEGA, 0.4, **kwargs)
            == pytest.approx(0.1))


def test_the_step_in_progress_lands_no_sooner_than_min_step_period():
    slow = StepInProgress(left_moving=True, start_s=0.0, lift_s=0.1, end_s=0.6)
    args = (LIMITS, OMEGA, 0.12, 0.0, 0.0)
    # Planned at MaxStepPeriod, it may end at MinStepPeriod: the same bound as a step planned so.
    assert (dcm_shortfall_m(*args, slow, 0.2, True)
            == pytest.approx(dcm_shortfall_m(*args, StepInProgress(True, 0.0, 0.1, 0.42), 0.2, True)))
    # Later in the swing there is less time to run away before the touchdown.
    assert dcm_shortfall_m(*args, LIFTED, 0.3, True) < dcm_shortfall_m(*args, LIFTED, 0.1, True)


def test_sideways_the_swinging_foot_catches_a_push_toward_it_not_one_toward_the_support():
    # The left foot swings, the right supports at y = -0.05: a push to the left has the left foot
    # step out (MaxStepY); one to the right has only the right sole's edge and the right foot's next
    # step, the left foot being unable to cross.
    # The DCM 6 cm from the support ankle either way.
    args = dict(left_m=0.05, right_m=-0.05, step=LIFTED, now_s=0.1, forward=False)
    toward_swing = dcm_shortfall_m(LIMITS, OMEGA, 0.01, toward_left=True, **args)
    toward_support = dcm_shortfall_m(LIMITS, OMEGA, -0.11, toward_left=False, **args)
    assert toward_swing < 0.0 < toward_support
    # Symmetric feet and DCM, mirrored: a right foot swinging gives the same.
    mirrored = dict(args, left_m=0.05, right_m=-0.05, step=StepInProgress(False, 0.0, 0.08, 0.42))
    assert dcm_shortfall_m(LIMITS, OMEGA, -0.01, toward_left=False, **mirrored) == pytest.approx(toward_swing)
