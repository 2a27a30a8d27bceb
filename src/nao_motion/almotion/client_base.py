"""The ROS side of the ALMotion client: one rclpy node spun in a background thread.

NAOqi scripts call ALMotion synchronously; the client keeps the latest robot state from
the suite's topics so those calls answer at once, and waits (with a timeout) only for the
first message.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import numpy as np
import rclpy
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

from ..joint_input import JointInputError, parse_joint_values
from ..kinematics import ForwardKinematics
from ..model import NaoModel
from ..ros.executor import CycleExecutor
from ..ros.qos import LATCHED_QOS
from ..ros.sampled import SampledSubscription
from ..suite import NODES
from .cycle_clock import CycleClock
from .errors import ALMotionError


# A freshly started client's graph fills in over its first seconds (Fast DDS on one machine: the
# suite's publishers appeared 1.4-3.0 s after the client's node, in 3 runs); a stream whose
# publisher has not appeared this long after the client started is taken as absent.
DISCOVERY_S = 5.0
SUITE_NODE_NAMES = frozenset(spec.executable for spec in NODES)


class ClientBase:
    def __init__(self, nao_version: str | None = None, node_name: str = "almotion_client", timeout_s: float = 5.0):
        """``nao_version`` None: the running suite's (its nodes' ``nao_version`` parameter), asked
        of the first suite node in the graph, waited for up to ``timeout_s``."""
        self.timeout_s = timeout_s
        self._owns_context = not rclpy.ok()
        if self._owns_context:
            rclpy.init()
        self.node = rclpy.create_node(node_name)
        self._started_s = time.monotonic()
        self._lock = threading.Lock()
        self._sensed = self._commanded = None
        # Read when a call asks (a script's process should not wake a hundred times a second
        # for the robot's streams): every message since the last read is merged.
        self._states = SampledSubscription(self.node, JointState, "joint_states", depth=20)
        self._commands = SampledSubscription(self.node, JointState, "joint_commands", depth=20)
        # The blocking calls wait in the commanding node's time, the stamps of its commands.
        self._joint_commands_clock = CycleClock(self.node, JointState, "joint_commands")
        self._safe_commands_clock: CycleClock | None = None  # the filter's, in the suite (_motion_clock)
        self._fallen = False  # the whole body's robot_has_fallen (latched)
        self.node.create_subscription(Bool, "robot_has_fallen", self._on_robot_has_fallen, LATCHED_QOS)
        self._executor = CycleExecutor()
        self._executor.add_node(self.node)
        self._thread = threading.Thread(target=self._executor.spin, daemon=True)
        self._thread.start()
        try:
            self.model = NaoModel(nao_version or self._suite_nao_version())
        except BaseException:
            ClientBase.close(self)  # (the other parts' close: they were never set up)
            raise
        self.fk = ForwardKinematics(self.model)

    def _on_robot_has_fallen(self, msg: Bool) -> None:
        self._fallen = msg.data

    def _refuse_if_fallen(self, call: str) -> None:
        """ALMotionError for a motion that assumes a standing robot, asked of a fallen one."""
        if self._fallen:
            raise ALMotionError(f"{call} refused: the robot has fallen (robot_has_fallen); "
                                "get it up first (a posture, or put it on its feet)")

    def _suite_nao_version(self) -> str:
        """The NAO version the running suite was started for: the ``nao_version`` of the first
        suite node found in the graph."""
        deadline = time.monotonic() + self.timeout_s
        request = GetParameters.Request(names=["nao_version"])
        while time.monotonic() < deadline:
            for name, namespace in self.node.get_node_names_and_namespaces():
                if name not in SUITE_NODE_NAMES:
                    continue
                client = self.node.create_client(GetParameters, f"{namespace.rstrip('/')}/{name}/get_parameters")
                try:
                    values = self.call_service(client, request, f"{name} node",
                                               timeout_s=max(deadline - time.monotonic(), 0.5)).values
                finally:
                    self.node.destroy_client(client)
                if values and values[0].type == ParameterType.PARAMETER_STRING:
                    return values[0].string_value
            time.sleep(0.05)
        raise ALMotionError(f"no suite node ({', '.join(sorted(SUITE_NODE_NAMES))}) told its nao_version within "
                            f"{self.timeout_s} s: is the suite up? (ALMotion(nao_version=...) names the robot)")

    def _present(self, topic: str) -> bool:
        """Whether ``topic`` has a publisher (waiting for discovery while the client is young:
        ``DISCOVERY_S``)."""
        while self.node.count_publishers(topic) == 0:
            if time.monotonic() - self._started_s > DISCOVERY_S:
                return False
            time.sleep(0.01)
        return True

    def _merge(self, current: np.ndarray | None, msg: JointState) -> np.ndarray | None:
        try:
            parsed = parse_joint_values(self.model, msg.name, msg.position, unknown_names="ignore")
        except JointInputError:
            return current
        q = current.copy() if current is not None else self.model.zero_configuration()
        q[parsed.indices] = parsed.values
        return q

    def _read(self) -> None:
        with self._lock:
            for msg in self._states.take_all():
                self._sensed = self._merge(self._sensed, msg)
            for msg in self._commands.take_all():
                self._commanded = self._merge(self._commanded, msg)

    def _configuration(self, use_sensor_values: bool) -> np.ndarray:
        """Sensed joint angles, or the last command (NAOqi's useSensors=False) when one was seen."""
        deadline = time.monotonic() + self.timeout_s
        while True:
            self._read()
            with self._lock:
                q = self._sensed if use_sensor_values or self._commanded is None else self._commanded
            if q is not None:
                return q.copy()
            if time.monotonic() > deadline:
                raise ALMotionError(f"no joint_states received within {self.timeout_s} s: is the robot up?")
            time.sleep(0.01)

    def call_service(self, client, request, server: str, timeout_s: float | None = None):
        """Call a service from the user's thread (the client's executor thread completes the
        future); `server` names the node that answers, for the error message."""
        if not client.wait_for_service(timeout_sec=self.timeout_s):
            raise ALMotionError(f"service {client.srv_name} not available within {self.timeout_s} s: "
                                f"is the {server} running?")
        timeout_s = self.timeout_s if timeout_s is None else timeout_s
        future = client.call_async(request)
        deadline = time.monotonic() + timeout_s
        while not future.done():
            if time.monotonic() > deadline:
                client.remove_pending_request(future)
                raise ALMotionError(f"no answer from {client.srv_name} within {timeout_s:.1f} s")
            time.sleep(0.005)
        return future.result()

    def close(self) -> None:
        self._executor.shutdown()
        self.node.destroy_node()
        if self._owns_context and rclpy.ok():
            rclpy.shutdown()

    @classmethod
    @contextmanager
    def connect(cls, client=None, **kwargs):
        """The client of a ported NAOqi script's main(): the caller's (left open), else a new
        one, closed at the end (NAOqi scripts make their proxy in main())."""
        if client is not None:
            yield client
            return
        with cls(**kwargs) as own:
            yield own

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
