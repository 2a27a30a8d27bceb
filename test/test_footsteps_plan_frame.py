"""PlanFrame: the planner's frame against the sensed odom (plan_from_odom), compared only where the
plan's feet stand still; a goal in odom brought into the plan's frame means the same move from
where the robot senses itself."""

import math

import pytest

from nao_motion.footsteps import FootstepPlanner, Pose2D
from nao_motion.footsteps.plan_frame import PlanFrame, frame_shift


def close(a: Pose2D, b: Pose2D, tol=1e-9) -> bool:
    return (math.hypot(a.x - b.x, a.y - b.y) <= tol
            and abs(math.remainder(a.theta - b.theta, 2.0 * math.pi)) <= tol)


def test_without_odometry_the_frames_coincide():
    frame = PlanFrame()
    goal = Pose2D(0.3, -0.2, 1.0)
    assert close(frame.to_plan(goal), goal) and close(frame.to_odom(goal), goal) and frame.samples == 0


def test_a_goal_in_odom_is_the_same_move_from_the_sensed_pose_as_from_the_planned_one():
    planner = FootstepPlanner(now_s=5.0)
    planned = planner.get_robot_position()
    sensed = Pose2D(-0.12, 0.07, 0.4)  # the robot fell short and turned: odom has it here
    frame = PlanFrame()
    assert frame.observe(sensed, 5.0, planner.feet, planner.steps())
    goal_odom = (sensed * Pose2D(0.3, 0.1, -0.5)).normalized()
    goal_plan = frame.to_plan(goal_odom)
    # the planner's move (goal relative to its robot position) is the move from the sensed pose
    assert close(goal_plan.relative_to(planned), Pose2D(0.3, 0.1, -0.5))
    assert close(frame.to_odom(planned), sensed)  # the plan's robot drawn where odom has it
    assert close(frame.to_odom(goal_plan), goal_odom)


def test_mid_step_or_before_a_step_ended_the_transform_is_held():
    planner = FootstepPlanner(now_s=0.0)
    frame = PlanFrame()
    assert frame.observe(Pose2D(0.0, 0.0, 0.0), 0.0, planner.feet, planner.steps())  # identity
    planner.move_to(0.3, 0.0, 0.0)
    first = planner.steps()[0]
    # before the first step starts the feet still stand: compared (the robot sensed 1 cm back)
    assert frame.observe(Pose2D(-0.01, 0.0, 0.0), first.start_s - 0.1, planner.feet, planner.steps())
    held = frame.plan_from_odom
    assert held.x == pytest.approx(0.01)
    # mid-step the sensed footprint moves with the swinging foot, the plan's does not: not compared
    planner.advance_to(first.start_s + 0.5 * first.duration_s)
    assert not frame.observe(Pose2D(0.05, 0.0, 0.0), planner.now_s, planner.feet, planner.steps())
    assert frame.plan_from_odom == held
    # the walk over: a sample stamped before the last step ended is still mid-step
    last = planner.steps()[-1]
    done = planner.advance_to(last.end_s + 0.5)
    frame.feet_planted_at(done[-1].end_s)
    assert not frame.observe(Pose2D(0.25, 0.0, 0.0), last.end_s - 0.05, planner.feet, planner.steps())
    assert frame.plan_from_odom == held
    # after it, compared: the robot senses itself 2 cm short of the plan's 0.3 m
    assert frame.observe(Pose2D(0.28, 0.0, 0.0), last.end_s + 0.1, planner.feet, planner.steps())
    assert planner.get_robot_position().x == pytest.approx(0.3)
    assert frame.plan_from_odom.x == pytest.approx(0.02) and frame.samples == 3
    # the clock went back: the times kept no longer hold samples off
    frame.feet_planted_at(100.0)
    assert not frame.observe(Pose2D(0.29, 0.0, 0.0), 1.0, planner.feet, ())
    frame.restart_clock()
    assert frame.observe(Pose2D(0.29, 0.0, 0.0), 1.0, planner.feet, ())
    assert frame.plan_from_odom.x == pytest.approx(0.01)


def test_frame_shift_is_measured_where_the_plan_is_looked_at():
    """A turn of the frame moves a pose of the plan far from its origin by as many times more."""
    identity = Pose2D(0.0, 0.0, 0.0)
    turned = Pose2D(0.0, 0.0, 0.001)
    assert frame_shift(identity, turned, Pose2D(0.0, 0.0, 0.0)) == pytest.approx((0.0, 0.001))
    assert frame_shift(identity, turned, Pose2D(3.0, 0.0, 0.0)) == pytest.approx((0.003, 0.001), rel=1e-6)
    moved = Pose2D(0.002, 0.0, 2.0 * math.pi)  # a whole turn is no turn
    assert frame_shift(identity, moved, Pose2D(1.0, 2.0, 0.5)) == pytest.approx((0.002, 0.0), abs=1e-12)
