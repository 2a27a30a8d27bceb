"""Subscriptions read when the reader wants them, not on every message.

An rclpy executor wakes once per message of every subscription: a Python callback, a wait-set
rebuild and a conversion for each. A node that needs only the newest value of a 100 Hz stream
at its own cycle (the IMU, the foot sensors, the torso pose, the ground truth) pays that cost
a hundred times a second for nothing. A ``SampledSubscription`` keeps the subscription in DDS
(the middleware stores the newest samples in its history, in C++) but out of the executor's
wait set, and ``take_latest`` takes what arrived since the last call when the node asks: one
conversion per sample read, none per sample missed.

This is how rclpy's own ``wait_for_message`` reads a subscription; the executor is kept out by
a callback group that never lets it execute.
"""

from __future__ import annotations

from typing import Any, Callable

from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

from .qos import CYCLE_QOS
from .rclpy_compat import take_message


class NeverExecuted(CallbackGroup):
    """Entities of this group are never put in an executor's wait set (CycleExecutor's, and
    rclpy's Single- and MultiThreadedExecutor's; not rclpy's EventsExecutor, which ignores
    groups and which nao_motion does not use: ``nao_motion.ros.executor``)."""

    def can_execute(self, entity) -> bool:
        return False

    def beginning_execution(self, entity) -> bool:
        return False

    def ending_execution(self, entity) -> None:
        pass


def sampled_qos(depth: int = 1, latched: bool = False) -> QoSProfile:
    """KEEP_LAST(depth), reliable (matches the suite's publishers and robot drivers')."""
    return QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL if latched else DurabilityPolicy.VOLATILE)


class SampledSubscription:
    """A subscription the node reads on demand (see the module docstring).

    ``take_latest()``: the newest message received since the last call, or None if none came.
    ``take_all()``: every message kept since the last call (at most ``depth``), oldest first,
    for a reader that counts or must not miss one. ``raw=True`` gives serialized bytes (no
    conversion: counting is nearly free). ``qos``: instead of ``sampled_qos(depth, latched)``.
    """

    def __init__(self, node: Node, msg_type: Any, topic: str, depth: int = 1, raw: bool = False,
                 latched: bool = False, qos: QoSProfile | None = None):
        self.msg_type, self.raw, self.topic = msg_type, raw, topic
        qos = qos or sampled_qos(depth, latched)
        self.depth = qos.depth
        self.subscription = node.create_subscription(
            msg_type, topic, _unused_callback, qos, callback_group=NeverExecuted(), raw=raw)

    def take(self):
        """The oldest message kept since the last take, or None."""
        sub = self.subscription
        with sub.handle:
            taken = take_message(sub)
        return None if taken is None else taken[0]

    def take_latest(self):
        if self.depth == 1:  # the history holds one sample: a second take would only find none
            return self.take()
        latest = None
        while (msg := self.take()) is not None:
            latest = msg
        return latest

    def take_all(self) -> list:
        messages = []
        while (msg := self.take()) is not None:
            messages.append(msg)
        return messages


class CycleInputs:
    """The streams a node reads at its cycle, not when they arrive: ``serve()`` hands every
    message kept since the last cycle (at most ``qos.depth``, ``CYCLE_QOS`` by default) to its
    stream's handler, oldest first, stream by stream in the order they were added.

    For messages that only matter at the node's next cycle and come at its rate: the walk's
    references and the collision filter's command to the whole body, the arm swing's targets.
    Published inside a cycle, each woke the executor once more right after it (a wake-up costs
    the process about 0.2 ms of CPU); read here they cost a take each, and a stream with nothing
    new one empty take (about 3 us). A message that comes before the node can use it waits in
    DDS, not in a callback that would refuse it.
    """

    def __init__(self, node: Node):
        self.node = node
        self.streams: list[tuple[SampledSubscription, Callable[[Any], None]]] = []

    def add(self, msg_type: Any, topic: str, handler: Callable[[Any], None], raw: bool = False,
            qos: QoSProfile = CYCLE_QOS) -> None:
        self.streams.append((SampledSubscription(self.node, msg_type, topic, raw=raw, qos=qos), handler))

    def serve(self) -> None:
        for sampled, handler in self.streams:
            take = sampled.take
            while (msg := take()) is not None:
                handler(msg)


class SharedSample:
    """One sampled subscription read by several nodes of a process (``nodes.suite_node``): the
    stream is taken from DDS once, and each node's :class:`SampleView` gets each sample once, as
    its own subscription would have given it."""

    def __init__(self, sampled: SampledSubscription):
        self.sampled = sampled
        self.latest, self.serial = None, 0  # the newest sample taken, and how many were

    def refresh(self) -> None:
        taken = self.sampled.take_latest()
        if taken is not None:
            self.latest, self.serial = taken, self.serial + 1


class SampleView:
    """A node's reading of a :class:`SharedSample`: ``take_latest`` and ``topic`` (the node's
    messages name it) as a SampledSubscription's."""

    def __init__(self, shared: SharedSample):
        self.shared, self.topic = shared, shared.sampled.topic
        self._seen = shared.serial

    def take_latest(self):
        shared = self.shared
        shared.refresh()
        if shared.serial == self._seen:
            return None
        self._seen = shared.serial
        return shared.latest


def _unused_callback(msg) -> None:  # the executor never runs it (see NeverExecuted)
    raise AssertionError("a sampled subscription's callback ran")
