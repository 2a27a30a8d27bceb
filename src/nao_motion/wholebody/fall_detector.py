"""Whether the robot is down (NAOqi's ``robotHasFallen``), from the measured vertical and the
centre of mass against the feet.

Down, once one of these has held for ``confirm_s``:

* the torso leans more than ``fallen_tilt_rad`` from the vertical (lying, sitting back);
* it leans more than ``leaning_tilt_rad`` and the floor projection of the measured centre of
  mass is more than ``com_outside_m`` outside the polygon of the two soles (kneeling, caught on
  its hands, tipping over a foot's edge).

Up again once the torso has stayed within ``leaning_tilt_rad`` of the vertical for
``recover_s`` (a robot got up, or put back on its feet).

The vertical is the torso frame's "up": the IMU's orientation when it has one, else its
accelerometer (nao_lola's IMU on a V6 has no orientation; a robot that has fallen is still, and
``confirm_s`` outlasts the jolts of the fall). Walking and balancing lean the torso a few degrees,
never ``leaning_tilt_rad``: the centre of mass, which needs the forward kinematics of the
measured joints, is computed only past it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..kinematics import ForwardKinematics
from ..model import NaoModel
from ..spatial import rotation_from_vector
from .support_polygon import sole_corners_in_sole, support_polygon

FEET = ("left", "right")


@dataclass(frozen=True)
class FallConfig:
    fallen_tilt_rad: float = math.radians(50.0)
    leaning_tilt_rad: float = math.radians(20.0)
    com_outside_m: float = 0.03
    confirm_s: float = 0.3
    recover_s: float = 1.0


def up_from_quaternion_xyzw(x: float, y: float, z: float, w: float) -> tuple[float, float, float]:
    """The vertical in the torso frame from the torso's orientation in a gravity-aligned frame:
    the third row of its rotation matrix."""
    return 2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)


def up_from_acceleration(ax: float, ay: float, az: float) -> tuple[float, float, float] | None:
    """The vertical in the torso frame from an accelerometer at rest (it reads +g upward);
    None when it reads nothing usable (free fall, not finite)."""
    norm = math.sqrt(ax * ax + ay * ay + az * az)
    if not (norm > 1.0 and math.isfinite(norm)):
        return None
    return ax / norm, ay / norm, az / norm


class FallDetector:
    """Fed every motion cycle with the vertical and the measured joints; ``fallen`` and ``reason``."""

    def __init__(self, model: NaoModel, config: FallConfig | None = None, fk: ForwardKinematics | None = None):
        self.config = config or FallConfig()
        self.dt_s = model.cycle_time_s
        self.fk = fk or ForwardKinematics(model)
        self._state = self.fk.new_state()
        self._corners = sole_corners_in_sole(model)
        self._sole_level = {foot: np.eye(4) for foot in FEET}
        self.fallen = False
        self.reason = ""
        self.tilt_rad = 0.0
        self._held_s = 0.0  # how long the state's opposite has held

    def reset(self) -> None:
        self.fallen, self.reason, self._held_s = False, "", 0.0

    def update(self, up_torso: tuple[float, float, float] | None, q_measured: np.ndarray) -> bool:
        """One cycle; whether ``fallen`` changed. ``up_torso`` None (no vertical measured):
        nothing changes."""
        if up_torso is None:
            return False
        cfg = self.config
        self.tilt_rad = math.acos(max(-1.0, min(1.0, up_torso[2])))
        reason = ""
        if self.tilt_rad > cfg.fallen_tilt_rad:
            reason = f"the torso leans {math.degrees(self.tilt_rad):.0f} deg from the vertical"
        elif self.tilt_rad > cfg.leaning_tilt_rad:
            outside_m = -self._com_margin_m(up_torso, q_measured)
            if outside_m > cfg.com_outside_m:
                reason = (f"the torso leans {math.degrees(self.tilt_rad):.0f} deg and the centre of mass is "
                          f"{100 * outside_m:.0f} cm outside the feet")
        # Down: a reason; staying down: leaning at all (every reason leans past leaning_tilt_rad).
        down = self.tilt_rad > cfg.leaning_tilt_rad if self.fallen else bool(reason)
        if down == self.fallen:
            self._held_s = 0.0
            if reason:
                self.reason = reason
            return False
        self._held_s += self.dt_s
        if self._held_s < (cfg.confirm_s if down else cfg.recover_s) - 1e-9:
            return False
        self.fallen, self._held_s = down, 0.0
        self.reason = reason if down else ""
        return True

    def _com_margin_m(self, up_torso: tuple[float, float, float], q_measured: np.ndarray) -> float:
        """Distance of the centre of mass's floor projection inside the soles' polygon (< 0 out)."""
        state = self.fk.compute(q_measured, out=self._state)
        up = np.asarray(up_torso)
        axis = np.cross(up, (0.0, 0.0, 1.0))
        sin_angle = float(np.linalg.norm(axis))
        level = rotation_from_vector(axis / sin_angle * self.tilt_rad) if sin_angle > 1e-9 else np.eye(3)
        for foot, sole in zip(FEET, ("l_sole", "r_sole")):
            pose = self.fk.pose(state, sole)
            self._sole_level[foot][:3, :3] = level @ pose[:3, :3]
            self._sole_level[foot][:3, 3] = level @ pose[:3, 3]
        polygon = support_polygon(self._sole_level, FEET, self._corners)
        return polygon.margin((level @ state.com_torso_m)[:2])
