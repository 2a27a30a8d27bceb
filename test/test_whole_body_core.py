"""The whole-body balancer's core (no ROS): Jacobians, support polygon, the seed's allowed
combinations, balance / feet / limits under random wishes, effectors, Plane feet, refusals,
holds, pass-through, the walk's references and wbGoToBalance."""

import itertools
from types import SimpleNamespace

import numpy as np
import osqp
import pytest
from scipy.spatial.transform import Rotation

from nao_motion import spatial
from nao_motion.kinematics import FRAME_ROBOT, ForwardKinematics
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.wholebody.balancer import (BalancerConfig, Mode, Outcome, WalkReference, WholeBodyBalancer,
                                           WholeBodySettings)
from nao_motion.wholebody.floating_base import FloatingBaseJacobians
from nao_motion.wholebody.modes import FootState, balance_refusal, foot_states_for
from nao_motion.wholebody.qp import SolverSettings
from nao_motion.wholebody.support_polygon import SupportPolygon, sole_corners_in_sole, support_polygon

MODEL = NaoModel()
FIXED, PLANE, FREE = FootState.FIXED, FootState.PLANE, FootState.FREE
MARGIN_TOLERANCE_M = 1e-4  # the balance rows are linearised: a few um over one cycle


def standing(settings=WholeBodySettings(), config=None, enable=True) -> WholeBodyBalancer:
    b = WholeBodyBalancer(MODEL, config)
    b.reset(posture(MODEL, "StandInit"))
    b.apply(settings)
    if enable:
        b.set_enabled(True)
    return b


def sole_poses(b: WholeBodyBalancer) -> np.ndarray:
    state = b.fk.compute(b.q)
    return np.stack([b.torso_world @ b.fk.pose(state, f) for f in ("l_sole", "r_sole")])


def test_floating_base_jacobians_match_finite_differences():
    fk = ForwardKinematics(MODEL)
    frames = ("l_sole", "r_sole", "l_gripper", "Head")
    jac = FloatingBaseJacobians(fk, frames)
    q = MODEL.mimic_hip_yaw_pitch(np.random.default_rng(3).uniform(MODEL.lower, MODEL.upper))
    torso = spatial.transform(spatial.rotation_from_rpy(0.1, -0.2, 0.3), (0.1, -0.05, 0.3))
    jac.update(fk.compute(q), torso)

    def world(q, torso):
        s = fk.compute(q)
        return [torso @ fk.pose(s, f) for f in frames], torso[:3, :3] @ s.com_torso_m + torso[:3, 3]

    eps = 1e-7
    poses0, com0 = world(q, torso)
    for col in range(jac.n_variables):
        q1, torso1 = q.copy(), torso.copy()
        if col < 6:  # torso twist in the world frame
            torso1[:3, 3] += eps * (np.arange(3) == col)
            torso1[:3, :3] = Rotation.from_rotvec(eps * (np.arange(3) == col - 3)).as_matrix() @ torso[:3, :3]
        else:
            q1[MODEL.joint_index(jac.motor_joint_names[col - 6])] += eps
            q1 = MODEL.mimic_hip_yaw_pitch(q1)
        poses1, com1 = world(q1, torso1)
        for k, (p0, p1) in enumerate(zip(poses0, poses1)):
            np.testing.assert_allclose((p1[:3, 3] - p0[:3, 3]) / eps, jac.frame_jacobian[k, :3, col], atol=2e-6)
            turn = Rotation.from_matrix(p1[:3, :3] @ p0[:3, :3].T).as_rotvec() / eps
            np.testing.assert_allclose(turn, jac.frame_jacobian[k, 3:, col], atol=2e-6)
        np.testing.assert_allclose((com1 - com0) / eps, jac.com_jacobian[:, col], atol=2e-6)
    np.testing.assert_allclose(jac.com_world_m, com0, atol=1e-12)


def test_support_polygon_of_the_soles():
    corners = sole_corners_in_sole(MODEL)
    left = spatial.translation(0.0, 0.05, 0.0)
    right = spatial.transform(spatial.rot_z(-0.2), (0.01, -0.05, 0.0))
    legs = support_polygon({"left": left, "right": right}, ("left", "right"), corners)
    lleg = support_polygon({"left": left}, ("left",), corners)
    assert 4 <= legs.n_edges <= 8 and lleg.n_edges == 4
    # Counter-clockwise, inward normals: every sole corner is inside (>= 0) both hulls it belongs to.
    for pt in np.concatenate([corners["left"] @ left[:3, :3].T + left[:3, 3]])[:, :2]:
        assert legs.margin(pt) >= -1e-12 and lleg.margin(pt) >= -1e-12
    np.testing.assert_allclose(lleg.centroid(), [(0.0994 - 0.0507) / 2, 0.05 + (0.05 - 0.0388) / 2], atol=1e-12)
    assert lleg.margin(lleg.centroid()) == pytest.approx((0.05 + 0.0388) / 2)
    assert lleg.margin([0.5, 0.0]) < 0.0
    inner = lleg.shrunk(0.01)
    assert SupportPolygon.from_points(inner).margin(lleg.centroid()) == pytest.approx((0.05 + 0.0388) / 2 - 0.01)
    assert len(lleg.shrunk(0.05)) == 0  # the margin swallows the sole


# The seed's list of allowed (support, left, right) combinations, verbatim.
ALLOWED = {
    ("Legs", FIXED, FIXED), ("Legs", FIXED, PLANE), ("Legs", PLANE, FIXED),
    ("LLeg", FIXED, FIXED), ("LLeg", FIXED, PLANE), ("LLeg", FIXED, FREE),
    ("RLeg", FIXED, FIXED), ("RLeg", PLANE, FIXED), ("RLeg", FREE, FIXED),
}


@pytest.mark.parametrize("support", ["Legs", "LLeg", "RLeg"])
def test_balance_combinations_are_the_seeds(support):
    for left, right in itertools.product(FootState, repeat=2):
        reason = balance_refusal(True, support, {"left": left, "right": right})
        assert (reason is None) == ((support, left, right) in ALLOWED), (support, left, right, reason)
        assert balance_refusal(False, support, {"left": left, "right": right}) is None
    assert foot_states_for("Plane", "Legs", {"left": FIXED, "right": FIXED}) == {"left": PLANE, "right": PLANE}
    with pytest.raises(ValueError, match="foot state"):
        foot_states_for("Flying", "LLeg", {"left": FIXED, "right": FIXED})


def check_cycle(b, result, previous_feet, fixed_feet, margin_m):
    """Per-cycle invariants: limits, Fixed feet, balance margin. Returns the feet poses."""
    q = result.q
    assert result.outcome in (Outcome.SOLVED, Outcome.RELAXED), result.reason
    assert np.all(q >= MODEL.lower) and np.all(q <= MODEL.upper)
    np.testing.assert_array_equal(MODEL.clip_to_limits(q), q)  # coupled head / ankle ranges too
    feet = sole_poses(b)
    for i in fixed_feet:
        assert np.linalg.norm(feet[i, :3, 3] - previous_feet[i, :3, 3]) < 1e-4  # < 0.1 mm per cycle
        assert np.linalg.norm(Rotation.from_matrix(feet[i, :3, :3] @ previous_feet[i, :3, :3].T).as_rotvec()) < 1e-3
    if margin_m is not None:
        assert result.com_margin_m >= margin_m - MARGIN_TOLERANCE_M
    return feet


@pytest.mark.parametrize("support", ["Legs", "LLeg"])
def test_random_wishes_keep_balance_fixed_feet_and_limits(support):
    right = FIXED if support == "Legs" else FREE
    b = standing(WholeBodySettings(right_foot=right))
    if support == "LLeg":  # the COM has to be over the left foot before LLeg balance is allowed
        with pytest.raises(ValueError, match="outside the LLeg support polygon"):
            b.apply(WholeBodySettings(right_foot=right, balance_enabled=True, balance_support="LLeg"))
        b.go_to_balance("LLeg", 1.0)
        for _ in range(150):
            b.step(b.q.copy())
    b.apply(WholeBodySettings(right_foot=right, balance_enabled=True, balance_support=support))
    fixed = [0, 1] if support == "Legs" else [0]
    rng = np.random.default_rng(7)
    feet = sole_poses(b)
    margins = []
    wish = b.q.copy()
    step_max = 0.5 * MODEL.max_velocity * b.dt_s
    for k in range(600):
        if k % 75 == 0:  # a new random pose, the wish moving there at half speed (as the filter's would)
            target = MODEL.mimic_hip_yaw_pitch(rng.uniform(MODEL.lower, MODEL.upper))
        wish = wish + np.clip(target - wish, -step_max, step_max)
        result = b.step(wish)
        feet = check_cycle(b, result, feet, fixed, b.config.margin_m)
        margins.append(result.com_margin_m)
    assert min(margins) < b.config.margin_m + 0.005  # the wishes did push the COM to the margin


def reach(b, name, target, cycles=300):
    b.set_effector_target(name, target)
    wish = b.q.copy()
    feet = sole_poses(b)
    for _ in range(cycles):
        result = b.step(wish)
        feet = check_cycle(b, result, feet, [0, 1], b.config.margin_m)
    return b.fk.position_in_space(b.fk.compute(b.q), name, FRAME_ROBOT)


@pytest.mark.parametrize("arm, offset", [("LArm", (0.05, 0.03, 0.06)), ("RArm", (0.04, -0.02, -0.05))])
def test_reachable_arm_target_is_reached_within_1mm(arm, offset):
    b = standing(WholeBodySettings(effectors=frozenset({arm})))
    start = b.fk.position_in_space(b.fk.compute(b.q), arm, FRAME_ROBOT)[:3]
    reached = reach(b, arm, start + offset)[:3]
    assert np.linalg.norm(reached - (start + offset)) < 1e-3


def test_reachable_head_orientation_is_reached():
    b = standing(WholeBodySettings(effectors=frozenset({"Head"})))
    reached = reach(b, "Head", np.array([0.0, 0.25, 0.6]))[3:]
    np.testing.assert_allclose(reached, [0.0, 0.25, 0.6], atol=2e-3)


def test_an_arm_target_beyond_reach_is_resized_to_the_arms_reach_and_reached():
    """NAOqi: an unfeasible target is resized to the nearest feasible one. Chased as it was, the
    QP leaned the robot to its toes (in the simulator, five reaches of +3 cm toppled it)."""
    b = standing(WholeBodySettings(effectors=frozenset({"LArm"})))
    shoulder = b.fk.position_in_space(b.fk.compute(posture(MODEL, "StandInit")), "LShoulder", FRAME_ROBOT)[:3]
    far_above = np.array([0.60, 0.10, 0.60])
    taken = b.set_effector_target("LArm", far_above)
    assert np.linalg.norm(taken - shoulder) == pytest.approx(b.config.arm_reach_m)
    np.testing.assert_allclose(np.cross(taken - shoulder, far_above - shoulder), 0.0, atol=1e-12)  # same direction
    far_below = np.array([0.60, 0.10, 0.10])  # below the shoulder only the floor-plane distance counts
    taken = b.set_effector_target("LArm", far_below)
    assert taken[2] == pytest.approx(far_below[2])
    assert np.hypot(*(taken - shoulder)[:2]) == pytest.approx(b.config.arm_reach_m)
    within = np.array([0.15, 0.12, 0.25])
    np.testing.assert_array_equal(b.set_effector_target("LArm", within), within)
    hand = reach(b, "LArm", np.array([0.60, 0.10, 0.30]), cycles=600)[:3]
    taken = b.set_effector_target("LArm", np.array([0.60, 0.10, 0.30]))
    assert np.linalg.norm(hand - taken) < 2e-3
    assert b.step(b.q.copy()).com_margin_m > b.config.margin_m


def test_effector_controls_balance_outlives_it_until_the_user_sets_the_constraint_or_disables():
    """A reach can end with the COM at the margin, balanced only by effector control's implied
    constraint; dropped with it, the next motion pushed the COM out (Crouch after reaches fell in
    the transition matrix). It stays until the user sets the constraint, the feet, or wbEnable(False)."""
    def lean_forward(b):
        wish = b.q.copy()
        for hip in ("LHipPitch", "RHipPitch"):
            wish[MODEL.joint_index(hip)] = -1.5
        for _ in range(300):
            result = b.step(wish)
        return result.com_margin_m

    def after_effector_control():
        b = standing(WholeBodySettings(effectors=frozenset({"LArm"})))
        b.apply(WholeBodySettings())
        return b

    b = after_effector_control()
    assert b.balance_support == "Legs"
    assert lean_forward(b) > b.config.margin_m - 1e-3
    b = after_effector_control()
    b.apply(WholeBodySettings(balance_enabled=True))
    b.apply(WholeBodySettings())  # wbEnableBalanceConstraint(True), then (False): the user's choice
    assert b.balance_support is None
    assert lean_forward(b) < 0.0
    b = after_effector_control()
    b.set_enabled(False)
    assert b.balance_support is None


def test_plane_feet_stay_flat_while_hip_yaw_pitch_turns():
    b = standing(WholeBodySettings(left_foot=PLANE, right_foot=PLANE))
    start = sole_poses(b)
    hyp = MODEL.joint_index("LHipYawPitch")
    wish = posture(MODEL, "StandInit")
    for k in range(250):
        wish[hyp] = max(-np.deg2rad(45.0), -0.005 * k)
        result = b.step(wish)
        assert result.outcome is Outcome.SOLVED
        feet = sole_poses(b)
        for foot, foot0 in zip(feet, start):
            roll, pitch, _ = spatial.rpy_from_rotation(foot[:3, :3])
            assert abs(roll) < 1e-3 and abs(pitch) < 1e-3 and abs(foot[2, 3] - foot0[2, 3]) < 1e-4
    assert b.q[hyp] < np.deg2rad(-40.0)
    yaws = [spatial.rpy_from_rotation(f[:3, :3])[2] for f in sole_poses(b)]
    assert yaws[0] > 0.3 and yaws[1] < -0.3  # the feet turned in their plane


def test_refusals_say_why_and_change_nothing():
    b = standing()
    before = b.settings
    lleg = WholeBodySettings(balance_enabled=True, balance_support="LLeg")
    assert "outside the LLeg support polygon" in b.refusal(lleg)
    assert "both feet on the ground" in b.refusal(WholeBodySettings(right_foot=FREE, balance_enabled=True))
    assert "at least one foot Fixed" in b.refusal(WholeBodySettings(PLANE, PLANE, balance_enabled=True))
    assert "effector control keeps balance on Legs" in b.refusal(
        WholeBodySettings(left_foot=FREE, effectors=frozenset({"LArm"})))
    assert "unknown support leg" in b.refusal(WholeBodySettings(balance_enabled=True, balance_support="Arms"))
    with pytest.raises(ValueError, match="Fixed"):
        b.apply(WholeBodySettings(right_foot=FREE, balance_enabled=True, balance_support="RLeg"))
    assert b.settings == before
    with pytest.raises(ValueError, match="not enabled"):
        b.set_effector_target("LArm", [0.1, 0.1, 0.3])
    with pytest.raises(ValueError, match="unknown effector"):
        b.set_effector_target("Tail", [0.1, 0.1, 0.3])
    b.apply(WholeBodySettings(effectors=frozenset({"LArm"})))
    with pytest.raises(ValueError, match="finite"):
        b.set_effector_target("LArm", [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match="Free"):
        standing(WholeBodySettings(left_foot=FREE)).go_to_balance("LLeg", 1.0)
    with pytest.raises(ValueError, match="disabled"):
        standing(enable=False).go_to_balance("Legs", 1.0)


def test_an_unconverged_solve_is_relaxed_and_scaled_and_a_failed_one_holds():
    # One ADMM iteration: nowhere near converged; the step is cut back until the rows hold.
    config = BalancerConfig(solver=SolverSettings(max_iter=1, check_termination=1))
    b = standing(WholeBodySettings(balance_enabled=True), config)
    wish = MODEL.mimic_hip_yaw_pitch(np.random.default_rng(1).uniform(MODEL.lower, MODEL.upper))
    feet = sole_poses(b)
    outcomes = set()
    for _ in range(50):
        result = b.step(wish)
        feet = check_cycle(b, result, feet, [0, 1], b.config.margin_m)
        outcomes.add(result.outcome)
    assert Outcome.RELAXED in outcomes

    before = b.q.copy()
    failure = SimpleNamespace(x=np.full(b.n, np.nan), info=SimpleNamespace(
        iter=0, status="solver error (test)", status_val=osqp.SolverStatus.OSQP_NON_CVX))
    b.qp.solver.solve = lambda **kwargs: failure
    result = b.step(wish)
    assert result.outcome is Outcome.HELD and "last command held" in result.reason
    np.testing.assert_array_equal(result.q, before)


def test_pass_through_is_limited_and_enabling_does_not_jump():
    b = standing(enable=False)
    wish = posture(MODEL, "StandInit")
    wish[MODEL.joint_index("HeadYaw")] = 5.0  # beyond the joint's range
    step_max = MODEL.max_velocity * b.config.max_velocity_fraction * b.dt_s
    previous = b.q.copy()
    for _ in range(100):
        result = b.step(wish)
        assert result.mode is Mode.PASS_THROUGH
        assert np.all(np.abs(result.q - previous) <= step_max + 1e-12)
        previous = result.q.copy()
    assert b.q[MODEL.joint_index("HeadYaw")] == pytest.approx(MODEL.upper[MODEL.joint_index("HeadYaw")])
    b.set_enabled(True)
    result = b.step(previous)
    assert result.mode is Mode.BALANCING and np.max(np.abs(result.q - previous)) < 1e-6


def test_passing_through_a_wish_faster_than_the_speed_limit_keeps_its_path():
    """The joints chasing a wish move together, slowed by one factor: the command stays on the
    straight line to the wish (a posture's, all its joints arriving together)."""
    b = standing(enable=False)
    start = posture(MODEL, "Crouch")
    b.reset(start)
    wish = posture(MODEL, "StandInit")
    way = wish - start
    moving = np.abs(way) > 1e-9
    for _ in range(200):
        q = b.step(wish).q
        progress = (q - start)[moving] / way[moving]
        assert np.ptp(progress) < 1e-9, progress  # every joint as far along its way
        if progress[0] >= 1.0 - 1e-12:
            break
    np.testing.assert_allclose(b.q, model_clipped(wish), atol=1e-12)


def model_clipped(q: np.ndarray) -> np.ndarray:
    return MODEL.clip_to_limits(MODEL.mimic_hip_yaw_pitch(q))


def test_pass_through_standing_still_reports_what_a_fresh_cycle_would():
    """A pass-through command that stays put gives the last result again (it is most of a
    standing cycle's cost); the wish moving, new foot states or a QP cycle in between are seen."""
    b = standing(enable=False)
    wish = posture(MODEL, "StandInit")
    first = b.step(wish)
    again = b.step(wish)
    assert again is first  # nothing moved: the same result
    wish[MODEL.joint_index("LKneePitch")] += 0.2  # the wish moves: a new command, COM and margin
    moved = b.step(wish)
    assert moved is not first and moved.q[MODEL.joint_index("LKneePitch")] > first.q[MODEL.joint_index("LKneePitch")] - 1e-12
    for _ in range(40):
        moved = b.step(wish)
    fresh = standing(enable=False)
    fresh.reset(b.q.copy())
    expected = fresh.step(b.q.copy())
    assert moved.com_world_m == pytest.approx(expected.com_world_m, abs=1e-9)
    assert moved.com_margin_m == pytest.approx(expected.com_margin_m, abs=1e-9)
    b.apply(WholeBodySettings(right_foot=FootState.FREE))  # new feet: a new polygon
    lifted = b.step(wish)
    assert lifted is not moved and lifted.com_margin_m != pytest.approx(moved.com_margin_m)
    b.set_enabled(True)
    b.step(wish)  # a QP cycle moves the command
    b.set_enabled(False)
    assert b.step(wish) is not lifted


def test_walk_references_move_the_com_and_the_swing_foot():
    b = standing(enable=False)
    left, right = sole_poses(b)
    com = b.step(b.q.copy()).com_world_m.copy()
    com_ref = com + [0.0, 0.02, -0.005]  # over toward the left foot, a little lower
    lifted = right.copy()
    lifted[:3, 3] += [0.01, 0.0, 0.01]
    for k in range(150):
        support = "Legs" if k < 50 else "LLeg"
        result = b.step(b.q.copy(), WalkReference(com_ref, left, lifted, support))
        assert result.mode is Mode.WALKING and result.outcome is Outcome.SOLVED
    feet = sole_poses(b)
    np.testing.assert_allclose(result.com_world_m, com_ref, atol=1e-3)
    np.testing.assert_allclose(feet[1][:3, 3], lifted[:3, 3], atol=1e-3)
    np.testing.assert_allclose(feet[0], left, atol=1e-6)  # the support foot stayed
    result = b.step(b.q.copy())  # no reference: the walk ended, pass-through again
    assert result.mode is Mode.PASS_THROUGH


def test_wb_enable_during_a_walk_keeps_the_walks_world_frame():
    """wbEnable(True) while the walk's references still come (a script enabling as moveTo
    returns): the balancer goes on in the walk's frame, and balances in it when the walk ends.
    Anchored at FRAME_ROBOT instead, the references, in the walk's frame, lay as far ahead as
    the robot had walked, and the COM was dragged there: the robot fell."""
    b = standing(enable=False)
    left, right = sole_poses(b)
    com = b.step(b.q.copy()).com_world_m.copy()
    stepped = right.copy()
    stepped[:3, 3] += [0.04, 0.0, 0.0]  # the right foot a step ahead: FRAME_ROBOT 2 cm ahead of W
    lifted = stepped.copy()
    lifted[2, 3] += 0.01
    over_left = com + [0.0, 0.03, -0.005]
    for k in range(260):
        swing = right if k < 40 else lifted if k < 110 else stepped  # lifted, moved, set down
        support = "LLeg" if 40 <= k < 160 else "Legs"
        b.step(b.q.copy(), WalkReference(over_left if k < 200 else com + [0.02, 0.0, -0.005], left, swing, support))
    robot_in_w = b.torso_world @ b.fk.ground_frame(b.fk.compute(b.q))
    assert robot_in_w[0, 3] == pytest.approx(0.02, abs=3e-3)  # the walk's frame is not FRAME_ROBOT now
    frame, command = b.torso_world.copy(), b.q.copy()
    b.set_enabled(True, q_measured=b.q + 0.2)  # far from the command: standing, it would restart there
    np.testing.assert_array_equal(b.torso_world, frame)
    np.testing.assert_array_equal(b.q, command)
    reference = com + [0.02, 0.0, -0.005]
    for _ in range(20):
        result = b.step(b.q.copy(), WalkReference(reference, left, stepped, "Legs"))
        assert result.mode is Mode.WALKING
    np.testing.assert_allclose(result.com_world_m, reference, atol=2e-3)
    b.apply(WholeBodySettings(balance_enabled=True, balance_support="Legs"))
    for _ in range(100):  # the walk ended: balancing, the feet held where they landed
        result = b.step(b.q.copy())
        assert result.mode is Mode.BALANCING and result.outcome is Outcome.SOLVED
    feet = sole_poses(b)
    np.testing.assert_allclose(feet[0][:3, 3], left[:3, 3], atol=1e-3)
    np.testing.assert_allclose(feet[1][:3, 3], stepped[:3, 3], atol=1e-3)
    np.testing.assert_allclose(result.com_world_m[:2], reference[:2], atol=5e-3)


def test_after_a_walk_the_legs_stay_where_it_left_them_until_their_wish_changes():
    """NAOqi: the legs keep the walk's pose; taken back to the wish from before the walk they
    would drag the feet, planted elsewhere now. Other joints go back to their wish; a leg wish
    that changes (a posture, moveInit) moves the legs again."""
    b = standing(enable=False)
    wish = b.q.copy()
    left, right = sole_poses(b)
    com = b.step(wish).com_world_m.copy()
    arm = MODEL.joint_index("LShoulderPitch")
    for _ in range(100):  # the COM lower, as the walk's
        b.step(wish, WalkReference(com + [0.0, 0.0, -0.01], left, right, "Legs"))
    walked = b.q.copy()
    legs = np.array([j.chain in ("LLeg", "RLeg") for j in MODEL.joints])
    assert np.max(np.abs(walked[legs] - wish[legs])) > 0.02
    wish[arm] += 0.1  # an arm whose wish moved meanwhile goes there
    for _ in range(100):
        result = b.step(wish)
        assert result.mode is Mode.PASS_THROUGH
    np.testing.assert_array_equal(b.q[legs], walked[legs])
    assert b.q[arm] == pytest.approx(wish[arm])
    knee = MODEL.joint_index("LKneePitch")
    wish[knee] = walked[knee] + 0.05  # a motion for the legs: they follow their wish again
    for _ in range(100):
        b.step(wish)
    assert b.q[knee] == pytest.approx(wish[knee])


def test_go_to_balance_moves_the_com_over_the_support_foot():
    b = standing()
    b.go_to_balance("RLeg", 1.0)
    for _ in range(int(1.5 / b.dt_s)):
        result = b.step(b.q.copy())
    polygon = support_polygon({"right": sole_poses(b)[1]}, ("right",), sole_corners_in_sole(MODEL))
    np.testing.assert_allclose(result.com_world_m[:2], polygon.centroid(), atol=1e-3)
    b.apply(WholeBodySettings(balance_enabled=True, balance_support="RLeg"))  # now allowed


def standing_walk_cycle(q: np.ndarray):
    """A WholeBodyCycle started at q, and a walk reference holding it there in double support."""
    from nao_motion.wholebody.cycle import WholeBodyCycle

    cycle = WholeBodyCycle(MODEL)
    cycle.start(q)
    b = cycle.balancer
    state = b.fk.compute(b.q)
    torso = np.linalg.inv(b.fk.ground_frame(state))
    left, right = (torso @ b.fk.pose(state, f) for f in ("l_sole", "r_sole"))
    return cycle, WalkReference(torso[:3, :3] @ state.com_torso_m + torso[:3, 3], left, right, "Legs")


def test_the_walks_ankle_damping_never_commands_an_ankle_past_its_limit():
    """WholeBodyCycle: the gyro's ankle damping goes on top of the balancer's command; an ankle
    the balancer left at its limit stays at it (the fuzz flood saw LAnkleRoll 8 mrad past it)."""
    q = posture(MODEL, "StandInit")
    roll = MODEL.joint_index("LAnkleRoll")
    q[roll] = MODEL.lower[roll]
    cycle, walk = standing_walk_cycle(q)
    for gyro in ([-20.0, -20.0, 0.0], [20.0, 20.0, 0.0]):
        for _ in range(5):
            command = cycle.cycle(q, walk, q, np.array(gyro))
            assert np.all(command >= MODEL.lower - 1e-12) and np.all(command <= MODEL.upper + 1e-12)
    assert cycle.stabilizer.correction_rad[roll] != 0.0  # the damping was on


@pytest.mark.parametrize("driver, dependent, start, wish", [
    # AnkleRoll's upper bound falls 2.2 deg per deg of AnklePitch between -26 and -40 deg
    ("LAnklePitch", "LAnkleRoll", {"LAnklePitch": -0.45, "LAnkleRoll": 0.7}, {"LAnklePitch": -0.9}),
    ("RAnklePitch", "RAnkleRoll", {"RAnklePitch": -0.45, "RAnkleRoll": -0.7}, {"RAnklePitch": -0.9}),
    # HeadPitch's upper bound falls with |HeadYaw|
    ("HeadYaw", "HeadPitch", {"HeadYaw": 0.0, "HeadPitch": 0.5}, {"HeadYaw": 1.5}),
])
def test_passing_through_a_coupled_limit_moves_the_bounded_joint_no_faster_than_its_motor(driver, dependent, start,
                                                                                         wish):
    """Was: the driver stepped at its speed and the projection into the coupled range dragged
    the bounded joint along, up to three times its motor's speed (the bad-input flood's
    LAnkleRoll). Now the driver slows where the table is steep, and still gets to its wish."""
    b = standing(enable=False)
    q = b.q.copy()
    for name, value in start.items():
        q[MODEL.joint_index(name)] = value
    b.reset(q)
    target = b.q.copy()
    for name, value in wish.items():
        target[MODEL.joint_index(name)] = value
    i, j = MODEL.joint_index(driver), MODEL.joint_index(dependent)
    motor_step = MODEL.max_velocity[j] * b.dt_s
    for _ in range(300):
        before = b.q.copy()
        b.step(target)
        assert abs(b.q[j] - before[j]) <= 0.5 * motor_step + 1e-9  # the pass-through's speed: half the motor's
    assert b.q[i] == pytest.approx(target[i])


def test_the_walks_ankle_damping_changes_at_its_rate_and_fades_out_when_the_walk_ends():
    """Was: the damping followed the gyro at once and vanished at once when the walk's
    references stopped: the bad-input flood saw LAnkleRoll commanded 0.045 rad in a cycle (its
    motor: 0.042). A gyro that jumps, then no walk: every cycle's change of the command is the
    balancer's own plus at most ``max_rate_radps`` * dt."""
    from nao_motion.walk.stabilizer import StabilizerConfig
    q = posture(MODEL, "StandInit")
    cycle, walk = standing_walk_cycle(q)
    b = cycle.balancer
    ankles = [MODEL.joint_index(f"{side}Ankle{axis}") for side in "LR" for axis in ("Pitch", "Roll")]
    rate_step = StabilizerConfig().max_rate_radps * b.dt_s
    previous = cycle.cycle(q, walk, q, np.zeros(3)).copy()
    damped = []
    for walking, gyro in [(True, [2.0, -2.0, 0.0])] * 10 + [(True, [-2.0, 2.0, 0.0])] * 3 + [(False, None)] * 15:
        balancer_before = b.q.copy()
        command = cycle.cycle(q, walk if walking else None, q, None if gyro is None else np.array(gyro))
        own = np.abs(b.q - balancer_before)[ankles]
        assert np.all(np.abs(command - previous)[ankles] <= own + rate_step + 1e-12)
        damped.append(np.abs(command - b.q)[ankles].max())
        previous = command.copy()
    assert max(damped) == pytest.approx(StabilizerConfig().max_correction_rad)  # the damping was on, bounded
    assert damped[-1] == 0.0  # and faded out after the walk


def swing_joint_steps(speed_mps: float, rate_radps: float) -> tuple[float, float]:
    """The legs' largest joint step per cycle, as a fraction of each joint's no-load step, while
    the right foot's reference, lifted, moves forward 0.08 m at ``speed_mps`` and turns at
    ``rate_radps`` with the left foot supporting: (right leg, left leg without the shared hip
    yaw-pitch)."""
    b = standing(enable=False)
    left, right = sole_poses(b)
    com = b.step(b.q.copy()).com_world_m.copy()
    com_ref = left[:3, 3] + [0.0, -0.02, com[2] - 0.005]  # over the left foot
    lifted = right.copy()
    lifted[:3, 3] += [-0.04, 0.0, 0.015]
    for k in range(120):  # over to the left foot, the right one lifted and back
        b.step(b.q.copy(), WalkReference(com_ref, left, lifted, "Legs" if k < 60 else "LLeg"))
    chain = {leg: np.array([j.chain == leg for j in MODEL.joints]) for leg in ("LLeg", "RLeg")}
    chain["LLeg"][MODEL.joint_index("LHipYawPitch")] = False
    no_load_step = MODEL.max_velocity * b.dt_s
    worst = {leg: 0.0 for leg in chain}
    moved = lifted.copy()
    cycles = round(0.08 / (speed_mps * b.dt_s))
    for k in range(1, cycles + 1):
        moved[:3, :3] = spatial.rot_z(-rate_radps * b.dt_s * k) @ lifted[:3, :3]  # toes in, the free way
        moved[0, 3] += speed_mps * b.dt_s
        before = b.q.copy()
        result = b.step(b.q.copy(), WalkReference(com_ref, left, moved.copy(), "LLeg"))
        assert result.mode is Mode.WALKING
        for leg, joints in chain.items():
            worst[leg] = max(worst[leg], float(np.max(np.abs(result.q - before)[joints] / no_load_step[joints])))
    return worst["RLeg"], worst["LLeg"]


def test_a_fast_swing_foot_reference_lets_the_swing_leg_go_faster():
    """NAOqi's maximum steps need the swing leg faster than the balancer's joint speed limit
    (``swing_speed``): a swing foot's reference faster than ``walk_swing_speed_mps`` or
    ``walk_swing_rate_radps`` raises the swing leg's limit with it, up to
    ``walk_max_velocity_fraction``; the stance leg, and a swing as slow as the default gait's,
    keep ``max_velocity_fraction``."""
    cfg = BalancerConfig()
    fast_swing, fast_stance = swing_joint_steps(0.6, 1.6 * cfg.walk_swing_rate_radps)
    assert fast_swing > cfg.max_velocity_fraction + 0.05  # the old limit clipped it at 0.5
    assert fast_swing <= cfg.walk_max_velocity_fraction + 1e-6
    assert fast_stance <= cfg.max_velocity_fraction + 1e-6
    slow_swing, slow_stance = swing_joint_steps(0.3, 0.8 * cfg.walk_swing_rate_radps)
    assert max(slow_swing, slow_stance) <= cfg.max_velocity_fraction + 1e-6


def test_a_repeated_swing_reference_keeps_the_swing_legs_speed_limit():
    """Deployed, the walk's reference for a cycle now and then comes late and the whole body
    repeats the last one: that is no stop of the foot. The swing leg's raised limit must hold
    through it (dropping to the base limit every such cycle made MaxStepX 0.08 fall through the
    suite while it walked in process)."""
    from nao_motion.wholebody.context import FRAMES, WholeBodyContext
    from nao_motion.wholebody.swing_speed import SwingSpeedLimit

    cfg = BalancerConfig()
    ctx = WholeBodyContext(MODEL, cfg, MODEL.cycle_time_s, FloatingBaseJacobians(ForwardKinematics(MODEL), FRAMES))
    limit = SwingSpeedLimit(MODEL, ctx)
    step_m = 1.5 * cfg.walk_swing_speed_mps * MODEL.cycle_time_s  # 1.5 times the nominal swing's speed
    poses = [spatial.transform(np.eye(3), (i * step_m, 0.1, 0.02)) for i in range(3)]
    fractions = [limit.update("left", pose) for pose in (poses[0], poses[1], poses[1], poses[2])]
    assert fractions[1] == pytest.approx(0.75)
    assert fractions[2] == pytest.approx(fractions[1])  # the repeat keeps it
    assert fractions[3] == pytest.approx(0.75)
    assert limit.update(None, None) == cfg.max_velocity_fraction  # no swing: the base


def test_swing_velocity_fraction_scales_with_the_foot_speed_within_its_bounds():
    from nao_motion.wholebody.swing_speed import swing_velocity_fraction
    assert swing_velocity_fraction(0.5, 0.75, 0.3, 1.0, 0.45, 3.4) == 0.5  # slower than nominal
    assert swing_velocity_fraction(0.5, 0.75, 0.54, 1.0, 0.45, 3.4) == pytest.approx(0.6)
    assert swing_velocity_fraction(0.5, 0.75, 0.1, 4.08, 0.45, 3.4) == pytest.approx(0.6)  # the turn
    assert swing_velocity_fraction(0.5, 0.75, 2.0, 1.0, 0.45, 3.4) == 0.75
    assert swing_velocity_fraction(0.8, 0.75, 2.0, 1.0, 0.45, 3.4) == 0.8  # never below the base
