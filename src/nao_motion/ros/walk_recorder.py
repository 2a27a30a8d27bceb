"""Records a walk from the suite's topics: the walk's planned ZMP and centre of mass, the measured
centre of mass, and every step the footstep planner ever planned (for `nao_motion.walk_report`).

Its subscriptions are sampled (``nao_motion.ros.sampled``): the owner calls ``poll()`` now and then
(the demo, every 20 ms) and the points since the last poll are taken at once, with no executor
wake-up per 100 Hz message."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from geometry_msgs.msg import PointStamped
from rclpy.node import Node
from std_msgs.msg import Float64MultiArray

from .conversions import stamp_seconds
from .footstep_messages import FootstepMessageError, PlannedStep, decode_plan
from .qos import LATCHED_QOS
from .sampled import SampledSubscription

HISTORY = 500  # points kept between two polls: 5 s at 100 Hz


@dataclass
class WalkRecorder:
    """Time series (t_s, x_m, y_m) of the walk's points, and every step the planner ever planned."""

    node: Node
    series: dict[str, list[tuple[float, float, float]]] = field(default_factory=dict)
    steps: dict[tuple[str, float], PlannedStep] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._points = {}
        for topic in ("walk/zmp", "walk/com", "walk/com_measured"):
            self.series[topic] = []
            self._points[topic] = SampledSubscription(self.node, PointStamped, topic, depth=HISTORY)
        self.node.create_subscription(Float64MultiArray, "footsteps/plan", self._on_plan, LATCHED_QOS)

    def poll(self) -> None:
        """Take the points published since the last poll."""
        for topic, subscription in self._points.items():
            self.series[topic].extend((stamp_seconds(m.header.stamp), m.point.x, m.point.y)
                                      for m in subscription.take_all())

    def _on_plan(self, msg: Float64MultiArray) -> None:
        try:
            plan = decode_plan(msg)
        except FootstepMessageError:
            return
        for step in plan.steps:  # a replanned step replaces the one with the same leg and start
            self.steps[(step.leg.value, round(step.start_s, 3))] = step

    def array(self, topic: str) -> np.ndarray:
        return np.asarray(self.series[topic], dtype=float).reshape(-1, 3)

    def planned_steps(self) -> list[PlannedStep]:
        return sorted(self.steps.values(), key=lambda s: s.start_s)
