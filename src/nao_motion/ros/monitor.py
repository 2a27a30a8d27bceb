"""An in-process observer of a running suite: rates, sim time, falls, tilt, the latest state.

Used by `nao-motion sim` (live status line), the demo scenario, the suite benchmark and the
end-to-end tests. It runs on the machine the suite runs on, so it samples instead of taking
every message: its 100 Hz streams are sampled subscriptions (``nao_motion.ros.sampled``), read
when it polls (``spin_for``, every 20 ms). Rates are counted from serialized messages (no
conversion); only the newest joint_states, joint_commands, /clock and ground truth are
converted, and only when read.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from rclpy.node import Node
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState

from ..spatial import rotation_from_quaternion_xyzw
from .conversions import stamp_seconds
from .executor import CycleExecutor
from .sampled import SampledSubscription
from .tf_listener import TfListener

POLL_PERIOD_S = 0.02
# /tf messages the monitor converts per read (it counts them all): it shows frames (a frame seen
# once stays known) and looks a few up; converting every /tf message (1 ms each, 150 a second)
# made the monitor's status line a fifth of a core.
MONITOR_TF_CONVERTED = 10
# Messages kept between two polls: far more than one poll period of a 100 Hz stream, so a late
# poll on a busy machine still counts every message.
COUNT_HISTORY = 200
MISSED_TIMES_KEPT = 10_000  # a minute and a half of cycles, every one missed


@dataclass
class RateMeter:
    """Messages per second of wall time over a sliding window, from counts taken at polls."""

    window_s: float = 2.0
    samples: deque = field(default_factory=lambda: deque(maxlen=1000))  # (wall time, count so far)
    count: int = 0

    def add(self, n: int) -> None:
        self.count += n
        self.samples.append((time.monotonic(), self.count))

    def rate_hz(self) -> float:
        now = time.monotonic()
        recent = [s for s in self.samples if now - s[0] <= self.window_s]
        if len(recent) < 2 or recent[-1][0] - recent[0][0] < 0.2:
            return 0.0
        return (recent[-1][1] - recent[0][1]) / (recent[-1][0] - recent[0][0])


class _Latest:
    """A counted stream whose newest message is converted only when read."""

    def __init__(self, node: Node, msg_type, topic: str):
        self.msg_type = msg_type
        self.subscription = SampledSubscription(node, msg_type, topic, depth=COUNT_HISTORY, raw=True)
        self.rate = RateMeter()
        self._raw = None
        self._msg = None

    def poll(self) -> None:
        messages = self.subscription.take_all()
        self.rate.add(len(messages))
        if messages:
            self._raw, self._msg = messages[-1], None

    @property
    def message(self):
        if self._msg is None and self._raw is not None:
            self._msg = deserialize_message(self._raw, self.msg_type)
        return self._msg


class SuiteMonitor:
    """Samples the suite's public topics and keeps what a status line or a test needs."""

    def __init__(self, node: Node, tf: bool = True):
        self.node = node
        self.streams = {"joint_states": _Latest(node, JointState, "joint_states"),
                        "imu": _Latest(node, Imu, "imu"),
                        "clock": _Latest(node, Clock, "/clock"),
                        "joint_commands": _Latest(node, JointState, "joint_commands")}
        self.rates = {name: stream.rate for name, stream in self.streams.items()}
        self.tf = TfListener(node, convert_last=MONITOR_TF_CONVERTED) if tf else None
        self._executor = CycleExecutor(context=node.context)
        self._executor.add_node(node)
        self._truth = SampledSubscription(node, Odometry, "ground_truth/odom")
        self._diagnostics = SampledSubscription(node, DiagnosticArray, "/diagnostics", depth=100)
        self.sim_time_s = 0.0
        self.sim_wall_start: tuple[float, float] | None = None
        self.torso_pose: Odometry | None = None
        self.max_tilt_rad = 0.0  # over the polls (the simulator counts the falls itself)
        self.diagnostics: dict[str, dict[str, str]] = {}
        # The simulator's missed cycles, when (time.monotonic(); the last MISSED_TIMES_KEPT it
        # reported: a demo's or a benchmark phase's all, a monitor left running for hours bounded).
        self.missed_cycles_at_s: deque[float] = deque(maxlen=MISSED_TIMES_KEPT)

    @property
    def joint_states(self) -> JointState | None:
        return self.streams["joint_states"].message

    @property
    def joint_commands(self) -> JointState | None:
        return self.streams["joint_commands"].message

    def poll(self) -> None:
        """Take in what arrived since the last poll."""
        for stream in self.streams.values():
            stream.poll()
        clock = self.streams["clock"].message
        if clock is not None:
            self.sim_time_s = stamp_seconds(clock.clock)
            if self.sim_wall_start is None:
                self.sim_wall_start = (self.sim_time_s, time.monotonic())
        truth = self._truth.take_latest()
        if truth is not None:
            self.torso_pose = truth
            self.max_tilt_rad = max(self.max_tilt_rad, self.tilt_rad())
        for msg in self._diagnostics.take_all():
            for status in msg.status:
                values = {kv.key: kv.value for kv in status.values}
                values["_level"] = str(int.from_bytes(status.level, "little") if isinstance(status.level, bytes)
                                       else int(status.level))
                values["_message"] = status.message
                self.diagnostics[status.name] = values
                if status.name == "nao_motion: simulator":
                    self.missed_cycles_at_s.extend(float(t) for t in values.get("missed_cycles_at_monotonic_s", "").split())

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
        tf = f" | tf {len(self.tf.frames()):2d} frames" if self.tf is not None else ""
        return (f"sim t={self.sim_time_s:7.2f} s | RTF {self.real_time_factor():4.2f} | "
                f"joint_states {r['joint_states'].rate_hz():5.1f} Hz | joint_commands {r['joint_commands'].rate_hz():5.1f} Hz"
                f"{tf} | tilt {np.rad2deg(self.tilt_rad()):4.1f} deg | falls {self.falls()} | nodes {n_running}/{n_total} up")

    def close(self) -> None:
        """Release the node's entities from the monitor's executor (before destroy_node)."""
        self._executor.shutdown()

    def spin_for(self, seconds: float, until=None) -> bool:
        """Poll (and run the node's other callbacks, if any) for `seconds` or until `until()`."""
        end = time.monotonic() + seconds
        while True:
            self._executor.spin_once(timeout_sec=0.0)
            self.poll()
            if until is not None and until():
                return True
            if time.monotonic() >= end:
                return until() if until is not None else True
            time.sleep(POLL_PERIOD_S)
