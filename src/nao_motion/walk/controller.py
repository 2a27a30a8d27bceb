"""The walk's control cycle: the footstep planner's plan -> the whole-body balancer's references.

One ``WalkController.cycle(inputs)`` per motion cycle is the whole walk: the walk node calls it
on every ``joint_states`` message (decode -> cycle -> publish), ``nao_motion.sim.walking``
calls it in process, so both run exactly this code. Per cycle, from what the robot and the
other nodes said last (``WalkInputs``):

* the state machine: IDLE -> WALKING (steps in progress or queued) -> SETTLING (no step left,
  the planned CoM goes back over the feet: over when it is within ``SETTLED_M`` of the ZMP
  reference and slower than ``SETTLED_MPS``, or ``MAX_SETTLE_S`` after the last step) -> IDLE;
  from IDLE, steps planned while the posture is not walk-ready (``walk_ready``: the CoM at the
  walk's height) -> INITIALIZING (moveInit's targets sent, ``move_init``; the planner holds the
  plan) -> WALKING once it is, or refused (killMove) after ``move_init_timeout_s``; a plan
  whose first step starts less than ``MIN_START_LEAD_S`` ahead (it came late) -> WAITING (the
  planner holds the plan: its start moves a preview ahead) -> WALKING, or refused after
  ``START_HOLD_TIMEOUT_S``; the planner holds the plan in both (``WalkState.holds_start``);
  killMove (the planner dropped steps before they ended on its clock, or moved the step in
  progress) is abrupt: no settling, WALKING -> LANDING (a foot in the air set straight down,
  ``walk.landing``) -> IDLE, or IDLE at once in double support;
* the protections: foot contact (total FSR force below ``foot_contact_min_force_n`` for
  ``FOOT_CONTACT_LOSS_S``: the robot is in the air) and leg stiffness (a leg joint at or below
  ``MIN_LEG_STIFFNESS``, NAOqi's rule) refuse a walk that would start and stop one that runs,
  with ``WalkOutputs.kill_move`` set: the planner's killMove must be called (its queue is its
  own), until it has emptied the plan;
* ``odom -> wb_world`` (``world_from_odom``): while idle, re-anchored every cycle so the plan's
  planted feet are where the balancer holds the soles (its torso pose and the joints it
  commands); kept for the whole walk from its start;
* a walk starts from the feet where the balancer holds them (``start_from_actual_feet``) and
  executes the plan turned by the heading the feet lost (``HeadingCorrection``: IMU yaw against
  the balancer's torso yaw, at each lift-off; ``walk.imu_yaw``: the IMU's orientation, or its
  gyro integrated when it gives none, as nao_lola's); ``odom`` is brought back into the
  planner's frame through that correction;
* the measured DCM (``walk.measured_dcm``: IMU tilt + FK of the measured joints), each cycle
  with a fresh IMU;
* the lift-off check (``walk.lift_off``, ``walk.lift_off_hold``): a step whose swing could not
  catch the robot (the measured DCM against where its foot lands) waits while both feet hold it,
  at most ``lift_off_hold_max_s``; the walk then executes the plan that much later than the
  planner's clock (``plan_delay_s``) and asks the planner to hold its steps
  (``WalkOutputs.hold_step``, ``walk/hold_step``); the planner's held plan is aligned on the step
  in progress, and a planner that does not hold with it stops the walk (killMove) after
  ``HOLD_ECHO_TIMEOUT_S``;
* balance recovery by stepping (``walk.step_recovery``): the measured DCM against the generator's;
  off sideways beyond what the support absorbs, the executed steps not yet taken move by it
  (``HeadingCorrection.shift``, clipped by NAOqi's clipping), and the position correction then
  brings the walk back onto the plan from where the sensed odometry has the robot;
* the generator is stepped once per motion cycle of the clock (a jump of up to
  ``MAX_CATCH_UP_CYCLES`` is walked through sample by sample, a longer one resynchronises);
* arm swing for the arms that are enabled and not held by a user command
  (``user_arm_command``: an arm commanded by the user is theirs for the command's duration +
  ``user_arm_hold_s``); a disabled arm swings back until its offset has faded out;
* odometry: base_footprint (REP-120, yaw of the torso) in ``odom`` from the torso pose and FK
  of the measured joints, and its twist in base_footprint;
* moveInit's check: how far the measured posture is from the walk's (``move_init_error_rad``).

No rclpy: times are seconds on the robot's clock (the ``joint_states`` stamps), frames as in
the names. ``WalkInputs`` and ``WalkOutputs`` are allocated once and refilled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import Protocol

import numpy as np

from ..footsteps.footstep import FeetState, Footstep, Leg, delayed
from ..footsteps.gait_config import DEFAULT_GAIT_CONFIG
from ..footsteps.pose2d import Pose2D, mean_pose
from ..kinematics import ForwardKinematics, KinematicState
from ..model import NaoModel
from ..postures import posture
from ..spatial import inverse, with_yaw, yaw_of
from ..wholebody.balancer import WalkReference
from .arm_swing import ARM_SWING_JOINTS
from .balancer_reference import balancer_reference, world_from_odom
from .heading_correction import HeadingCorrection, HeadingCorrectionConfig, planned_pose
from .imu_yaw import ImuYaw
from .landing import Landing
from .leg_odometry import SOLES, LegOdometry
from .lift_off import LiftOffCheck, LiftOffConfig
from .measured_dcm import MeasuredDcm, dcm_of
from .pattern_generator import WalkConfig, WalkOutput, WalkPatternGenerator
from .preview_control import preview_gains
from .start_feet import start_from_actual_feet
from .step_phase import landed_early
from .step_recovery import StepRecovery, StepRecoveryConfig

__all__ = ["ARMS", "MAX_CATCH_UP_CYCLES", "PlanError", "WalkController", "WalkControllerConfig", "WalkInputs",
           "WalkOutputs", "WalkPlan", "WalkState", "footsteps_of", "walk_plan"]

WALK_POSTURE = "StandInit"  # the generator's CoM height and ZMP point come from it; moveInit goes there
ARMS = ("LArm", "RArm")  # in ARM_SWING_JOINTS order
# NAOqi: "if one joint of the legs has a stiffness equal or less than 0,6".
MIN_LEG_STIFFNESS = 0.6
# Lifted, the FSRs read about nothing; one low sample (a sensor glitch, a foot's impact
# rebound) must not kill a walk, 5 cycles of it do.
FOOT_CONTACT_LOSS_S = 0.05
MAX_CATCH_UP_CYCLES = 10  # clock jumps up to this many cycles are walked through sample by sample
MOVE_INIT_TOLERANCE_RAD = 0.05
MOVE_INIT_SPEED_FRACTION = 0.3  # the initialization movement's joint speeds, of each joint's maximum
WALK_READY_COM_M = 0.004  # the CoM this close to the walk's height: a posture to walk from
# Cycles between the measurements a walk cycle runs on and the cycle its references are for: the
# whole body answers the robot at once with references already in hand, and the walk itself has
# this many cycles to deliver them. Two made late references rarer over DDS but moveTo(1, 0.5,
# 1.57) end 6.0 cm off in process instead of 4.5 cm (the feedback comes a cycle later).
REFERENCE_LEAD_CYCLES = 1
# The walk is over when the planned CoM is this close to the ZMP reference and this slow, or
# at the latest this long after the last step (the preview controller settles in ~1 s).
SETTLED_M, SETTLED_MPS, MAX_SETTLE_S = 0.002, 0.01, 2.0

# The sensed soles shift the executed steps (position correction) only while the IMU's attitude
# agrees with the balancer's torso within this: a robot still rocking on a sole's edge after a
# push has its feet misread (a 25 N push walked into a fall where the correction read them).
SENSED_SOLES_MAX_TILT_RAD = 0.05
KILLED = "killMove: stopped at once"
HOLDING = "holding the lift-off: the step could not catch the robot"
STEP_TIME_EPS_S = 1e-9  # the footstep planner's: times this close are the same instant
MAX_USER_COMMAND_S = 60.0  # a user command holds an arm at most this long (+ the hold)
# A walk starts only if its first step starts at least this long after its first cycle: the
# preview controller needs to see the step coming (the planner starts a plan a preview, 0.8 s,
# after the command). A plan that came this late (a stalled process, a late message) is held
# by the planner instead; started at once its first foot would jump to where the swing is by
# now. Starting 0.5 s ahead keeps the cart-table's ZMP within 8 mm of its reference, as 0.8 s
# does (6 mm); 0.4 s: 17 mm, 0.2 s: 53 mm.
MIN_START_LEAD_S = 0.5
# The planner postpones a held plan within a cycle or two; held this long, it does not hear
# walk/hold_start, and the walk is refused.
START_HOLD_TIMEOUT_S = 1.0
# The planner holds its steps a cycle or two after the walk holds a lift-off (walk/hold_step);
# its plan then starts the step in progress later by about as much as the walk held it. A plan
# that moves it by more than this beyond what the walk held (a hold_start heard after the walk
# started: a preview), or before the walk's own start, is not this echo.
HOLD_ECHO_TOLERANCE_S = 0.1
# Holding this long, the walk must see the planner hold its steps too: one that does not hear
# walk/hold_step would end the step in progress on its clock while the walk still holds it.
HOLD_ECHO_TIMEOUT_S = 0.3
_RECOVERY_DEFAULTS = StepRecoveryConfig()
_LIFT_OFF_DEFAULTS = LiftOffConfig()


class WalkState(str, Enum):
    IDLE = "idle"
    INITIALIZING = "initializing"  # steps planned, the posture not walk-ready: moveInit's movement first
    WALKING = "walking"  # steps in progress or queued
    SETTLING = "settling"  # no step left: the CoM goes back over the feet
    LANDING = "landing"  # killMove: no step any more, a foot in the air set straight down (walk.landing)
    WAITING = "waiting"  # steps planned to start too soon (MIN_START_LEAD_S): the planner postpones them

    @property
    def holds_start(self) -> bool:
        """Whether the planner must hold the plan's start one preview ahead (``walk/hold_start``):
        the walk has not started the plan and cannot yet."""
        return self in (WalkState.INITIALIZING, WalkState.WAITING)


@dataclass(frozen=True)
class WalkControllerConfig:
    """What the walk node exposes as parameters (same defaults; see its docstring)."""

    move_arms_enabled_larm: bool = True  # setMoveArmsEnabled
    move_arms_enabled_rarm: bool = True
    com_feedback_gain: float = 0.0  # [0, 1]; read when a walk starts
    heading_correction_gain: float = 1.0  # [0, 1]; read when a walk starts
    position_correction_gain: float = 0.0  # [0, 1]; read when a walk starts (off: see heading_correction)
    foot_contact_protection: bool = True
    foot_contact_min_force_n: float = 10.0
    stiffness_protection: bool = True
    user_arm_hold_s: float = 1.0
    stale_timeout_s: float = 0.5  # joint_states / torso pose / IMU / FSR older than this are not used
    move_init_timeout_s: float = 5.0
    # Balance recovery by stepping (walk.step_recovery): the measured DCM against the plan's.
    # (The defaults are StepRecoveryConfig's: one default per parameter.)
    step_recovery: bool = _RECOVERY_DEFAULTS.enabled
    step_recovery_threshold_m: float = _RECOVERY_DEFAULTS.threshold_m  # lateral DCM error beyond which footholds move
    step_recovery_max_shift_m: float = _RECOVERY_DEFAULTS.max_shift_m  # at most this far for one disturbance
    # The lift-off check (walk.lift_off): a foot is lifted only if its step can catch the robot.
    lift_off_hold: bool = _LIFT_OFF_DEFAULTS.enabled
    lift_off_hold_max_s: float = _LIFT_OFF_DEFAULTS.max_hold_s  # in one double support, then the step goes on

    def validate(self) -> str | None:
        """The reason this configuration is unusable, or None."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                return f"{f.name} must be a bool, got {value!r}"
            if f.type == "float" and not (isinstance(value, float) and math.isfinite(value)):
                return f"{f.name} must be a finite double, got {value!r}"
        for name in ("com_feedback_gain", "heading_correction_gain", "position_correction_gain"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                return f"{name} must be in [0, 1], got {getattr(self, name)!r}"
        for name in ("foot_contact_min_force_n", "user_arm_hold_s", "stale_timeout_s", "move_init_timeout_s",
                     "step_recovery_threshold_m", "step_recovery_max_shift_m", "lift_off_hold_max_s"):
            if getattr(self, name) <= 0.0:
                return f"{name} must be > 0, got {getattr(self, name)!r}"
        return None

    @property
    def recovery(self) -> StepRecoveryConfig:
        return StepRecoveryConfig(self.step_recovery, self.step_recovery_threshold_m, self.step_recovery_max_shift_m)

    @property
    def lift_off(self) -> LiftOffConfig:
        return LiftOffConfig(self.lift_off_hold, self.lift_off_hold_max_s)

    @property
    def arms_enabled(self) -> tuple[bool, bool]:
        return self.move_arms_enabled_larm, self.move_arms_enabled_rarm


class PlanError(ValueError):
    """A plan whose steps cannot be walked (their times do not follow each other)."""


class PlannedStepLike(Protocol):
    """A planner's step as the plan carries it (``footsteps.Footstep`` or a decoded ``PlannedStep``)."""

    leg: Leg
    start_s: float
    end_s: float
    origin: Pose2D
    target: Pose2D
    support: Pose2D
    step_height_m: float
    torso_wx_rad: float
    torso_wy_rad: float


@dataclass(frozen=True)
class WalkPlan:
    """The planner's planted feet at ``time_s`` (its clock, s) and its steps (``odom``)."""

    time_s: float
    left: Pose2D
    right: Pose2D
    steps: tuple[Footstep, ...]


def footsteps_of(steps: Sequence[PlannedStepLike]) -> tuple[Footstep, ...]:
    """The plan's steps as the generator's Footsteps (PlanError if their times are unusable)."""
    out = []
    previous_end_s = -math.inf
    for i, s in enumerate(steps):
        if not (s.end_s > s.start_s >= previous_end_s - 1e-9):
            raise PlanError(f"step {i}: times {s.start_s}..{s.end_s} s do not follow the previous step")
        previous_end_s = s.end_s
        move = s.target.relative_to(s.support)
        out.append(Footstep(s.leg, move, move, s.origin, s.target, s.support, s.start_s, s.end_s,
                            s.step_height_m, s.torso_wx_rad, s.torso_wy_rad))
    return tuple(out)


def walk_plan(time_s: float, left: Pose2D, right: Pose2D, steps: Sequence[PlannedStepLike]) -> WalkPlan:
    """The plan the controller walks, from the planner's state or its decoded ``footsteps/plan``."""
    return WalkPlan(time_s, left, right, footsteps_of(steps))


@dataclass
class WalkInputs:
    """The newest of everything the walk uses; the caller refills it before each ``cycle``.

    Times are seconds on the cycle's clock: when each value arrived (``-inf``: never).
    """

    time_s: float  # the cycle the references are for: ``WalkController.reference_time_s(joint_states stamp)``
    q_measured: np.ndarray  # (26,) rad, joint_states
    q_received: np.ndarray  # (26,) bool: measured at least once
    states_s: float
    q_commanded: np.ndarray  # (26,) rad, the whole-body node's joint_commands
    commanded_received: np.ndarray  # (26,) bool
    torso_world: np.ndarray  # 4x4, the whole-body node's torso pose in wb_world
    torso_s: float
    imu_s: float  # when the IMU's orientation arrived (an IMU without one: never)
    imu_attitude: np.ndarray  # (3, 3) the IMU's torso attitude in a gravity-aligned frame (roll, pitch, yaw)
    gyro_rad_s: np.ndarray  # (3,) the IMU's angular velocity, torso frame
    gyro_s: float
    fsr_total_n: np.ndarray  # (2,) N, total of each foot's 4 sensors [left, right]
    fsr_s: np.ndarray  # (2,) when each foot's forces arrived
    stiffness: np.ndarray  # (26,) 0..1
    plan: WalkPlan | None = None  # the latest plan
    fallen: bool = False  # the whole body's robot_has_fallen

    @classmethod
    def for_model(cls, model: NaoModel) -> "WalkInputs":
        n = model.n_joints
        return cls(
            time_s=0.0, q_measured=np.zeros(n), q_received=np.zeros(n, dtype=bool), states_s=-math.inf,
            q_commanded=np.zeros(n), commanded_received=np.zeros(n, dtype=bool), torso_world=np.eye(4),
            torso_s=-math.inf, imu_s=-math.inf, imu_attitude=np.eye(3), gyro_rad_s=np.zeros(3),
            gyro_s=-math.inf, fsr_total_n=np.full(2, math.nan),
            fsr_s=np.full(2, -math.inf),
            stiffness=np.ones(n),  # until told otherwise every joint is stiff (the collision filter's convention)
        )


@dataclass
class WalkOutputs:
    """One cycle's results (``WalkController.outputs``, refilled each cycle)."""

    time_s: float = 0.0
    state: WalkState = WalkState.IDLE
    active_changed: bool = False  # the walk started or ended this cycle (moveIsActive)
    started: bool = False
    ended: bool = False
    reason: str = "no walk yet"  # why the walk is in its state (the last event)
    blocked: str | None = None  # a protection's reason this cycle
    kill_move: bool = False  # call the planner's killMove (a protection refused or stopped the walk)
    move_init: bool = False  # send moveInit's targets (the initialization movement starts)
    # New references this cycle (None: nothing to send): the balancer's, in wb_world ...
    reference: WalkReference | None = None
    # ... the planned ZMP (z = 0) and CoM in odom (``zmp_odom_m``, ``com_planned_odom_m``, below) ...
    # ... and the shoulders' targets (rad, ARM_SWING_JOINTS order) for the arms in arm_swing_arms.
    arm_swing_arms: tuple[int, ...] = ()
    arm_swing_rad: np.ndarray = field(default_factory=lambda: np.zeros(2))
    # Measured (None/False: no fresh joint_states and torso pose): base_footprint in odom, its
    # twist in base_footprint (vx m/s, vy m/s, wz rad/s; kept from the last cycle that had one),
    # the CoM in odom (of the sensed torso and the measured joints).
    odometry: Pose2D | None = None
    twist: np.ndarray = field(default_factory=lambda: np.zeros(3))
    measured: bool = False
    com_measured_odom_m: np.ndarray = field(default_factory=lambda: np.zeros(3))
    steps: int = 0  # steps not yet ended
    # The walk holds a lift-off this cycle (``walk.lift_off``): the planner must hold its steps
    # too (walk/hold_step), every one a cycle later.
    hold_step: bool = False
    # (key, text) of what went wrong this cycle, for a throttled log.
    warnings: list[tuple[str, str]] = field(default_factory=list)
    # The last references' planned ZMP (x, y) and CoM (x, y, z) in the executed plane, with the
    # transforms to odom they had then (odom_from_planned, executed_to_planned): mapped when first
    # read, as only plotting reads them (None: mapped already).
    _planned: tuple | None = field(default=None, repr=False)
    _zmp_odom_m: np.ndarray = field(default_factory=lambda: np.zeros(3), repr=False)
    _com_planned_odom_m: np.ndarray = field(default_factory=lambda: np.zeros(3), repr=False)

    @property
    def zmp_odom_m(self) -> np.ndarray:
        """The last references' planned ZMP (z = 0) in odom: the sensed odometry's frame, mapped
        from the plan's through where the sensed feet were at the walk's start."""
        self._map_planned()
        return self._zmp_odom_m

    @property
    def com_planned_odom_m(self) -> np.ndarray:
        """The last references' planned CoM in odom (as ``zmp_odom_m``)."""
        self._map_planned()
        return self._com_planned_odom_m

    def _map_planned(self) -> None:
        if self._planned is None:
            return
        (zmp_x, zmp_y), (com_x, com_y, com_z), odom_from_planned, executed_to_planned = self._planned
        self._planned = None
        zmp = odom_from_planned * planned_pose(executed_to_planned, Pose2D(zmp_x, zmp_y, 0.0))
        com = odom_from_planned * planned_pose(executed_to_planned, Pose2D(com_x, com_y, 0.0))
        self._zmp_odom_m[:] = (zmp.x, zmp.y, 0.0)
        self._com_planned_odom_m[:] = (com.x, com.y, com_z)


class _Measurement:
    """The robot as the balancer models it this cycle: torso pose (wb_world) + FK of joint_states.

    The soles and the CoM in wb_world are computed when first asked for: a cycle standing still
    needs neither (its odometry reads the FK itself), a walk's start and its cycles do. (Plain
    attributes, not ``functools.cached_property``, whose lookup costs more than the product.)"""

    __slots__ = ("_fk", "_state", "_torso", "_left", "_right", "_com")

    def __init__(self, fk: ForwardKinematics, state: KinematicState, torso_world: np.ndarray):
        self._fk, self._state, self._torso = fk, state, torso_world
        self._left = self._right = self._com = None

    @property
    def left_sole_world(self) -> np.ndarray:  # 4x4
        if self._left is None:
            self._left = self._torso @ self._fk.pose(self._state, "l_sole")
        return self._left

    @property
    def right_sole_world(self) -> np.ndarray:  # 4x4
        if self._right is None:
            self._right = self._torso @ self._fk.pose(self._state, "r_sole")
        return self._right

    @property
    def com_world_m(self) -> np.ndarray:
        if self._com is None:
            self._com = self._torso[:3, :3] @ self._state.com_torso_m + self._torso[:3, 3]
        return self._com


class WalkController:
    """The walk's state machine, protections, anchoring, generator and odometry (module docstring)."""

    def __init__(self, model: NaoModel, config: WalkControllerConfig | None = None):
        self.model = model
        self.fk = ForwardKinematics(model)
        # FK of the measured and of the commanded joints, refilled every cycle
        self._measured_state, self._commanded_state = self.fk.new_state(), self.fk.new_state()
        self.dt_s = model.cycle_time_s
        self.walk_config = WalkConfig.for_model(model, posture_name=WALK_POSTURE)
        # The preview gains (a DARE, ~5 ms) solved now, not in the first walk's first cycle, where
        # they cost the robot's command a cycle; every walk's generator then finds them cached.
        preview_gains(self.walk_config.preview)
        self.config = WalkControllerConfig()
        self.configure(config or WalkControllerConfig())
        self.generator: WalkPatternGenerator | None = None
        self.generator_time_s = 0.0  # the clock time of the generator's last sample
        self.required = np.array([j in self.fk.joint_names and j != "RHipYawPitch" for j in model.joint_names])
        self.leg_indices = np.array([model.joint_index(j) for leg in ("LLeg", "RLeg")
                                     for j in model.chains[leg].joints])
        self._leg_stiffness = np.zeros(len(self.leg_indices))  # refilled by each cycle's protection
        self.arm_joint_indices = [np.array([model.joint_index(j) for j in model.chains[arm].joints])
                                  for arm in ARMS]
        self.user_arm_until_s = [-math.inf, -math.inf]
        self.heading = HeadingCorrection(self.walk_config.phases)
        self.recovery = StepRecovery(self.config.recovery, self.dt_s)
        self.dcm = MeasuredDcm(self.walk_config.com_height_m, self.dt_s)
        self.lift_off = LiftOffCheck(model, self.config.lift_off, self.dcm.omega)
        # The walk executes the plan this much later than the planner's clock has it: the lift-offs
        # it held (walk.lift_off) that the planner's plan does not show yet; and its holds in all
        # and in the double support now, this walk.
        self.plan_delay_s = self.held_s = self.lift_off_held_s = 0.0
        self._held_step: tuple[Leg, Pose2D] | None = None  # the step lift_off_held_s counts for
        self.lift_off_holding = False  # the last generator sample held a lift-off
        self._planned_dcm_m = np.zeros(2)  # the generator's, at a lift-off check
        self._shifted: tuple[tuple, float, tuple[Footstep, ...]] = ((), 0.0, ())  # plan steps, delay, shifted
        self._tilt_error_rad = 0.0
        self._tilted = np.eye(3)  # the IMU's attitude at the balancer's heading, refilled
        self._lever, self._tilted_com_m = np.zeros(3), np.zeros(3)  # _tilted_com_world's, refilled
        self._tilted_com_odom_m = np.zeros(3)  # ... in odom, for the measured DCM
        self._torso_odom = np.eye(4)  # the balancer's torso in odom, for step recovery's heading; refilled
        self.planned_start: dict[Leg, Pose2D] = {}  # each foot at the walk's start: as planned, as held
        self.actual_start: dict[Leg, Pose2D] = {}
        # start_from_actual_feet's last (steps, feet, planned_start, actual_start, its result)
        self._rebased: tuple = (None, None, None, None, None)
        self.imu_yaw = ImuYaw()  # this cycle's yaw: the IMU's orientation, or its gyro integrated
        self.heading_corrected = False  # this walk started with a fresh IMU yaw
        self.heading_from_gyro = False  # ... and it is the integrated gyro's
        self.low_force_since_s: float | None = None
        self.plan: WalkPlan | None = None
        self.state = WalkState.IDLE
        self.last_moved: Leg | None = None  # the leg whose step ended last in this walk (the ZMP starts from the other)
        self.step_in_progress: Footstep | None = None
        self.last_step_s = -math.inf
        self.planned_end_s = -math.inf  # the end of the latest plan's last step
        self.last_reference: WalkReference | None = None  # this walk's last references
        self.landing: Landing | None = None
        self.hold_started_s = -math.inf  # when the state that holds the plan's start (holds_start) began
        self.world_from_odom: np.ndarray | None = None
        # What the last anchoring was made from (``_anchor``): the planted feet, the whole body's
        # command and torso pose
        self._anchored_feet: tuple[Pose2D, Pose2D] | None = None
        self._anchored_q, self._anchored_torso = np.zeros(model.n_joints), np.zeros((4, 4))
        self.odom_from_world: np.ndarray | None = None
        self.previous_odom: tuple[float, Pose2D] | None = None
        # The sensed odometry (``walk.leg_odometry``): continuous in odom from the first
        # measurement on, not moved by the re-anchoring; and, for the walk running, the rigid
        # transform from it to the plan's frame at the walk's start (where the sensed feet were
        # the planner's planted feet).
        self.leg_odometry = LegOdometry(self.fk)
        self.planned_from_sensed = self.sensed_from_planned = Pose2D(0.0, 0.0, 0.0)
        init_q = posture(model, WALK_POSTURE)
        self.init_indices = np.concatenate([self.leg_indices, *self.arm_joint_indices])
        self.init_q = init_q  # moveInit's posture: legs and arms of StandInit
        self.init_speeds_radps = MOVE_INIT_SPEED_FRACTION * model.max_velocity  # rad/s, per joint
        self.arm_base_rad = np.array([init_q[model.joint_index(j)] for j in ARM_SWING_JOINTS])
        self.outputs = WalkOutputs()

    def reference_time_s(self, measured_s: float) -> float:
        """The cycle whose references a cycle on measurements stamped ``measured_s`` computes:
        REFERENCE_LEAD_CYCLES ahead. The whole body then has them in hand when that cycle's
        measurements arrive, and answers the robot at once
        (``nao_motion.wholebody.reference_queue``): the walk is a feed-forward pattern, a few
        cycles of lead cost it nothing, a second hop in the robot's cycle would cost the robot
        its command on a busy machine."""
        return measured_s + REFERENCE_LEAD_CYCLES * self.dt_s

    def configure(self, config: WalkControllerConfig) -> None:
        """New settings (ValueError with the reason if invalid); the gains count from the next walk."""
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        self.config = config

    # --- commands between cycles --------------------------------------------------------------
    def user_arm_command(self, joint_names: Sequence[str], duration_s: float, now_s: float) -> None:
        """A user command on these joints lasting ``duration_s``: an arm it touches is theirs
        (no arm swing) until it ends + ``user_arm_hold_s``."""
        commanded = {self.model.joint_index(n) for n in joint_names if self.model.has_joint(n)}
        until_s = now_s + min(max(duration_s, 0.0), MAX_USER_COMMAND_S) + self.config.user_arm_hold_s
        for i, indices in enumerate(self.arm_joint_indices):
            if commanded.intersection(indices.tolist()):
                self.user_arm_until_s[i] = max(self.user_arm_until_s[i], until_s)

    def target_duration_s(self, joint_names: Sequence[str], targets_rad: Sequence[float],
                          speeds_radps: Sequence[float], q_measured: np.ndarray) -> float:
        """How long joint targets take at their speeds from the measured pose (the collision
        filter's speeds: given ones, else at least its default 0.3 x maximum, i.e. 0 here)."""
        duration_s = 0.0
        if len(speeds_radps) == len(joint_names) == len(targets_rad):
            for name, target, speed in zip(joint_names, targets_rad, speeds_radps):
                if self.model.has_joint(name) and speed > 0.0 and math.isfinite(target):
                    duration_s = max(duration_s, abs(target - q_measured[self.model.joint_index(name)]) / speed)
        return duration_s

    @property
    def reads_command(self) -> bool:
        """Whether the next cycle reads the whole body's command (``WalkInputs.q_commanded``): it
        anchors the plan and starts a walk from it only while idle or holding a plan's start; a
        walk under way never reads it."""
        return self.state is WalkState.IDLE or self.state.holds_start

    def arm_swinging(self, arm: int, now_s: float) -> bool:
        return self.config.arms_enabled[arm] and now_s >= self.user_arm_until_s[arm]

    def walk_ready(self, measurement: _Measurement) -> bool:
        """Whether the posture is one to walk from: the centre of mass at the walk's height over
        the lower sole (within WALK_READY_COM_M), the cart-table's assumption. StandInit is;
        Stand (legs nearly straight, 7 mm higher), StandZero and Crouch are not."""
        height_m = measurement.com_world_m[2] - min(measurement.left_sole_world[2, 3],
                                                    measurement.right_sole_world[2, 3])
        return abs(height_m - self.walk_config.com_height_m) <= WALK_READY_COM_M

    def measured_walk_ready(self, inputs: WalkInputs) -> bool:
        """Whether the measured posture is one the walk starts from (``walk_ready``; False when
        the joints or the whole body's torso are not fresh): moveInit has nothing to do then."""
        measurement = self._measure(inputs)
        return measurement is not None and self.walk_ready(measurement)

    def move_init_error_rad(self, q_measured: np.ndarray) -> float:
        """The largest joint distance (rad) from moveInit's posture (reached within MOVE_INIT_TOLERANCE_RAD)."""
        return float(np.max(np.abs(q_measured[self.init_indices] - self.init_q[self.init_indices])))

    # --- cycle --------------------------------------------------------------------------------
    def cycle(self, inputs: WalkInputs) -> WalkOutputs:
        """One motion cycle at ``inputs.time_s``: the outputs (also ``self.outputs``)."""
        now_s = inputs.time_s
        out = self.outputs
        out.time_s = now_s
        out.active_changed = out.started = out.ended = out.kill_move = out.move_init = out.hold_step = False
        out.reference, out.arm_swing_arms, out.odometry = None, (), None
        out.warnings.clear()
        self.plan = inputs.plan
        measurement = self._measure(inputs)
        self.imu_yaw.update(now_s, self.config.stale_timeout_s, inputs.imu_attitude, inputs.imu_s,
                            inputs.gyro_rad_s, inputs.gyro_s, inputs.torso_world, self.state is WalkState.IDLE)
        steps, feet, killed = self._steps_now(now_s)
        if (self.state is WalkState.IDLE or self.state.holds_start) and measurement is not None:
            self._anchor(feet, measurement, inputs)
        if measurement is not None and self.world_from_odom is not None:
            self._sense_odometry(inputs)
        blocked = out.blocked = self._protection(inputs)
        if self.state is WalkState.IDLE and steps:
            reason = blocked or (None if measurement is not None and self.world_from_odom is not None
                                 else "no fresh joint_states and whole_body/torso_pose")
            if reason:
                self._refuse(f"walk refused, killMove: {reason}")
            elif not self.walk_ready(measurement):
                self._begin_initialization(now_s)
            else:
                self._start_or_wait(steps, feet, measurement, inputs)
        elif self.state.holds_start:
            self._held(inputs, steps, feet, measurement, blocked)
        elif self.state is not WalkState.IDLE and blocked:
            self._refuse(f"walk stopped, killMove: {blocked}")
            self._end_walk(f"stopped: {blocked}")
        elif self.state is not WalkState.IDLE and killed:
            self._kill()
            if self.plan.steps:  # the step in progress moved: the planner must drop the plan too
                self._refuse("walk stopped, killMove: the plan moved the step in progress")
        if self.state is WalkState.LANDING:
            self._land()
        elif self.state in (WalkState.WALKING, WalkState.SETTLING):
            self._walk_cycle(inputs, steps, feet, measurement)
        out.state, out.steps = self.state, len(steps)
        out.measured = measurement is not None and self.odom_from_world is not None
        if out.measured:
            self._odometry(measurement, now_s)
        return out

    def _sense_odometry(self, inputs: WalkInputs) -> None:
        """One cycle of the sensed odometry: FK of the measured joints (``_measure`` computed it),
        the IMU's attitude with its yaw (``imu_yaw``), the FSR totals (each only when fresh)."""
        odometry, state = self.leg_odometry, self._measured_state
        now_s, stale_s = inputs.time_s, self.config.stale_timeout_s
        if not odometry.started:  # where the odometry has the robot until now: odom is the planner's frame
            odometry.reset(self.odom_from_world @ inputs.torso_world, state)
        attitude = self.imu_yaw.attitude if self.imu_yaw.fresh else None
        forces = inputs.fsr_total_n if now_s - min(inputs.fsr_s.tolist()) <= stale_s else None
        odometry.update(state, attitude, forces)

    def _sensed_soles(self) -> dict[Leg, Pose2D]:
        """Each sole's sensed pose on the floor, in odom (the sensed odometry's torso and FK)."""
        torso = self.leg_odometry.torso_odom
        return {leg: Pose2D.from_transform(torso @ self.fk.pose(self._measured_state, sole))
                for leg, sole in SOLES.items()}

    def _measure(self, inputs: WalkInputs) -> _Measurement | None:
        stale_s, now_s = self.config.stale_timeout_s, inputs.time_s
        if (now_s - inputs.torso_s > stale_s or now_s - inputs.states_s > stale_s
                or not inputs.q_received[self.required].all()):
            return None
        return _Measurement(self.fk, self.fk.compute(inputs.q_measured, out=self._measured_state), inputs.torso_world)

    def _steps_now(self, now_s: float) -> tuple[tuple[Footstep, ...], FeetState | None, bool]:
        """The steps not yet ended (the one in progress first; on the walk's clock: ``plan_delay_s``
        later than the plan's), the planted feet at now_s, and whether the planner dropped steps
        before they ended on its clock (killMove) or moved the step the walk is taking."""
        if self.plan is None:
            return (), None, False
        killed = not self.plan.steps and self.plan.time_s + STEP_TIME_EPS_S < self.planned_end_s
        self.planned_end_s = self.plan.steps[-1].end_s if self.plan.steps else -math.inf
        # As the planner counts it: a step has ended at its end time, to within STEP_TIME_EPS_S.
        ended_by_s = now_s + STEP_TIME_EPS_S
        step = self.step_in_progress
        steps = self._walk_clock_steps(step, now_s)
        plan_time_s = self.plan.time_s + self.plan_delay_s
        # It ended even if the new plan no longer lists it; also when it ended on the planner's
        # clock only (the plan's time is past the step's end, its feet include it): else its end
        # would be lost and the ZMP would start the next double support from the wrong foot.
        step_ended = step is not None and step.end_s <= max(ended_by_s, plan_time_s + STEP_TIME_EPS_S)
        if step_ended:
            self.last_moved = step.leg
        feet = FeetState(self.plan.left, self.plan.right, self.last_moved, plan_time_s)
        ended = 0
        while ended < len(steps) and steps[ended].end_s <= ended_by_s:
            feet = feet.after(steps[ended])
            ended += 1
        steps = steps[ended:]
        self.last_moved = feet.last_moved
        # The planner keeps the step in progress in every plan; one that moved it (a hold heard
        # after the walk started) would have the swing foot jump back: stopped as killMove.
        moved = (step is not None and not step_ended and bool(steps)
                 and (steps[0].start_s != step.start_s or steps[0].leg is not step.leg))
        executing = self.state in (WalkState.WALKING, WalkState.SETTLING)
        self.step_in_progress = steps[0] if executing and steps and steps[0].start_s <= now_s else None
        return steps, feet, killed or moved

    def _walk_clock_steps(self, in_progress: Footstep | None, now_s: float) -> tuple[Footstep, ...]:
        """The plan's steps on the walk's clock. Where the plan lists the step in progress at
        another time by what the planner held of the walk's holds (walk/hold_step, heard a cycle
        or two late), the walk keeps its own timing: the delay is what is left of its holds.
        Holding a lift-off when its cycles stopped a while (a late driver, a starved process), the
        walk holds that gap too (``_walk_cycle``), which the planner held already."""
        plan_steps = self.plan.steps
        if in_progress is not None:
            gap_s = self._unsampled_s(now_s) if self.lift_off_holding else 0.0
            for planned in plan_steps[:2]:  # the planner may still list one the walk has ended
                if (planned.leg is in_progress.leg and planned.origin == in_progress.origin
                        and planned.target == in_progress.target):
                    delay_s = in_progress.start_s - planned.start_s
                    if -HOLD_ECHO_TOLERANCE_S - gap_s <= delay_s <= self.held_s + HOLD_ECHO_TOLERANCE_S:
                        self.plan_delay_s = delay_s
                    break
        delay_s = self.plan_delay_s
        if delay_s == 0.0:
            return plan_steps
        cached_steps, cached_delay_s, shifted = self._shifted
        if cached_steps is not plan_steps or cached_delay_s != delay_s:
            shifted = delayed(plan_steps, delay_s)
            self._shifted = (plan_steps, delay_s, shifted)
        return shifted

    def _anchor(self, feet: FeetState | None, measurement: _Measurement, inputs: WalkInputs) -> None:
        if feet is None:  # no plan yet: the planner starts with the feet at the odom origin
            half_m = 0.5 * DEFAULT_GAIT_CONFIG.foot_separation_m
            feet = FeetState(Pose2D(0.0, half_m), Pose2D(0.0, -half_m), None, 0.0)
        # Standing still, the whole body's command and torso stay as they are: the anchoring
        # (an FK of the command) would give the same again.
        held = bool(np.all(inputs.commanded_received[self.required]))
        if (held and self._anchored_feet == (feet.left, feet.right) and np.array_equal(self._anchored_q, inputs.q_commanded)
                and np.array_equal(self._anchored_torso, inputs.torso_world)):
            return
        self.world_from_odom = world_from_odom(feet.left, feet.right, *self._held_soles(measurement, inputs))
        self._anchored_feet = (feet.left, feet.right) if held else None
        np.copyto(self._anchored_q, inputs.q_commanded)
        np.copyto(self._anchored_torso, inputs.torso_world)
        self.odom_from_world = inverse(self.world_from_odom)

    def _held_soles(self, measurement: _Measurement, inputs: WalkInputs) -> tuple[np.ndarray, np.ndarray]:
        """Left and right soles (4x4, wb_world) where the balancer holds them: its torso and the
        joints it commands. The measured joints differ by the servos' error under load (~1 deg at
        a loaded hip, ~1 cm at the foot), which would make a swing foot jump at lift-off."""
        if not np.all(inputs.commanded_received[self.required]):
            return measurement.left_sole_world, measurement.right_sole_world
        state = self.fk.compute(inputs.q_commanded, out=self._commanded_state)
        return tuple(inputs.torso_world @ self.fk.pose(state, sole) for sole in ("l_sole", "r_sole"))

    def _protection(self, inputs: WalkInputs) -> str | None:
        cfg, now_s = self.config, inputs.time_s
        if inputs.fallen:
            return "the robot has fallen (robot_has_fallen): no walk until it is up"
        if cfg.foot_contact_protection:
            if now_s - min(inputs.fsr_s.tolist()) > cfg.stale_timeout_s:
                return "no fresh fsr/left and fsr/right (foot contact protection)"
            total_n = float(inputs.fsr_total_n[0] + inputs.fsr_total_n[1])
            if total_n >= cfg.foot_contact_min_force_n:
                self.low_force_since_s = None
            else:
                if self.low_force_since_s is None:
                    self.low_force_since_s = now_s
                if now_s - self.low_force_since_s >= FOOT_CONTACT_LOSS_S - 1e-9:
                    return (f"no foot contact: FSR total {total_n:.1f} N < "
                            f"{cfg.foot_contact_min_force_n} N (foot contact protection)")
        if cfg.stiffness_protection:
            legs = inputs.stiffness.take(self.leg_indices, out=self._leg_stiffness)
            if np.minimum.reduce(legs) <= MIN_LEG_STIFFNESS:  # (ndarray.min: the same, through a wrapper)
                weakest = int(np.argmin(legs))
                name = self.model.joint_names[self.leg_indices[weakest]]
                return f"{name} stiffness {legs[weakest]:.2f} <= {MIN_LEG_STIFFNESS} (stiffness protection)"
        return None

    def _refuse(self, reason: str) -> None:
        out = self.outputs
        out.reason, out.kill_move = reason, True
        out.warnings.append((reason, reason))

    def _start_walk(self, feet: FeetState, measurement: _Measurement, inputs: WalkInputs) -> None:
        now_s, cfg = inputs.time_s, self.config
        config = replace(self.walk_config,
                         com_feedback=replace(self.walk_config.com_feedback, gain=cfg.com_feedback_gain))
        self.generator = WalkPatternGenerator(config)
        self.last_moved = None
        start_feet = FeetState(feet.left, feet.right, None, feet.time_s)
        self.planned_start = {Leg.LEFT: feet.left, Leg.RIGHT: feet.right}
        self.actual_start = {leg: Pose2D.from_transform(self.odom_from_world @ sole)
                             for leg, sole in zip((Leg.LEFT, Leg.RIGHT), self._held_soles(measurement, inputs))}
        self.generator.reset(start_feet, self._odom_point(measurement.com_world_m)[:2])
        self.generator_time_s = now_s - self.dt_s  # its last sample's time
        gain = cfg.heading_correction_gain
        self.heading = HeadingCorrection(config.phases, HeadingCorrectionConfig(
            gain=gain, position_gain=cfg.position_correction_gain))
        sensed = self._sensed_soles()
        self.planned_from_sensed = (mean_pose(feet.left, feet.right)
                                    * mean_pose(sensed[Leg.LEFT], sensed[Leg.RIGHT]).inverse()).normalized()
        self.sensed_from_planned = self.planned_from_sensed.inverse()
        self.heading_corrected = gain > 0.0 and self.imu_yaw.fresh
        self.heading_from_gyro = self.heading_corrected and self.imu_yaw.from_gyro
        model_yaw = yaw_of(inputs.torso_world)
        self.heading.reset(start_feet, self.imu_yaw.yaw_rad if self.heading_corrected else model_yaw, model_yaw)
        self.recovery = StepRecovery(cfg.recovery, self.dt_s)
        self.dcm.reset()
        self.lift_off.config = cfg.lift_off
        self.plan_delay_s = self.held_s = self.lift_off_held_s = 0.0
        self._held_step = None
        self.lift_off_holding = False
        self.state = WalkState.WALKING
        out = self.outputs
        out.reason, out.started, out.active_changed = "walking", True, True

    def _kill(self) -> None:
        """killMove: no further step and no settling; a foot in the air is first set down."""
        landing = None if self.last_reference is None else Landing(self.last_reference, self.world_from_odom[2, 3])
        if landing is None or not landing.needed:
            self._end_walk(KILLED)
            return
        self.landing, self.state = landing, WalkState.LANDING
        self.outputs.reason = "killMove: setting the foot in the air down"

    def _land(self) -> None:
        reference = self.outputs.reference = self.landing.step(self.dt_s)
        if reference.support == "Legs":
            self._end_walk(KILLED)

    def _begin_initialization(self, now_s: float) -> None:
        self.state, self.hold_started_s = WalkState.INITIALIZING, now_s
        out = self.outputs
        out.move_init = out.active_changed = True
        out.reason = f"not walk-ready: initialization movement to {WALK_POSTURE}"

    def _held(self, inputs: WalkInputs, steps, feet: FeetState | None, measurement: _Measurement | None,
              blocked: str | None) -> None:
        """The planner holds the plan (``walk/hold_start``) while the walk performs its
        initialization movement (until the posture is walk-ready, or move_init_timeout_s) or waits
        for the plan's start to be postponed (START_HOLD_TIMEOUT_S); then the walk starts. Also
        ended by a protection or the plan dropped."""
        now_s, initializing = inputs.time_s, self.state is WalkState.INITIALIZING
        timeout_s = self.config.move_init_timeout_s if initializing else START_HOLD_TIMEOUT_S
        reason = blocked
        if not reason and now_s - self.hold_started_s >= timeout_s - 1e-9:
            reason = (f"the initialization movement did not reach {WALK_POSTURE} within {timeout_s} s" if initializing
                      else f"the planner did not postpone the plan's start within {timeout_s} s (walk/hold_start)")
        if reason:
            self._refuse(f"walk refused, killMove: {reason}")
            self._end_walk(f"stopped: {reason}")
        elif not steps:
            self._end_walk("the plan was dropped before the walk started")
        elif measurement is not None and self.world_from_odom is not None:
            if self.walk_ready(measurement):
                self._start_or_wait(steps, feet, measurement, inputs)
            elif not initializing:  # the posture changed while the walk waited
                self._begin_initialization(now_s)

    def _start_or_wait(self, steps, feet: FeetState, measurement: _Measurement, inputs: WalkInputs) -> None:
        """A walk-ready robot starts the plan if its first step is far enough ahead
        (MIN_START_LEAD_S), else waits for the planner to postpone it."""
        now_s = inputs.time_s
        lead_s = steps[0].start_s - now_s
        if lead_s >= MIN_START_LEAD_S - STEP_TIME_EPS_S:
            self._start_walk(feet, measurement, inputs)
            return
        out = self.outputs
        if self.state is not WalkState.WAITING:
            out.active_changed = self.state is WalkState.IDLE
            self.state, self.hold_started_s = WalkState.WAITING, now_s
        out.reason = (f"the plan's first step starts in {lead_s:.2f} s (a walk needs {MIN_START_LEAD_S} s to "
                      "start): waiting for the planner to postpone it")

    def _end_walk(self, reason: str) -> None:
        self.state = WalkState.IDLE
        self.plan_delay_s = 0.0
        self.last_moved = None
        self.last_reference = self.landing = None
        out = self.outputs
        out.reason, out.ended, out.active_changed = reason, True, True

    def _odom_point(self, point_world_m: np.ndarray) -> np.ndarray:
        return self.odom_from_world[:3, :3] @ point_world_m + self.odom_from_world[:3, 3]

    def _walk_cycle(self, inputs: WalkInputs, steps, feet: FeetState, measurement: _Measurement | None) -> None:
        now_s, gen, out = inputs.time_s, self.generator, self.outputs
        gen.arms.set_enabled(self.arm_swinging(0, now_s), self.arm_swinging(1, now_s))
        self.dcm.fresh = False
        if measurement is not None:
            gen.feed_back_com(self._odom_point(measurement.com_world_m)[:2])
            if now_s - inputs.imu_s <= self.config.stale_timeout_s:
                com_odom = np.matmul(self.odom_from_world[:3, :3], self._tilted_com_world(inputs, measurement),
                                     out=self._tilted_com_odom_m)
                com_odom += self.odom_from_world[:3, 3]
                self.dcm.measure(com_odom[:2])
                if self.recovery.config.enabled:
                    self._recover(inputs, steps)
        else:
            out.warnings.append(("open_loop", "joint_states or torso pose stale: walking open loop"))
        executed = self._executed(inputs, steps, feet, measurement is not None)
        # One generator sample per motion cycle of the clock, not per call: when the clock jumps
        # several cycles (a late message, the simulator catching up), one sample would leave the
        # COM behind the time-based ZMP reference and feet, and the robot falls.
        dt_s = self.dt_s
        due = round((now_s - self.generator_time_s) / dt_s)
        if due > MAX_CATCH_UP_CYCLES:
            out.warnings.append(("clock_jump", f"the clock jumped {due} cycles: the walk resynchronises"))
            if self.lift_off_holding:  # the robot stood on both feet through the gap, as the planner
                # held it (it heard walk/hold_step): held too, else the step would lift at once, late
                executed = self._hold_steps(executed, self._unsampled_s(now_s))
            self.generator_time_s, due = now_s - dt_s, 1
        if due < 1:  # the same cycle again: nothing new to send, and a held lift-off stays held
            # (reported as not held, a repeated cycle had the planner's time run on for a cycle
            # while the walk held: joint_states bunched by a late driver toggled walk/hold_step)
            out.hold_step = self.lift_off_holding
            return
        executed = self._lift_off(now_s, executed, due)
        if executed is None:  # the walk stopped
            return
        for _ in range(due):
            self.generator_time_s += dt_s
            gen_out = gen.step(self.generator_time_s, *executed)
        if steps:
            self.state, self.last_step_s = WalkState.WALKING, now_s
        else:
            self.state = WalkState.SETTLING
            settled = (np.linalg.norm(gen_out.com_m[:2] - gen_out.zmp_ref_m) <= SETTLED_M
                       and np.linalg.norm(gen_out.com_velocity_mps[:2]) <= SETTLED_MPS)
            if settled or now_s - self.last_step_s >= MAX_SETTLE_S:
                self._end_walk("plan done")
                return
        self._references(gen_out)
        self._arm_swing(gen_out.arm_offsets_rad, now_s)

    def _unsampled_s(self, now_s: float) -> float:
        """The time the generator has not sampled before the cycle at ``now_s``: its cycles
        stopped that long (0 cycle after cycle)."""
        return max(0.0, now_s - self.dt_s - self.generator_time_s)

    def _lift_off(self, now_s: float, executed: tuple[tuple[Footstep, ...], FeetState], due: int):
        """The lift-off check (``walk.lift_off``) for a step whose swing would begin in this
        cycle's ``due`` generator samples: held, the executed steps (returned) and the plan on the
        walk's clock start that much later; None if the walk stopped (the planner does not hold
        its steps with it)."""
        steps, feet = executed
        check = self.lift_off
        self.lift_off_holding = False
        if not steps or not check.config.enabled or steps[0].start_s > now_s:
            return executed
        step = steps[0]
        lift_s = self.walk_config.phases.swing_start_s(step)
        sent_s = self.generator_time_s + self.dt_s  # the time of the last references sent
        if not sent_s < lift_s <= sent_s + due * self.dt_s:
            return executed
        if self._held_step != (step.leg, step.origin):  # another step: its own holds count
            self._held_step, self.lift_off_held_s = (step.leg, step.origin), 0.0
        planned = self.generator.controller.state
        dcm_of(planned[0], planned[1], self.dcm.omega, out=self._planned_dcm_m)
        # Held max_hold_s, the step goes on: the robot stands, and waiting has not caught it.
        released = ("held for lift_off_hold_max_s" if self.lift_off_held_s >= check.config.max_hold_s - 1e-9 else
                    "the DCM is not measured" if not self.dcm.fresh else
                    "the step can catch the robot, or both feet cannot hold it"
                    if not check.should_hold(self.dcm.dcm_m, self._planned_dcm_m, step, step.end_s - lift_s,
                                             landing_free=self.recovery.config.enabled) else None)
        if released is not None:
            if self.outputs.reason.startswith(HOLDING):
                self.outputs.reason = f"walking (the lift-off hold ended: {released})"
            return executed
        if self.plan_delay_s > HOLD_ECHO_TIMEOUT_S:
            reason = (f"the planner did not hold its steps with the walk within {HOLD_ECHO_TIMEOUT_S} s "
                      "(walk/hold_step)")
            self._refuse(f"walk stopped, killMove: {reason}")
            self._end_walk(f"stopped: {reason}")
            return None
        self.outputs.hold_step = self.lift_off_holding = True
        self.outputs.reason = HOLDING
        return self._hold_steps(executed, due * self.dt_s)

    def _hold_steps(self, executed: tuple[tuple[Footstep, ...], FeetState], hold_s: float):
        """The executed steps (returned), the step in progress and the plan on the walk's clock
        ``hold_s`` later: the lift-off held that long."""
        steps, feet = executed
        if self.step_in_progress is not None:  # what the next cycle aligns the plan with
            self.step_in_progress = delayed((self.step_in_progress,), hold_s)[0]
        self.plan_delay_s += hold_s
        self.held_s += hold_s
        self.lift_off_held_s += hold_s
        return delayed(steps, hold_s), feet

    def _recover(self, inputs: WalkInputs, steps) -> None:
        """Step recovery (``walk.step_recovery``): the measured DCM against the generator's, and
        the executed steps shifted by what the support cannot absorb."""
        now_s, recovery, gen = inputs.time_s, self.recovery, self.generator
        touchdown_in_s = steps[0].end_s - now_s if steps else 0.0
        heading_rad = yaw_of(np.matmul(self.odom_from_world, inputs.torso_world, out=self._torso_odom))
        state = gen.controller.state
        step = steps[0] if steps and steps[0].start_s <= now_s else None
        phase = self.walk_config.phases.swing_phase(step, now_s) if step is not None else 0.0
        # The FSRs say which foot carries the robot (the sensed odometry's support).
        landed = step is not None and landed_early(phase, self.leg_odometry.support is step.leg)
        in_air = 0.0 < phase < 1.0 and not landed
        holds = in_air and self.lift_off.stance_holds_sideways(self.dcm.dcm_m, step)
        holding_side = step.support_leg.side if holds else 0.0
        recovery.update(self.dcm, state[0], state[1], heading_rad, touchdown_in_s, in_air, holding_side)
        if recovery.step_m[0] != 0.0 or recovery.step_m[1] != 0.0:
            self.heading.shift(float(recovery.step_m[0]), float(recovery.step_m[1]))

    def _tilted_com_world(self, inputs: WalkInputs, measurement: _Measurement) -> np.ndarray:
        """The measured CoM (wb_world) with the torso's true tilt: the balancer's CoM of the
        measured joints, turned about the support sole (the sensed odometry's) from the balancer's
        torso attitude to the IMU's roll and pitch (the balancer's yaw). Continuous when the
        support changes: the two attitudes differ only while the robot tilts about a sole."""
        state, torso = self._measured_state, inputs.torso_world
        lever = np.subtract(state.com_torso_m, self.fk.pose(state, SOLES[self.leg_odometry.support])[:3, 3],
                            out=self._lever)
        tilted = with_yaw(inputs.imu_attitude, yaw_of(torso), out=self._tilted)
        cos_tilt = 0.5 * (float(np.einsum("ij,ij->", tilted, torso[:3, :3])) - 1.0)  # trace(tilted^T model)
        self._tilt_error_rad = math.acos(max(-1.0, min(1.0, cos_tilt)))
        np.subtract(tilted, torso[:3, :3], out=self._tilted)  # the turn's difference, applied to the lever
        com = np.matmul(self._tilted, lever, out=self._tilted_com_m)
        com += measurement.com_world_m
        return com

    def _executed(self, inputs: WalkInputs, steps, feet: FeetState, measured: bool):
        """The plan started from the actual feet and turned by the heading correction and shifted
        by the position correction (the sensed soles in the plan's frame); a stale IMU or torso
        pose leaves the heading as it is, stale joints the position."""
        now_s = inputs.time_s
        model_yaw = yaw_of(inputs.torso_world)
        fresh = self.imu_yaw.fresh and now_s - inputs.torso_s <= self.config.stale_timeout_s
        if self.heading_corrected and not fresh:
            self.outputs.warnings.append(("heading", "imu or torso pose stale: the heading correction holds"))
        imu_yaw = self.imu_yaw.yaw_rad if self.heading_corrected and fresh else None
        # Rebased only when the plan, its planted feet or the walk's start changed: the rebased
        # steps then stay the same objects, which the heading correction and the phases' cache
        # recognise by identity.
        memo = self._rebased
        if not (memo[0] is steps and memo[1] == feet and memo[2] is self.planned_start
                and memo[3] is self.actual_start):
            memo = self._rebased = (steps, feet, self.planned_start, self.actual_start,
                                    start_from_actual_feet(steps, feet, self.planned_start, self.actual_start))
        steps, feet = memo[4]
        sensed = None
        # The sensed soles only serve the position correction (off by default, on after a recovery
        # step, not while the robot still rocks on a sole): not every cycle for nothing.
        if (measured and self.leg_odometry.started and self.heading.position_gain > 0.0
                and not self.recovery.recovering and self._tilt_error_rad < SENSED_SOLES_MAX_TILT_RAD):
            sensed = {leg: (self.planned_from_sensed * sole).normalized() for leg, sole in self._sensed_soles().items()}
        return self.heading.update(now_s, steps, feet, imu_yaw, model_yaw, sensed)

    def _references(self, gen_out: WalkOutput) -> None:
        out = self.outputs
        out.reference = self.last_reference = balancer_reference(gen_out, self.world_from_odom)
        # The generator works on the executed (heading-corrected) steps: back into the plan's
        # frame, then into odom, where the sensed odometry (and rviz's fixed frame) has the robot.
        out._planned = (gen_out.zmp_m.tolist(), gen_out.com_m.tolist(), self.sensed_from_planned,
                        self.heading.executed_to_planned)

    def _arm_swing(self, offsets_rad: np.ndarray, now_s: float) -> None:
        """Swing the arms the user leaves alone; a disabled arm until its offset has faded out."""
        out = self.outputs
        out.arm_swing_arms = tuple(i for i in range(2) if now_s >= self.user_arm_until_s[i]
                                   and (self.config.arms_enabled[i] or abs(offsets_rad[i]) > 1e-4))
        np.add(self.arm_base_rad, offsets_rad, out=out.arm_swing_rad)

    def _odometry(self, measurement: _Measurement, now_s: float) -> None:
        out = self.outputs
        # Sensed (walk.leg_odometry), not the balancer's torso: that one is where the plan put the
        # robot (its Fixed feet's targets), and would report a goal reached that weak or late
        # servos fell short of.
        pose = self.leg_odometry.footprint(self._measured_state)
        out.odometry = pose
        if self.previous_odom is not None and now_s > self.previous_odom[0]:
            then_s, before = self.previous_odom
            delta = pose.relative_to(before)  # in the earlier base_footprint frame
            dt_s = now_s - then_s
            out.twist[:] = (delta.x / dt_s, delta.y / dt_s, delta.theta / dt_s)
        self.previous_odom = (now_s, pose)
        torso = self.leg_odometry.torso_odom
        np.matmul(torso[:3, :3], self._measured_state.com_torso_m, out=out.com_measured_odom_m)
        out.com_measured_odom_m += torso[:3, 3]
