"""Clearance rows: points of a moving body keep a margin from what they must not touch.

    g_i . x dt <= d_i - margin        for every pair i near enough (the others relaxed)

d_i is the pair's signed distance now, g_i how fast (per unit of each variable) the distance
shrinks: n_i . J_i, the contact normal (from the body's point toward the other shape) times the
Jacobian of the body's closest point (minus the other point's when it moves too). It is the
self-collision filter's form (seed 000) used for obstacles (seed 002): the QP's task moves the
body as it wishes wherever no row binds, and along a row's plane (in the task's null space,
where the task leaves one) where one does; a target behind the margin ends at the feasible
point closest to it.

A row is active when the pair is ``enabled``, and it is within ``influence_m`` or could cross
the margin within one step (|g| . step_max + margin), so no pair crosses the margin between two
checks whatever the influence distance. Closer than the margin, a row asks the pair to separate
at up to ``recovery_mps``; :meth:`ClearanceConstraint.relax` drops that push (standing still is
then feasible). Rows are normalised to unit norm over the variables (their coefficients span
decades with the lever arms and the solver's preconditioning is fixed): every row's residual is
in the variables' units.

The owner writes ``distance_m``, ``gradient`` and ``enabled`` (or a subclass does, in
:meth:`fill`) before the rows are filled; an inactive row keeps its place (zero coefficients,
infinite bound), so the sparsity pattern never changes.
"""

from __future__ import annotations

import numpy as np

from .composition import Constraint
from .fixed_pattern import INFINITY

FAR_M = 1e6  # a distance beyond any row's reach (an absent pair's is infinite)

# The settings of the rows kept from the declared obstacles, shared by their two owners (the
# collision filter, the whole body) so that the two agree on where a limb stops.
MARGIN_M = 0.005
INFLUENCE_M = 0.05
RECOVERY_SPEED_MPS = 0.05
MAX_MARGIN_M = 0.05
MAX_INFLUENCE_M = 0.3


def distances_refusal(margin_m: float, influence_m: float, margin_name: str, influence_name: str) -> str | None:
    """Why this margin and influence distance (m) are refused, or None: 0 <= margin <=
    MAX_MARGIN_M and margin < influence <= MAX_INFLUENCE_M."""
    if not (np.isfinite(margin_m) and 0.0 <= margin_m <= MAX_MARGIN_M):
        return f"{margin_name} must be in [0, {MAX_MARGIN_M}] m, got {margin_m!r}"
    if not (np.isfinite(influence_m) and margin_m < influence_m <= MAX_INFLUENCE_M):
        return f"{influence_name} must be in ({margin_name}, {MAX_INFLUENCE_M}] m, got {influence_m!r}"
    return None


class ClearanceConstraint(Constraint):
    """Rows g_i . x dt <= d_i - margin; `pattern` (k x n, bool): the variables each row may use.

    dt_s: the variables' time step (1 when they are steps already); step_max (n,): the largest
    |x_j| dt of a step (for the reach test).
    """

    def __init__(self, pattern: np.ndarray, dt_s: float, step_max: np.ndarray, margin_m: float,
                 influence_m: float, recovery_mps: float, row_scale: float | np.ndarray = 1.0, checked: bool = False,
                 optional: bool = False):
        super().__init__(pattern, row_scale, checked, optional)
        k, n = self.pattern.shape
        self.dt_s = float(dt_s)
        self.step_max = np.asarray(step_max, dtype=float).copy()
        self.margin_m, self.influence_m, self.recovery_mps = margin_m, influence_m, recovery_mps
        self.distance_m = np.full(k, np.inf)
        self.gradient = np.zeros((k, n))
        self.enabled = np.ones(k, dtype=bool)
        self.active = np.zeros(k, dtype=bool)
        self._rhs = np.zeros(k)
        self._scale = np.zeros(k)
        self._reach = np.zeros(k)
        self._near = np.zeros(k, dtype=bool)
        self._abs = np.zeros((k, n))

    def prepare(self) -> None:
        self.off()
        self.A.fill(0.0)

    def fill(self) -> None:
        d, g, active, inv = self.distance_m, self.gradient, self.active, self._scale
        np.abs(g, out=self._abs)
        np.matmul(self._abs, self.step_max, out=self._reach)
        self._reach += self.margin_m
        np.less(d, self._reach, out=active)
        np.less(d, self.influence_m, out=self._near)
        active |= self._near
        active &= self.enabled
        # Closer than the margin: back out no faster than the recovery speed.
        np.subtract(d, self.margin_m, out=self._rhs)
        np.maximum(self._rhs, -self.recovery_mps * self.dt_s, out=self._rhs)
        np.minimum(self._rhs, FAR_M, out=self._rhs)  # an empty slot's infinite distance
        # Unit rows over the variables: A = g / |g| (0 on inactive rows), u = rhs / (|g| dt).
        np.einsum("ij,ij->i", g, g, out=inv)
        np.sqrt(inv, out=inv)
        np.maximum(inv, 1e-12, out=inv)
        np.divide(active, inv, out=inv)
        np.multiply(g, inv[:, None], out=self.A)
        np.multiply(self._rhs, inv, out=self._rhs)
        self._rhs /= self.dt_s
        self.upper.fill(INFINITY)
        np.copyto(self.upper, self._rhs, where=active)

    def clear(self) -> None:
        """No pair to keep apart: every row off, zero and inactive (until the next fill)."""
        self.off()
        self.A.fill(0.0)
        self.active.fill(False)

    def relax(self) -> None:
        """No recovery push: a pair closer than the margin may stay as close as it is."""
        np.maximum(self.upper, 0.0, out=self.upper)
