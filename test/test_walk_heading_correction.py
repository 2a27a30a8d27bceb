"""HeadingCorrection on its own: planned steps -> executed steps turned by the measured heading error."""

import math
from dataclasses import replace

import pytest

from nao_motion.footsteps import FootstepPlanner, Pose2D
from nao_motion.walk import HeadingCorrection, HeadingCorrectionConfig, StepPhases, rotation_about

PHASES = StepPhases()


def _walk(distance_m: float = 0.5):
    planner = FootstepPlanner()
    planner.move_to(distance_m, 0.0, 0.0)
    return planner


def _close(a: Pose2D, b: Pose2D, tol: float = 1e-9) -> bool:
    return abs(a.x - b.x) < tol and abs(a.y - b.y) < tol and abs(math.remainder(a.theta - b.theta, math.tau)) < tol


def test_rotation_about_keeps_its_pivot_and_turns():
    r = rotation_about(0.3, -0.2, 0.4)
    assert _close(r * Pose2D(0.3, -0.2, 0.1), Pose2D(0.3, -0.2, 0.5))
    x, y = r.transform_point(0.3 + 1.0, -0.2)
    assert x == pytest.approx(0.3 + math.cos(0.4)) and y == pytest.approx(-0.2 + math.sin(0.4))


def test_without_heading_error_the_plan_is_executed_as_it_is():
    planner = _walk()
    hc = HeadingCorrection(PHASES)
    hc.reset(planner.feet, 0.7, 0.2)  # the yaws only count from the reset on
    t = PHASES.swing_start_s(planner.steps()[0])
    planner.advance_to(t)
    steps, feet = hc.update(t, planner.steps(), planner.feet, 0.7, 0.2)
    assert all(a is b for a, b in zip(steps, planner.steps())) and feet is planner.feet
    assert hc.corrected_rad == 0.0


def test_a_heading_error_turns_the_steps_not_taken_about_the_support_foot():
    planner = _walk()
    hc = HeadingCorrection(PHASES)
    hc.reset(planner.feet, 0.0, 0.0)
    first = planner.steps()[0]
    before_lift_s = PHASES.swing_start_s(first) - 0.01
    planner.advance_to(before_lift_s)
    error_rad = 0.02  # the robot turned 0.02 rad more than the balancer thinks
    steps, _ = hc.update(before_lift_s, planner.steps(), planner.feet, error_rad, 0.0)
    assert steps[0] is first  # nothing turns before lift-off: the swing has not started
    lift_s = PHASES.swing_start_s(first)
    planner.advance_to(lift_s)
    steps, feet = hc.update(lift_s, planner.steps(), planner.feet, error_rad, 0.0)
    executed = steps[0]
    assert hc.corrected_rad == pytest.approx(-error_rad)
    assert _close(executed.origin, first.origin) and _close(executed.support, first.support)
    expected = rotation_about(first.support.x, first.support.y, -error_rad) * first.target
    assert _close(executed.target, expected)
    assert _close(executed.move, executed.target.relative_to(executed.support))
    # Later steps follow the turned ones; the planted feet are not moved.
    assert _close(steps[1].support, executed.target) and _close(steps[1].origin, first.support)
    assert _close(feet.left, planner.feet.left) and _close(feet.right, planner.feet.right)
    # Once landed, the foot stays where it was executed; the error is caught up: no more turn.
    planner.advance_to(first.end_s)
    steps, feet = hc.update(first.end_s, planner.steps(), planner.feet, error_rad, 0.0)
    assert _close(feet.pose(first.leg), executed.target)
    lift_s = PHASES.swing_start_s(steps[0])
    planner.advance_to(lift_s)
    hc.update(lift_s, planner.steps(), planner.feet, error_rad, 0.0)
    assert hc.corrected_rad == pytest.approx(-error_rad)


def test_odometry_goes_back_into_the_planners_frame():
    planner = _walk()
    hc = HeadingCorrection(PHASES)
    hc.reset(planner.feet, 0.0, 0.0)
    lift_s = PHASES.swing_start_s(planner.steps()[0])
    planner.advance_to(lift_s)
    steps, _ = hc.update(lift_s, planner.steps(), planner.feet, 0.03, 0.0)
    assert _close(hc.planned_from_executed(steps[-1].target), planner.steps()[-1].target)


def test_the_correction_is_bounded_per_step_and_an_absent_imu_holds_it():
    planner = _walk()
    hc = HeadingCorrection(PHASES, HeadingCorrectionConfig(max_step_correction_rad=0.01))
    hc.reset(planner.feet, 0.0, 0.0)
    lift_s = PHASES.swing_start_s(planner.steps()[0])
    planner.advance_to(lift_s)
    hc.update(lift_s, planner.steps(), planner.feet, 0.5, 0.0)
    assert hc.corrected_rad == pytest.approx(-0.01)
    second = planner.steps()[1]
    lift_s = PHASES.swing_start_s(second)
    planner.advance_to(lift_s)
    hc.update(lift_s, planner.steps(), planner.feet, None, 0.0)  # IMU stale: the last error (0.5) counts
    assert hc.corrected_rad == pytest.approx(-0.02)


def test_a_step_rebuilt_every_cycle_turns_once():
    """The walk hands over a copy of a step at each cycle (its first step of each leg, rebased on
    the actual feet): it is still the step that lifted off, and turns the plan once, not at every
    cycle of its swing."""
    planner = _walk()
    hc = HeadingCorrection(PHASES, HeadingCorrectionConfig(max_step_correction_rad=0.01))
    hc.reset(planner.feet, 0.0, 0.0)
    first = planner.steps()[0]
    lift_s = PHASES.swing_start_s(first)
    for i in range(5):
        t_s = lift_s + 0.01 * i
        planner.advance_to(t_s)
        copies = [replace(step) for step in planner.steps()]
        hc.update(t_s, copies, planner.feet, 0.5, 0.0)
    assert hc.corrected_rad == pytest.approx(-0.01)


@pytest.mark.parametrize("kwargs", [{"gain": 1.5}, {"gain": -0.1}, {"max_step_correction_rad": 0.0},
                                    {"max_step_correction_rad": math.nan}])
def test_invalid_configs_are_refused(kwargs):
    with pytest.raises(ValueError):
        HeadingCorrectionConfig(**kwargs)
