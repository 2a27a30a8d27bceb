"""moveTo: goal accuracy, step count against the gait's lower bound, step validity.

The lower bound is computed here independently of the planner, from the gait
limits along the seed's path (constant body twist (vx, vy, w) = log of the goal):

* heading: every step turns one foot at most MaxStepTheta past the other, so
  ceil(|w| / MaxStepTheta) + 1 steps (rigorous);
* each axis alone, stance changes included: both feet must travel from the
  standing stance to the goal stance, each landing at most MaxStepX ahead of
  the other along x, and, sideways, the opening foot at most MaxStepY -
  FootSeparation and the closing one at most FootSeparation -
  MinFootSeparation ahead (exact for one axis, by a greedy simulation);
* the steady-state stride with NAOqi's ellipse: the largest path share two
  consecutive steps can cover, over all stances, in closed form.

The displacement is taken as seen from the support foot (body velocity turned
by half a step's rotation). For turning paths this is a bound on the stride
limits, not on every cross term of rotation, so the planner may beat it by a
step or two there; it must never need more than two steps over it.
"""

import math

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner, MoveConfigError, Pose2D, WalkMode
from nao_motion.footsteps.pose2d import se2_log

X, XB, Y, SEP, FS, TMAX = 0.04, 0.04, 0.14, 0.088, 0.1, 0.349  # default gait
A_FWD, A_BWD, B_ELL = 0.08, 0.04, 0.16 - 0.088  # NAOqi's extremal ellipse
PERIOD = 0.42


# ------------------------------------------------------------ lower bound
def axis_steps(d, lead_open, lead_close):
    """Fewest alternating steps moving both feet from 0 to |d| on one axis."""
    d = abs(d)
    if d < 1e-12:
        return 0
    best = math.inf
    for first in (0, 1):
        p, lim, who, n = [0.0, 0.0], (lead_open, lead_close), first, 0
        while min(p) < d - 1e-12:
            p[who] = min(d, p[1 - who] + lim[who])
            who, n = 1 - who, n + 1
        best = min(best, n)
    return best


def ray_max(s, dx, dy):
    """Max delta >= 0 with (delta dx, s + delta dy) in the gait box and ellipse (|y| form)."""
    if not SEP <= s <= Y:
        return None
    lim = math.inf
    for p0, d, lo, hi in ((0.0, dx, -XB, X), (s, dy, SEP, Y)):
        if d > 1e-15:
            lim = min(lim, (hi - p0) / d)
        elif d < -1e-15:
            lim = min(lim, (lo - p0) / d)
    a = A_FWD if dx >= 0 else A_BWD
    qa = (dx / a) ** 2 + (dy / B_ELL) ** 2
    qb = 2 * (s - SEP) * dy / B_ELL**2
    qc = ((s - SEP) / B_ELL) ** 2 - 1.0
    if qa > 0:
        lim = min(lim, (-qb + math.sqrt(qb * qb - 4 * qa * qc)) / (2 * qa))
    return max(0.0, lim)


def stride_bound(ux, uy):
    ay = abs(uy)
    best = 0.0
    for s in np.linspace(SEP, Y, 401):
        o, c = ray_max(s, ux, ay), ray_max(s, ux, -ay)
        if o is not None and c is not None:
            best = max(best, o + c)
    return math.ceil(2.0 / best - 1.0 - 1e-9) + 1


def lower_bound(goal):
    vx, vy, w = se2_log(goal)
    n_rot = math.ceil(abs(w) / TMAX - 1e-9) + 1 if abs(w) > 1e-12 else 0
    n = max(n_rot, axis_steps(vx, X, X), axis_steps(vy, Y - FS, FS - SEP), stride_bound(vx, vy))
    for _ in range(3):
        h = 0.5 * w / max(n - 1, 1)
        ux, uy = math.cos(h) * vx - math.sin(h) * vy, math.sin(h) * vx + math.cos(h) * vy
        n = max(n_rot, axis_steps(ux, X, X), axis_steps(uy, Y - FS, FS - SEP), stride_bound(ux, uy))
    return n, n_rot


def test_lower_bound_sanity():
    assert lower_bound(Pose2D(3.0, 0.0, 0.0))[0] == 76  # 75 strides + closing step
    assert lower_bound(Pose2D(0.0, 0.0, math.pi))[0] == 11  # ceil(9.002) + 1
    assert axis_steps(0.04, 0.04, 0.012) == 2  # open 0.04, close beside it
    assert axis_steps(0.052, 0.04, 0.012) == 3  # the opening foot must move twice
    # 1 m sideways: 0.052 m per two steps; the exact one-axis count adds the
    # stance change at both ends.
    assert stride_bound(0.0, 1.0) == 39
    assert axis_steps(1.0, 0.04, 0.012) == 40


# --------------------------------------------------------------- helpers
def footprints(goal):
    return goal * Pose2D(0.0, FS / 2, 0.0), goal * Pose2D(0.0, -FS / 2, 0.0)


def assert_feet_on(feet, goal, tol_m=1e-3, tol_rad=math.radians(0.1)):
    for foot, target in zip((feet.left, feet.right), footprints(goal)):
        assert math.hypot(foot.x - target.x, foot.y - target.y) <= tol_m
        assert abs(math.remainder(foot.theta - target.theta, 2 * math.pi)) <= tol_rad


def assert_valid_walk(steps, max_x=X):
    for prev, step in zip(steps, steps[1:]):
        assert step.leg is not prev.leg  # alternating
        assert step.start_s == pytest.approx(prev.end_s)  # contiguous
        assert step.support == prev.target  # supported by the foot that just landed
    for step in steps:
        assert step.move == step.requested  # the planner never relies on clipping
        assert -XB - 1e-9 <= step.move.x <= max_x + 1e-9
        assert SEP - 1e-9 <= abs(step.move.y) <= Y + 1e-9
        assert abs(step.move.theta) <= TMAX + 1e-9
        assert step.duration_s == pytest.approx(PERIOD)


# ----------------------------------------------------------------- tests
def test_random_goals_within_3_m():
    rng = np.random.default_rng(2024)
    excess = []
    for _ in range(120):
        r = 3.0 * math.sqrt(rng.uniform())
        a = rng.uniform(-math.pi, math.pi)
        goal = Pose2D(r * math.cos(a), r * math.sin(a), rng.uniform(-math.pi, math.pi))
        planner = FootstepPlanner()
        planner.move_to(goal.x, goal.y, goal.theta)
        steps = planner.steps()
        assert_valid_walk(steps)
        final = planner.planned_feet()  # feet after every planned step
        assert_feet_on(final, goal)
        lb, n_rot = lower_bound(goal)
        assert n_rot <= len(steps) <= lb + 2, (goal, len(steps), lb)
        excess.append(len(steps) - lb)
    assert max(excess) <= 2 and np.mean(excess) < 1.0


def test_straight_3_m_is_optimal():
    planner = FootstepPlanner()
    planner.move_to(3.0, 0.0, 0.0)
    steps = planner.steps()
    assert len(steps) == 76
    assert all(s.move.x == pytest.approx(0.04) for s in steps[:-1])
    assert steps[-1].move == Pose2D(0.0, steps[-1].move.y, 0.0)  # closing step
    assert_feet_on(planner.planned_feet(), Pose2D(3.0, 0.0, 0.0), tol_m=1e-12)


def test_user_config_changes_the_stride():
    planner = FootstepPlanner()
    planner.move_to(3.0, 0.0, 0.0, [["MaxStepX", 0.06], ["StepHeight", 0.03]])
    steps = planner.steps()
    assert len(steps) == 51  # ceil(3 / 0.06) + 1
    assert max(s.move.x for s in steps) <= 0.06 + 1e-9
    assert all(s.step_height_m == 0.03 for s in steps)
    assert_valid_walk(steps, max_x=0.06)


def test_move_to_refuses_per_foot_config_and_keeps_plan():
    planner = FootstepPlanner()
    planner.move_to(1.0, 0.0, 0.0)
    before = planner.steps()
    with pytest.raises(MoveConfigError):
        planner.move_to(1.0, 0.0, 0.0, [["LeftMaxStepX", 0.06]])
    with pytest.raises(MoveConfigError):
        planner.move_to(1.0, 0.0, 0.0, [["Frequency", 0.5]])
    assert planner.steps() == before


def test_seed_example_quarter_turn():
    planner = FootstepPlanner()
    planner.move_to(0.2, 0.2, 1.5709)
    assert_feet_on(planner.planned_feet(), Pose2D(0.2, 0.2, 1.5709))
    assert len(planner.steps()) <= lower_bound(Pose2D(0.2, 0.2, 1.5709))[0] + 2


def test_turn_in_place():
    planner = FootstepPlanner()
    planner.move_to(0.0, 0.0, math.pi)
    steps = planner.steps()
    assert 11 <= len(steps) <= 13
    assert_valid_walk(steps)
    assert_feet_on(planner.planned_feet(), Pose2D(0.0, 0.0, math.pi))


def test_zero_goal_while_standing_plans_nothing():
    planner = FootstepPlanner()
    planner.move_to(0.0, 0.0, 0.0)
    assert planner.steps() == () and planner.mode is WalkMode.IDLE


def test_goal_is_relative_to_the_robot():
    start = Pose2D(1.0, -2.0, 0.7)
    planner = FootstepPlanner(start * Pose2D(0, 0.05, 0), start * Pose2D(0, -0.05, 0))
    planner.move_to(0.5, 0.3, -0.4)
    assert_feet_on(planner.planned_feet(), start * Pose2D(0.5, 0.3, -0.4))


def test_move_to_while_walking_keeps_unchangeable_steps():
    planner = FootstepPlanner()
    planner.move(0.08, 0.0, 0.2)
    for _ in range(100):
        planner.advance(0.01)
    kept = planner.unchangeable_steps()
    assert kept  # steps already inside the preview window
    robot = planner.get_robot_position()
    planner.move_to(0.6, -0.2, 0.5)
    steps = planner.steps()
    assert steps[: len(kept)] == kept
    assert steps[len(kept)].start_s == pytest.approx(kept[-1].end_s)
    assert planner.mode is WalkMode.MOVE_TO
    assert_feet_on(planner.planned_feet(), robot * Pose2D(0.6, -0.2, 0.5))
    for step in steps[len(kept):]:
        assert step.move == step.requested
    # walk it to the end
    while planner.steps():
        planner.advance(0.01)
    assert planner.mode is WalkMode.IDLE
    assert_feet_on(planner.feet, robot * Pose2D(0.6, -0.2, 0.5))
