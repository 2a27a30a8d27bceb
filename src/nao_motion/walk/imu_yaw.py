"""The torso's yaw and gravity-aligned attitude as the walk reads them: from the IMU's orientation
when it gives one, else from its gyro, integrated.

Why. The heading correction and the sensed odometry need the yaw the feet lose on the floor,
which the joints cannot see and only an inertial sensor can. nao_lola's ``imu`` on a NAO V6 has
no orientation (LoLA gives none; ``orientation_covariance[0] = -1``), so without the gyro the
walk there would be open loop in yaw and every slip of the feet would add up.

What:

* an orientation no older than ``stale_s``: its yaw and attitude;
* else a gyro sample no older than ``stale_s``: the yaw rate about the vertical (the gyro, in the
  torso frame, on the balancer's vertical: ``torso_world``'s third row), minus the estimated
  bias, integrated on the samples' clock; each sample is held over the time since the one
  before (an IMU's output is the mean over its period: a one-sample gyro aliases the footfalls'
  jolts and under-reads a walk's turn by about 15 %, see ``SimState.imu_angular_velocity_mean``).
  The attitude is the balancer's roll and pitch with that yaw;
* the gyro's bias is learnt while the robot stands (no walk) and turns slower than
  ``MAX_STANDING_RATE_RAD_S``: a first-order filter of the yaw rate, time constant
  ``BIAS_TIME_CONSTANT_S`` (a robot carried round while idle turns faster, and is not bias).

While the orientation is fresh the integrated yaw follows it, so a yaw that goes over from one
to the other does not jump. Without an orientation only differences of the yaw are meaningful (its
origin is the first sample's): the heading correction and the odometry count from where they
start. No rclpy; rad, s, frames as named.
"""

from __future__ import annotations

import math

import numpy as np

from ..spatial import with_yaw, yaw_of

__all__ = ["BIAS_TIME_CONSTANT_S", "ImuYaw", "MAX_STANDING_RATE_RAD_S"]

BIAS_TIME_CONSTANT_S = 5.0
# A standing robot's torso turns about nothing: rates beyond this are a real turn (someone moves
# the robot), which the bias must not learn. Gyro biases are a few mrad/s.
MAX_STANDING_RATE_RAD_S = 0.05


class ImuYaw:
    """The yaw and attitude of this cycle (module docstring): ``update`` once per cycle, then
    ``fresh``, ``yaw_rad``, ``attitude`` (3x3, refilled) and ``from_gyro``."""

    def __init__(self):
        self.fresh = False
        self.from_gyro = False  # this cycle's yaw is the integrated gyro's
        self.yaw_rad = 0.0
        self.attitude = np.eye(3)
        self.gyro_yaw_rad = 0.0  # the integrated gyro's yaw, from its first sample
        self.gyro_bias_rad_s = 0.0
        self._gyro_s = -math.inf  # the last sample integrated

    def update(self, now_s: float, stale_s: float, imu_attitude: np.ndarray, imu_s: float,
               gyro_rad_s: np.ndarray, gyro_s: float, torso_world: np.ndarray, standing: bool) -> bool:
        """This cycle's yaw from the IMU's orientation (``imu_attitude``, 3x3, received at
        ``imu_s``) or its gyro (rad/s, torso frame, received at ``gyro_s``); ``torso_world`` (4x4): the balancer's
        torso, whose vertical the yaw rate is taken about; ``standing``: no walk (the bias is
        learnt). Whether a yaw is fresh."""
        self._integrate(gyro_rad_s, gyro_s, torso_world, standing)
        if now_s - imu_s <= stale_s:
            self.yaw_rad, self.from_gyro = yaw_of(imu_attitude), False
            self.gyro_yaw_rad = self.yaw_rad  # so that the gyro goes on from it when the orientation fails
            np.copyto(self.attitude, imu_attitude)
        elif now_s - gyro_s <= stale_s:
            self.yaw_rad, self.from_gyro = self.gyro_yaw_rad, True
            with_yaw(torso_world[:3, :3], self.gyro_yaw_rad, out=self.attitude)
        else:
            self.fresh = self.from_gyro = False
            return False
        self.fresh = True
        return True

    def _integrate(self, gyro_rad_s: np.ndarray, gyro_s: float, torso_world: np.ndarray, standing: bool) -> None:
        if not gyro_s > self._gyro_s:  # no new sample
            return
        dt_s, self._gyro_s = gyro_s - self._gyro_s, gyro_s
        if math.isinf(dt_s):  # the first sample: the origin
            return
        vertical = torso_world[2]
        rate = float(vertical[0] * gyro_rad_s[0] + vertical[1] * gyro_rad_s[1] + vertical[2] * gyro_rad_s[2])
        if standing and abs(rate - self.gyro_bias_rad_s) < MAX_STANDING_RATE_RAD_S:
            self.gyro_bias_rad_s += (rate - self.gyro_bias_rad_s) * min(1.0, dt_s / BIAS_TIME_CONSTANT_S)
        self.gyro_yaw_rad += (rate - self.gyro_bias_rad_s) * dt_s
