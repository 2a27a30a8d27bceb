"""NAOqi footstep clipping: each stage against algorithms.md's check values,
edge cases, and 10,000 random requests checked with independent geometry.

The overlap test here is a separating-axis test written for this file (not the
module's edge-crossing test).
"""

import math

import numpy as np
import pytest

from nao_motion.footsteps import (
    EXTREMAL_CLIP_LIMITS,
    NAO_FOOT_BOXES,
    InvalidCommandError,
    Pose2D,
    avoid_foot_collision,
    clip_foot_with_ellipse,
    clip_footstep,
    clip_footstep_on_gait_config,
    clip_footstep_to_avoid_collision,
    clip_footstep_with_ellipse,
)
from nao_motion.footsteps.foot_boxes import boxes_collide, segments_intersect

# Boxes of libalmath's own test and algorithms.md's case (front at 0.08 m).
R_BOX_08 = ((0.08, 0.038), (0.08, -0.05), (-0.047, -0.05), (-0.047, 0.038))
L_BOX_08 = ((0.08, 0.05), (0.08, -0.038), (-0.047, -0.038), (-0.047, 0.05))

# Extremal values (algorithms.md: clipping uses them, not the user's).
MAX_X, MIN_X, MAX_Y, MAX_T, SEP = 0.08, -0.04, 0.16, 0.524, 0.088


# ----------------------------------------------------------------- helpers
def placed(box, pose):
    c, s = math.cos(pose.theta), math.sin(pose.theta)
    return np.array([[pose.x + c * x - s * y, pose.y + s * x + c * y] for x, y in box])


def sat_overlap(a, b, eps=1e-12):
    """Interiors of convex polygons a, b (n x 2 arrays) overlap by more than eps."""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            n = np.array([-e[1], e[0]]) / np.hypot(*e)
            pa, pb = a @ n, b @ n
            if pa.max() <= pb.min() + eps or pb.max() <= pa.min() + eps:
                return False
    return True


def feet_overlap(move, is_left_support, boxes=NAO_FOOT_BOXES):
    fixed, moving = (boxes.left, boxes.right) if is_left_support else (boxes.right, boxes.left)
    return sat_overlap(np.array(fixed, float), placed(moving, move))


def feet_overlap_along(x, y, thetas, is_left_support, boxes=NAO_FOOT_BOXES, eps=1e-12):
    """Vectorised separating-axis overlap of the moving box at (x, y, t) for each t."""
    fixed, moving = (boxes.left, boxes.right) if is_left_support else (boxes.right, boxes.left)
    f = np.array(fixed, float)
    mv = np.array(moving, float)
    c, s = np.cos(thetas)[:, None], np.sin(thetas)[:, None]
    px = x + c * mv[:, 0] - s * mv[:, 1]  # (N, 4)
    py = y + s * mv[:, 0] + c * mv[:, 1]
    overlap = np.ones(len(thetas), bool)
    # Axes of the fixed box (x, y), then of the moving box (its rotated x, y).
    one, zero = np.ones_like(c), np.zeros_like(c)
    for nx, ny in ((one, zero), (zero, one), (c, s), (-s, c)):
        pm = px * nx + py * ny
        pf = f[:, 0] * nx + f[:, 1] * ny
        sep = (pm.max(1) <= pf.min(1) + eps) | (pf.max(1) <= pm.min(1) + eps)
        overlap &= ~sep
    return overlap


def in_gait_box(m, is_left_support, tol=1e-12):
    if is_left_support:
        y_ok = -MAX_Y - tol <= m.y <= -SEP + tol
    else:
        y_ok = SEP - tol <= m.y <= MAX_Y + tol
    return MIN_X - tol <= m.x <= MAX_X + tol and y_ok and abs(m.theta) <= MAX_T + tol


def ellipse_norm(m):
    ay = abs(m.y) - SEP
    if ay <= 0:
        return 0.0
    a = MAX_X if m.x >= 0 else -MIN_X
    return (m.x / a) ** 2 + (ay / (MAX_Y - SEP)) ** 2


# ------------------------------------------------- stage 1: gait-config box
@pytest.mark.parametrize(
    "move, left_support, expected",
    [
        ((0.05, 0.1, 0.2), False, (0.05, 0.1, 0.2)),  # inside: untouched
        ((0.2, 0.3, 1.0), False, (0.08, 0.16, 0.524)),  # extremal, not default, maxima
        ((-0.2, 0.0, -1.0), False, (-0.04, 0.088, -0.524)),
        ((0.2, -0.3, 1.0), True, (0.08, -0.16, 0.524)),
        ((0.0, 0.05, 0.0), True, (0.0, -0.088, 0.0)),  # wrong side: to the nearest bound
        ((0.07, 0.15, 0.5), False, (0.07, 0.15, 0.5)),  # beyond defaults, within extremes
        ((0.08, 0.088, 0.524), False, (0.08, 0.088, 0.524)),  # exact boundaries stay
    ],
)
def test_gait_box_stage(move, left_support, expected):
    out = clip_footstep_on_gait_config(Pose2D(*move), left_support)
    assert (out.x, out.y, out.theta) == pytest.approx(expected)


def test_gait_box_returns_same_object_when_inside():
    m = Pose2D(0.01, 0.1, 0.0)
    assert clip_footstep_on_gait_config(m, False) is m


# --------------------------------------- libalmath clipFootWithEllipse values
@pytest.mark.parametrize(
    "a, b, move, expected, changed",
    [
        (0.08, 0.06, (0.05, 0.04, 0.1), (0.05, 0.04, 0.1), False),
        (0.08, 0.06, (0.08, 0.06, 0.5), (0.05656, 0.04242, 0.5), True),
        (0.08, 0.06, (-0.08, -0.05, 0.5), (-0.06145, -0.03841, 0.5), True),
        (0.04, 0.06, (-0.04, 0.06, -0.5), (-0.02828, 0.04242, -0.5), True),
        # libalmath test: negative half-axes are taken by absolute value
        (-0.04, -0.06, (-0.04, 0.06, -0.5), (-0.02828, 0.04242, -0.5), True),
        # libalmath test: on the ellipse -> inside (tolerance 1.00001)
        (0.06, 0.16, (0.0, 0.16, 0.0), (0.0, 0.16, 0.0), False),
    ],
)
def test_clip_foot_with_ellipse_check_values(a, b, move, expected, changed):
    out, did = clip_foot_with_ellipse(a, b, Pose2D(*move))
    assert did is changed
    assert (out.x, out.y, out.theta) == pytest.approx(expected, abs=1e-5)


def test_clip_foot_with_ellipse_is_radial_and_lands_on_the_ellipse():
    rng = np.random.default_rng(3)
    for _ in range(500):
        a, b = rng.uniform(0.01, 0.1, 2)
        x, y = rng.uniform(-0.3, 0.3, 2)
        out, did = clip_foot_with_ellipse(a, b, Pose2D(x, y, 0.3))
        inside = x * x / a**2 + y * y / b**2 < 1.00001
        assert did is (not inside)
        if did:
            assert out.x**2 / a**2 + out.y**2 / b**2 == pytest.approx(1.0)
            # same direction from the origin (radial, not nearest point)
            assert math.atan2(out.y, out.x) == pytest.approx(math.atan2(y, x))
            assert out.theta == 0.3


def test_clip_foot_with_ellipse_tolerance_boundary():
    a, b = 0.08, 0.06
    just_in = math.sqrt(1.000009) * a
    just_out = math.sqrt(1.000011) * a
    assert clip_foot_with_ellipse(a, b, Pose2D(just_in, 0.0, 0.0))[1] is False
    out, did = clip_foot_with_ellipse(a, b, Pose2D(just_out, 0.0, 0.0))
    assert did and out.x == pytest.approx(a)


def test_clip_foot_with_ellipse_degenerate_axes():
    # a = 0: only the y axis remains; on it, clip along it; off it, to the origin
    assert clip_foot_with_ellipse(0.0, 0.06, Pose2D(0.0, 0.05, 0.2)) == (Pose2D(0.0, 0.05, 0.2), False)
    assert clip_foot_with_ellipse(0.0, 0.06, Pose2D(0.0, -0.1, 0.2)) == (Pose2D(0.0, -0.06, 0.2), True)
    assert clip_foot_with_ellipse(0.0, 0.06, Pose2D(0.01, 0.01, 0.2)) == (Pose2D(0.0, 0.0, 0.2), True)
    # b = 0: only the x axis remains
    assert clip_foot_with_ellipse(0.04, 0.0, Pose2D(-0.1, 0.0, 0.0)) == (Pose2D(-0.04, 0.0, 0.0), True)
    assert clip_foot_with_ellipse(0.04, 0.0, Pose2D(0.02, 0.0, 0.0))[1] is False
    assert clip_foot_with_ellipse(0.04, 0.0, Pose2D(0.02, 0.001, 0.0)) == (Pose2D(0.0, 0.0, 0.0), True)
    # a = b = 0: a point
    assert clip_foot_with_ellipse(0.0, 0.0, Pose2D(0.0, 0.0, 1.0))[1] is False
    assert clip_foot_with_ellipse(0.0, 0.0, Pose2D(0.1, 0.0, 1.0)) == (Pose2D(0.0, 0.0, 1.0), True)
    for out, _ in (clip_foot_with_ellipse(0.0, 0.0, Pose2D(1.0, 1.0, 0.0)),):
        assert math.isfinite(out.x) and math.isfinite(out.y)


# ------------------------------------------------------ stage 2: ellipse stage
def test_ellipse_stage_skips_inside_min_separation():
    for y in (0.088, -0.088, 0.05, 0.0):
        m = Pose2D(0.5, y, 0.0)  # huge x, but |y| <= MinFootSeparation: skipped (seed)
        assert clip_footstep_with_ellipse(m) is m


def test_ellipse_stage_shift_and_axes():
    # Forward: a = MaxStepX = 0.08, b = 0.16 - 0.088 = 0.072 on the shifted y.
    m = clip_footstep_with_ellipse(Pose2D(0.08, 0.16, 0.1))
    th = math.atan2(0.072, 0.08)
    t = 0.08 * 0.072 / math.hypot(0.072 * math.cos(th), 0.08 * math.sin(th))
    assert (m.x, m.y, m.theta) == pytest.approx((t * math.cos(th), t * math.sin(th) + 0.088, 0.1))
    # Backward: a = |MinStepX| = 0.04 (the cha-cha's step 5 request).
    m = clip_footstep_with_ellipse(Pose2D(-0.04, -0.1, 0.0))
    th = math.atan2(-0.012, -0.04)
    t = 0.04 * 0.072 / math.hypot(0.072 * math.cos(th), 0.04 * math.sin(th))
    assert (m.x, m.y) == pytest.approx((t * math.cos(th), t * math.sin(th) - 0.088))
    assert ellipse_norm(m) == pytest.approx(1.0)
    # Inside: the very same object comes back (no shift round-off).
    inside = Pose2D(0.04, 0.14, 0.0)
    assert clip_footstep_with_ellipse(inside) is inside


# --------------------------------------------- stage 3: avoidFootCollision
def test_avoid_foot_collision_check_value():
    # algorithms.md: right-foot boxes at 0.08, right support, (0, 0.1, 0) -> unchanged, False
    out, collided = avoid_foot_collision(L_BOX_08, R_BOX_08, False, Pose2D(0.0, 0.1, 0.0))
    assert collided is False and out == Pose2D(0.0, 0.1, 0.0)


def test_avoid_foot_collision_libalmath_bisection_value():
    # libalmath's own test: (0, 0.085, 40 deg) -> theta 0.196349 (= 9/32 of 40 deg), True
    out, collided = avoid_foot_collision(L_BOX_08, R_BOX_08, False, Pose2D(0.0, 0.085, math.radians(40)))
    assert collided is True
    assert (out.x, out.y) == (0.0, 0.085)
    assert out.theta == pytest.approx(0.196349, abs=1e-4)


def test_avoid_foot_collision_theta_zero_and_translation_overlap():
    # Overlapping by translation alone: nothing to bisect, theta stays 0, reported.
    out, collided = avoid_foot_collision(L_BOX_08, R_BOX_08, False, Pose2D(0.0, 0.05, 0.0))
    assert collided and out == Pose2D(0.0, 0.05, 0.0)
    out, collided = avoid_foot_collision(L_BOX_08, R_BOX_08, False, Pose2D(0.0, 0.05, 0.3))
    assert collided and out.theta == 0.0 and (out.x, out.y) == (0.0, 0.05)


def test_avoid_foot_collision_properties_random():
    rng = np.random.default_rng(4)
    boxes = NAO_FOOT_BOXES
    checked = 0
    for _ in range(3000):
        left_support = bool(rng.integers(2))
        side = -1.0 if left_support else 1.0
        m = Pose2D(rng.uniform(-0.04, 0.08), side * rng.uniform(0.088, 0.16), rng.uniform(-0.524, 0.524))
        out, collided = avoid_foot_collision(boxes.left, boxes.right, left_support, m)
        assert (out.x, out.y) == (m.x, m.y)  # only theta is ever changed
        # the module's edge-crossing test and the separating-axis test agree
        assert collided is feet_overlap(m, left_support)
        assert feet_overlap_along(m.x, m.y, np.array([m.theta]), left_support)[0] == collided
        if not collided:
            assert out == m and not feet_overlap(m, left_support)
            continue
        assert not feet_overlap(out, left_support)
        assert 0.0 <= out.theta / m.theta <= 1.0 if m.theta else out.theta == 0.0
        # The first contact angle, sampled finely with the independent test.
        ts = np.linspace(0.0, m.theta, 4001)
        hits = feet_overlap_along(m.x, m.y, ts, left_support)
        if np.count_nonzero(hits[1:] != hits[:-1]) != 1:
            continue  # non-monotone contact: the bisection bound does not apply
        contact = ts[np.argmax(hits)]
        # 5 halvings: within |theta| / 32 of the contact (plus the sampling step)
        assert abs(out.theta) <= abs(contact) + abs(m.theta) / 4000
        assert abs(contact) - abs(out.theta) <= abs(m.theta) / 32 + abs(m.theta) / 4000
        checked += 1
    assert checked > 100


def test_box_collision_semantics():
    unit = ((1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0))
    # corner touching corner: edges meet at an end point -> collision (libalmath)
    assert boxes_collide(unit, tuple((x + 2.0, y + 2.0) for x, y in unit))
    # edge against edge: the perpendicular edges meet at their end points -> collision
    assert boxes_collide(unit, tuple((x + 2.0, y + 0.5) for x, y in unit))
    # a hair apart -> none
    assert not boxes_collide(unit, tuple((x + 2.0 + 1e-9, y + 0.5) for x, y in unit))
    # containment without any crossing -> collision via a vertex strictly inside
    small = ((0.1, 0.1), (0.1, -0.1), (-0.1, -0.1), (-0.1, 0.1))
    assert boxes_collide(unit, small) and boxes_collide(small, unit)
    # apart
    assert not boxes_collide(unit, tuple((x + 2.5, y) for x, y in unit))
    # libalmath's segment cases: T-junction at the end point counts, 1e-4 beyond does not
    assert segments_intersect((0, -1), (0, 1), (-1, 1), (1, 1))
    assert not segments_intersect((0, -1), (0, 1), (-1, 1.0001), (1, 1.0001))
    assert not segments_intersect((0, -1), (0, 1), (0, 0.5), (0, 1.5))  # collinear


# --------------------------------------------------------- the whole chain
def test_clip_footstep_chains_the_stages_in_order():
    rng = np.random.default_rng(5)
    for _ in range(500):
        left_support = bool(rng.integers(2))
        m = Pose2D(rng.uniform(-0.2, 0.2), rng.uniform(-0.3, 0.3), rng.uniform(-1.5, 1.5))
        expected = clip_footstep_to_avoid_collision(
            clip_footstep_with_ellipse(clip_footstep_on_gait_config(m, left_support)), left_support
        )
        assert clip_footstep(m, left_support) == expected


def test_clip_footstep_refuses_non_finite():
    for bad in (Pose2D(float("nan"), 0.1, 0.0), Pose2D(0.0, float("inf"), 0.0)):
        with pytest.raises(InvalidCommandError):
            clip_footstep(bad, False)


def test_clipping_uses_extremal_limits():
    assert (
        EXTREMAL_CLIP_LIMITS.max_step_x_m,
        EXTREMAL_CLIP_LIMITS.min_step_x_m,
        EXTREMAL_CLIP_LIMITS.max_step_y_m,
        EXTREMAL_CLIP_LIMITS.max_step_theta_rad,
        EXTREMAL_CLIP_LIMITS.min_foot_separation_m,
    ) == (MAX_X, MIN_X, MAX_Y, MAX_T, SEP)


def test_10000_random_requests_end_inside_box_ellipse_and_apart():
    rng = np.random.default_rng(6)
    n = 10_000
    xs = rng.uniform(-0.25, 0.25, n)
    ys = rng.uniform(-0.35, 0.35, n)
    ts = rng.uniform(-1.6, 1.6, n)
    sides = rng.integers(2, size=n).astype(bool)
    changed = 0
    for x, y, t, left_support in zip(xs, ys, ts, sides):
        m = Pose2D(float(x), float(y), float(t))
        out = clip_footstep(m, bool(left_support))
        changed += out != m
        assert in_gait_box(out, left_support), (m, out)
        assert ellipse_norm(out) < 1.00001 + 1e-9, (m, out)
        assert not feet_overlap(out, left_support), (m, out)
    assert changed > n // 2  # the requests really were out of bounds


def test_planner_feasibility_never_disagrees_with_clipping():
    """What the planners accept, NAOqi's clipping leaves alone (and the fast
    separating-axis box test never calls a libalmath collision 'apart')."""
    from nao_motion.footsteps import GaitConfig, Leg
    from nao_motion.footsteps.foot_boxes import place_box, rectangles_separated
    from nao_motion.footsteps.walk_pattern import is_step_feasible

    rng = np.random.default_rng(9)
    gait = GaitConfig(max_step_x_m=0.08, max_step_y_m=0.16, max_step_theta_rad=0.524)
    accepted = 0
    for _ in range(5000):
        leg = Leg.LEFT if rng.integers(2) else Leg.RIGHT
        side = leg.side
        m = Pose2D(rng.uniform(-0.05, 0.09), side * rng.uniform(0.08, 0.17), rng.uniform(-0.6, 0.6))
        if is_step_feasible(m, leg, gait):
            accepted += 1
            out = clip_footstep(m, leg is Leg.RIGHT)
            assert abs(out.x - m.x) <= 1e-9 and abs(out.y - m.y) <= 1e-9 and out.theta == m.theta
        fixed, moving = (NAO_FOOT_BOXES.left, NAO_FOOT_BOXES.right) if leg is Leg.RIGHT else (
            NAO_FOOT_BOXES.right, NAO_FOOT_BOXES.left)
        if rectangles_separated(fixed, moving, m):
            assert not boxes_collide(fixed, place_box(moving, m))
            assert not feet_overlap(m, leg is Leg.RIGHT)
    assert 1000 < accepted < 5000
