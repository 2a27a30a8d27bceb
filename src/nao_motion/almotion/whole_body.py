"""ALMotion's whole-body methods: wbEnable, wbFootState, wbEnableBalanceConstraint,
wbEnableEffectorControl, wbSetEffectorControl, wbGoToBalance, over the whole-body node's
service, parameters and topics (see nodes/whole_body_node.py).

Arguments are checked here with the node's own vocabulary (wholebody.modes) so a malformed call
raises :class:`ALMotionError` at once; a combination the node refuses (a balance constraint the
foot states do not allow, ...) raises it with the node's reason. Nothing is changed when a call
is refused. One refusal is NAOqi's documented behaviour, not an error: a balance constraint
asked while the centre of mass is outside its polygon "is not activated";
wbEnableBalanceConstraint then returns False and logs the reason. wbSetEffectorControl's target
goes on a topic, which answers nothing: the client first reads the node's
``effector_control.<name>`` and refuses, with the node's reason, a target it would refuse.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from geometry_msgs.msg import PointStamped, Vector3Stamped
from rcl_interfaces.srv import GetParameters, SetParametersAtomically
from rclpy.parameter import Parameter
from std_srvs.srv import SetBool, Trigger

from ..wholebody.modes import (BALANCE_NOT_ACTIVATED, EFFECTORS, SUPPORT_FEET, SUPPORT_LEGS, check_effector,
                               check_effector_enabled, check_effector_target, check_support_leg,
                               parse_foot_state)
from .client_base import ALMotionError

WHOLE_BODY_NODE = "whole_body"


class WholeBodyMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        node = self.node
        self._wb_enable_client = node.create_client(SetBool, f"{WHOLE_BODY_NODE}/enable")
        self._wb_parameters_client = node.create_client(
            SetParametersAtomically, f"{WHOLE_BODY_NODE}/set_parameters_atomically")
        self._wb_get_parameters_client = node.create_client(GetParameters, f"{WHOLE_BODY_NODE}/get_parameters")
        self._wb_balance_clients = {support: node.create_client(Trigger, f"{WHOLE_BODY_NODE}/go_to_balance/{support}")
                                    for support in SUPPORT_LEGS}
        self._wb_effector_pubs = {
            name: node.create_publisher(Vector3Stamped if name == "Head" else PointStamped,
                                        f"{WHOLE_BODY_NODE}/effector/{name}", 10)
            for name in EFFECTORS
        }

    # --- NAOqi methods ------------------------------------------------------------------
    def wbEnable(self, isEnabled: bool) -> None:
        """Enable or disable the whole body balancer (disabling also ends effector control)."""
        response = self.call_service(self._wb_enable_client, SetBool.Request(data=bool(isEnabled)), "whole body node")
        if not response.success:
            raise ALMotionError(f"wbEnable({bool(isEnabled)}) refused: {response.message}")

    def wbFootState(self, stateName: str, supportLeg: str) -> None:
        """"Fixed", "Plane" or "Free" for "Legs", "LLeg" or "RLeg" (both feet change together)."""
        try:
            parse_foot_state(stateName)
            check_support_leg(supportLeg)
        except ValueError as err:
            raise ALMotionError(str(err)) from None
        self._wb_set({f"{foot}_foot_state": stateName for foot in SUPPORT_FEET[supportLeg]},
                     f"wbFootState({stateName!r}, {supportLeg!r})")

    def wbEnableBalanceConstraint(self, isEnable: bool, supportLeg: str) -> bool:
        """Keep (or stop keeping) the centre of mass inside the support polygon of supportLeg.
        False (and a warning with the reason) when the constraint is not activated because the
        centre of mass is outside that polygon (NAOqi)."""
        try:
            check_support_leg(supportLeg)
        except ValueError as err:
            raise ALMotionError(str(err)) from None
        call = f"wbEnableBalanceConstraint({bool(isEnable)}, {supportLeg!r})"
        try:
            self._wb_set({"balance_constraint": bool(isEnable), "balance_support": supportLeg}, call)
        except ALMotionError as err:
            if BALANCE_NOT_ACTIVATED not in str(err):
                raise
            self.node.get_logger().warning(str(err))
            return False
        return True

    def wbEnableEffectorControl(self, effectorName: str, isEnabled: bool) -> None:
        """Control "Head" (orientation), "LArm" or "RArm" (position); enabling enables the balancer."""
        self._wb_check_effector(effectorName)
        self._wb_set({f"effector_control.{effectorName}": bool(isEnabled)},
                     f"wbEnableEffectorControl({effectorName!r}, {bool(isEnabled)})")

    def wbSetEffectorControl(self, effectorName: str, targetCoordinate) -> None:
        """Target in FRAME_ROBOT: Head (wx, wy, wz) rad, LArm / RArm (x, y, z) m. Unreachable
        targets end at the nearest feasible pose. Checked as the node checks it (the target is a
        topic, which answers nothing): a target out of range (beyond +-1 m for an arm, +-pi rad
        for the head) or an effector not under control is refused with the node's reason, nothing
        sent."""
        self._wb_check_effector(effectorName)
        values = list(targetCoordinate) if not isinstance(targetCoordinate, str) else []
        if len(values) != 3 or not all(isinstance(v, Real) and np.isfinite(v) for v in values):
            raise ALMotionError(f"targetCoordinate must be 3 finite numbers, got {targetCoordinate!r}")
        try:  # the node's own check (range): its refusal would only reach its log
            check_effector_target(effectorName, values)
        except ValueError as err:
            raise ALMotionError(f"wbSetEffectorControl refused: {err}") from None
        request = GetParameters.Request(names=[f"effector_control.{effectorName}"])
        enabled = self.call_service(self._wb_get_parameters_client, request, "whole body node").values[0].bool_value
        try:
            check_effector_enabled(effectorName, (effectorName,) if enabled else ())
        except ValueError as err:
            raise ALMotionError(f"wbSetEffectorControl refused: {err}") from None
        x, y, z = (float(v) for v in values)
        if effectorName == "Head":
            msg = Vector3Stamped()
            msg.vector.x, msg.vector.y, msg.vector.z = x, y, z
        else:
            msg = PointStamped()
            msg.point.x, msg.point.y, msg.point.z = x, y, z
        msg.header.frame_id = "FRAME_ROBOT"
        msg.header.stamp = self.node.get_clock().now().to_msg()
        publisher = self._wb_effector_pubs[effectorName]
        self._wb_wait(lambda: publisher.get_subscription_count() > 0, f"nobody subscribes {publisher.topic_name}")
        publisher.publish(msg)

    def wbGoToBalance(self, supportLeg: str, duration: float) -> None:
        """Blocking: move the centre of mass over supportLeg's support polygon in `duration` s."""
        try:
            check_support_leg(supportLeg)
        except ValueError as err:
            raise ALMotionError(str(err)) from None
        if not (isinstance(duration, Real) and np.isfinite(duration) and duration >= 0.0):
            raise ALMotionError(f"duration must be a number >= 0 s, got {duration!r}")
        self._wb_set({"go_to_balance_duration_s": float(duration)}, f"wbGoToBalance({supportLeg!r}, {duration})")
        start = self._joint_commands_clock.latest()
        response = self.call_service(self._wb_balance_clients[supportLeg], Trigger.Request(), "whole body node")
        if not response.success:
            raise ALMotionError(f"wbGoToBalance({supportLeg!r}, {duration}) refused: {response.message}")
        self._joint_commands_clock.wait_elapsed(start, float(duration), duration + self.timeout_s, "whole body node")

    # --- helpers -------------------------------------------------------------------------
    def _wb_check_effector(self, name: str) -> None:
        try:
            check_effector(name)
        except ValueError as err:
            raise ALMotionError(str(err)) from None

    def _wb_set(self, values: dict, call: str) -> None:
        """Set the node's parameters in one atomic request; raise with the node's reason if refused."""
        request = SetParametersAtomically.Request(
            parameters=[Parameter(name, value=value).to_parameter_msg() for name, value in values.items()])
        result = self.call_service(self._wb_parameters_client, request, "whole body node").result
        if not result.successful:
            raise ALMotionError(f"{call} refused: {result.reason}")

    def _wb_wait(self, condition, what: str) -> None:
        deadline = time.monotonic() + self.timeout_s
        while not condition():
            if time.monotonic() > deadline:
                raise ALMotionError(f"{what} within {self.timeout_s} s")
            time.sleep(0.005)
