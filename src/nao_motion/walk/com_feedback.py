"""Sensor feedback of the walk: the measured CoM blended into the preview controller's state.

Scheme. Each cycle, before the generator steps, the CoM estimated from the measured joint angles
(the kinematics node's ``com``, placed in the odometry plane through the supporting foot, and the
IMU's vertical) is compared with the controller's CoM; ``gain`` of the difference (clamped to
``max_error_m`` per axis) is added to the controller's CoM position. The controller then plans
its CoM trajectory from where the robot actually is: a push that moves the CoM shifts the
cart-table's ZMP by as much, and the state and integral gains bring the ZMP back onto its
reference (the planned footsteps are kept), which moves the commanded CoM so as to absorb the
disturbance. Velocity and acceleration are not blended: differentiating joint encoders at
100 Hz is noisy, and the position error of successive cycles corrects them through the gains.

Why this one: it needs only the sensors NAOqi's walk cites (joint sensors, "absorbs torso
oscillations in the frontal and lateral planes"), keeps the footsteps the planner committed to
(NAOqi's unchangeable steps), costs two vector operations per cycle, and is a single gain: 0
gives the open-loop pattern, a small gain (default 0.1 per 10 ms cycle, a time constant of about
0.1 s) filters encoder noise and the servos' tracking lag, which must not be read as a push.
The clamp keeps one bad estimate (a foot slipping, a fall) from throwing the pattern away.
A ZMP/ankle-torque correction from the FSRs would react faster but needs calibrated foot sensors
and a model of the ankle compliance; it can be added later on the same controller.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .preview_control import PreviewController

__all__ = ["ComFeedbackConfig", "ComFeedback"]


@dataclass(frozen=True)
class ComFeedbackConfig:
    gain: float = 0.1  # fraction of the CoM position error removed per cycle (0: open loop)
    max_error_m: float = 0.03  # larger errors (per axis) are clamped

    def __post_init__(self) -> None:
        if not (0.0 <= self.gain <= 1.0 and self.max_error_m > 0.0):
            raise ValueError(f"gain must be in [0, 1] and max_error_m > 0, got {self}")


class ComFeedback:
    """Blends a measured CoM (x, y, odometry plane, m) into a ``PreviewController``'s state."""

    def __init__(self, config: ComFeedbackConfig):
        self.config = config
        self.error_m = np.zeros(2)  # measured - model, before clamping (for diagnostics)

    def apply(self, controller: PreviewController, measured_com_xy_m) -> None:
        cfg = self.config
        com = controller.state[0]
        # Two axes: Python floats (each operation rounded as numpy's elementwise one), not ufunc calls.
        limit_m, gain = cfg.max_error_m, cfg.gain
        px, py = com.tolist()
        ex, ey = float(measured_com_xy_m[0]) - px, float(measured_com_xy_m[1]) - py
        self.error_m[0], self.error_m[1] = ex, ey
        com[0] = px + min(max(ex, -limit_m), limit_m) * gain
        com[1] = py + min(max(ey, -limit_m), limit_m) * gain
