"""The NAO H25 model: the one source of truth for dimensions, joints, masses and frames.

Everything else (forward kinematics, the URDF, collision shapes, the simulator)
is derived from :class:`NaoModel`. Figures come from Aldebaran's documentation
as gathered in ``shared/notes/nao-model.md``; the kinematic chains are the
modified Denavit-Hartenberg table and base/end transforms of NAOqi's
kinematic-model page, in the joint order of ``getJointNames("Body")``.

Link frames ("URDF frames") are placed at each joint, parallel to the torso
frame in the zero pose, as ROS NAO descriptions do; the mDH frames of the
table are related to them by constant rotations computed here, not restated.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import spatial

PI = np.pi
SUPPORTED_VERSIONS = ("V5", "V6")
CHAIN_NAMES = ("Head", "LArm", "LLeg", "RLeg", "RArm")


@dataclass(frozen=True)
class Dimensions:
    """NAO lengths in metres (identical for V4, V5 and V6)."""

    neck_offset_z: float = 0.1265
    shoulder_offset_y: float = 0.098
    shoulder_offset_z: float = 0.100
    elbow_offset_y: float = 0.015
    upper_arm_length: float = 0.105
    lower_arm_length: float = 0.05595
    hand_offset_x: float = 0.05775
    hand_offset_z: float = 0.01231
    hip_offset_z: float = 0.085
    hip_offset_y: float = 0.050
    thigh_length: float = 0.100
    tibia_length: float = 0.1029
    # NAOqi's documented FootHeight; ROS URDFs carry 0.04511. The sole frame and the
    # LLeg end point are one frame here, so one value is used for both.
    foot_height: float = 0.04519
    camera_top_xyz: tuple = (0.05871, 0.0, 0.06364)
    camera_top_pitch_rad: float = np.deg2rad(1.2)
    camera_bottom_xyz: tuple = (0.05071, 0.0, 0.01774)
    camera_bottom_pitch_rad: float = np.deg2rad(39.7)


@dataclass(frozen=True)
class JointSpec:
    """A NAOqi joint: limits in rad, rad/s and N m; mDH row (alpha, a, theta offset, d) or None."""

    name: str
    chain: str
    lower: float
    upper: float
    max_velocity: float
    max_effort: float
    child_link: str
    mdh: tuple | None


@dataclass(frozen=True)
class Inertial:
    """Link mass (kg), centre of mass (m, link frame) and principal inertia about it (kg m^2)."""

    mass: float
    com: tuple
    inertia_diag: tuple


@dataclass(frozen=True)
class FixedFrame:
    """A named frame rigidly attached to a link."""

    name: str
    parent_link: str
    transform: np.ndarray = field(compare=False)


@dataclass(frozen=True)
class Chain:
    """A NAOqi chain: its joints, base transform (torso to first mDH frame) and end transform."""

    name: str
    joints: tuple
    base: np.ndarray = field(compare=False)
    end: np.ndarray = field(compare=False)
    end_frame: str


def _deg(lo: float, hi: float) -> tuple:
    return float(np.deg2rad(lo)), float(np.deg2rad(hi))


# Coupled limits (NAO documentation): HeadPitch range vs |HeadYaw|, LAnkleRoll range vs
# LAnklePitch, in degrees. Linear interpolation between rows, as NAOqi's tables are used.
HEAD_PITCH_VS_YAW_DEG = np.array([
    [0.0, -38.5, 29.51], [27.85, -38.5, 24.18], [43.32, -31.40, 21.20], [51.74, -27.50, 18.91],
    [62.45, -24.64, 17.19], [87.49, -18.91, 11.46], [119.52, -25.73, 18.91],
])
LANKLE_ROLL_VS_PITCH_DEG = np.array([
    [-68.15, -2.86, 4.3], [-48.13, -10.31, 9.74], [-40.11, -22.8, 12.61], [-25.78, -22.8, 44.06],
    [5.73, -22.8, 44.06], [20.05, -22.8, 31.54], [52.87, 0.0, 2.86],
])


def _joint_table(d: Dimensions) -> list[JointSpec]:
    """NAOqi Body joint order with limits (URDF, rad), speeds, efforts and mDH rows."""
    h, a = PI / 2, PI / 4
    rows = [
        # name, chain, (lo, hi deg), vmax, effort, child link, mdh(alpha, a, theta0, d)
        ("HeadYaw", "Head", _deg(-119.5, 119.5), 8.27, 1.547, "Neck", (0.0, 0.0, 0.0, 0.0)),
        ("HeadPitch", "Head", _deg(-38.5, 29.5), 7.19, 1.532, "Head", (-h, 0.0, -h, 0.0)),
        ("LShoulderPitch", "LArm", _deg(-119.5, 119.5), 8.27, 1.329, "LShoulder", (-h, 0.0, 0.0, 0.0)),
        ("LShoulderRoll", "LArm", _deg(-18.0, 76.0), 7.19, 1.7835, "LBicep", (h, 0.0, h, 0.0)),
        # The seed's table omits ElbowOffsetY (0 on NAO V3.2); on V4+ it is the mDH link
        # length along the shoulder-roll frame's x axis, which points along +y (left arm).
        ("LElbowYaw", "LArm", _deg(-119.5, 119.5), 8.27, 1.547, "LElbow", (h, d.elbow_offset_y, 0.0, d.upper_arm_length)),
        ("LElbowRoll", "LArm", _deg(-88.5, -2.0), 7.19, 1.532, "LForeArm", (-h, 0.0, 0.0, 0.0)),
        ("LWristYaw", "LArm", _deg(-104.5, 104.5), 24.6, 0.4075, "l_wrist", (h, 0.0, 0.0, d.lower_arm_length)),
        ("LHand", "LArm", (0.0, 1.0), 8.33, 0.292, "", None),
        ("LHipYawPitch", "LLeg", _deg(-65.62, 42.44), 4.16, 3.348, "LPelvis", (-3 * a, 0.0, -h, 0.0)),
        ("LHipRoll", "LLeg", _deg(-21.74, 45.29), 4.16, 3.348, "LHip", (-h, 0.0, a, 0.0)),
        ("LHipPitch", "LLeg", _deg(-88.0, 27.73), 6.40, 3.023, "LThigh", (h, 0.0, 0.0, 0.0)),
        ("LKneePitch", "LLeg", _deg(-5.29, 121.04), 6.40, 3.023, "LTibia", (0.0, -d.thigh_length, 0.0, 0.0)),
        ("LAnklePitch", "LLeg", _deg(-68.15, 52.86), 6.40, 3.023, "LAnklePitch", (0.0, -d.tibia_length, 0.0, 0.0)),
        ("LAnkleRoll", "LLeg", _deg(-22.79, 44.06), 4.16, 3.348, "l_ankle", (-h, 0.0, 0.0, 0.0)),
        ("RHipYawPitch", "RLeg", _deg(-65.62, 42.44), 4.16, 3.348, "RPelvis", (-a, 0.0, -h, 0.0)),
        ("RHipRoll", "RLeg", _deg(-45.29, 21.74), 4.16, 3.348, "RHip", (-h, 0.0, -a, 0.0)),
        ("RHipPitch", "RLeg", _deg(-88.0, 27.73), 6.40, 3.023, "RThigh", (h, 0.0, 0.0, 0.0)),
        ("RKneePitch", "RLeg", _deg(-5.29, 121.04), 6.40, 3.023, "RTibia", (0.0, -d.thigh_length, 0.0, 0.0)),
        ("RAnklePitch", "RLeg", _deg(-67.97, 53.40), 6.40, 3.023, "RAnklePitch", (0.0, -d.tibia_length, 0.0, 0.0)),
        ("RAnkleRoll", "RLeg", _deg(-44.06, 22.79), 4.16, 3.348, "r_ankle", (-h, 0.0, 0.0, 0.0)),
        ("RShoulderPitch", "RArm", _deg(-119.5, 119.5), 8.27, 1.329, "RShoulder", (-h, 0.0, 0.0, 0.0)),
        ("RShoulderRoll", "RArm", _deg(-76.0, 18.0), 7.19, 1.7835, "RBicep", (h, 0.0, h, 0.0)),
        ("RElbowYaw", "RArm", _deg(-119.5, 119.5), 8.27, 1.547, "RElbow", (h, -d.elbow_offset_y, 0.0, d.upper_arm_length)),
        ("RElbowRoll", "RArm", _deg(2.0, 88.5), 7.19, 1.532, "RForeArm", (-h, 0.0, 0.0, 0.0)),
        ("RWristYaw", "RArm", _deg(-104.5, 104.5), 24.6, 0.4075, "r_wrist", (h, 0.0, 0.0, d.lower_arm_length)),
        ("RHand", "RArm", (0.0, 1.0), 8.33, 0.292, "", None),
    ]
    return [JointSpec(n, c, lim[0], lim[1], v, e, link, mdh) for n, c, lim, v, e, link, mdh in rows]


def _left_inertials(version: str) -> dict[str, Inertial]:
    """Masses (kg), CoMs (mm -> m) and inertia diagonals (1e-6 kg m^2 -> kg m^2), left side."""
    head_mass = 0.65973 if version == "V6" else 0.60533
    table = {
        "torso": (1.04956, (-4.13, 0.0, 43.42), (3084, 2884, 1592)),
        "Neck": (0.07842, (-0.01, 0.0, -27.42), (16.0, 17.0, 5.5)),
        "Head": (head_mass, (-1.12, 0.0, 52.58), (958, 817, 985)),
        "LShoulder": (0.09304, (-1.65, -26.63, 0.14), (18.3, 13.9, 20.2)),
        "LBicep": (0.15777, (24.55, 5.63, 3.30), (87.2, 274.7, 241.8)),
        "LElbow": (0.06483, (-27.44, 0.0, -0.14), (5.6, 26.6, 27.6)),
        "LForeArm": (0.07761, (25.56, 2.81, 0.76), (24.7, 38.4, 36.0)),
        "l_wrist": (0.18533, (34.34, -0.88, 3.08), (68.6, 135.8, 133.2)),
        "LPelvis": (0.06981, (-7.81, -11.14, 26.61), (23.4, 47.6, 49.7)),
        "LHip": (0.14053, (-15.49, 0.29, -5.15), (23.8, 60.8, 54.4)),
        "LThigh": (0.38968, (1.38, 2.21, -53.73), (510, 465, 301)),
        "LTibia": (0.30142, (4.53, 2.25, -49.36), (446, 388, 186)),
        "LAnklePitch": (0.13416, (0.45, 0.29, 6.85), (32.2, 67.9, 54.8)),
        "l_ankle": (0.17184, (25.42, 3.30, -32.39), (87.3, 353, 413)),
    }
    return {
        link: Inertial(m, tuple(np.asarray(c) * 1e-3), tuple(np.asarray(i) * 1e-6))
        for link, (m, c, i) in table.items()
    }


def mirror_link_name(link: str) -> str:
    if link.startswith("L"):
        return "R" + link[1:]
    if link.startswith("l_"):
        return "r_" + link[2:]
    return link


class NaoModel:
    """NAO H25 V5 (default) or V6: joints, chains, links, inertials and named frames."""

    def __init__(self, version: str = "V5", dimensions: Dimensions | None = None):
        if version not in SUPPORTED_VERSIONS:
            raise ValueError(f"unknown NAO version {version!r}: expected one of {SUPPORTED_VERSIONS}")
        self.version = version
        self.dims = dimensions or Dimensions()
        self.cycle_time_s = 0.012 if version == "V6" else 0.010
        self.joints: tuple[JointSpec, ...] = tuple(_joint_table(self.dims))
        self.joint_names: tuple[str, ...] = tuple(j.name for j in self.joints)
        self._index = {n: i for i, n in enumerate(self.joint_names)}
        self.lower = np.array([j.lower for j in self.joints])
        self.upper = np.array([j.upper for j in self.joints])
        self.max_velocity = np.array([j.max_velocity for j in self.joints])
        self.max_effort = np.array([j.max_effort for j in self.joints])
        self.chains: dict[str, Chain] = self._build_chains()
        self.inertials: dict[str, Inertial] = self._build_inertials()

    # --- joints -------------------------------------------------------------------------
    def joint_index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"unknown joint {name!r}") from None

    def has_joint(self, name: str) -> bool:
        return name in self._index

    @property
    def n_joints(self) -> int:
        return len(self.joints)

    @cached_property
    def kinematic_joint_names(self) -> tuple[str, ...]:
        """Joints that move links (the hands' grippers are not part of the kinematic tree)."""
        return tuple(j.name for j in self.joints if j.mdh is not None)

    @cached_property
    def motor_joint_names(self) -> tuple[str, ...]:
        """Independent actuators: RHipYawPitch is driven by the LHipYawPitch motor."""
        return tuple(n for n in self.joint_names if motor_of(n) == n)

    def names_for(self, name: str) -> list[str]:
        """NAOqi's getJointNames: "Body", "JointActuators", a chain name, or one joint name."""
        if name in ("Body", "Joints", "JointActuators", "Actuators"):
            return list(self.joint_names)
        if name in self.chains:
            return list(self.chains[name].joints) + ([name[0] + "Hand"] if name.endswith("Arm") else [])
        if name == "Arms":
            return self.names_for("LArm") + self.names_for("RArm")
        if name == "Legs":
            return self.names_for("LLeg") + self.names_for("RLeg")
        if name in self._index:
            return [name]
        raise KeyError(f"unknown joint or chain {name!r}")

    def mimic_hip_yaw_pitch(self, q: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """q with RHipYawPitch = LHipYawPitch (one motor drives both): a copy, or written into
        `out` (which may be q itself: in place, nothing allocated)."""
        out = np.array(q, dtype=float) if out is None else out
        if out is not q:
            np.copyto(out, q)
        out[self._index["RHipYawPitch"]] = out[self._index["LHipYawPitch"]]
        return out

    def zero_configuration(self) -> np.ndarray:
        return np.zeros(self.n_joints)

    def clip_to_limits(self, q: np.ndarray) -> np.ndarray:
        """Clip to the joint ranges, then project into the coupled head and ankle limits."""
        return project_coupled_limits(self, np.clip(q, self.lower, self.upper))

    # --- chains and frames ---------------------------------------------------------------
    def _build_chains(self) -> dict[str, Chain]:
        d = self.dims
        t = spatial.translation
        rx, ry, rz = spatial.rot_x_h, spatial.rot_y_h, spatial.rot_z_h
        arm_end = rx(-PI / 2) @ rz(-PI / 2) @ t(d.hand_offset_x, 0.0, -d.hand_offset_z)
        leg_end = rz(PI) @ ry(-PI / 2) @ t(0.0, 0.0, -d.foot_height)
        spec = {
            "Head": (t(0, 0, d.neck_offset_z), rx(PI / 2) @ ry(PI / 2), "Head"),
            "LArm": (t(0, d.shoulder_offset_y, d.shoulder_offset_z), arm_end, "l_gripper"),
            "LLeg": (t(0, d.hip_offset_y, -d.hip_offset_z), leg_end, "l_sole"),
            "RLeg": (t(0, -d.hip_offset_y, -d.hip_offset_z), leg_end, "r_sole"),
            "RArm": (t(0, -d.shoulder_offset_y, d.shoulder_offset_z), arm_end, "r_gripper"),
        }
        chains = {}
        for name in CHAIN_NAMES:
            base, end, end_frame = spec[name]
            joints = tuple(j.name for j in self.joints if j.chain == name and j.mdh is not None)
            chains[name] = Chain(name, joints, base, end, end_frame)
        return chains

    def _build_inertials(self) -> dict[str, Inertial]:
        left = _left_inertials(self.version)
        out = dict(left)
        for link, inertial in left.items():
            mirrored = mirror_link_name(link)
            if mirrored != link:
                cx, cy, cz = inertial.com
                out[mirrored] = Inertial(inertial.mass, (cx, -cy, cz), inertial.inertia_diag)
        return out

    @property
    def total_mass_kg(self) -> float:
        return float(sum(i.mass for i in self.inertials.values()))

    def fixed_frames(self) -> list[FixedFrame]:
        """Named frames rigidly attached to links, expressed in the links' URDF frames.

        Chain end frames (l_gripper, l_sole, ...) are the mDH chain end transforms rotated into
        the last link's URDF frame; they come out as pure translations, which the tests check.
        """
        d = self.dims
        frames = [
            FixedFrame("base_link", "torso", np.eye(4)),
            FixedFrame("gaze", "Head", spatial.translation(*d.camera_top_xyz)),
        ]
        # REP-103 optical frames (z forward, x right, y down) for image users.
        optical = spatial.transform(spatial.rotation_from_rpy(-PI / 2, 0.0, -PI / 2))
        for cam, xyz, pitch in (("CameraTop", d.camera_top_xyz, d.camera_top_pitch_rad),
                                ("CameraBottom", d.camera_bottom_xyz, d.camera_bottom_pitch_rad)):
            camera = spatial.transform(spatial.rot_y(pitch), xyz)
            frames += [FixedFrame(cam, "Head", camera), FixedFrame(f"{cam}_optical_frame", "Head", camera @ optical)]
        for chain in self.chains.values():
            if chain.name == "Head":
                continue  # the Head chain ends at the Head link frame itself (a rotation only)
            last = self.joint(chain.joints[-1])
            frames.append(FixedFrame(chain.end_frame, last.child_link, self.link_from_mdh(last.name).T @ chain.end))
        return frames

    def joint(self, name: str) -> JointSpec:
        return self.joints[self.joint_index(name)]

    @cached_property
    def mdh_zero_poses(self) -> dict[str, np.ndarray]:
        """Each joint's mDH frame in the torso frame at the zero pose."""
        out = {}
        for chain in self.chains.values():
            t = chain.base
            for name in chain.joints:
                t = t @ spatial.modified_dh(*self.joint(name).mdh)
                out[name] = t
        return out

    def link_from_mdh(self, joint_name: str) -> np.ndarray:
        """Constant rotation taking a joint's child-link URDF frame into its mDH frame.

        pose(mDH frame) @ link_from_mdh = pose(link frame); the link frame is torso-parallel at q = 0.
        """
        return spatial.transform(self.mdh_zero_poses[joint_name][:3, :3].T)

    def joint_axis_in_link(self, joint_name: str) -> np.ndarray:
        """Unit rotation axis of a joint in its child link's URDF frame (the mDH z axis)."""
        return self.mdh_zero_poses[joint_name][:3, 2].copy()

    def joint_origin_in_parent(self, joint_name: str) -> np.ndarray:
        """Position (m) of a joint's child link frame in its parent link frame at q = 0."""
        own = self.mdh_zero_poses[joint_name][:3, 3]
        parent = self.parent_link(joint_name)
        if parent == "torso":
            return own.copy()
        chain = self.chains[self.joint(joint_name).chain]
        previous = chain.joints[chain.joints.index(joint_name) - 1]
        return own - self.mdh_zero_poses[previous][:3, 3]

    def parent_link(self, joint_name: str) -> str:
        chain = self.chains[self.joint(joint_name).chain]
        i = chain.joints.index(joint_name)
        return "torso" if i == 0 else self.joint(chain.joints[i - 1]).child_link

    @cached_property
    def link_names(self) -> tuple[str, ...]:
        return ("torso",) + tuple(self.joint(n).child_link for n in self.kinematic_joint_names)


def motor_of(joint_name: str) -> str:
    """The motor that drives a joint: one motor, LHipYawPitch's, drives both HipYawPitch joints."""
    return "LHipYawPitch" if joint_name == "RHipYawPitch" else joint_name


def motor_fold(joint_names: Sequence[str], motor_names: Sequence[str]) -> np.ndarray:
    """(joints x motors) 0/1 matrix: ``jacobian @ fold`` turns per-joint columns into per-motor
    columns, RHipYawPitch's column added to LHipYawPitch's (each joint's motor must be listed)."""
    fold = np.zeros((len(joint_names), len(motor_names)))
    for row, name in enumerate(joint_names):
        fold[row, list(motor_names).index(motor_of(name))] = 1.0
    return fold


def project_coupled_limits(model: NaoModel, q: np.ndarray) -> np.ndarray:
    """Project a configuration into the coupled HeadPitch/HeadYaw and AnkleRoll/AnklePitch limits.

    HeadPitch is clamped to the range allowed at |HeadYaw|; each AnkleRoll to the range allowed
    at its AnklePitch (the right foot mirrors the left table: roll bounds negated and swapped).
    Pitch and yaw values themselves are kept: only the dependent joint moves. (Scalar arithmetic:
    the motion cycles call this, and a few floats are cheaper than numpy calls.)
    """
    q = np.array(q, dtype=float)
    index = model.joint_index
    lo, hi = _coupled_range(_HEAD_TABLE, abs(math.degrees(q[index("HeadYaw")])))
    i = index("HeadPitch")
    q[i] = min(max(float(q[i]), lo), hi)
    for side in "LR":
        lo, hi = ankle_roll_range(side, float(q[index(side + "AnklePitch")]))
        i = index(side + "AnkleRoll")
        q[i] = min(max(float(q[i]), lo), hi)
    return q


def coupled_joints(model: NaoModel) -> tuple[tuple[int, int, str | None], ...]:
    """(driver, dependent, side) joint indices of the coupled limits, for ``limit_coupled_steps``
    (side: the ankle table's "L"/"R", None for the head's): prepared once, used every cycle."""
    return tuple((model.joint_index(driver), model.joint_index(dependent), side)
                 for driver, dependent, side in _COUPLED_JOINTS)


def limit_coupled_steps(coupled: tuple[tuple[int, int, str | None], ...], q: np.ndarray, step: np.ndarray,
                        max_step: np.ndarray) -> None:
    """Shorten in place the steps of HeadYaw and the AnklePitches (``step``, from ``q``, rad) so
    that after them the range of the joint they bound (HeadPitch, the AnkleRolls) still comes
    within that joint's ``max_step`` of where it is: ``project_coupled_limits`` then never moves
    it faster. Where the table is steep (AnkleRoll's upper bound: 2.2 deg per deg of AnklePitch
    between -40 and -26 deg) a driver at its own speed moved the bound up to 3 times as fast as
    the dependent joint may move. A dependent already outside its range (an infeasible start) is
    left to the projection. ``coupled``: ``coupled_joints(model)``."""
    for driver, dependent, side in coupled:
        dx = float(step[driver])
        if dx == 0.0:
            continue
        x, y, reach = float(q[driver]), float(q[dependent]), float(max_step[dependent])
        if _within_reach(side, x + dx, y, reach) or not _within_reach(side, x, y, reach):
            continue
        ok, bad = 0.0, 1.0
        for _ in range(COUPLED_STEP_BISECTIONS):
            mid = 0.5 * (ok + bad)
            ok, bad = (mid, bad) if _within_reach(side, x + mid * dx, y, reach) else (ok, mid)
        step[driver] = ok * dx


def _within_reach(side: str | None, x: float, y: float, reach: float) -> bool:
    """Whether the range of the dependent joint at driver position x comes within reach of y
    (side None: HeadPitch at HeadYaw x; "L"/"R": that AnkleRoll at its AnklePitch x)."""
    lo, hi = ankle_roll_range(side, x) if side else _coupled_range(_HEAD_TABLE, abs(math.degrees(x)))
    return lo <= y + reach and hi >= y - reach


def ankle_roll_range(side: str, pitch_rad: float) -> tuple[float, float]:
    """(min, max) AnkleRoll (rad) allowed at this AnklePitch; side "L" or "R" (the right foot
    mirrors the left table: roll bounds negated and swapped)."""
    lo, hi = _coupled_range(_ANKLE_TABLE, math.degrees(pitch_rad))
    return (lo, hi) if side == "L" else (-hi, -lo)


def coupled_range(table_deg: np.ndarray, x_deg: float) -> tuple[float, float]:
    """(min, max) in radians of the dependent joint at x (degrees), linearly interpolated (and
    clamped to the table's ends outside it)."""
    return _coupled_range(np.asarray(table_deg, dtype=float).T.tolist(), x_deg)


def _coupled_range(columns: list[list[float]], x_deg: float) -> tuple[float, float]:
    """coupled_range on the table's columns as lists: (x, lower, upper) in degrees."""
    xs, lower, upper = columns
    x = float(x_deg)
    if x <= xs[0]:
        return math.radians(lower[0]), math.radians(upper[0])
    if x >= xs[-1]:
        return math.radians(lower[-1]), math.radians(upper[-1])
    k = bisect.bisect_right(xs, x) - 1
    f = (x - xs[k]) / (xs[k + 1] - xs[k])
    return (math.radians(lower[k] + f * (lower[k + 1] - lower[k])),
            math.radians(upper[k] + f * (upper[k + 1] - upper[k])))


_HEAD_TABLE = HEAD_PITCH_VS_YAW_DEG.T.tolist()
_ANKLE_TABLE = LANKLE_ROLL_VS_PITCH_DEG.T.tolist()
# (driver, dependent, side of the ankle table or None for the head's) of the coupled limits
_COUPLED_JOINTS = (("HeadYaw", "HeadPitch", None), ("LAnklePitch", "LAnkleRoll", "L"),
                   ("RAnklePitch", "RAnkleRoll", "R"))
COUPLED_STEP_BISECTIONS = 12  # a driver's step found to 1/4096 of it
