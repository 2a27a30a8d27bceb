"""Kinematics benchmark: per-call FK / centre of mass / Jacobians, and the node's CPU at 100 Hz.

Targets (issue 2, this 2-core machine): FK of all frames plus centre of mass <= 100 us median;
the kinematics node at 100 Hz under 15 % of one core. Figures are printed, not asserted:
run it a few times, the machine is shared and noisy.

    ./run bench kinematics        (or: python benchmarks/bench_kinematics.py)
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from nao_motion.kinematics import ForwardKinematics
from nao_motion.model import NaoModel
from nao_motion.postures import posture


def timed(function, repeats: int) -> np.ndarray:
    out = np.empty(repeats)
    for i in range(repeats):
        start = time.perf_counter()
        function(i)
        out[i] = time.perf_counter() - start
    return out * 1e6


def report(name: str, samples_us: np.ndarray, target_us: float | None = None) -> None:
    line = f"{name:44s} median {np.median(samples_us):8.1f} us   p99 {np.percentile(samples_us, 99):8.1f} us"
    if target_us is not None:
        line += f"   (target median <= {target_us:.0f} us: {'ok' if np.median(samples_us) <= target_us else 'MISSED'})"
    print(line)


def bench_core(repeats: int) -> None:
    model = NaoModel()
    fk = ForwardKinematics(model)
    rng = np.random.default_rng(0)
    qs = rng.uniform(model.lower, model.upper, size=(repeats, model.n_joints))
    states = [fk.compute(q) for q in qs[:50]]
    frames = fk.frame_names()
    report("FK all frames + centre of mass", timed(lambda i: fk.compute(qs[i]), repeats), 100.0)
    report("centre of mass Jacobian", timed(lambda i: fk.com_jacobian(states[i % 50]), repeats))
    report(f"all {len(frames)} frame Jacobians", timed(
        lambda i: [fk.frame_jacobian(states[i % 50], f) for f in frames], max(repeats // 10, 50)))
    report("one frame Jacobian (l_gripper)", timed(lambda i: fk.frame_jacobian(states[i % 50], "l_gripper"), repeats))


def bench_node(seconds: float) -> None:
    import rclpy
    from sensor_msgs.msg import JointState

    from nao_motion.processes import NodeProcess, local_ros_env, process_cpu_seconds
    from nao_motion.ros.qos import CYCLE_QOS
    from nao_motion.suite import NODES

    env = local_ros_env()
    os.environ.update({k: env[k] for k in ("ROS_AUTOMATIC_DISCOVERY_RANGE", "ROS_DOMAIN_ID")})
    model = NaoModel()
    proc = NodeProcess(next(s for s in NODES if s.executable == "kinematics"), env).start()
    rclpy.init()
    node = rclpy.create_node("bench_kinematics_driver")
    pub = node.create_publisher(JointState, "joint_states", CYCLE_QOS)
    msg = JointState(name=list(model.joint_names), position=posture(model, "StandInit").tolist())
    try:
        time.sleep(3.0)  # start-up (imports, URDF generation) is not the steady state
        cpu0, t0 = process_cpu_seconds(proc.process.pid), time.monotonic()
        next_t = t0
        while time.monotonic() - t0 < seconds:
            msg.header.stamp = node.get_clock().now().to_msg()
            pub.publish(msg)
            next_t += 0.01
            time.sleep(max(0.0, next_t - time.monotonic()))
        cpu = (process_cpu_seconds(proc.process.pid) - cpu0) / (time.monotonic() - t0)
        print(f"{'kinematics node at 100 Hz input':44s} CPU {100 * cpu:5.1f} % of one core   (target < 15 %: "
              f"{'ok' if cpu < 0.15 else 'MISSED'})")
    finally:
        node.destroy_node()
        rclpy.shutdown()
        proc.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5000)
    parser.add_argument("--node-seconds", type=float, default=10.0, help="0 skips the node measurement")
    args = parser.parse_args(argv)
    print(f"nao_motion kinematics benchmark (python {sys.version.split()[0]}, numpy {np.__version__})")
    bench_core(args.repeats)
    if args.node_seconds > 0:
        bench_node(args.node_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
