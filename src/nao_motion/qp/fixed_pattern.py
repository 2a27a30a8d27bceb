"""A QP whose sparsity pattern is fixed at set-up; each cycle only its values change (OSQP).

    minimise 1/2 x' P x + q' x   subject to   l <= A x <= u

The caller fills dense buffers (``P``, ``A``) and vectors (``q``, ``l``, ``u``) in place, then
:meth:`FixedPatternQP.update` gathers the values at the pattern's positions into OSQP's CSC
data arrays (one ``take`` each, orders prepared at set-up) and hands them over, and
:meth:`FixedPatternQP.solve` solves, warm-started from the previous solution and duals. A row
that is not needed this cycle stays in the pattern, relaxed with infinite bounds (``INFINITY``).

Scaling: OSQP 1.x recomputes its Ruiz equilibration from scratch at every matrix update (ten
passes over P and A per cycle) and the warm start then sits in a scaled space that moved. A
caller whose rows have known units gives a fixed diagonal preconditioning instead
(``Preconditioning``: a scale per row and per variable, and one for the cost) and turns OSQP's
off (``SolverSettings.scaling = 0``); it is applied to the gathered values (the buffers stay in
the caller's units, and so does ``x``).

Why not OSQP's Python wrapper per cycle: its ``update`` copies and clips the bounds and its
``solve`` builds a namespace of every statistic, about 30 us a cycle together; the compiled
solver behind it is called directly (``update_data_vec``, ``update_data_mat``, ``solve``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import osqp
import scipy.sparse as sp

INFINITY = 1e30  # OSQP's infinity (a bound beyond INFINITY * 1e-4 counts as none)
_STATUS = osqp.SolverStatus
# Statuses whose solution is checked against the constraints and then used: within the
# iteration budget ADMM's iterate is a feasible compromise well before it is optimal.
USABLE = (int(_STATUS.OSQP_SOLVED), int(_STATUS.OSQP_SOLVED_INACCURATE), int(_STATUS.OSQP_MAX_ITER_REACHED))
INFEASIBLE = (int(_STATUS.OSQP_PRIMAL_INFEASIBLE), int(_STATUS.OSQP_PRIMAL_INFEASIBLE_INACCURATE),
              int(_STATUS.OSQP_DUAL_INFEASIBLE), int(_STATUS.OSQP_DUAL_INFEASIBLE_INACCURATE))


@dataclass(frozen=True)
class SolverSettings:
    """OSQP settings (the users say why their values: ``wholebody.balancer``, ``collision.avoidance``)."""

    eps_abs: float = 1e-4
    eps_rel: float = 1e-5
    max_iter: int = 400
    check_termination: int = 5
    rho: float = 0.1
    adaptive_rho_interval: int = 25
    polishing: bool = False
    # OSQP's own equilibration (Ruiz passes, recomputed at every matrix update): 0 leaves the
    # scaling to the fixed Preconditioning, for rows whose units are known.
    scaling: int = 0


@dataclass(frozen=True)
class Preconditioning:
    """A fixed diagonal scaling of the problem OSQP sees: rows E, variables D, cost c.

    OSQP solves for x~ = x / D: c D P D, c D q and E A D, E l, E u. Chosen for the units of the
    rows and variables (m/s against rad/s, a COM row's centimetres per joint radian), so that
    ADMM's single step size suits every row.
    """

    row_scale: np.ndarray
    variable_scale: np.ndarray
    cost_scale: float = 1.0


class SolveInfo:
    """What a solve reports: OSQP's status (``status_val``, and its text) and iterations."""

    __slots__ = ("iter", "status", "status_val")

    def __init__(self):
        self.iter, self.status, self.status_val = 0, "", 0


class SolveResult:
    """A solve's outcome: ``x`` (the problem's buffer, in the caller's units) and ``info``."""

    __slots__ = ("x", "info")

    def __init__(self, x: np.ndarray):
        self.x, self.info = x, SolveInfo()


def _csc_order(pattern: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSC (indices, indptr) of a boolean pattern and the row-major flat index of each entry."""
    cols, rows = np.nonzero(pattern.T)  # column-major walk: sorted by column, then row
    indptr = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=pattern.shape[1]))])
    return rows.astype(np.int64), indptr.astype(np.int64), rows * pattern.shape[1] + cols


class FixedPatternQP:
    """OSQP set up once for the patterns of A (m x n, bool) and P (n x n, bool; its upper
    triangle is used), with a fixed preconditioning (None: none, and the buffers are handed to
    OSQP as they are: five products by ones fewer per solve)."""

    def __init__(self, a_pattern: np.ndarray, p_pattern: np.ndarray, settings: SolverSettings,
                 preconditioning: Preconditioning | None = None):
        m, n = a_pattern.shape
        self.n, self.m = n, m
        self.P = np.zeros((n, n))
        self.q = np.zeros(n)
        self.A = np.zeros((m, n))
        self.l = np.full(m, -INFINITY)
        self.u = np.full(m, INFINITY)
        self.x = np.zeros(n)
        a_indices, a_indptr, self._a_flat = _csc_order(np.asarray(a_pattern, dtype=bool))
        p_upper = np.triu(np.asarray(p_pattern, dtype=bool) | np.eye(n, dtype=bool))
        p_indices, p_indptr, self._p_flat = _csc_order(p_upper)
        self._ax = np.zeros(len(self._a_flat))
        self._px = np.zeros(len(self._p_flat))
        pre = preconditioning or Preconditioning(np.ones(m), np.ones(n))
        d, e = np.asarray(pre.variable_scale, dtype=float), np.asarray(pre.row_scale, dtype=float)
        if d.shape != (n,) or e.shape != (m,) or not (np.all(d > 0) and np.all(e > 0) and pre.cost_scale > 0):
            raise ValueError("preconditioning needs a positive scale per variable and per row, and a positive cost scale")
        rows_p, cols_p = np.divmod(self._p_flat, n)
        rows_a, cols_a = np.divmod(self._a_flat, n)
        self._p_scale = pre.cost_scale * d[rows_p] * d[cols_p]
        self._a_scale = e[rows_a] * d[cols_a]
        self._q_scale = pre.cost_scale * d
        self._row_scale, self._variable_scale = e, d
        self._scaled = preconditioning is not None
        # Scaled copies handed to OSQP (without preconditioning: the buffers themselves).
        self._q, self._l, self._u = (np.zeros(n), np.zeros(m), np.zeros(m)) if self._scaled else \
            (self.q, self.l, self.u)
        self._zero_x, self._zero_y = np.zeros(n), np.zeros(m)
        # Placeholder values keep every entry of the patterns (identity on P's diagonal).
        self._px[rows_p == cols_p] = 1.0
        self._ax.fill(1.0)
        p = sp.csc_matrix((self._px.copy(), p_indices, p_indptr), shape=(n, n))
        a = sp.csc_matrix((self._ax.copy(), a_indices, a_indptr), shape=(m, n))
        self._osqp = osqp.OSQP()
        self._osqp.setup(p, self._q, a, self.l, self.u, verbose=False, warm_starting=True, scaling=settings.scaling,
                         eps_abs=settings.eps_abs, eps_rel=settings.eps_rel, max_iter=settings.max_iter,
                         check_termination=settings.check_termination, rho=settings.rho,
                         adaptive_rho_interval=settings.adaptive_rho_interval, polishing=settings.polishing)
        # The compiled solver behind the Python wrapper (see the module docstring).
        self._native = self._osqp._solver
        self._result = SolveResult(self.x)

    @property
    def nnz(self) -> tuple[int, int]:
        """Stored entries of (P's upper triangle, A)."""
        return len(self._px), len(self._ax)

    def update(self, matrices: bool = True) -> None:
        """Hand this cycle's values to OSQP: q, l, u, and with `matrices` P and A (a new
        factorisation)."""
        if self._scaled:
            np.multiply(self.q, self._q_scale, out=self._q)
            np.multiply(self.l, self._row_scale, out=self._l)
            np.multiply(self.u, self._row_scale, out=self._u)
        self._native.update_data_vec(self._q, self._l, self._u)
        if matrices:
            self.P.take(self._p_flat, out=self._px)
            self.A.take(self._a_flat, out=self._ax)
            if self._scaled:
                self._px *= self._p_scale
                self._ax *= self._a_scale
            self._native.update_data_mat(self._px, None, self._ax, None)

    def solve(self) -> SolveResult:
        """Solve what :meth:`update` handed over; the result's ``x`` is this problem's ``x``
        (NaN when OSQP has no iterate). The result object is refreshed by every solve."""
        native, result = self._native, self._result
        native.solve()
        info = native.info
        result.info.iter, result.info.status, result.info.status_val = info.iter, info.status, info.status_val
        np.multiply(native.solution.x, self._variable_scale, out=self.x)
        result.x = self.x
        return result

    def restart_from_solution(self) -> None:
        """Warm-start the next solve from the last solution (x, y) with z = A x of the data
        handed over since. Without it OSQP carries its last z over, and a row whose coefficients
        became zero keeps a z that the relaxation then scales by (1 - alpha) every iteration,
        solve after solve, down to subnormal numbers, on which every operation is about a
        hundred times slower (the collision filter's iterations took 2.5 times as long)."""
        solution = self._native.solution
        self._native.warm_start(solution.x, solution.y)

    def reset_warm_start(self) -> None:
        """Forget the last solution (after a hold, the next solve starts from rest)."""
        self._native.warm_start(self._zero_x, self._zero_y)
