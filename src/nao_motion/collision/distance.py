"""Signed distances between NAO self-collision primitives (spheres and capsules).

NAOqi approximates NAO's body by spheres (head, hips, torso) and capsules (arms,
legs).  A capsule is the set of points within radius ``r`` of a segment
``[p, q]``; a sphere is the same thing with ``p == q``.  Therefore every pair
(sphere-sphere, sphere-capsule, capsule-capsule) reduces to one problem: the
closest points between two segments (Ericson, *Real-Time Collision Detection*,
section 5.1.9), from which the radii are subtracted.  This module implements
that routine once, vectorised over ``N`` pairs with numpy (no Python loop over
pairs), and exposes thin, explicitly named wrappers for the three pair types.

Conventions
-----------
* Shape A is ``(p1, q1, r1)``, shape B is ``(p2, q2, r2)``.  Points are in
  metres, in any common frame.
* ``s`` / ``t`` are the segment parameters of the closest axis points:
  ``axis_point_a = p1 + s (q1 - p1)`` and ``axis_point_b = p2 + t (q2 - p2)``,
  ``s, t`` in ``[0, 1]``.  For a zero-length segment the parameter is 0.
* ``distance_m`` is the signed surface-to-surface distance
  ``|axis_point_b - axis_point_a| - r1 - r2`` (negative = penetration depth).
* ``normal`` is the unit contact normal pointing from A to B.  The surface
  points are ``point_a = axis_point_a + r1 n`` and
  ``point_b = axis_point_b - r2 n``, so for every pair (separated or
  penetrating) ``point_b - point_a == distance_m * normal``.  Translating B by
  ``+delta * normal`` increases ``distance_m`` by ``delta`` (it is the gradient of
  the distance with respect to B's translation), which is what the NAOqi-style
  avoidance constraint (velocity projected on the contact normal) needs.

Degenerate cases (deliberate, documented choices)
-------------------------------------------------
* A segment whose squared length is ``<= eps_len2`` (default 1e-12 m^2, i.e.
  shorter than 1 micrometre) is treated as the point ``p``.  This is handled
  without branches by substituting safe values into Ericson's formulas.
* Segments with ``a e - b^2 <= eps_parallel * a e`` (``sin^2`` of the angle
  between them below 1e-12) are treated as parallel: ``s`` starts at 0 and is
  then fixed up by Ericson's clamping steps, which gives the exact distance for
  parallel and collinear segments.
* When the axes (nearly) touch - ``|axis_point_b - axis_point_a| <=
  eps_normal`` (default 1e-9 m): intersecting axes, collinear overlapping
  segments, a sphere centre on a capsule axis, coincident sphere centres - the
  direction ``axis_point_b - axis_point_a`` is undefined, and a fallback normal
  is used (``normal_fallback`` is True for those rows), never NaN:

  1. non-parallel, non-degenerate segments: ``cross(d1, d2)`` (perpendicular to
     both axes);
  2. otherwise, if at least one segment has a length: a vector perpendicular to
     the longer segment, ``cross(d, e_k)`` with ``e_k`` the basis axis least
     aligned with ``d``;
  3. otherwise (two spheres with coincident centres): ``DEFAULT_NORMAL``
     (+z of the frame the points are expressed in).

  No "from A to B" orientation exists in these configurations (both axes
  pass through the contact point, so any vector between them is along the
  axes), so the sign is simply the one above.  Case 1 is antisymmetric
  (swapping A and B negates ``cross(d1, d2)``); cases 2 and 3 are not (they
  depend on the longer segment only / are constant).  With a fallback normal,
  ``distance_m = -(r1 + r2)`` (up to ``eps_normal``), the penetration depth
  is reported along that normal, and translating B along it separates the
  shapes.

Speed
-----
The control loop calls this every 10 ms for 30-60 pairs.  Create a
:class:`DistanceWorkspace` once for the fixed pair count and pass it on every
call: all intermediate and result arrays then live in the workspace and every
numpy operation writes into them (``out=``), so the call creates no per-pair
temporary arrays (numpy may still use its small fixed-size iteration buffers;
the fallback-normal path, taken only when axes touch, allocates a few small
arrays for those rows).  The returned :class:`DistanceResult` then *views the
workspace buffers*, which the next call overwrites - use
:meth:`DistanceResult.copy` to keep one.  Without a workspace a fresh one is
created per call (fresh result arrays, ~15 % slower at N = 40).  The cost is
dominated by numpy's per-operation overhead (~60 small ufunc calls), not by N:
about 40 us per batch call for N = 40 and 45 us for N = 60 on the development
machine (benchmarks/bench_collision_distance.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

# np.clip's ufunc: one call where np.clip's wrapper costs several microseconds. Its module is
# numpy._core from numpy 2, numpy.core in 1.26 (Ubuntu 24.04's, under a sourced distribution).
ufunc_clip = (np._core if hasattr(np, "_core") else np.core).umath.clip
# The dot product of the last axes, broadcast over the others (rows, stacks): numpy 2's vecdot, one
# call where a product and a sum take three times as long; einsum on numpy 1.26.
rowwise_dot = np.vecdot if hasattr(np, "vecdot") else partial(np.einsum, "...i,...i->...")

__all__ = [
    "DEFAULT_NORMAL",
    "NORMAL_EPS_M",
    "PARALLEL_EPS",
    "SEGMENT_EPS_M2",
    "DistanceResult",
    "DistanceWorkspace",
    "all_set",
    "any_set",
    "ufunc_clip",
    "rowwise_dot",
    "capsule_capsule_distance",
    "segment_segment_distance",
    "sphere_capsule_distance",
    "sphere_sphere_distance",
]

#: Squared segment length (m^2) at or below which a segment is treated as a point.
SEGMENT_EPS_M2 = 1e-12
#: Relative threshold on ``(a e - b^2) / (a e)`` (= sin^2 of the angle between the
#: segments) at or below which two segments are treated as parallel.
PARALLEL_EPS = 1e-12
#: Axis-to-axis distance (m) at or below which the fallback normal is used.
NORMAL_EPS_M = 1e-9
#: Fallback normal for coincident sphere centres (frame +z).
DEFAULT_NORMAL = (0.0, 0.0, 1.0)


def any_set(mask: np.ndarray) -> bool:
    """Whether a bool array holds a True: its bytes searched for a 1 (0.2 us on a few dozen
    entries, where ndarray.any(), a reduction, costs 2.5 us; the control cycle asks a dozen times)."""
    return 1 in mask.tobytes()


def all_set(mask: np.ndarray) -> bool:
    """Whether every entry of a bool array is True (as :func:`any_set`, searching for a 0)."""
    return 0 not in mask.tobytes()


@dataclass
class DistanceResult:
    """Distance query result for ``N`` pairs (A = first shape, B = second).

    Attributes (shapes for a batch of N pairs; a single-pair call drops the
    leading axis):
        distance_m: (N,) signed surface distance, m; negative = penetration.
        point_a: (N, 3) closest point on A's surface (deepest point if penetrating).
        point_b: (N, 3) closest point on B's surface.
        normal: (N, 3) unit contact normal from A to B.
        s: (N,) parameter of ``axis_point_a`` on A's segment, in [0, 1].
        t: (N,) parameter of ``axis_point_b`` on B's segment, in [0, 1].
        axis_point_a: (N, 3) closest point on A's axis segment.
        axis_point_b: (N, 3) closest point on B's axis segment.
        normal_fallback: (N,) bool, True where the axes touch and ``normal`` is
            the documented fallback direction rather than the axis difference.
    """

    distance_m: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    normal: np.ndarray
    s: np.ndarray
    t: np.ndarray
    axis_point_a: np.ndarray
    axis_point_b: np.ndarray
    normal_fallback: np.ndarray

    def pair(self, i: int) -> "DistanceResult":
        """Result of pair ``i`` alone (fields of shape () and (3,))."""
        return DistanceResult(
            self.distance_m[i], self.point_a[i], self.point_b[i], self.normal[i],
            self.s[i], self.t[i], self.axis_point_a[i], self.axis_point_b[i],
            self.normal_fallback[i],
        )

    def copy(self) -> "DistanceResult":
        """Deep copy (use it to keep a workspace-backed result past the next call)."""
        return DistanceResult(
            self.distance_m.copy(), self.point_a.copy(), self.point_b.copy(),
            self.normal.copy(), self.s.copy(), self.t.copy(),
            self.axis_point_a.copy(), self.axis_point_b.copy(),
            self.normal_fallback.copy(),
        )


class DistanceWorkspace:
    """Preallocated buffers for a fixed number of pairs ``n``.

    Build it once (e.g. when the collision model is loaded) and pass it to
    :func:`capsule_capsule_distance` (or the other wrappers) every cycle.  The
    returned :attr:`result` is the same object on every call and its arrays are
    overwritten by each call.

    ``leading_of``: a workspace for the leading ``n`` pairs of another one, whose end points,
    radii and results it views (its scratch is its own): an owner that fills the other's
    :attr:`ends` computes only those pairs when the others do not matter (the collision
    filter's obstacle pairs while no obstacle is declared), the others' results left as they
    were.
    """

    def __init__(self, n: int, leading_of: "DistanceWorkspace | None" = None):
        n = int(n)
        if n < 0:
            raise ValueError(f"pair count must be >= 0, got {n}")
        if leading_of is not None and not 0 <= n <= leading_of.n:
            raise ValueError(f"the leading {n} pairs of a workspace of {leading_of.n}")
        self.n = n
        f8 = np.float64
        # Both shapes' axis end points stacked, rows q1, q2, p1, p2, p2 (B's start twice): d1 =
        # q1 - p1, d2 = q2 - p2 and r = p1 - p2 are one subtraction of rows 2-4 from rows 0-2, and
        # every operand below is contiguous (strided (n, 3) views cost twice as much per call). An
        # owner fills it (e.g. by one gather) and calls compute_ends; compute copies its arguments in.
        self.ends = np.zeros((5, n, 3), f8) if leading_of is None else leading_of.ends[:, :n]
        self._p1, self._p2 = self.ends[2], self.ends[3]
        self._p12 = self.ends[2:4]
        #: Radii (2, n, 1): A's, then B's negated (B's surface point is its axis point minus n r2).
        self.signed_radius_m = np.zeros((2, n, 1), f8) if leading_of is None else leading_of.signed_radius_m[:, :n]
        # d1, d2, r (3, n, 3); _d12 views d1 and d2 as (2, n, 3).
        self._dd = np.empty((3, n, 3), f8)
        self._d12 = self._dd[0:2]
        # The Gram entries of (d1, d2) with (d1, d2, r), (2, 3, n): rows a b c / b21 e f (b21 = d2.d1
        # = b, which the 2 x 2 minors below read), in one call (the dot products are those of
        # the batched matrix product this replaced, bit for bit).
        self._gram = np.empty((2, 3, n), f8)
        self._gram_pairs = (self._dd[0:2, None], self._dd[None, 0:3])
        self._gram_diagonal = self._gram.reshape(6, n)[0::4]  # a, e
        g = self._gram
        self._gram_rows = g
        self._a, self._b, self._c = g[0, 0], g[0, 1], g[0, 2]
        self._b21, self._e, self._f = g[1, 0], g[1, 1], g[1, 2]
        # (a e, b f) - (b b, c e) = (denominator, numerator) of s, in three calls.
        self._minor_left = np.empty((2, n), f8)
        self._minor_right = np.empty((2, n), f8)
        self._minors = np.empty((2, n), f8)
        # Scalar scratch.
        self._tmp1 = np.empty(n, f8)
        self._t_free = np.empty(n, f8)
        # Point segments, (2, n): A's (a <= eps), B's (e <= eps), compared with the Gram matrix's
        # diagonal view in one call. Segment lengths rarely change (a body shape's never, an
        # obstacle's when it is declared): the Gram entries they override are kept as one mask
        # (_point_overrides), rebuilt when the points change (_points_seen), and set in one call.
        self._deg = np.zeros((2, n), bool)
        self._deg1, self._deg2 = self._deg[0], self._deg[1]
        self._point_overrides = np.zeros((2, 3, n), bool)
        self._any_point = False
        self._points_seen = self._deg.tobytes()
        self._mask = np.empty(n, bool)
        self._mask_col = self._mask[:, None]
        # Results: s and t stacked (2, n), the axis points and the surface points (2, n, 3) (one
        # call of the core or an owner treats both shapes). Zeros until computed: an owner that
        # computes only the leading pairs at times (``leading_of``) reads the others finite.
        if leading_of is None:
            self._st = np.zeros((2, n), f8)
            self._axis_points = np.zeros((2, n, 3), f8)
            self.points = np.zeros((2, n, 3), f8)
            dist, normal, fallback = np.zeros(n, f8), np.zeros((n, 3), f8), np.zeros(n, bool)
        else:
            self._st, self._axis_points = leading_of._st[:, :n], leading_of._axis_points[:, :n]
            self.points = leading_of.points[:, :n]
            of = leading_of.result
            dist, normal, fallback = of.distance_m[:n], of.normal[:n], of.normal_fallback[:n]
        s, t = self._st
        self._st_col = self._st[:, :, None]
        axis_a, axis_b = self._axis_points
        #: The closest points stacked, (2, n, 3): result.point_a and point_b are its views.
        point_a, point_b = self.points
        self._dist_col = dist[:, None]
        self.result = DistanceResult(
            distance_m=dist, point_a=point_a, point_b=point_b, normal=normal,
            s=s, t=t, axis_point_a=axis_a, axis_point_b=axis_b,
            normal_fallback=fallback,
        )

    def compute(self, p1: np.ndarray, q1: np.ndarray, r1: np.ndarray, p2: np.ndarray, q2: np.ndarray,
                r2: np.ndarray) -> DistanceResult:
        """:func:`capsule_capsule_distance` of n pairs given in the workspace's shapes ((n, 3)
        points, (n, 1) radii or scalars), without the argument checks and conversions."""
        self._take_pairs(p1, q1, r1, p2, q2, r2)
        return self.compute_ends()

    def _take_pairs(self, p1: np.ndarray, q1: np.ndarray, r1: np.ndarray, p2: np.ndarray, q2: np.ndarray,
                    r2: np.ndarray) -> None:
        """Copy separate end points and radii into :attr:`ends` and :attr:`signed_radius_m`."""
        ends = self.ends
        np.copyto(ends[0], q1)
        np.copyto(ends[1], q2)
        np.copyto(ends[2], p1)
        np.copyto(ends[3], p2)
        np.copyto(ends[4], p2)
        np.copyto(self.signed_radius_m[0], r1)
        np.negative(r2, out=self.signed_radius_m[1])

    def compute_ends(self) -> DistanceResult:
        """The distances of the pairs in :attr:`ends` with the radii in :attr:`signed_radius_m`
        (the per-cycle call of an owner that fills them itself)."""
        _compute(self, SEGMENT_EPS_M2, PARALLEL_EPS, NORMAL_EPS_M)
        return self.result


def _as_points(x, name: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x.reshape(1, 3) if x.shape == (3,) else x
    if x.ndim != 2 or x.shape[1] != 3:
        raise ValueError(f"{name} must have shape (N, 3) or (3,), got {np.shape(x)}")
    return x


def _as_radii(r, n: int, name: str) -> np.ndarray:
    r = np.asarray(r, dtype=np.float64)
    if r.ndim == 0:
        return r
    if r.shape == (n,):
        return r[:, None]
    raise ValueError(f"{name} must be a scalar or have shape ({n},), got {r.shape}")


def capsule_capsule_distance(
    p1, q1, r1, p2, q2, r2, *,
    workspace: DistanceWorkspace | None = None,
    eps_len2: float = SEGMENT_EPS_M2,
    eps_parallel: float = PARALLEL_EPS,
    eps_normal: float = NORMAL_EPS_M,
) -> DistanceResult:
    """Signed distance between capsules A = (p1, q1, r1) and B = (p2, q2, r2).

    This is the core routine; spheres are capsules with ``p == q``.

    Args:
        p1, q1: (N, 3) endpoints of A's axis segment (or (3,) for one pair).
        r1: (N,) or scalar radius of A (>= 0), m.
        p2, q2: (N, 3) endpoints of B's axis segment.
        r2: (N,) or scalar radius of B.
        workspace: preallocated :class:`DistanceWorkspace` with ``n == N``; the
            result then views its buffers (overwritten on the next call).
        eps_len2: squared length (m^2) below which a segment is a point.
        eps_parallel: relative parallel threshold (sin^2 of the angle).
        eps_normal: axis distance (m) below which the fallback normal is used.

    Returns:
        :class:`DistanceResult` with (N,)/(N, 3) arrays, or ()/(3,) arrays when
        all four point arguments were (3,) (single pair).
    """
    single = np.ndim(p1) == 1 and np.ndim(q1) == 1 and np.ndim(p2) == 1 and np.ndim(q2) == 1
    p1 = _as_points(p1, "p1")
    q1 = _as_points(q1, "q1")
    p2 = _as_points(p2, "p2")
    q2 = _as_points(q2, "q2")
    n = p1.shape[0]
    if q1.shape[0] != n or p2.shape[0] != n or q2.shape[0] != n:
        raise ValueError(
            f"inconsistent pair counts: {p1.shape}, {q1.shape}, {p2.shape}, {q2.shape}")
    r1c = _as_radii(r1, n, "r1")
    r2c = _as_radii(r2, n, "r2")
    if workspace is None:
        workspace = DistanceWorkspace(n)
    elif workspace.n != n:
        raise ValueError(f"workspace is for {workspace.n} pairs, got {n}")
    workspace._take_pairs(p1, q1, r1c, p2, q2, r2c)
    _compute(workspace, eps_len2, eps_parallel, eps_normal)
    res = workspace.result
    return res.pair(0) if single else res


def _compute(ws: DistanceWorkspace, eps_len2: float, eps_parallel: float, eps_normal: float) -> None:
    """Vectorised Ericson 5.1.9 for all pairs of ``ws.ends``; writes ``ws.result``. Both shapes'
    vectors are stacked, so one numpy call treats both: at a few dozen pairs the core's cost is
    its number of numpy calls (about a microsecond each), hardly their sizes."""
    a, b, c, e, f = ws._a, ws._b, ws._c, ws._e, ws._f
    tmp1, t_free = ws._tmp1, ws._t_free
    mask = ws._mask
    res = ws.result
    s, t = res.s, res.t

    np.subtract(ws.ends[0:3], ws.ends[2:5], out=ws._dd)  # d1, d2, r
    # Gram entries: a = d1.d1, b = d1.d2, c = d1.r, e = d2.d2, f = d2.r (and d2.d1 = b).
    rowwise_dot(*ws._gram_pairs, out=ws._gram)

    # Degenerate segments -> points, without branches: for a point A set
    # (a, b, c) = (1, 0, 0), which forces s = 0 through every formula below;
    # for a point B set (e, b, f) = (1, 0, 0), which gives t = 0 and
    # s = clamp(-c / a).  Both points -> s = t = 0. (b is also d2.d1, b21.)
    np.less_equal(ws._gram_diagonal, eps_len2, out=ws._deg)
    points = ws._deg.tobytes()
    if points != ws._points_seen:
        ws._points_seen = points
        _point_overrides(ws)
    if ws._any_point:
        np.copyto(ws._gram, _POINT_GRAM, where=ws._point_overrides)

    # s = clamp((b f - c e) / (a e - b^2)) unless parallel, where s = 0.
    g = ws._gram_rows
    np.multiply(g[0, 0:2], g[1, 1:3], out=ws._minor_left)   # a e, b f
    np.multiply(g[0, 1:3], g[1, 0:2], out=ws._minor_right)  # b b, c e
    np.subtract(ws._minor_left, ws._minor_right, out=ws._minors)
    denominator, numerator = ws._minors
    np.multiply(ws._minor_left[0], eps_parallel, out=tmp1)  # parallel threshold
    np.greater(denominator, tmp1, out=mask)                 # not parallel
    s.fill(0.0)
    np.divide(numerator, denominator, out=s, where=mask)
    ufunc_clip(s, 0.0, 1.0, out=s)

    # t = (b s + f) / e; where it leaves [0, 1], t is clamped and s = clamp((b t - c) / a)
    # (t = 0: -c / a; t = 1: (b - c) / a).
    np.multiply(b, s, out=t_free)
    np.add(t_free, f, out=t_free)
    np.divide(t_free, e, out=t_free)
    ufunc_clip(t_free, 0.0, 1.0, out=t)
    np.not_equal(t_free, t, out=mask)
    np.multiply(b, t, out=tmp1)
    np.subtract(tmp1, c, out=tmp1)
    np.divide(tmp1, a, out=tmp1)
    np.copyto(s, tmp1, where=mask)
    ufunc_clip(s, 0.0, 1.0, out=s)

    # Closest axis points (d1 / d2 are untouched, so a point segment gives p).
    axis, normal = ws._axis_points, res.normal
    np.multiply(ws._st_col, ws._d12, out=axis)
    np.add(axis, ws._p12, out=axis)
    np.subtract(axis[1], axis[0], out=normal)
    dist = res.distance_m
    rowwise_dot(normal, normal, out=dist)
    np.sqrt(dist, out=dist)
    fallback = res.normal_fallback
    np.less_equal(dist, eps_normal, out=fallback)
    np.logical_not(fallback, out=mask)
    np.divide(normal, ws._dist_col, out=normal, where=ws._mask_col)
    if any_set(fallback):
        _fallback_normals(ws, eps_parallel)

    # Surfaces (axis point + n r1, axis point - n r2) and signed distance.
    np.multiply(normal, ws.signed_radius_m, out=ws.points)
    np.add(ws.points, axis, out=ws.points)
    np.subtract(ws._dist_col, ws.signed_radius_m[0], out=ws._dist_col)
    np.add(ws._dist_col, ws.signed_radius_m[1], out=ws._dist_col)


# The Gram entries of point segments: rows a b c / b21 e f.
_POINT_GRAM = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])[:, :, None]


def _point_overrides(ws: DistanceWorkspace) -> None:
    """Which Gram entries the point segments override: a and c of a point A, e and f of a
    point B, b and b21 of either."""
    deg1, deg2, overrides = ws._deg1, ws._deg2, ws._point_overrides
    overrides.fill(False)
    either = deg1 | deg2
    overrides[0, 0] = overrides[0, 2] = deg1
    overrides[1, 1] = overrides[1, 2] = deg2
    overrides[0, 1] = overrides[1, 0] = either
    ws._any_point = bool(either.any())


def _fallback_normals(ws: DistanceWorkspace, eps_parallel: float) -> None:
    """Fill ``normal`` for rows whose axes touch (see module docstring)."""
    res = ws.result
    idx = np.flatnonzero(res.normal_fallback)
    d1 = ws._dd[0, idx]
    d2 = ws._dd[1, idx]
    deg1 = ws._deg1[idx]
    deg2 = ws._deg2[idx]
    # Original squared lengths (a, e were overwritten with 1 for points).
    la = np.where(deg1, 0.0, ws._a[idx])
    le = np.where(deg2, 0.0, ws._e[idx])

    # 1. Perpendicular to both axes.
    n = np.cross(d1, d2)
    ok = ~deg1 & ~deg2 & (np.einsum("ij,ij->i", n, n) > eps_parallel * la * le)
    # 2. Perpendicular to the longer axis.
    use_d1 = la >= le
    d = np.where(use_d1[:, None], d1, d2)
    k = np.argmin(np.abs(d), axis=1)
    n_perp = np.cross(d, np.eye(3)[k])
    has_len = ~(deg1 & deg2)
    n = np.where(ok[:, None], n, np.where(has_len[:, None], n_perp, DEFAULT_NORMAL))
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    res.normal[idx] = n


def segment_segment_distance(p1, q1, p2, q2, **kwargs) -> DistanceResult:
    """Closest points between segments [p1, q1] and [p2, q2] (radii 0).

    Same arguments and result as :func:`capsule_capsule_distance` without the
    radii; ``distance_m`` is the (unsigned) segment-segment distance.
    """
    return capsule_capsule_distance(p1, q1, 0.0, p2, q2, 0.0, **kwargs)


def sphere_sphere_distance(c1, r1, c2, r2, **kwargs) -> DistanceResult:
    """Signed distance between spheres A = (c1, r1) and B = (c2, r2).

    Args:
        c1, c2: (N, 3) centres (or (3,) for one pair); r1, r2: (N,) or scalar.
        **kwargs: ``workspace`` and eps overrides, as for
            :func:`capsule_capsule_distance`.

    ``s`` and ``t`` are 0.  Coincident centres give ``normal = DEFAULT_NORMAL``.
    """
    return capsule_capsule_distance(c1, c1, r1, c2, c2, r2, **kwargs)


def sphere_capsule_distance(c, r_sphere, p, q, r_capsule, **kwargs) -> DistanceResult:
    """Signed distance between sphere A = (c, r_sphere) and capsule B = (p, q, r_capsule).

    The sphere is shape A (normal points from the sphere to the capsule; ``s``
    is 0 and ``t`` is the projection of the centre on the capsule axis, clamped
    to the segment - NAOqi's "case 1 / case 2").  For the capsule as shape A,
    call :func:`capsule_capsule_distance` with ``p2 = q2 = c``.
    """
    return capsule_capsule_distance(c, c, r_sphere, p, q, r_capsule, **kwargs)
