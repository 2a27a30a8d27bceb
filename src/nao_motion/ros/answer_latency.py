"""How long the robot waits for its command: from the driver's publication of a ``joint_states``
to the whole body's ``joint_commands`` answering it, in three parts.

Why. The robot's next cycle does not wait: a command that comes after it is a missed cycle
(LoLA and the simulator run on the last one). A missed cycle alone does not say whose it was,
the machine's or the suite's; the three parts do:

* delivery: the driver's publication (the DDS sample's source timestamp) to its reception in
  this process (its reception timestamp): DDS and the scheduling of its threads;
* waiting: reception to the start of the cycle: the process's thread was still busy (the last
  cycle's other nodes, another callback) or was not woken;
* compute: the whole body's cycle up to the publication of its command.

An answer later than half a cycle (``LATE_FRACTION``) is counted late and put down to its
largest part: on schedule the simulator gives the controller about three quarters of a cycle,
and never less than half a cycle.

The timestamps are the system clock's (rmw's message info): meaningful when the driver runs on
the same machine, as LoLA's and nao_lola's do; a sample without them (an rmw that does not fill
them) has no delivery part. No rclpy: the info is the ``dict`` rclpy's take gives.
"""

from __future__ import annotations

import math
import time

import numpy as np

__all__ = ["AnswerLatency", "LATE_FRACTION", "PARTS"]

LATE_FRACTION = 0.5  # of the motion cycle
PARTS = ("delivery", "waiting", "compute")
NS = 1e-9


class AnswerLatency:
    """Per cycle: ``received(info)`` when a joint_states' cycle starts, ``answered()`` when its
    command is out. Keeps the last ``window`` answers' totals, the last answer's parts and, since
    start, the late answers by their largest part."""

    def __init__(self, cycle_s: float, window: int = 500):
        self.late_s = LATE_FRACTION * cycle_s
        self.last_parts_s = np.zeros(len(PARTS))  # the last answer's parts, s (delivery: nan unknown)
        self.totals_s = np.zeros(window)
        self.count = 0  # answers since start
        self.late = dict.fromkeys(PARTS, 0)  # late answers since start, by their largest part
        self._source_ns = self._received_ns = self._start_ns = 0

    def received(self, info: dict) -> None:
        """The cycle of a joint_states starts; ``info``: its message info (rmw's timestamps, ns)."""
        self._start_ns = time.time_ns()
        self._source_ns = info.get("source_timestamp") or 0
        self._received_ns = info.get("received_timestamp") or 0

    def answered(self) -> None:
        """The command answering the last ``received`` is out."""
        if not self._start_ns:
            return
        now_ns, start_ns, received_ns, source_ns = time.time_ns(), self._start_ns, self._received_ns, self._source_ns
        self._start_ns = 0
        i, parts = self.count % len(self.totals_s), self.last_parts_s
        known = source_ns and received_ns
        # Clocks of two processes on one machine: a reception stamped before the publication is
        # the clock's resolution, not a negative delay.
        parts[0] = max(0.0, (received_ns - source_ns) * NS) if known else math.nan
        parts[1] = max(0.0, (start_ns - received_ns) * NS) if received_ns else 0.0
        parts[2] = (now_ns - start_ns) * NS
        total_s = self.totals_s[i] = (now_ns - (source_ns if known else start_ns)) * NS
        self.count += 1
        if total_s > self.late_s:
            self.late[PARTS[int(np.nanargmax(parts))]] += 1

    def values(self) -> dict[str, str]:
        """For the diagnostics: the window's total latency (median, p99, max, ms) and the late
        answers since start, by part."""
        n = min(self.count, len(self.totals_s))
        if n == 0:
            return {}
        totals_ms = self.totals_s[:n] * 1e3
        values = {"answer_latency_ms": f"median {np.median(totals_ms):.2f}, p99 {np.percentile(totals_ms, 99):.2f}, "
                                       f"max {totals_ms.max():.2f}",
                  "late_answers": str(sum(self.late.values()))}
        values.update({f"late_answers_{part}": str(count) for part, count in self.late.items()})
        return values
