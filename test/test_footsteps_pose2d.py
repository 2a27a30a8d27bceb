"""Tests for nao_motion.footsteps.pose2d (planar poses, SE(2) exp/log)."""

import math

import numpy as np
import pytest

from nao_motion.footsteps.pose2d import Pose2D, mean_pose, normalize_angle, se2_exp, se2_log


def _matrix(p):
    c, s = math.cos(p.theta), math.sin(p.theta)
    return np.array([[c, -s, p.x], [s, c, p.y], [0.0, 0.0, 1.0]])


def test_compose_matches_homogeneous_matrices():
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = Pose2D(*rng.uniform(-2, 2, 3))
        b = Pose2D(*rng.uniform(-2, 2, 3))
        ab = a * b
        np.testing.assert_allclose(_matrix(ab), _matrix(a) @ _matrix(b), atol=1e-12)


def test_inverse_and_relative_to():
    rng = np.random.default_rng(1)
    for _ in range(200):
        a = Pose2D(*rng.uniform(-2, 2, 3))
        b = Pose2D(*rng.uniform(-2, 2, 3))
        np.testing.assert_allclose(_matrix(a * a.inverse()), np.eye(3), atol=1e-12)
        r = b.relative_to(a)
        np.testing.assert_allclose(_matrix(a * r), _matrix(b), atol=1e-12)


def test_transform_point():
    p = Pose2D(1.0, 2.0, math.pi / 2)
    x, y = p.transform_point(1.0, 0.0)
    assert x == pytest.approx(1.0) and y == pytest.approx(3.0)
    assert p.point_in_frame(x, y) == pytest.approx((1.0, 0.0))  # and back
    assert p.point_in_frame(0.5, 2.0) == pytest.approx(Pose2D(0.5, 2.0, 0.3).relative_to(p).as_list()[:2])


def test_normalize_angle_range():
    for a in (-7.0, -math.pi, -3.0, 0.0, 3.0, math.pi, 7.0, 100.0):
        n = normalize_angle(a)
        assert -math.pi < n <= math.pi
        assert math.isclose(math.cos(n), math.cos(a), abs_tol=1e-12)
        assert math.isclose(math.sin(n), math.sin(a), abs_tol=1e-12)
    assert normalize_angle(-math.pi) == pytest.approx(math.pi)


def test_exp_log_round_trip_and_constant_twist():
    rng = np.random.default_rng(2)
    for _ in range(300):
        p = Pose2D(*rng.uniform(-3, 3, 2), rng.uniform(-math.pi + 1e-6, math.pi))
        vx, vy, w = se2_log(p)
        q = se2_exp(vx, vy, w)
        np.testing.assert_allclose([q.x, q.y, q.theta], [p.x, p.y, p.theta], atol=1e-12)
        # Halfway twice is the whole way: the path has a constant body twist.
        half = se2_exp(vx / 2, vy / 2, w / 2)
        np.testing.assert_allclose(_matrix(half * half), _matrix(p), atol=1e-12)


def test_exp_of_pure_rotation_and_small_angles():
    p = se2_exp(0.0, 0.0, 1.0)
    assert (p.x, p.y, p.theta) == (0.0, 0.0, 1.0)
    # Quarter circle of radius 0.2 (the seed's moveTo example).
    q = se2_exp(0.2 * math.pi / 2, 0.0, math.pi / 2)
    assert q.x == pytest.approx(0.2) and q.y == pytest.approx(0.2)
    # Series branch agrees with the closed form near zero rotation.
    a = se2_exp(1.0, 0.5, 1e-7)
    b = se2_exp(1.0, 0.5, 2e-6)
    assert a.x == pytest.approx(b.x, abs=1e-6) and a.y == pytest.approx(b.y, abs=1e-5)


def test_mean_pose_wraps_heading():
    m = mean_pose(Pose2D(0, 0.05, math.pi - 0.1), Pose2D(0, -0.05, -math.pi + 0.1))
    assert abs(abs(m.theta) - math.pi) < 1e-12
    assert (m.x, m.y) == (0.0, 0.0)


def test_to_transform_is_the_floor_pose_from_transform_reads():
    pose = Pose2D(0.3, -0.2, 2.5)
    t = pose.to_transform()
    assert Pose2D.from_transform(t) == pytest.approx(pose)
    np.testing.assert_allclose(t @ Pose2D(0.1, 0.05, 0.4).to_transform(), (pose * Pose2D(0.1, 0.05, 0.4)).to_transform(),
                               atol=1e-12)
    assert t[2, 3] == 0.0 and np.allclose(t[:3, :3] @ t[:3, :3].T, np.eye(3))
