"""ALMotion's walk methods: moveInit, moveIsActive, waitUntilMoveIsFinished, getRobotPosition,
setMoveArmsEnabled, getMoveArmsEnabled, setMotionConfig, and the non-blocking ``post`` calls (``post.moveTo``,
``wait``, ``isRunning``), over the walk node's topics, service and parameters (see
nodes/walk_node.py). Builds on the locomotion methods (the planner's plan and commands).

* moveIsActive: with the walk node running (its latched ``walk/active`` was received), True
  while the walk executes steps or its centre of mass settles, or while the plan still holds
  steps (a command sent, the walk about to start); without it, while the plan holds steps.
  Also while a posted locomotion call (``post.moveTo(...)``) runs.
* moveTo and setFootStepsWithSpeed block until the plan is empty and then, with the walk node,
  until the walk has ended (NAOqi: "blocking until walk process is finished"), or until a later
  command takes the move over (NAOqi: "the last command received overrides all previous
  commands"); waitUntilMoveIsFinished until the move has ended, whichever command made it, after
  the posted locomotion calls (raising the error of one that failed: ``post``).
* setMotionConfig([[key, value], ...]): NAOqi's walk protections, ENABLE_FOOT_CONTACT_PROTECTION
  and ENABLE_STIFFNESS_PROTECTION (True / False), set together on the walk node
  (``foot_contact_protection``, ``stiffness_protection``); any other ALMotion.xml key is refused
  with the list of those this suite has, and nothing is changed.
* getRobotPosition(useSensors): [x, y, theta] of FRAME_ROBOT in FRAME_WORLD (``world_frame``):
  True from the walk node's sensed odometry (``odom``), False the planner's robot position (the
  commanded planted feet' midpoint, in the plan's frame): as NAOqi's sensor and command
  odometries, both start together and part where the robot ends off its plan.
"""

from __future__ import annotations

import threading

from rcl_interfaces.srv import GetParameters, SetParametersAtomically
from rclpy.parameter import Parameter
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from ..ros.qos import LATCHED_QOS
from .client_base import ALMotionError
from .post import PostMethods

WALK_NODE = "walk"
ARM_CHAINS = ("LArm", "RArm")
MOVE_INIT_TIMEOUT_S = 5.0  # the node's move_init_timeout_s default, waited for on top of the client's timeout
# NAOqi's setMotionConfig keys -> the walk node's parameters.
MOTION_CONFIG_PARAMETERS = {"ENABLE_FOOT_CONTACT_PROTECTION": "foot_contact_protection",
                            "ENABLE_STIFFNESS_PROTECTION": "stiffness_protection"}
SETTLE_TIMEOUT_S = 3.0  # the walk ends at most 2 s after its last step (walk_node.MAX_SETTLE_S)


class WalkMethods(PostMethods):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        node = self.node
        self._walk_state = threading.Condition()
        self._walk_active: bool | None = None  # None: no walk node seen
        node.create_subscription(Bool, f"{WALK_NODE}/active", self._on_walk_active, LATCHED_QOS)
        self._walk_init_client = node.create_client(Trigger, f"{WALK_NODE}/move_init")
        self._walk_set_client = node.create_client(SetParametersAtomically, f"{WALK_NODE}/set_parameters_atomically")
        self._walk_get_client = node.create_client(GetParameters, f"{WALK_NODE}/get_parameters")

    # --- NAOqi methods ------------------------------------------------------------------
    def moveInit(self) -> None:
        """Blocking: go to the walk's initial posture (StandInit); raises if it was not reached."""
        response = self.call_service(self._walk_init_client, Trigger.Request(), "walk node",
                                     MOVE_INIT_TIMEOUT_S + self.timeout_s)
        if not response.success:
            raise ALMotionError(f"moveInit: {response.message}")

    def moveIsActive(self) -> bool:
        with self._walk_state:
            active = self._walk_active
        return bool(active) or self.post.moving() or super().moveIsActive()

    def waitUntilMoveIsFinished(self) -> None:
        self.post.wait_moves()
        super().waitUntilMoveIsFinished()

    def _loco_move_finished(self) -> None:
        self._walk_wait_ended()

    def getRobotPosition(self, useSensors: bool) -> list[float]:
        """[x, y, theta] (m, rad) of FRAME_ROBOT in FRAME_WORLD: measured (the walk's odometry)
        or commanded (the plan's planted feet)."""
        return self._robot_position(bool(useSensors)).as_list()

    def setMoveArmsEnabled(self, leftArmEnable: bool, rightArmEnable: bool) -> None:
        """Arm swing while walking, per arm (user arm commands take priority anyway)."""
        request = SetParametersAtomically.Request(parameters=[
            Parameter(f"move_arms_enabled.{chain}", value=bool(enabled)).to_parameter_msg()
            for chain, enabled in zip(ARM_CHAINS, (leftArmEnable, rightArmEnable))])
        result = self.call_service(self._walk_set_client, request, "walk node").result
        if not result.successful:
            raise ALMotionError(f"setMoveArmsEnabled refused: {result.reason}")

    def getMoveArmsEnabled(self, chainName: str) -> bool:
        """"LArm", "RArm", or "Arms" (True when both swing)."""
        chains = ARM_CHAINS if chainName == "Arms" else (chainName,)
        if chainName not in ARM_CHAINS + ("Arms",):
            raise ALMotionError(f"chainName must be 'LArm', 'RArm' or 'Arms', got {chainName!r}")
        request = GetParameters.Request(names=[f"move_arms_enabled.{chain}" for chain in chains])
        values = self.call_service(self._walk_get_client, request, "walk node").values
        return all(v.bool_value for v in values)

    def setMotionConfig(self, config) -> None:
        """NAOqi's motion configuration, [[key, value], ...]: the walk's protections."""
        values = {}
        for entry in config if isinstance(config, (list, tuple)) else [config]:
            if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
                raise ALMotionError(f"setMotionConfig: {entry!r} is not a [key, value] pair")
            key, value = entry
            if key not in MOTION_CONFIG_PARAMETERS:
                raise ALMotionError(f"setMotionConfig: unknown key {key!r}; this suite has "
                                    f"{', '.join(MOTION_CONFIG_PARAMETERS)}")
            if not isinstance(value, bool):
                raise ALMotionError(f"setMotionConfig: {key} must be True or False, got {value!r}")
            values[MOTION_CONFIG_PARAMETERS[key]] = value
        request = SetParametersAtomically.Request(
            parameters=[Parameter(name, value=value).to_parameter_msg() for name, value in values.items()])
        result = self.call_service(self._walk_set_client, request, "walk node").result
        if not result.successful:
            raise ALMotionError(f"setMotionConfig refused: {result.reason}")

    # --- plumbing -----------------------------------------------------------------------
    def _on_walk_active(self, msg: Bool) -> None:
        with self._walk_state:
            self._walk_active = msg.data
            self._walk_state.notify_all()

    def _walk_wait_ended(self) -> None:
        """Until the walk node says the walk is over (at once without a walk node)."""
        with self._walk_state:
            if not self._walk_state.wait_for(lambda: not self._walk_active, SETTLE_TIMEOUT_S + self.timeout_s):
                raise ALMotionError("the walk did not end after its last step")
