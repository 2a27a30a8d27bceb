"""move / moveToward: the seed's normalised-to-SI conversion and velocity walking."""

import pytest

from nao_motion.footsteps import (
    FootstepPlanner,
    GaitConfig,
    InvalidCommandError,
    Leg,
    Pose2D,
    WalkMode,
    clip_footstep,
    normalized_length_to_si_length,
    normalized_length_to_si_velocity,
)

G = GaitConfig()


# ----------------------------------------------------- seed conversion
@pytest.mark.parametrize(
    "args, left_support, expected",
    [
        ((1.0, 0.0, 0.0, 1.0), False, (0.04, 0.1, 0.0, 1 / 0.42)),
        ((-1.0, 0.0, 0.0, 1.0), False, (-0.04, 0.1, 0.0, 1 / 0.42)),  # MinStepX backwards
        ((0.0, 1.0, 0.0, 1.0), False, (0.0, 0.14, 0.0, 1 / 0.42)),  # opening: MaxStepY
        ((0.0, 1.0, 0.0, 1.0), True, (0.0, -0.088, 0.0, 1 / 0.42)),  # closing: MinFootSeparation
        ((0.0, 0.5, 0.0, 1.0), False, (0.0, 0.12, 0.0, 1 / 0.42)),
        ((0.0, -1.0, 0.0, 0.0), True, (0.0, -0.14, 0.0, 1 / 0.6)),
        ((0.0, -1.0, 0.0, 0.0), False, (0.0, 0.088, 0.0, 1 / 0.6)),
        # theta uses theta_n (the seed's "x * MaxStepTheta" slip would give 0 here)
        ((0.0, 0.0, 0.5, 0.5), False, (0.0, 0.1, 0.1745, 1 / 0.51)),
    ],
)
def test_normalized_length_to_si_length(args, left_support, expected):
    got = normalized_length_to_si_length(*args, G, left_support)
    assert got == pytest.approx(expected, abs=1e-12)


def test_normalized_length_uses_the_move_config():
    mc = GaitConfig(max_step_x_m=0.06, max_step_frequency=0.5)
    x, _, _, f = normalized_length_to_si_length(0.5, 0.0, 0.0, 1.0, mc, False)
    assert x == pytest.approx(0.03) and f == pytest.approx(1 / 0.51)


def test_normalized_velocity_full_cycle():
    vx, vy, wz = normalized_length_to_si_velocity(1.0, 0.0, 0.0, 1.0, G, G)
    assert (vx, vy, wz) == pytest.approx((0.08 / 0.84, 0.0, 0.0))
    vx, vy, wz = normalized_length_to_si_velocity(0.0, 1.0, 1.0, 1.0, G, G)
    assert vy == pytest.approx((0.14 - 0.088) / 0.84) and wz == pytest.approx(0.698 / 0.84)
    # per-foot configs: each foot's own (gc_l / gc_r in the seed are mc_l / mc_r)
    slow_right = GaitConfig(max_step_frequency=0.0)
    vx, _, _ = normalized_length_to_si_velocity(1.0, 0.0, 0.0, 1.0, G, slow_right)
    assert vx == pytest.approx(0.08 / (0.42 + 0.6))


# --------------------------------------------------------- moveToward
def _moves(planner, leg):
    return [s.move for s in planner.steps() if s.leg is leg]


@pytest.mark.parametrize(
    "x_n, y_n", [(1.0, 0.0), (0.0, 1.0), (0.0, 0.5), (0.5, 0.0), (0.0, -1.0), (-0.5, 0.0)]
)
def test_move_toward_steps_match_the_seed_per_foot_lengths(x_n, y_n):
    planner = FootstepPlanner()
    planner.move_toward(x_n, y_n, 0.0)
    for leg, left_support in ((Leg.LEFT, False), (Leg.RIGHT, True)):
        x, y, t, _ = normalized_length_to_si_length(x_n, y_n, 0.0, 1.0, G, left_support)
        for move in _moves(planner, leg):
            assert (move.x, move.y, move.theta) == pytest.approx((x, y, t), abs=1e-9)


def test_full_speed_backwards_narrows_the_stance_instead_of_being_clipped():
    # The seed's lengths for x_n = -1, (-0.04, +-0.1), are outside NAOqi's ellipse
    # (a = |MinStepX| backwards): clipping would shorten them. The planner keeps
    # the full stride and walks with the feet MinFootSeparation apart, where the
    # ellipse stage does not apply.
    seed_left = Pose2D(*normalized_length_to_si_length(-1.0, 0.0, 0.0, 1.0, G, False)[:3])
    assert clip_footstep(seed_left, False) != seed_left
    planner = FootstepPlanner()
    planner.move_toward(-1.0, 0.0, 0.0)
    assert planner.velocity_stride.scale == 1.0
    for s in planner.steps():
        assert s.move.x == pytest.approx(-0.04) and abs(s.move.y) == pytest.approx(0.088)
        assert s.move == s.requested


def test_move_toward_turning_reaches_max_step_theta():
    planner = FootstepPlanner()
    planner.move_toward(0.0, 0.0, 1.0)
    stride = planner.velocity_stride
    assert stride.scale == 1.0
    for s in planner.steps():
        assert s.move.theta == pytest.approx(0.349) and s.move == s.requested
    # toed-in steps need a wider stance than FootSeparation to clear the other foot
    assert stride.half_width_m > 0.05


@pytest.mark.parametrize("frequency, period", [(1.0, 0.42), (0.5, 0.51), (0.0, 0.6)])
def test_frequency_sets_the_step_duration(frequency, period):
    planner = FootstepPlanner()
    planner.move_toward(1.0, 0.0, 0.0, [["Frequency", frequency]])
    planner.advance(0.01)  # refilled: the second foot's first step too
    assert {s.leg for s in planner.steps()} == {Leg.LEFT, Leg.RIGHT}
    for s in planner.steps():
        assert s.duration_s == pytest.approx(period)
    # same stride length, slower steps
    assert planner.steps()[0].move.x == pytest.approx(0.04)


def test_move_toward_refuses_out_of_range_and_keeps_plan():
    planner = FootstepPlanner()
    planner.move_toward(0.5, 0.0, 0.0)
    before = planner.steps()
    for bad in ((1.01, 0.0, 0.0), (0.0, -1.5, 0.0), (0.0, 0.0, float("nan")), (float("inf"), 0, 0)):
        with pytest.raises(InvalidCommandError):
            planner.move_toward(*bad)
    assert planner.steps() == before and planner.mode is WalkMode.VELOCITY


# ---------------------------------------------------------------- move
def test_move_si_velocity_gives_v_times_period_per_step():
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.0)
    steps = planner.steps()
    assert all(s.move.x == pytest.approx(0.05 * 0.42) for s in steps)
    for _ in range(500):
        planner.advance(0.01)
    # steady walking: the robot advances v * T per step, i.e. v per second
    t0, x0 = planner.now_s, planner.get_robot_position().x
    for _ in range(int(round(0.84 * 100 * 5))):
        planner.advance(0.01)
    speed = (planner.get_robot_position().x - x0) / (planner.now_s - t0)
    assert speed == pytest.approx(0.05, rel=1e-6)


def test_move_saturates_keeping_direction():
    planner = FootstepPlanner()
    planner.move(1.0, 0.5, 0.0)
    stride = planner.velocity_stride
    assert 0.0 < stride.scale < 1.0
    vx, vy, wz = stride.achieved_velocity
    assert vy / vx == pytest.approx(0.5) and wz == 0.0
    for s in planner.steps():
        assert s.move == s.requested  # saturated by the planner, not by clipping
        assert s.move.x <= 0.04 + 1e-9 and abs(s.move.y) <= 0.14 + 1e-9


def test_move_with_per_foot_config():
    planner = FootstepPlanner()
    config = [["LeftStepHeight", 0.03], ["RightStepHeight", 0.01], ["RightTorsoWx", -0.1]]
    planner.move(0.05, 0.0, 0.0, config)
    planner.advance(0.01)  # refilled: the second foot's first step too
    assert {s.leg for s in planner.steps()} == {Leg.LEFT, Leg.RIGHT}
    for s in planner.steps():
        assert s.step_height_m == (0.03 if s.leg is Leg.LEFT else 0.01)
        assert s.torso_wx_rad == (0.0 if s.leg is Leg.LEFT else -0.1)


def test_velocity_walk_is_refilled_as_time_advances():
    planner = FootstepPlanner()
    planner.move(0.06, -0.02, 0.15)
    walk_start_s = planner.steps()[0].start_s
    assert walk_start_s == pytest.approx(planner.preview_s)  # from standing: one preview ahead
    done = []
    for _ in range(1080):  # 10.8 s: 10 s of walking after the start
        done += planner.advance(0.01)
        steps = planner.steps()
        assert planner.changeable_steps()  # always something beyond the preview
        assert steps[0].start_s <= max(planner.now_s, walk_start_s) + 1e-9  # no gap
    assert len(done) >= 20
    for prev, step in zip(done, done[1:]):
        assert step.leg is not prev.leg and step.start_s == pytest.approx(prev.end_s)
        assert step.move == step.requested


def test_zero_velocity_stops_with_feet_together():
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.1)
    for _ in range(150):
        planner.advance(0.01)
    planner.move(0.0, 0.0, 0.0)
    assert planner.mode is WalkMode.STOPPING
    for _ in range(300):
        planner.advance(0.01)
    assert planner.mode is WalkMode.IDLE and not planner.move_is_active()
    assert planner.feet.feet_together(0.1)


def test_move_refuses_non_finite_and_keeps_plan():
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.0)
    before = planner.steps()
    for bad in ((float("nan"), 0.0, 0.0), (0.0, float("inf"), 0.0), (0.0, 0.0, "fast")):
        with pytest.raises(InvalidCommandError):
            planner.move(*bad)
    assert planner.steps() == before
