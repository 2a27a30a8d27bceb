"""The split of a step into double support and swing: by how far its foot swings."""

from __future__ import annotations

import math

import pytest

from nao_motion.footsteps import Pose2D
from nao_motion.footsteps.footstep import Footstep, Leg
from nao_motion.walk.step_phase import StepPhases, landed_early, swing_size

PHASES = StepPhases()
SUPPORT = Pose2D(0.0, -0.05, 0.0)  # the right foot, the left one swings


def left_step(origin: Pose2D, target: Pose2D, start_s: float = 1.0, end_s: float = 1.42) -> Footstep:
    move = target.relative_to(SUPPORT)
    return Footstep(Leg.LEFT, move, move, origin, target, SUPPORT, start_s, end_s, 0.02, 0.0, 0.0)


@pytest.mark.parametrize("origin,target,size", [
    (Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, 0.05, 0.0), 0.0),  # in place
    (Pose2D(-0.04, 0.05, 0.0), Pose2D(0.04, 0.05, 0.0), 0.5),  # the default gait's full step forward
    (Pose2D(-0.08, 0.05, 0.0), Pose2D(0.08, 0.05, 0.0), 1.0),  # MaxStepX 0.08 behind to ahead
    (Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, 0.11, 0.0), 1.0),  # out to MaxStepY 0.16
    (Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, 0.08, 0.0), 0.5),
    (Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, 0.05, 0.524), 1.0),  # turned by MaxStepTheta
    (Pose2D(0.0, 0.05, -0.2), Pose2D(0.01, 0.06, 0.062), 0.5),  # the largest of its motions counts
    (Pose2D(-0.1, 0.05, 0.0), Pose2D(0.1, 0.05, 0.0), 1.0),  # beyond the largest: as the largest
    (Pose2D(0.0, 0.05, 3.1), Pose2D(0.0, 0.05, 3.162 - 2 * math.pi), 0.062 / 0.524),  # across a heading of +-pi
])
def test_the_swing_size_is_the_swinging_foots_largest_motion_against_the_largest_steps(origin, target, size):
    assert swing_size(left_step(origin, target)) == pytest.approx(size, abs=1e-3)


def test_the_largest_step_keeps_its_swing_and_a_step_in_place_gets_the_longer_double_support():
    largest = left_step(Pose2D(-0.08, 0.05, 0.0), Pose2D(0.08, 0.05, 0.0))
    in_place = left_step(Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, 0.05, 0.0))
    default = left_step(Pose2D(-0.04, 0.05, 0.0), Pose2D(0.04, 0.05, 0.0))
    assert PHASES.double_support_share(largest) == pytest.approx(0.15)
    assert PHASES.double_support_share(in_place) == pytest.approx(0.25)
    assert PHASES.double_support_share(default) == pytest.approx(0.20)
    # 0.42 s steps: lift-off after 63, 105 and 84 ms; the swing then runs to touch-down
    for step, lift_off_s in ((largest, 1.063), (in_place, 1.105), (default, 1.084)):
        assert PHASES.swing_start_s(step) == pytest.approx(lift_off_s)
        assert PHASES.in_double_support(step, lift_off_s - 1e-6)
        assert not PHASES.in_double_support(step, lift_off_s + 1e-6)
        assert PHASES.swing_phase(step, lift_off_s) == 0.0
        assert PHASES.swing_phase(step, 0.5 * (lift_off_s + step.end_s)) == pytest.approx(0.5)
        assert PHASES.swing_phase(step, step.end_s) == 1.0


def test_a_uniform_split_is_two_equal_fractions_and_bad_fractions_are_refused():
    uniform = StepPhases(0.3, 0.3)
    for origin, target in ((Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, 0.05, 0.0)),
                           (Pose2D(-0.08, 0.05, 0.0), Pose2D(0.08, 0.05, 0.0))):
        assert uniform.double_support_share(left_step(origin, target)) == pytest.approx(0.3)
    for bad in (0.0, 0.7, math.nan):
        with pytest.raises(ValueError):
            StepPhases(bad)
        with pytest.raises(ValueError):
            StepPhases(0.15, bad)


def test_a_swinging_foot_carrying_the_robot_has_landed_only_after_mid_swing():
    # Before mid-swing a loaded swing foot is one still dragging at its lift-off.
    assert not landed_early(0.3, swing_foot_carries=True)
    assert landed_early(0.7, swing_foot_carries=True)
    assert not landed_early(0.7, swing_foot_carries=False)
