"""ALMotion's locomotion: moveTo, move, moveToward, setFootSteps(WithSpeed), stopMove, killMove,
getFootSteps, getNextRobotPosition, getMoveConfig, moveIsActive, waitUntilMoveIsFinished, over the
footstep planner node's topics, services and parameters (see nodes/footstep_planner_node.py).

* Move config: each call's config replaces the previous one (NAOqi: unset keys take their
  defaults), so every call first sets all the node's gait parameters in one atomic request (the
  config over NAOqi's defaults; per-foot keys "Left..."/"Right..." and NAOqi's two-list form
  ``[[left pairs], [right pairs]]`` become the node's per-foot parameters, "Frequency" its
  ``frequency``), then sends the command. A ROS user's later ``cmd_vel`` walks with it too.
* moveTo(x, y, theta) is relative to the robot position of the latest ``footsteps/plan`` (the
  planted feet' midpoint) and is sent as a ``goal_pose`` in the plan's own frame
  (``footstep_plan``, which the planner takes as is: a goal in ``odom`` would go through the
  sensed odometry, from where the robot senses itself). Its fourth argument is a
  move config, or NAOqi's older normalised step frequency (``moveTo(1.0, 0.0, 0.0, 1.0)``, seed
  003), which is sent as ``MaxStepFrequency``: moveTo walks at Frequency 1, and the step period
  depends on Frequency x MaxStepFrequency only, so both give the same steps.
* Arguments are checked with the planner's own validation before anything is sent, so a refused
  call raises :class:`ALMotionError` with the reason and changes nothing. A command is confirmed
  by the plan's accepted/refused counters; moveTo and setFootStepsWithSpeed then block (as in
  NAOqi) until the plan is empty, waiting on the node's clock as published.
* move and moveToward walk until told otherwise, as NAOqi's: the client renews the command
  within the planner's ``cmd_vel_timeout_s`` (``cmd_vel_keepalive``) until the planner accepts
  another command, this client's or anyone's (``move_renewal``); a zero velocity stops as
  stopMove.
* getFootSteps / getNextRobotPosition / moveIsActive decode the latest ``footsteps/plan``;
  getNextRobotPosition(True) starts from the measured robot position (``world_frame``).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Mapping, Sequence
from numbers import Real

from geometry_msgs.msg import PoseStamped, Twist
from rcl_interfaces.srv import SetParametersAtomically
from rclpy.parameter import Parameter
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

from ..footsteps import FootstepError, FootstepPlanner, Pose2D
from ..footsteps.gait_config import FREQUENCY_KEY, GAIT_PARAMETERS, get_move_config, parse_move_config
from ..ros.footstep_messages import (
    FOOT_PREFIXES, PER_FOOT_KEYS, PLAN_FRAME, SETTABLE_KEYS, FootstepPlan, FootstepRequest, decode_plan,
    encode_request)
from ..ros.qos import LATCHED_QOS
from .client_base import ALMotionError
from .move_renewal import MoveRenewal

PLANNER_NODE = "footstep_planner"
MAX_STEP_FREQUENCY_KEY = "MaxStepFrequency"


class LocomotionMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        node = self.node
        self._footstep_plan: FootstepPlan | None = None
        self._footstep_plan_changed = threading.Condition()
        self._loco_renewal = MoveRenewal(node)  # before the plans come: they end a move it keeps alive
        node.create_subscription(Float64MultiArray, "footsteps/plan", self._on_footstep_plan, LATCHED_QOS)
        self._loco_cmd_vel_pub = node.create_publisher(Twist, "cmd_vel", 10)
        self._loco_cmd_vel_normalized_pub = node.create_publisher(Twist, "cmd_vel_normalized", 10)
        self._loco_goal_pub = node.create_publisher(PoseStamped, "goal_pose", 10)
        self._loco_footsteps_pub = node.create_publisher(Float64MultiArray, "footsteps/request", 10)
        self._loco_stop_client = node.create_client(Trigger, "stop_move")
        self._loco_kill_client = node.create_client(Trigger, "kill_move")
        self._loco_parameters_client = node.create_client(SetParametersAtomically,
                                                          f"{PLANNER_NODE}/set_parameters_atomically")

    # --- NAOqi methods ------------------------------------------------------------------
    def moveTo(self, x: float, y: float, theta: float, moveConfig=None) -> None:
        """Blocking: walk to (x m, y m, theta rad) relative to the robot; one config for both
        feet, or a normalised step frequency in [0, 1]."""
        target = Pose2D(*self._loco_numbers((x, y, theta), "moveTo"))
        self._refuse_if_fallen("moveTo")
        if isinstance(moveConfig, Real) and not isinstance(moveConfig, bool):
            if not (math.isfinite(moveConfig) and 0.0 <= moveConfig <= 1.0):
                raise ALMotionError(f"moveTo refused: the step frequency must be in [0, 1], got {moveConfig!r}")
            moveConfig = [[MAX_STEP_FREQUENCY_KEY, float(moveConfig)]]
        self._loco_set_config(moveConfig, per_foot=False)
        goal = (self._loco_plan().robot_position() * target).normalized()
        msg = PoseStamped()
        msg.header.frame_id = PLAN_FRAME  # the plan's robot position's frame
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.pose.position.x, msg.pose.position.y = goal.x, goal.y
        msg.pose.orientation.z, msg.pose.orientation.w = math.sin(0.5 * goal.theta), math.cos(0.5 * goal.theta)
        if self._loco_wait_finished(self._loco_send(self._loco_goal_pub, msg, "moveTo")):
            self._loco_move_finished()
        self._refuse_if_fallen("moveTo")  # fell on the way

    def move(self, x: float, y: float, theta: float, moveConfig=None) -> None:
        """Walk at (x m/s, y m/s, theta rad/s) in the robot frame until told otherwise (renewed
        within the planner's cmd_vel timeout: ``move_renewal``); zero stops."""
        self._loco_velocity(self._loco_cmd_vel_pub, (x, y, theta), moveConfig, "move")

    def moveToward(self, x: float, y: float, theta: float, moveConfig=None) -> None:
        """Walk at a normalised velocity (each in [-1, 1]); Frequency in the config; zero stops."""
        self._loco_velocity(self._loco_cmd_vel_normalized_pub, (x, y, theta), moveConfig, "moveToward")

    def setFootSteps(self, legName, footSteps, timeList, clearExisting: bool) -> None:
        """Non-blocking: footsteps relative to the other foot, ending at the cumulative times (s)."""
        self._loco_footsteps(FootstepRequest(legName, footSteps, timeList, clearExisting, False), "setFootSteps")

    def setFootStepsWithSpeed(self, legName, footSteps, fractionMaxSpeed, clearExisting: bool) -> None:
        """Blocking: footsteps relative to the other foot at normalised speeds (0..1)."""
        plan = self._loco_footsteps(FootstepRequest(legName, footSteps, fractionMaxSpeed, clearExisting, True),
                                    "setFootStepsWithSpeed")
        if self._loco_wait_finished(plan):
            self._loco_move_finished()
        self._refuse_if_fallen("setFootStepsWithSpeed")  # fell on the way

    def getFootSteps(self) -> list:
        """[[left, right] planted feet, unchangeable steps, changeable steps]; a step is
        [leg name, [x, y, theta] touch-down pose, seconds until it ends]; poses in the plan's frame
        (getRobotPosition(False)'s FRAME_WORLD)."""
        return self._loco_plan().foot_steps()

    def getNextRobotPosition(self, useSensors: bool = False) -> list[float]:
        """[x, y, theta] of the robot (FRAME_WORLD) after the last unchangeable step: the plan's
        (its frame); with ``useSensors`` the measured robot position (getRobotPosition(True),
        ``odom``) moved by what those steps still do."""
        plan = self._loco_plan()
        if not useSensors:
            return plan.next_robot_position().as_list()
        ahead = plan.next_robot_position().relative_to(plan.robot_position())
        return (self._robot_position(True) * ahead).normalized().as_list()

    def getMoveConfig(self, config: str) -> list:
        """NAOqi's "Max", "Min" or "Default" move config: [[key, value], ...] of the settable keys."""
        try:
            return get_move_config(config)
        except FootstepError as err:
            raise ALMotionError(str(err)) from None

    def moveIsActive(self) -> bool:
        return bool(self._loco_plan().steps)

    def waitUntilMoveIsFinished(self) -> None:
        """Until the move under way has ended, whichever command made it (a later one included)."""
        self._loco_wait_finished(self._loco_plan(), follow_later_commands=True)
        self._loco_move_finished()

    def stopMove(self) -> None:
        """Stop at the next double support: the unchangeable steps, then the feet together."""
        self._loco_trigger(self._loco_stop_client, "stopMove")

    def killMove(self) -> None:
        """Stop at once, the step in progress included: no settling (a foot in the air is set
        straight down, then the walk ends; README, walk)."""
        self._loco_trigger(self._loco_kill_client, "killMove")

    # --- commands -----------------------------------------------------------------------
    def _loco_velocity(self, publisher, values, move_config, call: str) -> None:
        vx, vy, wz = self._loco_numbers(values, call)
        if (vx, vy, wz) != (0.0, 0.0, 0.0):  # (stopping is always allowed)
            self._refuse_if_fallen(call)
        self._loco_set_config(move_config, per_foot=True)
        msg = Twist()
        msg.linear.x, msg.linear.y, msg.angular.z = vx, vy, wz
        plan = self._loco_send(publisher, msg, call)
        if (vx, vy, wz) != (0.0, 0.0, 0.0):
            self._loco_renewal.hold(plan)
            self._loco_renewal.observe(self._footstep_plan)  # a command that came since

    def _loco_footsteps(self, request: FootstepRequest, call: str) -> FootstepPlan:
        scratch = FootstepPlanner()  # the planner's own validation, so that a refusal says why here
        method = scratch.set_foot_steps_with_speed if request.with_speed else scratch.set_foot_steps
        try:
            method(request.legs, request.poses, request.timing, request.clear_existing)
            msg = encode_request(request)
        except FootstepError as err:
            raise ALMotionError(f"{call} refused: {err}") from None
        if not request.legs:
            raise ALMotionError(f"{call} refused: no footsteps")
        self._refuse_if_fallen(call)
        return self._loco_send(self._loco_footsteps_pub, msg, call)

    def _loco_numbers(self, values, call: str) -> tuple[float, ...]:
        if not all(isinstance(v, Real) and not isinstance(v, bool) and math.isfinite(v) for v in values):
            raise ALMotionError(f"{call} refused: arguments must be finite numbers, got {list(values)}")
        return tuple(float(v) for v in values)

    def _loco_set_config(self, move_config, per_foot: bool) -> None:
        """Every gait parameter of the node: NAOqi's defaults with ``move_config`` over them."""
        entries = _move_config_entries(move_config)
        try:
            parse_move_config(entries, allow_per_foot=per_foot, allow_frequency=per_foot)
        except FootstepError as err:
            raise ALMotionError(str(err)) from None
        values = {key: GAIT_PARAMETERS[key].default for key in SETTABLE_KEYS}
        values.update({key: math.nan for key in PER_FOOT_KEYS})
        values["frequency"] = 1.0
        for key, value in entries:
            values["frequency" if key == FREQUENCY_KEY else key] = float(value)
        request = SetParametersAtomically.Request(
            parameters=[Parameter(name, value=value).to_parameter_msg() for name, value in values.items()])
        result = self.call_service(self._loco_parameters_client, request, "footstep planner").result
        if not result.successful:
            raise ALMotionError(f"move config refused: {result.reason}")

    def _loco_send(self, publisher, msg, call: str) -> FootstepPlan:
        """Publish a command; return the first plan that took it (ALMotionError if refused)."""
        before = self._loco_plan()
        deadline = time.monotonic() + self.timeout_s
        while publisher.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                raise ALMotionError(f"{call}: nobody subscribes {publisher.topic_name} within {self.timeout_s} s")
            time.sleep(0.005)
        publisher.publish(msg)
        self._loco_wait(lambda: self._footstep_plan.accepted_commands > before.accepted_commands
                        or self._footstep_plan.refused_commands > before.refused_commands,
                        self.timeout_s, f"{call}: no answer from the footstep planner")
        plan = self._footstep_plan
        if plan.accepted_commands == before.accepted_commands:
            raise ALMotionError(f"{call} refused by the footstep planner (its log says why)")
        return plan

    def _loco_move_finished(self) -> None:
        """What a blocking move waits for once its plan ran out of steps (the walk's end: WalkMethods)."""

    def _loco_wait_finished(self, plan: FootstepPlan, follow_later_commands: bool = False) -> bool:
        """Until a plan has no step (True), or a later command took the move over (False; NAOqi:
        "the last command received overrides all previous commands": the blocking call that
        made ``plan`` returns); ``follow_later_commands``: the later command's plan is waited
        for instead. Allowed the plan's duration plus the timeout on the planner's clock (the
        plans' time: sim time in a simulation, whatever its real-time factor), and the timeout
        of wall time without a new plan (the planner republishes it twice a second). The
        planner may lengthen the move without a new command (its accepted count unchanged): the
        start held while the walk initialises, moveTo's closing steps; the deadline then follows
        the plan's last step."""
        deadline_s = (plan.steps[-1].end_s if plan.steps else plan.time_s) + self.timeout_s
        accepted = plan.accepted_commands
        while True:
            latest = self._footstep_plan
            self._loco_wait(lambda: not self._footstep_plan.steps or self._footstep_plan is not latest,
                            self.timeout_s, "the move did not finish: no footsteps/plan")
            current = self._footstep_plan
            if not current.steps:
                return True
            if current.accepted_commands != accepted:
                if not follow_later_commands:
                    return False
                accepted = current.accepted_commands
            deadline_s = max(deadline_s, current.steps[-1].end_s + self.timeout_s)
            if current.time_s > deadline_s:
                raise ALMotionError(f"the move did not finish within {deadline_s - plan.time_s:.1f} s "
                                    "of the planner's clock")

    def _loco_trigger(self, client, call: str) -> None:
        """Call a service; return once the plan it made has arrived (so queries see it)."""
        before = self._loco_plan()
        response = self.call_service(client, Trigger.Request(), "footstep planner")
        if not response.success:
            raise ALMotionError(f"{call} refused: {response.message}")
        self._loco_wait(lambda: self._footstep_plan.accepted_commands > before.accepted_commands, self.timeout_s,
                        f"{call}: no plan from the footstep planner")

    def close(self) -> None:
        self._loco_renewal.release()  # the planner stops the walk after its cmd_vel timeout
        super().close()

    # --- plumbing -----------------------------------------------------------------------
    def _on_footstep_plan(self, msg: Float64MultiArray) -> None:
        try:
            plan = decode_plan(msg)
        except ValueError as err:
            self.node.get_logger().warning(f"footsteps/plan ignored: {err}")
            return
        with self._footstep_plan_changed:
            self._footstep_plan = plan
            self._footstep_plan_changed.notify_all()
        self._loco_renewal.observe(plan)

    def _loco_plan(self) -> FootstepPlan:
        self._loco_wait(lambda: self._footstep_plan is not None, self.timeout_s,
                        "no footsteps/plan received: is the footstep planner running?")
        return self._footstep_plan

    def _loco_wait(self, condition, timeout_s: float, what: str) -> None:
        with self._footstep_plan_changed:
            if not self._footstep_plan_changed.wait_for(condition, timeout_s):
                raise ALMotionError(f"{what} within {timeout_s:.1f} s")



def _move_config_entries(move_config) -> list[list]:
    """[[key, value], ...] of a NAOqi move config: a key-value list (or dict), or the per-foot
    two-list form [[left pairs], [right pairs]] turned into Left/Right-prefixed keys."""
    if move_config is None:
        return []
    if isinstance(move_config, Mapping):
        return [[k, v] for k, v in move_config.items()]
    if isinstance(move_config, (str, bytes)) or not isinstance(move_config, Sequence):
        raise ALMotionError(f"a move config is a list of [key, value] pairs, got {move_config!r}")
    if len(move_config) == 2 and all(
            isinstance(foot, Sequence) and not isinstance(foot, str)
            and all(isinstance(pair, Sequence) and not isinstance(pair, str) for pair in foot)
            for foot in move_config):
        entries = []
        for prefix, foot in zip(FOOT_PREFIXES, move_config):
            for pair in foot:
                if len(pair) != 2:
                    raise ALMotionError(f"move config entry {pair!r} is not a [key, value] pair")
                key = pair[0] if pair[0] == FREQUENCY_KEY else f"{prefix}{pair[0]}"
                entries.append([key, pair[1]])
        return entries
    return [list(entry) if isinstance(entry, Sequence) and not isinstance(entry, str) else entry
            for entry in move_config]
