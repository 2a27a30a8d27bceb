"""The collision filter against declared obstacles (core, in process), judged by ground truth: the
distance from the arm's capsules, placed by the forward kinematics, to the obstacle sphere,
computed here shape by shape (not the filter's batched distances)."""

import numpy as np
import pytest

from nao_motion.body_shapes import body_capsules
from nao_motion.collision.avoidance import CollisionAvoidance, Outcome
from nao_motion.collision.distance import capsule_capsule_distance
from nao_motion.model import NaoModel
from nao_motion.postures import posture

RADIUS_M = 0.03


@pytest.fixture(scope="module")
def setup():
    model = NaoModel("V5")
    stand = posture(model, "StandInit")
    target = stand.copy()
    target[model.joint_index("LShoulderPitch")] = 0.0  # the left arm raised straight forward
    return model, stand, target


def arm_to_sphere_m(fk, q, centre) -> float:
    """Ground truth: the closest left-arm capsule to the sphere."""
    state = fk.compute(q)
    best = np.inf
    for shape in body_capsules(fk.model):
        if shape.group != "l_arm":
            continue
        pose = fk.pose(state, shape.link)
        p, q_end = (pose[:3, :3] @ np.asarray(end) + pose[:3, 3] for end in (shape.p_m, shape.q_m))
        best = min(best, float(capsule_capsule_distance(p, q_end, shape.radius_m, centre, centre, RADIUS_M).distance_m))
    return best


def run(model, stand, target, centre, cycles=200):
    avoidance = CollisionAvoidance(model)
    avoidance.reset(stand)
    slots = avoidance.obstacles
    slots.p_m[0] = slots.q_m[0] = centre
    slots.radius_m[0], slots.used[0] = RADIUS_M, True
    commands = []
    for _ in range(cycles):
        result = avoidance.step(target)
        assert result.outcome is not Outcome.HELD, result.reason
        commands.append(result.q.copy())
    return avoidance, result, commands


def test_an_arm_commanded_through_an_obstacle_stops_at_the_margin(setup):
    model, stand, target = setup
    avoidance = CollisionAvoidance(model)
    fk, margin = avoidance.fk, avoidance.config.margin_m
    hand = fk.pose(fk.compute(target), "l_gripper")[:3, 3]  # the obstacle where the hand is sent
    avoidance, result, commands = run(model, stand, target, hand)
    truth = [arm_to_sphere_m(fk, q, hand) for q in commands]
    assert arm_to_sphere_m(fk, stand, hand) > 0.05
    assert min(truth) >= 0.5 * margin - 1e-4  # the checked step's floor: never touching
    assert truth[-1] == pytest.approx(margin, abs=1e-3)  # it rests at the margin
    assert np.abs(commands[-1] - target).max() > 0.1  # short of the target
    np.testing.assert_allclose(commands[-1], commands[-2], atol=1e-6)  # and stays there
    assert result.closest_obstacle_m == pytest.approx(truth[-1], abs=1e-9)


def test_the_same_target_beside_an_obstacle_is_reached(setup):
    model, stand, target = setup
    avoidance = CollisionAvoidance(model)
    fk = avoidance.fk
    beside = fk.pose(fk.compute(target), "l_gripper")[:3, 3] + (0.0, 0.15, 0.0)
    _, result, commands = run(model, stand, target, beside)
    assert min(arm_to_sphere_m(fk, q, beside) for q in commands) > avoidance.config.margin_m
    np.testing.assert_allclose(commands[-1], target, atol=1e-9)


def test_an_obstacle_on_the_way_is_gone_around_when_the_target_is_clear(setup):
    """The sphere where the hand passes halfway: the other arm joints turn it aside (the wish's
    closest safe command), then the target is reached."""
    model, stand, target = setup
    avoidance = CollisionAvoidance(model)
    fk = avoidance.fk
    halfway = stand.copy()
    halfway[model.joint_index("LShoulderPitch")] = 0.6
    centre = fk.pose(fk.compute(halfway), "l_gripper")[:3, 3]
    _, result, commands = run(model, stand, target, centre, cycles=300)
    truth = [arm_to_sphere_m(fk, q, centre) for q in commands]
    assert min(truth) >= 0.5 * avoidance.config.margin_m - 1e-4
    np.testing.assert_allclose(commands[-1], target, atol=1e-6)


def test_without_obstacles_the_rows_stay_off(setup):
    model, stand, target = setup
    avoidance = CollisionAvoidance(model)
    avoidance.reset(stand)
    result = avoidance.step(target)
    assert result.closest_obstacle_m == np.inf
