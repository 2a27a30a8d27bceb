"""The README's main job end to end: `nao-motion demo` walks the simulated NAO to a goal through the
whole suite (footstep planner -> walk -> whole body -> simulator, as separate processes over DDS)
and writes its report."""

import json
import subprocess
import sys

import pytest

from nao_motion.processes import CLEAN_EXIT_CODES
from nao_motion.ros.distribution import ros_distribution

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

GOAL = (0.4, 0.0, 0.0)


def test_demo_walks_the_simulated_nao_to_the_goal_and_writes_the_report(tmp_path, ros_env):
    # Half real time leaves headroom for seven processes on a loaded 2-core machine.
    result = subprocess.run(
        [sys.executable, "-m", "nao_motion.cli", "demo", "--goal", *map(str, GOAL), "--rtf", "0.5",
         "--duration", "40", "--out", str(tmp_path)],
        env=ros_env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    # The report says which ROS 2 it ran on: the distribution this test runs (rclpy's own version).
    assert (summary["ros_distro"], summary["rclpy_version"]) == tuple(ros_distribution().values()), summary
    assert summary["ros_distro"] in ("humble", "jazzy", "kilted")
    walk = summary["walk"]
    assert summary["falls"] == 0 and summary["max_tilt_deg"] < 10.0
    # Judged by the simulator's ground truth: the open-loop odometry of a short straight walk.
    assert walk["position_error_m"] < 0.08 and walk["heading_error_deg"] < 5.0, walk
    assert walk["reached"][0] > 0.3
    assert walk["steps"] >= 8  # 0.4 m at MaxStepX 0.04 m: at least 10 steps, as planned
    assert {"walk", "whole_body", "footstep_planner", "collision_filter", "kinematics", "simulator"} <= \
        set(summary["cycle_time_ms"])
    assert all(code in CLEAN_EXIT_CODES for code in summary["exit_codes"].values()), summary["exit_codes"]
    for picture in ("nao_walk.png", "nao_sim.gif"):
        assert (tmp_path / picture).stat().st_size > 10_000
