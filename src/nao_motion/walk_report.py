"""The picture of a walk: footsteps, paths (top view) and ZMP / centre-of-mass tracking (lateral
and forward over time), from what `nao_motion.ros.walk_recorder.WalkRecorder` kept. Planned and
measured quantities are in `odom`; the ground truth is in the simulator's world, which is `odom`
at start-up (both start where the robot stands).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from .footsteps import NAO_FOOT_BOXES, Leg
from .footsteps.foot_boxes import place_box


def _sole_outline(step) -> np.ndarray:
    """The sole box of the step's foot at its touch-down pose (closed polygon, x/y rows)."""
    box = place_box(NAO_FOOT_BOXES.left if step.leg is Leg.LEFT else NAO_FOOT_BOXES.right, step.target)
    return np.array(box + box[:1])


def plot_walk(zmp: np.ndarray, com: np.ndarray, measured: np.ndarray, steps: Iterable, true_path_xy: np.ndarray,
              goal_xy_theta: tuple[float, float, float], path: Path, title: str) -> None:
    """Top view (footsteps, ZMP, centre of mass, true torso path, goal) and tracking over time.

    zmp, com, measured: rows (t_s, x_m, y_m) of the planned ZMP and centre of mass and the
    measured centre of mass; steps: planned steps (leg, target pose)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(12, 6.5))
    top = fig.add_subplot(1, 2, 1)
    for step in steps:
        outline = _sole_outline(step)
        top.plot(outline[:, 0], outline[:, 1], color="tab:green" if step.leg is Leg.LEFT else "tab:red",
                 linewidth=1)
    top.plot(zmp[:, 1], zmp[:, 2], color="tab:orange", linewidth=1, label="ZMP (planned)")
    top.plot(com[:, 1], com[:, 2], color="tab:blue", linewidth=1.5, label="centre of mass (planned)")
    top.plot(measured[:, 1], measured[:, 2], "--", color="tab:cyan", linewidth=1, label="centre of mass (measured)")
    if len(true_path_xy):
        top.plot(true_path_xy[:, 0], true_path_xy[:, 1], color="black", linewidth=1, label="torso (ground truth)")
    gx, gy, gth = goal_xy_theta
    top.annotate("", xy=(gx + 0.1 * np.cos(gth), gy + 0.1 * np.sin(gth)), xytext=(gx, gy),
                 arrowprops={"arrowstyle": "->", "color": "purple"})
    top.plot(gx, gy, "*", color="purple", markersize=12, label="goal")
    top.set_aspect("equal")
    top.grid(alpha=0.3)
    top.set_xlabel("x (m), odom")
    top.set_ylabel("y (m), odom")
    top.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3)
    top.set_title("footsteps (left green, right red) and paths")
    for row, (axis, label) in enumerate(((2, "y (m)"), (1, "x (m)"))):
        ax = fig.add_subplot(2, 2, 2 + 2 * row)
        ax.plot(zmp[:, 0], zmp[:, axis], color="tab:orange", linewidth=1, label="ZMP (planned)")
        ax.plot(com[:, 0], com[:, axis], color="tab:blue", linewidth=1.5, label="COM (planned)")
        ax.plot(measured[:, 0], measured[:, axis], "--", color="tab:cyan", linewidth=1, label="COM (measured)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        if row == 0:
            ax.legend(fontsize=8, loc="upper right")
            ax.set_title("tracking over time")
        else:
            ax.set_xlabel("sim time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
