"""Conversions between ROS messages and the core's numpy types."""

from __future__ import annotations

import math

import numpy as np
from builtin_interfaces.msg import Time
from geometry_msgs.msg import Transform, TransformStamped

from ..plausibility import MAX_ANGULAR_VELOCITY_RADPS, as_floats, plausible_quaternion
from ..spatial import quaternion_xyzw_from_rotation, rotation_from_quaternion_xyzw, transform_from_quaternion_xyzw

IMU_ORIENTATION_ERROR = "imu message with an invalid orientation ignored (a finite quaternion of norm about 1)"
IMU_ANGULAR_VELOCITY_ERROR = ("imu angular velocity ignored (finite and at most "
                              f"{math.degrees(MAX_ANGULAR_VELOCITY_RADPS):.0f} deg/s, what a gyrometer reads)")


def transform_msg(t: np.ndarray, out: Transform | None = None, quaternion_xyzw=None) -> Transform:
    """geometry_msgs/Transform of a 4x4 pose (filled in place when `out` is given)."""
    msg = out if out is not None else Transform()
    q = quaternion_xyzw if quaternion_xyzw is not None else quaternion_xyzw_from_rotation(t[:3, :3])
    set_vector_fields(msg.translation, t[:3, 3])
    set_quaternion_fields(msg.rotation, q)
    return msg


# Per-cycle messages (25 transforms at 100 Hz) spend most of their time in the generated
# property setters' type checks; values here are float64 already, so the slots are set directly.
def set_vector_fields(vector, xyz) -> None:
    vector._x, vector._y, vector._z = np.asarray(xyz, dtype=float).tolist()


def set_quaternion_fields(quaternion, xyzw) -> None:
    quaternion._x, quaternion._y, quaternion._z, quaternion._w = np.asarray(xyzw, dtype=float).tolist()


def transform_stamped(parent: str, child: str, t: np.ndarray, stamp: Time) -> TransformStamped:
    msg = TransformStamped()
    msg.header.frame_id = parent
    msg.header.stamp = stamp
    msg.child_frame_id = child
    transform_msg(t, msg.transform)
    return msg


def stamp_parts(t_s: float) -> tuple[int, int]:
    """(sec, nanosec) of a time in seconds (a clock's or a simulation's), as a stamp carries it."""
    ns = int(round(t_s * 1e9))
    return ns // 1_000_000_000, ns % 1_000_000_000


def time_msg(t_s: float) -> Time:
    """builtin_interfaces/Time of a time in seconds (a clock's or a simulation's)."""
    sec, nanosec = stamp_parts(t_s)
    return Time(sec=sec, nanosec=nanosec)


def stamp_seconds(stamp: Time) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def pose_matrix(pose) -> np.ndarray | None:
    """A geometry_msgs/Pose as a 4x4 transform, or None when its position is not finite or its
    orientation not a finite quaternion of a norm that can be normalised (pose_refusal; the
    caller says why it refuses it)."""
    p, o = pose.position, pose.orientation
    return pose_matrix_of((p.x, p.y, p.z, o.x, o.y, o.z, o.w))


# A pose's quaternion is normalised when read: any norm a script computes is taken, but not one
# whose squares overflow (1e308: its norm read as inf, the rotation as the identity, and walked).
POSE_QUATERNION_NORM_RANGE = (1e-6, 1e6)


def pose_refusal(values) -> str | None:
    """Why the seven numbers of a Pose (position x, y, z, orientation x, y, z, w) are no pose,
    or None."""
    values = as_floats(values)
    if not all(math.isfinite(v) for v in values):
        return "non-finite position or orientation"
    norm = math.hypot(*values[3:])  # scaled: no overflow
    low, high = POSE_QUATERNION_NORM_RANGE
    if norm < low:
        return "zero orientation quaternion"
    if norm > high:
        return f"orientation quaternion of norm {norm:.3g}: no rotation (its norm must be in [{low:g}, {high:g}])"
    return None


def pose_matrix_of(values) -> np.ndarray | None:
    """pose_matrix of the seven numbers of a Pose: position x, y, z, orientation x, y, z, w; None
    when pose_refusal says why not."""
    values = as_floats(values)
    if pose_refusal(values) is not None:
        return None
    return transform_from_quaternion_xyzw(values[3:], values[:3])


class LastPoseMatrix:
    """pose_matrix_of with the last pose's matrix kept: a pose sent again and again (the stance
    foot's reference through a step) is converted once. Poses are told apart by their bytes (0.0
    and -0.0 differ: the matrix is the one pose_matrix_of gives, bit for bit). The matrix returned
    is read-only: it is shared by every call that gave the same pose."""

    def __init__(self):
        self._key: bytes | None = None
        self._matrix: np.ndarray | None = None

    def __call__(self, values) -> np.ndarray | None:
        key = np.asarray(values, dtype=np.float64).tobytes()
        if key != self._key:
            matrix = pose_matrix_of(values)
            if matrix is None:
                return None
            matrix.flags.writeable = False
            self._key, self._matrix = key, matrix
        return self._matrix


def imu_attitude(orientation_xyzw) -> np.ndarray | None:
    """The torso's rotation in the IMU's gravity-aligned frame (3x3), or None when the IMU's
    orientation is not a finite quaternion of norm about 1 (``plausibility``; the caller logs
    IMU_ORIENTATION_ERROR)."""
    if not plausible_quaternion(orientation_xyzw):
        return None
    return rotation_from_quaternion_xyzw(orientation_xyzw)
