"""`nao-motion demo --scenario obstacle` end to end: the arm stops short of the declared sphere, goes
on once it is moved beside, and the pictures are written (judged by the summary's ground truth:
measured joints, the arm's capsules against the sphere)."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")


def test_the_obstacle_demo_stops_the_arm_at_the_sphere_then_lets_it_by(tmp_path, ros_env):
    result = subprocess.run(
        [sys.executable, "-m", "nao_motion.cli", "demo", "--scenario", "obstacle", "--rtf", "0.5", "--duration", "9",
         "--out", str(tmp_path)], env=ros_env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    obstacle = summary["obstacle"]
    assert 0.0 < obstacle["min_distance_m"]
    assert obstacle["stopped_at"]["distance_m"] < 0.012 and obstacle["stopped_at"]["LShoulderPitch"] > 0.15
    assert abs(obstacle["ended_at"]["LShoulderPitch"]) < 0.03
    for picture in ("nao_sim.gif", "nao_stick_figure.png"):
        assert (tmp_path / picture).stat().st_size > 10_000
