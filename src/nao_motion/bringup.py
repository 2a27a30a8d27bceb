"""`nao-motion sim`: the simulator and every node of the suite, the suite's nodes composed in one
process (``--separate``: one process per node). `nao-motion robot`: the suite and the robot
adapter to nao_lola (``nao_motion.nodes.lola_adapter_node``) for a NAO V6, on wall time, without
the simulator (nao_lola runs on the robot, started by the user).

Reads the same node list as the launch files (nao_motion.suite) with their config/*.yaml
parameters, runs everything on sim time (the robot: wall time), prints a compact live status
once per second, and stops every process cleanly on Ctrl-C (or after --duration seconds of sim
time; the robot: wall time).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .cpu_quota import CpuQuota
from .processes import CLEAN_EXIT_CODES, TEARDOWN_CUT_SHORT, NodeProcess, open_log
from .paths import config_file
from .suite import LOLA_ADAPTER, SIMULATOR, SUITE_PROCESS, NodeSpec, suite_nodes


@dataclass
class Suite:
    """The processes of one bringup; `start()` them, `stop()` them (Ctrl-C each, then kill)."""

    env: dict
    nao_version: str = "V5"
    real_time_factor: float = 1.0
    simulate: bool = True
    log_dir: Path = Path("out/logs")
    composed: bool = True  # the suite's nodes in one process (nao_motion.nodes.suite_node)
    lola_adapter: bool = False  # and the robot adapter to nao_lola
    # the suite's processes (every one but the simulator, which plays the robot) under this CPU
    # budget from their start, as on the robot's CPU (benchmarks, the demo's --cpu-quota)
    cpu_quota: CpuQuota | None = None
    processes: list[NodeProcess] = field(default_factory=list)

    def start(self) -> "Suite":
        specs = [(SUITE_PROCESS, {})] if self.composed else [(spec, {}) for spec in suite_nodes()]
        if self.lola_adapter:
            specs.append((LOLA_ADAPTER, {}))
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
        process = NodeProcess(spec, self.env, params=params, use_sim_time=self.simulate and spec is not SIMULATOR,
                              log=open_log(self.log_dir, spec.executable)).start()
        self.processes.append(process)
        if self.cpu_quota is not None and spec is not SIMULATOR:
            self.cpu_quota.add(process.process.pid)

    def running(self) -> list[str]:
        return [p.spec.executable for p in self.processes if p.running()]

    def stop(self) -> dict[str, int | None]:
        for p in self.processes:  # signal all first so they shut down in parallel
            p.interrupt()
        return {p.spec.executable: p.stop() for p in self.processes}


def run_bringup(nao_version: str, real_time_factor: float, duration_s: float | None, log_dir: Path,
                quiet: bool = False, composed: bool = True, robot: bool = False, rviz: bool = False) -> int:
    """`nao-motion sim`, or with `robot` `nao-motion robot` (V6, wall time, the adapter instead of
    the simulator; `duration_s` in wall seconds). `rviz`: rviz2 with config/nao_motion.rviz too."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from .ros.monitor import SuiteMonitor
    from .ros.node_tools import recorded_stop_signals

    command = "nao-motion robot" if robot else "nao-motion sim"
    if rviz and shutil.which("rviz2") is None:
        print(f"{command}: rviz2 not found (it comes with a ROS 2 distribution, not with the PyPI wheels)")
        return 2
    suite = Suite(dict(os.environ), nao_version, 1.0 if robot else real_time_factor, simulate=not robot,
                  log_dir=log_dir, composed=composed, lola_adapter=robot).start()
    names = [p.spec.executable for p in suite.processes]
    # rviz on the clock the suite stamps with: the simulator's /clock in a simulation
    viewer = (subprocess.Popen(["rviz2", "-d", str(config_file("nao_motion.rviz")), "--ros-args", "-p",
                                f"use_sim_time:={'false' if robot else 'true'}"], env=dict(os.environ),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if rviz else None)
    print(f"{command}: NAO {nao_version}, nodes {', '.join(names)}; logs in {log_dir}; Ctrl-C stops"
          + ("; nao_lola must run on the robot (its joint_states, imu, sensors/*, effectors/*)" if robot else ""))
    # Ctrl-C is recorded, not raised (``recorded_stop_signals``): raised, one that landed while the
    # monitor took a message crashed the bringup with pybind11's conversion error.
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("nao_motion_bringup")
    monitor = SuiteMonitor(node)
    start = time.monotonic()
    try:
        last = time.monotonic()
        with recorded_stop_signals() as signals:
            while not signals and (duration_s is None or
                                   (time.monotonic() - start if robot else monitor.sim_time_s) < duration_s):
                monitor.spin_for(0.1)
                if time.monotonic() - last >= 1.0:
                    last = time.monotonic()
                    if not quiet:
                        print(robot_status_line(monitor, len(suite.running()), len(names)) if robot else
                              monitor.status_line(len(suite.running()), len(names)), flush=True)
                    dead = [n for n in names if n not in suite.running()]
                    if dead:
                        print(f"{command}: {dead} exited; see {log_dir}")
                        break
        interrupted = bool(signals)
    finally:
        monitor.close()
        node.destroy_node()
        rclpy.try_shutdown()
        codes = suite.stop()
        if viewer is not None:
            viewer.terminate()
            viewer.wait()
    bad = {n: c for n, c in codes.items() if c not in CLEAN_EXIT_CODES}
    print(f"{command}: stopped{' on Ctrl-C' if interrupted else ''}; "
          f"{'all nodes exited cleanly' if not bad else f'non-zero exits: {bad}'}")
    hung = [n for n, c in codes.items() if c == TEARDOWN_CUT_SHORT]
    if hung:
        print(f"{command}: the DDS teardown of {', '.join(hung)} hung and was cut short (stacks in its log)")
    return 1 if bad else 0


def robot_status_line(monitor, n_running: int, n_total: int) -> str:
    """The live status of the robot bringup: the robot's streams and the adapter's state."""
    adapter = monitor.diagnostics.get(f"nao_motion: {LOLA_ADAPTER.executable}", {})
    r = monitor.rates
    return (f"joint_states {r['joint_states'].rate_hz():5.1f} Hz | imu {r['imu'].rate_hz():5.1f} Hz | "
            f"joint_commands {r['joint_commands'].rate_hz():5.1f} Hz | adapter: {adapter.get('_message', '?')} | "
            f"nodes {n_running}/{n_total} up")
