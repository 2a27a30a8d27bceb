"""Whole-body node: NAOqi's Whole Body Balancer between the collision filter and the robot.

Decode -> one core cycle -> publish, over :class:`nao_motion.wholebody.cycle.WholeBodyCycle`
(the balancer, then the walk's ankle damping; ``nao_motion.sim.walking`` runs the same object).
The cycle is driven by the robot's own sensor message: each ``joint_states`` runs one cycle at
once, and everything published in it carries that stamp (the node's clock if unstamped).
Walking, the walk node sends each cycle's COM and foot references one cycle ahead, stamped with
the cycle they are for; the cycle at t uses the references stamped t, or the newest older ones
if those are late (``nao_motion.wholebody.reference_queue``; counted in the diagnostics as
``late_references``). So the robot's command never waits for a second node. ``imu`` is sampled (its newest message
when the cycle runs, ``nao_motion.ros.sampled``). Without ``joint_states`` nothing is commanded;
the diagnostics say so (checked every 0.5 s). Disabled and not walking, it passes the wish
through (within the joint limits, no faster than the speed limit; a joint a walk left away
from a wish that holds goes back at 0.5 rad/s). ``wb_world`` is the balancer's world frame: z up, on the floor, fixed where the QP
started (FRAME_ROBOT then); while the QP is off it follows FRAME_ROBOT.

| kind | name | type | meaning |
|---|---|---|---|
| sub | `collision_filter/safe_joint_commands` | sensor_msgs/JointState | the articular wish: `position` per named joint, rad (the collision filter's output; partial messages keep the other joints' last wish). Standalone, remap it to any per-cycle command stream. Malformed (unknown/duplicate names, NaN, lengths) is refused whole with the reason. |
| sub | `joint_states` | sensor_msgs/JointState | measured positions, and the cycle's trigger and stamp: nothing is commanded before every kinematic joint was measured once; the first command is the measured pose; while balancing the command stays within 0.1 rad of the measured pose (a blocked or limp joint is worked from where it is), and wbEnable starts from the measured pose if the command is farther |
| sub | `imu` | sensor_msgs/Imu | sampled each cycle; torso attitude: the vertical of `wb_world` when the QP starts (`use_imu`), and the model-vs-IMU tilt in the diagnostics; angular velocity: the walk's ankle damping (also from an IMU without orientation, `orientation_covariance[0]` = -1, as nao_lola's) |
| sub | `whole_body/effector/Head` | geometry_msgs/Vector3Stamped | wbSetEffectorControl("Head"): orientation (wx, wy, wz) rad, FRAME_ROBOT (`frame_id` "" or "FRAME_ROBOT") |
| sub | `whole_body/effector/LArm`, `.../RArm` | geometry_msgs/PointStamped | wbSetEffectorControl("LArm"/"RArm"): position (x, y, z) m, FRAME_ROBOT. Unreachable targets end at the nearest feasible pose (the QP's compromise) |
| sub | `whole_body/com_reference` | geometry_msgs/PointStamped | walk: centre-of-mass position this cycle, m, frame `wb_world` ("" accepted), stamped like the `joint_states` of its cycle |
| sub | `whole_body/foot_references` | geometry_msgs/PoseArray | walk: [left sole, right sole] poses this cycle, frame `wb_world`, stamped like the `joint_states` of its cycle |
| sub | `whole_body/support` | std_msgs/String | walk: "Legs" (both feet held), "LLeg" or "RLeg" (that foot held, the other follows its reference); default "Legs" |
| sub | `whole_body/torso_reference` | geometry_msgs/Vector3Stamped | walk (optional: upright without it): the torso's tilt this cycle, x = TorsoWx, y = TorsoWy, rad, about the feet's mean heading in `wb_world` ("" accepted), within the gait table's +-7 deg; stamped like `whole_body/com_reference` |
| sub | `obstacles` | visualization_msgs/MarkerArray | obstacles outside the body as rviz markers (SPHERE, CYLINDER; ns + id; DELETE, DELETEALL; any TF frame; `lifetime`; `nao_motion.ros.obstacle_input`): while the QP runs, every arm and leg keeps `obstacle_margin_m` (BalancerConfig, 5 mm) from them, and passing through the legs do (``wholebody.leg_clearance``); an effector target behind one ends at the closest feasible point |
| pub | `joint_commands` | sensor_msgs/JointState | all 26 joints, rad, every cycle once every kinematic joint was measured |
| pub | `whole_body/torso_pose` | geometry_msgs/PoseStamped | the torso's pose in `wb_world` (the walk's references are in this frame) |
| pub | `whole_body/markers` | visualization_msgs/MarkerArray | at most 10 Hz while subscribed, frame `torso`: centre of mass and its floor projection, support polygon (balance constraint's, else grounded feet's), margin polygon, margin text |
| pub | `robot_has_fallen` | std_msgs/Bool | latched, on change: NAOqi's robotHasFallen, from the IMU's vertical (its orientation, else its accelerometer) and the measured centre of mass against the soles (``wholebody.fall_detector``). While down the balancer is disabled (the wish passes through: joint motions, getting up, rest()), the walk's references are ignored, and wbEnable, wbGoToBalance and effector control are refused with the reason; the diagnostics turn ERROR |
| pub | `/diagnostics` | diagnostic_msgs/DiagnosticArray | 1 Hz: cycle time, mode, outcome and reason, iterations, COM margin, feet, balance, effectors, IMU tilt error |
| srv | `whole_body/enable` | std_srvs/SetBool | wbEnable(true/false); disabling also ends effector control |
| srv | `whole_body/go_to_balance/Legs`, `/LLeg`, `/RLeg` | std_srvs/Trigger | wbGoToBalance(supportLeg, `go_to_balance_duration_s`): COM over that support's centre, then held |
| param | `left_foot_state`, `right_foot_state` | string | wbFootState: "Fixed", "Plane" or "Free" (default Fixed). Set both atomically for "Legs" |
| param | `balance_constraint`, `balance_support` | bool, string | wbEnableBalanceConstraint(isEnable, "Legs"/"LLeg"/"RLeg"); refused combinations and a COM outside the new polygon return the reason (the latter starting "balance constraint not activated", NAOqi's wording) |
| param | `effector_control.Head`, `.LArm`, `.RArm` | bool | wbEnableEffectorControl: enabling enables the balancer and keeps balance on Legs |
| param | `margin_m` | double | COM distance kept from the polygon's edges (0.01 m) |
| param | `go_to_balance_duration_s` | double | duration of the go_to_balance services (2.0 s) |
| param | `use_imu`, `reference_timeout_s`, `stale_timeout_s` | bool, double, double | IMU vertical (true); walk references this much older (s) than the latest `joint_states` end the walk (0.1 s); no joint_states for this long warns (0.5 s) |
| param | `walk_ankle_damping_s` | double | walking: the supporting ankles turn this many rad per rad/s of the IMU's roll/pitch rate (0.05; 0 = open loop; `nao_motion.walk.stabilizer`) |
| param | `nao_version`, `max_velocity_fraction` | string, double | start-up: V5/V6; joint speed limit as a fraction of each motor's (0.5) |

Every parameter change is validated as a whole (``set_parameters_atomically`` for several) and
refused with the reason; a refused change, service call or message leaves the command stream
as it was: the robot keeps its last balanced command.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import Point, PointStamped, PoseArray, PoseStamped, Vector3Stamped
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Bool, ColorRGBA, String
from std_srvs.srv import SetBool, Trigger
from visualization_msgs.msg import Marker, MarkerArray

from ..footsteps.gait_config import GAIT_PARAMETERS
from ..joint_input import MAX_COMMAND_POSITION_RAD, JointInputError
from ..model import NaoModel
from ..ros.conversions import (
    IMU_ANGULAR_VELOCITY_ERROR,
    IMU_ORIENTATION_ERROR,
    LastPoseMatrix,
    stamp_seconds,
)
from ..ros.answer_latency import AnswerLatency
from ..ros.cdr import ImuReader, JointStateReader, MessageImage, StampedFloatsReader, StampedPosesReader
from ..ros.obstacle_input import ObstacleInput
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.node_tools import (
    ClockWatch,
    CycleDiagnostics,
    ValidatedParameters,
    declare_thread_priority,
    merge_joint_state,
    run_node,
    throttled_warning,
)
from ..ros.qos import CYCLE_QOS, LATCHED_QOS, LATEST_QOS
from ..ros.sampled import CycleInputs, SampledSubscription
from ..spatial import quaternion_xyzw_from_rotation, rotation_from_quaternion_xyzw
from ..suite import SAFE_JOINT_COMMANDS
from ..walk.stabilizer import StabilizerConfig
from ..wholebody.balancer import BalancerConfig, Outcome, WalkReference, WholeBodySettings
from ..wholebody.cycle import WholeBodyCycle
from ..wholebody.fall_detector import up_from_acceleration, up_from_quaternion_xyzw
from ..wholebody.reference_queue import DEFAULT_REFERENCE_TIMEOUT_S, WalkReferenceQueue
from ..wholebody.modes import EFFECTORS, SUPPORT_LEGS, FootState, parse_foot_state

WORLD_FRAME = "wb_world"
MAX_TORSO_TILT_RAD = max(GAIT_PARAMETERS[key].maximum for key in ("TorsoWx", "TorsoWy"))
ROBOT_FRAMES = ("", "FRAME_ROBOT")
MARKER_PERIOD_S = 0.1
WATCHDOG_PERIOD_S = 0.5  # how often the absence of joint_states is checked (diagnostics only)


class WholeBodyNode(Node):
    def __init__(self, **kwargs):
        super().__init__("whole_body", **kwargs)
        startup = declare_startup(self, {
            "nao_version": NAO_VERSION,
            "max_velocity_fraction": ParameterSpec(BalancerConfig.max_velocity_fraction, "joint speed limit as a "
                                                   "fraction of each motor's", minimum=0.0, maximum=1.0,
                                                   exclusive_minimum=True, startup=True)})
        declare_thread_priority(self)
        version = startup["nao_version"]
        self.model = NaoModel(version)
        self.core = WholeBodyCycle(self.model, BalancerConfig(max_velocity_fraction=startup["max_velocity_fraction"]))
        self.balancer = self.core.balancer
        self.obstacle_input = ObstacleInput(self, self.balancer.fk)
        n = self.model.n_joints
        self.measured = np.zeros(n)
        self.received = np.zeros(n, dtype=bool)
        self.states_reader = JointStateReader(self.model)
        self.required = np.array([j in self.balancer.fk.joint_names and j != "RHipYawPitch"
                                  for j in self.model.joint_names])
        self.wish = np.zeros(n)
        self.started = False
        self.last_states_s = None  # node clock, for the watchdog
        self.states_stamp_s = -np.inf  # the latest joint_states' stamp
        # Times below are on the joint_states' clock: the cycle that read the value.
        # The IMU's orientation (x, y, z, w), and its time: made the torso's rotation in a
        # gravity-aligned frame (``attitude``) only when asked, when the QP starts and once a second.
        self.orientation_xyzw: list[float] | None = None
        self.attitude_s = -np.inf
        self.gyro_radps = np.zeros(3)  # torso angular velocity (IMU, torso frame), and its time
        self.gyro_s = -np.inf
        # The vertical in the torso frame (the orientation's, else the accelerometer's), and its time.
        self.up_torso: tuple[float, float, float] | None = None
        self.up_s = -np.inf
        self.walk_references = WalkReferenceQueue()
        self.clock_watch = ClockWatch(self, "walk references and IMU readings dropped")
        feet = tuple(state.value for state in FootState)
        self.params = ValidatedParameters(self, {
            "left_foot_state": ParameterSpec("Fixed", "wbFootState of the left foot", choices=feet,
                                             choice_name="foot state"),
            "right_foot_state": ParameterSpec("Fixed", "wbFootState of the right foot", choices=feet,
                                              choice_name="foot state"),
            "balance_constraint": ParameterSpec(False, "wbEnableBalanceConstraint: keep the COM in the support "
                                                       "polygon"),
            "balance_support": ParameterSpec("Legs", "support polygon of the balance constraint",
                                             choices=SUPPORT_LEGS),
            "effector_control.Head": ParameterSpec(False, "wbEnableEffectorControl(Head): head orientation target"),
            "effector_control.LArm": ParameterSpec(False, "wbEnableEffectorControl(LArm): left hand position target"),
            "effector_control.RArm": ParameterSpec(False, "wbEnableEffectorControl(RArm): right hand position "
                                                          "target"),
            "margin_m": ParameterSpec(BalancerConfig.margin_m, "COM distance (m) kept from the support polygon's "
                                                               "edges", minimum=0.0, maximum=0.03),
            "go_to_balance_duration_s": ParameterSpec(2.0, "duration (s) of the go_to_balance services",
                                                      minimum=0.0, maximum=60.0, exclusive_minimum=True),
            "use_imu": ParameterSpec(True, "vertical of wb_world from the imu when the QP starts (else the lower "
                                           "sole is flat)"),
            "reference_timeout_s": ParameterSpec(DEFAULT_REFERENCE_TIMEOUT_S, "walk references older than this (s) "
                                                 "end the walk", minimum=0.0, maximum=10.0, exclusive_minimum=True),
            "stale_timeout_s": ParameterSpec(0.5, "joint_states older than this (s) turn the diagnostics WARN",
                                             minimum=0.0, maximum=60.0, exclusive_minimum=True),
            "walk_ankle_damping_s": ParameterSpec(StabilizerConfig().ankle_roll_damping_s, "walking: supporting "
                                                  "ankles turn this many rad per rad/s of torso roll/pitch rate "
                                                  "(IMU); 0 = open loop", minimum=0.0, maximum=0.2),
        }, self._validate, self._apply)

        self.command_pub = self.create_publisher(JointState, "joint_commands", CYCLE_QOS)
        self.torso_pub = self.create_publisher(PoseStamped, "whole_body/torso_pose", CYCLE_QOS)
        self.marker_pub = self.create_publisher(MarkerArray, "whole_body/markers", 10)
        self.fallen_pub = self.create_publisher(Bool, "robot_has_fallen", LATCHED_QOS)
        self.fallen_pub.publish(Bool(data=False))
        # Read in place: converting the 26 names to Python every cycle is not needed to check them.
        self.wish_reader = JointStateReader(self.model, unknown_names="reject", plausible=False,
                                            limit_rad=MAX_COMMAND_POSITION_RAD)
        self.wish_received = np.zeros(self.model.n_joints, dtype=bool)
        # Read at the cycle: the filter's command and the walk's references come every cycle and
        # matter only at the next (``CycleInputs``).
        self.cycle_inputs = CycleInputs(self)
        self.cycle_inputs.add(JointState, SAFE_JOINT_COMMANDS, self.on_wish, raw=True)
        self.create_subscription(JointState, "joint_states", self.on_joint_states, LATEST_QOS, raw=True)
        self.imu_sub = SampledSubscription(self, Imu, "imu", raw=True)
        self.imu_reader = ImuReader()
        self.create_subscription(Vector3Stamped, "whole_body/effector/Head",
                                 partial(self.on_effector, "Head"), 10)
        for arm in ("LArm", "RArm"):
            self.create_subscription(PointStamped, f"whole_body/effector/{arm}", partial(self.on_effector, arm), 10)
        self.vector_reader, self.poses_reader = StampedFloatsReader(3), StampedPosesReader()
        self.sole_matrices = (LastPoseMatrix(), LastPoseMatrix())  # [left, right]: the stance foot's stays
        self.cycle_inputs.add(PointStamped, "whole_body/com_reference", self.on_com_reference, raw=True)
        self.cycle_inputs.add(PoseArray, "whole_body/foot_references", self.on_foot_references, raw=True)
        self.cycle_inputs.add(String, "whole_body/support", self.on_support)
        self.cycle_inputs.add(Vector3Stamped, "whole_body/torso_reference", self.on_torso_reference, raw=True)
        self.create_service(SetBool, "whole_body/enable", self.on_enable)
        for support in SUPPORT_LEGS:
            self.create_service(Trigger, f"whole_body/go_to_balance/{support}", partial(self.on_go_to_balance, support))

        # Prepared once; each cycle writes its numbers into the serialized bytes.
        n = self.model.n_joints
        self.command_image = MessageImage(JointState(name=list(self.model.joint_names), position=[0.0] * n),
                                          ["position"], ["header.stamp"])
        torso = PoseStamped()
        torso.header.frame_id = WORLD_FRAME
        torso.pose.orientation.w = 1.0
        self.torso_image = MessageImage(torso, ["pose.position", "pose.orientation"], ["header.stamp"])
        self.torso_values = np.zeros(7)
        self.markers = self._make_markers()
        self.last_markers_s = -np.inf
        self.last_result = None  # of the latest cycle, for the diagnostics
        self.diagnostics = CycleDiagnostics(self, "whole_body", self.model.cycle_time_s, self._diagnose)
        self.answer_latency = AnswerLatency(self.model.cycle_time_s)
        self.diagnostics.set_status(DiagnosticStatus.WARN, "waiting for joint_states")
        self.create_timer(WATCHDOG_PERIOD_S, self.on_watchdog)
        self.get_logger().info(f"whole body balancer for NAO {version}: {self.balancer.n} variables, "
                               f"{self.balancer.qp.m} constraint rows")

    # --- parameters -------------------------------------------------------------------------
    @staticmethod
    def _settings(values: dict) -> WholeBodySettings:
        """Settings from parameter values (their types checked by the specs; ValueError with the
        reason when malformed)."""
        return WholeBodySettings(
            left_foot=parse_foot_state(values["left_foot_state"]),
            right_foot=parse_foot_state(values["right_foot_state"]),
            balance_enabled=values["balance_constraint"], balance_support=values["balance_support"],
            effectors=frozenset(e for e in EFFECTORS if values[f"effector_control.{e}"]))

    def _validate(self, values: dict) -> str | None:
        reason = replace(self.balancer.config, margin_m=values["margin_m"]).validate()
        if reason:
            return reason
        try:
            self._stabilizer_config(values)
        except ValueError as err:
            return str(err)
        try:
            settings = self._settings(values)
        except ValueError as err:
            return str(err)
        if settings.effectors - self.balancer.settings.effectors and not self.started:
            return "effector control needs the robot's pose: no joint_states received yet"
        if settings.effectors - self.balancer.settings.effectors and self.core.fall.fallen:
            return self._fallen_refusal("wbEnableEffectorControl")
        return self.balancer.refusal(settings)

    @staticmethod
    def _stabilizer_config(values: dict) -> StabilizerConfig:
        damping = values["walk_ankle_damping_s"]
        return StabilizerConfig(ankle_roll_damping_s=damping, ankle_pitch_damping_s=damping)

    def _apply(self, values: dict) -> None:
        self.balancer.update_config(replace(self.balancer.config, margin_m=values["margin_m"]))
        self.core.set_stabilizer_config(self._stabilizer_config(values))
        settings = self._settings(values)
        newly = settings.effectors - self.balancer.settings.effectors
        self.balancer.apply(settings)
        if newly and not self.balancer.enabled:  # NAOqi: effector control implicitly activates the balancer
            self._enable(True)

    # --- services -----------------------------------------------------------------------------
    def on_enable(self, request: SetBool.Request, response: SetBool.Response):
        if not self.started:
            response.success, response.message = False, "no joint_states received yet"
        elif request.data and self.core.fall.fallen:
            response.success, response.message = False, self._fallen_refusal("wbEnable")
        else:
            self._enable(request.data)
            if not request.data:
                self._end_effector_control()
            response.success = True
            response.message = f"whole body balancer {'enabled' if request.data else 'disabled'}"
        self.get_logger().info(f"wbEnable({request.data}): {response.message}")
        return response

    def _end_effector_control(self) -> None:
        if self.balancer.settings.effectors:
            self.set_parameters([Parameter(f"effector_control.{e}", Parameter.Type.BOOL, False)
                                 for e in self.balancer.settings.effectors])

    def _fallen_refusal(self, what: str) -> str:
        return f"the robot has fallen ({self.core.fall.reason}): {what} refused until it is up"

    def _report_fall(self) -> None:
        """robot_has_fallen, the log and the diagnostics, when the robot went down or came up."""
        fall = self.core.fall
        self.fallen_pub.publish(Bool(data=fall.fallen))
        if fall.fallen:
            self._end_effector_control()  # (the cycle disabled the balancer)
            self.get_logger().error(f"the robot has fallen: {fall.reason}; the balancer is disabled and the "
                                    "walk's references are ignored until it is up")
            self.diagnostics.set_status(DiagnosticStatus.ERROR, f"the robot has fallen: {fall.reason}")
        else:
            self.get_logger().info("the robot is up again")
            self.diagnostics.set_status(DiagnosticStatus.OK, "ok")

    def _enable(self, enabled: bool) -> None:
        self._read_imu(self.states_stamp_s)
        imu_fresh = (self.params.values["use_imu"]
                     and self.states_stamp_s - self.attitude_s <= self.params.values["stale_timeout_s"])
        self.balancer.set_enabled(enabled, q_measured=self.measured,
                                  torso_attitude=self.attitude() if imu_fresh else None)

    def on_go_to_balance(self, support: str, request: Trigger.Request, response: Trigger.Response):
        duration = self.params.values["go_to_balance_duration_s"]
        try:
            if self.core.fall.fallen:
                raise ValueError(self._fallen_refusal("wbGoToBalance"))
            self.balancer.go_to_balance(support, duration)
        except ValueError as err:
            response.success, response.message = False, str(err)
        else:
            response.success, response.message = True, f"COM going over {support} in {duration:.2f} s"
        self.get_logger().info(f"wbGoToBalance({support}): {response.message}")
        return response

    # --- inputs -------------------------------------------------------------------------------
    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _refuse(self, topic: str, reason: str) -> None:
        # Each reason once a second: a bad stream can arrive at 100 Hz.
        throttled_warning(self, f"{topic}: {reason}",
                          f"{topic} refused, the robot keeps its last balanced command: {reason}", 1.0,
                          family=topic)

    def on_wish(self, data: bytes) -> None:
        try:
            self.wish_reader.merge(data, self.wish, self.wish_received)
        except JointInputError as err:
            self._refuse(SAFE_JOINT_COMMANDS, str(err))

    def on_joint_states(self, data: bytes, info: dict) -> None:
        self.answer_latency.received(info)
        # Before the clock check: references dated on a clock that went back are dropped with it.
        self.cycle_inputs.serve()
        stamp = merge_joint_state(self, "joint_states", self.states_reader, data, self.measured, self.received,
                                  self.diagnostics)
        if stamp is None:
            return
        self.last_states_s = self._now_s()
        if stamp_seconds(stamp) <= 0.0:  # an unstamped driver: the node's clock
            stamp = self.get_clock().now().to_msg()
        self.states_stamp_s = stamp_seconds(stamp)
        if self.clock_watch.went_back(self.states_stamp_s):
            self._restart_clock()
        self._cycle(stamp)

    def _restart_clock(self) -> None:
        """The clock went back: the walk's references and the IMU's readings are dated on the old
        one (they would look fresh for as long as the jump), the balancer carries on."""
        self.walk_references = WalkReferenceQueue()
        self.attitude_s = self.gyro_s = self.up_s = -np.inf
        self.last_markers_s = -np.inf

    def _read_imu(self, now_s: float) -> None:
        data = self.imu_sub.take_latest()
        if data is None:
            return
        orientation_xyzw, gyro = self.imu_reader.read_floats(data)
        if orientation_xyzw is not None:
            self.orientation_xyzw = orientation_xyzw
            self.attitude_s = now_s
            self.up_torso, self.up_s = up_from_quaternion_xyzw(*orientation_xyzw), now_s
        elif not self.imu_reader.no_orientation:
            throttled_warning(self, "imu", IMU_ORIENTATION_ERROR)
            self.diagnostics.refused("imu", IMU_ORIENTATION_ERROR)
            return
        elif self.imu_reader.acceleration is not None:  # no orientation (nao_lola's): the accelerometer
            up = up_from_acceleration(*self.imu_reader.acceleration)
            if up is not None:
                self.up_torso, self.up_s = up, now_s
        if gyro is None:  # the walk's ankle damping keeps the last reading until it is stale
            throttled_warning(self, "imu gyro", IMU_ANGULAR_VELOCITY_ERROR)
            self.diagnostics.refused("imu", IMU_ANGULAR_VELOCITY_ERROR)
            return
        self.gyro_radps[:] = gyro  # also from an IMU without orientation (nao_lola's): it damps the walk
        self.gyro_s = now_s

    def attitude(self) -> np.ndarray | None:
        """The torso's rotation in a gravity-aligned frame (3x3), from the latest valid IMU
        orientation (None before one)."""
        return None if self.orientation_xyzw is None else rotation_from_quaternion_xyzw(self.orientation_xyzw)

    def on_effector(self, name: str, msg) -> None:
        topic = f"whole_body/effector/{name}"
        if msg.header.frame_id not in ROBOT_FRAMES:
            self._refuse(topic, "targets are in FRAME_ROBOT (frame_id '' or 'FRAME_ROBOT'), "
                                f"got {msg.header.frame_id!r}")
            return
        v = msg.vector if name == "Head" else msg.point
        asked = np.array([v.x, v.y, v.z])
        try:
            taken = self.balancer.set_effector_target(name, asked)
        except ValueError as err:
            self._refuse(topic, str(err))
            return
        if np.linalg.norm(taken - asked) > 1e-3:
            self.get_logger().info(f"{topic}: {asked.round(3).tolist()} is beyond the arm's reach, resized to "
                                   f"{taken.round(3).tolist()} (FRAME_ROBOT)", throttle_duration_sec=1.0)

    # The walk's references come every cycle: read from their bytes (``ros.cdr``), not converted.
    def _read_reference(self, topic: str, reader, data: bytes) -> tuple[float, np.ndarray] | None:
        """(stamp seconds, values) of a reference in wb_world, or None (refused, said why)."""
        try:
            frame, stamp_s, values = reader.read(data)
        except ValueError as err:
            self._refuse(topic, f"malformed message: {err}")
            return None
        if frame not in ("", WORLD_FRAME):
            self._refuse(topic, f"frame must be {WORLD_FRAME!r}, got {frame!r}")
            return None
        return stamp_s, values

    def on_com_reference(self, data: bytes) -> None:
        reference = self._read_reference("whole_body/com_reference", self.vector_reader, data)
        if reference is None:
            return
        stamp_s, com = reference
        if not all(map(math.isfinite, com.tolist())):
            self._refuse("whole_body/com_reference", "non-finite position")
            return
        self.walk_references.add_com(stamp_s, com.copy())

    def on_foot_references(self, data: bytes) -> None:
        topic = "whole_body/foot_references"
        reference = self._read_reference(topic, self.poses_reader, data)
        if reference is None:
            return
        stamp_s, poses = reference
        if len(poses) != 2:
            self._refuse(topic, f"expected 2 poses [left, right], got {len(poses)}")
            return
        feet = [matrix_of(pose) for matrix_of, pose in zip(self.sole_matrices, poses)]
        if any(sole is None for sole in feet):
            self._refuse(topic, "non-finite position or invalid orientation")
            return
        self.walk_references.add_feet(stamp_s, *feet)

    def on_torso_reference(self, data: bytes) -> None:
        topic = "whole_body/torso_reference"
        reference = self._read_reference(topic, self.vector_reader, data)
        if reference is None:
            return
        stamp_s, vector = reference
        tilt = (float(vector[0]), float(vector[1]))
        if not all(map(math.isfinite, tilt)) or max(abs(tilt[0]), abs(tilt[1])) > MAX_TORSO_TILT_RAD:
            self._refuse(topic, f"tilt (x, y) must be finite and within +-{MAX_TORSO_TILT_RAD:.4f} rad, got {tilt}")
            return
        self.walk_references.add_torso_tilt(stamp_s, tilt)

    def on_support(self, msg: String) -> None:
        if msg.data not in SUPPORT_LEGS:
            self._refuse("whole_body/support", f"expected one of {list(SUPPORT_LEGS)}, got {msg.data!r}")
            return
        self.walk_references.set_support(msg.data)

    # --- cycle --------------------------------------------------------------------------------
    def _cycle(self, stamp) -> None:
        """One cycle at ``stamp`` (a joint_states' stamp), which everything published carries."""
        start = self.diagnostics.start()
        now_s = stamp_seconds(stamp)
        if not self.started:
            if not np.all(self.received[self.required]):
                return
            self.wish[:] = self.core.start(self.measured)
            self.started = True
        self._read_imu(now_s)
        walk = self._walk_reference()
        gyro_fresh = now_s - self.gyro_s <= self.params.values["reference_timeout_s"]
        # (the node's clock when this joint_states arrived: one clock read a cycle fewer)
        self.obstacle_input.resolve(self.last_states_s, self.balancer.obstacles, self.balancer.q)
        up_fresh = now_s - self.up_s <= self.params.values["stale_timeout_s"]
        command = self.core.cycle(self.wish, walk, self.measured, self.gyro_radps if gyro_fresh else None,
                                  self.up_torso if up_fresh else None)
        result = self.core.result
        if self.core.fall_changed:
            self._report_fall()
        self._publish(command, result, stamp, now_s)
        if result.outcome in (Outcome.RELAXED, Outcome.HELD):
            throttled_warning(self, "outcome", f"whole body: {result.reason}")
        self.diagnostics.record(start)
        self.last_result = result

    def _walk_reference(self) -> WalkReference | None:
        """The walk's references for this cycle, unless older than reference_timeout_s (the walk
        has ended)."""
        return self.walk_references.select(self.states_stamp_s, self.params.values["reference_timeout_s"])

    def on_watchdog(self) -> None:
        stale_s = self.params.values["stale_timeout_s"]
        if self.last_states_s is None:
            self.diagnostics.set_status(DiagnosticStatus.WARN, "waiting for joint_states")
        elif self._now_s() - self.last_states_s > stale_s:
            self.diagnostics.set_status(DiagnosticStatus.WARN, f"joint_states stale (none for {stale_s} s): "
                                                               "no cycle, the robot keeps its last command")

    def _publish(self, command: np.ndarray, result, stamp, now_s: float) -> None:
        self.command_image.set_floats(command)
        self.command_image.set_stamp(stamp.sec, stamp.nanosec)
        self.command_image.publish(self.command_pub)
        self.answer_latency.answered()
        self.torso_values[:3] = result.torso_world[:3, 3]
        self.torso_values[3:] = quaternion_xyzw_from_rotation(result.torso_world[:3, :3])
        self.torso_image.set_floats(self.torso_values)
        self.torso_image.set_stamp(stamp.sec, stamp.nanosec)
        self.torso_image.publish(self.torso_pub)
        if now_s - self.last_markers_s >= MARKER_PERIOD_S and self.marker_pub.get_subscription_count() > 0:
            self.last_markers_s = now_s
            self._fill_markers(result, stamp)
            self.marker_pub.publish(self.markers)

    def _diagnose(self) -> None:
        """The latest cycle's figures and status, if a cycle ran since the last publication."""
        result, self.last_result = self.last_result, None
        if result is None:
            return
        settings = self.balancer.settings
        values = self.diagnostics.values
        values.update({
            "mode": result.mode.value, "outcome": result.outcome.value, "iterations": result.iterations,
            "com_margin_m": f"{result.com_margin_m:.4f}",
            "feet": f"left {settings.left_foot.value}, right {settings.right_foot.value}",
            "balance": self.balancer.balance_support or "off",
            "effectors": ",".join(sorted(settings.effectors)) or "none",
            "late_references": self.walk_references.late,
        })
        values.update(self.answer_latency.values())
        attitude = self.attitude()
        if attitude is not None:
            # Torso tilt from the vertical, measured (IMU) and in the balancer's model.
            measured, model = (np.arccos(np.clip(r[2, 2], -1.0, 1.0)) for r in (attitude, result.torso_world))
            values["imu_tilt_error_deg"] = f"{np.rad2deg(abs(measured - model)):.2f}"
        if result.outcome is Outcome.HELD:
            self.diagnostics.set_status(DiagnosticStatus.ERROR, result.reason)
        elif result.outcome is Outcome.RELAXED:
            self.diagnostics.set_status(DiagnosticStatus.WARN, result.reason)
        else:
            self.diagnostics.set_status(DiagnosticStatus.OK, f"{result.mode.value}: {result.reason}")

    # --- markers ------------------------------------------------------------------------------
    def _make_markers(self) -> MarkerArray:
        def marker(ns: str, kind: int, rgba, scale: float) -> Marker:
            m = Marker(ns=ns, id=0, type=kind, action=Marker.ADD)
            m.header.frame_id = "torso"
            m.pose.orientation.w = 1.0
            m.scale.x = m.scale.y = m.scale.z = scale
            m.color = ColorRGBA(r=rgba[0], g=rgba[1], b=rgba[2], a=rgba[3])
            return m

        markers = MarkerArray()
        markers.markers = [
            marker("com", Marker.SPHERE, (1.0, 0.8, 0.0, 0.9), 0.02),
            marker("com_floor", Marker.SPHERE, (1.0, 0.8, 0.0, 0.6), 0.012),
            marker("support_polygon", Marker.LINE_STRIP, (0.1, 0.6, 1.0, 0.9), 0.003),
            marker("margin", Marker.LINE_STRIP, (1.0, 0.3, 0.1, 0.9), 0.002),
            marker("margin_text", Marker.TEXT_VIEW_FACING, (1.0, 1.0, 1.0, 0.9), 0.02),
        ]
        return markers

    def _fill_markers(self, result, stamp) -> None:
        """Everything is computed in wb_world and drawn in the torso frame (TF carries it)."""
        r, p = result.torso_world[:3, :3], result.torso_world[:3, 3]

        def in_torso(points_world: np.ndarray) -> list[Point]:
            local = (np.atleast_2d(points_world) - p) @ r
            return [Point(x=x, y=y, z=z) for x, y, z in local.tolist()]

        com, com_floor, polygon, margin, text = self.markers.markers
        com.pose.position = in_torso(result.com_world_m)[0]
        floor = np.array([result.com_world_m[0], result.com_world_m[1], 0.0])
        com_floor.pose.position = in_torso(floor)[0]
        for m in self.markers.markers:
            m.header.stamp = stamp
        if result.polygon is None:
            polygon.points, margin.points = [], []
            return
        polygon.points = in_torso(_closed_loop_on_floor(result.polygon.vertices_xy))
        margin.points = in_torso(_closed_loop_on_floor(result.polygon.shrunk(self.balancer.config.margin_m)))
        text.pose.position = in_torso(floor + [0.0, 0.0, 0.03])[0]
        text.text = f"COM margin {result.com_margin_m * 1e3:.1f} mm ({self.balancer.balance_support or 'no balance'})"


def _closed_loop_on_floor(vertices_xy: np.ndarray) -> np.ndarray:
    """(k + 1, 3) points of a polygon at z = 0, first vertex repeated (a LINE_STRIP that closes)."""
    if len(vertices_xy) == 0:
        return np.zeros((0, 3))
    loop = np.vstack([vertices_xy, vertices_xy[:1]])
    return np.column_stack([loop, np.zeros(len(loop))])


def main(args=None) -> None:
    run_node(WholeBodyNode, args)


if __name__ == "__main__":
    main()
