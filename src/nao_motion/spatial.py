"""Homogeneous transforms and NAOqi's 6D position convention (numpy only).

A transform is a 4x4 float array mapping coordinates of the child frame into
the parent frame. NAOqi's Position6D is (x, y, z, wx, wy, wz) with the rotation
R = Rz(wz) @ Ry(wy) @ Rx(wx) (ALMath's position6DFromTransform).
"""

from __future__ import annotations

import math

import numpy as np

# The Levi-Civita symbol: (a x b)_i = e_ijk a_j b_k and skew(a)_ik = e_ijk a_j, so batched cross
# products and skew matrices are single matrix products with it (LEVI_CIVITA[i, j, k]).
LEVI_CIVITA = np.zeros((3, 3, 3))
LEVI_CIVITA[0, 1, 2] = LEVI_CIVITA[1, 2, 0] = LEVI_CIVITA[2, 0, 1] = 1.0
LEVI_CIVITA[0, 2, 1] = LEVI_CIVITA[2, 1, 0] = LEVI_CIVITA[1, 0, 2] = -1.0
# skew(a), flattened row-major, is a @ SKEW_BASIS (3 x 9).
SKEW_BASIS = LEVI_CIVITA.transpose(1, 0, 2).reshape(3, 9)
# a x b is the outer product a b' (flattened row-major, 9) @ CROSS_OF_OUTER (9 x 3).
CROSS_OF_OUTER = LEVI_CIVITA.transpose(1, 2, 0).reshape(9, 3)


def rot_x(angle_rad: float) -> np.ndarray:
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(angle_rad: float) -> np.ndarray:
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(angle_rad: float) -> np.ndarray:
    c, s = np.cos(angle_rad), np.sin(angle_rad)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def transform(rotation: np.ndarray | None = None, translation_m=(0.0, 0.0, 0.0)) -> np.ndarray:
    """4x4 transform from a 3x3 rotation and a translation (metres)."""
    t = np.eye(4)
    if rotation is not None:
        t[:3, :3] = rotation
    t[:3, 3] = translation_m
    return t


def translation(x_m: float, y_m: float, z_m: float) -> np.ndarray:
    return transform(None, (x_m, y_m, z_m))


def rot_x_h(angle_rad: float) -> np.ndarray:
    return transform(rot_x(angle_rad))


def rot_y_h(angle_rad: float) -> np.ndarray:
    return transform(rot_y(angle_rad))


def rot_z_h(angle_rad: float) -> np.ndarray:
    return transform(rot_z(angle_rad))


def inverse(t: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform without a general matrix inversion."""
    out = np.eye(4)
    r_t = t[:3, :3].T
    out[:3, :3] = r_t
    out[:3, 3] = -r_t @ t[:3, 3]
    return out


def _log_of_rows(e: list[list[float]]) -> tuple[float, float, float]:
    """The rotation vector of a 3x3 rotation given as nested lists (Python floats)."""
    vx, vy, vz = 0.5 * (e[2][1] - e[1][2]), 0.5 * (e[0][2] - e[2][0]), 0.5 * (e[1][0] - e[0][1])
    s = math.sqrt(vx * vx + vy * vy + vz * vz)
    scale = math.atan2(s, 0.5 * (e[0][0] + e[1][1] + e[2][2] - 1.0)) / s if s > 1e-12 else 1.0
    return vx * scale, vy * scale, vz * scale


def _exp_rows(wx: float, wy: float, wz: float) -> list[list[float]]:
    """The 3x3 rotation of the rotation vector (wx, wy, wz), as nested lists (Rodrigues,
    R = I + sin K + (1 - cos) K^2)."""
    angle = math.sqrt(wx * wx + wy * wy + wz * wz)
    if angle < 1e-12:
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    x, y, z = wx / angle, wy / angle, wz / angle
    s, c = math.sin(angle), 1.0 - math.cos(angle)
    return [[1.0 - c * (y * y + z * z), c * x * y - s * z, c * x * z + s * y],
            [c * x * y + s * z, 1.0 - c * (x * x + z * z), c * y * z - s * x],
            [c * x * z - s * y, c * y * z + s * x, 1.0 - c * (x * x + y * y)]]


def rotation_error(target: np.ndarray, current: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Rotation vector (frame of both) taking the 3x3 rotation `current` to `target` (into
    `out`, (3,), when given)."""
    vector = rotation_error_floats(target, current)
    if out is None:
        return np.array(vector)
    out[:] = vector
    return out


def rotation_error_floats(target: np.ndarray, current: np.ndarray) -> tuple[float, float, float]:
    """rotation_error as three Python floats (for a caller that goes on in scalar arithmetic)."""
    # Scalar arithmetic: a few floats are cheaper than numpy calls.
    return _log_of_rows((target @ current.T).tolist())


def rotation_error_of_rows(target: list[list[float]], current: list[list[float]]) -> tuple[float, float, float]:
    """rotation_error of 3x3 rotations given as nested lists, in Python floats throughout
    (target current' as nine dot products: cheaper than making arrays of them)."""
    (t0, t1, t2), c = target, current
    return _log_of_rows([[t[0] * r[0] + t[1] * r[1] + t[2] * r[2] for r in c] for t in (t0, t1, t2)])


def rotation_from_vector(w: np.ndarray) -> np.ndarray:
    """The 3x3 rotation of the rotation vector w (rad; Rodrigues, R = I + sin K + (1 - cos) K^2)."""
    wx, wy, wz = np.asarray(w, dtype=float).tolist()
    return np.array(_exp_rows(wx, wy, wz))


def rotation_halfway(start: np.ndarray, end: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The 3x3 rotation halfway from `start` to `end` along the shortest turn, into `out`:
    exp(log(end start') / 2) start, the log and exp in scalar arithmetic between two products."""
    wx, wy, wz = _log_of_rows((end @ start.T).tolist())
    return np.matmul(_exp_rows(0.5 * wx, 0.5 * wy, 0.5 * wz), start, out=out)


def yaw_of(t: np.ndarray) -> float:
    """Heading (rad) of a rotation or 4x4 pose: the angle of its x axis in the floor plane."""
    return math.atan2(t[1, 0], t[0, 0])  # math on two numbers: a fraction of np.arctan2's cost


def with_yaw(r: np.ndarray, yaw_rad: float, out: np.ndarray | None = None) -> np.ndarray:
    """The 3x3 rotation `r` turned about the vertical to the heading `yaw_rad`, its roll and
    pitch kept (into `out`, 3x3, when given): Rz(yaw_rad - yaw_of(r)) r, in scalar arithmetic."""
    (r00, r01, r02), (r10, r11, r12), row2 = r[:3, :3].tolist()
    angle = yaw_rad - math.atan2(r10, r00)
    c, s = math.cos(angle), math.sin(angle)
    rows = [[c * r00 - s * r10, c * r01 - s * r11, c * r02 - s * r12],
            [s * r00 + c * r10, s * r01 + c * r11, s * r02 + c * r12], row2]
    if out is None:
        return np.array(rows)
    out[:] = rows
    return out


def rpy_from_rotation(r: np.ndarray) -> np.ndarray:
    """(wx, wy, wz) such that r = Rz(wz) Ry(wy) Rx(wx); the URDF rpy convention too."""
    wy = np.arctan2(-r[2, 0], np.hypot(r[0, 0], r[1, 0]))
    if np.hypot(r[0, 0], r[1, 0]) < 1e-12:
        # Gimbal lock: only wz - wx (or wz + wx) is defined; put it all in wx.
        return np.array([np.arctan2(-r[1, 2], r[1, 1]), wy, 0.0])
    return np.array([np.arctan2(r[2, 1], r[2, 2]), wy, np.arctan2(r[1, 0], r[0, 0])])


def rotation_from_rpy(wx: float, wy: float, wz: float) -> np.ndarray:
    return rot_z(wz) @ rot_y(wy) @ rot_x(wx)


def rotation_rows_from_rpy(wx: float, wy: float, wz: float) -> list[list[float]]:
    """rotation_from_rpy as nested lists of Python floats (equal to round-off: the product
    written out), for a per-cycle caller that goes on in scalar arithmetic."""
    cx, sx, cy, sy, cz, sz = math.cos(wx), math.sin(wx), math.cos(wy), math.sin(wy), math.cos(wz), math.sin(wz)
    return [[cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx],
            [sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx],
            [-sy, cy * sx, cy * cx]]


def position6d_from_transform(t: np.ndarray) -> np.ndarray:
    """NAOqi Position6D (x, y, z, wx, wy, wz) in metres and radians."""
    return np.concatenate([t[:3, 3], rpy_from_rotation(t[:3, :3])])


def transform_from_position6d(p) -> np.ndarray:
    return transform(rotation_from_rpy(p[3], p[4], p[5]), p[:3])


def quaternion_xyzw_from_rotation(r: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w) of a rotation matrix (Shepperd's method).

    Scalar arithmetic on a list: the nodes call it every cycle, and numpy's per-element
    indexing and scalar functions cost more than the arithmetic itself."""
    (r00, r01, r02), (r10, r11, r12), (r20, r21, r22) = r[:3, :3].tolist()
    trace = r00 + r11 + r22
    if trace > 0.0:
        s = 2.0 * math.sqrt(trace + 1.0)
        q = ((r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s, 0.25 * s)
    elif r00 > r11 and r00 > r22:
        s = 2.0 * math.sqrt(1.0 + r00 - r11 - r22)
        q = (0.25 * s, (r01 + r10) / s, (r02 + r20) / s, (r21 - r12) / s)
    elif r11 > r22:
        s = 2.0 * math.sqrt(1.0 + r11 - r00 - r22)
        q = ((r01 + r10) / s, 0.25 * s, (r12 + r21) / s, (r02 - r20) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + r22 - r00 - r11)
        q = ((r02 + r20) / s, (r12 + r21) / s, 0.25 * s, (r10 - r01) / s)
    norm = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return np.array(q) / norm


def rotation_from_quaternion_xyzw(q) -> np.ndarray:
    return np.array(_quaternion_rows(q))


def transform_from_quaternion_xyzw(q, translation_m) -> np.ndarray:
    """transform(rotation_from_quaternion_xyzw(q), translation_m), made as one array (the nodes
    read poses every cycle: one numpy call instead of four)."""
    (r0, r1, r2), (x, y, z) = _quaternion_rows(q), (float(v) for v in translation_m)
    return np.array([[*r0, x], [*r1, y], [*r2, z], [0.0, 0.0, 0.0, 1.0]])


def _quaternion_rows(q) -> list[list[float]]:
    """The 3x3 rotation of a quaternion (x, y, z, w; normalised here) as nested lists."""
    x, y, z, w = (float(v) for v in q)
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if not 0.0 < norm < math.inf:  # (NaN too) callers check what comes from outside first
        raise ValueError(f"quaternion {(x, y, z, w)} is no rotation")
    x, y, z, w = x / norm, y / norm, z / norm, w / norm
    return [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]


def modified_dh(alpha_rad: float, a_m: float, theta_rad: float, d_m: float) -> np.ndarray:
    """Craig's modified Denavit-Hartenberg link transform RotX(a) TransX(a) RotZ(theta) TransZ(d)."""
    return rot_x_h(alpha_rad) @ translation(a_m, 0.0, 0.0) @ rot_z_h(theta_rad) @ translation(0.0, 0.0, d_m)
