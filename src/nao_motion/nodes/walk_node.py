"""Walk node: the footstep planner's steps -> the whole-body balancer's walk references.

A thin adapter over :class:`nao_motion.walk.WalkPatternGenerator`. Every motion cycle
(model.cycle_time_s on the node's clock, so ``use_sim_time`` is followed) it takes the latest
``footsteps/plan``; while a step is in progress or queued, and afterwards until the planned
centre of mass has settled over the feet, it steps the generator and publishes the references
the whole-body node walks with, in its frame ``wb_world``.

| kind | name | type | meaning |
|---|---|---|---|
| sub | `footsteps/plan` | std_msgs/Float64MultiArray (transient local) | the planner's planted feet and steps (``odom``); a malformed plan is ignored (the last good one is kept) |
| sub | `whole_body/torso_pose` | geometry_msgs/PoseStamped | the torso in ``wb_world`` (the balancer's model): with FK of `joint_states`, where the feet and the CoM are |
| sub | `joint_states` | sensor_msgs/JointState | measured angles (FK: feet, CoM, base_footprint); older than `stale_timeout_s`: no new walk |
| sub | `joint_commands` | sensor_msgs/JointState | the whole-body node's command: with its torso pose, where it holds the soles, which a walk's first foot references start from |
| sub | `imu` | sensor_msgs/Imu | torso orientation: its yaw against the balancer's torso yaw is the heading the feet lost, which the walk turns into the steps it executes (``heading_correction``) |
| sub | `fsr/left`, `fsr/right` | std_msgs/Float32MultiArray | 4 forces per foot, N (foot contact protection) |
| sub | `joint_stiffness` | sensor_msgs/JointState | stiffness 0..1 in `effort`; empty names with one value: every joint (stiffness protection) |
| sub | `joint_targets`, `joint_trajectory` | sensor_msgs/JointState, trajectory_msgs/JointTrajectory | a user command on an arm's joints leaves that arm to the user (no arm swing) for the command's duration + `user_arm_hold_s`; messages whose `header.frame_id` starts with ``walk_`` are this node's own |
| pub | `whole_body/com_reference` | geometry_msgs/PointStamped | CoM this cycle, m, ``wb_world`` |
| pub | `whole_body/foot_references` | geometry_msgs/PoseArray | [left sole, right sole], ``wb_world`` |
| pub | `whole_body/support` | std_msgs/String | ``Legs``, ``LLeg`` or ``RLeg`` |
| pub | `walk/zmp`, `walk/com` | geometry_msgs/PointStamped | planned ZMP (z = 0) and CoM, m, ``odom``, while walking |
| pub | `walk/com_measured` | geometry_msgs/PointStamped | CoM from torso pose + FK of `joint_states`, m, ``odom`` |
| pub | `odom` | nav_msgs/Odometry | base_footprint in ``odom`` (x, y, yaw; twist in ``base_footprint``) from torso pose + FK |
| pub | `/tf` | tf2_msgs/TFMessage | ``odom -> base_footprint`` (the kinematics node publishes base_footprint -> base_link) |
| pub | `walk/active` | std_msgs/Bool (transient local) | moveIsActive: on every change and at 1 Hz |
| pub | `joint_targets` | sensor_msgs/JointState | arm swing (L/RShoulderPitch only, `header.frame_id` ``walk_arm_swing``) and moveInit's posture (``walk_move_init``) |
| pub | `walk/markers` | visualization_msgs/MarkerArray | 10 Hz while walking, ``odom``: planned ZMP, planned CoM, the planned CoM's path |
| pub | `/diagnostics` | diagnostic_msgs/DiagnosticArray | cycle time, state, last reason, steps, foot forces, leg stiffness, CoM feedback error |
| srv | `walk/move_init` | std_srvs/Trigger | moveInit: the walk's posture (StandInit, legs and arms) as `joint_targets`; answers when reached (0.05 rad) or after `move_init_timeout_s` |
| client | `kill_move` | std_srvs/Trigger | the planner's killMove, when a protection stops or refuses a walk |
| param | `move_arms_enabled.LArm`, `.RArm` | bool | setMoveArmsEnabled (true) |
| param | `com_feedback_gain` | double in [0, 1] | fraction of the measured-minus-planned CoM error blended into the generator per cycle (0, the default: open loop in position, the whole-body node's gyro ankle damping being the walk's feedback); read when a walk starts |
| param | `heading_correction_gain` | double in [0, 1] | fraction of the measured heading error (IMU yaw - balancer torso yaw) turned into the executed steps at each lift-off (1.0; 0: open loop); read when a walk starts |
| param | `foot_contact_protection`, `foot_contact_min_force_n` | bool, double > 0 | below this total FSR force (N) for 0.05 s the robot is in the air: no walk (true, 10.0) |
| param | `stiffness_protection` | bool | a leg joint's stiffness <= 0.6 stops or refuses the walk (true) |
| param | `user_arm_hold_s`, `stale_timeout_s`, `move_init_timeout_s` | double > 0 | s: 1.0, 0.5, 5.0 |
| param | `nao_version` | string (start-up) | V5 / V6 |

``odom -> wb_world``: when a walk starts, ``world_from_odom`` (a yaw and a translation) puts the
plan's planted feet (``odom``) onto the feet where the balancer has them (torso pose and FK), and
is kept for the whole walk. While no walk runs it is re-anchored every cycle, so ``odom`` is the
planner's frame (its feet, open loop) and the odometry is the measured pose within it.

Heading correction (``nao_motion.walk.heading_correction``): the feet slip in yaw, which the IMU
sees and the balancer's model does not. While walking, the node executes the plan turned by the
measured heading error at each lift-off (the steps not yet taken, about the support foot), so
the robot ends where the planner planned it (NAOqi's moveTo is odometry based too); the
planner's queue is not changed (it owns it). The generator, ``walk/zmp`` and ``walk/com`` are
in this executed plane; ``odom`` is brought back into the planner's frame through the
correction, i.e. it includes the turn the feet lost. Without a fresh `imu` when a walk starts,
that walk runs uncorrected.
Bad input never stops the node: a throttled warning, and no walk starts on it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from enum import Enum

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import Point, PointStamped, Pose, PoseArray, PoseStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.task import Future
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Bool, ColorRGBA, Float32MultiArray, Float64MultiArray, String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import Marker, MarkerArray

from ..footsteps.footstep import FeetState, Footstep, Leg
from ..footsteps.gait_config import DEFAULT_GAIT_CONFIG
from ..footsteps.pose2d import Pose2D
from ..joint_input import JointInputError, parse_joint_values
from ..kinematics import ForwardKinematics
from ..model import SUPPORTED_VERSIONS, NaoModel
from ..postures import posture
from ..ros.conversions import (
    IMU_ORIENTATION_ERROR,
    imu_attitude,
    set_quaternion_fields,
    set_vector_fields,
    stamp_seconds,
    transform_stamped,
)
from ..ros.footstep_messages import FootstepMessageError, FootstepPlan, decode_plan
from ..ros.node_tools import (
    CycleDiagnostics,
    TfPublisher,
    ValidatedParameters,
    merge_joint_positions,
    run_node,
    throttled_warning,
)
from ..ros.qos import CYCLE_QOS, LATCHED_QOS
from ..spatial import (
    inverse,
    quaternion_xyzw_from_rotation,
    rotation_from_quaternion_xyzw,
    transform,
    yaw_of,
)
from ..walk import (
    ARM_SWING_JOINTS,
    HeadingCorrection,
    HeadingCorrectionConfig,
    WalkConfig,
    WalkPatternGenerator,
    balancer_reference,
)
from ..walk.balancer_reference import world_from_odom
from ..walk.start_feet import start_from_actual_feet

WORLD_FRAME = "wb_world"
ODOM_FRAME = "odom"
FOOTPRINT_FRAME = "base_footprint"
OWN_FRAME_PREFIX = "walk_"  # header.frame_id of this node's own joint_targets
ARM_SWING_FRAME = "walk_arm_swing"
MOVE_INIT_FRAME = "walk_move_init"
WALK_POSTURE = "StandInit"  # the generator's CoM height and ZMP point come from it; moveInit goes there
ARMS = ("LArm", "RArm")  # in ARM_SWING_JOINTS order
# NAOqi: "if one joint of the legs has a stiffness equal or less than 0,6".
MIN_LEG_STIFFNESS = 0.6
# Lifted, the FSRs read about nothing; one low sample (a sensor glitch, a foot's impact
# rebound) must not kill a walk, 5 cycles of it do.
FOOT_CONTACT_LOSS_S = 0.05
MAX_CATCH_UP_CYCLES = 10  # clock jumps up to this many cycles are walked through sample by sample
MOVE_INIT_TOLERANCE_RAD = 0.05
# The walk is over when the planned CoM is this close to the ZMP reference and this slow, or
# at the latest this long after the last step (the preview controller settles in ~1 s).
SETTLED_M, SETTLED_MPS, MAX_SETTLE_S = 0.002, 0.01, 2.0
ACTIVE_PERIOD_S = 1.0
MARKER_PERIOD_S = 0.1
TRAIL_POINTS = 300  # planned CoM path shown: the last 3 s at 100 Hz


class WalkState(str, Enum):
    IDLE = "idle"
    WALKING = "walking"  # steps in progress or queued
    SETTLING = "settling"  # no step left: the CoM goes back over the feet


@dataclass
class Measurement:
    """The robot as the balancer models it this cycle: torso pose (wb_world) + FK of joint_states."""

    left_sole_world: np.ndarray  # 4x4
    right_sole_world: np.ndarray  # 4x4
    com_world_m: np.ndarray
    footprint_world: np.ndarray  # 4x4, REP-120 base_footprint (yaw of the torso)


@dataclass
class MoveInitWait:
    requested_s: float  # node clock; only joint_states received after it count
    deadline_s: float
    reached: Future  # set by the cycle: True when the posture is reached, False at the deadline


def footsteps_of(plan: FootstepPlan) -> tuple[Footstep, ...]:
    """The plan's steps as the generator's Footsteps (FootstepMessageError if times are unusable)."""
    steps = []
    previous_end_s = -math.inf
    for i, s in enumerate(plan.steps):
        if not (s.end_s > s.start_s >= previous_end_s - 1e-9):
            raise FootstepMessageError(f"step {i}: times {s.start_s}..{s.end_s} s do not follow the previous step")
        previous_end_s = s.end_s
        move = s.target.relative_to(s.support)
        steps.append(Footstep(s.leg, move, move, s.origin, s.target, s.support, s.start_s, s.end_s,
                              s.step_height_m, s.torso_wx_rad, s.torso_wy_rad))
    return tuple(steps)


class WalkNode(Node):
    def __init__(self, **kwargs):
        super().__init__("walk", **kwargs)
        self.declare_parameter("nao_version", "V5", ParameterDescriptor(read_only=True))
        version = self.get_parameter("nao_version").value
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"nao_version must be one of {SUPPORTED_VERSIONS}, got {version!r}")
        self.model = NaoModel(version)
        self.fk = ForwardKinematics(self.model)
        self.dt_s = self.model.cycle_time_s
        self.walk_config = WalkConfig.for_model(self.model, posture_name=WALK_POSTURE)
        self.generator: WalkPatternGenerator | None = None
        self.generator_time_s = 0.0  # the clock time of the generator's last sample

        n = self.model.n_joints
        self.measured = np.zeros(n)
        self.received = np.zeros(n, dtype=bool)
        self.commanded = np.zeros(n)  # the whole-body node's joint_commands
        self.commanded_received = np.zeros(n, dtype=bool)
        self.required = np.array([j in self.fk.joint_names and j != "RHipYawPitch" for j in self.model.joint_names])
        self.states_s = -math.inf
        self.states_stamp = None
        self.torso_world: np.ndarray | None = None
        self.torso_s = -math.inf
        self.imu_yaw_rad = 0.0
        self.imu_s = -math.inf
        self.heading = HeadingCorrection(self.walk_config.phases)
        self.planned_start: dict[Leg, Pose2D] = {}  # each foot at the walk's start: as planned, as held
        self.actual_start: dict[Leg, Pose2D] = {}
        self.heading_corrected = False  # this walk started with a fresh IMU
        self.stiffness = np.ones(n)  # until a message, every joint is stiff (the collision filter's convention)
        self.leg_indices = np.array([self.model.joint_index(j) for leg in ("LLeg", "RLeg")
                                     for j in self.model.chains[leg].joints])
        self.fsr_n = {"left": math.nan, "right": math.nan}
        self.fsr_s = {"left": -math.inf, "right": -math.inf}
        self.low_force_since_s: float | None = None
        self.arm_joint_indices = [np.array([self.model.joint_index(j) for j in self.model.chains[arm].joints])
                                  for arm in ARMS]
        self.user_arm_until_s = [-math.inf, -math.inf]

        self.plan: FootstepPlan | None = None
        self.plan_steps: tuple[Footstep, ...] = ()
        self.bad_plans = 0
        self.state = WalkState.IDLE
        self.last_reason = "no walk yet"
        self.last_moved = None  # the leg whose step ended last in this walk (the ZMP starts from the other)
        self.step_in_progress: Footstep | None = None
        self.last_step_s = -math.inf
        self.world_from_odom: np.ndarray | None = None
        self.odom_from_world: np.ndarray | None = None
        self.previous_odom: tuple[float, Pose2D] | None = None
        self.kill_future = None
        self.move_init: MoveInitWait | None = None

        self.params = ValidatedParameters(
            self,
            {"move_arms_enabled.LArm": True, "move_arms_enabled.RArm": True, "com_feedback_gain": 0.0,
             "heading_correction_gain": 1.0,
             "foot_contact_protection": True, "foot_contact_min_force_n": 10.0, "stiffness_protection": True,
             "user_arm_hold_s": 1.0, "stale_timeout_s": 0.5, "move_init_timeout_s": 5.0},
            {
                "move_arms_enabled.LArm": "setMoveArmsEnabled: the left arm swings while walking",
                "move_arms_enabled.RArm": "setMoveArmsEnabled: the right arm swings while walking",
                "com_feedback_gain": "measured CoM blended into the walk per cycle, in [0, 1] (0: open loop); "
                                     "read when a walk starts",
                "heading_correction_gain": "fraction of the heading error the IMU measures (against the balancer's "
                                           "torso) turned into the executed steps at each lift-off, in [0, 1] "
                                           "(0: open loop); read when a walk starts",
                "foot_contact_protection": "no walk while the feet's total FSR force is below foot_contact_min_force_n",
                "foot_contact_min_force_n": "total FSR force (N, > 0) below which the robot is in the air",
                "stiffness_protection": "no walk while a leg joint's stiffness is <= 0.6",
                "user_arm_hold_s": "an arm commanded by the user swings again this long (s, > 0) after the command",
                "stale_timeout_s": "joint_states / torso pose / FSR older than this (s, > 0) are not used",
                "move_init_timeout_s": "walk/move_init gives up after this long (s, > 0)",
            },
            self._validate, self._apply,
        )

        self.com_reference_pub = self.create_publisher(PointStamped, "whole_body/com_reference", CYCLE_QOS)
        self.foot_references_pub = self.create_publisher(PoseArray, "whole_body/foot_references", CYCLE_QOS)
        self.support_pub = self.create_publisher(String, "whole_body/support", CYCLE_QOS)
        self.zmp_pub = self.create_publisher(PointStamped, "walk/zmp", CYCLE_QOS)
        self.com_pub = self.create_publisher(PointStamped, "walk/com", CYCLE_QOS)
        self.com_measured_pub = self.create_publisher(PointStamped, "walk/com_measured", CYCLE_QOS)
        self.odom_pub = self.create_publisher(Odometry, "odom", 10)
        self.active_pub = self.create_publisher(Bool, "walk/active", LATCHED_QOS)
        self.targets_pub = self.create_publisher(JointState, "joint_targets", CYCLE_QOS)
        self.marker_pub = self.create_publisher(MarkerArray, "walk/markers", 10)
        self.tf = TfPublisher(self)
        self.create_subscription(Float64MultiArray, "footsteps/plan", self.on_plan, LATCHED_QOS)
        self.create_subscription(PoseStamped, "whole_body/torso_pose", self.on_torso_pose, CYCLE_QOS)
        self.create_subscription(JointState, "joint_states", self.on_joint_states, CYCLE_QOS)
        self.create_subscription(JointState, "joint_commands", self.on_joint_commands, CYCLE_QOS)
        self.create_subscription(Imu, "imu", self.on_imu, CYCLE_QOS)
        for side in ("left", "right"):
            self.create_subscription(Float32MultiArray, f"fsr/{side}",
                                     lambda msg, side=side: self.on_fsr(side, msg), CYCLE_QOS)
        self.create_subscription(JointState, "joint_stiffness", self.on_stiffness, CYCLE_QOS)
        self.create_subscription(JointState, "joint_targets", self.on_user_targets, CYCLE_QOS)
        self.create_subscription(JointTrajectory, "joint_trajectory", self.on_user_trajectory, CYCLE_QOS)
        self.kill_client = self.create_client(Trigger, "kill_move")
        # A coroutine awaiting the cycles, in a group of its own so that they go on meanwhile.
        self.create_service(Trigger, "walk/move_init", self.on_move_init,
                            callback_group=MutuallyExclusiveCallbackGroup())

        # Prepared once; each cycle only fills the numbers in.
        self.com_reference_msg = PointStamped()
        self.com_reference_msg.header.frame_id = WORLD_FRAME
        self.foot_references_msg = PoseArray(poses=[Pose(), Pose()])
        self.foot_references_msg.header.frame_id = WORLD_FRAME
        self.support_msg = String()
        self.zmp_msg, self.com_msg, self.com_measured_msg = PointStamped(), PointStamped(), PointStamped()
        for msg in (self.zmp_msg, self.com_msg, self.com_measured_msg):
            msg.header.frame_id = ODOM_FRAME
        self.odom_msg = Odometry()
        self.odom_msg.header.frame_id, self.odom_msg.child_frame_id = ODOM_FRAME, FOOTPRINT_FRAME
        self.odom_transform = transform_stamped(ODOM_FRAME, FOOTPRINT_FRAME, np.eye(4), self.get_clock().now().to_msg())
        init_q = posture(self.model, WALK_POSTURE)
        self.init_indices = np.concatenate([self.leg_indices, *self.arm_joint_indices])
        self.init_q = init_q
        self.init_msg = JointState(name=[self.model.joint_names[i] for i in self.init_indices],
                                   position=init_q[self.init_indices].tolist())
        self.init_msg.header.frame_id = MOVE_INIT_FRAME
        self.arm_base_rad = np.array([init_q[self.model.joint_index(j)] for j in ARM_SWING_JOINTS])
        speed = self.walk_config.arms.max_rate_radps
        self.arm_msgs = {arms: JointState(name=[ARM_SWING_JOINTS[i] for i in arms], position=[0.0] * len(arms),
                                          velocity=[speed] * len(arms)) for arms in ((0, 1), (0,), (1,))}
        for msg in self.arm_msgs.values():
            msg.header.frame_id = ARM_SWING_FRAME
        self.markers, self.trail = self._make_markers(), []
        self.last_markers_s = -math.inf
        self.active_msg = Bool(data=False)
        self.last_active_s = -math.inf

        self.diagnostics = CycleDiagnostics(self, "walk", self.dt_s)
        self.create_timer(self.dt_s, self.on_cycle)
        self.get_logger().info(f"walk for NAO {version}: CoM height {self.walk_config.com_height_m:.4f} m "
                               f"({WALK_POSTURE}), preview {self.walk_config.preview.preview_s} s, TF via {self.tf.backend}")

    # --- parameters -------------------------------------------------------------------------
    @staticmethod
    def _validate(values: dict) -> str | None:
        for name in ("move_arms_enabled.LArm", "move_arms_enabled.RArm", "foot_contact_protection",
                     "stiffness_protection"):
            if not isinstance(values[name], bool):
                return f"{name} must be a bool, got {values[name]!r}"
        for name in ("com_feedback_gain", "heading_correction_gain", "foot_contact_min_force_n", "user_arm_hold_s",
                     "stale_timeout_s", "move_init_timeout_s"):
            if not (isinstance(values[name], float) and math.isfinite(values[name])):
                return f"{name} must be a finite double, got {values[name]!r}"
        for name in ("com_feedback_gain", "heading_correction_gain"):
            if not 0.0 <= values[name] <= 1.0:
                return f"{name} must be in [0, 1], got {values[name]!r}"
        for name in ("foot_contact_min_force_n", "user_arm_hold_s", "stale_timeout_s", "move_init_timeout_s"):
            if values[name] <= 0.0:
                return f"{name} must be > 0, got {values[name]!r}"
        return None

    def _apply(self, values: dict) -> None:
        self.arm_enabled = (values["move_arms_enabled.LArm"], values["move_arms_enabled.RArm"])

    # --- inputs -------------------------------------------------------------------------------
    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def on_plan(self, msg: Float64MultiArray) -> None:
        try:
            plan = decode_plan(msg)
            steps = footsteps_of(plan)
        except FootstepMessageError as err:
            self.bad_plans += 1
            throttled_warning(self, "plan", f"footsteps/plan ignored, the last plan is kept: {err}")
            return
        self.plan, self.plan_steps = plan, steps

    def on_torso_pose(self, msg: PoseStamped) -> None:
        p, o = msg.pose.position, msg.pose.orientation
        values = np.array([p.x, p.y, p.z, o.x, o.y, o.z, o.w])
        if msg.header.frame_id not in ("", WORLD_FRAME) or not np.all(np.isfinite(values)) \
                or np.linalg.norm(values[3:]) < 1e-6:
            throttled_warning(self, "torso_pose", "whole_body/torso_pose ignored: frame must be "
                                                  f"{WORLD_FRAME!r}, position and orientation finite")
            return
        self.torso_world = transform(rotation_from_quaternion_xyzw(values[3:]), values[:3])
        self.torso_s = self._now_s()

    def on_imu(self, msg: Imu) -> None:
        attitude = imu_attitude(msg)
        if attitude is None:
            throttled_warning(self, "imu", IMU_ORIENTATION_ERROR)
            return
        self.imu_yaw_rad = yaw_of(attitude)
        self.imu_s = self._now_s()

    def on_joint_commands(self, msg: JointState) -> None:
        merge_joint_positions(self, "joint_commands", self.model, msg, self.commanded, self.commanded_received)

    def on_joint_states(self, msg: JointState) -> None:
        if not merge_joint_positions(self, "joint_states", self.model, msg, self.measured, self.received):
            return
        self.states_s = self._now_s()
        self.states_stamp = msg.header.stamp if stamp_seconds(msg.header.stamp) > 0.0 else None

    def on_fsr(self, side: str, msg: Float32MultiArray) -> None:
        forces = np.asarray(msg.data, dtype=float)
        if forces.shape != (4,) or not np.all(np.isfinite(forces)):
            throttled_warning(self, f"fsr/{side}", f"fsr/{side} ignored: expected 4 finite forces (N)")
            return
        self.fsr_n[side] = float(forces.sum())
        self.fsr_s[side] = self._now_s()

    def on_stiffness(self, msg: JointState) -> None:
        if not msg.name and len(msg.effort) == 1 and math.isfinite(msg.effort[0]):
            self.stiffness[:] = msg.effort[0]
            return
        try:
            parsed = parse_joint_values(self.model, msg.name, msg.effort, unknown_names="ignore",
                                        what="stiffness (effort)")
        except JointInputError as err:
            throttled_warning(self, "joint_stiffness", f"joint_stiffness ignored: {err}")
            return
        self.stiffness[parsed.indices] = parsed.values

    def on_user_targets(self, msg: JointState) -> None:
        """An arm target from the user: that arm is theirs while it moves there, then for the hold."""
        if msg.header.frame_id.startswith(OWN_FRAME_PREFIX):
            return
        duration_s = 0.0
        if len(msg.velocity) == len(msg.name) == len(msg.position):
            # The collision filter's speeds: given ones, else at least its default 0.3 x maximum.
            for name, target, speed in zip(msg.name, msg.position, msg.velocity):
                if self.model.has_joint(name) and speed > 0.0 and math.isfinite(target):
                    duration_s = max(duration_s, abs(target - self.measured[self.model.joint_index(name)]) / speed)
        self._user_arm_command(msg.name, duration_s)

    def on_user_trajectory(self, msg: JointTrajectory) -> None:
        if msg.header.frame_id.startswith(OWN_FRAME_PREFIX):
            return
        duration_s = 0.0
        if msg.points:
            t = msg.points[-1].time_from_start
            duration_s = max(0.0, t.sec + t.nanosec * 1e-9)
        self._user_arm_command(msg.joint_names, duration_s)

    def _user_arm_command(self, names, duration_s: float) -> None:
        commanded = {self.model.joint_index(n) for n in names if self.model.has_joint(n)}
        until_s = self._now_s() + min(duration_s, 60.0) + self.params.values["user_arm_hold_s"]
        for i, indices in enumerate(self.arm_joint_indices):
            if commanded.intersection(indices.tolist()):
                self.user_arm_until_s[i] = max(self.user_arm_until_s[i], until_s)

    # --- moveInit -----------------------------------------------------------------------------
    async def on_move_init(self, request: Trigger.Request, response: Trigger.Response):
        timeout_s = self.params.values["move_init_timeout_s"]
        if not np.all(self.received[self.required]) or self._now_s() - self.states_s > self.params.values[
                "stale_timeout_s"]:
            response.success, response.message = False, "no fresh joint_states: the posture cannot be checked"
            return response
        if self.state is not WalkState.IDLE:
            response.success, response.message = False, "walking: moveInit is for before the walk"
            return response
        self.init_msg.header.stamp = self.get_clock().now().to_msg()
        self.targets_pub.publish(self.init_msg)
        now_s = self._now_s()
        self.move_init = MoveInitWait(now_s, now_s + timeout_s, Future())
        response.success = bool(await self.move_init.reached)  # decided by the cycles, on the node's clock
        self.move_init = None
        response.message = (f"{WALK_POSTURE} reached" if response.success
                            else f"{WALK_POSTURE} not reached within {timeout_s} s")
        self.get_logger().info(f"moveInit: {response.message}")
        return response

    def _check_move_init(self, now_s: float) -> None:
        wait = self.move_init
        if wait is None or wait.reached.done() or self.states_s <= wait.requested_s:
            return
        error = np.max(np.abs(self.measured[self.init_indices] - self.init_q[self.init_indices]))
        if error <= MOVE_INIT_TOLERANCE_RAD or now_s >= wait.deadline_s:
            wait.reached.set_result(bool(error <= MOVE_INIT_TOLERANCE_RAD))

    # --- cycle --------------------------------------------------------------------------------
    def on_cycle(self) -> None:
        start = time.perf_counter()
        now_s = self._now_s()
        measurement = self._measure(now_s)
        steps, feet = self._steps_now(now_s)
        if self.state is WalkState.IDLE and measurement is not None:
            self._anchor(feet, measurement)
        blocked = self._protection(now_s)
        if self.state is WalkState.IDLE and steps:
            reason = blocked or (None if measurement is not None and self.world_from_odom is not None
                                 else "no fresh joint_states and whole_body/torso_pose")
            if reason:
                self._refuse(f"walk refused, killMove: {reason}")
            else:
                self._start_walk(feet, measurement)
        elif self.state is not WalkState.IDLE and blocked:
            self._refuse(f"walk stopped, killMove: {blocked}")
            self._end_walk(f"stopped: {blocked}", now_s)
        if self.state is not WalkState.IDLE:
            self._walk_cycle(now_s, steps, feet, measurement)
        if measurement is not None and self.odom_from_world is not None:
            self._publish_odometry(measurement, now_s)
        if now_s - self.last_active_s >= ACTIVE_PERIOD_S:
            self._publish_active(now_s)
        self._check_move_init(now_s)
        self.diagnostics.record(time.perf_counter() - start)
        self._diagnose(now_s, steps, blocked, measurement)

    def _measure(self, now_s: float) -> Measurement | None:
        stale_s = self.params.values["stale_timeout_s"]
        if (self.torso_world is None or now_s - self.torso_s > stale_s or now_s - self.states_s > stale_s
                or not np.all(self.received[self.required])):
            return None
        state = self.fk.compute(self.measured)
        torso = self.torso_world
        return Measurement(torso @ self.fk.pose(state, "l_sole"), torso @ self.fk.pose(state, "r_sole"),
                           torso[:3, :3] @ state.com_torso_m + torso[:3, 3],
                           torso @ self.fk.ground_frame(state, yaw_from="torso"))

    def _steps_now(self, now_s: float) -> tuple[tuple[Footstep, ...], FeetState | None]:
        """The steps not yet ended (the one in progress first) and the planted feet at now_s."""
        if self.plan is None:
            return (), None
        if self.step_in_progress is not None and self.step_in_progress.end_s <= now_s:
            self.last_moved = self.step_in_progress.leg  # it ended even if the new plan no longer lists it
        feet = FeetState(self.plan.left, self.plan.right, self.last_moved, self.plan.time_s)
        steps = self.plan_steps
        ended = 0
        while ended < len(steps) and steps[ended].end_s <= now_s:
            feet = feet.after(steps[ended])
            ended += 1
        steps = steps[ended:]
        self.last_moved = feet.last_moved
        self.step_in_progress = steps[0] if steps and steps[0].start_s <= now_s else None
        return steps, feet

    def _anchor(self, feet: FeetState | None, measurement: Measurement) -> None:
        if feet is None:  # no plan yet: the planner starts with the feet at the odom origin
            half_m = 0.5 * DEFAULT_GAIT_CONFIG.foot_separation_m
            feet = FeetState(Pose2D(0.0, half_m), Pose2D(0.0, -half_m), None, 0.0)
        # The soles where the balancer holds them (its torso and the joints it commands): the walk's
        # foot references start from there. The measured joints differ by the servos' error under
        # load (~1 deg at a loaded hip, ~1 cm at the foot), which would make the swing foot jump
        # at lift-off.
        self.world_from_odom = world_from_odom(feet.left, feet.right, *self._held_soles(measurement))
        self.odom_from_world = inverse(self.world_from_odom)

    def _held_soles(self, measurement: Measurement) -> tuple[np.ndarray, np.ndarray]:
        """Left and right soles (4x4, wb_world) where the balancer holds them: its torso and the
        joints it commands. The measured joints differ by the servos' error under load (~1 deg at
        a loaded hip, ~1 cm at the foot), which would make a swing foot jump at lift-off."""
        if not np.all(self.commanded_received[self.required]):
            return measurement.left_sole_world, measurement.right_sole_world
        state = self.fk.compute(self.commanded)
        return tuple(self.torso_world @ self.fk.pose(state, sole) for sole in ("l_sole", "r_sole"))

    def _protection(self, now_s: float) -> str | None:
        values = self.params.values
        if values["foot_contact_protection"]:
            if any(now_s - t > values["stale_timeout_s"] for t in self.fsr_s.values()):
                return "no fresh fsr/left and fsr/right (foot contact protection)"
            total_n = self.fsr_n["left"] + self.fsr_n["right"]
            if total_n >= values["foot_contact_min_force_n"]:
                self.low_force_since_s = None
            else:
                if self.low_force_since_s is None:
                    self.low_force_since_s = now_s
                if now_s - self.low_force_since_s >= FOOT_CONTACT_LOSS_S - 1e-9:
                    return (f"no foot contact: FSR total {total_n:.1f} N < "
                            f"{values['foot_contact_min_force_n']} N (foot contact protection)")
        if values["stiffness_protection"]:
            legs = self.stiffness[self.leg_indices]
            weakest = int(np.argmin(legs))
            if legs[weakest] <= MIN_LEG_STIFFNESS:
                name = self.model.joint_names[self.leg_indices[weakest]]
                return f"{name} stiffness {legs[weakest]:.2f} <= {MIN_LEG_STIFFNESS} (stiffness protection)"
        return None

    def _refuse(self, reason: str) -> None:
        """killMove on the planner (once at a time) and say why."""
        self.last_reason = reason
        throttled_warning(self, reason, reason, 1.0)
        if self.kill_future is not None and not self.kill_future.done():
            return
        if self.kill_client.service_is_ready():
            self.kill_future = self.kill_client.call_async(Trigger.Request())
        else:
            throttled_warning(self, "kill_move", "the planner's kill_move service is not available")

    def _start_walk(self, feet: FeetState, measurement: Measurement) -> None:
        gain = self.params.values["com_feedback_gain"]
        config = replace(self.walk_config, com_feedback=replace(self.walk_config.com_feedback, gain=gain))
        self.generator = WalkPatternGenerator(config)
        self.last_moved = None
        start_feet = FeetState(feet.left, feet.right, None, feet.time_s)
        self.planned_start = {Leg.LEFT: feet.left, Leg.RIGHT: feet.right}
        self.actual_start = {leg: Pose2D.from_transform(self.odom_from_world @ sole)
                             for leg, sole in zip((Leg.LEFT, Leg.RIGHT), self._held_soles(measurement))}
        self.generator.reset(start_feet, self._odom_point(measurement.com_world_m)[:2])
        self.generator_time_s = self._now_s() - self.model.cycle_time_s  # its last sample's time
        gain = self.params.values["heading_correction_gain"]
        self.heading = HeadingCorrection(config.phases, HeadingCorrectionConfig(gain=gain))
        self.heading_corrected = gain > 0.0 and self._now_s() - self.imu_s <= self.params.values["stale_timeout_s"]
        model_yaw = yaw_of(self.torso_world)
        self.heading.reset(start_feet, self.imu_yaw_rad if self.heading_corrected else model_yaw, model_yaw)
        self.state = WalkState.WALKING
        self.trail.clear()
        self.last_reason = "walking"
        self.get_logger().info("walk started")
        self._publish_active(self._now_s())

    def _end_walk(self, reason: str, now_s: float) -> None:
        self.state = WalkState.IDLE
        self.last_moved = None
        self.last_reason = reason
        self.get_logger().info(f"walk ended: {reason}")
        self._publish_active(now_s)

    def _odom_point(self, point_world_m: np.ndarray) -> np.ndarray:
        return self.odom_from_world[:3, :3] @ point_world_m + self.odom_from_world[:3, 3]

    def _walk_cycle(self, now_s: float, steps, feet: FeetState, measurement: Measurement | None) -> None:
        gen = self.generator
        free = [self.arm_enabled[i] and now_s >= self.user_arm_until_s[i] for i in range(2)]
        gen.arms.set_enabled(*free)
        if measurement is not None:
            gen.feed_back_com(self._odom_point(measurement.com_world_m)[:2])
        else:
            throttled_warning(self, "open_loop", "joint_states or torso pose stale: walking open loop")
        executed = self._executed(now_s, steps, feet)
        # One generator sample per motion cycle of the clock, not per callback: when the clock
        # jumps several cycles (a late tick, the simulator catching up), one sample would leave
        # the COM behind the time-based ZMP reference and feet, and the robot falls.
        dt_s = self.model.cycle_time_s
        due = round((now_s - self.generator_time_s) / dt_s)
        if due > MAX_CATCH_UP_CYCLES:
            throttled_warning(self, "clock_jump", f"the clock jumped {due} cycles: the walk resynchronises")
            self.generator_time_s, due = now_s - dt_s, 1
        for _ in range(due):
            self.generator_time_s += dt_s
            out = gen.step(self.generator_time_s, *executed)
        if due < 1:  # the same cycle again: nothing new to send
            return
        if steps:
            self.state, self.last_step_s = WalkState.WALKING, now_s
        else:
            self.state = WalkState.SETTLING
            settled = (np.linalg.norm(out.com_m[:2] - out.zmp_ref_m) <= SETTLED_M
                       and np.linalg.norm(out.com_velocity_mps[:2]) <= SETTLED_MPS)
            if settled or now_s - self.last_step_s >= MAX_SETTLE_S:
                self._end_walk("plan done", now_s)
                return
        self._publish_references(out, now_s)
        self._publish_arm_swing(out.arm_offsets_rad, now_s)

    def _executed(self, now_s: float, steps, feet: FeetState):
        """The plan started from the actual feet and turned by the heading correction; a stale IMU
        or torso pose leaves the heading as it is."""
        model_yaw = yaw_of(self.torso_world)
        fresh = now_s - min(self.imu_s, self.torso_s) <= self.params.values["stale_timeout_s"]
        if self.heading_corrected and not fresh:
            throttled_warning(self, "heading", "imu or torso pose stale: the heading correction holds")
        imu_yaw = self.imu_yaw_rad if self.heading_corrected and fresh else None
        steps, feet = start_from_actual_feet(steps, feet, self.planned_start, self.actual_start)
        return self.heading.update(now_s, steps, feet, imu_yaw, model_yaw)

    # --- outputs ------------------------------------------------------------------------------
    def _publish_references(self, out, now_s: float) -> None:
        stamp = self.get_clock().now().to_msg()
        ref = balancer_reference(out, self.world_from_odom)
        self.com_reference_msg.header.stamp = stamp
        set_vector_fields(self.com_reference_msg.point, ref.com_world_m)
        self.foot_references_msg.header.stamp = stamp
        for pose, sole in zip(self.foot_references_msg.poses, (ref.left_sole_world, ref.right_sole_world)):
            set_vector_fields(pose.position, sole[:3, 3])
            set_quaternion_fields(pose.orientation, quaternion_xyzw_from_rotation(sole[:3, :3]))
        self.support_msg.data = ref.support
        # The support first: the whole-body node runs its cycle once the COM and the feet of this
        # cycle (same stamp) have arrived, with the support it has then.
        self.support_pub.publish(self.support_msg)
        self.com_reference_pub.publish(self.com_reference_msg)
        self.foot_references_pub.publish(self.foot_references_msg)
        # The generator works on the executed (heading-corrected) steps: back into odom.
        zmp = self.heading.planned_from_executed(Pose2D(float(out.zmp_m[0]), float(out.zmp_m[1]), 0.0))
        com = self.heading.planned_from_executed(Pose2D(float(out.com_m[0]), float(out.com_m[1]), 0.0))
        self.zmp_msg.header.stamp = self.com_msg.header.stamp = stamp
        set_vector_fields(self.zmp_msg.point, (zmp.x, zmp.y, 0.0))
        set_vector_fields(self.com_msg.point, (com.x, com.y, out.com_m[2]))
        self.zmp_pub.publish(self.zmp_msg)
        self.com_pub.publish(self.com_msg)
        self.trail.append(Point(x=com.x, y=com.y, z=float(out.com_m[2])))
        del self.trail[:-TRAIL_POINTS]
        if now_s - self.last_markers_s >= MARKER_PERIOD_S:
            self.last_markers_s = now_s
            zmp_marker, com_marker, path = self.markers.markers
            zmp_marker.pose.position.x, zmp_marker.pose.position.y = zmp.x, zmp.y
            com_marker.pose.position = self.trail[-1]
            path.points = list(self.trail)
            for m in self.markers.markers:
                m.header.stamp = stamp
            self.marker_pub.publish(self.markers)

    def _publish_arm_swing(self, offsets_rad: np.ndarray, now_s: float) -> None:
        """Swing the arms the user leaves alone; a disabled arm until its offset has faded out."""
        arms = tuple(i for i in range(2) if now_s >= self.user_arm_until_s[i]
                     and (self.arm_enabled[i] or abs(offsets_rad[i]) > 1e-4))
        if not arms:
            return
        msg = self.arm_msgs[arms]
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.position = [float(self.arm_base_rad[i] + offsets_rad[i]) for i in arms]
        self.targets_pub.publish(msg)

    def _publish_odometry(self, measurement: Measurement, now_s: float) -> None:
        footprint = self.odom_from_world @ measurement.footprint_world
        pose = Pose2D.from_transform(footprint)
        if self.state is not WalkState.IDLE:  # idle, the anchoring itself keeps odom the planner's frame
            pose = self.heading.planned_from_executed(pose)
        stamp = self.states_stamp or self.get_clock().now().to_msg()
        msg = self.odom_msg
        msg.header.stamp = stamp
        set_vector_fields(msg.pose.pose.position, (pose.x, pose.y, 0.0))
        set_quaternion_fields(msg.pose.pose.orientation, (0.0, 0.0, math.sin(0.5 * pose.theta),
                                                          math.cos(0.5 * pose.theta)))
        if self.previous_odom is not None and now_s > self.previous_odom[0]:
            then_s, before = self.previous_odom
            delta = pose.relative_to(before)  # in the earlier base_footprint frame
            dt_s = now_s - then_s
            set_vector_fields(msg.twist.twist.linear, (delta.x / dt_s, delta.y / dt_s, 0.0))
            msg.twist.twist.angular.z = delta.theta / dt_s
        self.previous_odom = (now_s, pose)
        self.odom_pub.publish(msg)
        self.odom_transform.header.stamp = stamp
        t = self.odom_transform.transform
        set_vector_fields(t.translation, (pose.x, pose.y, 0.0))
        t.rotation = msg.pose.pose.orientation
        self.tf.send([self.odom_transform])
        self.com_measured_msg.header.stamp = stamp
        set_vector_fields(self.com_measured_msg.point, self._odom_point(measurement.com_world_m))
        self.com_measured_pub.publish(self.com_measured_msg)

    def _publish_active(self, now_s: float) -> None:
        self.active_msg.data = self.state is not WalkState.IDLE
        self.active_pub.publish(self.active_msg)
        self.last_active_s = now_s

    def _diagnose(self, now_s: float, steps, blocked: str | None, measurement: Measurement | None) -> None:
        values = self.diagnostics.values
        values.update({
            "state": self.state.value, "last_reason": self.last_reason, "steps": len(steps),
            "fsr_total_n": f"{self.fsr_n['left'] + self.fsr_n['right']:.1f}",
            "min_leg_stiffness": f"{float(np.min(self.stiffness[self.leg_indices])):.2f}",
            "ignored_plans": self.bad_plans,
            "arms_swinging": ",".join(a for i, a in enumerate(ARMS)
                                      if self.arm_enabled[i] and now_s >= self.user_arm_until_s[i]) or "none",
        })
        if self.generator is not None:
            values["com_feedback_error_m"] = np.array2string(self.generator.com_feedback.error_m, precision=4)
        if blocked:
            self.diagnostics.set_status(DiagnosticStatus.WARN, blocked)
        elif measurement is None:
            self.diagnostics.set_status(DiagnosticStatus.WARN, "no fresh joint_states and whole_body/torso_pose")
        else:
            self.diagnostics.set_status(DiagnosticStatus.OK, f"{self.state.value}: {self.last_reason}")

    def _make_markers(self) -> MarkerArray:
        def marker(ns: str, kind: int, rgba, scale: float) -> Marker:
            m = Marker(ns=ns, id=0, type=kind, action=Marker.ADD)
            m.header.frame_id = ODOM_FRAME
            m.pose.orientation.w = 1.0
            m.scale.x = m.scale.y = m.scale.z = scale
            m.color = ColorRGBA(r=rgba[0], g=rgba[1], b=rgba[2], a=rgba[3])
            return m

        return MarkerArray(markers=[
            marker("zmp", Marker.SPHERE, (1.0, 0.2, 0.2, 0.9), 0.015),
            marker("com", Marker.SPHERE, (1.0, 0.8, 0.0, 0.9), 0.02),
            marker("com_path", Marker.LINE_STRIP, (1.0, 0.8, 0.0, 0.6), 0.003),
        ])


def main(args=None) -> None:
    run_node(WalkNode, args)


if __name__ == "__main__":
    main()
