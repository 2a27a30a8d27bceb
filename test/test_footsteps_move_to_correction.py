"""FootstepPlannerCycle's closing steps: a moveTo that the sensed odometry says ended off its goal
walks the rest, within the tolerance and the correction budget; other commands, killMove, a
clock that goes back or no odometry at all end it."""

import math

import pytest

from nao_motion.footsteps import (FootstepPlanner, FootstepPlannerCycle, InvalidCommandError, MoveToCorrectionConfig,
                                  Pose2D, WalkMode)
from nao_motion.footsteps.planner_cycle import CLOSING_WAIT_S

DT_S = 0.01


def walk_to_the_end(cycle: FootstepPlannerCycle) -> None:
    """Advance the clock past the plan's last step."""
    cycle.advance_to(cycle.planner.steps()[-1].end_s + DT_S)
    assert not cycle.planner.move_is_active()


def sensed_short_by(cycle: FootstepPlannerCycle, shortfall: Pose2D) -> Pose2D:
    """The odometry's base_footprint of a robot that ended `shortfall` short of the plan's robot
    (in the robot's frame: x short means behind it)."""
    return (cycle.plan_frame.to_odom(cycle.planner.get_robot_position()) * shortfall.inverse()).normalized()


def test_a_move_to_that_ended_short_walks_the_rest():
    cycle = FootstepPlannerCycle(FootstepPlanner(now_s=0.0))
    cycle.move_to(0.4, 0.0, 0.0)
    goal_plan = cycle.planner.planned_feet().robot_pose()
    walk_to_the_end(cycle)
    # mid-step samples are not compared: a sample stamped before the last step ended does nothing
    assert not cycle.observe(sensed_short_by(cycle, Pose2D(0.06, 0.01, 0.0)), cycle.planner.now_s - 0.05)
    assert cycle.closing and not cycle.planner.steps()
    # on the planted feet the odometry says 6 cm short, 1 cm right: the rest is planned
    assert cycle.observe(sensed_short_by(cycle, Pose2D(0.06, 0.01, 0.0)), cycle.planner.now_s)
    assert cycle.correction.corrections == 1
    rest = cycle.correction.last_remaining
    assert (rest.x, rest.y, rest.theta) == pytest.approx((0.06, 0.01, 0.0), abs=1e-9)
    assert cycle.planner.mode is WalkMode.MOVE_TO and cycle.planner.steps()
    # the closing moveTo ends where the goal is, 6 cm beyond the plan's first end
    end = cycle.planner.planned_feet().robot_pose().relative_to(goal_plan)
    assert (end.x, end.y) == pytest.approx((0.06, 0.01), abs=1e-6)
    # this time the odometry agrees with the plan within the tolerance: done
    walk_to_the_end(cycle)
    assert not cycle.observe(sensed_short_by(cycle, Pose2D(0.01, 0.0, 0.02)), cycle.planner.now_s)
    assert not cycle.closing and cycle.correction.corrections == 1 and not cycle.planner.steps()


def test_the_corrections_are_bounded_and_zero_means_the_plan_alone():
    for budget in (0, 2):
        cycle = FootstepPlannerCycle(FootstepPlanner(now_s=0.0), MoveToCorrectionConfig(max_corrections=budget))
        cycle.move_to(0.0, 0.0, 0.8)
        planned = 0
        for _ in range(budget + 2):
            walk_to_the_end(cycle)
            planned += cycle.observe(sensed_short_by(cycle, Pose2D(0.0, 0.0, 0.3)), cycle.planner.now_s)
            if not cycle.closing:
                break
        assert planned == budget and not cycle.closing and not cycle.planner.steps()


def test_a_heading_off_by_more_than_the_tolerance_is_turned():
    cycle = FootstepPlannerCycle(FootstepPlanner(now_s=0.0), MoveToCorrectionConfig(tolerance_rad=0.05))
    cycle.move_to(0.0, 0.0, 0.8)
    walk_to_the_end(cycle)
    assert cycle.observe(sensed_short_by(cycle, Pose2D(0.0, 0.0, 0.06)), cycle.planner.now_s)
    assert cycle.correction.last_remaining.theta == pytest.approx(0.06)


def test_other_commands_kill_move_and_a_clock_going_back_end_the_closing():
    enders = {
        "move": lambda c: c.other_command(lambda: c.planner.move(0.05, 0.0, 0.0)),
        "stop_move": lambda c: c.other_command(c.planner.stop_move),
        "kill_move": lambda c: c.kill_move(),
        "clock back": lambda c: c.advance_to(c.planner.now_s - 1.0),
    }
    for name, end in enders.items():
        cycle = FootstepPlannerCycle(FootstepPlanner(now_s=10.0))
        cycle.move_to(0.2, 0.0, 0.0)
        end(cycle)
        assert not cycle.closing, name
    # a refused command changes nothing: the moveTo is still closed on
    cycle = FootstepPlannerCycle(FootstepPlanner(now_s=0.0))
    cycle.move_to(0.2, 0.0, 0.0)
    with pytest.raises(InvalidCommandError):
        cycle.other_command(lambda: cycle.planner.move(math.nan, 0.0, 0.0))
    assert cycle.closing
    with pytest.raises(InvalidCommandError):
        cycle.move_to(math.inf, 0.0, 0.0)
    assert cycle.closing and cycle.correction.corrections == 0


def test_without_odometry_the_move_to_ends_as_planned():
    cycle = FootstepPlannerCycle(FootstepPlanner(now_s=0.0))
    cycle.move_to(0.2, 0.0, 0.0)
    walk_to_the_end(cycle)
    end_s = cycle.planner.now_s
    while cycle.planner.now_s < end_s + CLOSING_WAIT_S - DT_S:
        cycle.advance_to(cycle.planner.now_s + DT_S)
        assert cycle.closing
    cycle.advance_to(end_s + CLOSING_WAIT_S + 2 * DT_S)
    assert not cycle.closing and cycle.correction.corrections == 0


def test_bad_tolerances_are_refused_with_the_reason():
    assert MoveToCorrectionConfig().validate() is None
    assert "move_to_tolerance_m" in MoveToCorrectionConfig(tolerance_m=0.0).validate()
    assert "move_to_tolerance_rad" in MoveToCorrectionConfig(tolerance_rad=math.nan).validate()
    assert "move_to_max_corrections" in MoveToCorrectionConfig(max_corrections=-1).validate()
