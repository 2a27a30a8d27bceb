"""thread_priority: the motion cycle's processes ask for SCHED_FIFO (as ros2_control does), and a
refused request leaves normal scheduling with a warning. Each case runs in a process of its own
(real-time scheduling must not leak into the test runner)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("rclpy")

PROBE = """
import os, sys, rclpy
from rclpy.node import Node
from rclpy.parameter import Parameter
from nao_motion.ros.node_tools import apply_thread_priority, declare_thread_priority
rclpy.init()
nodes = []
for i, value in enumerate(sys.argv[1:]):
    node = Node(f"n{i}", parameter_overrides=[Parameter("thread_priority", value=int(value))])
    declare_thread_priority(node)
    nodes.append(node)
apply_thread_priority(nodes)
threads = os.listdir("/proc/self/task")
policies = {os.sched_getscheduler(int(t)) for t in threads}
print("POLICY", "fifo" if policies == {os.SCHED_FIFO} else "other" if os.SCHED_FIFO not in policies else "mixed",
      max(os.sched_getparam(int(t)).sched_priority for t in threads), flush=True)
"""


def run_probe(*priorities: int) -> tuple[str, int, str]:
    out = subprocess.run([sys.executable, "-c", PROBE, *map(str, priorities)], capture_output=True, text=True,
                         timeout=60, env=os.environ)
    line = next(line for line in out.stdout.splitlines() if line.startswith("POLICY"))
    _, policy, priority = line.split()
    return policy, int(priority), out.stderr


def fifo_permitted() -> bool:
    try:
        subprocess.run(["chrt", "-f", "1", "true"], check=True, capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False


def test_the_highest_priority_asked_is_applied_to_every_thread():
    policy, priority, log = run_probe(0, 30, 20)
    if not fifo_permitted():
        assert policy == "other" and "refused" in log and "normal scheduling" in log
        pytest.skip("this machine refuses SCHED_FIFO to this user: the warning was checked instead")
    assert (policy, priority) == ("fifo", 30), log


def test_zero_and_bad_values_leave_normal_scheduling():
    assert run_probe(0)[:2] == ("other", 0)
    policy, priority, log = run_probe(150)
    assert (policy, priority) == ("other", 0)
    assert "must be an integer in 0..99" in log
