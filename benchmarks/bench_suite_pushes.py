#!/usr/bin/env python3
"""Pushes through the deployed suite: ``bench_walk_envelope.py --pushes``'s trials, over DDS.

``bench_walk_envelope.py`` pushes the walk chain in process; this pushes the simulated NAO that
the suite drives as a user runs it: the simulator and the suite started as the demo starts them
(the suite's nodes composed in one process, the simulator in its own, over DDS on loopback in a
domain of their own, real time), the ALMotion client sending moveInit and moveTo, the push sent
on the simulator's ``push`` topic (geometry_msgs/WrenchStamped, torso frame, the simulator's
``push_duration_s``, 0.1 s). Each trial starts from the simulator's ``reset`` (StandInit).

* Walking: moveTo(``--goal-m``, 0, 0) at the default gait; the push goes
  ``PUSH_AFTER_FIRST_STEP_S`` after the plan's first step began (the walk starts a preview,
  0.8 s, before it: 2 s after the walk's start, as in process), at a phase of the next left
  step (fractions of its planned period, from ``footsteps/plan`` on the simulator's clock; 0 is
  the start of its double support), toward the swing side (+y), the support side (-y) or forward.
  The push is sent when ``/clock`` is a cycle short of that time (the simulator applies it from
  its next cycle on), so it lands within about a cycle of it.
* Standing: sideways (left) and forward, after ``STANDING_BEFORE_PUSH_S``, watched for
  ``STANDING_AFTER_PUSH_S``.

Judged by the simulator's ground truth: a fall (its count), the worst torso tilt after the push,
and for the walks the goal miss: the torso's ground-truth position at the end against the goal
from where it stood before the moveTo (the torso, not the soles' midpoint as in process: standing
still they are a few mm apart). Each trial without and with step recovery (the walk's
``step_recovery`` parameter) unless ``--recovery`` says which. ``--load``: one core kept busy by
a process this benchmark starts and stops.

Figures only, nothing asserted (issue 15: the push figures must hold through the suite).

    python benchmarks/bench_suite_pushes.py [--nao-version V6] [--forces 20 25] [--load]
        [--directions forward ...] [--phases 0 0.25] [--recovery off|on] [--no-standing]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from bench_suite import running_suite
from bench_suite_envelope import ready_to_walk, set_walk_parameters, truth_sample
from bench_walk_envelope import (PUSH_PHASES, SETTLE_S, STANDING_AFTER_PUSH_S, STANDING_BEFORE_PUSH_S,
                                 push_vector)
from nao_motion.almotion.errors import ALMotionError
from nao_motion.bringup import Suite
from nao_motion.footsteps.footstep import Leg
from nao_motion.host_steal import HostSteal
from nao_motion.model import NaoModel
from nao_motion.sim.simulator import DEFAULT_FALL_TILT_RAD

WALK_DIRECTIONS = ("swing side", "support side", "forward")
STAND_DIRECTIONS = ("left", "forward")
# The walk starts a preview window (0.8 s) before the plan's first step: 1.2 s after that step
# began is 2 s after the walk's start, bench_walk_envelope's PUSH_AFTER_WALK_START_S.
PUSH_AFTER_FIRST_STEP_S = 1.2
MOVE_TIMEOUT_S = 40.0  # wall time a pushed moveTo may take before it is stopped
POLL_S = 0.002  # wall time between polls while waiting for the push's moment


class PlanWatch:
    """The footstep planner's latest ``footsteps/plan``, decoded (its times: the simulator's clock)."""

    def __init__(self, node):
        from rclpy.qos import DurabilityPolicy, QoSProfile
        from std_msgs.msg import Float64MultiArray

        from nao_motion.ros.footstep_messages import decode_plan

        self._decode = decode_plan
        self.plan = None
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self._subscription = node.create_subscription(Float64MultiArray, "footsteps/plan", self._on_plan, qos)

    def _on_plan(self, msg) -> None:
        try:
            self.plan = self._decode(msg)
        except ValueError:
            pass  # a malformed plan: the last good one is kept, as the walk does

    def first_step_s(self) -> float | None:
        return self.plan.steps[0].start_s if self.plan is not None and self.plan.steps else None

    def next_left_step(self, after_s: float) -> tuple[float, float] | None:
        """(start_s, period_s) of the first planned left step starting after ``after_s``."""
        for step in self.plan.steps if self.plan is not None else ():
            if step.leg is Leg.LEFT and step.start_s > after_s:
                return step.start_s, step.end_s - step.start_s
        return None


class Pusher:
    def __init__(self, node):
        from geometry_msgs.msg import WrenchStamped

        self._msg_type = WrenchStamped
        self._publisher = node.create_publisher(WrenchStamped, "push", 10)

    def push(self, direction: str, force_n: float) -> None:
        msg = self._msg_type()
        msg.header.frame_id = "torso"
        msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = push_vector(direction, force_n)
        self._publisher.publish(msg)


def fallen(monitor, falls_before: int) -> bool:
    """The simulator's rule on its ground truth (the torso tilted over 60 deg), seen at once, or
    its count of falls (in its diagnostics, about once a second: the torso down near the floor)."""
    return monitor.max_tilt_rad > DEFAULT_FALL_TILT_RAD or monitor.falls() > falls_before


def standing_start(motion, monitor, reset) -> None:
    """The simulator reset to StandInit, the suite settled on it, moveInit done."""
    ready_to_walk(motion, monitor, reset)
    monitor.spin_for(0.5)


def wait_sim_time(monitor, t_s: float, timeout_s: float) -> bool:
    """Poll until the simulator's clock reaches t_s (False: the wall timeout passed first)."""
    return monitor.spin_for(timeout_s, until=lambda: monitor.sim_time_s >= t_s - 0.5 * POLL_S)


def walking_push(motion, monitor, plans: PlanWatch, pusher: Pusher, reset, goal_m: float, direction: str,
                 force_n: float, phase: float, cycle_s: float) -> dict:
    standing_start(motion, monitor, reset)
    start = truth_sample(monitor)[1]
    falls0 = monitor.falls()
    plans.plan = None
    task = motion.post.moveTo(goal_m, 0.0, 0.0)
    pushed_at = None
    if monitor.spin_for(10.0, until=lambda: plans.first_step_s() is not None):
        wait_sim_time(monitor, plans.first_step_s() + PUSH_AFTER_FIRST_STEP_S, 10.0)
        step = plans.next_left_step(monitor.sim_time_s + 0.05)
        if step is not None and monitor.falls() == falls0:
            push_s = step[0] + phase * step[1]
            # The simulator applies a push from its next cycle on: sent a cycle ahead.
            wait_sim_time(monitor, push_s - cycle_s, 5.0)
            monitor.max_tilt_rad = 0.0
            pusher.push(direction, force_n)
            pushed_at = monitor.sim_time_s - push_s
    finished = monitor.spin_for(MOVE_TIMEOUT_S, until=lambda: not motion.isRunning(task) or fallen(monitor, falls0))
    fell = fallen(monitor, falls0)
    if not finished or fell:
        motion.killMove()
    raised = False
    try:
        motion.wait(task, 5000)
    except ALMotionError:  # a fall (the walk stopped: no foot contact) says FELL; else the cell says so
        raised = not fell
    if fell:
        # The legs' command stays where the walk left them (NAOqi's rule): a walk the foot
        # contact protection stopped left them as they fell, and the next trial's reset would
        # stand the robot up under that command, to fall again. moveInit takes them to StandInit.
        try:
            motion.moveInit()
        except ALMotionError:
            pass
    if finished and not fell:
        monitor.spin_for(SETTLE_S)
    end = truth_sample(monitor)[1]
    moved = end.relative_to(start)
    return {"fell": fell, "finished": finished and not fell, "miss_m": math.hypot(moved.x - goal_m, moved.y),
            "tilt_deg": math.degrees(monitor.max_tilt_rad), "late_s": pushed_at, "raised": raised}


def standing_push(motion, monitor, pusher: Pusher, reset, direction: str, force_n: float) -> dict:
    standing_start(motion, monitor, reset)
    start = truth_sample(monitor)[1]
    falls0 = monitor.falls()
    monitor.spin_for(STANDING_BEFORE_PUSH_S)
    monitor.max_tilt_rad = 0.0
    pusher.push(direction, force_n)
    monitor.spin_for(STANDING_AFTER_PUSH_S)
    moved = truth_sample(monitor)[1].relative_to(start)
    return {"fell": fallen(monitor, falls0), "moved_m": math.hypot(moved.x, moved.y),
            "tilt_deg": math.degrees(monitor.max_tilt_rad)}


def walking_cell(r: dict) -> str:
    if r["fell"]:
        return "FELL"
    text = f"{r['miss_m'] * 100:.0f}cm {r['tilt_deg']:.0f}d"
    if r["raised"]:
        return text + " (moveTo raised)"
    return text if r["finished"] else text + " (not done)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nao-version", default="V5", choices=["V5", "V6"])
    parser.add_argument("--forces", type=float, nargs="+", default=[20.0, 25.0], help="push forces (N)")
    parser.add_argument("--directions", nargs="+", choices=WALK_DIRECTIONS, default=list(WALK_DIRECTIONS),
                        metavar="DIRECTION", help="walking push directions ('swing side', 'support side', forward)")
    parser.add_argument("--phases", type=float, nargs="+", default=list(PUSH_PHASES),
                        help="phases of a left-foot step the walking pushes come at")
    parser.add_argument("--recovery", choices=["off", "on", "both"], default="both",
                        help="step recovery (the walk's step_recovery parameter) off, on, or each trial with both")
    parser.add_argument("--goal-m", type=float, default=1.0, help="the moveTo's distance")
    parser.add_argument("--no-standing", action="store_true", help="skip the standing pushes")
    parser.add_argument("--load", action="store_true", help="one core kept busy")
    args = parser.parse_args()

    from std_srvs.srv import Trigger

    from nao_motion.almotion import ALMotion

    cycle_s = NaoModel(args.nao_version).cycle_time_s
    recoveries = {"off": (False,), "on": (True,), "both": (False, True)}[args.recovery]
    print(f"pushes through the deployed suite: NAO {args.nao_version}, "
          f"{'one core busy' if args.load else 'idle machine'}; 0.1 s at the torso (torso frame), "
          f"moveTo({args.goal_m:g}, 0, 0) at the default gait, pushed {PUSH_AFTER_FIRST_STEP_S} s after its "
          "first step began, at a phase of the next left step")
    print("   each cell: " + " > ".join(f"step recovery {'on' if r else 'off'}" for r in recoveries)
          + "; goal miss by ground truth (torso), worst tilt after the push; FELL", flush=True)
    wall0 = time.monotonic()
    late = []
    with (running_suite(args.nao_version, Suite.composed, args.load, prefix="bench_suite_pushes") as (_, monitor, _),
          ALMotion(args.nao_version) as motion, HostSteal() as host):
        reset = motion.node.create_client(Trigger, "reset")
        plans, pusher = PlanWatch(monitor.node), Pusher(monitor.node)
        missed0 = int(monitor.diagnostics.get("nao_motion: simulator", {}).get("missed_cycles", 0))

        def set_recovery(on: bool) -> None:
            set_walk_parameters(motion, {"step_recovery": on}, echo=False)

        phases = "".join(f"{'phase ' + format(p, 'g'):>{12 * len(recoveries) + 2}}" for p in args.phases)
        header = f"{'walking, push':<15}{'force':>6}{phases}"
        print(header + "\n" + "-" * len(header), flush=True)
        falls = dict.fromkeys(recoveries, 0)
        for direction in args.directions:
            for force_n in args.forces:
                cells = []
                for phase in args.phases:
                    pair = []
                    for recovery in recoveries:
                        set_recovery(recovery)
                        r = walking_push(motion, monitor, plans, pusher, reset, args.goal_m, direction, force_n, phase,
                                         cycle_s)
                        pair.append(walking_cell(r))
                        falls[recovery] += r["fell"]
                        if r["late_s"] is not None:
                            late.append(r["late_s"])
                    cells.append(" > ".join(pair))
                print(f"{direction:<15}{force_n:5.0f}N" + "".join(f"{c:>{12 * len(recoveries) + 2}}" for c in cells),
                      flush=True)
        for recovery in recoveries:
            print(f"   step recovery {'on ' if recovery else 'off'}: {falls[recovery]} falls")
        if late:
            print(f"   pushes sent {1e3 * min(late):+.0f} to {1e3 * max(late):+.0f} ms of sim time from their moment "
                  "(applied from the simulator's next cycle)")
        if not args.no_standing:
            print(f"\n{'standing, push':<15}{'force':>6}{'recovery':>10}{'result':>22}{'torso moved':>14}")
            for direction in STAND_DIRECTIONS:
                for force_n in args.forces:
                    for recovery in recoveries:
                        set_recovery(recovery)
                        r = standing_push(motion, monitor, pusher, reset, direction, force_n)
                        result = "FELL" if r["fell"] else f"stood, tilt {r['tilt_deg']:.1f}d"
                        print(f"{direction:<15}{force_n:5.0f}N{'on' if recovery else 'off':>10}{result:>22}"
                              f"{r['moved_m'] * 100:11.1f} cm", flush=True)
        missed = int(monitor.diagnostics.get("nao_motion: simulator", {}).get("missed_cycles", 0)) - missed0
        print(f"\nmissed cycles (the simulator stepped without a new command): {missed}; longest vCPU halt "
              f"{1e3 * host.longest_s:.0f} ms; wall time {time.monotonic() - wall0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
