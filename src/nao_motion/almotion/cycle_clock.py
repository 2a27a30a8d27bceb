"""A node's clock as the client sees it: the ``header.stamp`` of a stream the node publishes.

The blocking ALMotion calls wait for a motion's duration in the node's time, not the client's:
under ``use_sim_time`` the node's clock is the simulator's, which may run slower or faster than
the wall. Counting the node's messages is no measure of that time: the nodes' cycle runs on each
``joint_states``, which may come slower than the cycle rate, and a collision filter at rest
repeats its command only every 0.5 s. The stamps are the node's time whatever the rate.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rclpy.node import Node

from ..ros.conversions import stamp_seconds
from ..ros.qos import CYCLE_QOS
from .errors import ALMotionError


@dataclass(frozen=True)
class Tick:
    """One message of the stream: its stamp (s), the gap (s) since the stamp of the message
    before it (inf for the first), and how many times the publisher's clock went back before it
    (a simulator reset starts its clock again)."""

    stamp_s: float
    gap_s: float
    restarts: int
    msg: Any


class CycleClock:
    """The latest message of a stamped stream, under a Condition the waits watch."""

    def __init__(self, node: Node, msg_type: Any, topic: str):
        self.topic = topic
        self._cond = threading.Condition()
        self._latest: Tick | None = None
        node.create_subscription(msg_type, topic, self._on_message, CYCLE_QOS)

    def _on_message(self, msg: Any) -> None:
        stamp_s = stamp_seconds(msg.header.stamp)
        with self._cond:
            previous = self._latest
            if previous is None:
                self._latest = Tick(stamp_s, float("inf"), 0, msg)
            else:
                went_back = stamp_s < previous.stamp_s
                self._latest = Tick(stamp_s, stamp_s - previous.stamp_s, previous.restarts + int(went_back), msg)
            self._cond.notify_all()

    def latest(self) -> Tick | None:
        with self._cond:
            return self._latest

    def wait_elapsed(self, start: Tick | None, duration_s: float, timeout_s: float, publisher: str) -> Tick:
        """The first message stamped `duration_s` or more after `start` (the latest message
        when it already is). `start` None (no message seen yet when the motion was sent): the
        first message to come starts the duration, the node cannot have started the motion
        earlier than the cycle it publishes. A clock that went back since `start` ends the wait:
        the time waited for may never come (the node ended the motion under way on its old clock).
        `publisher` names the node that should be publishing, for the error message."""
        deadline = time.monotonic() + timeout_s
        if start is None:
            start = self._wait(lambda tick: True, deadline, timeout_s, publisher, None, None)
        end_s = start.stamp_s + duration_s
        return self._wait(lambda tick: tick.stamp_s >= end_s or tick.restarts != start.restarts,
                          deadline, timeout_s, publisher, start, end_s)

    def wait_next(self, after: Tick, timeout_s: float, publisher: str) -> Tick:
        """The newest message after `after` (those in between, if any, are skipped)."""
        return self._wait(lambda tick: tick is not after, time.monotonic() + timeout_s, timeout_s, publisher,
                          after, None)

    def _wait(self, done: Callable[[Tick], bool], deadline_s: float, timeout_s: float, publisher: str,
              since: Tick | None, end_s: float | None) -> Tick:
        with self._cond:
            while self._latest is None or not done(self._latest):
                remaining_s = deadline_s - time.monotonic()
                if remaining_s <= 0.0:
                    latest = self._latest
                    if latest is None or latest is since:
                        raise ALMotionError(f"no {self.topic} for {timeout_s:.1f} s: is the {publisher} running?")
                    raise ALMotionError(
                        f"{self.topic}: none stamped {end_s:.3f} s or later within {timeout_s:.1f} s (the last "
                        f"{latest.stamp_s:.3f} s): is the {publisher}'s clock (sim time) running slow?")
                self._cond.wait(remaining_s)
            return self._latest

