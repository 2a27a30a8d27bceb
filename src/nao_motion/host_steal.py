"""What the host of a virtual machine took from it: a vCPU the hypervisor gives to another guest
("steal" in /proc/stat) runs nothing of ours, so a motion cycle due meanwhile is missed whatever
the suite does. The demo and the suite benchmark tell such missed cycles from the suite's own.

Linux only (/proc/stat); elsewhere nothing is recorded and no cycle is put down to the host."""

from __future__ import annotations

import bisect
import os
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


class HostSteal:
    """When the host stole this (virtual) machine's vCPUs, sampled every ``PERIOD_S`` from
    /proc/stat's per-CPU 'steal' (counted in clock ticks, 10 ms): the longest time one vCPU was
    stolen without a break (a burst as long as a cycle halts the suite's cycle on that vCPU, or the
    simulator's, whatever our processes do), and the samples that saw any vCPU stolen, to tell the
    missed cycles the host caused from the suite's own (:meth:`near_steal`)."""

    PERIOD_S = 0.01
    # A missed cycle within this of a sample that saw steal is put down to the host: the reply was
    # due in the cycle before the miss, and steal is accounted at the stolen vCPU's next tick and
    # read here at the next sample (each up to 10 ms late, more when this sampler is itself halted).
    NEAR_S = 0.03

    def __init__(self):
        self.longest_s = 0.0
        self.stolen_at_s: list[float] = []  # time.monotonic() of the samples that saw steal
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def _per_cpu_ticks() -> list[int]:
        with open("/proc/stat") as f:
            return [int(line.split()[8]) for line in f if line.startswith("cpu") and not line.startswith("cpu ")]

    def _sample(self) -> None:
        tick_s = 1.0 / os.sysconf("SC_CLK_TCK")
        try:
            before = self._per_cpu_ticks()
        except (OSError, IndexError, ValueError):
            return  # not Linux: nothing recorded
        running = [0.0] * len(before)  # each vCPU's current burst
        while not self._stop.wait(self.PERIOD_S):
            now = self._per_cpu_ticks()
            for cpu, (a, b) in enumerate(zip(before, now)):
                stolen_s = (b - a) * tick_s
                running[cpu] = running[cpu] + stolen_s if stolen_s > 0.0 else 0.0
                self.longest_s = max(self.longest_s, running[cpu])
            if now != before:
                self.stolen_at_s.append(time.monotonic())
            before = now

    def near_steal(self, t_s: float) -> bool:
        i = bisect.bisect_left(self.stolen_at_s, t_s - self.NEAR_S)
        return i < len(self.stolen_at_s) and self.stolen_at_s[i] <= t_s + self.NEAR_S

    def share_near_steal(self, start_s: float, end_s: float) -> float:
        """The fraction of [start_s, end_s) within NEAR_S of steal: how often a missed cycle would
        be near steal by chance."""
        grid = np.arange(start_s, end_s, self.PERIOD_S)
        return float(np.mean([self.near_steal(t) for t in grid])) if len(grid) else 0.0

    def start(self) -> "HostSteal":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> "HostSteal":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
