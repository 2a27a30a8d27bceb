"""Sensed odometry: the torso's pose in ``odom`` from the measured joints, the IMU and the FSRs.

Why. The balancer's torso pose (``wb_world``) is solved from the Fixed feet's targets, i.e. from
the plan: FK of the measured joints hung from it shows where the plan put the robot, not where
it went. A robot whose servos track the commands short (weak servos, lag) lands its feet short
of the plan; that is in the joints it measures, and a foot standing on the floor does not move.

What (support-foot kinematics, as a real NAO's odometry is made):

* the support foot is the one carrying at least ``SUPPORT_SHARE`` of the FSR total (hysteresis:
  the other keeps the support until the weight has moved over, while both feet are still down);
  with no usable FSR (stale, or the total under ``MIN_SUPPORT_FORCE_N``: in the air) the
  support stays as it was;
* while a foot supports, its pose on the floor (x, y, yaw; z the floor) stays fixed;
* the torso's rotation: the IMU's attitude (roll and pitch as measured, so a sole tilting on its
  edge does not tilt the world) with its yaw counted from the odometry's yaw at ``reset``
  (the integrated gyro: it sees the feet turning on the floor, which kinematics cannot); without
  a fresh IMU, the support sole taken flat on the floor at its fixed yaw;
* the torso's position: the support sole's floor position minus the torso-to-sole vector of FK
  of the measured joints, in that rotation;
* at a support change the new support foot's floor pose is taken from the torso pose of this
  cycle and FK (projected flat onto the floor: its x, y and yaw, the floor's z).

No rclpy. Frames: ``odom`` (the planner's frame at start-up; continuous from then on, the walk's
re-anchoring does not move it), torso 4x4, rotations 3x3.
"""

from __future__ import annotations

import math

import numpy as np

from .. import spatial
from ..footsteps.footstep import Leg
from ..footsteps.pose2d import Pose2D
from ..kinematics import ForwardKinematics, KinematicState

__all__ = ["LegOdometry", "MIN_SUPPORT_FORCE_N", "SUPPORT_SHARE"]

# The support moves to the other foot once it carries this share of the weight: both feet are
# still on the floor then (the old one lifts only after it has been unloaded), so the hand-over
# happens between two planted feet.
SUPPORT_SHARE = 0.75
MIN_SUPPORT_FORCE_N = 10.0  # less in total: in the air, the FSRs say nothing about the support
SOLES = {Leg.LEFT: "l_sole", Leg.RIGHT: "r_sole"}


class LegOdometry:
    """The torso's pose in odom from support-foot kinematics (module docstring)."""

    def __init__(self, fk: ForwardKinematics):
        self.fk = fk
        self.torso_odom: np.ndarray | None = None  # 4x4, None until reset
        self.support = Leg.LEFT
        self._sole_odom = np.eye(4)  # the support sole's fixed floor pose (a yaw and a translation)
        self._rotation = np.eye(3)  # the torso's rotation with the IMU, refilled
        self._imu_yaw_offset_rad: float | None = None  # odom yaw - IMU yaw; None: IMU not in use
        self._floor_z_m = 0.0  # the floor's height in odom (the lower sole's at reset)

    @property
    def started(self) -> bool:
        return self.torso_odom is not None

    def reset(self, torso_odom: np.ndarray, state: KinematicState) -> None:
        """Start from the torso at ``torso_odom`` (4x4) with the joints of ``state``; the lower sole supports."""
        self.torso_odom = np.array(torso_odom, dtype=float)
        heights_m = {leg: float((self.torso_odom @ self.fk.pose(state, sole))[2, 3]) for leg, sole in SOLES.items()}
        lower = min(heights_m, key=heights_m.get)
        self._floor_z_m = heights_m[lower]
        self._take_support(lower, state)
        self._imu_yaw_offset_rad = None

    def update(self, state: KinematicState, imu_attitude: np.ndarray | None,
               fsr_total_n: np.ndarray | None) -> np.ndarray:
        """The torso in odom (4x4) for the measured joints (``state``), the IMU's attitude (3x3,
        gravity-aligned; None: not fresh) and each foot's FSR total ([left, right] N; None: not fresh)."""
        sole_torso = self.fk.pose(state, SOLES[self.support])
        rotation = self._torso_rotation(sole_torso, imu_attitude)
        torso = self.torso_odom
        torso[:3, :3] = rotation
        torso[:3, 3] = self._sole_odom[:3, 3] - rotation @ sole_torso[:3, 3]
        new_support = self._support_from_forces(fsr_total_n)
        if new_support is not self.support:
            self._take_support(new_support, state)
        return torso

    def footprint(self, state: KinematicState) -> Pose2D:
        """REP-120 base_footprint (the soles' midpoint on the floor, the torso's yaw) in odom: on
        the floor plane only x, y and yaw count, so the midpoint is placed by the torso's pose and
        the heading is the torso's (``ForwardKinematics.ground_frame`` builds the whole frame: four
        times the numpy calls, for the same three numbers)."""
        torso, pose = self.torso_odom, self.fk.pose
        mid = pose(state, SOLES[Leg.LEFT])[:3, 3] + pose(state, SOLES[Leg.RIGHT])[:3, 3]
        x, y = torso[:2, :3] @ mid
        return Pose2D(0.5 * float(x) + float(torso[0, 3]), 0.5 * float(y) + float(torso[1, 3]), spatial.yaw_of(torso))

    def _torso_rotation(self, sole_torso: np.ndarray, imu_attitude: np.ndarray | None) -> np.ndarray:
        if imu_attitude is None:
            self._imu_yaw_offset_rad = None  # when it is back, its yaw counts from where the odometry is then
            # The support sole flat on the floor at its fixed yaw.
            return self._sole_odom[:3, :3] @ sole_torso[:3, :3].T
        imu_yaw = spatial.yaw_of(imu_attitude)
        if self._imu_yaw_offset_rad is None:
            self._imu_yaw_offset_rad = spatial.yaw_of(self.torso_odom[:3, :3]) - imu_yaw
        rotation = spatial.with_yaw(imu_attitude, imu_yaw + self._imu_yaw_offset_rad, out=self._rotation)
        # The support sole's yaw follows what the IMU sees (a foot turning on the floor), so the
        # kinematic fallback goes on from here. (Its yaw is that of its x axis in odom.)
        x, y = (rotation[:2] @ sole_torso[:3, 0]).tolist()
        yaw_rad = math.atan2(y, x)
        c, s = math.cos(yaw_rad), math.sin(yaw_rad)
        self._sole_odom[:2, :2] = ((c, -s), (s, c))
        return rotation

    def _support_from_forces(self, fsr_total_n: np.ndarray | None) -> Leg:
        if fsr_total_n is None:
            return self.support
        left_n, right_n = fsr_total_n.tolist()
        if not (math.isfinite(left_n) and math.isfinite(right_n)):
            return self.support
        left_n, right_n = max(left_n, 0.0), max(right_n, 0.0)
        total_n = left_n + right_n
        if total_n < MIN_SUPPORT_FORCE_N:
            return self.support
        other = self.support.other
        other_n = left_n if other is Leg.LEFT else right_n
        return other if other_n >= SUPPORT_SHARE * total_n else self.support

    def _take_support(self, leg: Leg, state: KinematicState) -> None:
        """``leg`` supports from now on: its floor pose from the torso pose now and FK, flat, at
        the floor's height (the previous support's)."""
        sole = self.torso_odom @ self.fk.pose(state, SOLES[leg])
        self._sole_odom = spatial.transform(spatial.rot_z(spatial.yaw_of(sole[:3, :3])),
                                            (sole[0, 3], sole[1, 3], self._floor_z_m))
        self.support = leg
