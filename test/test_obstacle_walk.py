"""Walking with an obstacle in a swinging arm's way: the in-process walk chain
(``sim.walking.SimulatedWalk``: the planner, walk, collision filter and whole-body cores the nodes
call, on the MuJoCo NAO) walks moveTo(0.3, 0, 0) with the arm swing on and a sphere declared
(torso frame) where the left forearm's forward swing would go. Judged by ground truth: the
simulator's measured joints placed by the forward kinematics, the arm's capsules against the
sphere, shape by shape; and the true torso's motion for the walk."""

import numpy as np
import pytest

pytest.importorskip("mujoco")

from nao_motion.body_shapes import body_capsules  # noqa: E402
from nao_motion.collision.distance import capsule_capsule_distance  # noqa: E402
from nao_motion.collision.obstacles import Obstacle  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.sim.walking import SimulatedWalk  # noqa: E402
from nao_motion.walk.controller import WalkState  # noqa: E402

MODEL = NaoModel()
RADIUS_M = 0.03
ARM_SHAPES = [s for s in body_capsules(MODEL) if s.group == "l_arm"]
FOREARM = next(s for s in ARM_SHAPES if s.name == "l_forearm")
PITCH = MODEL.joint_index("LShoulderPitch")
CYCLES = 900  # 9 s: the walk is over (about 6 s) and the robot stands again


def arm_to_sphere_m(fk, q, centre) -> float:
    state, best = fk.compute(q), np.inf
    for shape in ARM_SHAPES:
        pose = fk.pose(state, shape.link)
        p, q_end = (pose[:3, :3] @ np.asarray(end) + pose[:3, 3] for end in (shape.p_m, shape.q_m))
        best = min(best, float(capsule_capsule_distance(p, q_end, shape.radius_m, centre, centre,
                                                        RADIUS_M).distance_m))
    return best


def walk_past(centre, declared: bool):
    """moveTo(0.3, 0, 0) with the sphere at `centre` (torso frame) declared or not; the walk and
    the ground-truth distances and shoulder pitches of every cycle."""
    walk = SimulatedWalk(MODEL)
    if declared:
        walk.obstacles.declare(Obstacle(("test", 0), "torso", tuple(centre), tuple(centre), RADIUS_M))
    walk.planner.move_to(0.3, 0.0, 0.0)
    fk = walk.balancer.fk
    distances, pitches = [], []
    for _ in range(CYCLES):
        walk.cycle()
        distances.append(arm_to_sphere_m(fk, walk.state.position, centre))
        pitches.append(walk.state.position[PITCH])
    return walk, np.array(distances), np.array(pitches)


@pytest.fixture(scope="module")
def undeclared():
    """The walk without the obstacle, and where the forearm's end swings forward to."""
    walk = SimulatedWalk(MODEL)
    fk = walk.balancer.fk
    q = walk.state.position.copy()
    walk.planner.move_to(0.3, 0.0, 0.0)
    pitches = []
    for _ in range(CYCLES):
        walk.cycle()
        pitches.append(walk.state.position[PITCH])
    # The sphere on the forearm end's arc 0.2 rad beyond its most forward swing (its centre
    # within the capsule's reach there: the swing would run 2 cm into it).
    q[PITCH] = min(pitches) - 0.2
    pose = fk.pose(fk.compute(q), FOREARM.link)
    centre = pose[:3, :3] @ np.asarray(FOREARM.q_m) + pose[:3, 3]
    return walk, centre


def test_the_swing_would_run_into_the_sphere_without_it_declared(undeclared):
    walk, centre = undeclared
    _, distances, _ = walk_past(centre, declared=False)
    assert distances.min() < -0.01


def test_a_swinging_arm_keeps_clear_of_an_obstacle_while_the_walk_reaches_its_goal(undeclared):
    free, centre = undeclared
    walk, distances, pitches = walk_past(centre, declared=True)
    margin = walk.filter.avoidance.config.margin_m
    moved = walk.true_moved()
    print(f"closest {distances.min() * 1e3:.2f} mm, moved ({moved.x:.3f}, {moved.y:.3f}) m, "
          f"worst tilt {walk.worst_tilt_deg:.1f} deg, pitch {pitches.min():.3f} rad")
    assert distances.min() > 0.0  # never touching it (measured joints, servo lag included)
    assert distances.min() < margin + 0.01  # it was in the way: the arm stopped near the margin
    assert walk.controller.outputs.state is WalkState.IDLE  # the walk is over
    assert moved.x == pytest.approx(0.3, abs=0.03) and abs(moved.y) < 0.03
    assert walk.worst_tilt_deg < 6.0  # test_walk_sim's bound for the in-process chain: no fall
    np.testing.assert_allclose(walk.planned_moved().x, free.planned_moved().x, atol=1e-3)
