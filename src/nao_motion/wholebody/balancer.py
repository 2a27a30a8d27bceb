"""NAOqi's Whole Body Balancer: one QP per cycle over the torso's twist and the joint velocities.

Frames. The balancer's world frame W ("wb_world") is fixed on the floor, z up. It is anchored
when the QP starts (``set_enabled(True)``, or the first walk reference): W is then FRAME_ROBOT
(``ForwardKinematics.ground_frame``: the midpoint of the soles on the floor, x along the feet's
mean heading) of the command pose, its vertical taken from the IMU's attitude when given, else
from the lower sole lying flat. While the QP is off, W follows FRAME_ROBOT every cycle.

Floating base. The state is the joint command q and the feet's targets in W (the pose a Fixed
foot holds, the height and tilt a Plane foot holds), captured whenever a foot's state changes.
After each step the torso's pose in W is re-derived from the Fixed feet: the pose each Fixed
foot implies (its target composed with the inverse of its torso-frame pose at q), halfway
between the two when both are Fixed; with no Fixed foot, the solution's torso twist is
integrated. So the command never drifts against a Fixed foot, and the small linearisation error
of the closed chain between two Fixed feet is halved and removed by the feet's feedback
(``foot_feedback_gain``) over the next cycles. Re-anchoring from measurements: enabling starts
from the measured pose when the command is more than ``max_tracking_error_rad`` from it, and
while balancing the command is kept within that of the measured pose (a blocked or limp joint
is worked from where it is, so the other joints' compensation matches the real robot).

The QP (variables: floating_base.py; x = [v, w, q_dot] in m/s, rad/s, world frame):

    minimise    sum_t w_t |J_t x - xdot_t|^2 + sum_j w_j (q_dot_j - q_dot_wish_j)^2 + torso and
                regularisation terms on |x|^2
    subject to  J_foot x = feedback            Fixed feet: 6 rows; Plane: z, wx, wy (world)
                q_lo <= q_dot <= q_hi          velocity limits and, linearised, the joint limits
                coupled head / ankle rows      (collision.coupled_limits, valid for one step)
                n_i . (J_com x)_xy >= lb_i     balance on: one row per polygon edge (placo)

Balance rows: with s_i = n_i . (c + d - a_i) - margin (c the COM, d the last cycle's
second-order drift, see below), lb_i = -s_i / com_approach_time_s while s_i >= 0 (the COM brakes
before the margin: static balance with a dynamic braking), min(-s_i / dt, recovery) past it.
The drift d is what the linearised rows missed last cycle (COM moved - J_com x dt): a fast
motion otherwise creeps a few um per cycle across the margin.

Tasks (Cartesian wishes, each a desired velocity from a clamped proportional error): Head
orientation, LArm / RArm position (effector control), the centre of mass (wbGoToBalance, the
walk), the feet and the torso (the walk: heading between the feet, tilted by TorsoWx / TorsoWy;
otherwise a weak upright wish). The articular wish is the collision filter's command: a joint whose wish moves
follows it, q_dot_wish = (q_wish - q) / dt clamped to the speed limit, with weight
``moving_wish_weight``; a joint whose wish holds wishes to keep still (``articular_weight``),
so the joints that were not commanded are the ones that compensate. Infeasible or contradictory
wishes are traded off by the weights: the solution always satisfies the constraints.

Solving. If the solution breaks a feet or balance row by more than ``acceptance_tolerance``
(OSQP out of iterations, or the problem infeasible: a far COM with a Fixed foot at a joint
limit, ...) the problem is solved again without the feet's feedback and the COM's recovery
push, which standing still satisfies, and that step is scaled toward standing still until
every row holds. Only a solver failure (no finite iterate) holds the last command.

Why these OSQP settings (qp.SolverSettings): velocities are O(0.01..10) m/s or rad/s and one
cycle multiplies them by dt = 0.01 s, so eps_abs = 1e-4, eps_rel = 1e-5 leave a held foot
about 1e-6 m of residual motion per cycle (which its feedback then removes) and the balance
rows within 1e-6 m: far below what the servos resolve (eps_rel is the smaller because OSQP
scales it by the largest row value, a 12 rad/s wrist). Warm-started, the solver needs 5-20
iterations in steady state and up to its 400 when a wish jumps far or the COM reaches an edge;
its iterate is then used if the feet and balance rows hold within 1e-3 m/s (10 um per cycle),
the objective being a compromise anyway. Polishing is off (it costs a factorisation per solve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from .. import spatial
from ..collision.coupled_limits import CoupledLimitRows
from ..kinematics import ForwardKinematics
from ..model import HEAD_PITCH_VS_YAW_DEG, LANKLE_ROLL_VS_PITCH_DEG, NaoModel, project_coupled_limits
from .floating_base import N_BASE, FloatingBaseJacobians
from .modes import (EFFECTORS, FEET, SUPPORT_FEET, FootState, balance_refusal, check_effector,
                    check_effector_enabled, check_support_leg, com_outside_refusal)
from .qp import INFEASIBLE, INFINITY, USABLE, FixedPatternQP, SolverSettings
from .support_polygon import MAX_EDGES, SupportPolygon, sole_corners_in_sole, support_polygon

# Frames the QP needs, in this order (rows of FloatingBaseJacobians.frame_jacobian).
FRAMES = ("l_sole", "r_sole", "l_gripper", "r_gripper", "Head")
SOLE = {"left": 0, "right": 1}
ARM = {"LArm": 2, "RArm": 3}
HEAD = 4
SOLE_FRAME = {"left": "l_sole", "right": "r_sole"}


@dataclass(frozen=True)
class BalancerConfig:
    """Tuning of the balancer (lengths m, speeds m/s and rad/s, weights per (m/s)^2 or (rad/s)^2)."""

    margin_m: float = 0.01  # the centre of mass stays this far inside every support polygon edge
    max_velocity_fraction: float = 0.5  # joint speed limit, fraction of each motor's no-load speed
    torso_max_speed_mps: float = 0.5
    torso_max_rate_radps: float = 2.0
    recovery_speed_mps: float = 0.02  # COM speed back inside when it is closer than the margin
    # The COM moves toward an edge no faster than its distance to the margin over this time, so
    # it brakes smoothly: with the cart-table model (z/g ~ 0.027 s^2 on NAO) a time above
    # sqrt(z/g) = 0.17 s keeps the ZMP inside the polygon while it does (static balance alone
    # lets a fast lean topple over the toes).
    com_approach_time_s: float = 0.25
    foot_feedback_gain: float = 0.5  # fraction of a held foot's pose error removed per cycle
    task_gain: float = 0.2  # fraction of a Cartesian task's error asked per cycle
    # The walk's references are trajectories sampled at the end of each cycle: asking for all
    # of the error (a lag-free, deadbeat tracking) keeps the COM on the preview controller's
    # path; at task_gain the COM would trail it by ~50 ms and the swing foot land late.
    walk_task_gain: float = 1.0
    arm_max_speed_mps: float = 0.2
    head_max_rate_radps: float = 1.5
    com_max_speed_mps: float = 0.1  # wbGoToBalance
    walk_com_max_speed_mps: float = 0.5
    foot_max_speed_mps: float = 1.0  # a swing foot at its fastest (mid-swing)
    # Weights: Cartesian wishes dominate the articular wish by 1e4 (an effector settles within
    # ~0.1 mm of a reachable target against a 0.5 rad articular pull), the walk's references
    # dominate the effectors; the regularisation only makes the problem strictly convex.
    arm_position_weight: float = 10.0
    head_orientation_weight: float = 1.0
    com_weight: float = 100.0
    # The walk's swing foot yields to the COM: when a swing leg meets its joint speed limit (a
    # fast step), an equal weight made the QP give up as much COM as foot tracking, and the
    # COM's cycle-to-cycle jitter put the multibody ZMP up to 66 mm off the plan (RMS 17 mm in
    # single support, 0.42 s steps, 0.25 double support; 39 mm / 8 mm with the 0.15 now used);
    # at 1/10 of the COM's weight it is 19 mm (RMS 3 mm), the foot catches up once the limit
    # lets go, and it still dominates the torso's wish (1/100 left the swing foot millimetres
    # short of a static target against the torso's).
    foot_weight: float = 10.0
    torso_orientation_weight: float = 1.0  # walking: upright, heading between the feet
    torso_upright_weight: float = 0.05  # not walking: roll and pitch only, 50 x the articular wish
    # The articular wish: a joint whose wish is moving (a commanded motion, or within
    # moving_wish_hold_s of its end) follows it, with moving_wish_weight; a joint whose wish
    # holds wishes to keep still (articular_weight), so it is the one that compensates and its
    # compensation is not pulled back later (NAOqi's wbFootState example: HipYawPitch turns to
    # -45 deg and stays there, the rest of the legs keep the feet flat).
    moving_wish_weight: float = 0.1
    moving_wish_hold_s: float = 0.2
    articular_weight: float = 1e-3
    # The torso's twist costs what a joint's velocity does: with the feet held it is set by the
    # legs anyway, and without a cost of its own ADMM needs ~10 times the iterations whenever
    # the balance rows are active.
    torso_weight: float = 1e-3
    regularisation_weight: float = 1e-6
    # The command is kept within this of the measured position (given to step): a joint that
    # is blocked (a foot's friction against the HipYawPitch motor, a hand holding an arm) or
    # limp is worked from where it is, so the other joints' compensation matches the real pose.
    # Enabling starts from the measured pose when the command is farther than this from it.
    max_tracking_error_rad: float = 0.1
    # A solution is used only if no feet or balance row is violated by more than this (m/s, rad/s).
    acceptance_tolerance: float = 1e-3
    solver: SolverSettings = field(default_factory=SolverSettings)
    dt_s: float | None = None  # None: the model's cycle time

    def validate(self) -> str | None:
        """The reason this configuration is refused, or None."""
        if not (np.isfinite(self.margin_m) and 0.0 <= self.margin_m <= 0.03):
            return f"margin_m must be in [0, 0.03] m, got {self.margin_m!r}"
        if not (0.0 < self.max_velocity_fraction <= 1.0):
            return f"max_velocity_fraction must be in (0, 1], got {self.max_velocity_fraction!r}"
        if not (np.isfinite(self.com_approach_time_s) and self.com_approach_time_s > 0.0):
            return f"com_approach_time_s must be > 0, got {self.com_approach_time_s!r}"
        if not all(0.0 < g <= 1.0 for g in (self.foot_feedback_gain, self.task_gain, self.walk_task_gain)):
            return "foot_feedback_gain, task_gain and walk_task_gain must be in (0, 1]"
        speeds = (self.torso_max_speed_mps, self.torso_max_rate_radps, self.recovery_speed_mps,
                  self.arm_max_speed_mps, self.head_max_rate_radps, self.com_max_speed_mps,
                  self.walk_com_max_speed_mps, self.foot_max_speed_mps)
        if not all(np.isfinite(s) and s > 0.0 for s in speeds):
            return "speed limits must be finite and > 0"
        weights = (self.arm_position_weight, self.head_orientation_weight, self.com_weight, self.foot_weight,
                   self.torso_orientation_weight, self.torso_upright_weight, self.articular_weight, self.torso_weight,
                   self.regularisation_weight)
        if not all(np.isfinite(w) and w > 0.0 for w in weights):
            return "weights must be finite and > 0"
        if self.dt_s is not None and not (0.0 < self.dt_s <= 0.1):
            return f"dt_s must be in (0, 0.1] s, got {self.dt_s!r}"
        return None


@dataclass(frozen=True)
class WholeBodySettings:
    """What the user chose: wbFootState, wbEnableBalanceConstraint, wbEnableEffectorControl."""

    left_foot: FootState = FootState.FIXED
    right_foot: FootState = FootState.FIXED
    balance_enabled: bool = False
    balance_support: str = "Legs"
    effectors: frozenset = frozenset()

    @property
    def feet(self) -> dict[str, FootState]:
        return {"left": self.left_foot, "right": self.right_foot}

    @property
    def balance(self) -> str | None:
        """The support polygon the COM is kept in: the constraint's, or Legs under effector control
        (NAOqi: effector control keeps the two feet on the ground and keeps balance)."""
        if self.balance_enabled:
            return self.balance_support
        return "Legs" if self.effectors else None

    def refusal(self) -> str | None:
        """Why these settings cannot go together, or None."""
        check_support_leg(self.balance_support)
        for name in self.effectors:
            check_effector(name)
        reason = balance_refusal(self.balance is not None, self.balance or "Legs", self.feet)
        if reason and not self.balance_enabled:
            return f"effector control keeps balance on Legs: {reason}"
        return reason


@dataclass(frozen=True)
class WalkReference:
    """One cycle of the walk's references, world frame W (m, 4x4 sole poses).

    support: "Legs" (double support: both feet held), "LLeg" or "RLeg" (that foot held, the
    other follows its reference). torso_tilt_rad: the torso's rotation about x then y (rad) in
    the frame of the feet's mean heading, the walk's TorsoWx / TorsoWy of the cycle.
    """

    com_world_m: np.ndarray
    left_sole_world: np.ndarray
    right_sole_world: np.ndarray
    support: str
    torso_tilt_rad: tuple[float, float] = (0.0, 0.0)


class Mode(str, Enum):
    PASS_THROUGH = "pass-through"  # disabled, not walking: the wish within limits and speeds
    BALANCING = "balancing"
    WALKING = "walking"


class Outcome(str, Enum):
    SOLVED = "solved"
    RELAXED = "relaxed"  # without the feet's feedback and the COM's push, scaled if need be
    HELD = "held"  # no usable solution: the last command is held
    PASSED = "passed"  # pass-through, no QP


@dataclass
class BalancerResult:
    """One cycle's outcome. `q` is the balancer's command buffer: copy it to keep it."""

    q: np.ndarray
    mode: Mode
    outcome: Outcome
    reason: str
    iterations: int
    com_world_m: np.ndarray
    torso_world: np.ndarray
    polygon: SupportPolygon  # the balance constraint's (else the grounded feet's) polygon
    com_margin_m: float  # distance from the COM to the polygon's nearest edge (> 0 inside)


def rotation_error(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    """Rotation vector (world frame) taking `current` to `target` (3x3 rotations)."""
    e = (target @ current.T).tolist()  # scalar arithmetic: a few floats are cheaper than numpy calls
    vx, vy, vz = 0.5 * (e[2][1] - e[1][2]), 0.5 * (e[0][2] - e[2][0]), 0.5 * (e[1][0] - e[0][1])
    s = math.sqrt(vx * vx + vy * vy + vz * vz)
    scale = math.atan2(s, 0.5 * (e[0][0] + e[1][1] + e[2][2] - 1.0)) / s if s > 1e-12 else 1.0
    return np.array([vx * scale, vy * scale, vz * scale])


def _clamp_norm(v: np.ndarray, limit: float) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v * (limit / n) if n > limit else v


def _exp_rotation(w: np.ndarray) -> np.ndarray:
    angle = float(np.linalg.norm(w))
    if angle < 1e-12:
        return np.eye(3)
    k = w / angle
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(angle) * kx + (1.0 - np.cos(angle)) * kx @ kx


# --- rows of the constraint matrix ------------------------------------------------------------
N_FOOT_ROWS = 6
N_COUPLED = CoupledLimitRows.n_rows


class _Rows:
    """Row offsets of A: variable box, feet, balance edges, coupled head / ankle limits."""

    def __init__(self, n: int):
        self.box = slice(0, n)
        self.foot = {foot: slice(n + N_FOOT_ROWS * i, n + N_FOOT_ROWS * (i + 1)) for i, foot in enumerate(FEET)}
        start = n + N_FOOT_ROWS * len(FEET)
        self.com = slice(start, start + MAX_EDGES)
        start += MAX_EDGES
        self.coupled = [slice(start + N_COUPLED * i, start + N_COUPLED * (i + 1)) for i in range(3)]
        self.equality = slice(n, start - MAX_EDGES)
        self.total = start + 3 * N_COUPLED


# --- tasks (rows of the objective's stacked Jacobian) ------------------------------------------
TASK_HEAD = slice(0, 3)
TASK_ARM = {"LArm": slice(3, 6), "RArm": slice(6, 9)}
TASK_COM = slice(9, 12)
TASK_FOOT = {"left": slice(12, 18), "right": slice(18, 24)}
TASK_TORSO = slice(24, 27)
N_TASK_ROWS = 27


class WholeBodyBalancer:
    """The balancer's core: prepare once for a model; :meth:`reset`, then :meth:`step` each cycle."""

    def __init__(self, model: NaoModel, config: BalancerConfig | None = None, fk: ForwardKinematics | None = None):
        config = config or BalancerConfig()
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        self.model, self.config = model, config
        self.fk = fk or ForwardKinematics(model)
        self.dt_s = config.dt_s or model.cycle_time_s
        self.jac = FloatingBaseJacobians(self.fk, FRAMES)
        self.motor_joint_names = self.jac.motor_joint_names
        self.n = self.jac.n_variables
        self._motor = np.array([model.joint_index(j) for j in self.motor_joint_names])
        self._hands = np.array([model.joint_index(j) for j in model.joint_names if j not in self.fk.joint_names])
        self._lhyp, self._rhyp = model.joint_index("LHipYawPitch"), model.joint_index("RHipYawPitch")
        self._vmax_joint = model.max_velocity * config.max_velocity_fraction
        self._vmax_motor = self._vmax_joint[self._motor]
        self._corners = sole_corners_in_sole(model)
        self._setup_coupled()
        self._rows = _Rows(self.n)
        self.qp = FixedPatternQP(self._pattern(), config.solver)
        self._setup_buffers()

        self.settings = WholeBodySettings()
        self.q = model.zero_configuration()
        self.torso_world = np.eye(4)
        self.foot_target: dict[str, np.ndarray] = {f: np.eye(4) for f in FEET}
        self._target_version = {f: 0 for f in FEET}
        self._polygon_cache: dict = {}
        self.effector_target: dict[str, np.ndarray] = {}  # Head: 3x3 rotation; arms: position (W)
        self.enabled = False
        self.mode = Mode.PASS_THROUGH
        self._walk_support: str | None = None
        self._go_to_balance: tuple[np.ndarray, np.ndarray, float, float] | None = None  # start, end, t0, T
        self._time_s = 0.0
        self._started = False
        self._state = None

    # --- set-up -----------------------------------------------------------------------------
    def _setup_coupled(self) -> None:
        """Coupled-limit rows: (dependent joint, driver joint, row maker) for the head and ankles."""
        model, dt = self.model, self.dt_s
        right_ankle = LANKLE_ROLL_VS_PITCH_DEG[:, [0, 2, 1]] * [1.0, -1.0, -1.0]  # roll mirrored
        spec = (("HeadPitch", "HeadYaw", HEAD_PITCH_VS_YAW_DEG, True),
                ("LAnkleRoll", "LAnklePitch", LANKLE_ROLL_VS_PITCH_DEG, False),
                ("RAnkleRoll", "RAnklePitch", right_ankle, False))
        self._coupled = []
        for dependent, driver, table, symmetric in spec:
            rows = CoupledLimitRows(table, symmetric, float(self._vmax_joint[model.joint_index(driver)] * dt))
            cols = (N_BASE + self.motor_joint_names.index(dependent), N_BASE + self.motor_joint_names.index(driver))
            self._coupled.append((model.joint_index(dependent), model.joint_index(driver), cols, rows))
        # (dependent, driver, (dependent column, driver column), rows); the driver's column is
        # also its row in the variable box.

    def _pattern(self) -> np.ndarray:
        r, n = self._rows, self.n
        pattern = np.zeros((r.total, n), dtype=bool)
        pattern[r.box, :] = np.eye(n, dtype=bool)
        for foot in FEET:
            moved = np.zeros(n, dtype=bool)
            moved[:N_BASE] = True
            chain = "LLeg" if foot == "left" else "RLeg"
            for joint in self.model.chains[chain].joints:
                name = "LHipYawPitch" if joint == "RHipYawPitch" else joint
                moved[N_BASE + self.motor_joint_names.index(name)] = True
            pattern[r.foot[foot], :] = moved
        pattern[r.com, :] = True
        pattern[r.com, 2] = False  # vertical torso speed does not move the COM in the floor plane
        for rows, (_, _, cols, _) in zip(r.coupled, self._coupled):
            pattern[rows, cols[0]] = pattern[rows, cols[1]] = True
        return pattern

    def _setup_buffers(self) -> None:
        n, cfg = self.n, self.config
        self.qp.A[self._rows.box] = np.eye(n)  # the variable box's rows never change
        self._task_j = np.zeros((N_TASK_ROWS, n))
        self._task_j[TASK_TORSO, 3:6] = np.eye(3)
        self._task_w = np.zeros(N_TASK_ROWS)
        self._task_v = np.zeros(N_TASK_ROWS)
        self._weighted = np.zeros((N_TASK_ROWS, n))
        self._set_weights()
        self._dq_wish = np.zeros(n)
        self._diag_index = np.arange(n)
        box_hi = np.concatenate([[cfg.torso_max_speed_mps] * 3, [cfg.torso_max_rate_radps] * 3, self._vmax_motor])
        self._box_lo_base, self._box_hi_base = -box_hi[:N_BASE], box_hi[:N_BASE]
        # Coupled rows of this cycle per (dependent, driver) pair: [c_dep, c_drv] . step <= rhs (rad).
        self._coef = np.zeros((len(self._coupled), N_COUPLED, 2))
        self._rhs = np.zeros((len(self._coupled), N_COUPLED))
        self._used = np.zeros((len(self._coupled), N_COUPLED), dtype=bool)
        self._pair_step = np.zeros(2)
        self._excess = np.zeros(N_COUPLED)
        self._wish = np.zeros(self.model.n_joints)
        self._moving_until_s = np.full(self.model.n_joints, -np.inf)
        self._moving = np.zeros(len(self._motor), dtype=bool)
        self._step = np.zeros(self.model.n_joints)
        self._x = np.zeros(n)
        self._last_twist = np.zeros(6)
        self._com_world = np.zeros(3)
        self._com_drift = np.zeros(3)

    def update_config(self, config: BalancerConfig) -> None:
        """Change margin, gains, speeds of the tasks and weights at run time (ValueError if refused).

        dt_s, max_velocity_fraction and the solver settings are fixed at set-up (they shape the
        QP's rows and the coupled-limit tables).
        """
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        fixed = ("dt_s", "max_velocity_fraction", "solver")
        changed = [f for f in fixed if getattr(config, f) != getattr(self.config, f)]
        if changed:
            raise ValueError(f"{', '.join(changed)} can only be set when the balancer is created")
        self.config = config
        self._set_weights()

    def _set_weights(self) -> None:
        cfg, n = self.config, self.n
        self._diag_base = np.full(n, cfg.regularisation_weight)
        self._diag_base[:N_BASE] += cfg.torso_weight
        self._diag = self._diag_base.copy()
        self._articular_w = np.zeros(n)

    # --- settings -----------------------------------------------------------------------------
    def refusal(self, settings: WholeBodySettings) -> str | None:
        """Why `settings` cannot be applied now, or None (the same check :meth:`apply` makes).

        Beyond the allowed combinations: a balance constraint that is being switched on (or
        moved to another support) is refused while the centre of mass is outside that support
        polygon (NAOqi: "if COM is not inside the desired support polygon, this constraint is
        not activated").
        """
        try:
            reason = settings.refusal()
        except ValueError as err:
            return str(err)
        if reason:
            return reason
        support = settings.balance
        if support is not None and support != self.settings.balance and self._started:
            distance = self.com_margin(support)
            if distance < 0.0:
                return com_outside_refusal(support, -distance)
        return None

    def apply(self, settings: WholeBodySettings) -> None:
        """Take new settings (ValueError with the reason if refused); changed feet are re-captured."""
        reason = self.refusal(settings)
        if reason:
            raise ValueError(reason)
        old, self.settings = self.settings, settings
        if settings.balance != old.balance:  # the balance constraint takes over from wbGoToBalance
            self._go_to_balance = None
        if self._started:
            state = self._current_state()
            for foot in FEET:
                if settings.feet[foot] != old.feet[foot]:
                    self._capture_foot(foot, state)
            for name in EFFECTORS:
                if name in settings.effectors and name not in old.effectors:
                    self._capture_effector(name)
                elif name not in settings.effectors:
                    self.effector_target.pop(name, None)

    def set_effector_target(self, name: str, target: np.ndarray) -> None:
        """wbSetEffectorControl: Head (wx, wy, wz) rad or LArm / RArm (x, y, z) m, FRAME_ROBOT.

        Converted into the world frame now (FRAME_ROBOT of the current command). Raises
        ValueError when the effector is unknown or not under effector control.
        """
        check_effector(name)
        target = np.asarray(target, dtype=float)
        if target.shape != (3,) or not np.all(np.isfinite(target)):
            raise ValueError(f"{name} target must be 3 finite numbers, got {target.tolist()}")
        check_effector_enabled(name, self.settings.effectors)
        robot = self.torso_world @ self.fk.ground_frame(self._current_state(), self.torso_world[:3, :3])
        if name == "Head":
            self.effector_target[name] = robot[:3, :3] @ spatial.rotation_from_rpy(*target)
        else:
            self.effector_target[name] = robot[:3, :3] @ target + robot[:3, 3]

    def go_to_balance(self, support: str, duration_s: float) -> None:
        """wbGoToBalance: move the COM over the support polygon's centre in `duration_s`, then hold it.

        The hold ends when the balance constraint changes (it then keeps the COM inside), the
        balancer is disabled or a walk starts: without it the articular wish would bring the
        COM back. ValueError when refused.
        """
        check_support_leg(support)
        if not (np.isfinite(duration_s) and duration_s >= 0.0):
            raise ValueError(f"duration must be finite and >= 0 s, got {duration_s!r}")
        if not self.enabled:
            raise ValueError("the whole body balancer is disabled: wbEnable(True) first")
        free = [f for f in SUPPORT_FEET[support] if self.settings.feet[f] is FootState.FREE]
        if free:
            raise ValueError(f"cannot balance on {support}: the {free[0]} foot is Free")
        self._refresh()
        polygon = self._polygon(SUPPORT_FEET[support])
        start = self.jac.com_world_m[:2].copy()
        self._go_to_balance = (start, polygon.centroid(), self._time_s, max(duration_s, self.dt_s))

    # --- state --------------------------------------------------------------------------------
    def reset(self, q: np.ndarray) -> None:
        """Start from q (normally the measured pose): pass-through, world frame at FRAME_ROBOT."""
        self.q = self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q))
        self._wish[:] = self.q
        self.enabled = False
        self.mode = Mode.PASS_THROUGH
        self._started = True
        self._follow_robot_frame()

    def set_enabled(self, enabled: bool, q_measured: np.ndarray | None = None,
                    torso_attitude: np.ndarray | None = None) -> None:
        """wbEnable. Enabling anchors the world frame at FRAME_ROBOT and captures the feet and the
        effectors where they are. The QP starts from the command (no jump), or from `q_measured`
        when that is more than ``max_tracking_error_rad`` away (the robot is not where the command
        says: limp joints, moved by hand). `torso_attitude` (3x3, gravity-aligned frame, e.g.
        from the IMU) gives the vertical; None: the lower sole lies flat."""
        if not self._started:
            raise RuntimeError("reset(q) the balancer before enabling it")
        if enabled and not self.enabled:
            if q_measured is not None and np.max(np.abs(q_measured - self.q)) > self.config.max_tracking_error_rad:
                self.q = self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q_measured))
            self._anchor(torso_attitude)
        self.enabled = enabled
        if not enabled:
            self._go_to_balance = None
            self.effector_target.clear()

    def _anchor(self, torso_attitude: np.ndarray | None = None) -> None:
        state = self._current_state()
        self.torso_world = spatial.inverse(self.fk.ground_frame(state, torso_attitude))
        self._last_twist[:] = 0.0
        self._com_drift[:] = 0.0
        for foot in FEET:
            self._capture_foot(foot, state)
        for name in self.settings.effectors:
            self._capture_effector(name)
        self.qp.reset_warm_start()

    def _follow_robot_frame(self) -> None:
        self.torso_world = spatial.inverse(self.fk.ground_frame(self._current_state()))

    def _current_state(self):
        if self._state is None or not np.array_equal(self._state.q, self.model.mimic_hip_yaw_pitch(self.q)):
            self._state = self.fk.compute(self.q)
        return self._state

    def _refresh(self) -> None:
        self.jac.update(self._current_state(), self.torso_world)

    def _capture_foot(self, foot: str, state) -> None:
        self.foot_target[foot] = self.torso_world @ self.fk.pose(state, SOLE_FRAME[foot])
        self._target_version[foot] += 1

    def _capture_effector(self, name: str) -> None:
        self._refresh()
        if name == "Head":
            self.effector_target[name] = self.jac.frame_pose_world[HEAD][:3, :3].copy()
        else:
            self.effector_target[name] = self.jac.frame_pose_world[ARM[name]][:3, 3].copy()

    def _polygon(self, feet: tuple[str, ...], held: dict[str, FootState] | None = None) -> SupportPolygon:
        """Polygon of these feet's soles; Fixed feet (per `held`) are where they are held, so their
        polygon is computed once per capture and cached."""
        if held is None or any(held[f] is not FootState.FIXED for f in feet):
            return support_polygon({f: self.jac.frame_pose_world[SOLE[f]] for f in feet}, feet, self._corners)
        key = (feet, tuple(self._target_version[f] for f in feet))
        if key not in self._polygon_cache:
            if len(self._polygon_cache) > 16:
                self._polygon_cache.clear()
            self._polygon_cache[key] = support_polygon(self.foot_target, feet, self._corners)
        return self._polygon_cache[key]

    def com_margin(self, support: str) -> float:
        """Distance (m) from the COM to the nearest edge of `support`'s polygon, > 0 inside."""
        check_support_leg(support)
        if not self._started:
            return -np.inf
        if not (self.enabled or self.mode is Mode.WALKING):
            self._follow_robot_frame()
        self._refresh()
        return self._polygon(SUPPORT_FEET[support]).margin(self.jac.com_world_m[:2])

    # --- cycle --------------------------------------------------------------------------------
    def step(self, q_wish: np.ndarray, walk: WalkReference | None = None,
             q_measured: np.ndarray | None = None) -> BalancerResult:
        """One cycle toward `q_wish` (26 joints, rad): the next command, also kept as ``q``.

        q_measured (26, rad; None: not known): the QP starts from the command moved to within
        ``max_tracking_error_rad`` of it.
        """
        if not self._started:
            raise RuntimeError("reset(q) the balancer before the first step")
        self._time_s += self.dt_s
        moved = np.abs(q_wish - self._wish) > 1e-9
        self._moving_until_s[moved] = self._time_s + self.config.moving_wish_hold_s
        np.copyto(self._wish, q_wish)
        self._update_mode(walk)
        if self.mode is Mode.PASS_THROUGH:
            return self._pass_through()
        if q_measured is not None:
            self._follow_measured(q_measured)
        self.jac.update(self._current_state(), self.torso_world)
        feet, support = self._constraint_modes(walk)
        polygon = self._fill_constraints(feet, support)
        self._fill_objective(feet, walk)
        outcome, reason, iterations = self._solve()
        self._integrate()
        # The new command's pose (its FK is reused by the next cycle): torso and COM in W.
        state = self._current_state()
        self._anchor_torso(state)
        np.matmul(self.torso_world[:3, :3], state.com_torso_m, out=self._com_world)
        self._com_world += self.torso_world[:3, 3]
        # What the linearised COM rows missed this cycle (second order): the next cycle's rows
        # allow for the same again, so a fast motion does not creep across the margin.
        np.matmul(self.jac.com_jacobian, self._x, out=self._com_drift)
        self._com_drift *= -self.dt_s
        self._com_drift += self._com_world - self.jac.com_world_m
        shown = polygon or self._grounded_polygon(feet, held=True)
        return BalancerResult(self.q, self.mode, outcome, reason, iterations, self._com_world,
                              self.torso_world, shown, shown.margin(self._com_world[:2]))

    def _update_mode(self, walk: WalkReference | None) -> None:
        if walk is not None:
            if self.mode is not Mode.WALKING:
                if not self.enabled:
                    self._anchor()
                self._go_to_balance = None
                self._walk_support = None
            self.mode = Mode.WALKING
            if walk.support != self._walk_support:  # the feet that land are held where they are
                check_support_leg(walk.support)
                state = self._current_state()
                for foot in SUPPORT_FEET[walk.support]:
                    if self._walk_support is None or foot not in SUPPORT_FEET[self._walk_support]:
                        self._capture_foot(foot, state)
                self._walk_support = walk.support
            return
        if self.mode is Mode.WALKING:  # the walk ended: back to the user's foot states, held here
            state = self._current_state()
            for foot in FEET:
                self._capture_foot(foot, state)
            self._walk_support = None
        self.mode = Mode.BALANCING if self.enabled else Mode.PASS_THROUGH

    def _follow_measured(self, q_measured: np.ndarray) -> None:
        q, limit = self.q, self.config.max_tracking_error_rad
        np.subtract(q, q_measured, out=self._step)
        if np.max(np.abs(self._step[self._motor])) <= limit:
            return
        np.minimum(q, q_measured + limit, out=q)
        np.maximum(q, q_measured - limit, out=q)
        q[self._rhyp] = q[self._lhyp]
        q[:] = self.model.clip_to_limits(q)
        self._anchor_torso(self._current_state(), integrate=False)

    def _pass_through(self) -> BalancerResult:
        """Disabled: the wish within the joint limits, reached no faster than the speed limit."""
        model, q = self.model, self.q
        target = model.clip_to_limits(model.mimic_hip_yaw_pitch(self._wish))
        np.subtract(target, q, out=self._step)
        limit = self._vmax_joint * self.dt_s
        np.minimum(self._step, limit, out=self._step)
        np.maximum(self._step, -limit, out=self._step)
        q += self._step
        q[:] = model.clip_to_limits(q)
        self._follow_robot_frame()
        self._refresh()
        polygon = self._grounded_polygon(self.settings.feet)
        return BalancerResult(q, Mode.PASS_THROUGH, Outcome.PASSED, "disabled: pass-through", 0,
                              self.jac.com_world_m, self.torso_world, polygon,
                              polygon.margin(self.jac.com_world_m[:2]))

    def _anchor_torso(self, state, integrate: bool = True) -> None:
        """The torso pose in W at the command's state: implied by the Fixed feet (averaged), else
        (with `integrate`) the last solution's twist integrated."""
        fixed = [f for f in FEET if self._held(f) is FootState.FIXED]
        if not fixed:
            if not integrate:
                return
            twist = self._last_twist * self.dt_s
            self.torso_world[:3, :3] = _exp_rotation(twist[3:]) @ self.torso_world[:3, :3]
            self.torso_world[:3, 3] += twist[:3]
            return
        # Torso pose each Fixed foot implies: R = R_target R_foot', p = p_target - R p_foot.
        rotations, positions = [], []
        for foot in fixed:
            target, pose = self.foot_target[foot], self.fk.pose(state, SOLE_FRAME[foot])
            r = target[:3, :3] @ pose[:3, :3].T
            rotations.append(r)
            positions.append(target[:3, 3] - r @ pose[:3, 3])
        if len(fixed) == 2:  # halfway between the two
            rotations[0] = _exp_rotation(0.5 * rotation_error(rotations[1], rotations[0])) @ rotations[0]
            positions[0] = 0.5 * (positions[0] + positions[1])
        self.torso_world[:3, :3] = rotations[0]
        self.torso_world[:3, 3] = positions[0]

    def _held(self, foot: str) -> FootState:
        """The foot's state this cycle: the user's, or during the walk Fixed when supporting."""
        if self.mode is Mode.WALKING:
            return FootState.FIXED if foot in SUPPORT_FEET[self._walk_support] else FootState.FREE
        return self.settings.feet[foot]

    def _constraint_modes(self, walk: WalkReference | None) -> tuple[dict[str, FootState], str | None]:
        feet = {f: self._held(f) for f in FEET}
        # While walking, balance is the walk's (its ZMP stays in the support polygon, not its COM).
        return feet, (None if walk is not None else self.settings.balance)

    def _fill_constraints(self, feet: dict[str, FootState], support: str | None) -> SupportPolygon | None:
        qp, r, cfg, dt, jac = self.qp, self._rows, self.config, self.dt_s, self.jac
        A, lo, hi = qp.A, qp.l, qp.u
        # Box: torso twist bounds; joint speed limits and the joint limits, linearised.
        q_motor = self.q[self._motor]
        lo[:N_BASE], hi[:N_BASE] = self._box_lo_base, self._box_hi_base
        np.maximum(-self._vmax_motor, (self.model.lower[self._motor] - q_motor) / dt, out=lo[N_BASE:r.box.stop])
        np.minimum(self._vmax_motor, (self.model.upper[self._motor] - q_motor) / dt, out=hi[N_BASE:r.box.stop])

        # Feet: Fixed holds the captured pose, Plane its height and tilt; feedback removes drift.
        gain = cfg.foot_feedback_gain / dt
        for foot in FEET:
            rows, k = r.foot[foot], SOLE[foot]
            A[rows] = jac.frame_jacobian[k]
            lo[rows], hi[rows] = -INFINITY, INFINITY
            state = feet[foot]
            if state is FootState.FREE:
                continue
            pose, target = jac.frame_pose_world[k], self.foot_target[foot]
            if state is FootState.FIXED:
                err = np.concatenate([target[:3, 3] - pose[:3, 3], rotation_error(target[:3, :3], pose[:3, :3])])
                lo[rows] = hi[rows] = gain * err
            else:  # Plane: z, wx, wy; the tilt error turns the sole's normal onto the target's
                tilt = np.cross(pose[:3, 2], target[:3, 2])
                values = gain * np.array([target[2, 3] - pose[2, 3], tilt[0], tilt[1]])
                lo[rows.start + 2: rows.start + 5] = hi[rows.start + 2: rows.start + 5] = values

        # Balance: the COM inside the support polygon, `margin_m` from each edge (placo's rows).
        polygon = None
        lo[r.com], hi[r.com] = -INFINITY, INFINITY
        if support is not None:
            polygon = self._polygon(SUPPORT_FEET[support], feet)
            k = polygon.n_edges
            rows = slice(r.com.start, r.com.start + k)
            np.matmul(polygon.normals_xy, jac.com_jacobian[:2], out=A[rows])
            slack = polygon.edge_distances(jac.com_world_m[:2] + self._com_drift[:2]) - cfg.margin_m
            # Approaching the margin: braked; past it (linearisation, solver tolerance): back at once.
            lo[rows] = np.where(slack >= 0.0, -slack / cfg.com_approach_time_s,
                                np.minimum(-slack / dt, cfg.recovery_speed_mps))

        # Coupled head / ankle limits, one step ahead (rows in rad per step: divide by dt).
        for i, (rows, (dependent, driver, cols, maker)) in enumerate(zip(r.coupled, self._coupled)):
            box = cols[1]
            coef, rhs, used = self._coef[i], self._rhs[i], self._used[i]
            maker.fill(self.q[driver], self.q[dependent], lo[box] * dt, hi[box] * dt, coef, rhs, used)
            np.copyto(rhs, INFINITY, where=~used)
            A[rows, cols[0]], A[rows, cols[1]] = coef[:, 0], coef[:, 1]
            np.divide(rhs, dt, out=hi[rows])
        return polygon

    def _grounded_polygon(self, feet: dict[str, FootState], held: bool = False) -> SupportPolygon:
        """The polygon of the feet on the ground (both when none is), for display."""
        grounded = tuple(f for f in FEET if feet[f] is not FootState.FREE) or FEET
        return self._polygon(grounded, feet if held else None)

    def _fill_objective(self, feet: dict[str, FootState], walk: WalkReference | None) -> None:
        cfg, dt, jac = self.config, self.dt_s, self.jac
        gain = cfg.task_gain / dt
        J, w, v = self._task_j, self._task_w, self._task_v
        w[:] = 0.0
        if "Head" in self.effector_target:
            J[TASK_HEAD] = jac.frame_jacobian[HEAD, 3:6]
            err = rotation_error(self.effector_target["Head"], jac.frame_pose_world[HEAD][:3, :3])
            v[TASK_HEAD] = _clamp_norm(gain * err, cfg.head_max_rate_radps)
            w[TASK_HEAD] = cfg.head_orientation_weight
        for arm, rows in TASK_ARM.items():
            if arm in self.effector_target:
                J[rows] = jac.frame_jacobian[ARM[arm], 0:3]
                err = self.effector_target[arm] - jac.frame_pose_world[ARM[arm]][:3, 3]
                v[rows] = _clamp_norm(gain * err, cfg.arm_max_speed_mps)
                w[rows] = cfg.arm_position_weight
        com_target = self._com_target(walk)
        if com_target is not None:
            J[TASK_COM] = jac.com_jacobian
            axes = 3 if walk is not None else 2  # wbGoToBalance moves the COM in the floor plane
            err = np.zeros(3)
            err[:axes] = com_target[:axes] - jac.com_world_m[:axes]
            if walk is None:
                v[TASK_COM] = _clamp_norm(gain * err, cfg.com_max_speed_mps)
            else:
                v[TASK_COM] = _clamp_norm(cfg.walk_task_gain / dt * err, cfg.walk_com_max_speed_mps)
            w[TASK_COM.start: TASK_COM.start + axes] = cfg.com_weight
        if walk is not None:
            gain = cfg.walk_task_gain / dt
            for foot, target in (("left", walk.left_sole_world), ("right", walk.right_sole_world)):
                if feet[foot] is not FootState.FREE:
                    continue
                rows, k = TASK_FOOT[foot], SOLE[foot]
                pose = jac.frame_pose_world[k]
                J[rows] = jac.frame_jacobian[k]
                v[rows.start: rows.start + 3] = _clamp_norm(gain * (target[:3, 3] - pose[:3, 3]),
                                                            cfg.foot_max_speed_mps)
                v[rows.start + 3: rows.stop] = gain * rotation_error(target[:3, :3], pose[:3, :3])
                w[rows] = cfg.foot_weight
            # Torso heading between the feet, tilted by the walk's TorsoWx / TorsoWy.
            heading = walk.left_sole_world[:3, 0] + walk.right_sole_world[:3, 0]
            target = spatial.rotation_from_rpy(*walk.torso_tilt_rad, np.arctan2(heading[1], heading[0]))
            v[TASK_TORSO] = gain * rotation_error(target, self.torso_world[:3, :3])
            w[TASK_TORSO] = cfg.torso_orientation_weight
        else:
            # A weak wish for an upright torso (roll, pitch; yaw free): left to the articular
            # wishes alone, a leg motion (HipYawPitch, the knees) would tilt the whole torso.
            z = self.torso_world[:3, 2]
            tilt = gain * np.array([z[1], -z[0]])  # z_torso x z_world: turns the torso's z upright
            v[TASK_TORSO.start: TASK_TORSO.start + 2] = _clamp_norm(tilt, cfg.torso_max_rate_radps)
            v[TASK_TORSO.stop - 1] = 0.0
            w[TASK_TORSO.start: TASK_TORSO.start + 2] = cfg.torso_upright_weight

        # Articular weights: joints whose wish moves, then those whose wish holds.
        aw = self._articular_w[N_BASE:]
        np.less(self._time_s, self._moving_until_s[self._motor], out=self._moving)
        aw.fill(cfg.articular_weight)
        aw[self._moving] = cfg.moving_wish_weight
        np.add(self._diag_base, self._articular_w, out=self._diag)

        # P = J' W J + diag; q = -J' W v - w_q q_dot_wish.
        np.multiply(J, w[:, None], out=self._weighted)
        P = self.qp.P
        np.matmul(J.T, self._weighted, out=P)
        P[self._diag_index, self._diag_index] += self._diag
        dq = self._dq_wish
        np.subtract(self._wish[self._motor], self.q[self._motor], out=dq[N_BASE:])
        dq[N_BASE:] /= dt
        np.minimum(dq[N_BASE:], self._vmax_motor, out=dq[N_BASE:])
        np.maximum(dq[N_BASE:], -self._vmax_motor, out=dq[N_BASE:])
        dq[N_BASE:][~self._moving] = 0.0  # held wishes: keep still, compensations are not undone
        np.matmul(self._weighted.T, v, out=self.qp.q)
        self.qp.q += self._articular_w * dq
        np.negative(self.qp.q, out=self.qp.q)

    def _com_target(self, walk: WalkReference | None) -> np.ndarray | None:
        if walk is not None:
            return np.asarray(walk.com_world_m, dtype=float)
        if self._go_to_balance is None:
            return None
        start, end, t0, duration = self._go_to_balance
        s = min((self._time_s - t0) / duration, 1.0)
        return np.append(start + s * (end - start), 0.0)

    def _solve(self) -> tuple[Outcome, str, int]:
        """Solve, and leave the step to take (variables, box-clipped) in ``_x``.

        A solution that breaks a feet or balance row by more than the acceptance tolerance (ADMM
        out of iterations, or the problem infeasible) is replaced by the relaxed problem's: no
        feet feedback, no COM recovery push, so standing still satisfies it; if ADMM still ends
        outside, its step is scaled toward standing still until every row holds. Only a solver
        failure (no finite iterate) holds the last command.
        """
        qp, r = self.qp, self._rows
        result = qp.solve()
        iterations = int(result.info.iter)
        if result.info.status_val in USABLE and self._feasible_fraction() == 1.0:
            return self._take(1.0, Outcome.SOLVED, "ok", iterations)
        first = result.info.status
        eq = r.equality
        held = qp.l[eq] > -INFINITY
        qp.l[eq] = np.where(held, 0.0, qp.l[eq])
        qp.u[eq] = np.where(held, 0.0, qp.u[eq])
        np.minimum(qp.l[r.com], 0.0, out=qp.l[r.com])
        result = qp.solve(update_matrices=False)
        iterations += int(result.info.iter)
        fraction = self._feasible_fraction()
        if result.info.status_val in USABLE and fraction > 0.0:
            reason = f"QP {first}: solved without feet feedback and COM recovery"
            if fraction < 1.0:
                reason += f", step scaled by {fraction:.2f} to keep the feet and balance"
            return self._take(fraction, Outcome.RELAXED, reason, iterations)
        qp.reset_warm_start()
        kind = "infeasible" if result.info.status_val in INFEASIBLE else "failed"
        return self._take(0.0, Outcome.HELD, f"QP {kind} ({result.info.status}): last command held", iterations)

    def _feasible_fraction(self) -> float:
        """Largest t in [0, 1] for which t x keeps the feet and balance rows within the acceptance
        tolerance (0 when x is not finite or no such t > 0 exists)."""
        qp, r = self.qp, self._rows
        x = qp.x
        if not np.all(np.isfinite(x)):
            return 0.0
        rows = slice(r.equality.start, r.com.stop)  # feet, then balance edges
        v = qp.A[rows] @ x
        tol = self.config.acceptance_tolerance
        lo, hi = qp.l[rows] - tol, qp.u[rows] + tol
        over, under = v > hi, v < lo
        if not (over.any() or under.any()):
            return 1.0
        limits = np.concatenate([np.maximum(hi[over], 0.0) / v[over], np.maximum(-lo[under], 0.0) / -v[under]])
        return float(min(limits.min(), 1.0))

    def _take(self, fraction: float, outcome: Outcome, reason: str, iterations: int) -> tuple[Outcome, str, int]:
        """The step: `fraction` of the solution, inside the variable box (the solver's tolerance)."""
        x, box = self._x, self._rows.box
        np.multiply(self.qp.x, fraction, out=x) if fraction > 0.0 else x.fill(0.0)
        np.minimum(x, self.qp.u[box], out=x)
        np.maximum(x, self.qp.l[box], out=x)
        return outcome, reason, iterations

    def _integrate(self) -> None:
        model, q, dt, x = self.model, self.q, self.dt_s, self._x
        self._step[self._motor] = x[N_BASE:] * dt
        on_coupled_limit = self._snap_coupled()
        q[self._motor] += self._step[self._motor]
        q[self._rhyp] = q[self._lhyp]
        np.minimum(q, model.upper, out=q)
        np.maximum(q, model.lower, out=q)
        if on_coupled_limit:  # the rows are in rad, the tables in degrees: settle the rounding
            q[:] = project_coupled_limits(model, q)
        # Hands are not in the QP: they follow the wish at their speed limit.
        hands = self._hands
        limit = self._vmax_joint[hands] * dt
        q[hands] += np.minimum(np.maximum(self._wish[hands] - q[hands], -limit), limit)
        self._last_twist[:] = x[:N_BASE]

    def _snap_coupled(self) -> bool:
        """Move a dependent joint's step back onto a coupled-limit row it exceeds (solver tolerance);
        returns whether a step ends on a row.

        The rows are conservative over the step, so a step that keeps them keeps the coupled
        head / ankle ranges; their dependent coefficient is +1 (upper) or -1 (lower).
        """
        step, pair, excess = self._step, self._pair_step, self._excess
        on_row = False
        for i, (dependent, driver, _, _) in enumerate(self._coupled):
            pair[0], pair[1] = step[dependent], step[driver]
            np.matmul(self._coef[i], pair, out=excess)
            excess -= self._rhs[i]
            worst = int(excess.argmax())
            if excess[worst] > 0.0:
                step[dependent] -= self._coef[i, worst, 0] * excess[worst]
            on_row |= bool(excess[worst] > -1e-9)
        return on_row
