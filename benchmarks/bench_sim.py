"""Simulator benchmark: real-time factor of the MuJoCo core alone, and of the simulator node.

Core: the robot stands (StandInit) or moves its arms and head (a sinusoid on every arm and head
joint) for a number of simulated seconds; printed: real-time factor (simulated / wall seconds),
per-cycle time (median, p99) and the share spent in MuJoCo itself. Node: the simulator node
runs as fast as it can (real_time_factor 0) while this process listens to /clock; then at
real time (real_time_factor 1), its CPU share. Figures are printed, not asserted: the machine
is shared and noisy, run it more than once.

    ./run bench sim        (or: python benchmarks/bench_sim.py [--seconds 20] [--node-seconds 8])
"""

from __future__ import annotations

import argparse
from pathlib import Path
import os
import sys
import time

import mujoco
import numpy as np

from nao_motion.model import NaoModel
from nao_motion.sim.simulator import NaoSimulator


def bench_core(version: str, seconds: float, motion: str, physics_step_s: float = 0.002) -> None:
    sim = NaoSimulator(NaoModel(version), physics_step_s=physics_step_s)
    model = sim.model
    base = sim.state.command.copy()
    moving = np.array([j.chain in ("Head", "LArm", "RArm") and not j.name.endswith("Hand") for j in model.joints])
    cycles = int(round(seconds / sim.control_period_s))
    durations = np.empty(cycles)
    start = time.perf_counter()
    for k in range(cycles):
        t0 = time.perf_counter()
        if motion == "arms":
            command = base + moving * 0.4 * np.sin(2 * np.pi * 0.5 * sim.time_s)
            sim.set_command(command)
        sim.step()
        durations[k] = time.perf_counter() - t0
    wall = time.perf_counter() - start
    # MuJoCo alone on the same model (mj_step, no servo or sensor code) for the physics share.
    m, d = sim.mj_model, sim.mj_data
    n = 2000
    t0 = time.perf_counter()
    for _ in range(n):
        mujoco.mj_step(m, d)
    physics_per_cycle = (time.perf_counter() - t0) / n * sim.substeps
    d_ms = durations * 1e3
    print(f"core {version} {motion:5s} step {physics_step_s * 1e3:.0f} ms, cycle {sim.control_period_s * 1e3:.0f} ms: "
          f"real-time factor {sim.time_s / wall:6.1f}   cycle median {np.median(d_ms):.3f} ms  p99 "
          f"{np.percentile(d_ms, 99):.3f} ms   (MuJoCo alone {physics_per_cycle * 1e3:.3f} ms/cycle)"
          f"{'   FELL' if sim.fallen else ''}")


def bench_node(seconds: float) -> None:
    import rclpy
    from rclpy.parameter import Parameter
    from rclpy.parameter_client import AsyncParameterClient
    from rosgraph_msgs.msg import Clock

    from nao_motion.processes import NodeProcess, local_ros_env, process_cpu_seconds
    from nao_motion.suite import SIMULATOR

    env = local_ros_env()
    os.environ.update({k: env[k] for k in ("ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_DOMAIN_ID")})
    proc = NodeProcess(SIMULATOR, env, params={"real_time_factor": 0.0, "thread_priority": 0}).start()
    rclpy.init()
    node = rclpy.create_node("bench_sim_listener")
    last = {}
    node.create_subscription(Clock, "/clock", lambda msg: last.update(t=msg.clock.sec + msg.clock.nanosec * 1e-9), 10)

    def spin_for(s: float) -> None:
        end = time.monotonic() + s
        while time.monotonic() < end:
            rclpy.spin_once(node, timeout_sec=0.01)

    try:
        spin_for(4.0)  # start-up (imports, MJCF compile) is not the steady state
        if "t" not in last:
            print("simulator node: no /clock received")
            return
        sim0, wall0, cpu0 = last["t"], time.monotonic(), process_cpu_seconds(proc.process.pid)
        spin_for(seconds)
        wall = time.monotonic() - wall0
        cpu = (process_cpu_seconds(proc.process.pid) - cpu0) / wall
        print(f"node as fast as possible (real_time_factor 0): real-time factor {(last['t'] - sim0) / wall:6.1f}   "
              f"CPU {100 * cpu:5.1f} % of one core")
        params = AsyncParameterClient(node, "simulator")
        future = params.set_parameters([Parameter("real_time_factor", value=1.0)])
        end = time.monotonic() + 5.0
        while not future.done() and time.monotonic() < end:
            rclpy.spin_once(node, timeout_sec=0.01)
        spin_for(1.0)
        sim0, wall0, cpu0 = last["t"], time.monotonic(), process_cpu_seconds(proc.process.pid)
        spin_for(seconds)
        wall = time.monotonic() - wall0
        cpu = (process_cpu_seconds(proc.process.pid) - cpu0) / wall
        print(f"node at real time (real_time_factor 1):        real-time factor {(last['t'] - sim0) / wall:6.2f}   "
              f"CPU {100 * cpu:5.1f} % of one core")
    finally:
        node.destroy_node()
        rclpy.shutdown()
        proc.stop()


def bench_suite(seconds: float) -> None:
    """The simulator with every suite node (nao-motion sim), as fast as possible and at real time."""
    import rclpy

    from nao_motion.bringup import Suite
    from nao_motion.processes import local_ros_env, process_cpu_seconds
    from nao_motion.ros.monitor import SuiteMonitor

    env = local_ros_env()
    os.environ.update({k: env[k] for k in ("ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_DOMAIN_ID")})
    rclpy.init()
    node = rclpy.create_node("bench_suite_listener")
    try:
        for rtf in (0.0, 1.0):
            monitor = SuiteMonitor(node)
            suite = Suite(env, real_time_factor=rtf, log_dir=Path("out/bench_logs")).start()
            try:
                monitor.spin_for(30.0, until=lambda: monitor.sim_time_s > 0.0)
                monitor.spin_for(3.0)  # start-up is not the steady state
                sim0, wall0 = monitor.sim_time_s, time.monotonic()
                cpu0 = {p.spec.executable: process_cpu_seconds(p.process.pid) for p in suite.processes}
                monitor.spin_for(seconds)
                wall = time.monotonic() - wall0
                achieved = (monitor.sim_time_s - sim0) / wall
                cpu = {p.spec.executable: (process_cpu_seconds(p.process.pid) - cpu0[p.spec.executable]) / wall
                       for p in suite.processes}
            finally:
                suite.stop()
                monitor.close()
            shares = ", ".join(f"{name} {100 * c:.0f} %" for name, c in cpu.items())
            label = "as fast as possible" if rtf == 0.0 else "at real time (target >= 1.0)"
            print(f"whole suite {label:30s}: real-time factor {achieved:5.2f}   CPU: {shares}")
    finally:
        node.destroy_node()
        rclpy.shutdown()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="simulated seconds per core run")
    parser.add_argument("--node-seconds", type=float, default=8.0, help="0 skips the node measurement")
    args = parser.parse_args(argv)
    print(f"nao_motion simulator benchmark (python {sys.version.split()[0]}, mujoco {mujoco.__version__})")
    bench_core("V5", args.seconds, "stand")
    bench_core("V5", args.seconds, "arms")
    bench_core("V6", args.seconds, "stand")
    bench_core("V5", args.seconds / 2, "stand", physics_step_s=0.001)
    if args.node_seconds > 0:
        try:
            import rclpy  # noqa: F401
        except ImportError:
            print("node: skipped (rclpy not installed)")
            return 0
        bench_node(args.node_seconds)
        bench_suite(args.node_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
