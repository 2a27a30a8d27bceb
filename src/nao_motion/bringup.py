"""`nao-motion sim`: the simulator and every node of the suite, the suite's nodes composed in one
process (``--separate``: one process per node).

Reads the same node list as the launch files (nao_motion.suite) with their config/*.yaml
parameters, runs everything on sim time, prints a compact live status once per second, and
stops every process cleanly on Ctrl-C (or after --duration seconds of sim time).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from .processes import CLEAN_EXIT_CODES, TEARDOWN_CUT_SHORT, NodeProcess, open_log
from .suite import SIMULATOR, SUITE_PROCESS, NodeSpec, suite_nodes


@dataclass
class Suite:
    """The processes of one bringup; `start()` them, `stop()` them (Ctrl-C each, then kill)."""

    env: dict
    nao_version: str = "V5"
    real_time_factor: float = 1.0
    simulate: bool = True
    log_dir: Path = Path("out/logs")
    composed: bool = True  # the suite's nodes in one process (nao_motion.nodes.suite_node)
    processes: list[NodeProcess] = field(default_factory=list)

    def start(self) -> "Suite":
        specs = [(SUITE_PROCESS, {})] if self.composed else [(spec, {}) for spec in suite_nodes()]
        if self.simulate:
            sim = {"real_time_factor": float(self.real_time_factor)}
            if self.real_time_factor == 0.0:  # flat out: not at real-time priority
                sim["thread_priority"] = 0
            specs.insert(0, (SIMULATOR, sim))
        for spec, params in specs:
            self.add(spec, params)
        return self

    def add(self, spec: NodeSpec, params: dict | None = None) -> None:
        """Start one more node in this bringup (on sim time unless it is the simulator)."""
        params = {"nao_version": self.nao_version, **(params or {})}
        self.processes.append(NodeProcess(
            spec, self.env, params=params, use_sim_time=self.simulate and spec is not SIMULATOR,
            log=open_log(self.log_dir, spec.executable)).start())

    def running(self) -> list[str]:
        return [p.spec.executable for p in self.processes if p.running()]

    def stop(self) -> dict[str, int | None]:
        for p in self.processes:  # signal all first so they shut down in parallel
            p.interrupt()
        return {p.spec.executable: p.stop() for p in self.processes}


def run_bringup(nao_version: str, real_time_factor: float, duration_s: float | None, log_dir: Path,
                quiet: bool = False, composed: bool = True) -> int:
    import rclpy

    from .ros.monitor import SuiteMonitor

    suite = Suite(dict(os.environ), nao_version, real_time_factor, log_dir=log_dir, composed=composed).start()
    names = [p.spec.executable for p in suite.processes]
    print(f"nao-motion sim: NAO {nao_version}, nodes {', '.join(names)}; logs in {log_dir}; Ctrl-C stops")
    rclpy.init()
    node = rclpy.create_node("nao_motion_bringup")
    monitor = SuiteMonitor(node)
    interrupted = False
    try:
        last = time.monotonic()
        while duration_s is None or monitor.sim_time_s < duration_s:
            monitor.spin_for(0.1)
            if time.monotonic() - last >= 1.0:
                last = time.monotonic()
                if not quiet:
                    print(monitor.status_line(len(suite.running()), len(names)), flush=True)
                dead = [n for n in names if n not in suite.running()]
                if dead:
                    print(f"nao-motion sim: {dead} exited; see {log_dir}")
                    break
    except KeyboardInterrupt:
        interrupted = True
    finally:
        monitor.close()
        node.destroy_node()
        rclpy.try_shutdown()
        codes = suite.stop()
    bad = {n: c for n, c in codes.items() if c not in CLEAN_EXIT_CODES}
    print(f"nao-motion sim: stopped{' on Ctrl-C' if interrupted else ''}; "
          f"{'all nodes exited cleanly' if not bad else f'non-zero exits: {bad}'}")
    hung = [n for n, c in codes.items() if c == TEARDOWN_CUT_SHORT]
    if hung:
        print(f"nao-motion sim: the DDS teardown of {', '.join(hung)} hung and was cut short (stacks in its log)")
    return 1 if bad else 0
