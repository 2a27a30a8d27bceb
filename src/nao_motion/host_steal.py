"""What the host of a virtual machine took from it: a vCPU the hypervisor gives to another guest
("steal" in /proc/stat) runs nothing of ours, so a motion cycle due meanwhile is missed whatever
the suite does. The demo and the suite benchmark tell such missed cycles from the suite's own.

Linux only (/proc/stat, CPU affinity); elsewhere nothing is recorded and no cycle is put down to
the host."""

from __future__ import annotations

import bisect
import os
import subprocess
import sys
import threading
import time

import numpy as np


def steal_seconds() -> float:
    """CPU time the hypervisor gave to others while this machine's vCPUs wanted it (/proc/stat
    'steal', all CPUs): on a virtual machine, a cycle can be late with nothing of ours running."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return float("nan")
    return int(fields[8]) / os.sysconf("SC_CLK_TCK") if len(fields) > 8 else float("nan")


# One canary per vCPU, pinned to it at the highest real-time priority: nothing of this machine's
# user space can keep it from waking every period, so a wake-up more than HALT_MIN_S late means its
# vCPU ran nothing at all meanwhile (the hypervisor held it; or the kernel). /proc/stat's steal
# cannot say when: it is counted in 10 ms ticks, and a short steal shows, if at all, when the
# stolen time adds up to a tick. Prints "start end" (time.monotonic()) of the wake-ups around
# each halt.
_CANARY = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[1])})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(os.sched_get_priority_max(os.SCHED_FIFO)))
period_s, halt_s = float(sys.argv[2]), float(sys.argv[3])
before = time.monotonic()
while True:
    time.sleep(period_s)
    now = time.monotonic()
    if now - before > period_s + halt_s:
        print(f"{before:.5f} {now:.5f}", flush=True)
    before = now
"""


# The halts are kept in the order of their ends; two vCPUs' halts interleave, so one that began
# before a moment can end after others that began after it. A search stops at the halts ending
# this long after the moment: none is longer (that would be an outage, not a missed cycle).
MAX_HALT_S = 1.0


def _end(halt: tuple[float, float]) -> float:
    return halt[1]


class HostSteal:
    """When this (virtual) machine's vCPUs were halted, each vCPU watched by a canary process
    (``_CANARY``): the halts, the longest, and whether a missed cycle came during one
    (:meth:`halted_near`), to tell the missed cycles the host caused from the suite's own.

    The canaries need real-time scheduling (root, or CAP_SYS_NICE): without it they would be
    preempted by the suite itself; they end, and nothing is recorded (``watching`` False)."""

    # Halts of 4 ms (a period and HALT_MIN_S) or more are all seen, shorter ones when they cover a
    # wake-up; a canary costs about 2 % of a core (4 % at 1 ms).
    CANARY_PERIOD_S = 0.002
    # A wake-up this late: the controller's answer window is a cycle less the simulator's step
    # (about 7 ms at 100 Hz), the suite's usual answer about 2-3 ms of it.
    HALT_MIN_S = 0.002
    # A cycle is missed when the answer to the joint_states sent the cycle before came after the
    # simulator stepped again: a halt within this before the miss held that answer.
    LOOKBACK_S = 0.015
    STARTUP_S = 0.5  # a canary still running this long after its start has its priority

    def __init__(self):
        self.halts: list[tuple[float, float]] = []  # (start, end), time.monotonic(), sorted by end
        self.watching = False  # known at stop()
        self._started_s = 0.0
        self._canaries: list[subprocess.Popen] = []
        self._readers: list[threading.Thread] = []
        self._lock = threading.Lock()

    @property
    def longest_s(self) -> float:
        return max((end - start for start, end in self.halts), default=0.0)

    def _read(self, canary: subprocess.Popen) -> None:
        for line in canary.stdout:
            start, end = map(float, line.split())
            with self._lock:
                bisect.insort(self.halts, (start, end), key=_end)

    def halted_near(self, t_s: float) -> bool:
        """A vCPU was halted for HALT_MIN_S or more within LOOKBACK_S before ``t_s``."""
        halts = self.halts
        for i in range(bisect.bisect_right(halts, t_s - self.LOOKBACK_S, key=_end), len(halts)):
            start, end = halts[i]
            if start < t_s:
                return True
            if end > t_s + MAX_HALT_S:
                return False
        return False

    def share_halted_near(self, start_s: float, end_s: float) -> float:
        """The fraction of [start_s, end_s) that :meth:`halted_near` covers: how often a missed
        cycle would be put down to the host by chance."""
        grid = np.arange(start_s, end_s, self.CANARY_PERIOD_S)
        return float(np.mean([self.halted_near(t) for t in grid])) if len(grid) else 0.0

    def start(self) -> "HostSteal":
        if not hasattr(os, "sched_setaffinity"):
            return self  # not Linux: nothing recorded
        for cpu in sorted(os.sched_getaffinity(0)):
            canary = subprocess.Popen(
                [sys.executable, "-c", _CANARY, str(cpu), str(self.CANARY_PERIOD_S), str(self.HALT_MIN_S)],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self._canaries.append(canary)
        for canary in self._canaries:
            reader = threading.Thread(target=self._read, args=(canary,), daemon=True)
            reader.start()
            self._readers.append(reader)
        self._started_s = time.monotonic()
        return self

    def stop(self) -> None:
        """Ends the canaries; ``watching`` then says whether they ran (a canary refused real-time
        priority ends at once, within STARTUP_S)."""
        for canary in self._canaries:
            try:
                canary.wait(timeout=max(0.0, self._started_s + self.STARTUP_S - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        self.watching = bool(self._canaries) and all(canary.poll() is None for canary in self._canaries)
        for canary in self._canaries:
            canary.terminate()
        for canary in self._canaries:
            canary.wait()
            canary.stderr.close()
        for reader in self._readers:
            reader.join()
        self._canaries.clear()
        self._readers.clear()

    def __enter__(self) -> "HostSteal":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
