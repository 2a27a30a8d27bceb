"""Step queue semantics: preview window (unchangeable steps), getFootSteps,
getNextRobotPosition, stopMove, killMove, last command wins, advancing time."""

import math

import pytest

from nao_motion.footsteps import (
    FootstepPlanner,
    InvalidCommandError,
    Leg,
    Pose2D,
    StepQueue,
    WalkMode,
)
from nao_motion.footsteps.pose2d import mean_pose


def walking_planner():
    """Commanded from standing at 0 s; at 0.8 s (one preview later), when its first step starts."""
    planner = FootstepPlanner()
    planner.move_to(2.0, 0.0, 0.0)  # 0.42 s steps starting at 0.8, 1.22, 1.64, ...
    planner.advance_to(0.8)
    return planner


def test_a_plan_from_standing_starts_one_preview_after_the_command():
    planner = FootstepPlanner(now_s=3.0)
    planner.move_to(2.0, 0.0, 0.0)
    steps = planner.steps()
    assert steps[0].start_s == pytest.approx(3.0 + planner.preview_s)
    assert all(b.start_s == a.end_s for a, b in zip(steps, steps[1:]))  # then contiguous
    # the first step starts exactly at the horizon: nothing is committed yet
    assert planner.unchangeable_steps() == () and planner.current_step() is None
    assert planner.get_next_robot_position() == planner.get_robot_position()
    planner.advance(0.01)  # one cycle later the horizon has passed the first step's start
    assert planner.unchangeable_steps() == steps[:1] and planner.current_step() is None
    planner.advance_to(steps[0].start_s)
    assert planner.current_step() is steps[0]


def test_a_plan_held_for_the_walk_keeps_its_start_a_preview_ahead():
    planner = FootstepPlanner(now_s=3.0)
    planner.move(0.05, 0.0, 0.0)
    planned = planner.steps()
    for _ in range(100):  # one second of initialization movement
        planner.advance(0.01)
        planner.hold_start()
    steps = planner.steps()
    assert steps[0].start_s == pytest.approx(4.0 + planner.preview_s)  # still one preview ahead
    held = steps[:len(planned)]  # (the velocity walk may have planned more meanwhile)
    assert [s.end_s - s.start_s for s in held] == pytest.approx([s.end_s - s.start_s for s in planned])
    assert [s.target for s in held] == [s.target for s in planned]
    assert all(b.start_s == pytest.approx(a.end_s) for a, b in zip(steps, steps[1:]))
    assert planner.unchangeable_steps() == () and planner.get_robot_position() == Pose2D(0.0, 0.0, 0.0)
    planner.advance(0.5)  # released: the plan runs from where it was held
    planner.advance_to(steps[0].start_s + 0.1)
    assert planner.current_step() is steps[0]
    # Held again once its first step has begun on the planner's clock (the walk has not taken
    # it: the plan reached it too late): the step moves back a preview ahead.
    planner.hold_start()
    assert planner.current_step() is None
    assert planner.steps()[0].start_s == pytest.approx(planner.now_s + planner.preview_s)
    assert planner.get_robot_position() == Pose2D(0.0, 0.0, 0.0)


@pytest.mark.parametrize("preview_s, count", [(0.0, 0), (0.8, 2), (2.0, 5)])
def test_preview_window_is_a_parameter(preview_s, count):
    planner = FootstepPlanner(preview_s=preview_s)
    planner.move_to(2.0, 0.0, 0.0)
    assert planner.steps()[0].start_s == preview_s
    planner.advance_to(preview_s)  # when the first step starts
    assert len(planner.unchangeable_steps()) == count


def test_steps_starting_inside_the_preview_are_unchangeable():
    planner = walking_planner()
    unch, ch = planner.unchangeable_steps(), planner.changeable_steps()
    assert [s.start_s for s in unch] == pytest.approx([0.8, 1.22])  # start < 1.6 s
    assert ch[0].start_s == pytest.approx(1.64)
    assert unch + ch == planner.steps()
    planner.advance(0.5)  # window now ends at 2.1 s
    assert [s.start_s for s in planner.unchangeable_steps()] == pytest.approx([1.22, 1.64, 2.06])


def test_new_command_applies_after_unchangeable_steps():
    planner = walking_planner()
    kept = planner.unchangeable_steps()
    planner.move_to(0.0, 0.5, 0.0)  # a different goal: the first two steps stay
    steps = planner.steps()
    assert steps[:2] == kept
    assert steps[2].start_s == pytest.approx(kept[-1].end_s)
    assert steps[2].leg is kept[-1].leg.other  # alternation continues


def test_get_next_robot_position_is_after_the_last_unchangeable_step():
    planner = walking_planner()
    left, right = Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, -0.05, 0.0)
    for step in planner.unchangeable_steps():
        if step.leg is Leg.LEFT:
            left = step.target
        else:
            right = step.target
    nxt = planner.get_next_robot_position()
    mid = (0.5 * (left.x + right.x), 0.5 * (left.y + right.y), 0.0)
    assert (nxt.x, nxt.y, nxt.theta) == pytest.approx(mid)
    assert nxt.x == pytest.approx(0.06)  # left at 0.04, right at 0.08
    assert planner.get_robot_position() == Pose2D(0.0, 0.0, 0.0)
    idle = FootstepPlanner()
    assert idle.get_next_robot_position() == idle.get_robot_position()


def test_get_foot_steps_format():
    planner = walking_planner()
    planner.advance(0.1)
    feet, unch, ch = planner.get_foot_steps()
    assert feet == [[0.0, 0.05, 0.0], [0.0, -0.05, 0.0]]
    assert len(unch) == 3 and len(ch) == len(planner.steps()) - 3  # starts < 1.7 s
    leg, pose, remaining = unch[0]
    assert leg == "LLeg" and pose == pytest.approx([0.04, 0.05, 0.0])
    assert remaining == pytest.approx(0.42 - 0.1)
    assert ch[-1][0] in ("LLeg", "RLeg") and len(ch[-1][1]) == 3


def test_advance_pops_completed_steps_and_moves_the_robot():
    planner = walking_planner()
    assert planner.current_step() is planner.steps()[0]
    assert planner.advance(0.41) == []
    done = planner.advance(0.02)
    assert len(done) == 1 and done[0].leg is Leg.LEFT
    assert planner.feet.left == done[0].target
    assert planner.get_robot_position().x == pytest.approx(0.02)
    done = planner.advance_to(2.07)  # two more steps end at 1.64 and 2.06
    assert [s.end_s for s in done] == pytest.approx([1.64, 2.06])
    with pytest.raises(InvalidCommandError):
        planner.advance(-0.01)
    with pytest.raises(InvalidCommandError):
        planner.advance(float("nan"))
    with pytest.raises(InvalidCommandError):
        planner.advance_to(2.0)  # backwards


def test_stop_move_keeps_unchangeable_steps_then_closes_the_feet():
    planner = walking_planner()
    planner.advance(0.5)
    kept = planner.unchangeable_steps()
    planner.stop_move()
    steps = planner.steps()
    assert steps[: len(kept)] == kept
    assert len(steps) == len(kept) + 1  # one closing step
    closing = steps[-1]
    assert closing.move == Pose2D(0.0, closing.leg.side * 0.1, 0.0)
    assert planner.mode is WalkMode.STOPPING
    while planner.steps():
        planner.advance(0.01)
    assert planner.mode is WalkMode.IDLE
    rel = planner.feet.right.relative_to(planner.feet.left)
    assert (rel.x, rel.y, rel.theta) == pytest.approx((0.0, -0.1, 0.0), abs=1e-12)


def test_stop_move_without_closing_step_when_feet_already_together():
    planner = FootstepPlanner()
    planner.set_foot_steps(["LLeg", "RLeg"], [[0.04, 0.1, 0.0], [0.0, -0.1, 0.0]], [0.5, 1.0], True)
    planner.advance_to(planner.steps()[0].start_s)
    planner.stop_move()  # both are unchangeable; they end with the feet together
    assert len(planner.steps()) == 2
    idle = FootstepPlanner()
    idle.stop_move()
    assert idle.steps() == () and idle.mode is WalkMode.IDLE


def test_kill_move_empties_the_queue_at_once():
    planner = walking_planner()
    planner.advance(0.2)  # first step in the air
    planner.kill_move()
    assert planner.steps() == () and planner.mode is WalkMode.IDLE
    assert not planner.move_is_active()
    assert planner.get_foot_steps()[1:] == [[], []]
    assert planner.feet.left == Pose2D(0.0, 0.05, 0.0)  # the swing foot never landed
    planner.advance(1.0)
    assert planner.steps() == ()


def test_last_command_wins():
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.0)
    planner.move_to(0.3, 0.0, 0.0)
    assert planner.mode is WalkMode.MOVE_TO
    for _ in range(1000):
        planner.advance(0.01)
    assert planner.steps() == ()  # no velocity refill any more
    assert mean_pose(planner.feet.left, planner.feet.right).x == pytest.approx(0.3)
    planner.move_to(1.0, 0.0, 0.0)
    planner.move(0.0, 0.05, 0.0)
    assert planner.mode is WalkMode.VELOCITY
    assert all(abs(s.move.x) < 1e-9 for s in planner.changeable_steps())
    planner.set_foot_steps(["LLeg"], [[0.0, 0.12, 0.0]], [0.5], True)
    assert planner.mode is WalkMode.FOOTSTEPS
    assert planner.velocity_stride is None


def test_reset_sets_the_feet():
    planner = walking_planner()
    planner.reset(Pose2D(1.0, 0.05, 0.0), Pose2D(1.0, -0.05, 0.0), now_s=5.0)
    assert planner.steps() == () and planner.now_s == 5.0
    assert planner.get_robot_position() == Pose2D(1.0, 0.0, 0.0)
    with pytest.raises(InvalidCommandError):
        planner.reset(Pose2D(math.nan, 0, 0), Pose2D(0, 0, 0))


def test_step_queue_rejects_bad_construction():
    with pytest.raises(InvalidCommandError):
        StepQueue(Pose2D(), Pose2D(), preview_s=-1.0)
    with pytest.raises(InvalidCommandError):
        StepQueue(Pose2D(math.inf, 0, 0), Pose2D())
