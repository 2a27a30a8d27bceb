"""The QP layer (nao_motion.qp): a fixed-pattern OSQP problem whose values change, its fixed
preconditioning, and a QP composed of task and constraint objects."""

import numpy as np
import pytest
from scipy.optimize import minimize

from nao_motion.qp import (INFINITY, USABLE, ComposedQP, Constraint, DiagonalTask, FixedPatternQP, Preconditioning,
                           SolverSettings, Task)

TIGHT = SolverSettings(eps_abs=1e-10, eps_rel=1e-10, max_iter=100_000, polishing=True)


def reference_solution(P, q, A, l, u):
    """The same QP by SLSQP (dense, slow, independent of OSQP)."""
    n = len(q)
    finite_l, finite_u = l > -INFINITY / 2, u < INFINITY / 2
    constraints = [{"type": "ineq", "fun": lambda x, i=i: A[i] @ x - l[i]} for i in np.flatnonzero(finite_l)]
    constraints += [{"type": "ineq", "fun": lambda x, i=i: u[i] - A[i] @ x} for i in np.flatnonzero(finite_u)]
    result = minimize(lambda x: 0.5 * x @ P @ x + q @ x, np.zeros(n), jac=lambda x: P @ x + q,
                      constraints=constraints, method="SLSQP", options={"ftol": 1e-14, "maxiter": 500})
    return result.x


def random_problem(rng, n=5, m=4):
    pattern = rng.random((m, n)) < 0.6
    pattern[np.arange(m), rng.integers(0, n, m)] = True
    J = rng.normal(size=(n, n))
    return pattern, J @ J.T + 0.1 * np.eye(n)


@pytest.mark.parametrize("preconditioned", [False, True])
def test_values_change_and_the_solution_follows_on_the_fixed_pattern(preconditioned):
    rng = np.random.default_rng(4)
    n, m = 5, 4
    pattern, _ = random_problem(rng, n, m)
    pre = Preconditioning(rng.uniform(0.3, 10.0, m), rng.uniform(0.1, 3.0, n), 7.0) if preconditioned else None
    qp = FixedPatternQP(pattern, np.ones((n, n), dtype=bool), TIGHT, pre)
    for _ in range(5):  # new values every "cycle", the same pattern
        _, P = random_problem(rng, n, m)
        qp.P[:] = P
        qp.q[:] = rng.normal(size=n)
        qp.A[:] = np.where(pattern, rng.normal(size=(m, n)), 0.0)
        qp.l[:] = -rng.uniform(0.1, 1.0, m)
        qp.u[:] = rng.uniform(0.1, 1.0, m)
        qp.u[1] = INFINITY  # a relaxed bound
        qp.update()
        result = qp.solve()
        assert result.info.status_val in USABLE and result.x is qp.x
        np.testing.assert_allclose(qp.x, reference_solution(qp.P, qp.q, qp.A, qp.l, qp.u), atol=1e-6)


def test_bounds_alone_can_change_and_the_warm_start_can_be_forgotten():
    qp = FixedPatternQP(np.eye(2, dtype=bool), np.eye(2, dtype=bool), TIGHT)
    qp.P[:] = qp.A[:] = np.eye(2)
    qp.q[:] = [-2.0, 1.0]
    qp.l[:], qp.u[:] = -1.0, 1.0
    qp.update()
    np.testing.assert_allclose(qp.solve().x, [1.0, -1.0], atol=1e-8)
    qp.u[0] = 0.5
    qp.update(matrices=False)
    np.testing.assert_allclose(qp.solve().x, [0.5, -1.0], atol=1e-8)
    qp.reset_warm_start()
    np.testing.assert_allclose(qp.solve().x, [0.5, -1.0], atol=1e-8)


def test_preconditioning_needs_positive_scales():
    with pytest.raises(ValueError, match="positive"):
        FixedPatternQP(np.eye(2, dtype=bool), np.eye(2, dtype=bool), TIGHT,
                       Preconditioning(np.array([1.0, 0.0]), np.ones(2)))


class Track(Task):
    """w |x_i - v|^2 on one variable."""

    def __init__(self, n, i, weight, value):
        columns = np.zeros(n, dtype=bool)
        columns[i] = True
        super().__init__(1, columns)
        self.i, self.w, self.v = i, weight, value

    def prepare(self):
        self.jacobian[0, self.i] = 1.0

    def fill(self):
        self.target[0], self.weight[0] = self.v, self.w


class Pull(DiagonalTask):
    def __init__(self, variables, weight, target):
        super().__init__(variables)
        self.w, self.t = weight, target

    def fill(self):
        self.weight.fill(self.w)
        self.target.fill(self.t)


class SumAtMost(Constraint):
    """x_0 + x_1 <= limit (checked)."""

    def __init__(self, n, limit, checked=True):
        pattern = np.zeros((1, n), dtype=bool)
        pattern[0, :2] = True
        super().__init__(pattern, row_scale=3.0, checked=checked)
        self.limit = limit

    def prepare(self):
        self.A[0, :2] = 1.0
        self.lower[0] = -INFINITY

    def fill(self):
        self.upper[0] = self.limit

    def relax(self):
        self.upper[0] = max(self.upper[0], 0.0)


def test_a_composed_qp_assembles_its_parts_and_relaxes_them():
    n = 3
    tasks = [Track(n, 0, 2.0, 1.0), Track(n, 1, 1.0, 2.0)]
    pull = Pull(slice(1, 3), 0.5, -1.0)
    sum_row = SumAtMost(n, -0.5)
    qp = ComposedQP(n, tasks, [pull], [sum_row], TIGHT, regularisation=np.full(n, 0.01))
    qp.fill()
    # P = J'WJ + diag(d + r), q = -(J'Wv + d t).
    np.testing.assert_allclose(qp.solver.P, np.diag([2.01, 1.51, 0.51]))
    np.testing.assert_allclose(qp.solver.q, [-2.0, -2.0 + 0.5, 0.5])
    assert qp.checked_rows() == slice(0, 1) and qp.m == 1
    x = qp.solve().x
    np.testing.assert_allclose(x, reference_solution(qp.solver.P, qp.solver.q, qp.solver.A, qp.solver.l,
                                                     qp.solver.u), atol=1e-6)
    assert x[0] + x[1] == pytest.approx(-0.5, abs=1e-7)
    qp.relax()
    assert qp.solver.u[0] == 0.0
    assert qp.solve().x[:2].sum() == pytest.approx(0.0, abs=1e-7)


def test_checked_constraints_must_be_next_to_each_other():
    n = 3
    with pytest.raises(ValueError, match="next to each other"):
        ComposedQP(n, [Track(n, 0, 1.0, 0.0)], [], [SumAtMost(n, 1.0), SumAtMost(n, 1.0, checked=False),
                                                    SumAtMost(n, 1.0)], TIGHT, regularisation=np.ones(n))


def test_optional_rows_can_be_left_out_and_taken_back():
    # x minimises |x - (1, 1)|^2; row 0: x_0 <= 0.5 (always), row 1 (optional): x_1 <= 0.25.
    qp = FixedPatternQP(np.eye(2, dtype=bool), np.eye(2, dtype=bool), TIGHT, optional_rows=1)
    qp.P[:] = qp.A[:] = np.eye(2)
    qp.q[:] = [-1.0, -1.0]
    qp.u[:] = [0.5, 0.25]
    qp.update()
    np.testing.assert_allclose(qp.solve().x, [0.5, 0.25], atol=1e-8)
    assert qp.m_solved == 2 and qp.nnz == (2, 2)
    qp.use_optional_rows(False)  # the optional row's buffers are not read
    qp.update(matrices=False)  # the switch hands the matrices over anyway
    np.testing.assert_allclose(qp.solve().x, [0.5, 1.0], atol=1e-8)
    assert qp.m_solved == 1 and qp.nnz == (2, 1)
    qp.use_optional_rows(True)
    qp.update()
    np.testing.assert_allclose(qp.solve().x, [0.5, 0.25], atol=1e-8)
    qp.reset_warm_start()
    qp.use_optional_rows(False)
    qp.update()
    np.testing.assert_allclose(qp.solve().x, [0.5, 1.0], atol=1e-8)


class OptionalSumAtMost(SumAtMost):
    """x_0 + x_1 <= limit while `present`."""

    def __init__(self, n, limit):
        super().__init__(n, limit)
        self.optional = True
        self.wanted = True

    def fill(self):
        super().fill()
        self.present = self.wanted


def test_an_optional_constraint_is_left_out_of_the_problem_while_absent():
    n = 3
    tasks = [Track(n, 0, 1.0, 1.0), Track(n, 1, 1.0, 1.0)]
    always, optional = SumAtMost(n, 1.5), OptionalSumAtMost(n, 0.5)
    qp = ComposedQP(n, tasks, [], [always, optional], TIGHT, regularisation=np.full(n, 1e-6))
    for wanted, total in ((True, 0.5), (False, 1.5), (True, 0.5)):
        optional.wanted = wanted
        qp.fill()
        assert qp.solve().x[:2].sum() == pytest.approx(total, abs=1e-6)
        assert qp.checked_rows() == (slice(0, 2) if wanted else slice(0, 1))


def test_only_the_last_constraint_can_be_optional():
    n = 3
    with pytest.raises(ValueError, match="optional"):
        ComposedQP(n, [Track(n, 0, 1.0, 0.0)], [], [OptionalSumAtMost(n, 1.0), SumAtMost(n, 1.0)], TIGHT,
                   regularisation=np.ones(n))
