#!/usr/bin/env python3
"""Timing of the footstep-planning core (pure Python, no ROS).

Prints median and p99 of:
* planning a 3 m moveTo from standing (target <= 5 ms);
* a velocity-command update while walking (move() with a new velocity:
  replan the changeable steps and refill the preview; target <= 0.2 ms);
and, for information, moveTo to random goals within 3 m and one 10 ms
walk-generator cycle (advance).

Run: PYTHONPATH=src python3 benchmarks/bench_footsteps.py
(exit status 1 if a median misses its target; p99 is reported, and is
sensitive to other load on the machine).
"""

from __future__ import annotations

import gc
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

import numpy as np  # noqa: E402

from nao_motion.footsteps import FootstepPlanner  # noqa: E402


def _stats(samples_s: list[float]) -> tuple[float, float]:
    ms = sorted(s * 1e3 for s in samples_s)
    return statistics.median(ms), ms[min(len(ms) - 1, int(math.ceil(0.99 * len(ms))) - 1)]


def _report(name: str, samples_s: list[float], target_ms: float | None) -> bool:
    med, p99 = _stats(samples_s)
    verdict, ok = "", True
    if target_ms is not None:
        ok = med <= target_ms
        verdict = (
            f"  target <= {target_ms:g} ms: median {'OK' if ok else 'MISSED'},"
            f" p99 {'OK' if p99 <= target_ms else 'over'}"
        )
    print(f"{name:<40s} n={len(samples_s):5d}  median {med:7.3f} ms  p99 {p99:7.3f} ms{verdict}")
    return ok


def bench_move_to_3m(n: int = 300) -> list[float]:
    samples = []
    for _ in range(20):  # warm-up
        FootstepPlanner().move_to(3.0, 0.0, 0.0)
    for _ in range(n):
        planner = FootstepPlanner()
        t0 = time.perf_counter()
        planner.move_to(3.0, 0.0, 0.0)
        samples.append(time.perf_counter() - t0)
    return samples


def bench_move_to_random(n: int = 200) -> list[float]:
    rng = np.random.default_rng(7)
    samples = []
    for _ in range(n):
        r = 3.0 * math.sqrt(rng.uniform())
        a = rng.uniform(-math.pi, math.pi)
        goal = (r * math.cos(a), r * math.sin(a), rng.uniform(-math.pi, math.pi))
        planner = FootstepPlanner()
        t0 = time.perf_counter()
        planner.move_to(*goal)
        samples.append(time.perf_counter() - t0)
    return samples


def bench_velocity_update(n: int = 3000) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(8)
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.0)
    for _ in range(200):
        planner.advance(0.01)
    commands = [
        (rng.uniform(-0.08, 0.1), rng.uniform(-0.05, 0.05), rng.uniform(-0.6, 0.6))
        for _ in range(n)
    ]
    update, cycle = [], []
    for i, cmd in enumerate(commands):
        t0 = time.perf_counter()
        planner.move(*cmd)
        update.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        planner.advance(0.01)  # one walk-generator cycle
        cycle.append(time.perf_counter() - t0)
    return update, cycle


def main() -> int:
    gc.collect()
    ok = _report("moveTo 3 m (plan from standing)", bench_move_to_3m(), 5.0)
    gc.collect()
    _report("moveTo random goal within 3 m (info)", bench_move_to_random(), None)
    gc.collect()
    update, cycle = bench_velocity_update()
    ok &= _report("velocity command update (move)", update, 0.2)
    _report("advance(0.01 s) while walking (info)", cycle, None)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
