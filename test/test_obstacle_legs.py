"""The legs against declared obstacles while the whole body is disabled and not walking (its
pass-through: the collision filter keeps the arms, the legs were unprotected). In process, the
whole-body node's core (``WholeBodyCycle``), judged by ground truth: the leg capsules placed by
the forward kinematics of the command, against the sphere, shape by shape."""

import numpy as np
import pytest

from nao_motion.body_shapes import body_capsules
from nao_motion.collision.distance import capsule_capsule_distance
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.wholebody.balancer import Mode
from nao_motion.wholebody.cycle import WholeBodyCycle

MODEL = NaoModel()
RADIUS_M = 0.03
LEG_SHAPES = [s for s in body_capsules(MODEL) if s.group in ("l_leg", "r_leg", "l_foot", "r_foot")]


def legs_to_sphere_m(fk, q, centre) -> float:
    state, best = fk.compute(q), np.inf
    for shape in LEG_SHAPES:
        pose = fk.pose(state, shape.link)
        p, q_end = (pose[:3, :3] @ np.asarray(end) + pose[:3, 3] for end in (shape.p_m, shape.q_m))
        best = min(best, float(capsule_capsule_distance(p, q_end, shape.radius_m, centre, centre,
                                                        RADIUS_M).distance_m))
    return best


def left_foot_at(fk, q) -> np.ndarray:
    """The middle of the left foot's capsule (torso frame) at q."""
    shape = next(s for s in LEG_SHAPES if s.name == "l_foot")
    pose = fk.pose(fk.compute(q), shape.link)
    return pose[:3, :3] @ (0.5 * (np.asarray(shape.p_m) + np.asarray(shape.q_m))) + pose[:3, 3]


def run(wish, centre, cycles=200, start=None):
    """The disabled whole body passing `wish` through with a sphere at `centre` (torso frame;
    None: none); the commands and the ground-truth distances (to `centre` when given)."""
    core = WholeBodyCycle(MODEL)
    core.start(posture(MODEL, "StandInit") if start is None else start)
    if centre is not None:
        slots = core.balancer.obstacles
        slots.p_m[0] = slots.q_m[0] = centre
        slots.radius_m[0], slots.used[0] = RADIUS_M, 1.0
    commands, truth = [], []
    for _ in range(cycles):
        command = core.cycle(wish)
        assert core.result.mode is Mode.PASS_THROUGH
        commands.append(command.copy())
        if centre is not None:
            truth.append(legs_to_sphere_m(core.balancer.fk, command, centre))
    return core, np.array(commands), truth


def kick_wish():
    """StandInit with the left leg swung forward (hip flexed, knee stretched: a kick)."""
    wish = posture(MODEL, "StandInit")
    wish[MODEL.joint_index("LHipPitch")] = -0.9
    wish[MODEL.joint_index("LKneePitch")] = 0.3
    return wish


def test_a_leg_commanded_into_an_obstacle_stops_at_the_margin():
    wish = kick_wish()
    fk = WholeBodyCycle(MODEL).balancer.fk
    centre = left_foot_at(fk, wish)  # the sphere where the foot is sent
    core, commands, truth = run(wish, centre)
    margin = core.balancer.config.obstacle_margin_m
    assert truth[0] > 0.03
    assert min(truth) >= margin - 2e-4  # never closer than the margin (up to the rows' linearisation)
    assert truth[-1] == pytest.approx(margin, abs=1e-3)  # resting against it
    hip = MODEL.joint_index("LHipPitch")
    assert commands[-1, hip] > wish[hip] + 0.1  # well short of the wish
    assert "obstacle margin" in core.result.reason
    # Without the sphere the same wish is passed through.
    _, free, _ = run(wish, None)
    np.testing.assert_allclose(free[-1], MODEL.clip_to_limits(wish), atol=1e-9)


def test_a_leg_beside_an_obstacle_reaches_its_wish():
    wish = kick_wish()
    fk = WholeBodyCycle(MODEL).balancer.fk
    centre = left_foot_at(fk, wish) + (0.0, 0.25, 0.0)  # off to the side, out of the way
    core, commands, truth = run(wish, centre)
    assert min(truth) > core.balancer.config.obstacle_margin_m
    np.testing.assert_allclose(commands[-1], MODEL.clip_to_limits(wish), atol=1e-9)


def test_an_obstacle_declared_where_a_leg_is_holds_it_from_going_deeper_but_lets_it_out():
    start = posture(MODEL, "StandInit")
    fk = WholeBodyCycle(MODEL).balancer.fk
    centre = left_foot_at(fk, start) + (0.06, 0.0, 0.0)  # overlapping the foot's toes
    assert legs_to_sphere_m(fk, start, centre) < 0.0
    into = kick_wish()  # the foot forward: deeper into the sphere
    core, commands, truth = run(into, centre, cycles=100)
    assert min(truth) >= truth[0] - 2e-4  # no deeper
    out = start.copy()
    out[MODEL.joint_index("LHipPitch")] += 0.4  # the leg back: out of it
    core, commands, truth = run(out, centre, cycles=100)
    assert truth[-1] > truth[0] + 0.01
    np.testing.assert_allclose(commands[-1], MODEL.clip_to_limits(out), atol=1e-9)
