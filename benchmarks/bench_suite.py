"""Suite benchmark: the deployed suite's CPU budget and motion cycle, as a user runs it.

Starts the simulator and the suite as the demo does (composed in one process; ``--separate``:
one process per node), on loopback in a domain of its own, at real time. Then:
``--stand-s`` seconds standing, and ``--walk-s`` seconds walking (moveToward(1, 0, 0): forward at
the default MaxStepX), each after a short warm-up. Printed for each phase: CPU of each process in
% of one core (from /proc), the suite's total without the simulator, the rate of
``joint_commands``, the simulator's missed cycles (a cycle it stepped with no new
``joint_commands`` since the previous one: the command came late), the cycles the simulator itself
stepped a cycle or more late (catching up, half a cycle after the previous one), its real-time factor,
whether the robot fell, and the CPU time the host stole from this (virtual) machine, with how
many missed cycles came while a vCPU was halted (``host_steal.HostSteal``: a halted vCPU misses
the cycle whatever the suite does) against the share of the time that was so (chance), and the
whole body's answers later than half a cycle by their largest part (delivery to the suite, waiting
in it, its own cycle: ``nao_motion.ros.answer_latency``, from its diagnostics); and per
node, the CPU time it spent in its own cycles (its diagnostics' ``busy_cpu_s``, the thread's CPU time; ``busy_s`` is its wall time: the figure a composed process cannot give per node from /proc). Then everything again with one
core kept busy by a load process this benchmark starts and stops itself.

``--cpu-quota PCT``: the suite's processes (every one but the simulator, which plays the robot) run
under the kernel's CFS bandwidth control, PCT % of one core in every motion cycle (12 ms V6, 10 ms
V5; ``nao_motion.cpu_quota``) from their start, as on the robot's CPU: a NAO V6 core is roughly a
fifth to a seventh of one here. Printed then too: the periods in which the quota stopped the
suite, and the simulator's true tilt (the most over the phase).

``--lola``: the robot bringup instead (``nao-motion robot``: the suite and the robot adapter to
nao_lola, NAO V6, 83 Hz, wall time) against the simulator presenting nao_lola's topics; the
adapter (``lola_adapter``) counts in the suite's figures and has a column of its own.

Figures only; nothing is asserted (the machine is shared and noisy; run it more than once).
Targets (issue 10): suite without the simulator <= 40 % of one core standing and <= 60 % walking,
no node above 10 % standing, 0 missed cycles in 60 s of walking (``--walk-s 60``), also with one
core busy.

    ./run bench suite     (or: python benchmarks/bench_suite.py [--stand-s 20] [--walk-s 20]
                               [--composed | --separate] [--no-load] [--nao-version V6] [--lola])
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from nao_motion.bringup import Suite
from nao_motion.cpu_quota import CpuQuota, CpuQuotaUnavailable
from nao_motion.model import NaoModel
from nao_motion.host_steal import HostSteal, steal_seconds
from nao_motion.processes import local_ros_env, process_cpu_seconds
from nao_motion.ros.distribution import ros_distribution
from nao_motion.ros.answer_latency import PARTS
from nao_motion.suite import SIMULATOR

WARM_UP_S = 3.0
LOAD_PROGRAM = "while True: pass"


def cpu_seconds(processes) -> dict[str, float]:
    out = {}
    for p in processes:
        try:
            out[p.spec.executable] = process_cpu_seconds(p.process.pid)
        except (FileNotFoundError, ProcessLookupError):
            out[p.spec.executable] = float("nan")
    return out


def simulator_counters(monitor) -> tuple[int, int, int]:
    values = monitor.diagnostics.get("nao_motion: simulator", {})
    return tuple(int(values.get(key, 0)) for key in ("catch_up_cycles", "cycles", "falls"))


def measure_phase(name: str, suite: Suite, monitor, seconds: float) -> dict:
    monitor.spin_for(WARM_UP_S)
    quota = suite.cpu_quota
    with HostSteal() as host:  # its canaries watching from the phase's start
        catch_up0, cycles0, falls0 = simulator_counters(monitor)
        commands0, sim0 = monitor.rates["joint_commands"].count, monitor.sim_time_s
        cpu0, wall0, busy0 = cpu_seconds(suite.processes), time.monotonic(), node_busy_seconds(monitor)
        late0 = late_answers(monitor)
        steal0 = steal_seconds()
        throttled0 = quota.usage() if quota is not None else None
        monitor.max_tilt_rad = 0.0
        monitor.spin_for(seconds)
        throttled1 = quota.usage() if quota is not None else None
        max_tilt_deg = math.degrees(monitor.max_tilt_rad)
        cpu1, wall1, busy1 = cpu_seconds(suite.processes), time.monotonic(), node_busy_seconds(monitor)
        late1 = late_answers(monitor)
        steal = steal_seconds() - steal0
        catch_up1, cycles1, falls1 = simulator_counters(monitor)
        commands1, sim1 = monitor.rates["joint_commands"].count, monitor.sim_time_s
        # The simulator reports its missed cycles, each with its time, once a second: the phase's
        # are those timed within it (its count is published apart, at other moments).
        monitor.spin_for(1.5)
    missed_at = [t for t in monitor.missed_cycles_at_s if wall0 <= t < wall1]
    wall = wall1 - wall0
    cpu = {k: 100.0 * (cpu1[k] - cpu0[k]) / wall for k in cpu0}
    return {"phase": name, "cpu": cpu, "suite_cpu": sum(v for k, v in cpu.items() if k != "simulator"),
            "commands_hz": (commands1 - commands0) / wall,
            "missed": len(missed_at), "catch_up": catch_up1 - catch_up0, "cycles": cycles1 - cycles0,
            "rtf": (sim1 - sim0) / wall, "falls": falls1 - falls0, "steal": 100.0 * steal / wall,
            "longest_halt_ms": 1e3 * host.longest_s, "halts_watched": host.watching,
            "missed_halted": sum(map(host.halted_near, missed_at)),
            "late_answers": {part: late1[part] - late0[part] for part in PARTS},
            "time_halted": host.share_halted_near(wall0, wall1), "max_tilt_deg": max_tilt_deg,
            "throttled": None if quota is None else
            (throttled1.throttled_periods - throttled0.throttled_periods, throttled1.periods - throttled0.periods,
             throttled1.throttled_s - throttled0.throttled_s),
            "node_cycles": {k: 100.0 * (busy1[k][0] - busy0[k][0]) / wall for k in sorted(busy1) if k in busy0},
            "node_cycles_cpu": {k: 100.0 * (busy1[k][1] - busy0[k][1]) / wall for k in sorted(busy1) if k in busy0}}


def node_busy_seconds(monitor) -> dict[str, tuple[float, float]]:
    """Each suite node's time in its own cycles since it started, wall and CPU (its diagnostics'
    busy_s, busy_cpu_s: the thread's CPU time, without the time it waited preempted): the
    per-node figure a composed process cannot give from /proc; its executor's and DDS's work
    are not in it."""
    busy = {}
    for name, values in monitor.diagnostics.items():
        node = name.removeprefix("nao_motion: ")
        if node != "simulator" and "busy_cpu_s" in values:
            busy[node] = (float(values["busy_s"]), float(values["busy_cpu_s"]))
    return busy


def late_answers(monitor) -> dict[str, int]:
    """The whole body's answers later than half a cycle since its start, by their largest part
    (its diagnostics: ``nao_motion.ros.answer_latency``)."""
    values = monitor.diagnostics.get("nao_motion: whole_body", {})
    return {part: int(values.get(f"late_answers_{part}", 0)) for part in PARTS}


def late_text(result: dict) -> str:
    late = result["late_answers"]
    parts = ", ".join(f"{part} {late[part]}" for part in PARTS)
    return f" | answers later than half a cycle {sum(late.values())} (the largest part: {parts})"


def halted_text(result: dict) -> str:
    if not result["halts_watched"]:
        return " (vCPU halts not watched: no real-time priority)"
    return (f" ({result['missed_halted']} of them while a vCPU was halted {1e3 * HostSteal.HALT_MIN_S:.0f} ms or "
            f"more, which was {100 * result['time_halted']:.0f} % of the time; the longest halt "
            f"{result['longest_halt_ms']:.0f} ms)")


def throttled_text(result: dict) -> str:
    if result["throttled"] is None:
        return ""
    throttled, periods, seconds = result["throttled"]
    return f" | quota: the suite stopped in {throttled} of {periods} periods, {seconds:.2f} s in all"


def print_phase(result: dict, load: bool) -> None:
    cpu = "  ".join(f"{k} {v:5.1f}" for k, v in result["cpu"].items())
    print(f"{result['phase']:8s} {'1 core busy' if load else 'idle machine':12s} | CPU % of one core: {cpu} | "
          f"suite without simulator {result['suite_cpu']:5.1f} | joint_commands {result['commands_hz']:5.1f} Hz | "
          f"missed cycles {result['missed']} of {result['cycles']}{halted_text(result)}{late_text(result)} | "
          f"stepped late by the simulator itself "
          f"{result['catch_up']} | RTF {result['rtf']:.2f} | "
          f"falls {result['falls']}, true tilt at most {result['max_tilt_deg']:.1f} deg{throttled_text(result)} | "
          f"CPU stolen by the host {result['steal']:.1f} % of one core", flush=True)
    cycles = "  ".join(f"{k} {v:4.1f}" for k, v in result["node_cycles_cpu"].items())
    wall = "  ".join(f"{k} {v:4.1f}" for k, v in result["node_cycles"].items())
    print(f"{'':21s} | per node, CPU time in its own cycles, % of one core: {cycles}", flush=True)
    print(f"{'':21s} | (wall time, preemption included: {wall})", flush=True)


@contextmanager
def running_suite(version: str, composed: bool, load: bool, lola: bool = False, prefix: str = "bench_suite",
                  cpu_quota_percent: float | None = None):
    """The simulator and the suite started as the demo starts them, in a domain of their own, with
    this process's rclpy in it; yields (suite, monitor, log directory) once joint_commands flow;
    ``load``: one core kept busy meanwhile; ``cpu_quota_percent``: the suite's processes under
    that CPU quota per motion cycle. Stops everything it started, and restores the
    environment."""
    import rclpy

    from nao_motion.ros.monitor import SuiteMonitor

    env = local_ros_env(random.randint(1, 100))
    load_process = subprocess.Popen([sys.executable, "-c", LOAD_PROGRAM]) if load else None
    logs = Path(tempfile.mkdtemp(prefix=f"nao_motion_{prefix}_"))
    quota = (None if cpu_quota_percent is None else
             CpuQuota(cpu_quota_percent, NaoModel(version).cycle_time_s, name=f"nao_motion_{prefix}_{os.getpid()}"))
    suite = Suite(env, version, 1.0, log_dir=logs, composed=composed, simulate=not lola, lola_adapter=lola,
                  cpu_quota=quota).start()
    if lola:  # the robot: the simulated V6 behind nao_lola's topics, on wall time like the bringup
        suite.add(SIMULATOR, {"interface": "nao_lola"})
    # This process's own rclpy (the monitor, the ALMotion client) joins the suite's domain.
    saved = {k: os.environ.get(k) for k in ("ROS_DOMAIN_ID", "ROS_AUTOMATIC_DISCOVERY_RANGE")}
    os.environ.update({k: env[k] for k in saved})
    rclpy.init()
    node = rclpy.create_node(f"nao_motion_{prefix}")
    monitor = SuiteMonitor(node, tf=False)
    try:
        if not monitor.spin_for(60.0, until=lambda: monitor.joint_commands is not None):
            raise RuntimeError(f"no joint_commands within 60 s; see {logs}")
        yield suite, monitor, logs
    finally:
        monitor.close()
        node.destroy_node()
        rclpy.try_shutdown()
        suite.stop()
        if quota is not None:
            quota.close()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if load_process is not None:
            load_process.kill()
            load_process.wait()


def run(version: str, stand_s: float, walk_s: float, composed: bool, load: bool, lola: bool = False,
        cpu_quota_percent: float | None = None) -> list[dict]:
    from nao_motion.almotion import ALMotion

    results = []
    with running_suite(version, composed, load, lola, cpu_quota_percent=cpu_quota_percent) as (suite, monitor, _):
        results.append(measure_phase("standing", suite, monitor, stand_s))
        print_phase(results[-1], load)
        with ALMotion(version) as motion:
            motion.moveInit()
            motion.moveToward(1.0, 0.0, 0.0)
            results.append(measure_phase("walking", suite, monitor, walk_s))
            print_phase(results[-1], load)
            motion.stopMove()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stand-s", type=float, default=20.0)
    parser.add_argument("--walk-s", type=float, default=20.0)
    parser.add_argument("--nao-version", default="V5", choices=["V5", "V6"])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--composed", dest="composed", action="store_true", default=None,
                       help="the suite's nodes in one process")
    group.add_argument("--separate", dest="composed", action="store_false", help="one process per node")
    parser.add_argument("--no-load", action="store_true", help="skip the run with one core busy")
    parser.add_argument("--lola", action="store_true",
                        help="the robot bringup (suite + adapter to nao_lola, V6) against the simulated nao_lola")
    parser.add_argument("--cpu-quota", type=float, metavar="PCT",
                        help="the suite's processes (not the simulator) capped at PCT %% of one core per motion cycle")
    args = parser.parse_args()
    composed = Suite.composed if args.composed is None else args.composed
    version = "V6" if args.lola else args.nao_version
    ros = ros_distribution()
    print(f"suite benchmark: ROS 2 {ros['ros_distro']} (rclpy {ros['rclpy_version']}), NAO {version}, "
          f"{'composed' if composed else 'separate processes'}, "
          f"{'robot bringup through nao_lola (simulated), ' if args.lola else ''}"
          f"{args.stand_s:.0f} s standing + {args.walk_s:.0f} s walking, real time"
          + (f", the suite's CPU capped at {args.cpu_quota:g} % of one core per "
             f"{1e3 * NaoModel(version).cycle_time_s:g} ms cycle" if args.cpu_quota is not None else ""))
    try:
        for load in (False,) if args.no_load else (False, True):
            run(version, args.stand_s, args.walk_s, composed, load, args.lola, args.cpu_quota)
    except CpuQuotaUnavailable as err:
        print(f"bench_suite: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
