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

The QP (``qp.WholeBodyQP``; variables: floating_base.py, x = [v, w, q_dot] in m/s, rad/s, world
frame) is composed of small parts, each knowing its rows, its sparsity and how to fill its values:

    minimise    sum_t w_t |J_t x - xdot_t|^2 + sum_j w_j (q_dot_j - q_dot_wish_j)^2 + torso and
                regularisation terms on |x|^2                               (tasks.py)
    subject to  J_foot x = feedback            Fixed feet: 6 rows; Plane: z, wx, wy (world)
                q_lo <= q_dot <= q_hi          velocity limits and, linearised, the joint limits
                coupled head / ankle rows      (collision.coupled_limits, valid for one step)
                n_i . (J_com x)_xy >= lb_i     balance on: one row per polygon edge (placo)
                                                                            (constraints.py)

The balancer keeps NAOqi's modes and settings and, each cycle, tells the parts what they hold
(the feet's states and targets, the support polygon, the effectors', the COM's and the swing
feet's targets, the articular wish); the COM rows allow for the drift d the linearised rows
missed last cycle (COM moved - J_com x dt): a fast motion otherwise creeps a few um per cycle
across the margin.

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

Why these OSQP settings (``qp.WHOLE_BODY_SOLVER``, in the preconditioned units of ``qp.py``):
velocities are O(0.01..10) m/s or rad/s and one cycle multiplies them by dt = 0.01 s. The feet's
linear rows and the balance rows are scaled by 10, so eps_abs = 1e-3 leaves a held foot about
1e-6 m of residual motion per cycle (which its feedback then removes) and the balance rows
within 1e-6 m, and a joint 1e-5 rad: far below what the servos resolve. Warm-started, the
solver needs 10-25 iterations; its budget, 80, bounds the cycle when a wish jumps far or the COM
reaches an edge, and its iterate is then used if the feet and balance rows hold within
``acceptance_tolerance`` (1e-3 m/s, 10 um per cycle), the objective being a compromise anyway
(test_recorded_sequences: the commands stay closer to the exact ones than the former settings
did). Polishing is off (it costs a factorisation per solve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from .. import spatial
from ..kinematics import FRAME_ROBOT, ForwardKinematics
from ..model import NaoModel, coupled_joints, limit_coupled_steps, project_coupled_limits
from ..postures import posture
from ..qp import INFEASIBLE, USABLE, SolverSettings, clearance
from .context import ARM, FRAMES, HEAD, SOLE, SOLE_FRAME, WholeBodyContext
from .floating_base import N_BASE, FloatingBaseJacobians
from .leg_clearance import LegObstacleGuard
from .modes import (EFFECTORS, FEET, SUPPORT_FEET, FootState, balance_refusal, check_effector,
                    check_effector_enabled, check_effector_target, check_support_leg, com_outside_refusal,
                    resized_to_arm_reach)
from .qp import WHOLE_BODY_SOLVER, WholeBodyQP
from .support_polygon import SupportPolygon, sole_corners_in_sole, support_polygon
from .swing_speed import SwingSpeedLimit


def stand_init_shoulders_robot(fk: ForwardKinematics) -> dict[str, np.ndarray]:
    """Each arm's shoulder in StandInit, FRAME_ROBOT (m): the centre of its reach (``arm_reach_m``)."""
    state = fk.compute(posture(fk.model, "StandInit"))
    return {arm: fk.position_in_space(state, f"{arm[0]}Shoulder", FRAME_ROBOT)[:3] for arm in ARM}


@dataclass(frozen=True)
class BalancerConfig:
    """Tuning of the balancer (lengths m, speeds m/s and rad/s, weights per (m/s)^2 or (rad/s)^2)."""

    margin_m: float = 0.01  # the centre of mass stays this far inside every support polygon edge
    max_velocity_fraction: float = 0.5  # joint speed limit, fraction of each motor's no-load speed
    # Walking, the swing leg's limit grows with its foot's reference speed beyond these (the
    # fastest swing of NAOqi's default gait: 0.04 m steps reach 0.43 m/s at mid-swing, 0.349 rad
    # turns 3.3 rad/s), up to walk_max_velocity_fraction (``swing_speed``: NAOqi's maximum steps
    # fell with the swing leg at half speed; the default gait walks best clipped there). 0.7 and
    # 0.8 walk the maximum steps as well (forward and turning, V5 and V6).
    walk_max_velocity_fraction: float = 0.75
    walk_swing_speed_mps: float = 0.45
    walk_swing_rate_radps: float = 3.4
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
    # A hand under effector control: at 0.1 m/s (0.2 before) two reaches of 3 cm ahead and 3 cm
    # down rocked the robot over its toes (the legs' fast bend); at 0.05 six of them stand.
    arm_max_speed_mps: float = 0.05
    # NAOqi resizes an unfeasible effector target to the nearest feasible one: an arm's target is
    # brought within this distance of its shoulder as it stands in StandInit (FRAME_ROBOT): the
    # arm's length (0.219 m to the hand) and some 3 cm of whole-body lean. Chasing a target
    # beyond it, the QP leaned the robot until it toppled over its toes (five reaches of +3 cm in
    # x and z; at 0.27 m the fifth as well). Below the shoulder only the distance in the floor
    # plane counts: the legs bend to reach down. Bounded in the floor plane alone, twelve reaches
    # rising above the shoulder toppled it.
    arm_reach_m: float = 0.25
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
    # single support, 0.42 s steps, 0.25 double support; 39 mm / 8 mm with 0.15, the largest steps' now);
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
    # Disabled and not walking, a joint away from a wish that holds (a walk or the balancer
    # moved it) is brought back to it no faster than this; one whose wish changed goes to it at
    # the speed limit. The arms the walk's COM had recruited came back at 3 rad/s when a walk
    # ended, and the reaction toppled the robot (the cha-cha example with one core busy).
    pass_through_return_speed_radps: float = 0.5
    articular_weight: float = 1e-3
    # Walking, the head and the arms follow their wish (ArticularWish) at 10 x the articular
    # weight: they stay within 0.03 rad of it; at 0.1 and 1 the in-process moveTo(0.2, 0.2, pi/2)
    # tilted 3.5 and 5.5 deg (2.0 here, 2.3 with them free) and ended 2.9 and 5.7 cm off (1.5).
    walk_upper_body_weight: float = 0.01
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
    # Every arm and leg shape keeps this from the declared obstacles (``obstacles``): the
    # collision filter's margin, so that the two agree on where an arm stops; rows within the
    # influence distance (or one step's reach of the margin) are active; closer than the margin
    # the limb backs out at up to the recovery speed.
    obstacle_margin_m: float = clearance.MARGIN_M
    obstacle_influence_m: float = clearance.INFLUENCE_M
    obstacle_recovery_speed_mps: float = clearance.RECOVERY_SPEED_MPS
    # A solution is used only if no feet or balance row is violated by more than this (m/s, rad/s).
    acceptance_tolerance: float = 1e-3
    solver: SolverSettings = WHOLE_BODY_SOLVER
    dt_s: float | None = None  # None: the model's cycle time

    def validate(self) -> str | None:
        """The reason this configuration is refused, or None."""
        if not (np.isfinite(self.margin_m) and 0.0 <= self.margin_m <= 0.03):
            return f"margin_m must be in [0, 0.03] m, got {self.margin_m!r}"
        if not (0.0 < self.max_velocity_fraction <= 1.0):
            return f"max_velocity_fraction must be in (0, 1], got {self.max_velocity_fraction!r}"
        if not (0.0 < self.walk_max_velocity_fraction <= 1.0):
            return f"walk_max_velocity_fraction must be in (0, 1], got {self.walk_max_velocity_fraction!r}"
        if not (np.isfinite(self.arm_reach_m) and 0.15 <= self.arm_reach_m <= 0.4):
            return f"arm_reach_m must be in [0.15, 0.4] m, got {self.arm_reach_m!r}"
        if not (np.isfinite(self.com_approach_time_s) and self.com_approach_time_s > 0.0):
            return f"com_approach_time_s must be > 0, got {self.com_approach_time_s!r}"
        if not all(0.0 < g <= 1.0 for g in (self.foot_feedback_gain, self.task_gain, self.walk_task_gain)):
            return "foot_feedback_gain, task_gain and walk_task_gain must be in (0, 1]"
        speeds = (self.torso_max_speed_mps, self.torso_max_rate_radps, self.recovery_speed_mps,
                  self.arm_max_speed_mps, self.head_max_rate_radps, self.com_max_speed_mps,
                  self.walk_com_max_speed_mps, self.foot_max_speed_mps, self.pass_through_return_speed_radps,
                  self.walk_swing_speed_mps, self.walk_swing_rate_radps)
        if not all(np.isfinite(s) and s > 0.0 for s in speeds):
            return "speed limits must be finite and > 0"
        weights = (self.arm_position_weight, self.head_orientation_weight, self.com_weight, self.foot_weight,
                   self.torso_orientation_weight, self.torso_upright_weight, self.articular_weight, self.torso_weight,
                   self.regularisation_weight, self.moving_wish_weight, self.walk_upper_body_weight)
        if not all(np.isfinite(w) and w > 0.0 for w in weights):
            return "weights must be finite and > 0"
        reason = clearance.distances_refusal(self.obstacle_margin_m, self.obstacle_influence_m, "obstacle_margin_m",
                                             "obstacle_influence_m")
        if reason:
            return reason
        if not (np.isfinite(self.obstacle_recovery_speed_mps) and self.obstacle_recovery_speed_mps > 0.0):
            return f"obstacle_recovery_speed_mps must be > 0, got {self.obstacle_recovery_speed_mps!r}"
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
        self._ctx = WholeBodyContext(model, config, self.dt_s, self.jac)
        self.qp = WholeBodyQP(self._ctx, config.solver)
        self._swing_speed = SwingSpeedLimit(model, self._ctx)
        self._leg_guard = LegObstacleGuard(self.qp.obstacles, self._ctx.motor, self.dt_s)
        self._motor = self._ctx.motor
        self._hands = np.array([model.joint_index(j) for j in model.joint_names if j not in self.fk.joint_names])
        self._vmax_joint = self._ctx.vmax_joint
        self._vmax_step = self._vmax_joint * self.dt_s
        self._coupled = coupled_joints(model)  # the pass-through's coupled limits, by index
        self._pass_limit = np.zeros(model.n_joints)
        self._chasing = np.zeros(model.n_joints, dtype=bool)  # pass-through: a wish that changed, not reached
        self._speed_ratio = np.zeros(model.n_joints)  # pass-through: |step| / the speed limit's step
        self._stepping = np.zeros(model.n_joints, dtype=bool)
        self._corners = sole_corners_in_sole(model)
        self._hand_step_max = (self._vmax_joint[self._hands] * self.dt_s).tolist()
        self._step = np.zeros(model.n_joints)
        self._motor_step = np.zeros(len(self._motor))
        chain_of_motor = np.array([model.joints[i].chain for i in self._motor])
        self._upper_body = {chain: chain_of_motor == chain for chain in ("Head", "LArm", "RArm")}
        # The articular wish's walk_held, keyed by walking and which chains have no effector target.
        self._walk_held: dict[bool | tuple[bool, ...], np.ndarray] = {}
        self._legs = np.array([joint.chain in ("LLeg", "RLeg") for joint in model.joints])
        self._x = np.zeros(self.n)
        self._last_twist = np.zeros(6)
        self._com_world = np.zeros(3)
        self._x_base, self._x_motor = self._x[:N_BASE], self._x[N_BASE:]
        # Per set of checked rows (end row: the problem OSQP solves, with or without the obstacle
        # rows): their A, l, u and the work buffers of _feasible_fraction, made when first used.
        self._checked_views: dict[int, tuple[np.ndarray, ...]] = {}

        self.settings = WholeBodySettings()
        self.q = self._ctx.q  # the command: the QP's context reads it, every change is in place
        self.obstacles = self._ctx.obstacles  # the declared obstacles, torso frame: the owner writes them
        self.torso_world = np.eye(4)
        # The feet's held poses in W (captured), stacked for the torso's anchoring.
        self._foot_targets = np.tile(np.eye(4), (len(FEET), 1, 1))
        self.foot_target: dict[str, np.ndarray] = {f: self._foot_targets[SOLE[f]] for f in FEET}
        self._sole_index = np.array([self.fk.fixed_frame_names.index(SOLE_FRAME[f]) for f in FEET])
        self._sole_poses = np.zeros((len(FEET), 4, 4))
        self._implied_torso = np.tile(np.eye(4), (len(FEET), 1, 1))
        # The anchoring's operands, made once: the targets' rotations and positions, the soles'
        # rotations transposed and positions, the implied torsos' rotations and positions.
        self._anchor_views = (self._foot_targets[:, :3, :3], self._foot_targets[:, :3, 3:],
                              self._sole_poses[:, :3, :3].transpose(0, 2, 1), self._sole_poses[:, :3, 3:],
                              self._implied_torso[:, :3, :3], self._implied_torso[:, :3, 3:])
        self._target_version = {f: 0 for f in FEET}
        self._polygon_cache: dict = {}
        self.effector_target: dict[str, np.ndarray] = {}  # Head: 3x3 rotation; arms: position (W)
        self._shoulder_robot = stand_init_shoulders_robot(self.fk)
        self.enabled = False
        self._balance_kept = False  # effector control ended, its balance on Legs kept (``apply``)
        self.mode = Mode.PASS_THROUGH
        self._walk_support: str | None = None
        self._go_to_balance: tuple[np.ndarray, np.ndarray, float, float] | None = None  # start, end, t0, T
        self._time_s = 0.0
        self._started = False
        self._state = self.fk.new_state()  # FK of the command (``_current_state``)
        self._state_valid = False
        self._passed: tuple[WholeBodySettings, BalancerResult] | None = None  # the last pass-through
        # Passing through, the joints the command takes to their wish; disabling clears them
        # (the pose the balancer left is held), a joint's new wish sets it again.
        self._pursuing = np.ones(model.n_joints, dtype=bool)

    # --- set-up -----------------------------------------------------------------------------
    def update_config(self, config: BalancerConfig) -> None:
        """Change margin, gains, speeds of the tasks and weights at run time (ValueError if refused).

        dt_s, max_velocity_fraction, walk_max_velocity_fraction and the solver settings are fixed
        at set-up (they shape the QP's rows and the coupled-limit tables).
        """
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        fixed = ("dt_s", "max_velocity_fraction", "walk_max_velocity_fraction", "solver")
        changed = [f for f in fixed if getattr(config, f) != getattr(self.config, f)]
        if changed:
            raise ValueError(f"{', '.join(changed)} can only be set when the balancer is created")
        self.config = self._ctx.config = config
        self.qp.set_regularisation(WholeBodyQP.regularisation(self._ctx))

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
        support_before = self.balance_support
        old, self.settings = self.settings, settings
        # Effector control's implied balance outlives it: the pose it left may be balanced only
        # by the constraint (a reach to the margin), and the next motion then pushed the COM out
        # (Crouch after a reach fell). The user's own choice of constraint or feet ends it.
        if settings.balance_enabled != old.balance_enabled or settings.feet != old.feet:
            self._balance_kept = False
        elif old.effectors and not settings.effectors and not settings.balance_enabled and self.enabled:
            self._balance_kept = True
        if self.balance_support != support_before:  # the balance constraint takes over from wbGoToBalance
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

    @property
    def balance_support(self) -> str | None:
        """The support the COM is kept over: the constraint's, effector control's (Legs), or the one
        effector control left until the user sets the constraint, the feet or wbEnable(False)."""
        return self.settings.balance or ("Legs" if self._balance_kept else None)

    def set_effector_target(self, name: str, target: np.ndarray) -> np.ndarray:
        """wbSetEffectorControl: Head (wx, wy, wz) rad or LArm / RArm (x, y, z) m, FRAME_ROBOT.

        Converted into the world frame now (FRAME_ROBOT of the current command); an arm's target
        farther than ``arm_reach_m`` from its shoulder (in the floor plane when below it) is brought
        back to that distance (NAOqi: "resized to the nearest feasible"). Returns the target taken,
        FRAME_ROBOT. Raises ValueError when the effector is unknown, the target out of range
        (check_effector_target) or the effector not under effector control.
        """
        target = check_effector_target(name, target)
        check_effector_enabled(name, self.settings.effectors)
        if name != "Head":
            target = resized_to_arm_reach(target, self._shoulder_robot[name], self.config.arm_reach_m)
        robot = self.torso_world @ self.fk.ground_frame(self._current_state(), self.torso_world[:3, :3])
        if name == "Head":
            self.effector_target[name] = robot[:3, :3] @ spatial.rotation_from_rpy(*target)
        else:
            self.effector_target[name] = robot[:3, :3] @ target + robot[:3, 3]
        return target

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
        self._set_command(self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q)))
        self.qp.articular.reset(self.q)
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
        from the IMU) gives the vertical; None: the lower sole lies flat.

        Enabled while a walk is under way, the balancer keeps the walk's world frame and command:
        the walk's references are in that frame, and one anchored at FRAME_ROBOT now would put
        them as far ahead as the robot has walked (the COM dragged there: a fall). When the walk
        ends the feet are held where they landed, in the same frame (``_update_mode``)."""
        if not self._started:
            raise RuntimeError("reset(q) the balancer before enabling it")
        if enabled and not self.enabled and self.mode is not Mode.WALKING:
            if q_measured is not None and np.max(np.abs(q_measured - self.q)) > self.config.max_tracking_error_rad:
                self._set_command(self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q_measured)))
            self._anchor(torso_attitude)
        if self.enabled and not enabled:  # NAOqi's wbEnable(False): the joints stay where they are
            self._pursuing.fill(False)
        self.enabled = enabled
        if not enabled:
            self._go_to_balance = None
            self._balance_kept = False
            self.effector_target.clear()

    def _set_command(self, q: np.ndarray) -> None:
        np.copyto(self.q, q)
        self._state_valid = False
        self._passed = None

    def _anchor(self, torso_attitude: np.ndarray | None = None) -> None:
        state = self._current_state()
        self.torso_world = spatial.inverse(self.fk.ground_frame(state, torso_attitude))
        self._last_twist[:] = 0.0
        self._ctx.com_drift_m[:] = 0.0
        for foot in FEET:
            self._capture_foot(foot, state)
        for name in self.settings.effectors:
            self._capture_effector(name)
        self.qp.solver.reset_warm_start()

    def _follow_robot_frame(self) -> None:
        self.torso_world = spatial.inverse(self.fk.ground_frame(self._current_state()))

    def _current_state(self):
        """The FK of the command, computed (into its prepared state) when the command moved."""
        if not self._state_valid:
            self.fk.compute(self.q, out=self._state)
            self._state_valid = True
        return self._state

    def _refresh(self) -> None:
        self.jac.update(self._current_state(), self.torso_world)

    def _capture_foot(self, foot: str, state) -> None:
        np.matmul(self.torso_world, self.fk.pose(state, SOLE_FRAME[foot]), out=self.foot_target[foot])
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
        self._ctx.time_s = self._time_s
        self.qp.articular.set_wish(q_wish, self._time_s)
        self._pursuing |= self.qp.articular.changed
        self._update_mode(walk)
        if self.mode is Mode.PASS_THROUGH:
            return self._pass_through()
        self._chasing.fill(False)  # the QP follows the wish itself
        if q_measured is not None:
            self._follow_measured(q_measured)
        self._ctx.state = self._current_state()
        self.jac.update(self._ctx.state, self.torso_world)
        feet, polygon = self._set_parts(walk)
        self.qp.fill()
        outcome, reason, iterations = self._solve()
        self._integrate()
        # The new command's pose (its FK is reused by the next cycle): torso and COM in W.
        state = self._current_state()
        self._anchor_torso(state)
        np.matmul(self.torso_world[:3, :3], state.com_torso_m, out=self._com_world)
        self._com_world += self.torso_world[:3, 3]
        # What the linearised COM rows missed this cycle (second order): the next cycle's rows
        # allow for the same again, so a fast motion does not creep across the margin.
        drift = self._ctx.com_drift_m
        np.matmul(self.jac.com_jacobian, self._x, out=drift)
        dt, moved, now, before = -self.dt_s, drift.tolist(), self._com_world.tolist(), self.jac.com_world_m.tolist()
        drift[:] = [m * dt + c - b for m, c, b in zip(moved, now, before)]  # three numbers: in floats
        shown = polygon or self._grounded_polygon(feet, held=True)
        return BalancerResult(self.q, self.mode, outcome, reason, iterations, self._com_world,
                              self.torso_world, shown, shown.margin(self._com_world[:2]))

    def _update_mode(self, walk: WalkReference | None) -> None:
        if walk is not None:
            if self.mode is not Mode.WALKING:
                if not self.enabled:
                    self._anchor()
                self._go_to_balance = None
                self._balance_kept = False  # the walk balances; after it, the feet are elsewhere
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
            # NAOqi: the legs stay where the walk left them until a motion moves them. Taken back
            # to a wish from before the walk, they would move the feet, planted elsewhere now.
            self._pursuing &= ~self._legs
        self.mode = Mode.BALANCING if self.enabled else Mode.PASS_THROUGH

    def _follow_measured(self, q_measured: np.ndarray) -> None:
        q, limit, error = self.q, self.config.max_tracking_error_rad, self._step
        np.subtract(q, q_measured, out=error)
        np.abs(error, out=error)
        error.take(self._motor, out=self._motor_step)  # (scratch: _integrate writes it afresh)
        if self._motor_step.max() <= limit:
            return
        np.minimum(q, q_measured + limit, out=q)
        np.maximum(q, q_measured - limit, out=q)
        self.model.mimic_hip_yaw_pitch(q, out=q)
        self._set_command(self.model.clip_to_limits(q))
        self._anchor_torso(self._current_state(), integrate=False)

    def _pass_through(self) -> BalancerResult:
        """Disabled: the wish within the joint limits, reached at the speed limit when it changes,
        returned to at ``pass_through_return_speed_radps`` when the joint left a wish that holds
        (a walk or the balancer moved it).
        After wbEnable(False), a joint is held where the balancer left it until its wish changes
        (all of them taken back at once, without balance, the pose of a reach could topple it);
        after a walk, the legs are. The legs' step keeps the QP's obstacle rows
        (``leg_clearance``): a leg command stops at the margin, as an arm does in the filter. A
        driver of a coupled limit (AnklePitch, HeadYaw) slows where the range it sets would drag
        the bounded joint faster than its step (``model.limit_coupled_steps``).

        A command that stays where it is (standing still, the usual case) gives the last cycle's
        result again: its frame, COM and polygon cost most of a standing whole-body cycle."""
        model, q, limit = self.model, self.q, self._pass_limit
        target = model.clip_to_limits(model.mimic_hip_yaw_pitch(self.qp.articular.wish))
        np.subtract(target, q, out=self._step)
        self._step *= self._pursuing
        np.minimum(self._vmax_step, self.config.pass_through_return_speed_radps * self.dt_s, out=limit)
        self._chasing |= self.qp.articular.changed
        np.not_equal(self._step, 0.0, out=self._stepping)
        self._chasing &= self._stepping  # reached: a wish that holds from now on
        np.copyto(limit, self._vmax_step, where=self._chasing)
        # The joints chasing the wish (a motion of the collision filter's, all of them arriving
        # together) keep its path when the speed limit slows them: one factor for all. Clipped one
        # by one, the joints with the longest way lagged: standing up from Crouch at 0.6 of the
        # motors' speed, the hips and ankles reached StandInit with the knees still bent and the
        # robot fell on its back.
        ratio = self._speed_ratio
        np.divide(np.abs(self._step, out=ratio), self._vmax_step, out=ratio)
        slowest = float(np.max(ratio, where=self._chasing, initial=0.0))
        if slowest > 1.0:
            np.multiply(self._step, 1.0 / slowest, out=self._step, where=self._chasing)
        np.minimum(self._step, limit, out=self._step)
        np.negative(limit, out=limit)
        np.maximum(self._step, limit, out=self._step)
        legs_held = self._keep_legs_clear()
        limit_coupled_steps(self._coupled, q, self._step, self._vmax_step)
        passed = self._passed
        if passed is not None and passed[0] is self.settings and self._state_valid and not self._step.any():
            return passed[1]
        q += self._step
        model.mimic_hip_yaw_pitch(q, out=q)
        self._set_command(model.clip_to_limits(q))
        self._follow_robot_frame()
        self._refresh()
        polygon = self._grounded_polygon(self.settings.feet)
        reason = "disabled: pass-through" + ("; legs kept at the obstacle margin" if legs_held else "")
        result = BalancerResult(q, Mode.PASS_THROUGH, Outcome.PASSED, reason, 0,
                                self.jac.com_world_m, self.torso_world, polygon,
                                polygon.margin(self.jac.com_world_m[:2]))
        self._passed = (self.settings, result)
        return result

    def _keep_legs_clear(self) -> bool:
        """Passing through, the legs' step kept by the QP's obstacle rows (``leg_clearance``: the
        filter keeps the arms, the QP is off); whether it changed the step."""
        if not (self.obstacles.used.any() and self._step[self._legs].any()):
            return False
        self._ctx.state = self._current_state()
        self._refresh()
        self.qp.obstacles.fill()
        return self._leg_guard.limit(self._step)

    def _anchor_torso(self, state, integrate: bool = True) -> None:
        """The torso pose in W at the command's state: implied by the Fixed feet (averaged), else
        (with `integrate`) the last solution's twist integrated."""
        fixed = [f for f in FEET if self._held(f) is FootState.FIXED]
        if not fixed:
            if not integrate:
                return
            twist = self._last_twist * self.dt_s
            self.torso_world[:3, :3] = spatial.rotation_from_vector(twist[3:]) @ self.torso_world[:3, :3]
            self.torso_world[:3, 3] += twist[:3]
            return
        # Torso pose each foot implies: its target composed with the inverse of its torso-frame
        # pose, R = R_target R_sole', p = p_target - R p_sole.
        state.frame_poses.take(self._sole_index, axis=0, out=self._sole_poses)
        target_rotations, target_positions, sole_rotations_t, sole_positions, rotations, positions = self._anchor_views
        np.matmul(target_rotations, sole_rotations_t, out=rotations)
        np.matmul(rotations, sole_positions, out=positions)
        np.subtract(target_positions, positions, out=positions)
        implied = self._implied_torso
        if len(fixed) == 2:  # halfway between the two
            spatial.rotation_halfway(rotations[0], rotations[1], out=self.torso_world[:3, :3])
            np.add(implied[0, :3, 3], implied[1, :3, 3], out=self.torso_world[:3, 3])
            self.torso_world[:3, 3] *= 0.5
        else:
            np.copyto(self.torso_world, implied[SOLE[fixed[0]]])

    def _held(self, foot: str) -> FootState:
        """The foot's state this cycle: the user's, or during the walk Fixed when supporting."""
        if self.mode is Mode.WALKING:
            return FootState.FIXED if foot in SUPPORT_FEET[self._walk_support] else FootState.FREE
        return self.settings.feet[foot]

    def _set_parts(self, walk: WalkReference | None) -> tuple[dict[str, FootState], SupportPolygon | None]:
        """Tell the QP's tasks and constraints what they hold this cycle; returns the feet's states
        and the balance constraint's polygon (None: no balance constraint)."""
        qp, cfg = self.qp, self.config
        self.q.take(self._motor, out=self._ctx.q_motor)
        feet = {f: self._held(f) for f in FEET}
        for foot in FEET:
            contact = qp.contacts[foot]
            contact.state, contact.target_world = feet[foot], self.foot_target[foot]
            swinging = walk is not None and feet[foot] is FootState.FREE
            qp.swing_feet[foot].target_world = (walk.left_sole_world if foot == "left" else
                                                walk.right_sole_world) if swinging else None
        swing = next((f for f in FEET if qp.swing_feet[f].target_world is not None), None)
        self._swing_speed.update(swing, None if swing is None else qp.swing_feet[swing].target_world)
        # While walking, balance is the walk's (its ZMP stays in the support polygon, not its COM).
        support = None if walk is not None else self.balance_support
        polygon = None if support is None else self._polygon(SUPPORT_FEET[support], feet)
        qp.balance.polygon = polygon
        qp.head.target_world = self.effector_target.get("Head")
        for arm, task in qp.arms.items():
            task.target_world = self.effector_target.get(arm)
        # Walking, the walk moves the legs: the head and the arms follow their wish.
        key = walk is not None and tuple(chain not in self.effector_target for chain in self._upper_body)
        held = self._walk_held.get(key)
        if held is None:
            held = self._walk_held[key] = np.zeros_like(qp.articular.walk_held)
            for follows, joints in zip(key or (), self._upper_body.values()):
                if follows:
                    held |= joints
        np.copyto(qp.articular.walk_held, held)
        com = qp.com
        com.target_world = self._com_target(walk)
        if walk is None:  # wbGoToBalance moves the COM in the floor plane
            com.axes, com.gain, com.max_speed_mps = 2, cfg.task_gain, cfg.com_max_speed_mps
        else:
            com.axes, com.gain, com.max_speed_mps = 3, cfg.walk_task_gain, cfg.walk_com_max_speed_mps
        if walk is None:
            qp.torso.heading_world = None
        else:  # heading between the feet, tilted by the walk's TorsoWx / TorsoWy (in floats)
            left, right = walk.left_sole_world, walk.right_sole_world
            qp.torso.heading_world = math.atan2(left.item(1, 0) + right.item(1, 0), left.item(0, 0) + right.item(0, 0))
            qp.torso.tilt_rad = walk.torso_tilt_rad
        return feet, polygon

    def _grounded_polygon(self, feet: dict[str, FootState], held: bool = False) -> SupportPolygon:
        """The polygon of the feet on the ground (both when none is), for display."""
        grounded = tuple(f for f in FEET if feet[f] is not FootState.FREE) or FEET
        return self._polygon(grounded, feet if held else None)

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
        qp = self.qp
        result = qp.solve()
        iterations = int(result.info.iter)
        if result.info.status_val in USABLE and self._feasible_fraction(result.x) == 1.0:
            return self._take(result.x, 1.0, Outcome.SOLVED, "ok", iterations)
        first = result.info.status
        qp.relax()
        result = qp.solve()
        iterations += int(result.info.iter)
        fraction = self._feasible_fraction(result.x)
        if result.info.status_val in USABLE and fraction > 0.0:
            reason = f"QP {first}: solved without feet feedback and COM recovery"
            if fraction < 1.0:
                reason += f", step scaled by {fraction:.2f} to keep the feet and balance"
            return self._take(result.x, fraction, Outcome.RELAXED, reason, iterations)
        qp.solver.reset_warm_start()
        kind = "infeasible" if result.info.status_val in INFEASIBLE else "failed"
        return self._take(result.x, 0.0, Outcome.HELD, f"QP {kind} ({result.info.status}): last command held",
                          iterations)

    def _feasible_fraction(self, x: np.ndarray) -> float:
        """Largest t in [0, 1] for which t x keeps the feet and balance rows within the acceptance
        tolerance (0 when x is not finite or no such t > 0 exists)."""
        rows = self.qp.checked_rows()
        views = self._checked_views.get(rows.stop)
        if views is None:
            solver, k = self.qp.solver, rows.stop - rows.start
            views = self._checked_views[rows.stop] = (solver.A[rows], solver.l[rows], solver.u[rows],
                                                      np.zeros(k), np.zeros(k), np.zeros(k))
        a, lo, hi, v, over, under = views
        tol = self.config.acceptance_tolerance
        np.matmul(a, x, out=v)
        np.subtract(v, hi, out=over)
        np.subtract(lo, v, out=under)
        np.maximum(over, under, out=over)
        if over.max() <= tol:  # False as well when x is not finite
            return 1.0
        if not np.isfinite(x).all():
            return 0.0
        lo, hi = lo - tol, hi + tol
        over, under = v > hi, v < lo
        limits = np.concatenate([np.maximum(hi[over], 0.0) / v[over], np.maximum(-lo[under], 0.0) / -v[under]])
        return float(min(limits.min(), 1.0))

    def _take(self, x: np.ndarray, fraction: float, outcome: Outcome, reason: str,
              iterations: int) -> tuple[Outcome, str, int]:
        """The step: `fraction` of the solution x, inside the variable box (the solver's tolerance)."""
        np.multiply(x, fraction, out=self._x) if fraction > 0.0 else self._x.fill(0.0)
        self.qp.box.clip(self._x)
        return outcome, reason, iterations

    def _integrate(self) -> None:
        model, q = self.model, self.q
        step = self._motor_step
        np.multiply(self._x_motor, self.dt_s, out=step)
        on_coupled_limit = self.qp.coupled.snap(step)
        q_motor = self._ctx.q_motor  # the command the QP started from
        q_motor += step
        q[self._motor] = q_motor
        model.mimic_hip_yaw_pitch(q, out=q)
        np.minimum(q, model.upper, out=q)
        np.maximum(q, model.lower, out=q)
        if on_coupled_limit:  # the rows are in rad, the tables in degrees: settle the rounding
            q[:] = project_coupled_limits(model, q)
        # Hands are not in the QP: they follow the wish at their speed limit.
        wish = self.qp.articular.wish
        for hand, limit in zip(self._hands.tolist(), self._hand_step_max):
            q[hand] += min(max(wish[hand] - q[hand], -limit), limit)
        self._state_valid = False
        self._passed = None
        np.copyto(self._last_twist, self._x_base)
