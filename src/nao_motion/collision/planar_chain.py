"""Seed 002's planar arm among circles, solved with the NAO's machinery.

The arm: links of lengths l_i in the plane, joint i turning link i (and what follows it) about z;
the obstacles: circles, held as spheres in the plane z = 0 (their section by the plane is the
circle). Each iteration is one QP of the motion cycle's layer (``nao_motion.qp``):

    minimise   |J dq - dx|^2 + r |dq|^2            dx: the way to the target, at most max_move
    subject to g_i . dq <= d_i - margin            every link against every circle near enough

with d_i, the closest points and the normals from the distance core (``collision.distance``,
links as capsules of radius 0), g_i = n_i . J(point) from ``obstacles.NormalRates`` and the rows
from ``qp.clearance.ClearanceConstraint``: the rows the NAO's whole body uses against declared
obstacles (the collision filter's arm rows against them have the same form). Where a row
binds, the QP's solution slides along it (the task's null space turns the arm away from the
circle, seed 002's point) and the end point keeps approaching the target; without the rows
(``avoid=False``) the arm goes straight through the circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..qp import ComposedQP, SolverSettings, Task
from ..qp.clearance import ClearanceConstraint
from .distance import DistanceWorkspace
from .obstacles import NormalRates

Z = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class Circle:
    centre: tuple[float, float]
    radius: float


@dataclass
class PlanarReach:
    """The outcome: the final joints; the joints, the end point's error and the closest link-circle
    distance (signed: < 0 inside a circle) at every iteration's start; whether the target was
    reached."""

    q: np.ndarray
    q_trace: list[np.ndarray]
    error_trace: list[float]
    distance_trace: list[float]
    reached: bool


class PlanarChain:
    """Joint points, the end point's Jacobian, and (per link and circle) distances and rates."""

    def __init__(self, links: list[float], circles: list[Circle]):
        self.links = np.asarray(links, dtype=float)
        n, k = len(links), len(circles)
        self.n = n
        self.n_pairs = n * k
        self.pair_link = np.repeat(np.arange(n), k)
        self._centres = np.tile([[c.centre[0], c.centre[1], 0.0] for c in circles], (n, 1))
        self._radii = np.tile([c.radius for c in circles], n)[:, None]
        # Joint j moves link i when j <= i.
        self.rates = NormalRates(np.arange(n)[None, :] <= self.pair_link[:, None])
        self.workspace = DistanceWorkspace(self.n_pairs)
        self.points = np.zeros((n + 1, 3))
        self._axes = np.tile(Z, (n, 1))

    def forward(self, q: np.ndarray) -> np.ndarray:
        """The joints' points and the end point ((n + 1, 3), z = 0)."""
        angles = np.cumsum(q)
        self.points[1:, 0] = np.cumsum(self.links * np.cos(angles))
        self.points[1:, 1] = np.cumsum(self.links * np.sin(angles))
        return self.points

    def end_jacobian(self) -> np.ndarray:
        """(2, n) of the end point at the last :meth:`forward`: z x (end - joint j)."""
        lever = self.points[-1] - self.points[:-1]
        return np.stack([-lever[:, 1], lever[:, 0]])

    def distances(self):
        """Every link (capsule of radius 0) against every circle, at the last :meth:`forward`."""
        start, end = self.points[:-1][self.pair_link], self.points[1:][self.pair_link]
        return self.workspace.compute(start, end, np.zeros((self.n_pairs, 1)), self._centres, self._centres,
                                      self._radii)

    def normal_rates(self) -> np.ndarray:
        """(n_pairs, n): n . J(closest point on the link) of the last :meth:`distances`."""
        result = self.workspace.result
        return self.rates.compute(self._axes, self.points[:-1], result.axis_point_a, result.normal)


class _EndPointTask(Task):
    def __init__(self, chain: PlanarChain):
        super().__init__(2, np.ones(chain.n, dtype=bool))
        self.chain = chain
        self.way = np.zeros(2)

    def prepare(self) -> None:
        self.weight.fill(1.0)

    def fill(self) -> None:
        self.jacobian[:] = self.chain.end_jacobian()
        self.target[:] = self.way


def reach_among_circles(links: list[float], q_start: list[float], target: tuple[float, float],
                        circles: list[Circle], avoid: bool = True, margin: float = 0.1,
                        influence: float = 2.0, max_move: float = 0.1, max_step_rad: float = 0.1,
                        tolerance: float = 1e-3, max_iterations: int = 2000) -> PlanarReach:
    """Seed 002's iterative reach: at most `max_move` of the way per iteration, keeping every link
    `margin` from every circle (when `avoid`), until the end point is within `tolerance`."""
    chain = PlanarChain(links, circles)
    n = chain.n
    task = _EndPointTask(chain)
    clearance = ClearanceConstraint(np.ones((chain.n_pairs, n), dtype=bool), 1.0, np.full(n, max_step_rad),
                                    margin, influence, recovery_mps=max_move)
    qp = ComposedQP(n, [task], [], [clearance], SolverSettings(eps_abs=1e-7, eps_rel=1e-7, max_iter=4000, scaling=10),
                    regularisation=np.full(n, 1e-6))
    clearance.enabled.fill(avoid)
    q = np.array(q_start, dtype=float)
    goal = np.asarray(target, dtype=float)
    qs, errors, distances = [], [], []
    for _ in range(max_iterations):
        chain.forward(q)
        way = goal - chain.points[-1, :2]
        error = float(np.linalg.norm(way))
        result = chain.distances()
        qs.append(q.copy())
        errors.append(error)
        distances.append(float(result.distance_m.min()))
        if error < tolerance:
            return PlanarReach(q, qs, errors, distances, True)
        task.way[:] = way * min(1.0, max_move / error)
        clearance.distance_m[:] = result.distance_m
        clearance.gradient[:] = chain.normal_rates()
        qp.fill()
        solution = qp.solve()
        step = np.clip(solution.x, -max_step_rad, max_step_rad)
        q = q + step
    return PlanarReach(q, qs, errors, distances, False)
