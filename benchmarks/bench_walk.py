#!/usr/bin/env python3
"""Timing of the walk pattern generator core (pure Python, no ROS).

Prints median and p99 of one generator cycle (``WalkPatternGenerator.step``: ZMP reference
over the 0.8 s preview, preview control of both axes, feet, torso, arm swing) while walking
under a velocity command on the V5 model (10 ms cycle; target <= 0.3 ms median), and, for
information, the same cycle with the CoM feedback and the planner's own ``advance``.

Run: PYTHONPATH=src python3 benchmarks/bench_walk.py (no assertions; p99 is sensitive to other
load on the machine).
"""

from __future__ import annotations

import gc
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from nao_motion.footsteps import FootstepPlanner  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.walk import WalkPatternGenerator  # noqa: E402


def _report(name: str, samples_s: list[float], target_ms: float | None) -> None:
    ms = sorted(s * 1e3 for s in samples_s)
    med = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, int(math.ceil(0.99 * len(ms))) - 1)]
    verdict = ""
    if target_ms is not None:
        verdict = f"  target <= {target_ms:g} ms: median {'OK' if med <= target_ms else 'MISSED'}"
    print(f"{name:<44s} n={len(ms):5d}  median {med:7.3f} ms  p99 {p99:7.3f} ms{verdict}")


def bench_walk(n: int = 5000, feedback: bool = False) -> tuple[list[float], list[float]]:
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    planner.move(0.06, 0.02, 0.2)
    dt = gen.config.dt_s
    cycle, advance = [], []
    for k in range(n + 200):
        t = k * dt
        t0 = time.perf_counter()
        planner.advance_to(t)
        t1 = time.perf_counter()
        if feedback:
            gen.feed_back_com(gen.output.com_m[:2])
        gen.step(t, planner.steps(), planner.feet)
        t2 = time.perf_counter()
        if k >= 200:  # warm-up: the walk is under way
            advance.append(t1 - t0)
            cycle.append(t2 - t1)
    return cycle, advance


def main() -> int:
    gc.collect()
    cycle, advance = bench_walk()
    _report("walk generator cycle (step)", cycle, 0.3)
    gc.collect()
    cycle_fb, _ = bench_walk(feedback=True)
    _report("walk generator cycle + CoM feedback (info)", cycle_fb, None)
    _report("planner advance_to while walking (info)", advance, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
