"""Pass-through (whole body disabled, not walking): the legs keep clear of the declared obstacles.

The collision filter keeps the arms clear of obstacles; the legs are the whole body's, and its
QP keeps them clear while it runs. Disabled and not walking, the balancer passes the wish
through, so a leg command (angleInterpolation on LHipPitch, LKneePitch, ...) would reach the
robot without any obstacle row. This applies the QP's own obstacle rows
(``constraints.ObstacleClearance``: ``n . J . dq . dt <= d - margin``, filled at the command as
for the QP) to the pass-through's step of the leg joints, with the torso held (its twist is 0:
the obstacles are placed in the torso frame each cycle):

    minimise   1/2 |s - s_wish|^2              s: the leg joints' step this cycle (rad)
    subject to A_legs s <= u dt                the leg shapes' obstacle rows
               min(0, s_wish) <= s <= max(0, s_wish)

So a leg stops at the margin as an arm does in the filter, sliding along it where the other leg
joints' wished steps allow; a leg joint never moves beyond or against its wish (every step is
between standing still and the wished one, within the pass-through's limits and speeds). Rows
closer than the margin are relaxed (no closer, but not pushed out): backing a supporting leg
out of an obstacle without the balance constraint would move the robot, not the leg; enabled,
the QP backs it out while keeping balance.
"""

from __future__ import annotations

import numpy as np

from ..qp import INFINITY, USABLE, FixedPatternQP, SolverSettings
from .constraints import ObstacleClearance
from .floating_base import N_BASE

LEG_CHAINS = ("LLeg", "RLeg")
ROW_TOLERANCE_RAD = 1e-6  # a row's excess (normalised rows: rad of step) tolerated before scaling
SOLVER = SolverSettings(eps_abs=1e-6, eps_rel=1e-6, max_iter=200, scaling=10)


class LegObstacleGuard:
    """The leg joints' pass-through step kept by the obstacle rows (``limit``)."""

    def __init__(self, rows: ObstacleClearance, motor: np.ndarray, dt_s: float):
        model = rows.ctx.model
        legs = np.array([model.joints[i].chain in LEG_CHAINS for i in motor])
        self.rows, self.dt_s = rows, dt_s
        self._model_columns = motor[legs]  # model indices of the leg motors (RHipYawPitch mimics)
        self._columns = N_BASE + np.flatnonzero(legs)  # their QP variables
        pattern = rows.pattern[:, self._columns]
        self._rows = np.flatnonzero(pattern.any(axis=1))  # the leg shapes' rows
        n, m = len(self._columns), len(self._rows)
        # Where the leg rows' coefficients sit in the rows' A, flat: one take per call, no gather.
        self._a_index = np.ravel_multi_index(np.ix_(self._rows, self._columns), rows.A.shape)
        self._qp = FixedPatternQP(np.vstack([pattern[self._rows], np.eye(n, dtype=bool)]), np.eye(n, dtype=bool),
                                  SOLVER)
        self._qp.P[:] = np.eye(n)
        self._qp.A[m:] = np.eye(n)
        self._a_rows, self._u_rows = self._qp.A[:m], self._qp.u[:m]
        self._l_box, self._u_box = self._qp.l[m:], self._qp.u[m:]
        self._wish = np.zeros(n)
        self._step = np.zeros(n)
        self._lhs = np.zeros(m)
        self.limited = False  # whether the last call changed the step

    def limit(self, step: np.ndarray) -> bool:
        """Keep the leg joints' entries of `step` (model order, rad this cycle, in place) by the
        obstacle rows, which the caller filled at the command; whether they changed it."""
        self.limited = False
        step.take(self._model_columns, out=self._wish)
        if not self._wish.any():
            return False
        rows = self.rows
        rows.relax()
        rows.A.take(self._a_index, out=self._a_rows)
        rows.upper.take(self._rows, out=self._u_rows)
        self._u_rows *= self.dt_s
        np.minimum(self._u_rows, INFINITY, out=self._u_rows)
        if self._excess(self._wish) <= ROW_TOLERANCE_RAD:
            return False
        np.minimum(self._wish, 0.0, out=self._l_box)
        np.maximum(self._wish, 0.0, out=self._u_box)
        np.negative(self._wish, out=self._qp.q)
        self._qp.update()
        result = self._qp.solve()
        s = self._step
        if result.info.status_val in USABLE and np.isfinite(result.x).all():
            np.clip(result.x, self._l_box, self._u_box, out=s)
        else:
            s.fill(0.0)
            self._qp.reset_warm_start()
        # Within the rows exactly: the solution scaled toward standing still (which keeps them).
        np.matmul(self._a_rows, s, out=self._lhs)
        over = self._lhs > self._u_rows + ROW_TOLERANCE_RAD
        if over.any():
            s *= max(0.0, float(np.min(self._u_rows[over] / self._lhs[over])))
        step[self._model_columns] = s
        self.limited = True
        return True

    def _excess(self, s: np.ndarray) -> float:
        """The largest excess of the leg rows at step s (rad, <= 0: kept)."""
        np.matmul(self._a_rows, s, out=self._lhs)
        self._lhs -= self._u_rows
        return float(self._lhs.max()) if len(self._lhs) else -np.inf
