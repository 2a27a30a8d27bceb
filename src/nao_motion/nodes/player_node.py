"""Built-in joint-state player: publishes a keyframe motion as joint_states (or joint_targets).

Stands in for a robot or an application in the demo and the tests: it publishes the sampled
motion at the motion cycle rate on the clock (sim time aware).
"""

from __future__ import annotations

from rclpy.node import Node
from sensor_msgs.msg import JointState

from ..model import NaoModel
from ..motions import MOTIONS, motion
from ..ros.node_tools import ValidatedParameters, run_node
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.qos import CYCLE_QOS


class JointStatePlayer(Node):
    def __init__(self, **kwargs):
        super().__init__("joint_state_player", **kwargs)
        version = declare_startup(self, {"nao_version": NAO_VERSION})["nao_version"]
        self.model = NaoModel(version)
        self.msg = JointState(name=list(self.model.joint_names))
        self.start_ns: int | None = None
        self.params = ValidatedParameters(self, {
            "motion": ParameterSpec("wave", "the keyframe motion played", choices=tuple(sorted(MOTIONS))),
            "loop": ParameterSpec(True, "repeat the motion"),
            "speed": ParameterSpec(1.0, "time scale (1 = as designed)", minimum=0.0, maximum=100.0,
                                   exclusive_minimum=True),
            "topic": ParameterSpec("joint_states", "output topic", startup=True),
        }, None, self._apply)
        self.pub = self.create_publisher(JointState, self.params.values["topic"], CYCLE_QOS)
        self.create_timer(self.model.cycle_time_s, self.on_cycle)

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
