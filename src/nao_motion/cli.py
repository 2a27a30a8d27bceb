"""`nao-motion`: the package's command line (demo, suite bringup, URDF, benchmarks, node list)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nao-motion", description="nao_motion: a ROS 2 motion stack for NAO.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="the embedded-default demo: a scenario on the simulated NAO with the suite")
    demo.add_argument("--duration", type=float, help="at most this many simulated seconds (walk 60, others 9)")
    demo.add_argument("--rtf", type=float, default=1.0, help="real-time factor (0 = as fast as possible)")
    demo.add_argument("--out", type=Path, default=Path("out/demo"), help="output directory")
    demo.add_argument("--nao-version", default="V5", choices=["V5", "V6"])
    demo.add_argument("--scenario", default="walk", choices=["walk", "wave", "squat", "obstacle"],
                      help="walk to --goal with moveTo, play a built-in motion, or raise the left arm "
                           "into a declared obstacle, then beside it")
    demo.add_argument("--goal", type=float, nargs=3, metavar=("X", "Y", "THETA"),
                      help="moveTo goal relative to the robot (m, m, rad; default 1.0 0.5 1.57)")
    demo.add_argument("--cpu-quota", type=float, metavar="PCT",
                      help="cap the suite's processes (not the simulator) at PCT %% of one core per motion "
                           "cycle, as on the robot's CPU (CFS bandwidth control: needs a writable cgroup)")

    sim = sub.add_parser("sim", help="start the simulator and the whole suite (Ctrl-C stops)")
    sim.add_argument("--nao-version", default="V5", choices=["V5", "V6"])
    sim.add_argument("--rtf", type=float, default=1.0, help="real-time factor (0 = as fast as possible)")
    sim.add_argument("--duration", type=float, help="stop after this many simulated seconds")
    sim.add_argument("--logs", type=Path, default=Path("out/logs"), help="node log directory")
    sim.add_argument("--quiet", action="store_true", help="no live status line")
    robot = sub.add_parser("robot", help="start the suite and the robot adapter for a NAO V6 running nao_lola "
                                         "(no simulator; Ctrl-C sits the robot down)")
    robot.add_argument("--duration", type=float, help="stop after this many seconds")
    robot.add_argument("--logs", type=Path, default=Path("out/logs"), help="node log directory")
    robot.add_argument("--quiet", action="store_true", help="no live status line")
    robot.add_argument("--rviz", action="store_true", help="start rviz2 with config/nao_motion.rviz")
    for command in (demo, sim, robot):
        command.add_argument("--separate", action="store_true",
                             help="one process per node (default: the suite's nodes composed in one process)")

    urdf = sub.add_parser("urdf", help="write the URDF generated from the model")
    urdf.add_argument("--version", default="V5", choices=["V5", "V6"])
    urdf.add_argument("--output", "-o")

    sub.add_parser("nodes", help="list the suite's nodes")

    bench = sub.add_parser("bench", help="run the benchmark scripts in benchmarks/ (all, or the named ones)")
    bench.add_argument("names", nargs="*", help="e.g. kinematics footsteps (benchmarks/bench_<name>.py)")

    args = parser.parse_args(argv)
    if args.command == "demo":
        from .demo import DEFAULT_GOAL, run_demo

        duration_s = args.duration or (60.0 if args.scenario == "walk" else 9.0)
        goal = tuple(args.goal) if args.goal else DEFAULT_GOAL
        from .cpu_quota import CpuQuotaUnavailable

        try:
            summary = run_demo(duration_s, args.out, args.nao_version, args.scenario, args.rtf, goal,
                               composed=not args.separate, cpu_quota_percent=args.cpu_quota)
        except CpuQuotaUnavailable as err:
            print(f"nao-motion demo: {err}", file=sys.stderr)
            return 2
        return 0 if summary["ok"] else 1
    if args.command == "sim":
        from .bringup import run_bringup

        return run_bringup(args.nao_version, args.rtf, args.duration, args.logs, args.quiet, not args.separate)
    if args.command == "robot":
        from .bringup import run_bringup

        return run_bringup("V6", 1.0, args.duration, args.logs, args.quiet, not args.separate, robot=True,
                           rviz=args.rviz)
    if args.command == "urdf":
        from .urdf import main as urdf_main

        return urdf_main(["--version", args.version] + (["--output", args.output] if args.output else []))
    if args.command == "nodes":
        from .suite import LOLA_ADAPTER, PLAYER, SIMULATOR, suite_nodes

        for spec in (*suite_nodes(), SIMULATOR, LOLA_ADAPTER, PLAYER):
            print(f"{spec.executable:22s} {spec.role:10s} {spec.module}  (config/{spec.config})")
        return 0
    if args.command == "bench":
        return run_benchmarks(args.names)
    return 2


def run_benchmarks(names: list[str]) -> int:
    import subprocess

    from .paths import share_directory

    directory = share_directory() / "benchmarks"
    scripts = sorted(directory.glob("bench_*.py")) if not names else [directory / f"bench_{n}.py" for n in names]
    missing = [s for s in scripts if not s.exists()]
    if missing or not scripts:
        print(f"no such benchmark: {[s.name for s in missing] or directory}", file=sys.stderr)
        return 2
    failed = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        failed += subprocess.call([sys.executable, str(script)]) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
