"""setFootSteps / setFootStepsWithSpeed: NAOqi poses relative to the other foot,
clipping, timing, clearExisting, and refusal of bad input with the plan kept."""

import math

import pytest

from nao_motion.footsteps import FootstepPlanner, InvalidCommandError, Leg, Pose2D, WalkMode

# The seed's cha-cha (basic steps for men), one setFootStepsWithSpeed per step.
CHA_CHA = [
    ("LLeg", (0.06, 0.1, 0.0)),  # 1) forward with the left foot
    ("LLeg", (0.00, 0.16, 0.0)),  # 2) sidestep left with the left foot
    ("RLeg", (0.00, -0.1, 0.0)),  # 3) right foot to the left foot
    ("LLeg", (0.00, 0.16, 0.0)),  # 4) sidestep left with the left foot
    ("RLeg", (-0.04, -0.1, 0.0)),  # 5) backward & left with the right foot
    ("RLeg", (0.00, -0.16, 0.0)),  # 6) forward & right with the right foot
    ("LLeg", (0.00, 0.1, 0.0)),  # 7) left foot to the right foot
    ("RLeg", (0.00, -0.16, 0.0)),  # 8) sidestep right with the right foot
]
STEP_FREQUENCY = 0.8
CHA_CHA_PERIOD = 0.6 + 0.8 * (0.42 - 0.6)  # 0.456 s


def expected_cha_cha_move(leg, pose):
    """What NAOqi's clipping makes of each request, worked out by hand.

    Every request is inside the extremal gait box (x <= 0.08 > MaxStepX's
    default: the extremal values apply) and collision-free at theta = 0; only
    step 5 leaves the ellipse: shifted y = -0.1 + 0.088 = -0.012, backwards so
    a = |MinStepX| = 0.04, b = 0.16 - 0.088 = 0.072, and (0.04/0.04)^2 +
    (0.012/0.072)^2 > 1, so it is pulled radially onto the ellipse.
    """
    x, y, t = pose
    if (leg, pose) == ("RLeg", (-0.04, -0.1, 0.0)):
        th = math.atan2(-0.012, -0.04)
        r = 0.04 * 0.072 / math.hypot(0.072 * math.cos(th), 0.04 * math.sin(th))
        return (r * math.cos(th), r * math.sin(th) - 0.088, 0.0)
    return (x, y, t)


def test_cha_cha_with_speed_produces_the_clipped_steps():
    planner = FootstepPlanner()
    for _cycle in range(2):  # nbStepDance = 2
        for leg, pose in CHA_CHA:
            planner.set_foot_steps_with_speed([leg], [list(pose)], [STEP_FREQUENCY], False)
    steps = planner.steps()
    assert len(steps) == 16
    left, right = Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, -0.05, 0.0)
    t = planner.preview_s  # from standing: the first step starts one preview after the call
    for i, step in enumerate(steps):
        leg, pose = CHA_CHA[i % 8]
        assert step.leg.value == leg
        assert step.requested == Pose2D(*pose)
        assert (step.move.x, step.move.y, step.move.theta) == pytest.approx(
            expected_cha_cha_move(leg, pose), abs=1e-12
        )
        assert step.was_clipped is (i % 8 == 4)
        # relative to the other foot's last position, as NAOqi defines it
        other = right if leg == "LLeg" else left
        assert step.support == other
        target = other * step.move
        assert (step.target.x, step.target.y, step.target.theta) == pytest.approx(
            (target.x, target.y, target.theta), abs=1e-12
        )
        if leg == "LLeg":
            left = step.target
        else:
            right = step.target
        # timing from the speed, steps back to back
        assert step.start_s == pytest.approx(t) and step.duration_s == pytest.approx(CHA_CHA_PERIOD)
        t = step.end_s
    assert planner.mode is WalkMode.FOOTSTEPS


def test_set_foot_steps_times_are_cumulative_end_times_clamped_to_the_periods():
    planner = FootstepPlanner()
    planner.set_foot_steps(
        ["LLeg", "RLeg", "LLeg", "RLeg"],
        [[0.02, 0.1, 0.0], [0.02, -0.1, 0.0], [0.02, 0.1, 0.0], [0.0, -0.1, 0.0]],
        [0.5, 1.0, 1.3, 2.5],
        True,
    )
    durations = [s.duration_s for s in planner.steps()]
    # 0.5 and 0.5 are valid periods; 0.3 is raised to MinStepPeriod; 1.2 lowered to MaxStepPeriod
    assert durations == pytest.approx([0.5, 0.5, 0.42, 0.6])
    assert planner.steps()[0].start_s == planner.preview_s  # from standing: one preview ahead


def test_poses_are_relative_to_the_other_foot_with_rotation():
    planner = FootstepPlanner()
    planner.set_foot_steps(["LLeg", "RLeg"], [[0.04, 0.1, 0.3], [0.0, -0.1, 0.0]], [0.6, 1.2], True)
    left_step, right_step = planner.steps()
    assert (left_step.target.x, left_step.target.y, left_step.target.theta) == pytest.approx(
        (0.04, 0.05, 0.3)
    )
    expected = left_step.target * Pose2D(0.0, -0.1, 0.0)
    assert (right_step.target.x, right_step.target.y, right_step.target.theta) == pytest.approx(
        (expected.x, expected.y, expected.theta)
    )
    assert right_step.target.theta == pytest.approx(0.3)


def test_request_beyond_limits_is_clipped_not_refused():
    planner = FootstepPlanner()
    planner.set_foot_steps(["LLeg"], [[0.5, 0.5, 1.0]], [0.6], True)
    (step,) = planner.steps()
    assert step.was_clipped
    assert step.move.x <= 0.08 and step.move.y <= 0.16 and step.move.theta <= 0.524


def test_clear_existing_replaces_only_the_changeable_steps():
    planner = FootstepPlanner()
    planner.move_to(1.0, 0.0, 0.0)
    planner.advance_to(planner.steps()[0].start_s)
    kept = planner.unchangeable_steps()
    assert len(kept) == 2
    planner.set_foot_steps(["LLeg", "RLeg"], [[0.0, 0.1, 0.0], [0.0, -0.1, 0.0]], [0.5, 1.0], True)
    steps = planner.steps()
    assert steps[:2] == kept and len(steps) == 4
    assert steps[2].start_s == pytest.approx(kept[-1].end_s)
    # appending (clearExisting False) goes after everything
    n = len(planner.steps())
    planner.set_foot_steps(["LLeg"], [[0.02, 0.1, 0.0]], [0.6], False)
    assert len(planner.steps()) == n + 1
    assert planner.steps()[-1].start_s == pytest.approx(steps[-1].end_s)


def test_empty_lists_with_clear_existing_drop_changeable_steps():
    planner = FootstepPlanner()
    planner.move_to(1.0, 0.0, 0.0)
    planner.advance_to(planner.steps()[0].start_s)
    kept = planner.unchangeable_steps()
    assert kept
    planner.set_foot_steps([], [], [], True)
    assert planner.steps() == kept


@pytest.mark.parametrize(
    "legs, poses, timing, clear, reason",
    [
        (["LLeg", "RLeg"], [[0.0, 0.1, 0.0]], [0.6], True, "same length"),
        (["LLeg"], [[0.0, 0.1, 0.0]], [0.6, 1.2], True, "same length"),
        (["LFoot"], [[0.0, 0.1, 0.0]], [0.6], True, "unknown leg name 'LFoot'"),
        ("LLeg", [[0.0, 0.1, 0.0]], [0.6], True, "legs must be a list"),
        (["LLeg"], [[0.0, float("nan"), 0.0]], [0.6], True, "not finite"),
        (["LLeg"], [[float("inf"), 0.1, 0.0]], [0.6], True, "not finite"),
        (["LLeg"], [[0.0, 0.1]], [0.6], True, "triple"),
        (["LLeg"], [[0.0, 0.1, "a"]], [0.6], True, "not a number"),
        (["LLeg"], [[0.0, 0.1, 0.0]], [float("nan")], True, "not finite"),
        (["LLeg"], [[0.0, 0.1, 0.0]], [0.0], True, "must be positive"),
        (["LLeg", "RLeg"], [[0.0, 0.1, 0.0], [0.0, -0.1, 0.0]], [0.6, 0.6], True, "strictly increasing"),
        (["LLeg", "RLeg"], [[0.0, 0.1, 0.0], [0.0, -0.1, 0.0]], [0.6, 0.5], True, "strictly increasing"),
        (["LLeg"], [[0.0, 0.1, 0.0]], [0.6], "yes", "clear_existing must be a bool"),
    ],
)
def test_bad_set_foot_steps_is_refused_and_plan_kept(legs, poses, timing, clear, reason):
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.0)
    before, mode = planner.steps(), planner.mode
    with pytest.raises(InvalidCommandError, match=reason) as e:
        planner.set_foot_steps(legs, poses, timing, clear)
    assert isinstance(e.value, ValueError)
    assert planner.steps() == before and planner.mode is mode


@pytest.mark.parametrize(
    "speeds, reason",
    [([1.5], "outside"), ([-0.1], "outside"), ([float("nan")], "not finite"), ([True], "not a number")],
)
def test_bad_speeds_are_refused(speeds, reason):
    planner = FootstepPlanner()
    planner.move_to(0.3, 0.0, 0.0)
    before = planner.steps()
    with pytest.raises(InvalidCommandError, match=reason):
        planner.set_foot_steps_with_speed(["LLeg"], [[0.0, 0.1, 0.0]], speeds, False)
    assert planner.steps() == before


def test_steps_execute_in_time_and_update_the_feet():
    planner = FootstepPlanner()
    planner.set_foot_steps(["LLeg", "RLeg"], [[0.04, 0.1, 0.0], [0.04, -0.1, 0.0]], [0.5, 1.0], True)
    assert planner.advance(planner.preview_s + 0.49) == []  # the first starts one preview ahead
    done = planner.advance(0.02)
    assert [s.leg for s in done] == [Leg.LEFT]
    assert (planner.feet.left.x, planner.feet.left.y) == pytest.approx((0.04, 0.05))
    assert planner.feet.right == Pose2D(0.0, -0.05, 0.0)
    done = planner.advance(0.5)
    assert [s.leg for s in done] == [Leg.RIGHT]
    assert planner.feet.right.x == pytest.approx(0.08)
    assert planner.mode is WalkMode.IDLE and planner.steps() == ()
