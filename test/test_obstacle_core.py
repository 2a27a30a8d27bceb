"""Obstacles outside the body: the clearance rows, the obstacle set, and seed 002's planar example
(judged by ground-truth distances computed here, not by the solver's own)."""

import numpy as np
import pytest

from nao_motion.collision.obstacles import MAX_OBSTACLES, NormalRates, Obstacle, ObstacleSet, ObstacleSlots
from nao_motion.collision.planar_chain import Circle, reach_among_circles

SEED_LINKS = [10.0, 10.0, 10.0]
SEED_START = [0.2, -0.4, 0.2]
SEED_TARGET = (20.0, 10.0)
SEED_CIRCLES = [Circle((12.0, 8.0), 5.0), Circle((15.0, -4.0), 2.0)]


def arm_points(links, q):
    angles = np.cumsum(q)
    xs = np.concatenate([[0.0], np.cumsum(np.multiply(links, np.cos(angles)))])
    ys = np.concatenate([[0.0], np.cumsum(np.multiply(links, np.sin(angles)))])
    return np.stack([xs, ys], axis=1)


def seed_distance(links, q, circles) -> float:
    """Seed 002's Circle.closest_points for every link, signed (< 0: the link enters the circle)."""
    points, best = arm_points(links, q), np.inf
    for c in circles:
        centre = np.asarray(c.centre, dtype=float)
        for a, b in zip(points[:-1], points[1:]):
            t = np.clip((centre - a) @ (b - a) / ((b - a) @ (b - a)), 0.0, 1.0)
            best = min(best, float(np.linalg.norm(a + t * (b - a) - centre)) - c.radius)
    return best


def test_seed_example_without_avoidance_passes_through_a_circle():
    result = reach_among_circles(SEED_LINKS, SEED_START, SEED_TARGET, SEED_CIRCLES, avoid=False)
    assert result.reached
    # Ground truth along the path: the links cross the big circle.
    qs = _replay(result)
    assert min(seed_distance(SEED_LINKS, q, SEED_CIRCLES) for q in qs) < 0.0


def test_seed_example_with_avoidance_reaches_the_target_and_never_touches_a_circle():
    result = reach_among_circles(SEED_LINKS, SEED_START, SEED_TARGET, SEED_CIRCLES, avoid=True, margin=0.1)
    assert result.reached
    end = arm_points(SEED_LINKS, result.q)[-1]
    assert np.linalg.norm(end - SEED_TARGET) < 1e-3
    truth = [seed_distance(SEED_LINKS, q, SEED_CIRCLES) for q in _replay(result)]
    assert min(truth) > 0.0
    assert min(truth) > 0.05  # the margin (0.1), up to the rows' linearisation
    np.testing.assert_allclose(truth, result.distance_trace, atol=1e-9)  # the core's own trace agrees


def _replay(result):
    """The configurations the reach went through (the trace's), re-run to check by ground truth."""
    qs = result.q_trace
    assert len(qs) == len(result.distance_trace)
    return qs


def test_normal_rates_match_finite_differences():
    rng = np.random.default_rng(1)
    axes = rng.normal(size=(3, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    origins, points, normals = rng.normal(size=(3, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    moves = rng.random((4, 3)) > 0.3
    rates = NormalRates(moves).compute(axes, origins, points, normals)
    expected = np.array([[moves[i, j] * normals[i] @ np.cross(axes[j], points[i] - origins[j]) for j in range(3)]
                         for i in range(4)])
    np.testing.assert_allclose(rates, expected, atol=1e-12)


def test_obstacle_set_declares_replaces_removes_and_expires():
    obstacles = ObstacleSet()
    ball = Obstacle(("ns", 1), "torso", (0.2, 0.0, 0.0), (0.2, 0.0, 0.0), 0.05, expires_s=10.0)
    obstacles.declare(ball)
    obstacles.declare(Obstacle(("ns", 1), "torso", (0.3, 0.0, 0.0), (0.3, 0.0, 0.0), 0.05))
    assert len(obstacles) == 1 and obstacles.obstacles()[0].p_m == (0.3, 0.0, 0.0)
    obstacles.declare(ball)
    assert obstacles.expire(11.0) == [("ns", 1)] and len(obstacles) == 0
    for i in range(MAX_OBSTACLES):
        obstacles.declare(Obstacle(("a" if i % 2 else "b", i), "torso", (1.0, 0, 0), (1.0, 0, 0), 0.1))
    with pytest.raises(ValueError, match="already"):
        obstacles.declare(Obstacle(("c", 0), "torso", (1.0, 0, 0), (1.0, 0, 0), 0.1))
    assert obstacles.remove(("b", 0)) and not obstacles.remove(("b", 0))
    assert obstacles.clear("a") == MAX_OBSTACLES // 2
    assert obstacles.clear() == MAX_OBSTACLES // 2 - 1


@pytest.mark.parametrize("obstacle, reason", [
    (Obstacle(("n", 0), "", (0, 0, 0), (0, 0, 0), 0.1), "frame_id"),
    (Obstacle(("n", 0), "torso", (np.nan, 0, 0), (0, 0, 0), 0.1), "finite"),
    (Obstacle(("n", 0), "torso", (0, 0, 0), (0, 0, 0), 0.0), "radius"),
    (Obstacle(("n", 0), "torso", (0, 0, 0), (0, 0, 100.0), 0.1), "longer"),
])
def test_bad_obstacles_are_refused_with_a_reason(obstacle, reason):
    with pytest.raises(ValueError, match=reason):
        ObstacleSet().declare(obstacle)


def test_obstacles_in_the_torso_frame_leave_unknown_frames_out():
    obstacles = ObstacleSet()
    obstacles.declare(Obstacle(("n", 0), "odom", (1.0, 0, 0), (1.0, 0, 1.0), 0.1))
    obstacles.declare(Obstacle(("n", 1), "nowhere", (1.0, 0, 0), (1.0, 0, 0), 0.1))
    shift = np.eye(4)
    shift[:3, 3] = (0.0, 0.5, 0.0)
    slots = ObstacleSlots()
    missing = obstacles.in_torso(lambda frame: shift if frame == "odom" else None, slots)
    assert missing == ["nowhere"] and slots.count == 1
    np.testing.assert_allclose(slots.q_m[0], (1.0, 0.5, 1.0))
