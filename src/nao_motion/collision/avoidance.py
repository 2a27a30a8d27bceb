"""NAOqi-style self-collision avoidance: each cycle, the command closest to the wish that is safe.

The seed's formulation (NAOqi's "collision avoidance" page), per control cycle of dt_s:

    minimise   1/2 sum_j w_j (dq_j - dq_wish_j)^2             (stay closest to the wished command)
    subject to n_i . (J_a,i - J_b,i) dq <= d_i - margin        for every checked pair i near enough
               lower <= q + dq <= upper,  |dq| <= max_velocity dt_s,  coupled head limits

dq is the change of the command over the cycle (rad), d_i the signed distance of pair i at the
current command, n_i its contact normal (from shape A to shape B) and J_a,i, J_b,i the Jacobians
of the closest points of A and B, so n . (J_a - J_b) dq is how much closer the pair gets in the
step. Solved with OSQP through the motion cycle's QP layer (``nao_motion.qp.FixedPatternQP``:
set up once with a fixed sparsity pattern, values updated and warm-started every cycle): one
row per candidate pair (``pairs.py``), relaxed to (-inf, inf) when not needed. When no pair row is active and the clipped wish satisfies the head
rows, that clipped wish is the QP's solution and the solver is not called. When the wish is
unreachable the iteration slides along the constraints and comes to rest at the nearest
(locally) collision-free command.

A pair row is active when the pair is checked (one of its arms is protected), an adjustable
joint acts on it, and it is within the influence distance or within reach of the margin in
this cycle (|n . (J_a - J_b)| . max step), so a pair cannot cross the margin between two checks
whatever the influence distance.

Who moves (NAOqi: "if the chain is stiff, the algorithm will modify its movement; if it has no
stiffness, it moves the parts of the body which are stiff"):

* decision variables: the Head and arm joints that move a body shape (the wrists and hands move
  none). The legs are never changed by this filter (the whole-body balancer owns them): their
  wished step is a known term of each row;
* a stiff protected arm's joints are adjustable (weight 1);
* when a protected arm has a limp joint, the stiff joints of ``yielding_chains`` become
  adjustable too, so the other arm and the head keep clear of the limp arm;
* other stiff variables are softly pinned to their wish (weight ``pinned_weight``): they change
  only when the adjustable joints alone cannot keep a pair apart;
* limp joints (stiffness < ``limp_stiffness``) are not controlled: their command follows the
  measured position (so stiffening again does not jump) and their step is 0.

Closer than the margin (start-up from a measured pose, a limp arm that fell), a row asks the
pair to separate at up to ``recovery_speed_mps``. A solution is used only after its rows have
been checked, and the new command only after its distances have been computed (they are the
next cycle's, so FK still runs once per cycle): the rows are first order, and when two arms
move fast a pair can end closer than predicted; below half the margin the step is halved (up
to four times) and otherwise held. When there is none (infeasible, or the solver failed) the problem is solved again
without the recovery push and with the legs held, where a zero step is feasible; if that fails
too, the last safe command is held (a zero step) and the result says why.

Obstacles outside the body (seed 002, ``obstacles.py``): the owner writes the declared obstacles,
in the torso frame, into ``obstacles`` (``ObstacleSlots``) before a step. Each arm shape against
each obstacle slot is one more pair row, after the pairs, whose shape B does not move:
n . J_a dq <= d - margin, with the same margin, influence distance, reach test and recovery speed
(the form of ``qp.clearance``); its distance, Jacobian row, checks and normalisation are computed
with the pairs' in the same numpy calls (a cycle's cost is their number, hardly the rows'). It
binds whichever arm is stiff, protected against self-collision or not (declaring an obstacle is
the opt-in), and the checked step keeps it as it keeps the pairs. An empty slot's distance is
infinite, so its row is never active: with no obstacle declared the filter does what it did
without them. An inactive obstacle row has zero coefficients in the QP (OSQP's equilibration,
recomputed at each update, then sees only the obstacles near the arms).

Limits: the step box keeps every joint inside its range and speed exactly (the solution is
clipped into it); the head rows (``coupled_limits.py``), conservative and shrunk by the
acceptance tolerance, keep HeadPitch inside its HeadYaw-dependent range; the ankles' coupled
range is projected by the model when the (passed-through) ankles move. Pair rows are
normalised over the variables, so every row's residual is in rad.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

import numpy as np

from ..kinematics import ForwardKinematics, KinematicState
from ..model import HEAD_PITCH_VS_YAW_DEG, NaoModel, motor_fold, motor_of, project_coupled_limits
from ..qp import INFINITY, USABLE, FixedPatternQP, SolveResult, SolverSettings
from ..qp import clearance
from ..spatial import CROSS_OF_OUTER
from .coupled_limits import CoupledLimitRows
from .distance import DistanceResult, all_set, any_set, rowwise_dot, ufunc_clip
from .obstacles import ObstacleDistances, ObstacleSlots, obstacle_shapes
from .pairs import ARM_GROUPS, CollisionPairs, PairDistances, collision_pairs, protected_arms

VARIABLE_CHAINS = ("Head", "LArm", "RArm")
MAX_HALVINGS = 4  # a step that comes too close is shortened to 1/2, ..., 1/16, then held
FLOOR_SLACK_M = 1e-4  # distance a pair may lose below its floor in one step (numerical noise)
_CROSS_OF_OUTER_T = np.ascontiguousarray(CROSS_OF_OUTER.T)  # (3, 9): a x b of (9, k) outer products


@dataclass(frozen=True)
class AvoidanceConfig:
    """Tuning of the avoidance (distances in m, speeds in m/s, stiffness 0..1)."""

    margin_m: float = clearance.MARGIN_M
    influence_distance_m: float = clearance.INFLUENCE_M
    protected_arms: tuple[str, ...] = ("LArm", "RArm")  # NAOqi's default: "Arms" protected
    recovery_speed_mps: float = clearance.RECOVERY_SPEED_MPS
    limp_stiffness: float = 0.01
    yielding_chains: tuple[str, ...] = ("Head", "LArm", "RArm")
    pinned_weight: float = 1000.0
    # OSQP tolerances. Steps are <= 0.1 rad and every row is in rad (pair rows are normalised):
    # 1e-4 rad is far below the joints' resolution (~2e-3 rad), and a tighter one costs twice the
    # iterations on random targets (benchmarks/bench_collision_filter.py).
    eps_abs: float = 1e-4
    eps_rel: float = 1e-4
    max_iter: int = 400
    # A solution is used only if no row is exceeded by more than this (rad). On a normalised pair
    # row the distance lost is this times the row's norm (at most about 0.35 m per rad): under
    # half a millimetre, and the check of the new command bounds it anyway.
    acceptance_tolerance: float = 1e-3
    dt_s: float | None = None  # None: the model's cycle time

    def validate(self) -> str | None:
        """The reason this configuration is refused, or None."""
        reason = clearance.distances_refusal(self.margin_m, self.influence_distance_m, "margin_m",
                                             "influence_distance_m")
        if reason:
            return reason
        for arm in self.protected_arms:
            if arm not in ("LArm", "RArm"):
                return f"protected arm {arm!r} is not LArm or RArm"
        unknown = set(self.yielding_chains) - set(VARIABLE_CHAINS)
        if unknown:
            return f"yielding_chains may only hold {VARIABLE_CHAINS} (the legs belong to the balancer), got {unknown}"
        if not (self.recovery_speed_mps > 0.0 and 0.0 < self.limp_stiffness <= 1.0 and self.pinned_weight >= 1.0):
            return "recovery_speed_mps must be > 0, limp_stiffness in (0, 1], pinned_weight >= 1"
        if self.dt_s is not None and not (0.0 < self.dt_s <= 0.1):
            return f"dt_s must be in (0, 0.1] s, got {self.dt_s!r}"
        return None


class Outcome(Enum):
    SOLVED = "solved"  # the QP's solution (the clipped wish itself when that keeps every row)
    RELAXED = "relaxed"  # infeasible with the recovery push: solved without it, legs held
    HELD = "held"  # no acceptable solution: the last safe command is held


@dataclass
class AvoidanceResult:
    """One cycle's outcome. The filter refreshes one such object every cycle, and `q` is its
    command buffer: copy what you keep."""

    q: np.ndarray
    outcome: Outcome
    reason: str
    closest_distance_m: float  # over all candidate pairs, at the new command
    active_constraints: int  # pair rows in the QP this cycle
    binding_constraints: int  # pair rows at their bound in the accepted solution
    iterations: int  # OSQP iterations (0: no solve needed)
    distances: DistanceResult = field(repr=False)  # per pair at the new command (workspace view)
    closest_obstacle_m: float = np.inf  # over the arm shapes and the declared obstacles, at the new command


class CollisionAvoidance:
    """The filter's core: prepare once for a model, then :meth:`reset` and :meth:`step` each cycle."""

    def __init__(self, model: NaoModel, config: AvoidanceConfig | None = None,
                 fk: ForwardKinematics | None = None, pairs: CollisionPairs | None = None):
        self.model = model
        self.fk = fk or ForwardKinematics(model)
        self.pairs = pairs or collision_pairs(model)
        # Two distance workspaces: the current command's (rows are built from it) and a trial's
        # (the checked next command), swapped when the trial is taken; each also computes the arms
        # against the declared obstacles (``obstacles``, torso frame).
        layout = ObstacleDistances(self.fk, obstacle_shapes(model, tuple(ARM_GROUPS.values())))
        self._current = PairDistances(self.fk, self.pairs, layout)
        self._trial = PairDistances(self.fk, self.pairs, layout)
        self.n_rows = len(self._current.link_a)  # pair rows: the pairs, then the obstacle pairs
        self.obstacles = ObstacleSlots()
        config = config or AvoidanceConfig()
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        self.dt_s = config.dt_s or model.cycle_time_s
        self._setup_indices()
        self._setup_qp(config)
        self._setup_buffers()
        self.update_config(config)
        self.command = model.zero_configuration()
        self._started = False

    # --- set-up --------------------------------------------------------------------------
    def _setup_indices(self) -> None:
        model, fk = self.model, self.fk
        kin_names = fk.joint_names
        shape_links = np.unique(np.concatenate([self._current.link_a, self._current.link_b]))
        moves_shape = fk.moves_link[:, shape_links].any(axis=1)
        moving_kin = [j for j in range(len(kin_names)) if moves_shape[j]]
        motors = list(dict.fromkeys(motor_of(kin_names[j]) for j in moving_kin))
        # Columns: decision variables first, then the joints whose wish is a known term (legs).
        variables = [n for n in motors if model.joint(n).chain in VARIABLE_CHAINS]
        motors = variables + [n for n in motors if n not in variables]
        self.n_var = len(variables)
        self.motor_names = tuple(motors)
        self.variable_names = tuple(variables)
        self._moving_kin = np.array(moving_kin)
        self._moving_links = self._moving_kin + 1  # joint j's child link is link j + 1
        self._motor_model = np.array([model.joint_index(n) for n in motors])
        self._var_model = self._motor_model[: self.n_var]
        self._fix_model = self._motor_model[self.n_var:]
        self._fold = fold = motor_fold([kin_names[j] for j in moving_kin], motors)
        # masks[0 / 1][i, k]: kinematic column k moves row i's shape A / B (an obstacle: none).
        # No joint moves both (the branches from the torso are disjoint), so a row's kinematic
        # column is +1, -1 or 0 times one rate (see _pair_rows).
        moves = fk.moves_link[self._moving_kin].T.astype(float)  # (links, kinematic columns)
        masks = np.zeros((2, self.n_rows, len(moving_kin)))
        masks[0] = moves[self._current.link_a]
        masks[1, : self.pairs.n_pairs] = moves[self._current.link_b]
        self._mask_diff = masks[0] - masks[1]
        # Sparsity of the pair rows over the variables, fixed for the life of the filter.
        self._pattern = (masks.sum(axis=0) @ fold[:, : self.n_var]) > 0
        self._chain_of_var = np.array([model.joint(n).chain for n in self.variable_names])
        self._step_max = model.max_velocity * self.dt_s
        self._neg_step_max = -self._step_max
        self._motor_step_max = self._step_max[self._motor_model]
        self._ankles = np.array([model.joint_index(s + j) for s in "LR" for j in ("AnklePitch", "AnkleRoll")])
        self._head_cols = [self.variable_names.index(n) for n in ("HeadPitch", "HeadYaw")]
        self._pitch, self._yaw = (model.joint_index(n) for n in ("HeadPitch", "HeadYaw"))
        self._coupled = CoupledLimitRows(HEAD_PITCH_VS_YAW_DEG, symmetric=True,
                                         max_step_rad=float(self._step_max[self._yaw]))

    def _setup_buffers(self) -> None:
        m, nk, nm, nv, n = self.n_rows, len(self._moving_kin), len(self.motor_names), self.n_var, self.model.n_joints
        mp = self.pairs.n_pairs
        nc = CoupledLimitRows.n_rows
        self._children = np.empty((nk, 4, 4))
        self._axes_local = self.fk.axes_local[self._moving_kin]
        # Cross products as outer products times CROSS_OF_OUTER, coordinates first: (3, 3, k)
        # outer products broadcast over a long last axis (over (k, 3, 3) numpy's inner loop
        # runs three elements at a time, 3-4 times slower); a_j x o_j, point_a x n as (3, k).
        self._axes = np.empty((nk, 3))
        self._outer_joints = np.empty((3, 3, nk))
        self._outer_pairs = np.empty((3, 3, m))
        self._c_t = np.empty((3, nk))  # a_j x o_j
        self._x_n_t = np.empty((3, m))  # point_a x n (= point_b x n)
        self._nc = np.empty((m, nk))
        self._g_kin = np.empty((m, nk))
        self._abs_g = np.empty((m, nm))
        self._g = np.zeros((m, nm))  # n . (J_a - J_b) per motor column
        self._g_var = self._g[:, :nv]
        self._g_fix = self._g[:, nv:]
        # _pair_rows' buffers by the rows computed: all, or the pairs' (leading) alone.
        row_buffers = (self._nc, self._g_kin, self._mask_diff, self._g)
        outer_rows = {k: self._outer_pairs[:, :, :k] for k in (m, mp)}  # (9, k) reshapes: views
        self._row_buffers = {k: (outer, outer.reshape(9, k), self._x_n_t[:, :k]) + tuple(b[:k] for b in row_buffers)
                             for k, outer in outer_rows.items()}
        self._coupled_coef = np.zeros((nc, 2))
        self._coupled_rhs = np.zeros(nc)
        self._coupled_used = np.zeros(nc, dtype=bool)
        self._head_inputs: tuple | None = None  # what the head rows in A and u were built from
        self._head_segments: tuple | None = None  # the table segments of the head rows in A
        # The QP's rows (views of its buffers): pairs then obstacle pairs, the step box, the
        # head's coupled range.
        qp = self._solver
        self._a_pairs, self._a_obstacles, self._a_head = qp.A[:m], qp.A[mp:m], qp.A[m + nv:]
        self._u_pairs, self._u_box, self._u_head = qp.u[:m], qp.u[m: m + nv], qp.u[m + nv:]
        self._l_box = qp.l[m: m + nv]
        self._excess_pairs, self._excess_head = np.empty(m), np.empty(nc)  # A x - u at the last checked x
        self._held_pairs, self._held_head = np.zeros(m, dtype=bool), np.zeros(nc, dtype=bool)  # within tolerance
        self._w = qp.P.reshape(-1)[:: nv + 1]  # P's diagonal: the weights
        self._neg_w = np.zeros(nv)  # -w: the cost's linear term is -w dq_wish
        self._x = np.zeros(nv)
        self._finite_x = np.zeros(nv, dtype=bool)
        self._finite_q = np.zeros(n, dtype=bool)
        self._dq_wish = np.zeros(n)
        self._dq = np.zeros(n)
        # The step box, rows lo, hi: (lower, upper) - q clipped to (-max step, -inf) .. (inf, max step).
        self._limits = np.stack([self.model.lower, self.model.upper])
        self._box_floor = np.stack([self._neg_step_max, np.full(n, -np.inf)])
        self._box_ceiling = np.stack([np.full(n, np.inf), self._step_max])
        self._box = np.empty((2, n))
        self._lo, self._hi = self._box
        self._fix_step = np.zeros(nm - nv)
        self._rhs = np.empty(m)
        self._tmp_m = np.empty(m)
        self._row_scale = np.ones(m)
        self._active = np.zeros(m, dtype=bool)
        self._active_pairs = self._active[:mp]
        self._active_obstacles = self._active[mp:, None]
        self._near = np.zeros(m, dtype=bool)
        self._stiff = np.ones(n, dtype=bool)
        self._stiff_read = np.ones(n, dtype=bool)
        self._stiffness_applied = False  # the stiffness-dependent values below are up to date
        self._limp = np.zeros(n, dtype=bool)
        self._any_limp = False
        self._var_stiff = np.ones(nv, dtype=bool)
        self._adjustable = np.zeros(nv, dtype=bool)
        self._pinned = np.zeros(nv, dtype=bool)
        self._pattern_f = self._pattern.astype(float)
        self._adjustable_f = np.zeros(nv)
        self._reach = np.empty(m)
        self._ankle_dq = np.empty(len(self._ankles))
        # One result object, refreshed every cycle.
        self._result = AvoidanceResult(np.zeros(n), Outcome.SOLVED, "ok", np.inf, 0, 0, 0,
                                       self._current.result)
        self._floor = np.empty(m)
        self._below = np.zeros(m, dtype=bool)
        self._actionable = np.zeros(m, dtype=bool)
        self._obstacle_actionable = self._actionable[mp:]
        self._q_trial = np.empty(n)
        # FK of `command` (valid once computed) and of the checked trial step, swapped when taken.
        self._state, self._trial_state = self.fk.new_state(), self.fk.new_state()
        self._state_valid = False
        # _set_rows' rows by the rows computed: all, or the pairs' alone while no obstacle is
        # declared (the obstacle rows then inactive, without an upper bound: _obstacle_rows_clear).
        rows = (self._rhs, self._tmp_m, self._g, self._g_var, self._g_fix, self._abs_g, self._active, self._near,
                self._actionable, self._row_scale, self._a_pairs, self._u_pairs)
        self._set_row_buffers = {k: tuple(b[:k] for b in rows) + (self._row_scale[:k, None],) for k in (m, mp)}
        self._obstacle_rows_clear = False

    def _setup_qp(self, config: AvoidanceConfig) -> None:
        """The QP's pattern: one row per pair and obstacle pair (over the variables its shapes'
        joints move), the step box, the head's coupled rows; P is diagonal (the weights)."""
        m, nv, nc = self.n_rows, self.n_var, CoupledLimitRows.n_rows
        pattern = np.zeros((m + nv + nc, nv), dtype=bool)
        pattern[:m] = self._pattern
        pattern[m: m + nv] = np.eye(nv, dtype=bool)
        pattern[m + nv:, self._head_cols] = True
        # OSQP's equilibration: the weights change a thousandfold from cycle to cycle (pinned or
        # adjustable joints), which no fixed preconditioning follows. Recomputed at every matrix
        # update: five passes take 11 us where ten take 18, for the same iterations and accuracy
        # (the random workload's QPs replayed: median 35 / 45, p99 155 / 169 iterations without /
        # with 5 obstacles, either way).
        settings = SolverSettings(eps_abs=config.eps_abs, eps_rel=config.eps_rel, max_iter=config.max_iter,
                                  scaling=5)
        self._solver = FixedPatternQP(pattern, np.eye(nv, dtype=bool), settings)
        self._solver.A[m: m + nv] = np.eye(nv)

    # --- configuration -------------------------------------------------------------------
    def update_config(self, config: AvoidanceConfig) -> None:
        """Change margin, influence distance, protection, recovery, stiffness threshold, weights.

        dt_s and the solver settings are fixed when the filter is set up.
        """
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        if (config.dt_s or self.model.cycle_time_s) != self.dt_s:
            raise ValueError("dt_s is fixed when the filter is set up")
        self.config = config
        # Pairs by the protected arms; an obstacle row by its stiffness alone (_read_stiffness).
        self._checked = np.ones(self.n_rows, dtype=bool)
        self._checked[: self.pairs.n_pairs] = self.pairs.checked(set(config.protected_arms))
        self._stiffness_applied = False
        self._var_yielding = np.isin(self._chain_of_var, config.yielding_chains)
        self._var_protected = np.isin(self._chain_of_var, config.protected_arms)

    def set_protection(self, chain_name: str, enabled: bool) -> None:
        """NAOqi setCollisionProtectionEnabled: "LArm", "RArm" or "Arms" (ValueError otherwise)."""
        arms = set(protected_arms(chain_name))
        current = set(self.config.protected_arms)
        protected = (current | arms) if enabled else (current - arms)
        self.update_config(replace(self.config, protected_arms=tuple(sorted(protected))))

    def protection_enabled(self, chain_name: str) -> bool:
        """NAOqi getCollisionProtectionEnabled ("Arms": both arms protected)."""
        return set(protected_arms(chain_name)) <= set(self.config.protected_arms)

    # --- per cycle -----------------------------------------------------------------------
    def reset(self, q: np.ndarray) -> None:
        """Start from q (normally the measured joint states): the first step moves from there."""
        self.command = self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q))
        self._state_valid = False
        self._x.fill(0.0)
        self._solver.reset_warm_start()
        self._started = True

    def take_over(self, q: np.ndarray, joints: np.ndarray) -> None:
        """The command of `joints` (bool, model order) becomes `q`'s: where another node moved the
        robot (the whole body's walk or balance), the next motion starts from there."""
        np.copyto(self.command, q, where=joints)
        np.copyto(self.command, self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(self.command)))
        self._state_valid = False

    def step(self, q_wish: np.ndarray, stiffness: np.ndarray | None = None,
             q_measured: np.ndarray | None = None) -> AvoidanceResult:
        """One cycle: the safe command closest to `q_wish` (26 joints, rad), also kept as `command`.

        stiffness: (26,) 0..1 (None: all stiff). q_measured: (26,) measured positions, which
        limp joints follow (None: limp joints keep their command).
        """
        if not self._started:
            raise RuntimeError("reset(q) the filter before the first step")
        if not all_set(np.isfinite(q_wish, out=self._finite_q)):
            raise ValueError("the wished command must be finite (validate input with nao_motion.joint_input)")
        model, q = self.model, self.command
        self._read_stiffness(stiffness)
        if q_measured is not None and self._any_limp:
            np.copyto(q, model.clip_to_limits(q_measured), where=self._limp)
        model.mimic_hip_yaw_pitch(q, out=q)
        # The last cycle's check computed FK and distances at this command: reuse them unless
        # limp joints moved it (so FK runs once per cycle unless a step had to be shortened).
        if not (self._state_valid and _same_values(self._state.q, q)
                and self._current.computed_with(self.obstacles)):
            self._current.compute(self.fk.compute(q, out=self._state, links_only=True), self.obstacles)
            self._state_valid = True
        dist = self._current.all_result
        self._pair_rows(self._state, self._current)

        # Step box: position and velocity limits (q is inside its range); limp joints stay.
        np.subtract(self._limits, q, out=self._box)
        ufunc_clip(self._box, self._box_floor, self._box_ceiling, out=self._box)
        if self._any_limp:
            np.copyto(self._lo, 0.0, where=self._limp)
            np.copyto(self._hi, 0.0, where=self._limp)
        np.subtract(q_wish, q, out=self._dq_wish)
        ufunc_clip(self._dq_wish, self._lo, self._hi, out=self._dq)  # lo <= 0 <= hi: q is inside its range
        self._dq.take(self._fix_model, out=self._fix_step)

        self._set_rows(dist, self._current.rows_computed)
        outcome, reason, iterations = self._solve(dist)
        if outcome is Outcome.HELD:
            self._dq.fill(0.0)
        else:
            self._dq[self._var_model] = self._x
            if outcome is Outcome.RELAXED:
                self._dq[self._fix_model] = 0.0
        binding = self._binding() if outcome is not Outcome.HELD and iterations else 0
        halvings = self._take_checked_step()
        if halvings > MAX_HALVINGS:
            outcome, reason = Outcome.HELD, "no shortened step keeps the margin: last safe command held"
        elif halvings:
            reason = f"{reason}; step halved {halvings} times to keep the margin (linearisation)"
        r = self._result
        r.q, r.outcome, r.reason, r.iterations = q, outcome, reason, iterations
        r.distances = self._current.result
        r.closest_distance_m = float(np.minimum.reduce(r.distances.distance_m))  # ndarray.min's wrapper costs more
        r.closest_obstacle_m = (float(np.minimum.reduce(self._current.obstacle_result.distance_m))
                                if self._current.rows_computed == self.n_rows else np.inf)  # else none declared
        r.active_constraints, r.binding_constraints = int(np.count_nonzero(self._active_pairs)), binding
        return r

    def _take_checked_step(self) -> int:
        """Move the command by dq after checking the distances there (the next cycle's FK).

        The rows are first order: for large steps of two moving arms the true distance can come
        out below the linear prediction. A pair (or an arm and an obstacle) the filter acts on may
        not end closer than half the margin (nor closer than it was, when it already was):
        otherwise the step is halved, up to MAX_HALVINGS times, then held. Returns the number of
        halvings (MAX_HALVINGS + 1: held).
        """
        q, trial = self.command, self._q_trial
        np.minimum(self._current.all_result.distance_m, 0.5 * self.config.margin_m, out=self._floor)
        np.subtract(self._floor, FLOOR_SLACK_M, out=self._floor)
        for halvings in range(MAX_HALVINGS + 1):
            np.add(q, self._dq, out=trial)
            self.model.mimic_hip_yaw_pitch(trial, out=trial)
            if np.count_nonzero(self._dq.take(self._ankles, out=self._ankle_dq)):  # passed-through ankles
                trial[:] = project_coupled_limits(self.model, trial)
            state = self.fk.compute(trial, out=self._trial_state, links_only=True)
            self._trial.compute(state, self.obstacles)
            np.less(self._trial.all_result.distance_m, self._floor, out=self._below)
            if not any_set(np.logical_and(self._below, self._actionable, out=self._below)):
                q[:] = trial
                self._state, self._trial_state = state, self._state
                self._current, self._trial = self._trial, self._current
                return halvings
            self._dq *= 0.5
        self._dq.fill(0.0)  # held: the current command and its distances stay
        return MAX_HALVINGS + 1

    def _binding(self) -> int:
        """Active pair rows within tolerance of their bound at the accepted solution (whose
        excess _accept left)."""
        np.greater_equal(self._excess_pairs, -self.config.acceptance_tolerance, out=self._near)
        return int(np.count_nonzero(np.logical_and(self._near, self._active, out=self._near)))

    def _read_stiffness(self, stiffness: np.ndarray | None) -> None:
        """Limp / stiff joints, and (when they changed) which variables are adjustable or pinned,
        their weights and which pairs an adjustable variable acts on."""
        if stiffness is None:
            self._stiff_read.fill(True)
        else:
            np.greater_equal(stiffness, self.config.limp_stiffness, out=self._stiff_read)
        if self._stiffness_applied and _same_values(self._stiff_read, self._stiff):
            return
        np.copyto(self._stiff, self._stiff_read)
        np.logical_not(self._stiff, out=self._limp)
        self._any_limp = bool(self._limp.any())
        stiff, adjustable = self._var_stiff, self._adjustable
        self._stiff.take(self._var_model, out=stiff)
        protected_limp = np.greater(self._var_protected, stiff, out=self._pinned).any()
        if protected_limp:
            np.logical_or(self._var_protected, self._var_yielding, out=adjustable)
        else:
            np.copyto(adjustable, self._var_protected)
        np.logical_and(adjustable, stiff, out=adjustable)
        np.greater(stiff, adjustable, out=self._pinned)
        self._w.fill(1.0)
        np.copyto(self._w, self.config.pinned_weight, where=self._pinned)
        np.negative(self._w, out=self._neg_w)
        np.copyto(self._adjustable_f, self._adjustable)
        np.matmul(self._pattern_f, self._adjustable_f, out=self._reach)
        np.greater(self._reach, 0.0, out=self._actionable)
        self._actionable &= self._checked
        # An obstacle row binds the stiff joints that move its shape (a limp arm's step is 0).
        np.any(self._pattern[self.pairs.n_pairs:] & stiff[None, :], axis=1, out=self._obstacle_actionable)
        self._stiffness_applied = True

    def _pair_rows(self, state: KinematicState, geometry: PairDistances) -> None:
        """g[i, :] = n_i . (J_a(point_a) - J_b(point_b)) per motor joint, for all rows at once
        (the distances of `geometry`, computed at `state`).

        A revolute joint j (unit axis a_j through o_j) moves a point p at a_j x (p - o_j) per
        radian, so n . v = a_j . (p x n) - n . (a_j x o_j): cross products, then matrix products.
        Both closest points lie on one line along n (point_b = point_a + d n), so point_a x n =
        point_b x n and a row is that one rate times +1 (shape A's joints), -1 (B's) or 0.

        Rows `geometry` did not compute (the obstacle pairs while no obstacle is declared: their
        distance is inf, their row never active) keep their last values.
        """
        nk, m = len(self._moving_kin), geometry.rows_computed
        normal = geometry.all_result.normal[:m]
        children = self._children
        state.link_poses.take(self._moving_links, axis=0, out=children)
        rowwise_dot(children[:, :3, :3], self._axes_local[:, None, :], out=self._axes)  # R a per joint
        np.multiply(self._axes.T[:, None, :], children[:, :3, 3].T[None, :, :], out=self._outer_joints)
        np.matmul(_CROSS_OF_OUTER_T, self._outer_joints.reshape(9, nk), out=self._c_t)
        outer_pairs, outer_rows, x_n_t, nc, g_kin, mask_diff, g = self._row_buffers[m]
        np.multiply(geometry.all_result.point_a[:m].T[:, None, :], normal.T[None, :, :], out=outer_pairs)
        np.matmul(_CROSS_OF_OUTER_T, outer_rows, out=x_n_t)
        np.matmul(normal, self._c_t, out=nc)
        np.matmul(x_n_t.T, self._axes.T, out=g_kin)
        np.subtract(g_kin, nc, out=g_kin)
        np.multiply(g_kin, mask_diff, out=g_kin)
        np.matmul(g_kin, self._fold, out=g)

    def _set_rows(self, dist: DistanceResult, rows: int) -> None:
        """Pair rows and head rows of this cycle's QP (the cost and the step box are _solve's):
        the leading `rows` pair rows (the rows _pair_rows computed); the others are inactive and
        unbounded."""
        cfg = self.config

        # The obstacle rows while none is declared: cleared once (their distance is inf).
        if rows < self.n_rows and not self._obstacle_rows_clear:
            self._active[rows:] = False
            self._u_pairs[rows:] = INFINITY
        self._obstacle_rows_clear = rows < self.n_rows
        (rhs, tmp, g, g_var, g_fix, abs_g, active, near, actionable, row_scale, a_pairs, u_pairs,
         row_scale_col) = self._set_row_buffers[rows]

        # Pair rows: g_var dq <= d - margin - g_fix dq_fix (no faster than recovery when negative).
        d = dist.distance_m[:rows]
        np.subtract(d, cfg.margin_m, out=rhs)
        np.maximum(rhs, -cfg.recovery_speed_mps * self.dt_s, out=rhs)
        np.matmul(g_fix, self._fix_step, out=tmp)
        np.subtract(rhs, tmp, out=rhs)
        np.abs(g, out=abs_g)
        np.matmul(abs_g, self._motor_step_max, out=tmp)
        np.add(tmp, cfg.margin_m, out=tmp)
        np.less(d, tmp, out=active)
        np.less(d, cfg.influence_distance_m, out=near)
        active |= near
        active &= actionable
        # Pair rows to unit norm over the variables (rad), into the QP's A: their coefficients,
        # m per rad, span two decades with the lever arm, and OSQP's scaling is fixed at set-up.
        rowwise_dot(g_var, g_var, out=row_scale)  # one call: 3 us where a product and a sum take 10
        np.sqrt(row_scale, out=row_scale)
        np.maximum(row_scale, 1e-9, out=row_scale)
        np.divide(1.0, row_scale, out=row_scale)
        np.multiply(g_var, row_scale_col, out=a_pairs)
        np.multiply(rhs, row_scale, out=rhs)
        u_pairs.fill(INFINITY)
        np.copyto(u_pairs, rhs, where=active)
        self._head_rows()

    def _head_rows(self) -> None:
        """The head's coupled rows into A and u, rebuilt only when what they depend on changed:
        the head is still in most cycles, and the rows are Python arithmetic."""
        q, yaw_stiff, tolerance = self.command, self._stiff[self._yaw], self.config.acceptance_tolerance
        inputs = (q[self._yaw], q[self._pitch], self._lo[self._yaw] if yaw_stiff else 0.0,
                  self._hi[self._yaw] if yaw_stiff else 0.0, self._stiff[self._pitch], tolerance)
        if inputs == self._head_inputs:
            return
        self._head_inputs = inputs
        segments = self._coupled.fill(*inputs[:4], self._coupled_coef, self._coupled_rhs, self._coupled_used)
        # Shrunk by the acceptance tolerance: a solution within tolerance of these rows is inside
        # the true range (pitch moves at most that much inward to get there, well within a step).
        np.subtract(self._coupled_rhs, tolerance, out=self._coupled_rhs)
        if segments != self._head_segments:  # the same segments: the same coefficients in A
            self._head_segments = segments
            self._a_head[:, self._head_cols] = self._coupled_coef
        self._u_head.fill(INFINITY)
        if self._stiff[self._pitch]:
            np.copyto(self._u_head, self._coupled_rhs, where=self._coupled_used)

    def _solve(self, dist: DistanceResult) -> tuple[Outcome, str, int]:
        """The step of the variables into _x: (outcome, reason, OSQP iterations)."""
        # The clipped wish minimises the cost over the box alone: if it keeps every row, it is the
        # QP's solution, exactly (targets away from collisions pass through unchanged).
        self._dq.take(self._var_model, out=self._x)
        if self._rows_hold(pair_tolerance=0.0):
            return Outcome.SOLVED, "ok", 0
        # Cost and step box: the QP's alone (walking, no cycle solves).
        var, q_cost = self._var_model, self._solver.q
        self._dq_wish.take(var, out=q_cost)
        np.multiply(q_cost, self._neg_w, out=q_cost)
        self._lo.take(var, out=self._l_box)
        self._hi.take(var, out=self._u_box)
        # An inactive obstacle row (an empty slot's among them) is handed over as zeros.
        np.multiply(self._a_obstacles, self._active_obstacles, out=self._a_obstacles)
        self._solver.update()
        self._solver.restart_from_solution()  # those rows' z would decay into subnormal numbers
        result = self._solver.solve()
        iterations = int(result.info.iter)
        if self._accept(result):
            return Outcome.SOLVED, "ok", iterations
        first = result.info.status
        # Without the recovery push and with the legs held a zero step is feasible: solve again.
        np.subtract(dist.distance_m, self.config.margin_m, out=self._rhs)
        np.maximum(self._rhs, 0.0, out=self._rhs)
        np.multiply(self._rhs, self._row_scale, out=self._rhs)
        np.copyto(self._u_pairs, self._rhs, where=self._active)
        self._solver.update(matrices=False)
        result = self._solver.solve()
        iterations += int(result.info.iter)
        if self._accept(result):
            return Outcome.RELAXED, (f"QP {first} with the recovery push and the legs' motion: solved without "
                                     "them, legs held"), iterations
        self._x.fill(0.0)
        self._solver.reset_warm_start()
        return Outcome.HELD, f"QP {first}, then {result.info.status} without the recovery push: " \
                             "last safe command held", iterations

    def _accept(self, result: SolveResult) -> bool:
        """Use the solution if the solver converged and every row holds within tolerance."""
        if result.info.status_val not in USABLE:
            return False
        x = self._x
        x[:] = result.x
        if not all_set(np.isfinite(x, out=self._finite_x)):
            return False
        np.minimum(x, self._u_box, out=x)
        np.maximum(x, self._l_box, out=x)
        return self._rows_hold(pair_tolerance=self.config.acceptance_tolerance)

    def _rows_hold(self, pair_tolerance: float) -> bool:
        """Whether _x keeps the pair rows within `pair_tolerance` and the head rows (shrunk by the
        acceptance tolerance, see _set_rows) within the acceptance tolerance; leaves every row's
        excess in _excess_pairs / _excess_head."""
        np.matmul(self._a_pairs, self._x, out=self._excess_pairs)
        np.subtract(self._excess_pairs, self._u_pairs, out=self._excess_pairs)
        np.matmul(self._a_head, self._x, out=self._excess_head)
        np.subtract(self._excess_head, self._u_head, out=self._excess_head)
        return (all_set(np.less_equal(self._excess_pairs, pair_tolerance, out=self._held_pairs))
                and all_set(np.less_equal(self._excess_head, self.config.acceptance_tolerance, out=self._held_head)))


def _same_values(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two arrays of one dtype and shape hold the same bytes: a compare of a few
    hundred bytes, far cheaper than np.array_equal's checks (a -0.0 against a 0.0 only costs a
    recomputation)."""
    return a.tobytes() == b.tobytes()
