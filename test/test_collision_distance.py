"""Tests for nao_motion.collision.distance (sphere / capsule signed distances).

Reference values: Ericson 5.1.9 check values from /work/shared/notes/algorithms.md,
hand-derived cases, and brute-force references written independently of the
module (dense sampling of the segments / shape surfaces with exact
point-to-segment projection).
"""

import tracemalloc

import numpy as np
import pytest

from nao_motion.collision.distance import (
    DEFAULT_NORMAL,
    DistanceWorkspace,
    capsule_capsule_distance,
    segment_segment_distance,
    sphere_capsule_distance,
    sphere_sphere_distance,
)

# --------------------------------------------------------------------------
# Independent reference helpers (no code shared with the module).
# --------------------------------------------------------------------------


def ref_point_segment(x, p, q):
    """Exact distance from points x to segments [p, q] (broadcasting, (..., 3))."""
    d = q - p
    dd = np.sum(d * d, axis=-1)
    num = np.sum((x - p) * d, axis=-1)
    t = np.where(dd > 0.0, np.clip(num / np.where(dd > 0.0, dd, 1.0), 0.0, 1.0), 0.0)
    return np.linalg.norm(x - (p + t[..., None] * d), axis=-1)


def ref_segment_distance(p1, q1, p2, q2, m=2001, iters=90):
    """Segment-segment distance for (N, 3) batches, by dense sampling of A plus
    exact distance to B, then ternary refinement of the convex function
    g(s) = dist(p1 + s (q1 - p1), segment B) inside the best sample's bracket."""
    d1 = q1 - p1

    def g(s):  # s: (N, K)
        x = p1[:, None, :] + s[..., None] * d1[:, None, :]
        return ref_point_segment(x, p2[:, None, :], q2[:, None, :])

    n = p1.shape[0]
    grid = np.broadcast_to(np.linspace(0.0, 1.0, m), (n, m))
    vals = g(grid)
    i = np.argmin(vals, axis=1)
    best = vals[np.arange(n), i]
    lo = grid[np.arange(n), np.maximum(i - 1, 0)].copy()
    hi = grid[np.arange(n), np.minimum(i + 1, m - 1)].copy()
    for _ in range(iters):
        m1 = lo + (hi - lo) / 3.0
        m2 = hi - (hi - lo) / 3.0
        v = g(np.stack([m1, m2], axis=1))
        left = v[:, 0] < v[:, 1]
        hi = np.where(left, m2, hi)
        lo = np.where(left, lo, m1)
    v = g(np.stack([lo, hi, 0.5 * (lo + hi)], axis=1))
    return np.minimum(best, v.min(axis=1))


def ref_grid_segment_distance(p1, q1, p2, q2, m=201):
    """Plain 2-D grid brute force over (s, t); returns (min, rigorous error bound)."""
    u = np.linspace(0.0, 1.0, m)
    a = p1[:, None, :] + u[None, :, None] * (q1 - p1)[:, None, :]  # (N, m, 3)
    b = p2[:, None, :] + u[None, :, None] * (q2 - p2)[:, None, :]
    diff = a[:, :, None, :] - b[:, None, :, :]  # (N, m, m, 3)
    dmin = np.sqrt(np.min(np.sum(diff * diff, axis=-1), axis=(1, 2)))
    bound = (np.linalg.norm(q1 - p1, axis=1) + np.linalg.norm(q2 - p2, axis=1)) / (2 * (m - 1))
    return dmin, bound


def _frame(axis):
    """Orthonormal (u, v, w) with w along axis (any frame for a zero axis)."""
    n = np.linalg.norm(axis)
    w = axis / n if n > 0 else np.array([0.0, 0.0, 1.0])
    helper = np.array([1.0, 0.0, 0.0]) if abs(w[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(w, helper)
    u /= np.linalg.norm(u)
    return u, np.cross(w, u), w


def sample_capsule_surface(p, q, r, n_theta=72, n_phi=18, dz=0.003):
    """Grid points on the capsule surface and a rigorous covering radius h
    (every surface point is within h of a sample)."""
    u, v, w = _frame(q - p)
    length = np.linalg.norm(q - p)
    th = np.linspace(0.0, 2 * np.pi, n_theta, endpoint=False)
    ring = np.cos(th)[:, None] * u + np.sin(th)[:, None] * v  # (n_theta, 3)
    pts = []
    nz = max(2, int(np.ceil(length / dz)) + 1)
    z = np.linspace(0.0, length, nz)
    pts.append((p + z[:, None, None] * w + r * ring[None, :, :]).reshape(-1, 3))
    phi = np.linspace(0.0, np.pi / 2, n_phi)  # 0 = pole, pi/2 = equator
    for centre, sign in ((p, -1.0), (q, 1.0)):
        cap = (np.sin(phi)[:, None, None] * ring[None, :, :]
               + sign * np.cos(phi)[:, None, None] * w)
        pts.append((centre + r * cap).reshape(-1, 3))
    d_theta = 2 * np.pi / n_theta
    d_phi = (np.pi / 2) / (n_phi - 1)
    h_cyl = np.hypot(length / (nz - 1) / 2, r * d_theta / 2)
    h_cap = r * np.hypot(d_phi / 2, d_theta / 2)
    return np.concatenate(pts), max(h_cyl, h_cap)


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def random_pairs(rng, n):
    """NAO-scale random capsule pairs mixing general, near-parallel, exactly
    parallel, anti-parallel, collinear and zero-length configurations."""
    p1 = rng.uniform(-0.15, 0.15, (n, 3))
    dir1 = _unit(rng.normal(size=(n, 3)))
    len1 = rng.uniform(0.0, 0.2, n)
    kind = rng.integers(0, 7, n)
    q1 = p1 + len1[:, None] * dir1
    p2 = rng.uniform(-0.15, 0.15, (n, 3))
    dir2 = _unit(rng.normal(size=(n, 3)))
    len2 = rng.uniform(0.0, 0.2, n)
    for i in range(n):
        k = kind[i]
        if k in (1, 2, 3):  # near-parallel / parallel / anti-parallel, nearby
            perp = _unit(np.cross(dir1[i], rng.normal(size=3)))
            angle = 10.0 ** rng.uniform(-9, -2) if k == 1 else 0.0
            d = np.cos(angle) * dir1[i] + np.sin(angle) * perp
            dir2[i] = -d if k == 3 else d
            gap = 10.0 ** rng.uniform(-4, -1)
            p2[i] = p1[i] + rng.uniform(-0.2, 0.2) * dir1[i] + gap * _unit(np.cross(dir1[i], perp))
        elif k == 4:  # collinear
            dir2[i] = dir1[i] * rng.choice([-1.0, 1.0])
            p2[i] = p1[i] + rng.uniform(-0.3, 0.3) * dir1[i]
        elif k == 5:  # one or both zero-length
            which = rng.integers(0, 3)
            if which in (0, 2):
                len1[i] = 0.0
            if which in (1, 2):
                len2[i] = 0.0
        # k == 0 or 6: general position
    q1 = p1 + len1[:, None] * dir1
    q2 = p2 + len2[:, None] * dir2
    r1 = rng.uniform(0.01, 0.06, n)
    r2 = rng.uniform(0.01, 0.06, n)
    return p1, q1, r1, p2, q2, r2


def random_separated_pairs(rng, n, min_gap=0.002):
    """Like random_pairs, keeping only pairs whose surfaces are > min_gap apart."""
    out = [np.empty((0, 3)), np.empty((0, 3)), np.empty(0), np.empty((0, 3)), np.empty((0, 3)), np.empty(0)]
    while len(out[2]) < n:
        p1, q1, r1, p2, q2, r2 = random_pairs(rng, 4 * n)
        keep = ref_segment_distance(p1, q1, p2, q2) - r1 - r2 > min_gap
        out = [np.concatenate([o, x[keep]]) for o, x in zip(out, (p1, q1, r1, p2, q2, r2))]
    return tuple(x[:n] for x in out)


@pytest.fixture(scope="module")
def batch():
    rng = np.random.default_rng(20240611)
    return random_pairs(rng, 400)


# --------------------------------------------------------------------------
# Check values (algorithms.md, Ericson 5.1.9)
# --------------------------------------------------------------------------


def test_check_parallel_unit_segments_one_apart():
    res = segment_segment_distance([0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0])
    assert res.distance_m == pytest.approx(1.0, abs=1e-15)
    # Closest points are not unique; they must be a valid pair 1 apart.
    assert 0.0 <= res.s <= 1.0 and 0.0 <= res.t <= 1.0
    assert res.axis_point_a[0] == pytest.approx(res.axis_point_b[0], abs=1e-15)
    np.testing.assert_allclose(res.normal, [0, 1, 0], atol=1e-15)
    assert not res.normal_fallback


def test_check_collinear_segments():
    res = segment_segment_distance([0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0])
    assert res.distance_m == pytest.approx(1.0, abs=1e-15)
    assert (res.s, res.t) == (1.0, 0.0)
    np.testing.assert_allclose(res.normal, [1, 0, 0], atol=1e-15)


def test_check_two_points():
    res = segment_segment_distance([0, 0, 0], [0, 0, 0], [3, 4, 0], [3, 4, 0])
    assert res.distance_m == pytest.approx(5.0, abs=1e-15)
    assert (res.s, res.t) == (0.0, 0.0)
    np.testing.assert_allclose(res.normal, [0.6, 0.8, 0.0], atol=1e-15)


def test_check_skew_segments():
    res = segment_segment_distance([-1, 0, 0], [1, 0, 0], [0, -1, 1], [0, 1, 1])
    assert res.distance_m == pytest.approx(1.0, abs=1e-15)
    assert res.s == pytest.approx(0.5, abs=1e-15)
    assert res.t == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_allclose(res.axis_point_a, [0, 0, 0], atol=1e-15)
    np.testing.assert_allclose(res.axis_point_b, [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(res.normal, [0, 0, 1], atol=1e-15)


@pytest.mark.parametrize(
    "p1,q1,p2,q2,seg_dist",
    [
        ([0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], 1.0),
        ([0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], 1.0),
        ([0, 0, 0], [0, 0, 0], [3, 4, 0], [3, 4, 0], 5.0),
        ([-1, 0, 0], [1, 0, 0], [0, -1, 1], [0, 1, 1], 1.0),
    ],
)
def test_check_values_with_radii(p1, q1, p2, q2, seg_dist):
    r1, r2 = 0.1, 0.25
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    assert res.distance_m == pytest.approx(seg_dist - r1 - r2, abs=1e-14)
    # Surface points sit r1 / r2 out from the axis points along the normal.
    np.testing.assert_allclose(res.point_a, res.axis_point_a + r1 * res.normal, atol=1e-15)
    np.testing.assert_allclose(res.point_b, res.axis_point_b - r2 * res.normal, atol=1e-15)
    assert np.linalg.norm(res.point_b - res.point_a) == pytest.approx(seg_dist - r1 - r2, abs=1e-14)


def test_sphere_sphere_values():
    res = sphere_sphere_distance([0, 0, 0], 1.0, [3, 4, 0], 1.5)
    assert res.distance_m == pytest.approx(2.5, abs=1e-15)
    np.testing.assert_allclose(res.normal, [0.6, 0.8, 0.0], atol=1e-15)
    np.testing.assert_allclose(res.point_a, [0.6, 0.8, 0.0], atol=1e-15)
    np.testing.assert_allclose(res.point_b, [2.1, 2.8, 0.0], atol=1e-15)
    assert (res.s, res.t) == (0.0, 0.0)


def test_sphere_capsule_naoqi_case1_projection_inside():
    # Sphere centre projects inside the capsule's cylinder -> perpendicular distance.
    res = sphere_capsule_distance([0.5, 2.0, 0.0], 0.5, [-1, 0, 0], [1, 0, 0], 0.25)
    assert res.distance_m == pytest.approx(2.0 - 0.75, abs=1e-15)
    assert res.t == pytest.approx(0.75, abs=1e-15)
    assert res.s == 0.0
    np.testing.assert_allclose(res.normal, [0, -1, 0], atol=1e-15)  # sphere (A) -> capsule (B)
    np.testing.assert_allclose(res.point_a, [0.5, 1.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(res.point_b, [0.5, 0.25, 0.0], atol=1e-15)


def test_sphere_capsule_naoqi_case2_projection_outside():
    # Projection beyond the q end -> distance to the cylinder extremity.
    res = sphere_capsule_distance([3.0, 1.0, 0.0], 0.5, [-1, 0, 0], [1, 0, 0], 0.25)
    assert res.distance_m == pytest.approx(np.sqrt(5.0) - 0.75, abs=1e-15)
    assert res.t == 1.0
    np.testing.assert_allclose(res.normal, _unit([-2.0, -1.0, 0.0]), atol=1e-15)
    np.testing.assert_allclose(res.axis_point_b, [1, 0, 0], atol=1e-15)


# --------------------------------------------------------------------------
# Penetration and degenerate configurations
# --------------------------------------------------------------------------


def test_penetrating_spheres_negative_distance():
    res = sphere_sphere_distance([0, 0, 0], 0.75, [1, 0, 0], 0.5)
    assert res.distance_m == pytest.approx(-0.25, abs=1e-15)
    np.testing.assert_allclose(res.normal, [1, 0, 0], atol=1e-15)
    # Deepest points: A's surface inside B and vice versa.
    np.testing.assert_allclose(res.point_a, [0.75, 0, 0], atol=1e-15)
    np.testing.assert_allclose(res.point_b, [0.5, 0, 0], atol=1e-15)
    np.testing.assert_allclose(res.point_b - res.point_a, res.distance_m * res.normal, atol=1e-15)
    assert not res.normal_fallback


def test_penetrating_capsules_negative_distance():
    res = capsule_capsule_distance([-1, 0, 0], [1, 0, 0], 0.1, [0, -1, 0.15], [0, 1, 0.15], 0.1)
    assert res.distance_m == pytest.approx(-0.05, abs=1e-15)
    np.testing.assert_allclose(res.normal, [0, 0, 1], atol=1e-15)
    np.testing.assert_allclose(res.point_a, [0, 0, 0.1], atol=1e-15)
    np.testing.assert_allclose(res.point_b, [0, 0, 0.05], atol=1e-15)


def test_coincident_sphere_centres():
    res = sphere_sphere_distance([0.1, -0.2, 0.3], 0.05, [0.1, -0.2, 0.3], 0.07)
    assert res.distance_m == pytest.approx(-0.12, abs=1e-15)
    assert res.normal_fallback
    np.testing.assert_array_equal(res.normal, DEFAULT_NORMAL)
    np.testing.assert_allclose(res.point_a, [0.1, -0.2, 0.35], atol=1e-15)
    np.testing.assert_allclose(res.point_b, [0.1, -0.2, 0.23], atol=1e-15)
    np.testing.assert_allclose(res.point_b - res.point_a, res.distance_m * res.normal, atol=1e-15)


def test_zero_length_both_is_point_distance():
    res = capsule_capsule_distance([1, 2, 3], [1, 2, 3], 0.5, [1, 2, 6], [1, 2, 6], 0.5)
    assert res.distance_m == pytest.approx(2.0, abs=1e-15)
    np.testing.assert_allclose(res.normal, [0, 0, 1], atol=1e-15)
    assert (res.s, res.t) == (0.0, 0.0)


@pytest.mark.parametrize("point_first", [True, False])
@pytest.mark.parametrize(
    "x,expected_param,expected_dist",
    [
        ([0.5, 1.0, 0.0], 0.75, 1.0),  # projects inside
        ([-2.0, 0.0, 0.0], 0.0, 1.0),  # beyond p
        ([4.0, 4.0, 0.0], 1.0, 5.0),  # beyond q
    ],
)
def test_one_zero_length_segment(point_first, x, expected_param, expected_dist):
    p, q = [-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]
    if point_first:
        res = segment_segment_distance(x, x, p, q)
        assert res.s == 0.0
        assert res.t == pytest.approx(expected_param, abs=1e-15)
    else:
        res = segment_segment_distance(p, q, x, x)
        assert res.t == 0.0
        assert res.s == pytest.approx(expected_param, abs=1e-15)
    assert res.distance_m == pytest.approx(expected_dist, abs=1e-15)
    assert np.isclose(np.linalg.norm(res.normal), 1.0)


def test_sub_epsilon_segment_is_treated_as_point_but_short_segment_is_not():
    p = np.array([0.0, 0.0, 0.0])
    target_p, target_q = [-1.0, 1.0, 0.0], [1.0, 1.0, 0.0]
    tiny = segment_segment_distance(p, p + [5e-7, 0, 0], target_p, target_q)
    assert tiny.s == 0.0
    np.testing.assert_array_equal(tiny.axis_point_a, p)
    assert tiny.distance_m == pytest.approx(1.0, abs=1e-15)
    # 10 micrometres is above the threshold: handled as a real segment.
    short = segment_segment_distance(p, p + [1e-5, 0, 0], [2.0, 1.0, 0.0], [4.0, 1.0, 0.0])
    assert short.s == 1.0
    assert short.distance_m == pytest.approx(np.hypot(2.0 - 1e-5, 1.0), abs=1e-12)


def test_intersecting_axes_fallback_normal():
    r1, r2 = 0.1, 0.2
    p1, q1 = np.array([-1.0, 0, 0]), np.array([1.0, 0, 0])
    p2, q2 = np.array([0.0, -1, 0]), np.array([0.0, 1, 0])
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    assert res.normal_fallback
    assert res.distance_m == pytest.approx(-(r1 + r2), abs=1e-15)
    assert np.all(np.isfinite(res.normal))
    # Perpendicular to both axes: cross(d1, d2) = +z.
    np.testing.assert_allclose(res.normal, [0, 0, 1], atol=1e-15)
    # It is a valid separation direction: pushing B along it by delta raises
    # the signed distance by delta.
    delta = 1e-3
    moved = capsule_capsule_distance(p1, q1, r1, p2 + delta * res.normal, q2 + delta * res.normal, r2)
    assert moved.distance_m == pytest.approx(res.distance_m + delta, abs=1e-12)
    assert not moved.normal_fallback
    np.testing.assert_allclose(moved.normal, res.normal, atol=1e-12)


def test_intersecting_axes_fallback_is_antisymmetric_under_swap():
    # Axes cross at (0.5, 0, 0), off both midpoints.
    p1, q1 = np.array([-1.0, 0, 0]), np.array([1.0, 0, 0])
    p2, q2 = np.array([0.5, -1.0, -0.5]), np.array([0.5, 2.0, 1.0])
    ab = capsule_capsule_distance(p1, q1, 0.05, p2, q2, 0.05)
    ba = capsule_capsule_distance(p2, q2, 0.05, p1, q1, 0.05)
    assert ab.normal_fallback and ba.normal_fallback
    np.testing.assert_allclose(ab.normal, _unit(np.cross(q1 - p1, q2 - p2)), atol=1e-15)
    np.testing.assert_allclose(ba.normal, -ab.normal, atol=1e-15)
    np.testing.assert_allclose(ab.axis_point_a, [0.5, 0, 0], atol=1e-15)
    assert ab.s == pytest.approx(0.75, abs=1e-15)
    assert ab.t == pytest.approx(1.0 / 3.0, abs=1e-15)


@pytest.mark.parametrize(
    "p1,q1,p2,q2",
    [
        ([0, 0, 0], [2, 0, 0], [1, 0, 0], [3, 0, 0]),  # collinear overlap
        ([0, 0, 0], [0, 0, 2], [0, 0, 1], [0, 0, 1]),  # sphere centre on capsule axis
        ([0, 0, 1], [0, 0, 1], [0, 0, 0], [0, 0, 2]),  # same, sphere first
        ([0, 0, 0], [1, 1, 1], [1, 1, 1], [0, 0, 0]),  # identical reversed segments
    ],
)
def test_touching_axes_without_unique_direction(p1, q1, p2, q2):
    res = capsule_capsule_distance(p1, q1, 0.03, p2, q2, 0.04)
    assert res.normal_fallback
    assert np.linalg.norm(res.normal) == pytest.approx(1.0, abs=1e-15)
    axis = np.subtract(q1, p1) if np.any(np.subtract(q1, p1)) else np.subtract(q2, p2)
    assert abs(np.dot(res.normal, axis)) < 1e-15  # perpendicular to the axis
    assert res.distance_m == pytest.approx(-0.07, abs=1e-15)
    np.testing.assert_allclose(res.point_b - res.point_a, res.distance_m * res.normal, atol=1e-15)


def test_parallel_overlapping_capsules():
    # Two parallel forearm-like capsules 0.1 apart, partially overlapping in x.
    res = capsule_capsule_distance([0, 0, 0], [0.2, 0, 0], 0.03, [0.1, 0.06, 0.08], [0.4, 0.06, 0.08], 0.02)
    assert res.distance_m == pytest.approx(0.1 - 0.05, abs=1e-15)
    np.testing.assert_allclose(res.normal, [0, 0.6, 0.8], atol=1e-15)
    assert 0.1 - 1e-15 <= res.axis_point_a[0] <= 0.2 + 1e-15


def test_all_degenerate_batch_is_finite():
    rng = np.random.default_rng(7)
    n = 200
    c = rng.uniform(-0.1, 0.1, (n, 3))
    d = _unit(rng.normal(size=(n, 3))) * 0.1
    kinds = [
        (c, c, c, c),  # coincident sphere centres
        (c, c + d, c, c + d),  # identical segments
        (c, c + d, c + 0.5 * d, c + 0.5 * d),  # centre on axis
        (c, c + d, c + 0.5 * d, c + 1.5 * d),  # collinear overlap
        (c - d, c + d, c, c + np.cross(d, [0.0, 0.0, 1.0])),  # intersecting
        (np.zeros((n, 3)),) * 4,  # all zeros
    ]
    for p1, q1, p2, q2 in kinds:
        res = capsule_capsule_distance(p1, q1, 0.02, p2, q2, 0.03)
        for field in (res.distance_m, res.normal, res.point_a, res.point_b, res.s, res.t):
            assert np.all(np.isfinite(field))
        np.testing.assert_allclose(np.linalg.norm(res.normal, axis=1), 1.0, atol=1e-15)
        np.testing.assert_allclose(res.distance_m, -0.05, atol=1e-12)
        assert np.all(res.normal_fallback)


# --------------------------------------------------------------------------
# Random pairs against brute force
# --------------------------------------------------------------------------


def test_random_pairs_match_refined_brute_force(batch):
    p1, q1, r1, p2, q2, r2 = batch
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    ref = ref_segment_distance(p1, q1, p2, q2)
    err = np.abs((res.distance_m + r1 + r2) - ref)
    assert err.max() < 1e-10, (err.max(), int(np.argmax(err)))


def test_random_near_parallel_pairs_match_brute_force():
    rng = np.random.default_rng(99)
    n = 300
    p1 = rng.uniform(-0.1, 0.1, (n, 3))
    d1 = _unit(rng.normal(size=(n, 3)))
    perp = _unit(np.cross(d1, rng.normal(size=(n, 3))))
    angle = 10.0 ** rng.uniform(-12, -3, n)
    d2 = np.cos(angle)[:, None] * d1 + np.sin(angle)[:, None] * perp
    d2 *= rng.choice([-1.0, 1.0], n)[:, None]
    # Offsets from touching (1e-7) to 5 cm, along the axis from -0.25 to 0.25.
    side = _unit(np.cross(d1, perp))
    gap = 10.0 ** rng.uniform(-7, -1.3, n)
    p2 = p1 + rng.uniform(-0.25, 0.25, n)[:, None] * d1 + gap[:, None] * side
    q1 = p1 + rng.uniform(0.02, 0.2, n)[:, None] * d1
    q2 = p2 + rng.uniform(0.02, 0.2, n)[:, None] * d2
    res = segment_segment_distance(p1, q1, p2, q2)
    ref = ref_segment_distance(p1, q1, p2, q2)
    err = np.abs(res.distance_m - ref)
    assert err.max() < 1e-10, (err.max(), int(np.argmax(err)))
    # Returned points really are that far apart (no inconsistent s / t).
    np.testing.assert_allclose(
        np.linalg.norm(res.axis_point_b - res.axis_point_a, axis=1), res.distance_m, atol=1e-15)


def test_random_pairs_match_grid_brute_force(batch):
    p1, q1, r1, p2, q2, r2 = (x[:250] for x in batch)
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    grid_min, bound = ref_grid_segment_distance(p1, q1, p2, q2)
    seg = res.distance_m + r1 + r2
    # The grid can only over-estimate the minimum, by at most `bound`.
    assert np.all(seg <= grid_min + 1e-12)
    assert np.all(seg >= grid_min - bound - 1e-12)


def test_random_separated_pairs_match_surface_sampling():
    """Both surfaces sampled on grids; minimum over all sample pairs."""
    rng = np.random.default_rng(4242)
    p1, q1, r1, p2, q2, r2 = random_separated_pairs(rng, 15)
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    assert np.all(res.distance_m > 0)
    for i in range(len(r1)):
        sa, ha = sample_capsule_surface(p1[i], q1[i], r1[i], n_theta=48, n_phi=12, dz=0.005)
        sb, hb = sample_capsule_surface(p2[i], q2[i], r2[i], n_theta=48, n_phi=12, dz=0.005)
        diff = sa[:, None, :] - sb[None, :, :]
        sampled = np.sqrt(np.min(np.einsum("ijk,ijk->ij", diff, diff)))
        # Samples lie on the surfaces, so they cannot be closer than the true
        # distance; they are at most ha + hb farther.
        assert res.distance_m[i] <= sampled + 1e-12
        assert res.distance_m[i] >= sampled - (ha + hb)


def test_random_separated_pairs_match_dense_one_sided_surface_sampling():
    """A's surface sampled densely, exact distance from each sample to capsule
    B (point-to-axis distance minus r2), and the same with A and B swapped."""
    rng = np.random.default_rng(777)
    p1, q1, r1, p2, q2, r2 = random_separated_pairs(rng, 100)
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    assert np.all(res.distance_m > 0)
    for i in range(len(r1)):
        sa, ha = sample_capsule_surface(p1[i], q1[i], r1[i], n_theta=180, n_phi=45, dz=0.001)
        sb, hb = sample_capsule_surface(p2[i], q2[i], r2[i], n_theta=180, n_phi=45, dz=0.001)
        from_a = np.min(ref_point_segment(sa, p2[i], q2[i])) - r2[i]
        from_b = np.min(ref_point_segment(sb, p1[i], q1[i])) - r1[i]
        assert res.distance_m[i] <= min(from_a, from_b) + 1e-12
        assert res.distance_m[i] >= from_a - ha - 1e-12
        assert res.distance_m[i] >= from_b - hb - 1e-12
        # The reported surface points are on the surfaces.
        assert ref_point_segment(res.point_a[i], p1[i], q1[i]) == pytest.approx(r1[i], abs=1e-12)
        assert ref_point_segment(res.point_b[i], p2[i], q2[i]) == pytest.approx(r2[i], abs=1e-12)


# --------------------------------------------------------------------------
# Result invariants
# --------------------------------------------------------------------------


def test_result_invariants(batch):
    p1, q1, r1, p2, q2, r2 = batch
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    n = len(r1)
    assert res.distance_m.shape == (n,) and res.s.shape == (n,) and res.t.shape == (n,)
    for v in (res.point_a, res.point_b, res.normal, res.axis_point_a, res.axis_point_b):
        assert v.shape == (n, 3) and np.all(np.isfinite(v))
    np.testing.assert_allclose(np.linalg.norm(res.normal, axis=1), 1.0, atol=1e-14)
    assert np.all((res.s >= 0) & (res.s <= 1) & (res.t >= 0) & (res.t <= 1))
    np.testing.assert_allclose(res.axis_point_a, p1 + res.s[:, None] * (q1 - p1), atol=1e-15)
    np.testing.assert_allclose(res.axis_point_b, p2 + res.t[:, None] * (q2 - p2), atol=1e-15)
    axis_gap = np.linalg.norm(res.axis_point_b - res.axis_point_a, axis=1)
    np.testing.assert_allclose(res.distance_m, axis_gap - r1 - r2, atol=1e-15)
    # point_b - point_a is along the normal with (signed) length = distance.
    np.testing.assert_allclose(res.point_b - res.point_a, res.distance_m[:, None] * res.normal, atol=1e-15)
    sep = res.distance_m > 0
    assert sep.sum() > 50 and (~sep).sum() > 20  # the batch exercises both
    np.testing.assert_allclose(
        np.linalg.norm(res.point_b - res.point_a, axis=1)[sep], res.distance_m[sep], atol=1e-15)
    # Surface points lie on their shapes' surfaces.
    np.testing.assert_allclose(ref_point_segment(res.point_a, p1, q1), r1, atol=1e-14)
    np.testing.assert_allclose(ref_point_segment(res.point_b, p2, q2), r2, atol=1e-14)


def test_normal_is_gradient_of_distance(batch):
    p1, q1, r1, p2, q2, r2 = batch
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    ok = ~res.normal_fallback
    delta = 1e-4
    push = delta * res.normal
    moved_b = capsule_capsule_distance(p1, q1, r1, p2 + push, q2 + push, r2)
    np.testing.assert_allclose(moved_b.distance_m[ok], res.distance_m[ok] + delta, atol=1e-12)
    moved_a = capsule_capsule_distance(p1 + push, q1 + push, r1, p2, q2, r2)
    far = ok & (res.distance_m + r1 + r2 > 2 * delta)
    np.testing.assert_allclose(moved_a.distance_m[far], res.distance_m[far] - delta, atol=1e-12)


def test_swapping_shapes_negates_normal(batch):
    p1, q1, r1, p2, q2, r2 = batch
    ab = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    ba = capsule_capsule_distance(p2, q2, r2, p1, q1, r1)
    np.testing.assert_allclose(ba.distance_m, ab.distance_m, atol=1e-14)
    ok = ~ab.normal_fallback
    np.testing.assert_allclose(ba.normal[ok], -ab.normal[ok], atol=1e-9)


# --------------------------------------------------------------------------
# Vectorisation, workspace, API
# --------------------------------------------------------------------------


def test_batch_equals_per_pair(batch):
    p1, q1, r1, p2, q2, r2 = batch
    res = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    for i in range(len(r1)):
        one = capsule_capsule_distance(p1[i], q1[i], r1[i], p2[i], q2[i], r2[i])
        assert np.shape(one.distance_m) == () and one.point_a.shape == (3,)
        assert one.distance_m == res.distance_m[i]
        assert one.s == res.s[i] and one.t == res.t[i]
        np.testing.assert_array_equal(one.point_a, res.point_a[i])
        np.testing.assert_array_equal(one.point_b, res.point_b[i])
        np.testing.assert_array_equal(one.normal, res.normal[i])


def test_sphere_wrappers_equal_capsule_core(batch):
    p1, q1, r1, p2, q2, r2 = batch
    ss = sphere_sphere_distance(p1, r1, p2, r2)
    core = capsule_capsule_distance(p1, p1, r1, p2, p2, r2)
    np.testing.assert_array_equal(ss.distance_m, core.distance_m)
    np.testing.assert_allclose(ss.distance_m, np.linalg.norm(p2 - p1, axis=1) - r1 - r2, atol=1e-15)
    sc = sphere_capsule_distance(p1, r1, p2, q2, r2)
    np.testing.assert_allclose(sc.distance_m, ref_point_segment(p1, p2, q2) - r1 - r2, atol=1e-15)
    assert np.all(sc.s == 0.0)


def test_scalar_radii_broadcast(batch):
    p1, q1, _, p2, q2, _ = batch
    a = capsule_capsule_distance(p1, q1, 0.04, p2, q2, 0.02)
    b = capsule_capsule_distance(p1, q1, np.full(len(p1), 0.04), p2, q2, np.full(len(p1), 0.02))
    np.testing.assert_array_equal(a.distance_m, b.distance_m)
    np.testing.assert_array_equal(a.point_a, b.point_a)


def test_workspace_matches_fresh_call_and_is_reused(batch):
    p1, q1, r1, p2, q2, r2 = batch
    n = len(r1)
    ws = DistanceWorkspace(n)
    fresh = capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
    first = capsule_capsule_distance(p1, q1, r1, p2, q2, r2, workspace=ws)
    kept = first.copy()
    for name in ("distance_m", "point_a", "point_b", "normal", "s", "t", "normal_fallback"):
        np.testing.assert_array_equal(getattr(first, name), getattr(fresh, name))
    # A second call with other data overwrites the same buffers (documented).
    second = capsule_capsule_distance(p2, q2, r2, p1, q1, r1, workspace=ws)
    assert second is first
    assert second.point_a is ws.result.point_a
    assert not np.array_equal(second.point_a, kept.point_a)
    swapped = capsule_capsule_distance(p2, q2, r2, p1, q1, r1)
    np.testing.assert_array_equal(second.distance_m, swapped.distance_m)
    np.testing.assert_array_equal(second.normal, swapped.normal)
    # ... and going back gives the first answer again (no state leaks between calls).
    third = capsule_capsule_distance(p1, q1, r1, p2, q2, r2, workspace=ws)
    np.testing.assert_array_equal(third.point_b, kept.point_b)
    np.testing.assert_array_equal(third.normal, kept.normal)


def test_leading_workspace_computes_the_leading_pairs_alone(batch):
    p1, q1, r1, p2, q2, r2 = batch
    n, k = len(r1), len(r1) // 2
    full = DistanceWorkspace(n)
    leading = DistanceWorkspace(k, leading_of=full)
    before = capsule_capsule_distance(p1, q1, r1, p2, q2, r2, workspace=full).copy()
    # Other leading pairs (points among them), written into the full workspace's end points.
    q1b = q1 + 0.05  # the others too: left as they were all the same
    q1b[:k] = p1[:k][::-1]
    q1b[:3] = p1[:3]
    for row, points in enumerate((q1b, q2, p1, p2, p2)):  # rows q1, q2, p1, p2, p2
        full.ends[row] = points
    assert leading.compute_ends() is leading.result
    expected = capsule_capsule_distance(p1[:k], q1b[:k], r1[:k], p2[:k], q2[:k], r2[:k])
    for name in ("distance_m", "point_a", "point_b", "normal", "s", "t", "normal_fallback"):
        np.testing.assert_array_equal(getattr(full.result, name)[:k], getattr(expected, name))
        np.testing.assert_array_equal(getattr(full.result, name)[k:], getattr(before, name)[k:])
    with pytest.raises(ValueError):
        DistanceWorkspace(n + 1, leading_of=full)


def test_workspace_call_allocates_no_per_pair_temporaries():
    rng = np.random.default_rng(3)
    # Large enough that any per-call temporary array (>= 8 n bytes) would stand
    # out against numpy's fixed-size ufunc iteration buffers (~130 kB at most).
    n = 100_000
    # General position (no touching axes): the fallback-normal path, which may
    # allocate, is not taken.
    p1, p2 = rng.uniform(-0.15, 0.15, (2, n, 3))
    q1, q2 = p1 + rng.normal(0, 0.1, (n, 3)), p2 + rng.normal(0, 0.1, (n, 3))
    r1, r2 = rng.uniform(0.01, 0.06, (2, n))
    ws = DistanceWorkspace(n)
    capsule_capsule_distance(p1, q1, r1, p2, q2, r2, workspace=ws)  # warm up
    assert not ws.result.normal_fallback.any()  # the no-allocation path
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        capsule_capsule_distance(p1, q1, r1, p2, q2, r2, workspace=ws)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - base < 8 * n  # smaller than a single (n,) float64 temporary
    # Whereas the allocating path (no workspace) needs many of them.
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        capsule_capsule_distance(p1, q1, r1, p2, q2, r2)
        _, peak_fresh = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak_fresh - base > 20 * 8 * n


def test_bad_arguments_raise():
    ws = DistanceWorkspace(3)
    z = np.zeros((4, 3))
    with pytest.raises(ValueError):
        capsule_capsule_distance(z, z, 0.1, z, z, 0.1, workspace=ws)
    with pytest.raises(ValueError):
        capsule_capsule_distance(z, z, 0.1, z[:3], z[:3], 0.1)
    with pytest.raises(ValueError):
        capsule_capsule_distance(np.zeros((4, 2)), z, 0.1, z, z, 0.1)
    with pytest.raises(ValueError):
        capsule_capsule_distance(z, z, np.zeros(3), z, z, 0.1)
