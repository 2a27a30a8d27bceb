"""A QP whose sparsity pattern is fixed at set-up; each cycle only its values change (OSQP).

    minimise 1/2 x' P x + q' x   subject to   l <= A x <= u

The caller fills dense buffers (``P``, ``A``) and vectors (``q``, ``l``, ``u``) in place, then
:meth:`FixedPatternQP.update` gathers the values at the pattern's positions into OSQP's CSC
data arrays (one ``take`` for both: ``P`` and ``A`` are views of one buffer; the order prepared
at set-up) and hands them over, and
:meth:`FixedPatternQP.solve` solves, warm-started from the previous solution and duals. A row
that is not needed this cycle stays in the pattern, relaxed with infinite bounds (``INFINITY``).

Optional rows: trailing rows that are often not needed at all (the whole body's obstacle rows
while no obstacle is declared) still cost OSQP in every iteration when kept relaxed (the balance
scenario of bench_whole_body: update 32 -> 21 us, solve 115 -> 69 us without its 80 such rows,
same iterations). They can be left out (:meth:`FixedPatternQP.use_optional_rows`): a second OSQP
problem, set up with the first, has every row but those; the buffers stay the same, and a switch
warm-starts the problem taken up from the other's last solution.

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


class _RowsProblem:
    """OSQP set up for the first `m` rows of the buffers: the flat indices of its P and A entries
    in the matrices' buffer (CSC order, P's then A's) with their preconditioning, the gathered
    values (``px``, ``ax``: views) and its views of the scaled bounds."""

    __slots__ = ("m", "native", "flat", "scale", "values", "px", "ax", "l", "u")

    def __init__(self, m: int, native, flat: np.ndarray, scale: np.ndarray, n_p: int, l: np.ndarray, u: np.ndarray):
        self.m, self.native, self.flat, self.scale, self.l, self.u = m, native, flat, scale, l, u
        self.values = np.zeros(len(flat))
        self.px, self.ax = self.values[:n_p], self.values[n_p:]


class FixedPatternQP:
    """OSQP set up once for the patterns of A (m x n, bool) and P (n x n, bool; its upper
    triangle is used), with a fixed preconditioning (None: none, and the buffers are handed to
    OSQP as they are: five products by ones fewer per solve).

    optional_rows: how many of A's last rows may be left out of the problem
    (:meth:`use_optional_rows`; they are in it until then).
    """

    def __init__(self, a_pattern: np.ndarray, p_pattern: np.ndarray, settings: SolverSettings,
                 preconditioning: Preconditioning | None = None, optional_rows: int = 0):
        a_pattern = np.asarray(a_pattern, dtype=bool)
        m, n = a_pattern.shape
        if not 0 <= optional_rows <= m:
            raise ValueError(f"optional_rows must be in [0, {m}], got {optional_rows}")
        self.n, self.m = n, m
        # P and A are views of one buffer, l and u of another: one gather for the matrices' values,
        # one product for the bounds' scaling.
        self._matrices = np.zeros((n + m, n))
        self.P, self.A = self._matrices[:n], self._matrices[n:]
        self.q = np.zeros(n)
        self._bounds = np.array([np.full(m, -INFINITY), np.full(m, INFINITY)])
        self.l, self.u = self._bounds
        self.x = np.zeros(n)
        p_upper = np.triu(np.asarray(p_pattern, dtype=bool) | np.eye(n, dtype=bool))
        p_indices, p_indptr, p_flat = _csc_order(p_upper)
        pre = preconditioning or Preconditioning(np.ones(m), np.ones(n))
        d, e = np.asarray(pre.variable_scale, dtype=float), np.asarray(pre.row_scale, dtype=float)
        if d.shape != (n,) or e.shape != (m,) or not (np.all(d > 0) and np.all(e > 0) and pre.cost_scale > 0):
            raise ValueError("preconditioning needs a positive scale per variable and per row, and a positive cost scale")
        rows_p, cols_p = np.divmod(p_flat, n)
        p_scale = pre.cost_scale * d[rows_p] * d[cols_p]
        self._q_scale = pre.cost_scale * d
        self._row_scale, self._variable_scale = e, d
        self._scaled = preconditioning is not None
        # Scaled copies handed to OSQP (without preconditioning: the buffers themselves).
        self._q, self._scaled_bounds = (np.zeros(n), np.zeros((2, m))) if self._scaled else (self.q, self._bounds)
        self._zero_x, self._y = np.zeros(n), np.zeros(m)
        # Placeholder values keep every entry of the patterns (identity on P's diagonal).
        p = sp.csc_matrix(((rows_p == cols_p).astype(float), p_indices, p_indptr), shape=(n, n))
        self._problems = [self._set_up(m, a_pattern, p, p_flat, p_scale, d, e, settings)]
        if optional_rows:
            self._problems.append(self._set_up(m - optional_rows, a_pattern, p, p_flat, p_scale, d, e, settings))
        self._problem = self._problems[0]
        self._stale = False  # the problem switched to has not had the matrices yet
        self._carried: _RowsProblem | None = None  # whose last solution warm-starts it
        self._solved = False  # since the warm start was last reset
        self._result = SolveResult(self.x)

    def _set_up(self, m: int, a_pattern: np.ndarray, p: sp.csc_matrix, p_flat: np.ndarray, p_scale: np.ndarray,
                d: np.ndarray, e: np.ndarray, settings: SolverSettings) -> _RowsProblem:
        """OSQP for the first m rows of A (P's entries at `p_flat`, scaled by `p_scale`)."""
        a_indices, a_indptr, a_flat = _csc_order(a_pattern[:m])
        rows_a, cols_a = np.divmod(a_flat, self.n)
        a = sp.csc_matrix((np.ones(len(a_flat)), a_indices, a_indptr), shape=(m, self.n))
        solver = osqp.OSQP()
        solver.setup(p, self._q, a, self.l[:m], self.u[:m], verbose=False, warm_starting=True,
                     scaling=settings.scaling, eps_abs=settings.eps_abs, eps_rel=settings.eps_rel,
                     max_iter=settings.max_iter, check_termination=settings.check_termination, rho=settings.rho,
                     adaptive_rho_interval=settings.adaptive_rho_interval, polishing=settings.polishing)
        # The compiled solver behind the Python wrapper (see the module docstring).
        lower, upper = self._scaled_bounds
        return _RowsProblem(m, solver._solver, np.concatenate([p_flat, self.P.size + a_flat]),
                            np.concatenate([p_scale, e[rows_a] * d[cols_a]]), len(p_flat), lower[:m], upper[:m])

    @property
    def nnz(self) -> tuple[int, int]:
        """Stored entries of (P's upper triangle, A) of the problem OSQP solves."""
        return len(self._problem.px), len(self._problem.ax)

    @property
    def m_solved(self) -> int:
        """The rows OSQP solves for: every row, or every row but the optional ones."""
        return self._problem.m

    def use_optional_rows(self, used: bool) -> None:
        """Whether the optional rows are in the problem from the next :meth:`update` on (which
        then hands every value over and warm-starts from the other problem's last solution)."""
        problem = self._problems[0 if used else -1]
        if problem is not self._problem:
            if self._carried is None and self._solved:
                self._carried = self._problem
            self._problem, self._stale = problem, True

    def update(self, matrices: bool = True) -> None:
        """Hand this cycle's values to OSQP: q, l, u, and with `matrices` P and A (a new
        factorisation; always after :meth:`use_optional_rows` changed the problem)."""
        problem = self._problem
        if self._scaled:
            np.multiply(self.q, self._q_scale, out=self._q)
            np.multiply(self._bounds, self._row_scale, out=self._scaled_bounds)
        problem.native.update_data_vec(self._q, problem.l, problem.u)
        if matrices or self._stale:
            self._matrices.take(problem.flat, out=problem.values)
            if self._scaled:
                problem.values *= problem.scale
            problem.native.update_data_mat(problem.px, None, problem.ax, None)
            self._stale = False
        if self._carried is not None:
            self._carry_warm_start(self._carried, problem)
            self._carried = None

    def _carry_warm_start(self, left: _RowsProblem, taken: _RowsProblem) -> None:
        """`taken` warm-started from `left`'s last solution (x, and the duals of the rows both
        have; 0 for the others), z = A x of the data just handed over (both are preconditioned
        alike: the scaled iterates carry over as they are)."""
        solution = left.native.solution
        shared = min(left.m, taken.m)
        self._y.fill(0.0)
        self._y[:shared] = solution.y[:shared]
        taken.native.warm_start(solution.x, self._y[:taken.m])

    def solve(self) -> SolveResult:
        """Solve what :meth:`update` handed over; the result's ``x`` is this problem's ``x``
        (NaN when OSQP has no iterate). The result object is refreshed by every solve."""
        native, result = self._problem.native, self._result
        native.solve()
        self._solved = True
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
        native = self._problem.native
        native.warm_start(native.solution.x, native.solution.y)

    def reset_warm_start(self) -> None:
        """Forget the last solution (after a hold, the next solve starts from rest)."""
        self._y.fill(0.0)
        for problem in self._problems:
            problem.native.warm_start(self._zero_x, self._y[:problem.m])
        self._carried, self._solved = None, False
