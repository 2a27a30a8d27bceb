#!/usr/bin/env python3
"""NAOqi's gait envelope through the deployed suite: every corner, by the simulator's ground truth.

``bench_walk_envelope.py`` walks each corner in process; this walks the same corners (forward,
backward, lateral left, turning, combined; the default gait and the settable parameters at
NAOqi's maxima) through the suite as a user runs it: the simulator and the suite started as the
demo starts them (the suite's nodes composed in one process, the simulator in its own, over DDS on
loopback in a domain of their own, real time), the
ALMotion client sending moveInit and moveToward. Per corner: the simulator is reset (StandInit),
moveToward runs for ``--walk-s`` seconds of sim time, then stopMove. Printed: the planner's
nominal velocity (its clipping, computed here by the same planner core), the true velocity (the
ground-truth torso's twist over one gait cycle, averaged over the last ``--window-s``, so the
sway cancels), falls (the simulator's count), the worst tilt, the missed cycles (and how many came while
a vCPU was halted, ``host_steal.HostSteal``) and the RTF.
``--load``: with one core kept busy by a process this benchmark starts and stops.

Figures only, nothing asserted (issue 15: the envelope must hold through the suite).

    python benchmarks/bench_suite_envelope.py [--nao-version V6] [--walk-s 10] [--load] [--max-only]
                                               [--corners turning ...] [--repeat N]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import yaml

from bench_suite import running_suite
from bench_walk_envelope import CORNERS, GAITS, percent_of_nominal, se2_log_twist
from nao_motion.almotion.errors import ALMotionError
from nao_motion.bringup import Suite
from nao_motion.footsteps import Pose2D
from nao_motion.footsteps.planner import FootstepPlanner
from nao_motion.host_steal import HostSteal
from nao_motion.spatial import rotation_from_quaternion_xyzw, yaw_of

SAMPLE_PERIOD_S = 0.05  # wall time between ground-truth samples (the poses carry sim stamps)
SETTLE_AFTER_RESET_S = 4.0
STOPPING_S = 3.0  # after stopMove: the last steps and the settling


def nominal(command: tuple, config: list) -> tuple[np.ndarray, float]:
    """The velocity the planner realises for a moveToward after its clipping, and its gait cycle (s)."""
    planner = FootstepPlanner()
    planner.move_toward(*command, config)
    stride = planner.velocity_stride
    return np.array(stride.achieved_velocity), stride.left_period_s + stride.right_period_s


def truth_sample(monitor) -> tuple[float, Pose2D] | None:
    odom = monitor.torso_pose
    if odom is None:
        return None
    p, o = odom.pose.pose.position, odom.pose.pose.orientation
    stamp_s = odom.header.stamp.sec + 1e-9 * odom.header.stamp.nanosec
    return stamp_s, Pose2D(p.x, p.y, yaw_of(rotation_from_quaternion_xyzw([o.x, o.y, o.z, o.w])))


def true_velocity(samples: list[tuple[float, Pose2D]], cycle_s: float, window_s: float) -> np.ndarray:
    """Mean over the last window_s of the body twist over one gait cycle (the sway cancels; a
    turn of more than half a turn in the window does not wrap)."""
    times = np.array([t for t, _ in samples])
    twists = []
    for i in np.flatnonzero(times >= times[-1] - window_s):
        j = int(np.argmin(np.abs(times - (times[i] - cycle_s))))
        if times[i] - times[j] > 0.5 * cycle_s:
            twists.append(se2_log_twist(samples[i][1].relative_to(samples[j][1]), times[i] - times[j]))
    return np.mean(twists, axis=0) if twists else np.full(3, np.nan)


def simulator_missed(monitor) -> tuple[int, int]:
    values = monitor.diagnostics.get("nao_motion: simulator", {})
    return int(values.get("missed_cycles", 0)), int(values.get("cycles", 0))


def ready_to_walk(motion, monitor, reset) -> None:
    """The simulator reset to StandInit (`reset`, its service client; None: the robot stays where
    it is, no teleport), the suite settled on it, moveInit done."""
    from std_srvs.srv import Trigger

    if reset is not None and not motion.call_service(reset, Trigger.Request(), "simulator").success:
        raise RuntimeError("the simulator refused its reset")
    monitor.spin_for(SETTLE_AFTER_RESET_S)
    try:
        motion.moveInit()
    except ALMotionError:  # after a fall the suite may take a few more seconds to stand again
        monitor.spin_for(SETTLE_AFTER_RESET_S)
        motion.moveInit()


def run_corner(motion, monitor, reset, command, config, walk_s: float, window_s: float) -> dict:
    """One corner; `reset` None: from where the last one left the robot (no teleport)."""
    ready_to_walk(motion, monitor, reset)
    with HostSteal() as host:  # its canaries watching from the walk's start
        falls0, (missed0, cycles0) = monitor.falls(), simulator_missed(monitor)
        monitor.max_tilt_rad = 0.0
        sim0, wall0 = monitor.sim_time_s, time.monotonic()
        motion.moveToward(*command, config)
        samples = []
        while monitor.sim_time_s - sim0 < walk_s and monitor.falls() == falls0:
            monitor.spin_for(SAMPLE_PERIOD_S)
            sample = truth_sample(monitor)
            if sample is not None and (not samples or sample[0] > samples[-1][0]):
                samples.append(sample)
        rtf = (monitor.sim_time_s - sim0) / (time.monotonic() - wall0)
        walking_falls = monitor.falls() - falls0
        motion.stopMove()
        monitor.spin_for(STOPPING_S)
        missed1, cycles1 = simulator_missed(monitor)
    missed_at = [t for t in monitor.missed_cycles_at_s if t >= wall0]  # times come once a second: most of them
    halted = sum(map(host.halted_near, missed_at)) if host.watching else None
    return {"samples": samples, "falls": walking_falls, "stop_falls": monitor.falls() - falls0 - walking_falls,
            "tilt_deg": math.degrees(monitor.max_tilt_rad), "missed": missed1 - missed0, "cycles": cycles1 - cycles0,
            "rtf": rtf, "halted": halted, "longest_halt_ms": 1e3 * host.longest_s}


def set_walk_parameters(motion, values: dict, echo: bool = True) -> None:
    """The walk node's parameters, set together (refused: the benchmark stops with the reason)."""
    from rcl_interfaces.srv import SetParametersAtomically
    from rclpy.parameter import Parameter

    client = motion.node.create_client(SetParametersAtomically, "walk/set_parameters_atomically")
    request = SetParametersAtomically.Request(
        parameters=[Parameter(name, value=value).to_parameter_msg() for name, value in values.items()])
    result = motion.call_service(client, request, "walk node").result
    if not result.successful:
        raise SystemExit(f"walk parameters {values} refused: {result.reason}")
    if echo:
        print(f"walk parameters: {values}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nao-version", default="V5", choices=["V5", "V6"])
    parser.add_argument("--walk-s", type=float, default=10.0, help="sim time of each moveToward")
    parser.add_argument("--window-s", type=float, default=5.0, help="the last seconds the true velocity is taken over")
    parser.add_argument("--load", action="store_true", help="one core kept busy")
    parser.add_argument("--max-only", action="store_true", help="only NAOqi's maximum gait")
    parser.add_argument("--corners", nargs="+", choices=[c for c, _ in CORNERS], metavar="CORNER",
                        help="only these corners (forward, backward, 'lateral left', turning, combined)")
    parser.add_argument("--no-reset", action="store_true",
                        help="walk each corner from where the last one ended (the simulator not reset)")
    parser.add_argument("--repeat", type=int, default=1, help="walk each corner this many times")
    parser.add_argument("--walk-parameter", nargs=2, action="append", default=[], metavar=("NAME", "YAML"),
                        help="set a walk node parameter first (e.g. step_recovery false); repeatable")
    args = parser.parse_args()

    from std_srvs.srv import Trigger

    from nao_motion.almotion import ALMotion

    print(f"gait envelope through the deployed suite: NAO {args.nao_version}, "
          f"{'one core busy' if args.load else 'idle machine'}, moveToward for {args.walk_s:.0f} s of sim time "
          f"per corner; true = ground-truth torso's twist over a gait cycle, mean of the last {args.window_s:.0f} s")
    header = (f"{'corner':<13} {'gait':<8} {'nominal vx, vy, wz':>19}  {'true vx, vy, wz':>19}  {'true/nominal':<22} "
              f"{'falls':>5} {'stop':>4} {'tilt':>6} {'missed':>10} {'halted':>6} {'longest':>7} {'RTF':>5}")
    print(header + "\n" + "-" * len(header), flush=True)
    with (running_suite(args.nao_version, Suite.composed, args.load, prefix="bench_suite_envelope") as (_, monitor, _),
          ALMotion(args.nao_version) as motion):
        reset = None if args.no_reset else motion.node.create_client(Trigger, "reset")
        if args.walk_parameter:
            set_walk_parameters(motion, {name: yaml.safe_load(value) for name, value in args.walk_parameter})
        for corner, command in CORNERS:
            for gait, config in GAITS * args.repeat:
                if (args.max_only and gait != "max") or (args.corners and corner not in args.corners):
                    continue
                want, cycle_s = nominal(command, config)
                r = run_corner(motion, monitor, reset, command, config, args.walk_s, args.window_s)
                got = true_velocity(r["samples"], cycle_s, args.window_s) if not r["falls"] else np.full(3, np.nan)
                true = "fell" if r["falls"] else f"{got[0]:+.3f} {got[1]:+.3f} {got[2]:+.2f}"
                print(f"{corner:<13} {gait:<8} {want[0]:+.3f} {want[1]:+.3f} {want[2]:+.2f}  {true:>19}  "
                      f"{percent_of_nominal(got, want):<22} {r['falls']:>5} {r['stop_falls']:>4} {r['tilt_deg']:5.1f}d "
                      f"{r['missed']:>4}/{r['cycles']:<5} {'-' if r['halted'] is None else r['halted']:>6} "
                      f"{r['longest_halt_ms']:5.0f}ms {r['rtf']:5.2f}", flush=True)
    print("(m/s, m/s, rad/s; falls: while walking, stop: after stopMove; tilt: worst ground-truth torso tilt; "
          "missed: cycles the simulator stepped without a new command; halted: of them, those during or just "
          "after a halted vCPU (host_steal.HostSteal), longest: the longest halt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
