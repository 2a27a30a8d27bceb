"""NAO's foot force-sensitive resistors (FSR): positions and force distribution (numpy only).

The FSR positions are robot data. They live here, in ONE place, until the model takes them
(candidate: ``NaoModel.fsr_positions`` next to the sole frames); everything in ``sim`` reads
them through :func:`fsr_positions_in_sole`.

Order everywhere: FL, FR, RL, RR (front-left, front-right, rear-left, rear-right, named by
their side in the sole frame, x forward, y left), as NAOqi's ``LFoot/FSR/FrontLeft`` ...
``RearRight`` keys. The right foot mirrors the left foot in y, so the right foot's
"FrontLeft" sensor is the mirror image of the left foot's "FrontRight" one.
"""

from __future__ import annotations

import numpy as np

from ..model import NaoModel

FSR_NAMES = ("FL", "FR", "RL", "RR")
FOOT_SIDES = ("left", "right")

# --- robot data (move to the model) -------------------------------------------------------------
# Left foot, sole frame, millimetres (Aldebaran documentation via nao-model.md). The FSRs lie in
# the sole plane (z = 0 of the sole frame; the documentation's 45.11 mm below the ankle is the
# URDF foot height, the model's sole frame is FootHeight below the ankle).
_LEFT_FOOT_FSR_MM = {
    "FL": (70.25, 29.9),
    "FR": (70.25, -23.1),
    "RL": (-30.25, 29.9),
    "RR": (-29.65, -19.1),
}


def fsr_positions_in_sole(model: NaoModel, side: str) -> np.ndarray:
    """(4, 3) FSR positions (m) in the ``l_sole`` / ``r_sole`` frame, order FL, FR, RL, RR.

    `model` is taken for when the positions move into it (they are the same on V5 and V6).
    """
    del model
    if side not in FOOT_SIDES:
        raise ValueError(f"unknown foot {side!r}: expected one of {FOOT_SIDES}")
    if side == "left":
        xy = [_LEFT_FOOT_FSR_MM[n] for n in FSR_NAMES]
    else:  # mirror in y: right FL is the left FR mirrored, right RL is the left RR mirrored, ...
        mirror_of = {"FL": "FR", "FR": "FL", "RL": "RR", "RR": "RL"}
        xy = [(_LEFT_FOOT_FSR_MM[mirror_of[n]][0], -_LEFT_FOOT_FSR_MM[mirror_of[n]][1]) for n in FSR_NAMES]
    out = np.zeros((4, 3))
    out[:, :2] = np.asarray(xy) * 1e-3
    return out


# --- force distribution ------------------------------------------------------------------------
def distribute_to_fsrs(fsr_xy_m: np.ndarray, points_xy_m: np.ndarray, forces_n: np.ndarray) -> np.ndarray:
    """Spread normal forces applied at sole points onto the 4 FSRs (N, order FL, FR, RL, RR).

    Bilinear weights: along x between the mean front and mean rear sensor abscissae, then along y
    between the left and right sensor of the front row and of the rear row. Inside the sensors'
    span the weights reproduce the force's centre of pressure (exactly in y, and in x up to the
    2 mm difference between the two rear sensors); outside it they are clipped, so a force on the
    toe or heel edge goes to the nearest row (a real FSR there would see it through the sole
    plate). The total force is preserved.
    """
    fsr_xy_m = np.asarray(fsr_xy_m, dtype=float)
    points = np.asarray(points_xy_m, dtype=float).reshape(-1, 2) if np.size(points_xy_m) else np.zeros((0, 2))
    forces = np.asarray(forces_n, dtype=float).reshape(-1)
    if forces.size == 0:
        return np.zeros(4)
    fl, fr, rl, rr = fsr_xy_m[:, :2]
    x_front, x_rear = (fl[0] + fr[0]) / 2, (rl[0] + rr[0]) / 2

    def unit(x):  # np.clip(x, 0, 1) without its wrapper (called every cycle)
        return np.minimum(np.maximum(x, 0.0), 1.0)

    u = unit((points[:, 0] - x_rear) * (1.0 / (x_front - x_rear)))
    v_front = unit((points[:, 1] - fr[1]) * (1.0 / (fl[1] - fr[1])))
    v_rear = unit((points[:, 1] - rr[1]) * (1.0 / (rl[1] - rr[1])))
    fu = forces * u
    fr_ = forces - fu
    return np.array([fu @ v_front, fu @ (1.0 - v_front), fr_ @ v_rear, fr_ @ (1.0 - v_rear)])
