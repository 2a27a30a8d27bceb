#!/usr/bin/env python3
"""Benchmark the batched capsule distance core (nao_motion.collision.distance).

Times one batch call (all N pairs) per sample and prints the median and p99 in
microseconds, with a preallocated DistanceWorkspace (the per-cycle path of the
10 ms control loop) and without one (allocating path).

    cd /work/main && PYTHONPATH=src python3 benchmarks/bench_collision_distance.py [--n 40] [--calls 20000]
"""

import argparse
import gc
import platform
import time

import numpy as np

from nao_motion.collision.distance import DistanceWorkspace, capsule_capsule_distance


def nao_like_pairs(n, seed=0):
    """Random NAO-scale pairs: ~10 % spheres, the rest capsules up to 20 cm,
    centres within a 30 cm box, radii 1-6 cm (about half the pairs overlap)."""
    rng = np.random.default_rng(seed)
    p1 = rng.uniform(-0.15, 0.15, (n, 3))
    p2 = rng.uniform(-0.15, 0.15, (n, 3))
    q1 = p1 + rng.normal(0.0, 0.08, (n, 3))
    q2 = p2 + rng.normal(0.0, 0.08, (n, 3))
    spheres = rng.random(n) < 0.1
    q2[spheres] = p2[spheres]
    r1 = rng.uniform(0.01, 0.06, n)
    r2 = rng.uniform(0.01, 0.06, n)
    return p1, q1, r1, p2, q2, r2


def time_calls(fn, calls, warmup=500):
    for _ in range(warmup):
        fn()
    samples = np.empty(calls)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i in range(calls):
            t0 = time.perf_counter_ns()
            fn()
            samples[i] = time.perf_counter_ns() - t0
    finally:
        if gc_was_enabled:
            gc.enable()
    return samples / 1e3  # microseconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[40], help="pairs per batch (default 40)")
    ap.add_argument("--calls", type=int, default=20000, help="timed calls per case")
    args = ap.parse_args()

    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{'N':>4} {'path':<12} {'median us':>10} {'p99 us':>9} {'us/pair':>8}")
    for n in args.n:
        pairs = nao_like_pairs(n)
        ws = DistanceWorkspace(n)
        cases = {
            "workspace": lambda: capsule_capsule_distance(*pairs, workspace=ws),
            "allocating": lambda: capsule_capsule_distance(*pairs),
        }
        for name, fn in cases.items():
            t = time_calls(fn, args.calls)
            med, p99 = np.median(t), np.percentile(t, 99)
            print(f"{n:>4} {name:<12} {med:>10.1f} {p99:>9.1f} {med / n:>8.2f}")


if __name__ == "__main__":
    main()
