"""The collision filter's input side: target and trajectory validation, and the per-cycle wish."""

import numpy as np
import pytest

from nao_motion.collision.reference import JointReference, parse_targets, parse_trajectory
from nao_motion.joint_input import JointInputError
from nao_motion.model import NaoModel
from nao_motion.postures import posture

MODEL = NaoModel()
ARM = ["LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll"]
IDX = [MODEL.joint_index(n) for n in ARM]


@pytest.mark.parametrize("names, positions, velocities, reason", [
    ([], [], [], "no joint names"),
    (["LShoulderPitch", "Tail"], [0.1, 0.2], [], "unknown joint names"),
    (["LShoulderPitch", "LShoulderPitch"], [0.1, 0.2], [], "duplicate"),
    (["LShoulderPitch", "LElbowYaw"], [0.1], [], "2 joint names but 1 position"),
    (["LShoulderPitch"], [float("nan")], [], "non-finite"),
    (["LShoulderPitch"], [0.1], [1.0, 2.0], "1 joint names but 2 velocity"),
    (["LShoulderPitch"], [0.1], [0.0], "velocities must be finite and > 0"),
    (["LShoulderPitch"], [0.1], [float("inf")], "velocities must be finite and > 0"),
])
def test_malformed_targets_are_refused_with_the_reason(names, positions, velocities, reason):
    with pytest.raises(JointInputError, match=reason):
        parse_targets(MODEL, names, positions, velocities, 0.5)


def test_targets_are_clipped_and_speeds_default_to_the_fraction_or_capped_at_the_maximum():
    t = parse_targets(MODEL, ["LElbowRoll", "HeadYaw"], [-3.0, 0.2], [], 0.5)
    assert t.positions[0] == MODEL.lower[MODEL.joint_index("LElbowRoll")]
    np.testing.assert_allclose(t.speeds_rps, 0.5 * MODEL.max_velocity[t.indices])
    t = parse_targets(MODEL, ["LElbowRoll", "HeadYaw"], [-1.0, 0.2], [1.0, 100.0], 0.5)
    np.testing.assert_allclose(t.speeds_rps, [1.0, MODEL.max_velocity[MODEL.joint_index("HeadYaw")]])


@pytest.mark.parametrize("names, times, points, reason", [
    (ARM, [], [], "no trajectory points"),
    ([], [1.0], [[]], "no joint names"),
    (ARM, [1.0, 0.5], [[0, 0, 0, -1], [0, 0, 0, -1]], "goes backwards at point 1"),
    (ARM, [1.0, 1.0], [[0, 0, 0, -1], [0, 0, 0, -1]], "goes backwards at point 1"),
    (ARM, [-1.0], [[0, 0, 0, -1]], "finite and >= 0"),
    (ARM, [float("nan")], [[0, 0, 0, -1]], "finite and >= 0"),
    (ARM + ["Tail"], [1.0], [[0, 0, 0, -1, 0]], "point 0: unknown joint names"),
    (ARM, [1.0, 2.0], [[0, 0, 0, -1], [0, 0, -1]], "point 1: 4 joint names but 3 position"),
    (ARM, [1.0], [[0, 0, float("nan"), -1]], "point 0: non-finite position"),
])
def test_malformed_trajectories_are_refused_with_the_reason(names, times, points, reason):
    with pytest.raises(JointInputError, match=reason):
        parse_trajectory(MODEL, names, times, points)


def test_targets_move_in_a_straight_line_all_joints_arriving_together():
    start = posture(MODEL, "StandInit")
    reference = JointReference(MODEL)
    reference.reset(start)
    goal = np.array([0.5, 0.1, -1.0, -0.5])
    targets = parse_targets(MODEL, ARM, goal, [], 0.5)
    duration = reference.move_to(targets, start, 10.0)
    slowest = np.max(np.abs(goal - start[IDX]) / (0.5 * MODEL.max_velocity[IDX]))
    assert duration == pytest.approx(slowest)
    half = reference.sample(10.0 + duration / 2).copy()
    np.testing.assert_allclose(half[IDX], (start[IDX] + goal) / 2, atol=1e-12)
    others = [i for i in range(MODEL.n_joints) if i not in IDX]
    np.testing.assert_array_equal(half[others], start[others])
    np.testing.assert_allclose(reference.sample(10.0 + duration + 1.0)[IDX], goal)
    assert not reference.moving


def test_trajectories_interpolate_from_the_current_command_and_newer_motions_take_over():
    start = posture(MODEL, "StandInit")
    reference = JointReference(MODEL)
    reference.reset(start)
    trajectory = parse_trajectory(MODEL, ARM, [1.0, 2.0], [[0.0, 0.0, 0.0, -1.0], [1.0, 0.2, 0.0, -0.5]])
    assert reference.follow(trajectory, start, 0.0) == 2.0
    np.testing.assert_allclose(reference.sample(0.5)[IDX], (start[IDX] + [0.0, 0.0, 0.0, -1.0]) / 2)
    np.testing.assert_allclose(reference.sample(1.5)[IDX], [0.5, 0.1, 0.0, -0.75])
    # A target for one of the joints takes it over; the trajectory keeps the others.
    elbow = parse_targets(MODEL, ["LElbowRoll"], [-0.2], [100.0], 1.0)
    reference.move_to(elbow, reference.q, 1.5)
    q = reference.sample(3.0)
    np.testing.assert_allclose(q[IDX], [1.0, 0.2, 0.0, -0.2])
    # Held (limp) joints wish their measured value and drop out of motions.
    reference.follow(trajectory, q, 3.0)
    hold = np.zeros(MODEL.n_joints, dtype=bool)
    hold[IDX[0]] = True
    measured = np.full(MODEL.n_joints, 0.7)
    q = reference.sample(4.5, hold, measured)
    assert q[IDX[0]] == 0.7 and q[IDX[1]] == pytest.approx(0.1)
    assert reference.sample(6.0)[IDX[0]] == 0.7
