"""A CPU budget for a group of processes: the kernel's CFS bandwidth control.

The suite is meant to run on a NAO V6, whose Atom cores are each a fifth to a seventh of one core
of a development machine, and which carry vision, behaviour and LoLA too. :class:`CpuQuota` puts
processes in a cgroup of their own whose CPU time the kernel caps at ``percent`` % of one core in
every ``period_s`` (the robot's motion cycle, so that the cap bites within a cycle as a slower core
would, not averaged over the kernel's default 100 ms): cgroup v2 ``cpu.max``, or cgroup v1
``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``, whichever the machine has writable. The group's own
accounting (``cpu.stat``) gives the time used and how often the cap stopped it.

Where neither can be written (no root, no delegated cgroup), :class:`CpuQuotaUnavailable` says so
and what was tried.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MIN_PERIOD_US = 1000  # the kernel's lower bound for cfs_period_us / cpu.max's period
MIN_QUOTA_US = 1000


class CpuQuotaUnavailable(RuntimeError):
    """No cgroup with the cpu controller could be created and written here."""


@dataclass(frozen=True)
class QuotaUsage:
    """The group's periods with work, those in which the cap stopped it, and for how long in all
    (its CPU time comes from /proc per process: ``processes.process_cpu_seconds``)."""

    periods: int
    throttled_periods: int
    throttled_s: float


def cgroup_mounts(mounts_text: str) -> tuple[Path | None, Path | None]:
    """(the cgroup v2 mount whose controllers include cpu, the cgroup v1 mount of the cpu
    controller) from /proc/self/mounts; None for a kind this machine lacks."""
    v2 = v1 = None
    for line in mounts_text.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        path, fstype, options = Path(fields[1]), fields[2], fields[3].split(",")
        if fstype == "cgroup2" and v2 is None:
            controllers = path / "cgroup.controllers"
            if controllers.exists() and "cpu" in controllers.read_text().split():
                v2 = path
        elif fstype == "cgroup" and "cpu" in options and v1 is None:
            v1 = path
    return v2, v1


class CpuQuota:
    """A cgroup capped at `percent` % of one core per `period_s`; `add` processes to it (with all
    their threads, and the children they start later); `close` moves them back to the mount's
    root group and removes it. A context manager. `mounts_text`: /proc/self/mounts unless given."""

    def __init__(self, percent: float, period_s: float, name: str | None = None, mounts_text: str | None = None):
        if not 0.0 < percent <= 100.0 * os.cpu_count():
            raise ValueError(f"CPU quota {percent} %: expected a share in (0, {100 * os.cpu_count()}] % of one core")
        self.percent, self.period_s = percent, period_s
        self.period_us = max(MIN_PERIOD_US, round(period_s * 1e6))
        self.quota_us = max(MIN_QUOTA_US, round(self.period_us * percent / 100.0))
        self.name = name or f"nao_motion_quota_{os.getpid()}"
        self.path, self.version = self._create(Path("/proc/self/mounts").read_text() if mounts_text is None
                                               else mounts_text)

    def _create(self, mounts_text: str) -> tuple[Path, int]:
        v2, v1 = cgroup_mounts(mounts_text)
        tried = []
        for version, root in ((2, v2), (1, v1)):
            if root is None:
                tried.append(f"cgroup v{version}: no mount with the cpu controller")
                continue
            path = root / self.name
            try:
                if version == 2:
                    (root / "cgroup.subtree_control").write_text("+cpu")
                path.mkdir(exist_ok=True)
                if version == 2:
                    (path / "cpu.max").write_text(f"{self.quota_us} {self.period_us}")
                else:
                    (path / "cpu.cfs_period_us").write_text(str(self.period_us))
                    (path / "cpu.cfs_quota_us").write_text(str(self.quota_us))
                return path, version
            except OSError as err:
                tried.append(f"cgroup v{version} at {path}: {err.strerror or err}")
                if path.exists():
                    try:
                        path.rmdir()
                    except OSError:
                        pass
        raise CpuQuotaUnavailable(
            "cannot set a CPU quota (CFS bandwidth control): " + "; ".join(tried)
            + ". It needs root, or a cgroup v2 subtree delegated to this user with the cpu controller.")

    def add(self, pid: int) -> None:
        """Put process `pid` (all its threads) under the quota."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def pids(self) -> list[int]:
        return [int(line) for line in (self.path / "cgroup.procs").read_text().split()]

    def usage(self) -> QuotaUsage:
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines() if line.strip())
        throttled_s = (int(stat.get("throttled_usec", 0)) * 1e-6 if self.version == 2
                       else int(stat.get("throttled_time", 0)) * 1e-9)
        return QuotaUsage(int(stat.get("nr_periods", 0)), int(stat.get("nr_throttled", 0)), throttled_s)

    def close(self) -> None:
        """Move the group's processes back to the root group, then remove the group."""
        if not self.path.exists():
            return
        root_procs = self.path.parent / "cgroup.procs"
        for pid in self.pids():
            try:
                root_procs.write_text(str(pid))
            except OSError:  # it exited meanwhile
                pass
        try:
            self.path.rmdir()
        except OSError:
            pass

    def describe(self) -> str:
        return (f"{self.percent:g} % of one core per {self.period_us / 1e3:g} ms period "
                f"({self.quota_us} us of {self.period_us} us, cgroup v{self.version} at {self.path})")

    def __enter__(self) -> "CpuQuota":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
