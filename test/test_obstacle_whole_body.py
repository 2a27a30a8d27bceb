"""The whole-body balancer against declared obstacles (core, in process): effector control toward
a point inside an obstacle ends at the closest feasible point, beside it reaches the target;
judged by ground truth (the arm's capsules placed by the forward kinematics, against the sphere
fixed in the world, shape by shape)."""

import numpy as np
import pytest
from closest_feasible import closest_feasible_gap_m

from nao_motion import spatial
from nao_motion.body_shapes import body_capsules
from nao_motion.collision.distance import capsule_capsule_distance
from nao_motion.kinematics import FRAME_ROBOT, FRAME_TORSO
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.wholebody.balancer import Outcome, WholeBodyBalancer, WholeBodySettings

MODEL = NaoModel()
RADIUS_M = 0.03


def limbs_to_sphere_m(b, centre_world) -> float:
    state = b.fk.compute(b.q)
    best = np.inf
    for shape in body_capsules(MODEL):
        if shape.group not in ("l_arm", "r_arm", "l_leg", "r_leg", "l_foot", "r_foot"):
            continue
        pose = b.torso_world @ b.fk.pose(state, shape.link)
        p, q = (pose[:3, :3] @ np.asarray(end) + pose[:3, 3] for end in (shape.p_m, shape.q_m))
        best = min(best, float(capsule_capsule_distance(p, q, shape.radius_m, centre_world, centre_world,
                                                        RADIUS_M).distance_m))
    return best


def reach_with_sphere(offset_m, sphere_offset_m, cycles=400):
    """LArm effector control to start + offset (FRAME_ROBOT) with a sphere at start + sphere_offset
    (None: no sphere), fixed in the world (written in the torso frame every cycle, as the node does
    from TF). Returns (balancer, ground-truth distances, target in FRAME_ROBOT)."""
    b = WholeBodyBalancer(MODEL)
    b.reset(posture(MODEL, "StandInit"))
    b.apply(WholeBodySettings(effectors=frozenset({"LArm"})))
    b.set_enabled(True)
    start = b.fk.position_in_space(b.fk.compute(b.q), "LArm", FRAME_ROBOT)[:3]
    robot = b.torso_world @ b.fk.ground_frame(b.fk.compute(b.q), b.torso_world[:3, :3])
    centre_world = None if sphere_offset_m is None else robot[:3, :3] @ (start + sphere_offset_m) + robot[:3, 3]
    target = start + np.asarray(offset_m)
    b.set_effector_target("LArm", target)
    wish = b.q.copy()
    truth = []
    for _ in range(cycles):
        if centre_world is not None:
            centre = spatial.inverse(b.torso_world) @ np.append(centre_world, 1.0)
            b.obstacles.p_m[0] = b.obstacles.q_m[0] = centre[:3]
            b.obstacles.radius_m[0], b.obstacles.used[0] = RADIUS_M, True
        result = b.step(wish)
        assert result.outcome is not Outcome.HELD, result.reason
        if centre_world is not None:
            truth.append(limbs_to_sphere_m(b, centre_world))
    return b, truth, target


def end_gap_and_closest_feasible_m(b, target_robot, sphere_offset_m):
    """The hand's distance to the target at the balancer's command, and the closest feasible
    one (``closest_feasible``), in the command's torso frame; the target and the sphere as
    reach_with_sphere placed them (FRAME_ROBOT of the start, fixed in the world)."""
    start = WholeBodyBalancer(MODEL)
    start.reset(posture(MODEL, "StandInit"))
    state = start.fk.compute(start.q)
    robot_world = start.torso_world @ start.fk.ground_frame(state, start.torso_world[:3, :3])
    hand_start = start.fk.position_in_space(state, "LArm", FRAME_ROBOT)[:3]
    torso_from_world = spatial.inverse(b.torso_world)
    target, centre = (torso_from_world @ robot_world @ np.append(p, 1.0) for p in
                      (target_robot, hand_start + sphere_offset_m))
    q = b.q.copy()
    gap = float(np.linalg.norm(b.fk.position_in_space(b.fk.compute(q), "LArm", FRAME_TORSO)[:3] - target[:3]))
    return gap, closest_feasible_gap_m(b.fk, q, target[:3], centre[:3], RADIUS_M, b.config.obstacle_margin_m)


def hand(b):
    return b.fk.position_in_space(b.fk.compute(b.q), "LArm", FRAME_ROBOT)[:3]


def test_effector_control_to_a_point_inside_an_obstacle_ends_at_the_closest_feasible_point():
    offset = np.array([0.08, 0.0, 0.05])
    b, truth, target = reach_with_sphere(offset, offset)
    margin = b.config.obstacle_margin_m
    assert truth[0] > 0.02
    assert min(truth) >= margin - 2e-4  # never closer than the margin (up to the rows' linearisation)
    assert truth[-1] == pytest.approx(margin, abs=5e-4)  # resting against the margin
    # Closest feasible: no pose of the arm (the body where it ended) brings the hand closer to
    # the target while keeping the margin (the reference: SLSQP from several starts).
    gap, best = end_gap_and_closest_feasible_m(b, target, offset)
    print(f"hand {gap * 1e3:.2f} mm from the target, closest feasible {best * 1e3:.2f} mm")
    assert best > 0.03  # the target is well behind the sphere
    assert gap == pytest.approx(best, abs=1e-3)
    free, _, _ = reach_with_sphere(offset, None)
    assert np.linalg.norm(hand(free) - target) < 1e-3  # reached without the obstacle


def test_effector_control_beside_an_obstacle_reaches_the_target():
    offset = np.array([0.08, 0.0, 0.05])
    b, truth, target = reach_with_sphere(offset, offset + (0.0, 0.12, 0.0))
    assert min(truth) > b.config.obstacle_margin_m
    assert np.linalg.norm(hand(b) - target) < 1e-3


def test_effector_control_around_an_obstacle_on_the_way():
    """The sphere over the hand's way, the target clear of it: the task's null space (5 arm joints
    and the legs for 3 coordinates) takes the arm under it, and the target is reached."""
    offset = np.array([0.10, 0.0, 0.0])
    b, truth, target = reach_with_sphere(offset, np.array([0.05, 0.0, 0.07]), cycles=500)
    assert min(truth) >= b.config.obstacle_margin_m - 2e-4
    assert min(truth) < b.config.obstacle_margin_m + 1e-3  # the sphere was in the way
    assert np.linalg.norm(hand(b) - target) < 1e-3


def test_the_obstacle_rows_leave_the_problem_while_no_obstacle_is_declared():
    """A sphere declared far away (cycles 50-149: its rows in the problem, all inactive) changes
    nothing but the rows OSQP solves: the commands are the ones without it, to solver tolerance,
    across both switches (the warm start carried over)."""
    runs = []
    for declared in (range(0), range(50, 150)):
        b = WholeBodyBalancer(MODEL)
        b.reset(posture(MODEL, "StandInit"))
        b.apply(WholeBodySettings(effectors=frozenset({"LArm"})))
        b.set_enabled(True)
        b.set_effector_target("LArm", b.fk.position_in_space(b.fk.compute(b.q), "LArm", FRAME_ROBOT)[:3]
                              + [0.08, 0.0, 0.05])
        wish, commands, solved_rows = b.q.copy(), [], []
        for k in range(200):
            b.obstacles.p_m[0] = b.obstacles.q_m[0] = (2.0, 0.0, 0.0)
            b.obstacles.radius_m[0], b.obstacles.used[0] = RADIUS_M, k in declared
            result = b.step(wish)
            assert result.outcome is Outcome.SOLVED, result.reason
            commands.append(result.q.copy())
            solved_rows.append(b.qp.solver.m_solved)
        runs.append((np.array(commands), solved_rows))
    (without, rows_without), (with_far, rows_with) = runs
    m_all = b.qp.m
    assert set(rows_without) == {m_all - b.qp.obstacles.n_rows}
    assert rows_with[49] == rows_with[150] == m_all - b.qp.obstacles.n_rows and rows_with[50] == rows_with[149] == m_all
    assert np.max(np.abs(with_far - without)) < 1e-5
