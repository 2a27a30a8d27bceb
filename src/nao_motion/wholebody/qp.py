"""A QP whose sparsity pattern is fixed at set-up; each cycle only its values change (OSQP).

    minimise 1/2 x' P x + q' x   subject to   l <= A x <= u

The caller fills dense buffers (``P``, ``A``) and vectors (``q``, ``l``, ``u``) in place; the
values at the pattern's positions are gathered into OSQP's CSC data arrays with one ``take``
each (orders prepared at set-up) and handed to ``update(Px=, q=, Ax=, l=, u=)``. The solve is
warm-started from the previous cycle's solution and duals. A row that is not needed this
cycle stays in the pattern and is relaxed with infinite bounds (``INFINITY``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import osqp
import scipy.sparse as sp

INFINITY = 1e30  # OSQP's infinity
# Statuses whose solution is checked against the constraints and then used: within the
# iteration budget ADMM's iterate is a feasible compromise well before it is optimal.
USABLE = (osqp.SolverStatus.OSQP_SOLVED, osqp.SolverStatus.OSQP_SOLVED_INACCURATE,
          osqp.SolverStatus.OSQP_MAX_ITER_REACHED)
INFEASIBLE = (osqp.SolverStatus.OSQP_PRIMAL_INFEASIBLE, osqp.SolverStatus.OSQP_PRIMAL_INFEASIBLE_INACCURATE,
              osqp.SolverStatus.OSQP_DUAL_INFEASIBLE, osqp.SolverStatus.OSQP_DUAL_INFEASIBLE_INACCURATE)


@dataclass(frozen=True)
class SolverSettings:
    """OSQP settings (see ``balancer.BalancerConfig`` for why these values)."""

    eps_abs: float = 1e-4
    eps_rel: float = 1e-5
    max_iter: int = 400
    check_termination: int = 5
    adaptive_rho_interval: int = 25
    polishing: bool = False


def _csc_order(pattern: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSC (indices, indptr) of a boolean pattern and the row-major flat index of each entry."""
    rows, cols = np.nonzero(pattern.T)  # column-major walk: (col, row) pairs sorted by col then row
    cols, rows = rows, cols
    indptr = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=pattern.shape[1]))])
    return rows.astype(np.int64), indptr.astype(np.int64), rows * pattern.shape[1] + cols


class FixedPatternQP:
    """OSQP set up once for `n` variables and the rows of `a_pattern` (m x n, bool).

    P's pattern is the full upper triangle (the tasks couple every variable through the
    centre of mass and the torso twist).
    """

    def __init__(self, a_pattern: np.ndarray, settings: SolverSettings):
        m, n = a_pattern.shape
        self.n, self.m = n, m
        self.P = np.zeros((n, n))
        self.q = np.zeros(n)
        self.A = np.zeros((m, n))
        self.l = np.full(m, -INFINITY)
        self.u = np.full(m, INFINITY)
        self.x = np.zeros(n)
        a_indices, a_indptr, self._a_flat = _csc_order(np.asarray(a_pattern, dtype=bool))
        p_indices, p_indptr, self._p_flat = _csc_order(np.triu(np.ones((n, n), dtype=bool)))
        self._ax = np.ones(len(self._a_flat))
        self._px = np.zeros(len(self._p_flat))
        self._px[p_indices == np.repeat(np.arange(n), np.diff(p_indptr))] = 1.0  # identity to start
        a = sp.csc_matrix((self._ax.copy(), a_indices, a_indptr), shape=(m, n))
        p = sp.csc_matrix((self._px.copy(), p_indices, p_indptr), shape=(n, n))
        self.solver = osqp.OSQP()
        self.solver.setup(p, self.q, a, self.l, self.u, verbose=False, warm_starting=True,
                          eps_abs=settings.eps_abs, eps_rel=settings.eps_rel, max_iter=settings.max_iter,
                          check_termination=settings.check_termination,
                          adaptive_rho_interval=settings.adaptive_rho_interval, polishing=settings.polishing)
        self._zero_x, self._zero_y = np.zeros(n), np.zeros(m)

    @property
    def nnz(self) -> tuple[int, int]:
        """Stored entries of (P, A)."""
        return len(self._px), len(self._ax)

    def solve(self, update_matrices: bool = True):
        """Hand the buffers' values to OSQP and solve; returns OSQP's result (x copied to ``x``)."""
        if update_matrices:
            self.P.take(self._p_flat, out=self._px)
            self.A.take(self._a_flat, out=self._ax)
            self.solver.update(Px=self._px, Ax=self._ax, q=self.q, l=self.l, u=self.u)
        else:
            self.solver.update(q=self.q, l=self.l, u=self.u)
        result = self.solver.solve(raise_error=False)
        if result.x is not None:
            self.x[:] = result.x
        return result

    def reset_warm_start(self) -> None:
        """Forget the last solution (after a hold, the next solve starts from rest)."""
        self.solver.warm_start(x=self._zero_x, y=self._zero_y)
