"""An in-process observer of a running suite: rates, sim time, falls, tilt, the latest state.

Used by `nao-motion sim` (live status line), the demo scenario and the end-to-end tests.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState

from ..spatial import rotation_from_quaternion_xyzw
from .conversions import stamp_seconds
from .qos import CYCLE_QOS
from .tf_listener import TfListener


@dataclass
class RateMeter:
    """Messages per second of wall time over a sliding window."""

    window_s: float = 2.0
    times: deque = field(default_factory=lambda: deque(maxlen=2000))

    def tick(self) -> None:
        self.times.append(time.monotonic())

    def rate_hz(self) -> float:
        now = time.monotonic()
        recent = [t for t in self.times if now - t <= self.window_s]
        if len(recent) < 2:
            return 0.0
        return (len(recent) - 1) / max(recent[-1] - recent[0], 1e-9)

    @property
    def count(self) -> int:
        return len(self.times)


class SuiteMonitor:
    """Subscribes to the suite's public topics and keeps what a status line or a test needs."""

    def __init__(self, node: Node):
        self.node = node
        self.rates = {name: RateMeter() for name in ("joint_states", "imu", "clock", "joint_commands")}
        self.tf = TfListener(node)
        self.sim_time_s = 0.0
        self.sim_wall_start: tuple[float, float] | None = None
        self.joint_states: JointState | None = None
        self.joint_commands: JointState | None = None
        self.torso_pose: Odometry | None = None
        self.max_tilt_rad = 0.0
        self.diagnostics: dict[str, dict[str, str]] = {}
        node.create_subscription(JointState, "joint_states", self._on_states, CYCLE_QOS)
        node.create_subscription(JointState, "joint_commands", self._on_commands, CYCLE_QOS)
        node.create_subscription(Imu, "imu", lambda m: self.rates["imu"].tick(), CYCLE_QOS)
        node.create_subscription(Clock, "/clock", self._on_clock, CYCLE_QOS)
        node.create_subscription(Odometry, "ground_truth/odom", self._on_truth, CYCLE_QOS)
        node.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, 50)

    def _on_states(self, msg: JointState) -> None:
        self.rates["joint_states"].tick()
        self.joint_states = msg

    def _on_commands(self, msg: JointState) -> None:
        self.rates["joint_commands"].tick()
        self.joint_commands = msg

    def _on_clock(self, msg: Clock) -> None:
        self.rates["clock"].tick()
        self.sim_time_s = stamp_seconds(msg.clock)
        if self.sim_wall_start is None:
            self.sim_wall_start = (self.sim_time_s, time.monotonic())

    def _on_truth(self, msg: Odometry) -> None:
        self.torso_pose = msg
        self.max_tilt_rad = max(self.max_tilt_rad, self.tilt_rad())

    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        for status in msg.status:
            values = {kv.key: kv.value for kv in status.values}
            values["_level"] = str(int.from_bytes(status.level, "little") if isinstance(status.level, bytes)
                                   else int(status.level))
            values["_message"] = status.message
            self.diagnostics[status.name] = values

    def tilt_rad(self) -> float:
        """Angle between the torso's z axis and the vertical, from the simulator's ground truth."""
        if self.torso_pose is None:
            return 0.0
        o = self.torso_pose.pose.pose.orientation
        r = rotation_from_quaternion_xyzw([o.x, o.y, o.z, o.w])
        return float(np.arccos(np.clip(r[2, 2], -1.0, 1.0)))

    def real_time_factor(self) -> float:
        if self.sim_wall_start is None:
            return 0.0
        sim0, wall0 = self.sim_wall_start
        wall = time.monotonic() - wall0
        return (self.sim_time_s - sim0) / wall if wall > 0.5 else 0.0

    def falls(self) -> int:
        sim = self.diagnostics.get("nao_motion: simulator", {})
        return int(sim.get("falls", "0"))

    def status_line(self, n_running: int, n_total: int) -> str:
        r = self.rates
        return (f"sim t={self.sim_time_s:7.2f} s | RTF {self.real_time_factor():4.2f} | "
                f"joint_states {r['joint_states'].rate_hz():5.1f} Hz | joint_commands {r['joint_commands'].rate_hz():5.1f} Hz"
                f" | tf {len(self.tf.frames()):2d} frames | tilt {np.rad2deg(self.tilt_rad()):4.1f} deg | "
                f"falls {self.falls()} | nodes {n_running}/{n_total} up")

    def spin_for(self, seconds: float, until=None) -> bool:
        import rclpy

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self.node, timeout_sec=0.01)
            if until is not None and until():
                return True
        return until() if until is not None else True
