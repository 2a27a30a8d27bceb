#!/usr/bin/env python3
"""A 10-minute random velocity-command session of the walk on the simulated NAO (in process).

Each cycle, the suite's walk chain in process (nao_motion.sim.walking: footstep planner ->
heading correction -> pattern generator -> whole-body balancer -> walk stabiliser) -> one MuJoCo
cycle, as fast as the machine allows. A new move() command within the gait limits every 2-5 s (each axis
zeroed with probability 0.3). A fall is counted, the robot is set back to StandInit and the
session goes on. Prints falls, distance walked (true torso path), worst tilt and the cycle time
of the chain (median / p99).

Run: PYTHONPATH=src python3 benchmarks/bench_walk_sim.py [--minutes 10] [--seed 1]
(no assertions; timings are sensitive to other load on the machine).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.sim.simulator import NaoSimulator  # noqa: E402
from nao_motion.sim.walking import SimulatedWalk  # noqa: E402

MODEL = NaoModel()
DT = MODEL.cycle_time_s
GAIT_VELOCITY = np.array([0.1, 0.08, 0.5])  # m/s, m/s, rad/s: the command's bound per axis


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    sim = NaoSimulator(MODEL)
    walk = SimulatedWalk(MODEL, sim)
    duration_s = args.minutes * 60.0
    falls, distance_m, worst_tilt_deg, next_command_s = 0, 0.0, 0.0, 0.0
    cycle_s: list[float] = []
    last_xy = walk.state.torso_position[:2].copy()
    wall = time.perf_counter()
    sim_time_s = 0.0
    while sim_time_s < duration_s:
        if walk.time_s >= next_command_s:
            velocity = rng.uniform(-1.0, 1.0, 3) * (rng.random(3) < 0.7) * GAIT_VELOCITY
            walk.planner.move(*velocity)
            next_command_s = walk.time_s + rng.uniform(2.0, 5.0)
        walk.cycle()
        cycle_s.append(walk.chain_time_s)
        sim_time_s += DT
        state = walk.state
        worst_tilt_deg = max(worst_tilt_deg, math.degrees(state.torso_tilt_rad))
        distance_m += float(np.linalg.norm(state.torso_position[:2] - last_xy))
        last_xy[:] = state.torso_position[:2]
        if state.fallen:
            falls += 1
            print(f"fall {falls} at t = {sim_time_s:.1f} s")
            sim.reset()
            walk = SimulatedWalk(MODEL, sim)
            last_xy[:] = walk.state.torso_position[:2]
            next_command_s = 0.0
    ms = sorted(s * 1e3 for s in cycle_s)
    p99 = ms[min(len(ms) - 1, int(math.ceil(0.99 * len(ms))) - 1)]
    print(f"simulated {sim_time_s / 60.0:.1f} min in {time.perf_counter() - wall:.0f} s wall: "
          f"falls {falls}, distance walked {distance_m:.1f} m (true torso path), worst tilt {worst_tilt_deg:.1f} deg")
    print(f"walk + balancer + stabiliser cycle: median {statistics.median(ms):.3f} ms, p99 {p99:.3f} ms "
          f"(n = {len(ms)}, cycle {DT * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
