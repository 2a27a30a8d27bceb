"""A QP composed of tasks and constraints, each a small object that knows its rows, its sparsity
and how to fill its values (as placo's kinematics solver composes its tasks and constraints),
on one fixed-pattern OSQP problem.

    minimise    sum_tasks |W^1/2 (J x - v)|^2 + sum_i d_i (x_i - t_i)^2 + r |x|^2
    subject to  l <= A x <= u          (every constraint's rows)

* a :class:`Task` owns rows of the stacked task matrix: ``jacobian`` (its rows of J, on the
  variables of its ``columns``), ``target`` (v) and ``weight`` (W's diagonal; 0: the row is off);
* a :class:`DiagonalTask` owns the diagonal weights d and targets t of a range of variables;
* a :class:`Constraint` owns rows of A (``A``, on its ``pattern``), ``lower`` and ``upper``
  (``INFINITY``: the row is off), with a ``row_scale`` for the solver's preconditioning;
  ``checked`` constraints are the ones a solution must keep (see :meth:`ComposedQP.checked_rows`);
  an ``optional`` constraint may be absent from the problem (below).

Each part's buffers are views into the composed problem's, set by :class:`ComposedQP` when it
lays the parts out; a part fills them in place every cycle (:meth:`fill`), so the objective is
``P = J' W J + diag(d + r)``, ``q = -J' W v - d t`` with four products for all tasks together.
A part that is off keeps its rows (zero weight, infinite bounds): the sparsity pattern, and so
OSQP's factorisation structure, never changes. Rows kept off still cost OSQP in every iteration,
though: a constraint that is usually off altogether (the whole body's obstacle rows while no
obstacle is declared) is ``optional``, laid out last, and says in each :meth:`Constraint.fill`
whether it is ``present``; while it is not, OSQP solves the problem without its rows
(``FixedPatternQP.use_optional_rows``).
"""

from __future__ import annotations

import numpy as np

from .fixed_pattern import INFINITY, FixedPatternQP, Preconditioning, SolveResult, SolverSettings


class Task:
    """A weighted least-squares term over `n_rows` rows; `columns` (bool, n): the variables its
    rows may involve."""

    def __init__(self, n_rows: int, columns: np.ndarray):
        self.n_rows = n_rows
        self.columns = np.asarray(columns, dtype=bool)
        self.jacobian = self.target = self.weight = np.zeros(0)  # views, set by ComposedQP

    def prepare(self) -> None:
        """Write the values that never change, once the views are set (default: none)."""

    def fill(self) -> None:
        """Write this cycle's rows of ``jacobian``, ``target`` and ``weight``."""
        raise NotImplementedError


class DiagonalTask:
    """d_i (x_i - t_i)^2 on the variables of `variables` (a slice)."""

    def __init__(self, variables: slice):
        self.variables = variables
        self.weight = self.target = np.zeros(0)  # views, set by ComposedQP

    def fill(self) -> None:
        raise NotImplementedError


class Constraint:
    """Rows l <= A x <= u; `pattern` (n_rows x n, bool): the entries of A they may use.

    row_scale: the rows' preconditioning (their units against the others'; one or one per row);
    checked: a solution is used only if it keeps these rows (the caller's acceptance test);
    optional: the rows may be left out of the problem while ``present`` is False (set by fill;
    their buffers are then not read, and need not be kept off).
    """

    def __init__(self, pattern: np.ndarray, row_scale: float | np.ndarray = 1.0, checked: bool = False,
                 optional: bool = False):
        self.pattern = np.asarray(pattern, dtype=bool)
        self.n_rows = len(self.pattern)
        self.row_scale = row_scale
        self.checked = checked
        self.optional = optional
        self.present = True
        self.A = self.lower = self.upper = np.zeros(0)  # views, set by ComposedQP

    def prepare(self) -> None:
        """Write the values that never change, once the views are set (default: none)."""

    def fill(self) -> None:
        """Write this cycle's rows of ``A``, ``lower`` and ``upper``."""
        raise NotImplementedError

    def relax(self) -> None:
        """Loosen the rows so that standing still (x = 0) satisfies them (default: they do)."""

    def off(self) -> None:
        """Relax every row (infinite bounds)."""
        self.lower.fill(-INFINITY)
        self.upper.fill(INFINITY)


class ComposedQP:
    """Tasks, diagonal tasks and constraints laid out on one FixedPatternQP over n variables.

    regularisation (n,): the constant diagonal r that keeps the problem strictly convex;
    variable_scale (n,): the variables' preconditioning (with the constraints' row scales);
    at most one constraint is optional, the last.
    """

    def __init__(self, n: int, tasks: list[Task], diagonal_tasks: list[DiagonalTask], constraints: list[Constraint],
                 settings: SolverSettings, regularisation: np.ndarray, variable_scale: np.ndarray | None = None,
                 cost_scale: float = 1.0):
        self.n = n
        self.tasks, self.diagonal_tasks, self.constraints = tasks, diagonal_tasks, constraints
        rows = sum(t.n_rows for t in tasks)
        self._jacobian = np.zeros((rows, n))
        self._target = np.zeros(rows)
        self._weight = np.zeros(rows)
        self._weighted = np.zeros((rows, n))
        p_pattern = np.zeros((n, n), dtype=bool)
        start = 0
        for task in tasks:
            span = slice(start, start + task.n_rows)
            task.jacobian, task.target, task.weight = self._jacobian[span], self._target[span], self._weight[span]
            p_pattern |= np.outer(task.columns, task.columns)
            start = span.stop
        self._diagonal_weight, self._diagonal_target = np.zeros(n), np.zeros(n)
        self._diagonal_product = np.zeros(n)
        for task in diagonal_tasks:
            task.weight, task.target = self._diagonal_weight[task.variables], self._diagonal_target[task.variables]
        self._regularisation = np.asarray(regularisation, dtype=float).copy()

        a_pattern = np.concatenate([c.pattern for c in constraints])
        row_scale = np.concatenate([np.broadcast_to(np.asarray(c.row_scale, dtype=float), (c.n_rows,)) for c in constraints])
        scale = np.ones(n) if variable_scale is None else variable_scale
        optional = [c for c in constraints if c.optional]
        if optional and optional != constraints[-1:]:
            raise ValueError("at most one constraint can be optional, and it must be laid out last")
        self._optional = optional[0] if optional else None
        optional_rows = sum(c.n_rows for c in optional)
        self.solver = FixedPatternQP(a_pattern, p_pattern, settings, Preconditioning(row_scale, scale, cost_scale),
                                     optional_rows=optional_rows)
        start = 0
        checked = []
        for constraint in constraints:
            span = slice(start, start + constraint.n_rows)
            constraint.A, constraint.lower, constraint.upper = self.solver.A[span], self.solver.l[span], self.solver.u[span]
            if constraint.checked:
                checked.extend(range(span.start, span.stop))
            start = span.stop
        if checked and checked != list(range(checked[0], checked[-1] + 1)):
            raise ValueError("the checked constraints must be laid out next to each other")
        checked_rows = slice(checked[0], checked[-1] + 1) if checked else slice(0, 0)
        # Per number of rows OSQP solves (all, or without the optional ones): the checked ones.
        self._checked = {m: slice(checked_rows.start, min(checked_rows.stop, m))
                         for m in (self.solver.m, self.solver.m - optional_rows)}
        # Views the assembly uses, made once: P's diagonal, J', W as a column, (W J)'.
        self._p_diagonal = self.solver.P.reshape(-1)[:: n + 1]
        self._jacobian_t, self._weighted_t = self._jacobian.T, self._weighted.T
        self._weight_column = self._weight[:, None]
        for part in [*tasks, *constraints]:
            part.prepare()

    @property
    def m(self) -> int:
        return self.solver.m

    @property
    def x(self) -> np.ndarray:
        return self.solver.x

    def set_regularisation(self, regularisation: np.ndarray) -> None:
        np.copyto(self._regularisation, regularisation)

    def fill(self) -> None:
        """Every part fills its rows; then the objective is assembled and handed to OSQP."""
        for part in self.tasks:
            part.fill()
        for part in self.diagonal_tasks:
            part.fill()
        for part in self.constraints:
            part.fill()
        qp = self.solver
        if self._optional is not None:
            qp.use_optional_rows(self._optional.present)
        # P = J' W J + diag(d + r); q = -(J' W v + d t).
        np.multiply(self._jacobian, self._weight_column, out=self._weighted)
        np.matmul(self._jacobian_t, self._weighted, out=qp.P)
        self._p_diagonal += self._diagonal_weight
        self._p_diagonal += self._regularisation
        np.matmul(self._weighted_t, self._target, out=qp.q)
        np.multiply(self._diagonal_weight, self._diagonal_target, out=self._diagonal_product)
        qp.q += self._diagonal_product
        np.negative(qp.q, out=qp.q)
        qp.update()

    def solve(self) -> SolveResult:
        return self.solver.solve()

    def relax(self) -> None:
        """Every constraint loosened so that standing still is feasible; hands the bounds over."""
        for constraint in self.constraints:
            constraint.relax()
        self.solver.update(matrices=False)

    def checked_rows(self) -> slice:
        """The rows of the checked constraints in the problem OSQP solves."""
        return self._checked[self.solver.m_solved]
