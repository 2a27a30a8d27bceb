"""Built-in joint-state player: publishes a keyframe motion as joint_states (or joint_targets).

Stands in for a robot or an application in the demo and the tests: it publishes the sampled
motion at the motion cycle rate on the clock (sim time aware).
"""

from __future__ import annotations

from rclpy.node import Node
from sensor_msgs.msg import JointState

from ..model import SUPPORTED_VERSIONS, NaoModel
from ..motions import MOTIONS, motion
from ..ros.node_tools import ValidatedParameters, run_node
from ..ros.qos import CYCLE_QOS


class JointStatePlayer(Node):
    def __init__(self, **kwargs):
        super().__init__("joint_state_player", **kwargs)
        self.declare_parameter("nao_version", "V5")
        version = self.get_parameter("nao_version").value
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"nao_version must be one of {SUPPORTED_VERSIONS}, got {version!r}")
        self.model = NaoModel(version)
        self.msg = JointState(name=list(self.model.joint_names))
        self.start_ns: int | None = None
        self.params = ValidatedParameters(
            self, {"motion": "wave", "loop": True, "speed": 1.0, "topic": "joint_states"},
            {"motion": f"one of {sorted(MOTIONS)}", "loop": "repeat the motion",
             "speed": "time scale (> 0, 1 = as designed)", "topic": "output topic (read-only)"},
            self._validate, self._apply, read_only=("topic",))
        self.pub = self.create_publisher(JointState, self.params.values["topic"], CYCLE_QOS)
        self.create_timer(self.model.cycle_time_s, self.on_cycle)

    @staticmethod
    def _validate(values: dict) -> str | None:
        if values["motion"] not in MOTIONS:
            return f"unknown motion {values['motion']!r}: expected one of {sorted(MOTIONS)}"
        if not isinstance(values["speed"], float) or not values["speed"] > 0.0:
            return f"speed must be a float > 0, got {values['speed']!r}"
        return None

    def _apply(self, values: dict) -> None:
        self.motion = motion(self.model, values["motion"])
        self.motion.loop = values["loop"]
        self.start_ns = None  # (re)start at the next cycle

    def on_cycle(self) -> None:
        now = self.get_clock().now()
        if self.start_ns is None:  # the first tick: on sim time, the first /clock after start-up
            self.start_ns = now.nanoseconds
        t = (now.nanoseconds - self.start_ns) * 1e-9 * self.params.values["speed"]
        q, dq = self.motion.sample(t)
        self.msg.header.stamp = now.to_msg()
        self.msg.position = q.tolist()
        # As a stand-in robot it reports joint velocities; as a client of the suite it sends
        # positions only (in joint_targets a velocity would be read as a speed limit).
        if self.params.values["topic"] == "joint_states":
            self.msg.velocity = (dq * self.params.values["speed"]).tolist()
        self.pub.publish(self.msg)


def main(args=None) -> None:
    run_node(JointStatePlayer, args)


if __name__ == "__main__":
    main()
