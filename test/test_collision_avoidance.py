"""Self-collision avoidance core: pair rule, Jacobian rows, the seed's LArm example, limp chains,
failures, and randomised safety of the filter's output (no rclpy)."""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import osqp
import pytest
from scipy.optimize import minimize

from nao_motion.body_shapes import body_capsules
from nao_motion.collision.avoidance import AvoidanceConfig, CollisionAvoidance, Outcome
from nao_motion.collision.coupled_limits import CoupledLimitRows
from nao_motion.collision.pairs import PairDistances, collision_pairs
from nao_motion.collision.reference import JointReference, parse_targets
from nao_motion.kinematics import ForwardKinematics
from nao_motion.model import HEAD_PITCH_VS_YAW_DEG, NaoModel
from nao_motion.postures import POSTURES, posture

MODEL = NaoModel()
MARGIN_M = AvoidanceConfig().margin_m
ARM = ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll")
LARM = [MODEL.joint_index("L" + j) for j in ARM]
RARM = [MODEL.joint_index("R" + j) for j in ARM]
HEAD = [MODEL.joint_index(n) for n in ("HeadYaw", "HeadPitch")]
STEP_MAX = MODEL.max_velocity * MODEL.cycle_time_s


def with_angles(q, **degrees):
    q = q.copy()
    for name, value in degrees.items():
        q[MODEL.joint_index(name)] = np.deg2rad(value)
    return MODEL.clip_to_limits(q)


STAND = posture(MODEL, "StandInit")
# The seed example's poses (almotion_reflexesCollisionAvoidance.py), LWristYaw and LHand 0.
INIT = with_angles(STAND, LShoulderPitch=80, LShoulderRoll=20, LElbowYaw=-80, LElbowRoll=-60, LWristYaw=0, LHand=0)
FINAL = with_angles(STAND, LShoulderPitch=50, LShoulderRoll=6, LElbowYaw=0, LElbowRoll=-150, LWristYaw=0, LHand=0)


@pytest.fixture(scope="module")
def checker():
    """An independent FK and distance evaluation (the shared distance core) for outputs."""
    fk = ForwardKinematics(MODEL)
    return PairDistances(fk, collision_pairs(MODEL))


def example_wishes(start, end, fraction=0.5, settle_cycles=150):
    """The wish of angleInterpolationWithSpeed(LArm, end, fraction), sampled each cycle."""
    reference = JointReference(MODEL)
    reference.reset(start)
    names = MODEL.names_for("LArm")
    targets = parse_targets(MODEL, names, end[[MODEL.joint_index(n) for n in names]], [], fraction)
    duration = reference.move_to(targets, start, 0.0)
    cycles = int(np.ceil(duration / MODEL.cycle_time_s)) + settle_cycles
    return [reference.sample((k + 1) * MODEL.cycle_time_s).copy() for k in range(cycles)]


def run(avoidance, start, wishes, stiffness=None, measured=None):
    """The commands (copies: a result's q is the filter's buffer) and outcomes."""
    avoidance.reset(start)
    outputs, outcomes = [], []
    for wish in wishes:
        result = avoidance.step(wish, stiffness, measured)
        outputs.append(result.q.copy())
        outcomes.append(result.outcome)
    return np.array(outputs), outcomes


def pair_mask(pairs, first_prefix, second_names=None, second_prefix=None):
    mask = []
    for i in range(pairs.n_pairs):
        a, b = pairs.names(i)
        mask.append(a.startswith(first_prefix) and (b in second_names if second_names else b.startswith(second_prefix)))
    return np.array(mask)


# --- pairs and rows ---------------------------------------------------------------------------
def test_pair_rule_arm_shapes_against_every_other_shape_once():
    pairs = collision_pairs(MODEL)
    shapes = body_capsules(MODEL)
    listed = {frozenset(pairs.names(i)) for i in range(pairs.n_pairs)}
    assert len(listed) == pairs.n_pairs == 56
    arms = [s for s in shapes if s.group in ("l_arm", "r_arm")]
    expected = {frozenset((a.name, b.name)) for a in arms for b in shapes if b.group != a.group}
    assert listed == expected
    for i in range(pairs.n_pairs):
        a, b = (pairs.shapes[k] for k in (pairs.first[i], pairs.second[i]))
        assert a.group in ("l_arm", "r_arm") and a.group != b.group
    left_only = pairs.checked({"LArm"})
    groups = [(pairs.shapes[a].group, pairs.shapes[b].group) for a, b in zip(pairs.first, pairs.second)]
    assert list(left_only) == [a == "l_arm" or b == "l_arm" for a, b in groups]
    names = [pairs.names(i) for i in range(pairs.n_pairs)]
    assert left_only[names.index(("l_forearm", "r_forearm"))]
    assert not left_only[names.index(("r_forearm", "torso_chest"))]


@pytest.mark.parametrize("name", sorted(POSTURES))
def test_default_postures_keep_the_margin(checker, name):
    assert checker.at(posture(MODEL, name)).distance_m.min() > MARGIN_M


def test_pair_rows_match_finite_differences():
    # Pairs and obstacle pairs (the arms against two declared spheres) alike.
    avoidance = CollisionAvoidance(MODEL)
    slots = avoidance.obstacles
    for i, centre in enumerate(((0.15, 0.12, 0.0), (0.15, -0.12, 0.05))):
        slots.p_m[i] = slots.q_m[i] = centre
        slots.radius_m[i], slots.used[i] = 0.03, True
    geometry = avoidance._current
    rng = np.random.default_rng(3)
    for _ in range(30):
        avoidance.reset(rng.uniform(MODEL.lower, MODEL.upper))
        q = avoidance.command.copy()
        state = avoidance.fk.compute(q)
        geometry.compute(state, slots)
        avoidance._pair_rows(state, geometry)
        d0, g = geometry.all_result.distance_m.copy(), avoidance._g.copy()
        dq = rng.normal(0.0, 1e-6, len(avoidance.motor_names))
        q2 = q.copy()
        q2[avoidance._motor_model] += dq
        geometry.compute(avoidance.fk.compute(MODEL.mimic_hip_yaw_pitch(q2)), slots)
        d1 = geometry.all_result.distance_m
        # Away from touching axes (undefined normal); empty slots are infinitely far.
        clear = np.isfinite(d0) & (np.abs(d0) > 1e-3)
        assert np.count_nonzero(clear[geometry.pairs.n_pairs:]) == 8  # 4 arm shapes x 2 obstacles
        # g . dq is how much closer a pair gets.
        np.testing.assert_allclose(d0[clear] - d1[clear], (g @ dq)[clear], rtol=1e-3, atol=1e-10)


def test_coupled_head_rows_are_conservative_and_allow_standing_still():
    step = float(STEP_MAX[MODEL.joint_index("HeadYaw")])
    rows = CoupledLimitRows(HEAD_PITCH_VS_YAW_DEG, symmetric=True, max_step_rad=step)
    rng = np.random.default_rng(4)
    coef, rhs, used = np.zeros((6, 2)), np.zeros(6), np.zeros(6, dtype=bool)
    table = np.deg2rad(HEAD_PITCH_VS_YAW_DEG)
    yaw_lo, yaw_hi = MODEL.lower[HEAD[0]], MODEL.upper[HEAD[0]]
    for _ in range(3000):
        x = rng.uniform(yaw_lo, yaw_hi)
        lo, hi = np.interp(abs(x), table[:, 0], table[:, 1]), np.interp(abs(x), table[:, 0], table[:, 2])
        y = rng.choice([lo, hi, rng.uniform(lo, hi)])
        step_lo, step_hi = max(yaw_lo - x, -step), min(yaw_hi - x, step)
        rows.fill(x, y, step_lo, step_hi, coef, rhs, used)
        assert np.all(rhs[used] >= -1e-12), "standing still must be allowed"
        dx = rng.uniform(step_lo, step_hi, 200)
        dy = rng.uniform(-0.1, 0.1, 200)
        allowed = np.all((coef[used] @ np.stack([dy, dx])) <= rhs[used, None], axis=0)
        x2, y2 = x + dx[allowed], y + dy[allowed]
        assert np.all(y2 <= np.interp(np.abs(x2), table[:, 0], table[:, 2]) + 1e-12)
        assert np.all(y2 >= np.interp(np.abs(x2), table[:, 0], table[:, 1]) - 1e-12)


# --- the seed's example: LArm into the chest ---------------------------------------------------
def test_seed_example_without_protection_goes_through_the_torso(checker):
    avoidance = CollisionAvoidance(MODEL, AvoidanceConfig(protected_arms=()))
    wishes = example_wishes(INIT, FINAL)
    outputs, _ = run(avoidance, INIT, wishes)
    np.testing.assert_allclose(outputs, np.array(wishes), atol=1e-12)  # nothing to protect: unchanged
    torso = pair_mask(checker.pairs, "l_", second_prefix="torso")
    assert checker.at(outputs[-1]).distance_m[torso].min() < -0.01  # the forearm is 1.7 cm in the chest


def nearest_safe_pose(checker, target, starts):
    """min |q - target|^2 over the 4 LArm joints that move shapes, all LArm pairs >= margin (SLSQP)."""
    left = checker.pairs.checked({"LArm"})

    def distances(x):
        q = target.copy()
        q[LARM] = x
        return checker.at(q).distance_m[left].copy()

    best = None
    for x0 in starts:
        r = minimize(lambda x: np.sum((x - target[LARM]) ** 2), x0, jac=lambda x: 2 * (x - target[LARM]),
                     constraints=[{"type": "ineq", "fun": lambda x: distances(x) - MARGIN_M}],
                     bounds=list(zip(MODEL.lower[LARM], MODEL.upper[LARM])), method="SLSQP",
                     options={"ftol": 1e-12, "maxiter": 300})
        if r.success and distances(r.x).min() >= MARGIN_M - 1e-7 and (best is None or r.fun < best.fun):
            best = r
    return best


def test_seed_example_with_protection_stays_clear_and_stops_at_the_nearest_safe_pose(checker):
    avoidance = CollisionAvoidance(MODEL, AvoidanceConfig(protected_arms=("LArm",)))
    wishes = example_wishes(INIT, FINAL)
    outputs, outcomes = run(avoidance, INIT, wishes)
    assert set(outcomes) == {Outcome.SOLVED}
    left = checker.pairs.checked({"LArm"})
    closest = np.array([checker.at(q).distance_m[left].min() for q in outputs])
    assert closest.min() >= 0.0
    assert closest.min() >= MARGIN_M - 5e-4  # the linearisation eats at most half a millimetre
    steps = np.abs(np.diff(np.vstack([INIT, outputs]), axis=0))
    assert np.all(steps <= STEP_MAX + 1e-12), "the command never jumps"

    # The end pose is the nearest collision-free pose to the (unreachable) target: compare with an
    # SLSQP solution of min |q - target| s.t. every LArm pair >= margin, from several starts,
    # including the last collision-free pose on the straight path from INIT (found by sampling).
    target, end = FINAL, outputs[-1]
    on_path = np.linspace(0.0, 1.0, 1001)
    free = [checker.at(INIT + s * (target - INIT)).distance_m[left].min() >= MARGIN_M for s in on_path]
    last_free = INIT + on_path[np.argmin(free) - 1] * (target - INIT)
    best = nearest_safe_pose(checker, target, [end[LARM], last_free[LARM], INIT[LARM], target[LARM]])
    assert best is not None
    np.testing.assert_allclose(end[LARM], best.x, atol=1e-3)
    assert np.sum((end[LARM] - target[LARM]) ** 2) <= best.fun + 1e-6
    # ... and nearer to the target than stopping on the straight path would be.
    assert np.sum((end - target) ** 2) < 0.5 * np.sum((last_free - target) ** 2)


def test_starting_inside_the_margin_separates_without_jumping(checker):
    avoidance = CollisionAvoidance(MODEL)
    avoidance.reset(FINAL)  # measured pose with the forearm 1.7 cm inside the chest
    previous, closest = avoidance.command.copy(), []
    recovery_per_cycle = avoidance.config.recovery_speed_mps * MODEL.cycle_time_s
    for _ in range(150):
        result = avoidance.step(FINAL)  # the wish stays in the chest
        assert result.outcome is Outcome.SOLVED
        assert np.all(np.abs(result.q - previous) <= STEP_MAX + 1e-12)
        previous = result.q.copy()
        closest.append(checker.at(result.q).distance_m.min())
    assert np.all(np.diff(closest) <= recovery_per_cycle + 1e-4)  # pushed out no faster than asked
    assert closest[-1] >= MARGIN_M - 5e-4


def test_infeasible_recovery_is_solved_without_the_push_and_legs_held():
    # With 1 ms steps the arm cannot separate by 1 cm in one: the filter drops the push for the
    # cycle and holds the legs.
    avoidance = CollisionAvoidance(MODEL, AvoidanceConfig(recovery_speed_mps=10.0, dt_s=0.001))
    avoidance.reset(FINAL)
    wish = FINAL.copy()
    wish[MODEL.joint_index("LKneePitch")] += 0.3
    result = avoidance.step(wish)
    assert result.outcome is Outcome.RELAXED, result.reason
    assert result.q[MODEL.joint_index("LKneePitch")] == FINAL[MODEL.joint_index("LKneePitch")]
    assert np.all(np.abs(result.q - FINAL) <= MODEL.max_velocity * 0.001 + 1e-12)


def test_a_failed_solve_holds_the_last_safe_command(monkeypatch):
    avoidance = CollisionAvoidance(MODEL)
    avoidance.reset(INIT)
    for wish in example_wishes(INIT, FINAL, settle_cycles=0)[:40]:  # until rows bind
        avoidance.step(wish)
    held = avoidance.command.copy()
    failure = SimpleNamespace(x=np.full(avoidance.n_var, np.nan),
                              info=SimpleNamespace(status_val=osqp.SolverStatus.OSQP_NON_CVX,
                                                   status="problem non convex", iter=3))
    monkeypatch.setattr(avoidance._solver, "solve", lambda raise_error=False: failure)
    result = avoidance.step(FINAL)
    assert result.outcome is Outcome.HELD and "non convex" in result.reason
    np.testing.assert_array_equal(result.q, held)


def test_non_finite_wishes_are_refused():
    avoidance = CollisionAvoidance(MODEL)
    avoidance.reset(INIT)
    wish = INIT.copy()
    wish[LARM[0]] = np.nan
    with pytest.raises(ValueError, match="finite"):
        avoidance.step(wish)


# --- stiffness: who moves ------------------------------------------------------------------------
def crossing_forearms():
    """LArm forward with the forearm across the front; RArm forward, its wish folding into it."""
    start = with_angles(STAND, LShoulderPitch=0, LShoulderRoll=0, LElbowYaw=0, LElbowRoll=-88.5,
                        RShoulderPitch=0, RShoulderRoll=0, RElbowYaw=0, RElbowRoll=2)
    return start, with_angles(start, RElbowRoll=88.5)


def test_a_stiff_protected_arm_moves_itself_out_of_the_way(checker):
    start, wish = crossing_forearms()
    avoidance = CollisionAvoidance(MODEL, AvoidanceConfig(protected_arms=("LArm",)))
    outputs, _ = run(avoidance, start, [wish] * 150)
    arms = pair_mask(checker.pairs, "l_", second_prefix="r_")
    assert checker.at(wish).distance_m[arms].min() < -0.05  # the wish would cross the forearms
    assert min(checker.at(q).distance_m[arms].min() for q in outputs) >= 0.0
    end = outputs[-1]
    np.testing.assert_allclose(end[RARM], wish[RARM], atol=1e-3)  # the unprotected arm is not changed
    assert np.abs(end[LARM] - start[LARM]).max() > 0.1  # the protected arm moved


def test_a_limp_protected_arm_makes_the_stiff_arm_yield(checker):
    start, wish = crossing_forearms()
    avoidance = CollisionAvoidance(MODEL, AvoidanceConfig(protected_arms=("LArm",)))
    stiffness = np.ones(MODEL.n_joints)
    stiffness[[MODEL.joint_index(n) for n in MODEL.names_for("LArm")]] = 0.0
    measured = start.copy()
    outputs, _ = run(avoidance, start, [wish] * 150, stiffness, measured)
    arms = pair_mask(checker.pairs, "l_", second_prefix="r_")
    assert min(checker.at(q).distance_m[arms].min() for q in outputs) >= 0.0
    np.testing.assert_array_equal(outputs[:, LARM], np.tile(measured[LARM], (len(outputs), 1)))  # limp: follows
    assert np.abs(outputs[-1, RARM] - wish[RARM]).max() > 0.1  # the stiff arm yielded


def test_a_limp_protected_arm_makes_the_head_yield(checker):
    start = with_angles(STAND, LShoulderPitch=-90, LShoulderRoll=-10, LElbowYaw=0, LElbowRoll=-2)
    wish = with_angles(start, HeadYaw=119, HeadPitch=20)
    head = pair_mask(checker.pairs, "l_", second_names=("head",))
    assert checker.at(wish).distance_m[head].min() < 0.0
    stiffness = np.ones(MODEL.n_joints)
    stiffness[[MODEL.joint_index(n) for n in MODEL.names_for("LArm")]] = 0.0
    outputs, _ = run(CollisionAvoidance(MODEL), start, [wish] * 200, stiffness, start)
    assert min(checker.at(q).distance_m[head].min() for q in outputs) >= 0.0
    assert np.abs(outputs[-1, HEAD] - wish[HEAD]).max() > 0.01


# --- protection API -------------------------------------------------------------------------------
def test_protection_chains_and_configuration_validation():
    avoidance = CollisionAvoidance(MODEL)
    assert avoidance.protection_enabled("Arms")  # NAOqi's default
    avoidance.set_protection("LArm", False)
    assert not avoidance.protection_enabled("LArm") and avoidance.protection_enabled("RArm")
    assert not avoidance.protection_enabled("Arms")
    avoidance.set_protection("Arms", True)
    assert avoidance.protection_enabled("LArm") and avoidance.protection_enabled("Arms")
    with pytest.raises(ValueError, match="unknown collision protection chain 'Head'"):
        avoidance.set_protection("Head", True)
    with pytest.raises(ValueError, match="margin_m"):
        avoidance.update_config(replace(avoidance.config, margin_m=-0.01))
    with pytest.raises(ValueError, match="influence_distance_m"):
        avoidance.update_config(replace(avoidance.config, influence_distance_m=0.001))
    with pytest.raises(ValueError, match="balancer"):
        CollisionAvoidance(MODEL, AvoidanceConfig(yielding_chains=("LLeg",)))


# --- randomised --------------------------------------------------------------------------------
def test_random_targets_never_penetrate_nor_leave_the_limits(checker):
    """2,000 random targets for both arms and the head, each wished for 2-8 cycles (so the
    command is pulled in random directions, often through the body), all stiff, Arms protected."""
    rng = np.random.default_rng(7)
    moving = LARM + RARM + HEAD + [MODEL.joint_index(n) for n in ("LWristYaw", "RWristYaw")]
    avoidance = CollisionAvoidance(MODEL)
    avoidance.reset(STAND)
    previous, outputs, outcomes, penetrating_wishes = STAND.copy(), [], [], 0
    for _ in range(2000):
        target = STAND.copy()
        target[moving] = rng.uniform(MODEL.lower[moving], MODEL.upper[moving])
        penetrating_wishes += checker.at(target).distance_m.min() < 0.0
        for _ in range(rng.integers(2, 9)):
            result = avoidance.step(target)
            q = result.q.copy()
            assert np.all(np.abs(q - previous) <= STEP_MAX + 1e-12), "speed limit"
            np.testing.assert_allclose(MODEL.clip_to_limits(q), q, atol=1e-12, err_msg="position limits")
            outputs.append(q)
            outcomes.append(result.outcome)
            previous = q
    closest = np.array([checker.at(q).distance_m.min() for q in outputs])
    assert penetrating_wishes > 300  # the targets do ask for collisions (about one in five)
    assert closest.min() >= -0.001  # the requirement
    assert closest.min() >= MARGIN_M / 2 - 1e-4  # the filter's guarantee (its check of every new command)
    assert outcomes.count(Outcome.HELD) == 0


def test_targets_far_from_collisions_pass_through_unchanged(checker):
    """Arms spread sideways and swinging, head turning: every wish is far from any collision and
    within the speed limits, so the command is the wish, bit for bit, and no QP is solved."""
    rng = np.random.default_rng(8)
    spread = with_angles(STAND, LShoulderRoll=60, RShoulderRoll=-60, LShoulderPitch=20, RShoulderPitch=20,
                         LElbowRoll=-30, RElbowRoll=30)
    avoidance = CollisionAvoidance(MODEL)
    avoidance.reset(spread)
    wish = spread.copy()
    for _ in range(500):
        step = rng.uniform(-0.5, 0.5, len(MODEL.joint_names)) * STEP_MAX
        candidate = wish.copy()
        for joints in (LARM, RARM, HEAD):
            candidate[joints] += step[joints]
        candidate = np.clip(candidate, spread - 0.4, spread + 0.4)  # stay in the far region
        if checker.at(candidate).distance_m.min() < avoidance.config.influence_distance_m:
            continue
        wish = candidate
        result = avoidance.step(wish)
        assert result.iterations == 0 and result.outcome is Outcome.SOLVED
        np.testing.assert_array_equal(result.q, MODEL.clip_to_limits(wish))
