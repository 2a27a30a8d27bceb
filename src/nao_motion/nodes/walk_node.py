"""Walk node: the footstep planner's steps -> the whole-body balancer's walk references.

Decode -> one core cycle -> publish, over :class:`nao_motion.walk.controller.WalkController`
(the state machine, protections, anchoring, heading correction, generator, arm swing and
odometry are there, and ``nao_motion.sim.walking`` runs the same object in process). The cycle
is driven by the robot's own sensor message: each ``joint_states`` runs one cycle at its
header stamp t (the node's clock if unstamped). Odometry and arm swing carry t; the references
(and the planned ZMP and CoM) are for the next cycle and carry t + one cycle
(``WalkController.reference_time_s``), so that the whole-body node has them in hand when the
robot's next ``joint_states`` arrives.
``imu``, ``fsr/*``, ``whole_body/torso_pose`` and ``joint_commands`` are sampled (the newest
message when the cycle runs, ``nao_motion.ros.sampled``); a value counts from the cycle that
first read it (``joint_commands`` is taken and decoded only while no walk runs: a walk under way
does not read it). Plans, user commands, stiffness and services are ordinary callbacks. Without
``joint_states`` nothing is published but the diagnostics, which say so (checked every 0.5 s).

| kind | name | type | meaning |
|---|---|---|---|
| sub | `footsteps/plan` | std_msgs/Float64MultiArray (transient local) | the planner's planted feet and steps (its own frame, ``footstep_plan``: where the robot was commanded); a malformed plan is ignored (the last good one is kept) |
| sub | `whole_body/torso_pose` | geometry_msgs/PoseStamped | the torso in ``wb_world`` (the balancer's model): with FK of `joint_states`, where the feet and the CoM are |
| sub | `joint_states` | sensor_msgs/JointState | measured angles (FK: feet, CoM, base_footprint); each message runs one cycle, at its stamp |
| sub | `joint_commands` | sensor_msgs/JointState | the whole-body node's command: with its torso pose, where it holds the soles, which a walk's first foot references start from (taken and decoded only while no walk runs) |
| sub | `imu` | sensor_msgs/Imu | torso orientation: its yaw against the balancer's torso yaw is the heading the feet lost, which the walk turns into the steps it executes (``heading_correction``); an IMU without orientation (``orientation_covariance[0]`` = -1, nao_lola's): its angular velocity, integrated about the vertical (``walk.imu_yaw``; the bias learnt while standing) |
| sub | `fsr/left`, `fsr/right` | std_msgs/Float32MultiArray | 4 forces per foot, N (foot contact protection; which foot supports, for the odometry) |
| sub | `joint_stiffness` | sensor_msgs/JointState | stiffness 0..1 in `effort`; empty names with one value: every joint (stiffness protection) |
| sub | `robot_has_fallen` | std_msgs/Bool | latched, the whole-body node's: while True no walk starts, and one under way is stopped (killMove) |
| sub | `joint_targets`, `joint_trajectory` | sensor_msgs/JointState, trajectory_msgs/JointTrajectory | a user command on an arm's joints leaves that arm to the user (no arm swing) for the command's duration + `user_arm_hold_s`; messages whose `header.frame_id` starts with ``walk_`` are this node's own |
| pub | `whole_body/com_reference` | geometry_msgs/PointStamped | CoM for the next cycle, m, ``wb_world``; stamped with that cycle's time (the `joint_states` stamp + one cycle, ``REFERENCE_LEAD_CYCLES``) |
| pub | `whole_body/foot_references` | geometry_msgs/PoseArray | [left sole, right sole] for the next cycle, ``wb_world``; stamped like `whole_body/com_reference` |
| pub | `whole_body/support` | std_msgs/String | ``Legs``, ``LLeg`` or ``RLeg``: with the references when it changes, at a walk's first reference, and every ``SUPPORT_PERIOD_S`` (the whole body keeps the last one) |
| pub | `whole_body/torso_reference` | geometry_msgs/Vector3Stamped | the torso's tilt for the next cycle: x = TorsoWx, y = TorsoWy (rad; the step's peak values times the swing foot's lift profile), about the feet's mean heading; stamped like `whole_body/com_reference`; only when not upright (the whole body's default) |
| pub | `walk/zmp`, `walk/com` | geometry_msgs/PointStamped | planned ZMP (z = 0) and CoM, m, ``odom``, while walking and subscribed |
| pub | `walk/com_measured` | geometry_msgs/PointStamped | CoM from the sensed odometry's torso + FK of `joint_states`, m, ``odom``, while subscribed |
| pub | `odom` | nav_msgs/Odometry | base_footprint in ``odom`` (x, y, yaw; twist in ``base_footprint``), sensed: support-foot kinematics of `joint_states`, the `imu` attitude, the support from `fsr/*` (``walk.leg_odometry``) |
| pub | `/tf` | tf2_msgs/TFMessage | ``odom -> base_footprint`` (the kinematics node publishes base_footprint -> base_link) |
| pub | `walk/active` | std_msgs/Bool (transient local) | moveIsActive: on every change and at 1 Hz |
| pub | `walk/hold_start` | std_msgs/Bool (transient local) | true while the walk has steps planned but cannot start them yet: its initialization movement (the posture not walk-ready), or a plan whose first step starts less than 0.5 s ahead (it came late); the footstep planner keeps the plan's start a preview window ahead meanwhile; on every change |
| pub | `walk/hold_step` | std_msgs/Bool (transient local) | true while the walk holds a step's lift-off: the step could not catch the robot (the measured DCM, ``walk.lift_off``) and both feet still hold it; the footstep planner holds its steps meanwhile (the plan's time stands still); on every change |
| pub | `joint_targets` | sensor_msgs/JointState | arm swing (L/RShoulderPitch only, `header.frame_id` ``walk_arm_swing``) and moveInit's posture (``walk_move_init``, at 0.3 x each joint's maximum speed), sent by moveInit and by a walk that starts from a posture that is not walk-ready (the initialization movement) |
| pub | `walk/markers` | visualization_msgs/MarkerArray | at most 10 Hz while walking and subscribed, ``odom``: planned ZMP, planned CoM, the planned CoM's path |
| pub | `/diagnostics` | diagnostic_msgs/DiagnosticArray | 1 Hz: cycle time, state, last reason, steps, foot forces, leg stiffness, CoM feedback error; WARN without `joint_states` |
| srv | `walk/move_init` | std_srvs/Trigger | moveInit: walk-ready already, nothing moves and it answers at once; else the walk's posture (StandInit, legs and arms) as `joint_targets`, answered when reached (0.05 rad) or after `move_init_timeout_s` |
| client | `kill_move` | std_srvs/Trigger | the planner's killMove, when a protection stops or refuses a walk |
| param | `move_arms_enabled.LArm`, `.RArm` | bool | setMoveArmsEnabled (true) |
| param | `com_feedback_gain` | double in [0, 1] | fraction of the measured-minus-planned CoM error blended into the generator per cycle (0, the default: open loop in position, the whole-body node's gyro ankle damping being the walk's feedback); read when a walk starts |
| param | `heading_correction_gain` | double in [0, 1] | fraction of the measured heading error (IMU yaw - balancer torso yaw) turned into the executed steps at each lift-off (1.0; 0: open loop); read when a walk starts |
| param | `step_recovery`, `step_recovery_threshold_m`, `step_recovery_max_shift_m` | bool; double in (0, 0.2] m | balance recovery by stepping (``walk.step_recovery``): when the measured DCM (IMU tilt + FK of the measured joints) is off the plan's sideways by more than the threshold (0.035), the steps not yet taken move by the excess as it will be at the next touchdown (grown, or as the error's own course has it), at most max_shift (0.1) per disturbance, each step clipped by NAOqi's clipping, while the swinging foot is in the air, and not for an error toward a stance foot whose ankle holds the DCM; the position correction then takes the walk back onto the plan from where the robot stands (true, the default; see the README); read when a walk starts |
| param | `lift_off_hold`, `lift_off_hold_max_s` | bool; double in (0, 5] | the lift-off check (``walk.lift_off``): a step whose swing could not catch the robot (the measured DCM, against where its foot lands: as planned, or anywhere NAOqi's clipping allows with `step_recovery`) waits while both feet hold it, at most `lift_off_hold_max_s` (1.0) in one double support, then goes on (true); read when a walk starts |
| param | `position_correction_gain` | double in [0, 1] | fraction of the feet's position error (sensed odometry - plan) shifted into the executed steps at each lift-off, at most 1.5 cm per step (0.0, the default: off; see below); read when a walk starts |
| param | `foot_contact_protection`, `foot_contact_min_force_n` | bool, double > 0 | below this total FSR force (N) for 0.05 s the robot is in the air: no walk (true, 10.0) |
| param | `stiffness_protection` | bool | a leg joint's stiffness <= 0.6 stops or refuses the walk (true) |
| param | `user_arm_hold_s`, `stale_timeout_s`, `move_init_timeout_s` | double > 0 | s: 1.0, 0.5, 5.0 |
| param | `nao_version` | string (start-up) | V5 / V6 |

``footstep_plan -> wb_world``: when a walk starts, ``world_from_odom`` (a yaw and a translation;
"odom" in the controller's names is the plan's frame) puts the plan's planted feet onto the feet
where the balancer has them (torso pose and FK), and is kept for the whole walk. While no walk
runs it is re-anchored every cycle (the planner's feet, open loop). The odometry (``odom``) is
sensed and continuous (``walk.leg_odometry``): it starts in the planner's frame and is not moved
by the re-anchoring, so where a walk ended short of its plan it stays short (getRobotPosition(True)
against (False)); the planner reads it to bring a ``goal_pose`` in ``odom`` into its frame.

Heading correction (``nao_motion.walk.heading_correction``): the feet slip in yaw, which the IMU
sees and the balancer's model does not. While walking, the controller executes the plan turned by the
measured heading error at each lift-off (the steps not yet taken, about the support foot), so
the robot ends where the planner planned it (NAOqi's moveTo is odometry based too); the
planner's queue is not changed (it owns it). The generator works in this executed plane;
``walk/zmp`` and ``walk/com`` are brought back into ``odom`` (the plan's frame, then where the
sensed feet were when the walk started). Without a fresh `imu` when a walk starts, that walk runs uncorrected;
with an `imu` that gives no orientation, the yaw is its gyro's, integrated (``walk.imu_yaw``).
With ``position_correction_gain`` > 0 the same correction also shifts the steps not yet taken
by the feet's position error the sensed odometry measures; off by default: on the simulated
robot with 70 % servos, steps made longer than planned made it fall (see README). A step
recovery (``step_recovery``) turns it on at full gain for the rest of that walk.
Bad input never stops the node: a throttled warning, and no walk starts on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import Point, PointStamped, Pose, PoseArray, PoseStamped, Vector3Stamped
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.serialization import deserialize_message
from rclpy.task import Future
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Bool, ColorRGBA, Float32MultiArray, Float64MultiArray, String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import Marker, MarkerArray

from ..collision.reference import YIELDING_TARGETS_FRAME
from ..joint_input import JointInputError, parse_stiffness
from ..model import NaoModel
from ..plausibility import MIN_FSR_FORCE_N, max_fsr_force_n, plausible_fsr
from ..ros.conversions import (
    IMU_ORIENTATION_ERROR,
    pose_matrix_of,
    set_vector_fields,
    stamp_parts,
    stamp_seconds,
    time_msg,
    transform_stamped,
)
from ..ros.cdr import (
    POSE_FLOATS,
    Float32TailReader,
    ImuReader,
    JointStateReader,
    MessageImage,
    StampedFloatsReader,
    after_stamp,
    frame_id_of,
)
from ..ros.footstep_messages import FootstepMessageError, decode_plan
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.node_tools import (
    ClockWatch,
    CycleDiagnostics,
    TfPublisher,
    ValidatedParameters,
    declare_thread_priority,
    merge_joint_state,
    run_node,
    throttled_warning,
)
from ..ros.qos import CYCLE_QOS, LATCHED_QOS, LATEST_QOS
from ..ros.sampled import CycleInputs, SampledSubscription
from ..spatial import quaternion_xyzw_from_rotation
from ..walk import ARM_SWING_JOINTS
from ..walk.controller import (
    ARMS,
    MOVE_INIT_TOLERANCE_RAD,
    WALK_POSTURE,
    PlanError,
    WalkController,
    WalkControllerConfig,
    WalkInputs,
    WalkOutputs,
    WalkState,
    walk_plan,
)

WORLD_FRAME = "wb_world"
ODOM_FRAME = "odom"
FOOTPRINT_FRAME = "base_footprint"
OWN_FRAME_PREFIX = "walk_"  # header.frame_id of this node's own joint_targets
MOVE_INIT_FRAME = "walk_move_init"
ACTIVE_PERIOD_S = 1.0
# The support changes a few times a step; sent every cycle it cost a message a cycle. Resent at
# this period all the same, for a whole body that (re)started mid-walk.
SUPPORT_PERIOD_S = 0.5
MARKER_PERIOD_S = 0.1
WATCHDOG_PERIOD_S = 0.5  # how often the absence of joint_states is checked (diagnostics only)
# The odometry's numbers, in the order of the values MessageImage takes (13 floats).
ODOMETRY_FIELDS = ["pose.pose.position", "pose.pose.orientation", "twist.twist.linear", "twist.twist.angular"]
TRAIL_POINTS = 300  # planned CoM path shown: the last 3 s at 100 Hz
# The parameters are WalkControllerConfig's fields (same defaults), named as NAOqi's arms.
ARM_PARAMETERS = {"move_arms_enabled_larm": "move_arms_enabled.LArm",
                  "move_arms_enabled_rarm": "move_arms_enabled.RArm"}
PARAMETER_FIELDS = {ARM_PARAMETERS.get(f.name, f.name): f.name for f in fields(WalkControllerConfig)}
_DEFAULTS = WalkControllerConfig()


def _spec(field: str, description: str, **limits) -> ParameterSpec:
    return ParameterSpec(getattr(_DEFAULTS, field), description, **limits)


_POSITIVE_S = dict(minimum=0.0, maximum=60.0, exclusive_minimum=True)
PARAMETER_SPECS = {
    "move_arms_enabled.LArm": _spec("move_arms_enabled_larm", "setMoveArmsEnabled: the left arm swings while "
                                                              "walking"),
    "move_arms_enabled.RArm": _spec("move_arms_enabled_rarm", "setMoveArmsEnabled: the right arm swings while "
                                                              "walking"),
    "com_feedback_gain": _spec("com_feedback_gain", "measured CoM blended into the walk per cycle (0: open loop); "
                                                    "read when a walk starts", minimum=0.0, maximum=1.0),
    "heading_correction_gain": _spec("heading_correction_gain", "fraction of the heading error the IMU measures "
                                     "(against the balancer's torso) turned into the executed steps at each "
                                     "lift-off (0: open loop); read when a walk starts", minimum=0.0, maximum=1.0),
    "position_correction_gain": _spec("position_correction_gain", "fraction of the feet's position error the "
                                      "sensed odometry measures (against the plan) shifted into the executed "
                                      "steps at each lift-off (0, the default: off); read when a walk starts",
                                      minimum=0.0, maximum=1.0),
    "step_recovery": _spec("step_recovery", "balance recovery by stepping: a measured DCM off the plan's sideways "
                                            "beyond step_recovery_threshold_m moves the next footholds (on by "
                                            "default); read when a walk starts"),
    "step_recovery_threshold_m": _spec("step_recovery_threshold_m", "lateral DCM error (m, measured - planned) "
                                       "the support absorbs without a step adjustment; read when a walk starts",
                                       minimum=0.0, maximum=0.2, exclusive_minimum=True),
    "step_recovery_max_shift_m": _spec("step_recovery_max_shift_m", "the footholds move at most this far (m) for "
                                       "one disturbance (each step still clipped by NAOqi's clipping); read when "
                                       "a walk starts", minimum=0.0, maximum=0.2, exclusive_minimum=True),
    "lift_off_hold": _spec("lift_off_hold", "a step whose swing could not catch the robot (the measured DCM) waits "
                                            "while both feet hold it; read when a walk starts"),
    "lift_off_hold_max_s": _spec("lift_off_hold_max_s", "a lift-off waits at most this long (s) in one double "
                                 "support, then the step goes on; read when a walk starts", minimum=0.0, maximum=5.0,
                                 exclusive_minimum=True),
    "foot_contact_protection": _spec("foot_contact_protection", "no walk while the feet's total FSR force is below "
                                                                "foot_contact_min_force_n"),
    "foot_contact_min_force_n": _spec("foot_contact_min_force_n", "total FSR force (N) below which the robot is in "
                                                                  "the air", minimum=0.0, maximum=100.0,
                                      exclusive_minimum=True),
    "stiffness_protection": _spec("stiffness_protection", "no walk while a leg joint's stiffness is <= 0.6"),
    "user_arm_hold_s": _spec("user_arm_hold_s", "an arm commanded by the user swings again this long (s) after "
                                                "the command", **_POSITIVE_S),
    "stale_timeout_s": _spec("stale_timeout_s", "joint_states / torso pose / FSR older than this (s) are not used",
                             **_POSITIVE_S),
    "move_init_timeout_s": _spec("move_init_timeout_s", "walk/move_init and the initialization movement give up "
                                                        "after this long (s)", **_POSITIVE_S),
}


def config_of(values: dict) -> WalkControllerConfig:
    return WalkControllerConfig(**{field: values[name] for name, field in PARAMETER_FIELDS.items()})


@dataclass
class MoveInitWait:
    requested_s: float  # only joint_states stamped after it count
    deadline_s: float
    reached: Future  # set by the cycle: True when the posture is reached, False at the deadline


class WalkNode(Node):
    def __init__(self, **kwargs):
        super().__init__("walk", **kwargs)
        declare_thread_priority(self)
        version = declare_startup(self, {"nao_version": NAO_VERSION})["nao_version"]
        self.model = NaoModel(version)
        self.controller = WalkController(self.model)
        self.inputs = WalkInputs.for_model(self.model)
        self.max_fsr_force_n = max_fsr_force_n(self.model)
        self.bad_plans = 0
        self.kill_future = None
        self.move_init: MoveInitWait | None = None
        self.clock_watch = ClockWatch(self, "the walk and its dated inputs start afresh")
        self.last_states_s = -math.inf  # node clock, for the watchdog
        self.params = ValidatedParameters(self, PARAMETER_SPECS, self._validate, self._apply)

        self.com_reference_pub = self.create_publisher(PointStamped, "whole_body/com_reference", CYCLE_QOS)
        self.foot_references_pub = self.create_publisher(PoseArray, "whole_body/foot_references", CYCLE_QOS)
        self.support_pub = self.create_publisher(String, "whole_body/support", CYCLE_QOS)
        self.torso_reference_pub = self.create_publisher(Vector3Stamped, "whole_body/torso_reference", CYCLE_QOS)
        self.zmp_pub = self.create_publisher(PointStamped, "walk/zmp", CYCLE_QOS)
        self.com_pub = self.create_publisher(PointStamped, "walk/com", CYCLE_QOS)
        self.com_measured_pub = self.create_publisher(PointStamped, "walk/com_measured", CYCLE_QOS)
        self.odom_pub = self.create_publisher(Odometry, "odom", 10)
        self.active_pub = self.create_publisher(Bool, "walk/active", LATCHED_QOS)
        self.hold_start_pub = self.create_publisher(Bool, "walk/hold_start", LATCHED_QOS)
        self.hold_step_pub = self.create_publisher(Bool, "walk/hold_step", LATCHED_QOS)
        self.targets_pub = self.create_publisher(JointState, "joint_targets", CYCLE_QOS)
        self.marker_pub = self.create_publisher(MarkerArray, "walk/markers", 10)
        self.tf = TfPublisher(self)
        self.create_subscription(Float64MultiArray, "footsteps/plan", self.on_plan, LATCHED_QOS)
        self.create_subscription(JointState, "joint_states", self.on_joint_states, LATEST_QOS, raw=True)
        self.states_reader, self.commands_reader = JointStateReader(self.model), JointStateReader(self.model)
        self.torso_sub = SampledSubscription(self, PoseStamped, "whole_body/torso_pose", raw=True)
        self.torso_reader, self.imu_reader = StampedFloatsReader(POSE_FLOATS), ImuReader()
        self.torso_values: list[float] | None = None  # the pose in inputs.torso_world, as received
        self.commands_tail = b""  # the bytes after the stamp of the command in inputs.q_commanded
        self.commands_sub = SampledSubscription(self, JointState, "joint_commands", raw=True)
        self.imu_sub = SampledSubscription(self, Imu, "imu", raw=True)
        self.fsr_subs = [SampledSubscription(self, Float32MultiArray, f"fsr/{side}", raw=True) for side in ("left", "right")]
        self.fsr_reader = Float32TailReader(4)
        self.create_subscription(JointState, "joint_stiffness", self.on_stiffness, CYCLE_QOS)
        self.create_subscription(Bool, "robot_has_fallen", self.on_robot_has_fallen, LATCHED_QOS)
        # Read at the cycle (``CycleInputs``): its own arm swing comes back every cycle while walking.
        self.cycle_inputs = CycleInputs(self)
        self.cycle_inputs.add(JointState, "joint_targets", self.on_user_targets, raw=True)
        self.cycle_inputs.add(JointTrajectory, "joint_trajectory", self.on_user_trajectory)
        self.kill_client = self.create_client(Trigger, "kill_move")
        # A coroutine awaiting the cycles, in a group of its own so that they go on meanwhile.
        self.create_service(Trigger, "walk/move_init", self.on_move_init,
                            callback_group=MutuallyExclusiveCallbackGroup())

        # Prepared once; each cycle only fills the numbers in.
        com_reference = PointStamped()
        com_reference.header.frame_id = WORLD_FRAME
        self.com_reference_image = MessageImage(com_reference, ["point"], ["header.stamp"])
        feet = PoseArray(poses=[Pose(), Pose()])
        feet.header.frame_id = WORLD_FRAME
        self.foot_references_image = MessageImage(
            feet, [f"poses[{i}].{field}" for i in (0, 1) for field in ("position", "orientation")], ["header.stamp"])
        self.foot_values = np.zeros((2, 7))
        self.support_msg, self.support_sent_s = String(), -math.inf
        self.torso_reference_msg = Vector3Stamped()
        self.torso_reference_msg.header.frame_id = WORLD_FRAME
        self.zmp_msg, self.com_msg, self.com_measured_msg = PointStamped(), PointStamped(), PointStamped()
        for msg in (self.zmp_msg, self.com_msg, self.com_measured_msg):
            msg.header.frame_id = ODOM_FRAME
        odom = Odometry()
        odom.header.frame_id, odom.child_frame_id = ODOM_FRAME, FOOTPRINT_FRAME
        self.odom_image = MessageImage(odom, ODOMETRY_FIELDS, ["header.stamp"])
        self.odom_values = np.zeros(self.odom_image.float_count)
        self.odom_tf_image = self.tf.image(
            [transform_stamped(ODOM_FRAME, FOOTPRINT_FRAME, np.eye(4), self.get_clock().now().to_msg())])
        c = self.controller
        self.init_msg = JointState(name=[self.model.joint_names[i] for i in c.init_indices],
                                   position=c.init_q[c.init_indices].tolist(),
                                   velocity=c.init_speeds_radps[c.init_indices].tolist())
        self.init_msg.header.frame_id = MOVE_INIT_FRAME
        speed = c.walk_config.arms.max_rate_radps
        # Per set of arms swinging: its joint_targets (positions refilled each cycle) and the
        # arms' indices into the controller's arm_swing_rad.
        self.arm_images = {}
        for arms in ((0, 1), (0,), (1,)):
            msg = JointState(name=[ARM_SWING_JOINTS[i] for i in arms], position=[0.0] * len(arms),
                             velocity=[speed] * len(arms))
            msg.header.frame_id = YIELDING_TARGETS_FRAME  # the filter leaves a user's motion alone
            self.arm_images[arms] = (MessageImage(msg, ["position"], ["header.stamp"]), np.array(arms))
        self.sent_arm_swing = b""  # the bytes of the last arm swing sent (it comes back on joint_targets)
        self.markers, self.trail = self._make_markers(), []
        self.last_markers_s = -math.inf
        self.active_msg = Bool(data=False)
        self.last_active_s = -math.inf
        self.hold_start_msg, self.hold_step_msg = Bool(data=False), Bool(data=False)

        self.last_out: WalkOutputs | None = None  # of the latest cycle, for the diagnostics
        self.diagnostics = CycleDiagnostics(self, "walk", self.model.cycle_time_s, self._diagnose,
                                            holding="no walk cycle on it, the last references stand")
        self.diagnostics.set_status(DiagnosticStatus.WARN, "waiting for joint_states")
        self.create_timer(WATCHDOG_PERIOD_S, self.on_watchdog)
        self._publish_active(-math.inf)  # latched: moveIsActive is answered before the first cycle
        self.hold_start_pub.publish(self.hold_start_msg)
        self.hold_step_pub.publish(self.hold_step_msg)
        self.get_logger().info(f"walk for NAO {version}: CoM height {c.walk_config.com_height_m:.4f} m "
                               f"({WALK_POSTURE}), preview {c.walk_config.preview.preview_s} s, cycle on "
                               f"joint_states")

    # --- parameters -------------------------------------------------------------------------
    @staticmethod
    def _validate(values: dict) -> str | None:
        return config_of(values).validate()

    def _apply(self, values: dict) -> None:
        self.controller.configure(config_of(values))

    # --- inputs -------------------------------------------------------------------------------
    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def on_plan(self, msg: Float64MultiArray) -> None:
        try:
            plan = decode_plan(msg)
            self.inputs.plan = walk_plan(plan.time_s, plan.left, plan.right, plan.steps)
        except (FootstepMessageError, PlanError) as err:
            self.bad_plans += 1
            throttled_warning(self, "plan", f"footsteps/plan ignored, the last plan is kept: {err}")

    def _read_sampled(self, now_s: float) -> None:
        """The newest torso pose, whole-body command, IMU and FSRs, dated by this cycle."""
        inputs = self.inputs
        data = self.torso_sub.take_latest()
        if data is not None:
            try:
                frame, _, values = self.torso_reader.read(data)
                values = values.tolist()
                if frame not in ("", WORLD_FRAME):
                    torso = None
                elif values == self.torso_values:  # standing, the whole body's torso stays put
                    torso = inputs.torso_world
                else:
                    torso = pose_matrix_of(values)
            except ValueError:
                torso = None
            if torso is None:
                throttled_warning(self, "torso_pose", "whole_body/torso_pose ignored: frame must be "
                                                      f"{WORLD_FRAME!r}, position and orientation finite")
            else:
                if torso is not inputs.torso_world:
                    inputs.torso_world[:], self.torso_values = torso, values
                inputs.torso_s = now_s
        # A walk under way does not read the whole body's command (``reads_command``): it is not
        # even taken, DDS keeps the newest (depth 1) until the walk next reads it. Standing, the
        # whole body commands the same joints cycle after cycle: only the stamp (which the walk
        # does not use) changes, and the same command is not decoded again.
        data = self.commands_sub.take_latest() if self.controller.reads_command else None
        if data is not None and (tail := after_stamp(data)) != self.commands_tail and merge_joint_state(
                self, "joint_commands", self.commands_reader, data, inputs.q_commanded,
                inputs.commanded_received, self.diagnostics) is not None:
            self.commands_tail = tail
        data = self.imu_sub.take_latest()
        if data is not None:
            attitude, gyro = self.imu_reader.read(data)
            if attitude is None:
                if not self.imu_reader.no_orientation:
                    self._refuse_sensor("imu", IMU_ORIENTATION_ERROR)
            else:
                inputs.imu_attitude[:], inputs.imu_s = attitude, now_s
            if gyro is not None:
                inputs.gyro_rad_s[:], inputs.gyro_s = gyro, now_s
        for i, sub in enumerate(self.fsr_subs):
            data = sub.take_latest()
            if data is None:
                continue
            try:
                forces = self.fsr_reader.read(data).tolist()  # four floats: Python's arithmetic is cheaper
            except ValueError:
                forces = None
            if forces is None or not plausible_fsr(forces, self.max_fsr_force_n):
                self._refuse_sensor(sub.topic, f"expected 4 forces (N) in [{MIN_FSR_FORCE_N:g}, "
                                               f"{self.max_fsr_force_n:.0f}]")
                continue
            inputs.fsr_total_n[i], inputs.fsr_s[i] = forces[0] + forces[1] + forces[2] + forces[3], now_s

    def _refuse_sensor(self, topic: str, reason: str) -> None:
        throttled_warning(self, topic, f"{topic} ignored: {reason}")
        self.diagnostics.refused(topic, reason)

    def on_robot_has_fallen(self, msg: Bool) -> None:
        self.inputs.fallen = msg.data

    def on_stiffness(self, msg: JointState) -> None:
        try:
            parsed = parse_stiffness(self.model, msg.name, msg.effort, unknown_names="ignore")
        except JointInputError as err:
            throttled_warning(self, "joint_stiffness", f"joint_stiffness ignored: {err}")
            return
        self.inputs.stiffness[parsed.indices] = parsed.values

    def on_user_targets(self, data: bytes) -> None:
        """An arm target from the user: that arm is theirs while it moves there, then for the hold.
        This node's own (its arm swing, every cycle while walking) are told from the serialized
        bytes, not taken as a message: the arm swing it sent last by the bytes themselves (one
        comparison), others by their frame_id."""
        if data == self.sent_arm_swing:
            return
        try:
            if frame_id_of(data).startswith(OWN_FRAME_PREFIX):
                return
        except ValueError:  # not the little-endian CDR read in place: the message itself tells
            pass
        msg = deserialize_message(data, JointState)
        if msg.header.frame_id.startswith(OWN_FRAME_PREFIX):
            return
        duration_s = self.controller.target_duration_s(msg.name, msg.position, msg.velocity, self.inputs.q_measured)
        self.controller.user_arm_command(msg.name, duration_s, self._now_s())

    def on_user_trajectory(self, msg: JointTrajectory) -> None:
        if msg.header.frame_id.startswith(OWN_FRAME_PREFIX):
            return
        duration_s = 0.0
        if msg.points:
            t = msg.points[-1].time_from_start
            duration_s = t.sec + t.nanosec * 1e-9
        self.controller.user_arm_command(msg.joint_names, duration_s, self._now_s())

    # --- moveInit -----------------------------------------------------------------------------
    async def on_move_init(self, request: Trigger.Request, response: Trigger.Response):
        inputs, config = self.inputs, self.controller.config
        timeout_s = config.move_init_timeout_s
        if not np.all(inputs.q_received[self.controller.required]) or \
                self._now_s() - self.last_states_s > config.stale_timeout_s:
            response.success, response.message = False, "no fresh joint_states: the posture cannot be checked"
            return response
        if self.controller.state is not WalkState.IDLE:
            response.success, response.message = False, "walking: moveInit is for before the walk"
            return response
        if self.move_init is None and self.controller.measured_walk_ready(inputs):
            # As the walk's own initialization: nothing to move. StandInit's legs with the feet
            # planted elsewhere (the last walk's stance) would drag them.
            response.success, response.message = True, "walk-ready already: nothing to move"
            self.get_logger().info(f"moveInit: {response.message}")
            return response
        wait = self.move_init
        if wait is None or wait.reached.done():
            self.init_msg.header.stamp = self.get_clock().now().to_msg()
            self.targets_pub.publish(self.init_msg)
            # Decided by the cycles, on the joint_states' clock: from the latest stamp on.
            now_s = inputs.states_s
            wait = self.move_init = MoveInitWait(now_s, now_s + timeout_s, Future())
        # else a moveInit is under way (a client calling again and again): this call gets its answer
        response.success = bool(await wait.reached)
        if self.move_init is wait:
            self.move_init = None
        response.message = (f"{WALK_POSTURE} reached" if response.success
                            else f"{WALK_POSTURE} not reached within {timeout_s} s")
        self.get_logger().info(f"moveInit: {response.message}")
        return response

    def _check_move_init(self, now_s: float) -> None:
        wait = self.move_init
        if wait is None or wait.reached.done() or now_s <= wait.requested_s:
            return
        error_rad = self.controller.move_init_error_rad(self.inputs.q_measured)
        if error_rad <= MOVE_INIT_TOLERANCE_RAD or now_s >= wait.deadline_s:
            wait.reached.set_result(bool(error_rad <= MOVE_INIT_TOLERANCE_RAD))

    # --- cycle --------------------------------------------------------------------------------
    def on_joint_states(self, data: bytes) -> None:
        """One motion cycle at the message's stamp."""
        start = self.diagnostics.start()
        inputs = self.inputs
        stamp = merge_joint_state(self, "joint_states", self.states_reader, data, inputs.q_measured,
                                  inputs.q_received, self.diagnostics)
        if stamp is None:
            return
        now_s = stamp_seconds(stamp)
        if now_s <= 0.0:  # an unstamped driver: the node's clock
            stamp = self.get_clock().now().to_msg()
            now_s = stamp_seconds(stamp)
        self.last_states_s = self._now_s()
        if self.clock_watch.went_back(now_s):
            inputs = self._restart_clock()
        inputs.time_s, inputs.states_s = self.controller.reference_time_s(now_s), now_s
        self.cycle_inputs.serve()
        self._read_sampled(now_s)
        out = self.controller.cycle(inputs)
        self._act(out, stamp)
        self._check_move_init(now_s)
        self.diagnostics.record(start)
        self.last_out = out

    def _restart_clock(self) -> WalkInputs:
        """The clock went back: the walk (its plan, steps and generator are timed on the old clock)
        and every dated input start afresh, as at start-up; the joints measured, the commands and
        the stiffness are kept. The planner, seeing the same jump, sends a new plan."""
        old = self.inputs
        self.controller = WalkController(self.model, self.controller.config)
        self.inputs = inputs = WalkInputs.for_model(self.model)
        self.torso_values = None  # (the command is kept, and with it its bytes)
        for name in ("q_measured", "q_received", "q_commanded", "commanded_received", "stiffness"):
            getattr(inputs, name)[:] = getattr(old, name)
        self.last_active_s = self.last_markers_s = self.support_sent_s = -math.inf
        self.trail.clear()
        if self.move_init is not None and not self.move_init.reached.done():
            self.move_init.reached.set_result(False)
        return inputs

    def _act(self, out: WalkOutputs, stamp) -> None:
        for key, text in out.warnings:
            throttled_warning(self, key, text, 1.0)
        if out.kill_move:
            self._kill_move()
        if out.move_init:
            self.init_msg.header.stamp = stamp
            self.targets_pub.publish(self.init_msg)
            self.get_logger().info(f"initialization movement: {out.reason}")
        if out.state.holds_start != self.hold_start_msg.data:
            self.hold_start_msg.data = out.state.holds_start
            self.hold_start_pub.publish(self.hold_start_msg)
        if out.hold_step != self.hold_step_msg.data:
            self.hold_step_msg.data = out.hold_step
            self.hold_step_pub.publish(self.hold_step_msg)
            self.get_logger().info(f"walk/hold_step {out.hold_step}: {out.reason}")
        if out.started:
            self.trail.clear()
            self.support_sent_s = -math.inf  # a walk's first reference carries its support
            c = self.controller
            self.get_logger().info("walk started" + (
                " without heading correction (no fresh IMU)" if not c.heading_corrected else
                " with the heading from the integrated gyro (the imu gives no orientation)" if c.heading_from_gyro
                else ""))
        if out.ended:
            self.get_logger().info(f"walk ended: {out.reason}")
        if out.reference is not None:
            self._publish_references(out)
        if out.arm_swing_arms:
            image, indices = self.arm_images[out.arm_swing_arms]
            image.set_floats(out.arm_swing_rad[indices])
            image.set_stamp(stamp.sec, stamp.nanosec)
            self.sent_arm_swing = image.publish(self.targets_pub)
        if out.odometry is not None:
            self._publish_odometry(out, stamp)
        if out.active_changed or out.time_s - self.last_active_s >= ACTIVE_PERIOD_S:
            self._publish_active(out.time_s)

    def _kill_move(self) -> None:
        """killMove on the planner, once at a time."""
        if self.kill_future is not None and not self.kill_future.done():
            return
        if self.kill_client.service_is_ready():
            self.kill_future = self.kill_client.call_async(Trigger.Request())
        else:
            throttled_warning(self, "kill_move", "the planner's kill_move service is not available")

    def on_watchdog(self) -> None:
        silent_s = self._now_s() - self.last_states_s
        if silent_s > self.controller.config.stale_timeout_s:
            since = "never received" if math.isinf(silent_s) else f"none for {silent_s:.1f} s"
            self.diagnostics.set_status(DiagnosticStatus.WARN, f"no joint_states ({since}): no walk cycle")
            if self.move_init is not None and not self.move_init.reached.done():
                self.move_init.reached.set_result(False)  # nothing to check the posture with

    # --- outputs ------------------------------------------------------------------------------
    def _publish_references(self, out: WalkOutputs) -> None:
        """The references, the planned ZMP and CoM: stamped with the cycle they are for."""
        sec, nanosec = stamp_parts(out.time_s)
        ref = out.reference
        self.com_reference_image.set_floats(ref.com_world_m)
        self.com_reference_image.set_stamp(sec, nanosec)
        for values, sole in zip(self.foot_values, (ref.left_sole_world, ref.right_sole_world)):
            values[:3] = sole[:3, 3]
            values[3:] = quaternion_xyzw_from_rotation(sole[:3, :3])
        self.foot_references_image.set_floats(self.foot_values.ravel())
        self.foot_references_image.set_stamp(sec, nanosec)
        # The support first: the whole-body node runs its cycle once the COM and the feet of this
        # cycle (same stamp) have arrived, with the support it has then.
        if ref.support != self.support_msg.data or out.time_s - self.support_sent_s >= SUPPORT_PERIOD_S:
            self.support_msg.data, self.support_sent_s = ref.support, out.time_s
            self.support_pub.publish(self.support_msg)
        # The messages below are filled only when sent: most cycles send none of them.
        stamp = None
        if ref.torso_tilt_rad != (0.0, 0.0):  # upright is the whole body's default: nothing to send
            stamp = time_msg(out.time_s)
            self.torso_reference_msg.header.stamp = stamp
            self.torso_reference_msg.vector.x, self.torso_reference_msg.vector.y = ref.torso_tilt_rad
            self.torso_reference_pub.publish(self.torso_reference_msg)
        self.com_reference_image.publish(self.com_reference_pub)
        self.foot_references_image.publish(self.foot_references_pub)
        # Plotting topics: only for a listener (the controller maps their points when read).
        for publisher, msg, point in ((self.zmp_pub, self.zmp_msg, "zmp_odom_m"),
                                      (self.com_pub, self.com_msg, "com_planned_odom_m")):
            if publisher.get_subscription_count() > 0:
                msg.header.stamp = stamp = stamp or time_msg(out.time_s)
                set_vector_fields(msg.point, getattr(out, point))
                publisher.publish(msg)
        if self.marker_pub.get_subscription_count() == 0:
            self.trail.clear()
            return
        stamp = stamp or time_msg(out.time_s)
        com = out.com_planned_odom_m
        self.trail.append(Point(x=float(com[0]), y=float(com[1]), z=float(com[2])))
        del self.trail[:-TRAIL_POINTS]
        if out.time_s - self.last_markers_s >= MARKER_PERIOD_S:
            self.last_markers_s = out.time_s
            zmp_marker, com_marker, path = self.markers.markers
            zmp_marker.pose.position.x, zmp_marker.pose.position.y = float(out.zmp_odom_m[0]), float(out.zmp_odom_m[1])
            com_marker.pose.position = self.trail[-1]
            path.points = list(self.trail)
            for m in self.markers.markers:
                m.header.stamp = stamp
            self.marker_pub.publish(self.markers)

    def _publish_odometry(self, out: WalkOutputs, stamp) -> None:
        pose, v = out.odometry, self.odom_values
        # ODOMETRY_FIELDS: position, orientation (a yaw), linear then angular velocity
        v[0], v[1], v[5], v[6] = pose.x, pose.y, math.sin(0.5 * pose.theta), math.cos(0.5 * pose.theta)
        v[7], v[8], v[12] = out.twist[0], out.twist[1], out.twist[2]
        self.odom_image.set_floats(v)
        self.odom_image.set_stamp(stamp.sec, stamp.nanosec)
        self.odom_image.publish(self.odom_pub)
        tf = self.odom_tf_image
        tf.values[0, :] = v[:7]
        tf.set_stamp(stamp)
        self.tf.send(tf)
        if self.com_measured_pub.get_subscription_count() > 0:  # a plotting topic: only for a listener
            self.com_measured_msg.header.stamp = stamp
            set_vector_fields(self.com_measured_msg.point, out.com_measured_odom_m)
            self.com_measured_pub.publish(self.com_measured_msg)

    def _publish_active(self, now_s: float) -> None:
        self.active_msg.data = self.controller.state is not WalkState.IDLE
        self.active_pub.publish(self.active_msg)
        self.last_active_s = now_s

    def _diagnose(self) -> None:
        """The latest cycle's figures and status, if a cycle ran since the last publication (else
        the watchdog's status stands)."""
        out, self.last_out = self.last_out, None
        if out is None:
            return
        c, inputs = self.controller, self.inputs
        values = self.diagnostics.values
        values.update({
            "state": out.state.value, "last_reason": out.reason, "steps": out.steps,
            "fsr_total_n": f"{inputs.fsr_total_n[0] + inputs.fsr_total_n[1]:.1f}",
            "min_leg_stiffness": f"{float(np.min(inputs.stiffness[c.leg_indices])):.2f}",
            "ignored_plans": self.bad_plans,
            "arms_swinging": ",".join(a for i, a in enumerate(ARMS) if c.arm_swinging(i, out.time_s)) or "none",
        })
        if c.generator is not None:
            values["com_feedback_error_m"] = np.array2string(c.generator.com_feedback.error_m, precision=4)
        if out.blocked:
            self.diagnostics.set_status(DiagnosticStatus.WARN, out.blocked)
        elif not out.measured:
            self.diagnostics.set_status(DiagnosticStatus.WARN, "no fresh joint_states and whole_body/torso_pose")
        else:
            self.diagnostics.set_status(DiagnosticStatus.OK, f"{out.state.value}: {out.reason}")

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
