"""Footstep planner node: NAOqi's moveTo / move / moveToward / setFootSteps as ROS interfaces.

A thin adapter over :class:`nao_motion.footsteps.FootstepPlanner`. While it has steps or a
command, every motion cycle (model.cycle_time_s on the node's clock, so ``use_sim_time`` is
followed) it advances the planner to the clock (completed steps leave the queue, a velocity walk
is refilled) and publishes the plan when it changed, else at ``PLAN_PERIOD_S``; idle, it only
republishes the plan every ``PLAN_PERIOD_S``. Composed in the suite's process, it does all this
right after the cycle the other nodes run on each joint_states, and plans a ``goal_pose`` there
too (``follow_robot_cycle``). Markers are built only while someone subscribes. Commands apply at once, after the unchangeable steps
(NAOqi's preview window); the last command wins. A plan from standing starts one preview window
after the command, so that the walk's preview controller sees its first step coming. The planted
feet start at the origin of the plan's frame (``footstep_plan``), FootSeparation apart, and then
follow the planned steps (the walk generator executes them): the plan is where the robot was
commanded (getRobotPosition(False)). ``odom`` is the walk's sensed odometry (REP-105: continuous,
it drifts); both frames start together, and part where the robot ends off its plan. The node
reads the walk's ``odom`` (the newest sample, when it advances) and, while the plan's feet stand
still, keeps ``plan_from_odom`` = planned base_footprint * sensed base_footprint^-1
(``nao_motion.footsteps.plan_frame``; during a walk the last standing one is kept; none
received: identity). A ``goal_pose`` in ``odom`` is brought into the plan's frame through it, so
the robot walks from where it senses itself to that place in ``odom``; the markers are drawn in
``odom`` through it, under the robot. A moveTo closes on its goal as ``odom`` sees it
(``nao_motion.footsteps.move_to_correction``): its goal is kept in ``odom``, and when its last step
has ended and a sample on the planted feet was compared, a moveTo that ended farther than
``move_to_tolerance_m`` / ``move_to_tolerance_rad`` from it walks the rest (a closing moveTo,
planned and clipped like any), at most ``move_to_max_corrections`` times; any other command ends
it. The core of all this is ``nao_motion.footsteps.FootstepPlannerCycle``, which the in-process
chain runs too.

| kind | name | type | meaning |
|---|---|---|---|
| sub | `cmd_vel` | geometry_msgs/Twist | move(linear.x m/s, linear.y m/s, angular.z rad/s), robot frame; other fields ignored; a zero twist stops like stopMove, and so does a walk whose `cmd_vel` has not come for `cmd_vel_timeout_s` (a ROS 2 base's convention). Move config: the gait parameters (per-foot ones included) and `frequency` |
| sub | `cmd_vel_normalized` | geometry_msgs/Twist | moveToward(linear.x, linear.y, angular.z), each in [-1, 1] (fractions of the maximum step); same config and timeout as `cmd_vel` |
| sub | `cmd_vel_keepalive` | std_msgs/UInt64 | the velocity walk of the accepted command number `data` (the plan's `accepted_commands` that took it) goes on for another `cmd_vel_timeout_s`, as if its message had come again, without replanning (resumed if it timed out meanwhile: the sender stalled), as long as no other command was accepted since; else ignored (one on its way when another command came). The ALMotion client's move and moveToward send it: NAOqi's move walks until told otherwise |
| sub | `goal_pose` | geometry_msgs/PoseStamped | moveTo the pose (rviz "2D Goal Pose"): frame `odom` or "" (the sensed odometry's frame) into the plan's through `plan_from_odom`, `footstep_plan` (the plan's own, as ALMotion's moveTo sends) as is, any other frame through /tf into `odom` first; position x, y and yaw used. Config: the common gait parameters (NAOqi's moveTo takes no per-foot keys nor Frequency). Refused (plan kept): unknown frame, NaN/inf, zero quaternion, farther than `max_goal_distance_m` |
| sub | `odom` | nav_msgs/Odometry | the walk's sensed base_footprint (x, y, yaw; frame `odom` or ""), read when the planner advances: compared with the plan's robot position while the plan's feet stand still (`plan_from_odom`); a non-finite pose, another frame or a position beyond `MAX_ODOM_DISTANCE_M` (10 km) is ignored (throttled warning) |
| sub | `walk/hold_start` | std_msgs/Bool (transient local) | the walk node has not started the plan and cannot yet (its initialization movement, NAOqi: a walk from a posture that is not walk-ready first performs one; or the plan reached it too late for its first step): while true, the plan's first step is kept one preview window ahead |
| sub | `walk/hold_step` | std_msgs/Bool (transient local) | the walk node holds a step's lift-off (the step could not catch the robot, ``walk.lift_off``): while true, the plan's time stands still, from when the hold is heard to when its end is (every step, the one in progress too, comes later by the time held) |
| sub | `footsteps/request` | std_msgs/Float64MultiArray | setFootSteps / setFootStepsWithSpeed (legs, poses relative to the other foot, times or speeds, clearExisting); layout in `nao_motion.ros.footstep_messages` |
| pub | `footsteps/plan` | std_msgs/Float64MultiArray (transient local) | planted feet + every planned step (leg, times on the node's clock, poses in the plan's frame `footstep_plan`, gait values, unchangeable flag), on every change and at 2 Hz; layout and codec in `nao_motion.ros.footstep_messages` |
| pub | `/tf_static` | tf2_msgs/TFMessage | ``odom -> footstep_plan`` (the plan's frame where the sensed odometry has it: `plan_from_odom` inverted), sent at start-up and when it has moved the plan's robot by more than ``TF_STATIC_SHIFT_M`` (1 mm) or ``TF_STATIC_SHIFT_RAD`` (1 mrad) from where the last one sent put it (an odometry sample compared after a walk; standing, the samples differ by nanometres), so the plan's poses show in rviz and tf2 resolves them |
| pub | `footsteps/markers` | visualization_msgs/MarkerArray | with the plan while subscribed, frame `odom` (the plan's poses through `plan_from_odom`: drawn under the robot): NAO sole boxes; left green, right red; planted feet dark, unchangeable steps opaque, changeable steps translucent |
| pub | `/diagnostics` | diagnostic_msgs/DiagnosticArray | cycle time, mode, steps, unchangeable steps, accepted and refused commands, last refusal, the velocity walks `cmd_vel_timeout_s` stopped (`cmd_vel_timeouts`), `plan_from_odom` (x, y, theta), the odometry samples compared, the running moveTo's closing moveTos and what was left when its last one ended |
| srv | `stop_move` | std_srvs/Trigger | stopMove: the unchangeable steps, then the feet together |
| srv | `kill_move` | std_srvs/Trigger | killMove: every step dropped at once, the one in progress included |
| param | `MaxStepX`, `MaxStepY`, `MaxStepTheta`, `MaxStepFrequency`, `StepHeight`, `TorsoWx`, `TorsoWy` | double | the move config (NAOqi keys, m / rad / normalised), NAOqi's defaults and ranges; used from the next command |
| param | `Left<key>`, `Right<key>` (e.g. `LeftStepHeight`) | double | per-foot override of a key for cmd_vel / cmd_vel_normalized; NaN (default) = the common value |
| param | `frequency` | double | moveToward's/move's normalised step frequency, [0, 1] (1.0) |
| param | `cmd_vel_timeout_s` | double | a walk by `cmd_vel` / `cmd_vel_normalized` with no accepted message for this long (the node's clock: sim time in a simulation) stops as a zero twist does (stopMove: the unchangeable steps, then the feet together), in [0, 60] (0.5, ros2_controllers' `cmd_vel_timeout`; 0: never, NAOqi's move) |
| param | `max_goal_distance_m` | double | goal_pose farther than this from the robot is refused as unreachable (20.0) |
| param | `move_to_tolerance_m`, `move_to_tolerance_rad` | double | a moveTo (goal_pose, ALMotion's moveTo) that ends farther than this from its goal by `odom` walks the rest: m in [0.005, 1] (0.02), rad in [0.01, pi] (0.05) |
| param | `move_to_max_corrections` | integer | closing moveTos a moveTo may walk, [0, 10] (3; 0: the plan alone, as before) |
| param | `nao_version`, `preview_s` | string, double (start-up) | V5/V6 (cycle time); NAOqi's preview window, s (0.8) |

Parameter changes are validated as a whole with the planner's own move-config parser
(``set_parameters_atomically`` for several) and refused with the reason; nothing is half-applied.
A malformed or refused message never stops the node: it logs the reason (throttled), counts it in
the plan's ``refused_commands`` and keeps the current plan.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped, Twist
from nav_msgs.msg import Odometry
from rclpy.node import Node
from std_msgs.msg import Bool, ColorRGBA, Float64MultiArray, UInt64
from std_srvs.srv import Trigger
from visualization_msgs.msg import Marker, MarkerArray

from ..footsteps import (NAO_FOOT_BOXES, FootstepError, FootstepPlanner, FootstepPlannerCycle, Leg,
                         MoveToCorrectionConfig, Pose2D, WalkMode)
from ..footsteps.move_to_correction import MAX_CORRECTIONS_RANGE, TOLERANCE_M_RANGE, TOLERANCE_RAD_RANGE
from ..footsteps.plan_frame import frame_shift
from ..footsteps.step_queue import DEFAULT_PREVIEW_S
from ..footsteps.gait_config import FREQUENCY_KEY, GAIT_PARAMETERS, MoveConfigError, parse_move_config
from ..model import NaoModel
from ..ros.conversions import pose_matrix_of, pose_refusal, stamp_seconds, transform_stamped
from ..ros.footstep_messages import (
    FOOT_PREFIXES, PER_FOOT_KEYS, PLAN_FRAME, SETTABLE_KEYS, FootstepMessageError, FootstepPlan, decode_request,
    encode_plan, plan_of)
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.node_tools import CycleDiagnostics, TfPublisher, ValidatedParameters, run_node, throttled_warning
from ..ros.qos import LATCHED_QOS
from ..ros.sampled import SampledSubscription
from ..ros.tf_listener import TfListener

ODOM_FRAME = "odom"
PLAN_PERIOD_S = 0.5
# /tf_static is sent again only when the plan's frame moved the plan's robot by more than this:
# standing, the walk's odometry differs by nanometres from one sample to the next, which re-sent
# it at every comparison (2 Hz); a millimetre is below anything rviz shows or a step could use.
TF_STATIC_SHIFT_M = 1e-3
TF_STATIC_SHIFT_RAD = 1e-3
DEFAULT_CMD_VEL_TIMEOUT_S = 0.5  # ros2_controllers' diff_drive_controller cmd_vel_timeout
MAX_ODOM_DISTANCE_M = 1e4  # a sensed robot position farther than this is no NAO's: ignored
SOLE_THICKNESS_M = 0.004
LEG_RGB = {Leg.LEFT: (0.1, 0.75, 0.2), Leg.RIGHT: (0.9, 0.2, 0.15)}


class FootstepPlannerNode(Node):
    def __init__(self, **kwargs):
        super().__init__("footstep_planner", **kwargs)
        startup = declare_startup(self, {
            "nao_version": NAO_VERSION,
            "preview_s": ParameterSpec(DEFAULT_PREVIEW_S, "NAOqi's preview window: steps starting within it are "
                                       "unchangeable (s)", minimum=0.0, maximum=10.0, startup=True)})
        version, preview_s = startup["nao_version"], startup["preview_s"]
        self.model = NaoModel(version)
        # The core: the planner, its frame against the walk's odom, moveTo's closing steps.
        self.cycle = FootstepPlannerCycle(FootstepPlanner(now_s=self._now_s(), preview_s=preview_s))
        self.planner, self.plan_frame = self.cycle.planner, self.cycle.plan_frame
        self.accepted = self.refused = 0
        self.last_velocity_command_s = -math.inf  # the last accepted cmd_vel / cmd_vel_normalized, node clock
        self.velocity_command = -1  # its number (accepted count), which cmd_vel_keepalive names
        self.velocity_rerun: Callable[[], None] | None = None  # the command, for a keep-alive to resume
        self.velocity_timed_out = False  # its walk was stopped by cmd_vel_timeout_s
        self.velocity_timeouts = 0
        self.last_refusal = "none"
        # The gait's keys are checked by the planner's move-config parser, on the same table
        # (GAIT_PARAMETERS) that gives their defaults and ranges.
        specs = {key: ParameterSpec(p.default, f"{p.description} ({p.unit or 'normalised'}), in "
                                               f"[{p.minimum:g}, {p.maximum:g}]")
                 for key, p in GAIT_PARAMETERS.items() if p.settable}
        specs.update({f"{side}{key}": replace(specs[key], default=math.nan, nan_means="the common value",
                                              description=f"{side.lower()} foot's own {key} for cmd_vel / "
                                                          "cmd_vel_normalized")
                      for side in FOOT_PREFIXES for key in SETTABLE_KEYS})
        specs["frequency"] = ParameterSpec(1.0, "normalised step frequency of cmd_vel / cmd_vel_normalized "
                                                "(NAOqi's Frequency), in [0, 1]")
        specs["cmd_vel_timeout_s"] = ParameterSpec(
            DEFAULT_CMD_VEL_TIMEOUT_S, "a walk by cmd_vel / cmd_vel_normalized with no accepted message for this "
            "long (s, the node's clock) stops as a zero twist does; 0: never (NAOqi's move)",
            minimum=0.0, maximum=60.0)
        specs["max_goal_distance_m"] = ParameterSpec(20.0, "goal_pose farther than this (m) is refused as "
                                                           "unreachable", minimum=0.0, maximum=1000.0,
                                                     exclusive_minimum=True)
        closing = MoveToCorrectionConfig()
        for name, default, description, (low, high) in (
                ("move_to_tolerance_m", closing.tolerance_m,
                 "a moveTo that ends farther than this (m) from its goal, by the walk's odom, walks the rest",
                 TOLERANCE_M_RANGE),
                ("move_to_tolerance_rad", closing.tolerance_rad, "the same for its heading (rad)",
                 TOLERANCE_RAD_RANGE),
                ("move_to_max_corrections", closing.max_corrections,
                 "closing moveTos a moveTo may walk (0: none, the plan alone)", MAX_CORRECTIONS_RANGE)):
            specs[name] = ParameterSpec(default, description, minimum=low, maximum=high)
        self.params = ValidatedParameters(self, specs, self._validate, self._apply)

        self.tf = TfListener(self)
        # 100 Hz, needed only where the plan's feet stand still: read when the planner advances.
        self.odometry = SampledSubscription(self, Odometry, "odom")
        self.plan_pub = self.create_publisher(Float64MultiArray, "footsteps/plan", LATCHED_QOS)
        self.marker_pub = self.create_publisher(MarkerArray, "footsteps/markers", 10)
        self.tf_pub = TfPublisher(self)
        self.sent_plan_frame: Pose2D | None = None  # odom -> footstep_plan as last sent on /tf_static
        self.create_subscription(Twist, "cmd_vel", self.on_cmd_vel, 10)
        self.create_subscription(Twist, "cmd_vel_normalized", self.on_cmd_vel_normalized, 10)
        self.create_subscription(UInt64, "cmd_vel_keepalive", self.on_cmd_vel_keepalive, 10)
        self.create_subscription(PoseStamped, "goal_pose", self.on_goal_pose, 10)
        self.create_subscription(Float64MultiArray, "footsteps/request", self.on_footsteps_request, 10)
        self.walk_holds_start = False
        self.create_subscription(Bool, "walk/hold_start", self.on_walk_hold_start, LATCHED_QOS)
        self.create_subscription(Bool, "walk/hold_step", self.on_walk_hold_step, LATCHED_QOS)
        self.create_service(Trigger, "stop_move", self.on_stop_move)
        self.create_service(Trigger, "kill_move", self.on_kill_move)

        # Prepared once: each leg's sole box (centre in the sole frame, size) and the colours.
        self.sole_boxes = {leg: _box_centre_and_size(box)
                           for leg, box in ((Leg.LEFT, NAO_FOOT_BOXES.left), (Leg.RIGHT, NAO_FOOT_BOXES.right))}
        self.colours = {(leg, kind): ColorRGBA(r=r * shade, g=g * shade, b=b * shade, a=alpha)
                        for leg, (r, g, b) in LEG_RGB.items()
                        for kind, shade, alpha in (("planted", 0.5, 1.0), ("unchangeable", 1.0, 0.9),
                                                   ("changeable", 1.0, 0.35))}
        self.published_steps: tuple = ()  # held, so that `is` comparisons cannot meet a reused object
        self.published_key: tuple | None = None
        self.last_plan_s = -math.inf
        self.diagnostics = CycleDiagnostics(self, "footstep_planner", self.model.cycle_time_s)
        # The planner advances on the motion cycle only while it has steps or a command to plan
        # from; idle, the plan is only republished every PLAN_PERIOD_S (nothing to do costs nothing).
        self.cycle_timer = self.create_timer(self.model.cycle_time_s, self.on_cycle)
        self.period_timer = self.create_timer(PLAN_PERIOD_S, self.on_cycle)
        # Composed with the nodes that answer the robot's joint_states (follow_robot_cycle), it runs
        # right after their cycle instead of on its timers, and plans goals there too.
        self.following = False
        self.cycle_active = True  # it has steps or a command to plan from: the cycle timer runs
        self.last_cycle_s = -math.inf
        self.pending_goals: list[PoseStamped] = []
        self.get_logger().info(f"footstep planner for NAO {version}: preview {preview_s} s, plans in "
                               f"{PLAN_FRAME!r}, goals in {ODOM_FRAME!r} through the walk's odometry")

    # --- parameters ---------------------------------------------------------------------------
    @staticmethod
    def _move_config(values: dict, per_foot: bool) -> list[list]:
        """NAOqi move-config list of the parameters: common keys (+ set per-foot keys and Frequency)."""
        entries = [[key, values[key]] for key in SETTABLE_KEYS]
        if per_foot:
            entries += [[key, values[key]] for key in PER_FOOT_KEYS if not math.isnan(values[key])]
            entries.append([FREQUENCY_KEY, values["frequency"]])
        return entries

    @staticmethod
    def _closing_config(values: dict) -> MoveToCorrectionConfig:
        return MoveToCorrectionConfig(values["move_to_tolerance_m"], values["move_to_tolerance_rad"],
                                      values["move_to_max_corrections"])

    def _validate(self, values: dict) -> str | None:
        try:
            parse_move_config(self._move_config(values, per_foot=True))
        except MoveConfigError as err:
            self.last_refusal = f"parameters: {err}"
            return str(err)
        return self._closing_config(values).validate()

    def _apply(self, values: dict) -> None:
        self.velocity_config = self._move_config(values, per_foot=True)
        self.move_to_config = self._move_config(values, per_foot=False)
        self.max_goal_distance_m = values["max_goal_distance_m"]
        self.cmd_vel_timeout_s = values["cmd_vel_timeout_s"]
        self.cycle.set_correction(self._closing_config(values))

    # --- commands -----------------------------------------------------------------------------
    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _advance(self) -> None:
        if self.cycle.advance_to(self._now_s(), self.walk_holds_start):
            # The clock went back (simulation reset): the plan's times are meaningless now.
            self.last_plan_s = -math.inf  # published again at once, dated on the new clock
            throttled_warning(self, "clock", "the clock went back: plan dropped, feet kept")
        self._time_out_velocity_command()
        if self.cycle.wants_odometry:  # mid-step nothing compares: the sample waits in DDS
            self._observe_odometry()

    def _time_out_velocity_command(self) -> None:
        """A walk by cmd_vel whose messages stopped stops (ROS 2's convention for a mobile base,
        so that a teleop that died does not walk the robot on). Only a velocity walk can time
        out, and only cmd_vel / cmd_vel_normalized make one; the planner keeps its cycle running
        while it walks, so this is checked every motion cycle. The planner's own step, like
        moveTo's closing steps: not counted as a command."""
        silent_s = self.planner.now_s - self.last_velocity_command_s
        if self.planner.mode is not WalkMode.VELOCITY or not 0.0 < self.cmd_vel_timeout_s <= silent_s:
            return
        self.cycle.other_command(self.planner.stop_move)
        self.velocity_timeouts += 1
        self.velocity_timed_out = True
        self.get_logger().info(f"no cmd_vel for {silent_s:.2f} s (cmd_vel_timeout_s {self.cmd_vel_timeout_s:g}): "
                               "stopping as a zero twist does")

    def _observe_odometry(self) -> None:
        """The walk's newest odometry sample against the plan's robot position (PlanFrame)."""
        msg = self.odometry.take_latest()
        if msg is None:
            return
        frame = msg.header.frame_id.lstrip("/")
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        values = (p.x, p.y, p.z, o.x, o.y, o.z, o.w)
        pose = pose_matrix_of(values) if frame in ("", ODOM_FRAME) else None
        if pose is None or math.hypot(p.x, p.y) > MAX_ODOM_DISTANCE_M:
            reason = (pose_refusal(values) or (f"frame {frame!r} is not {ODOM_FRAME!r}" if pose is None else
                                               f"farther than {MAX_ODOM_DISTANCE_M:g} m from its origin"))
            throttled_warning(self, f"odom: {reason}", f"odom ignored: {reason}", family="odom")
            return
        stamp_s = stamp_seconds(msg.header.stamp)
        if stamp_s <= 0.0:  # unstamped: taken as of now
            stamp_s = self.planner.now_s
        if self.cycle.observe(Pose2D.from_transform(pose), stamp_s):
            rest = self.cycle.correction.last_remaining
            self.get_logger().info(f"moveTo ended {math.hypot(rest.x, rest.y) * 100:.1f} cm, "
                                   f"{math.degrees(rest.theta):.1f} deg off its goal (odom): walking the rest "
                                   f"(correction {self.cycle.correction.corrections})")

    def _command(self, source: str, command: Callable[[], None], counted: bool = True) -> bool:
        """Run a planner command now; a refusal keeps the plan and is logged with the reason.
        Not ``counted``: the planner's own (a velocity walk resumed), not a new command."""
        self._plan_pending_goals()  # the goals that came first, first: the last command wins
        self._advance()
        try:
            command()
        except FootstepError as err:
            self._refuse(source, str(err))
            return False
        if counted:
            self.accepted += 1
        self._publish_plan()
        self.cycle_active = True
        if not self.following and self.cycle_timer.is_canceled():
            self.cycle_timer.reset()
        return True

    def _refuse(self, source: str, reason: str) -> None:
        self.refused += 1
        self.last_refusal = f"{source}: {reason}"
        throttled_warning(self, f"{source}: {reason}", f"{source} refused, the plan is kept: {reason}", 1.0,
                          family=source)
        self._publish_plan()  # the refusal count tells a waiting client

    def on_cmd_vel(self, msg: Twist) -> None:
        v, w = msg.linear, msg.angular
        self._velocity_command("cmd_vel", lambda: self.planner.move(v.x, v.y, w.z, self.velocity_config))

    def on_cmd_vel_normalized(self, msg: Twist) -> None:
        v, w = msg.linear, msg.angular
        self._velocity_command("cmd_vel_normalized",
                               lambda: self.planner.move_toward(v.x, v.y, w.z, self.velocity_config))

    def _velocity_command(self, source: str, command: Callable[[], None]) -> None:
        if self._command(source, lambda: self.cycle.other_command(command)):
            self.last_velocity_command_s = self.planner.now_s  # (the clock _command advanced the planner to)
            self.velocity_command, self.velocity_rerun, self.velocity_timed_out = self.accepted, command, False

    def on_cmd_vel_keepalive(self, msg: UInt64) -> None:
        """The velocity walk it names goes on, if its command is still the last one accepted. One
        that timed out meanwhile (the keep-alive came late: a sender stalled) is resumed, as the
        planner's own step: the sender is alive and has not told it otherwise."""
        self._plan_pending_goals()  # a goal that came first is a command after the one named
        if msg.data != self.velocity_command or self.velocity_command != self.accepted:
            return  # another command came since (a keep-alive that was on its way)
        if self.planner.mode is not WalkMode.VELOCITY:
            if not self.velocity_timed_out or not self._command(
                    "cmd_vel_keepalive", lambda: self.cycle.other_command(self.velocity_rerun), counted=False):
                return  # (a zero twist, or a walk a simulation reset dropped: nothing to resume)
            self.velocity_timed_out = False
            self.get_logger().info("cmd_vel_keepalive came after the walk had timed out: resumed")
        self.last_velocity_command_s = self.planner.now_s

    def on_goal_pose(self, msg: PoseStamped) -> None:
        if self.following:  # planned after the robot's next cycle (follow_robot_cycle)
            self.pending_goals.append(msg)
            return
        self._plan_goal(msg)

    def _plan_goal(self, msg: PoseStamped) -> None:
        self._advance()  # the newest odometry first: plan_from_odom as of now
        try:
            goal = self._goal_in_plan(msg)
        except ValueError as err:
            self._refuse("goal_pose", str(err))
            return
        relative = goal.relative_to(self.planner.get_robot_position())
        distance_m = math.hypot(relative.x, relative.y)
        if distance_m > self.max_goal_distance_m:
            self._refuse("goal_pose", f"unreachable: {distance_m:.2f} m away, more than "
                                      f"max_goal_distance_m ({self.max_goal_distance_m} m)")
            return
        self._command("goal_pose", lambda: self.cycle.move_to(
            relative.x, relative.y, relative.theta, self.move_to_config))

    def _goal_in_plan(self, msg: PoseStamped) -> Pose2D:
        """The goal in the plan's frame: as is in PLAN_FRAME, else into odom (through /tf for
        another frame), then through plan_from_odom."""
        p, o = msg.pose.position, msg.pose.orientation
        values = (p.x, p.y, p.z, o.x, o.y, o.z, o.w)
        pose = pose_matrix_of(values)
        if pose is None:
            raise ValueError(pose_refusal(values))
        frame = msg.header.frame_id.lstrip("/")
        if frame == PLAN_FRAME:
            return Pose2D.from_transform(pose)
        if frame not in ("", ODOM_FRAME):
            try:
                pose = self.tf.lookup(frame, ODOM_FRAME) @ pose
            except KeyError as err:
                raise ValueError(f"unknown frame {frame!r}: no transform to {ODOM_FRAME!r} on /tf ({err.args[0]})") \
                    from None
        return self.plan_frame.to_plan(Pose2D.from_transform(pose))

    def on_walk_hold_start(self, msg: Bool) -> None:
        self.walk_holds_start = msg.data

    def on_walk_hold_step(self, msg: Bool) -> None:
        self.cycle.hear_walk_hold_step(msg.data, self._now_s())

    def on_footsteps_request(self, msg: Float64MultiArray) -> None:
        try:
            request = decode_request(msg)
        except FootstepMessageError as err:
            self._refuse("footsteps/request", str(err))
            return
        method = self.planner.set_foot_steps_with_speed if request.with_speed else self.planner.set_foot_steps
        self._command("footsteps/request", lambda: self.cycle.other_command(
            lambda: method(request.legs, request.poses, request.timing, request.clear_existing)))

    def on_stop_move(self, request: Trigger.Request, response: Trigger.Response):
        response.success = self._command("stop_move", lambda: self.cycle.other_command(self.planner.stop_move))
        response.message = f"stopping after {len(self.planner.steps())} steps"
        return response

    def on_kill_move(self, request: Trigger.Request, response: Trigger.Response):
        response.success = self._command("kill_move", self._kill_move)
        response.message = "every step dropped"
        return response

    def _kill_move(self) -> None:
        self.cycle.kill_move()

    # --- cycle --------------------------------------------------------------------------------
    def follow_robot_cycle(self) -> None:
        """Run after the robot's cycle (``after_robot_cycle``, called by the composed suite after
        each joint_states its nodes answered), not on timers. Composed, the nodes share one
        thread: a moveTo's planning (5-10 ms) or a closing step's replanning, started by a timer
        or a goal just before a joint_states, held the whole body's answer past the robot's next
        cycle. Right after the cycle, the thread has most of a cycle free."""
        self.following = True
        self.cycle_timer.cancel()
        self.period_timer.cancel()

    def after_robot_cycle(self) -> None:
        """Following: the goals received since the last cycle, then the cycle while there is
        something to plan from, else every PLAN_PERIOD_S."""
        self._plan_pending_goals()
        since_s = self._now_s() - self.last_cycle_s
        if self.cycle_active or not 0.0 <= since_s < PLAN_PERIOD_S:  # (< 0: the clock went back)
            self.on_cycle()

    def _plan_pending_goals(self) -> None:
        goals, self.pending_goals = self.pending_goals, []  # (each goal's own _command finds none)
        for msg in goals:
            self._plan_goal(msg)

    def on_cycle(self) -> None:
        start = self.diagnostics.start()
        self.last_cycle_s = self._now_s()
        self._advance()
        steps = self.planner.steps()
        key = (self.accepted, self.refused, len(steps), len(self.planner.unchangeable_steps()))
        changed = key != self.published_key or (steps and not (
            steps[0] is self.published_steps[0] and steps[-1] is self.published_steps[-1]))
        if changed or self.planner.now_s - self.last_plan_s >= PLAN_PERIOD_S:
            self._publish_plan()
        self.diagnostics.record(start)
        self.diagnostics.values.update({
            "mode": self.planner.mode.value, "steps": len(steps),
            "unchangeable_steps": key[3], "accepted_commands": self.accepted,
            "refused_commands": self.refused, "last_refusal": self.last_refusal,
            "cmd_vel_timeouts": self.velocity_timeouts,
            "plan_from_odom": _pose_text(self.plan_frame.plan_from_odom),
            "odometry_samples": self.plan_frame.samples,
            "move_to_corrections": self.cycle.correction.corrections,
            "move_to_rest": "none" if self.cycle.correction.last_remaining is None else
                            _pose_text(self.cycle.correction.last_remaining),
        })
        self.diagnostics.set_status(DiagnosticStatus.OK, self.planner.mode.value)
        if not steps and self.planner.mode is WalkMode.IDLE and not self.cycle.closing:
            self.cycle_active = False
            self.cycle_timer.cancel()

    def _publish_plan(self) -> None:
        feet = self.planner.feet
        steps = self.planner.steps()
        unchangeable = len(self.planner.unchangeable_steps())
        plan = plan_of(self.planner.now_s, self.accepted, self.refused, feet.left, feet.right, steps, unchangeable)
        self.plan_pub.publish(encode_plan(plan))
        if self.marker_pub.get_subscription_count() > 0:  # rviz: built only for a viewer
            self.marker_pub.publish(self._markers(plan))
        self.published_steps, self.published_key = steps, (self.accepted, self.refused, len(steps), unchangeable)
        self.last_plan_s = self.planner.now_s
        p = self.plan_frame.plan_from_odom
        if self.sent_plan_frame is None or _moved(self.sent_plan_frame, p, self.planner.get_robot_position()):
            # Static: it moves only when an odometry sample is compared (after a walk), and a
            # static frame is valid at every stamp the plan's poses are drawn at.
            self.sent_plan_frame = p
            self.tf_pub.send_static([transform_stamped(ODOM_FRAME, PLAN_FRAME, p.inverse().to_transform(),
                                                       self.get_clock().now().to_msg())])

    # --- markers ------------------------------------------------------------------------------
    def _markers(self, plan: FootstepPlan) -> MarkerArray:
        stamp = self.get_clock().now().to_msg()
        markers = [Marker(action=Marker.DELETEALL)]
        feet = [(Leg.LEFT, plan.left, "planted"), (Leg.RIGHT, plan.right, "planted")]
        feet += [(s.leg, s.target, "unchangeable" if s.unchangeable else "changeable") for s in plan.steps]
        to_odom = self.plan_frame.to_odom
        for i, (leg, pose, kind) in enumerate(feet):
            pose = to_odom(pose)  # drawn where the odometry has the robot
            (cx, cy), (sx, sy) = self.sole_boxes[leg]
            m = Marker(ns=kind, id=i, type=Marker.CUBE, action=Marker.ADD, color=self.colours[(leg, kind)])
            m.header.frame_id, m.header.stamp = ODOM_FRAME, stamp
            m.pose.position.x, m.pose.position.y = pose.transform_point(cx, cy)
            m.pose.position.z = 0.5 * SOLE_THICKNESS_M
            m.pose.orientation.z, m.pose.orientation.w = math.sin(0.5 * pose.theta), math.cos(0.5 * pose.theta)
            m.scale.x, m.scale.y, m.scale.z = sx, sy, SOLE_THICKNESS_M
            markers.append(m)
        return MarkerArray(markers=markers)


def _moved(sent: Pose2D, plan_from_odom: Pose2D, robot_plan: Pose2D) -> bool:
    """Whether the plan's frame moved the plan's robot in odom by more than the /tf_static threshold."""
    shift_m, shift_rad = frame_shift(sent, plan_from_odom, robot_plan)
    return shift_m > TF_STATIC_SHIFT_M or shift_rad > TF_STATIC_SHIFT_RAD


def _pose_text(pose: Pose2D) -> str:
    return f"{pose.x:.3f} m, {pose.y:.3f} m, {pose.theta:.3f} rad"


def _box_centre_and_size(box) -> tuple[tuple[float, float], tuple[float, float]]:
    """Centre (in the sole frame) and size of an axis-aligned sole box, m."""
    xs, ys = [v[0] for v in box], [v[1] for v in box]
    return ((0.5 * (min(xs) + max(xs)), 0.5 * (min(ys) + max(ys))), (max(xs) - min(xs), max(ys) - min(ys)))


def main(args=None) -> None:
    run_node(FootstepPlannerNode, args)


if __name__ == "__main__":
    main()
