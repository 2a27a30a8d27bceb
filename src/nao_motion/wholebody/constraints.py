"""The whole-body QP's constraints: the variables' box (torso twist, joint speeds and ranges), the
feet's contacts (Fixed, Plane), the centre of mass in the support polygon and the coupled head /
ankle ranges, and every limb kept clear of the declared obstacles. The feet, the balance and the
obstacle rows are ``checked``: a solution is used only if it keeps them (``balancer._solve``).
"""

from __future__ import annotations

import numpy as np

from .. import spatial
from ..collision.coupled_limits import CoupledLimitRows
from ..collision.obstacles import LIMB_GROUPS, ObstacleDistances, obstacle_shapes
from ..model import motor_fold
from ..qp import INFINITY, ClearanceConstraint, Constraint
from .context import SOLE, WholeBodyContext
from .floating_base import N_BASE
from .modes import FootState
from .support_polygon import MAX_EDGES, SupportPolygon


class VariableBox(Constraint):
    """One row per variable: the torso's twist within its speed limits; each motor within its
    speed limit and, linearised over the cycle, inside its joint range."""

    def __init__(self, ctx: WholeBodyContext, variable_scale: np.ndarray):
        # In the solver's variables (x / variable_scale) every row is the identity.
        super().__init__(np.eye(ctx.n, dtype=bool), row_scale=1.0 / variable_scale)
        self.ctx = ctx
        self._lower_motor = ctx.model.lower[ctx.motor]
        self._upper_motor = ctx.model.upper[ctx.motor]

    def prepare(self) -> None:
        cfg = self.ctx.config
        self.A[:] = np.eye(self.ctx.n)
        self.upper[:N_BASE] = [cfg.torso_max_speed_mps] * 3 + [cfg.torso_max_rate_radps] * 3
        self.lower[:N_BASE] = -self.upper[:N_BASE]
        self._lower_rows, self._upper_rows = self.lower[N_BASE:], self.upper[N_BASE:]

    def fill(self) -> None:
        ctx, lo, hi = self.ctx, self._lower_rows, self._upper_rows
        # lo = -min((q - lower) / dt, vmax) (= max((lower - q) / dt, -vmax), no -vmax to make).
        np.subtract(ctx.q_motor, self._lower_motor, out=lo)
        lo /= ctx.dt_s
        np.minimum(lo, ctx.vmax_motor, out=lo)
        np.negative(lo, out=lo)
        np.subtract(self._upper_motor, ctx.q_motor, out=hi)
        hi /= ctx.dt_s
        np.minimum(hi, ctx.vmax_motor, out=hi)

    def clip(self, x: np.ndarray) -> None:
        """x (in place) inside the box (ADMM ends within its tolerance of it)."""
        np.minimum(x, self.upper, out=x)
        np.maximum(x, self.lower, out=x)


class FootContact(Constraint):
    """wbFootState of one foot: Fixed holds its captured pose (6 rows: the sole's linear and
    angular velocity, world frame), Plane its height and tilt (z, wx, wy), Free nothing.

    The rows ask for ``foot_feedback_gain`` of the pose error per cycle, so a drift (the closed
    chain's linearisation between two held feet) is removed. ``state`` and ``target_world`` (4x4)
    are set by the balancer.
    """

    def __init__(self, ctx: WholeBodyContext, foot: str, row_scale: np.ndarray):
        chain = "LLeg" if foot == "left" else "RLeg"
        pattern = np.zeros((6, ctx.n), dtype=bool)
        pattern[:, :N_BASE] = True
        for joint in ctx.model.chains[chain].joints:
            pattern[:, ctx.column(joint)] = True
        super().__init__(pattern, row_scale, checked=True)
        self.ctx = ctx
        self.frame = SOLE[foot]
        self.state = FootState.FIXED
        self.target_world = np.eye(4)
        self._held = np.zeros(6, dtype=bool)
        # Views fill() uses, made once: the sole's Jacobian and pose (world frame).
        self._jacobian = ctx.jac.frame_jacobian[self.frame]
        self._pose = ctx.jac.frame_pose_world[self.frame]
        self._position, self._rotation = self._pose[:3, 3], self._pose[:3, :3]

    def fill(self) -> None:
        ctx = self.ctx
        np.copyto(self.A, self._jacobian)
        if self.state is FootState.FREE:
            self.off()
            return
        gain = ctx.config.foot_feedback_gain / ctx.dt_s
        pose, target, lo = self._pose, self.target_world, self.lower
        if self.state is FootState.FIXED:  # six numbers: in Python floats
            (tx, ty, tz), (px, py, pz) = target[:3, 3].tolist(), self._position.tolist()
            wx, wy, wz = spatial.rotation_error_floats(target[:3, :3], self._rotation)
            rows = (gain * (tx - px), gain * (ty - py), gain * (tz - pz), gain * wx, gain * wy, gain * wz)
            lo[:] = self.upper[:] = rows
            return
        # Plane: z, wx, wy; the tilt error turns the sole's normal onto the target's.
        (nx, ny, nz), (tx, ty, tz) = pose[:3, 2].tolist(), target[:3, 2].tolist()
        self.off()
        lo[2], lo[3], lo[4] = gain * (target[2, 3] - pose[2, 3]), gain * (ny * tz - nz * ty), gain * (nz * tx - nx * tz)
        self.upper[2:5] = lo[2:5]

    def relax(self) -> None:
        """No feedback: a held row asks for no motion (standing still keeps it)."""
        np.greater(self.lower, -INFINITY, out=self._held)
        np.copyto(self.lower, 0.0, where=self._held)
        np.copyto(self.upper, 0.0, where=self._held)


class ComInPolygon(Constraint):
    """wbEnableBalanceConstraint: the COM ``margin_m`` inside every edge of the support polygon
    (placo's rows, one per edge: n_i . (J_com x)_xy >= lb_i).

    With s_i = n_i . (c + d - a_i) - margin (c the COM, d the drift the linearised rows missed last
    cycle, ``ctx.com_drift_m``), lb_i = -s_i / com_approach_time_s while s_i >= 0 (the COM brakes
    before the margin: static balance with a dynamic braking), min(-s_i / dt, recovery) past it.
    ``polygon`` is set by the balancer (None: no balance constraint).
    """

    def __init__(self, ctx: WholeBodyContext, row_scale: float):
        pattern = np.ones((MAX_EDGES, ctx.n), dtype=bool)
        pattern[:, 2] = False  # vertical torso speed does not move the COM in the floor plane
        super().__init__(pattern, row_scale, checked=True)
        self.ctx = ctx
        self.polygon: SupportPolygon | None = None
        self._com_xy = np.zeros(2)
        self._slack = np.zeros(MAX_EDGES)
        self._past = np.zeros(MAX_EDGES, dtype=bool)
        # Views fill() uses, made once: the COM's and its drift's floor-plane parts, and per
        # number of edges k the rows' A, lower bounds, slacks and past-the-margin flags.
        self._com_jacobian_xy = ctx.jac.com_jacobian[:2]
        self._com_world_xy, self._drift_xy = ctx.jac.com_world_m[:2], ctx.com_drift_m[:2]
        self._rows: list[tuple[np.ndarray, ...]] = []

    def prepare(self) -> None:
        self.off()
        self._rows = [(self.A[:k], self.lower[:k], self._slack[:k], self._past[:k]) for k in range(MAX_EDGES + 1)]

    def fill(self) -> None:
        polygon = self.polygon
        self.lower.fill(-INFINITY)
        if polygon is None:
            return
        cfg = self.ctx.config
        a, bound, slack, past = self._rows[polygon.n_edges]
        np.matmul(polygon.normals_xy, self._com_jacobian_xy, out=a)
        np.add(self._com_world_xy, self._drift_xy, out=self._com_xy)
        polygon.edge_distances(self._com_xy, out=slack)
        slack -= cfg.margin_m
        # Approaching the margin: braked; past it (linearisation, solver tolerance): back at once.
        np.divide(slack, -cfg.com_approach_time_s, out=bound)
        np.less(slack, 0.0, out=past)
        np.divide(slack, -self.ctx.dt_s, out=slack)
        np.minimum(slack, cfg.recovery_speed_mps, out=slack)
        np.copyto(bound, slack, where=past)

    def relax(self) -> None:
        """No recovery push: a COM past the margin may stay where it is."""
        np.minimum(self.lower, 0.0, out=self.lower)


class CoupledLimits(Constraint):
    """Joints whose range depends on another's (HeadPitch on HeadYaw, each AnkleRoll on its
    AnklePitch): per (dependent, driver, table_deg, symmetric) pair, ``CoupledLimitRows`` valid for
    one step of the driver within its box (rows in rad per step, divided by dt).

    Three pairs of a few rows each: Python floats throughout (numpy's calls on such small arrays
    cost more than the arithmetic), and a pair's coefficients are written into A only when its
    rows' table segments change (the key of ``CoupledLimitRows.rows``).
    """

    def __init__(self, ctx: WholeBodyContext, pairs: list[tuple[str, str, np.ndarray, bool]], box: VariableBox):
        model, k = ctx.model, CoupledLimitRows.n_rows
        fastest = ctx.vmax_joint_fastest
        self.rows = [CoupledLimitRows(table, symmetric, float(fastest[model.joint_index(driver)] * ctx.dt_s))
                     for _, driver, table, symmetric in pairs]
        self.columns = [(ctx.column(dependent), ctx.column(driver)) for dependent, driver, _, _ in pairs]
        self.joints = [(model.joint_index(dependent), model.joint_index(driver)) for dependent, driver, _, _ in pairs]
        pattern = np.zeros((k * len(pairs), ctx.n), dtype=bool)
        for i, columns in enumerate(self.columns):
            pattern[i * k: (i + 1) * k, columns] = True
        super().__init__(pattern)
        self.ctx, self.box = ctx, box
        # Per pair: the key of the coefficients in A, and [c_dependent, c_driver] . step <= rhs
        # (rad per step) per row, for snap.
        self._keys: list[tuple[int, ...] | None] = [None] * len(pairs)
        self._inputs: list[tuple[float, ...] | None] = [None] * len(pairs)  # what the rows were made from
        self._coefficients: list[list[list[float]]] = [[] for _ in pairs]
        self._rhs: list[list[float]] = [[] for _ in pairs]
        self._bounds = [0.0] * (k * len(pairs))  # the rows' upper bounds (rad/s), handed over at once
        # Per pair, per key: the coefficients as A's two columns and as lists (made when first met).
        self._blocks: list[dict[tuple[int, ...], tuple[np.ndarray, list[list[float]]]]] = [{} for _ in pairs]
        self._pair_columns: list[tuple[np.ndarray, np.ndarray]] = []

    def prepare(self) -> None:
        self.off()
        self._keys = [None] * len(self._keys)
        self._inputs = [None] * len(self._keys)
        k = CoupledLimitRows.n_rows
        # A's rows of each pair, its dependent's and its driver's column (views: two plain copies
        # where one fancy-indexed assignment cost more).
        self._pair_columns = [(self.A[i * k: (i + 1) * k, dependent], self.A[i * k: (i + 1) * k, driver])
                              for i, (dependent, driver) in enumerate(self.columns)]

    def _block(self, i: int, key: tuple[int, ...]) -> tuple[np.ndarray, list[list[float]]]:
        """Pair i's coefficients for `key`: (2, n_rows) columns [c_dependent, c_driver] and the
        (n_rows, 2) rows as lists."""
        block = self._blocks[i].get(key)
        if block is None:
            coefficients = self.rows[i].block(key)[0]
            block = self._blocks[i][key] = (coefficients.T.copy(), coefficients.tolist())
        return block

    def fill(self) -> None:
        q, dt, k = self.ctx.q.tolist(), self.ctx.dt_s, CoupledLimitRows.n_rows
        lower, upper, bounds = self.box.lower, self.box.upper, self._bounds
        for i, (rows, (dependent, driver), (_, driver_column)) in enumerate(zip(self.rows, self.joints, self.columns)):
            inputs = (q[driver], q[dependent], lower.item(driver_column), upper.item(driver_column))
            if inputs == self._inputs[i]:  # a pair at rest (the head, standing): its rows as they were
                continue
            self._inputs[i] = inputs
            key, rhs = rows.rows(inputs[0], inputs[1], inputs[2] * dt, inputs[3] * dt)
            if key != self._keys[i]:
                self._keys[i] = key
                columns, self._coefficients[i] = self._block(i, key)
                dependent_a, driver_a = self._pair_columns[i]
                np.copyto(dependent_a, columns[0])
                np.copyto(driver_a, columns[1])
            self._rhs[i] = rhs
            bounds[i * k: (i + 1) * k] = [r / dt if segment >= 0 else INFINITY for r, segment in zip(rhs, key)]
        self.upper[:] = bounds

    def snap(self, step_motor: np.ndarray) -> bool:
        """Move each dependent joint's step (the QP's motors, rad) back onto a row it exceeds
        (solver tolerance); returns whether a step ends on a row.

        The rows are conservative over the step, so a step that keeps them keeps the coupled
        range; their dependent coefficient is +1 (upper) or -1 (lower). An unused row repeats its
        bound's first: its excess is that row's.
        """
        on_row, steps = False, step_motor.tolist()
        for (dependent, driver), coefficients, rhs in zip(self.columns, self._coefficients, self._rhs):
            dependent, driver = dependent - N_BASE, driver - N_BASE
            dy, dx = steps[dependent], steps[driver]
            excesses = [c_y * dy + c_x * dx - r for (c_y, c_x), r in zip(coefficients, rhs)]
            excess = max(excesses)
            if excess > 0.0:
                step_motor[dependent] = dy - coefficients[excesses.index(excess)][0] * excess
            on_row |= excess > -1e-9
        return on_row


class ObstacleClearance(ClearanceConstraint):
    """Every arm and leg shape against every declared obstacle (``ctx.obstacles``, torso frame;
    held still in the world over the cycle): n . p_dot <= (d - margin) / dt, one row per shape and
    obstacle slot.

    A point p (torso frame) of a limb moves in the world at v + w x R p + R J_p(q) q_dot, so its
    row is [R n, R (p x n), n . J_p]: the torso's twist moves every limb, the joints their own.
    Absent from the problem (optional; zero, unbounded, not computed) while no obstacle is declared.
    """

    def __init__(self, ctx: WholeBodyContext, variable_scale: np.ndarray):
        fk = ctx.jac.fk
        self.ctx = ctx
        self.distances = ObstacleDistances(fk, obstacle_shapes(ctx.model, LIMB_GROUPS))
        self._fold = motor_fold(fk.joint_names, ctx.jac.motor_joint_names)
        pattern = np.zeros((self.distances.n_pairs, ctx.n), dtype=bool)
        pattern[:, :N_BASE] = True
        pattern[:, N_BASE:] = (self.distances.moves @ self._fold) > 0
        cfg = ctx.config
        step_max = np.concatenate([[cfg.torso_max_speed_mps] * 3, [cfg.torso_max_rate_radps] * 3,
                                   ctx.vmax_joint_fastest[ctx.motor]])
        super().__init__(pattern, ctx.dt_s, step_max * ctx.dt_s, cfg.obstacle_margin_m, cfg.obstacle_influence_m,
                         cfg.obstacle_recovery_speed_mps, row_scale=1.0 / np.max(variable_scale), checked=True,
                         optional=True)

    def prepare(self) -> None:
        super().prepare()
        self.present = False

    def fill(self) -> None:
        ctx = self.ctx
        if not ctx.obstacles.count:
            if self.present:
                self.clear()
                self.present = False
            return
        self.present = True
        cfg = ctx.config
        self.margin_m, self.influence_m = cfg.obstacle_margin_m, cfg.obstacle_influence_m
        self.recovery_mps = cfg.obstacle_recovery_speed_mps
        result = self.distances.compute(ctx.state, ctx.obstacles)
        np.copyto(self.distance_m, result.distance_m)
        rates = self.distances.rates(ctx.jac.axes, ctx.jac.axis_origin_cross)  # jac: updated at ctx.state
        rotation = ctx.jac.torso_world[:3, :3]
        g = self.gradient
        np.matmul(result.normal, rotation.T, out=g[:, :3])
        np.matmul(self.distances.normal_rates.point_normal, rotation.T, out=g[:, 3:N_BASE])
        np.matmul(rates, self._fold, out=g[:, N_BASE:])
        super().fill()
