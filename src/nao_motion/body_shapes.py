"""NAO's primitive body shapes: spheres, capsules and sole boxes attached to model links.

One definition serves the self-collision filter, the URDF's visual and collision
tags, the rviz markers and the simulator. NAOqi models the head, hips and torso
with spheres and the limbs with capsules; the sizes start from a published V6
primitive set (``nao-model.md``) and are enlarged where needed to enclose the
body. A sphere is a capsule whose two end points coincide. Coordinates are in
the owning link's frame (torso-parallel at q = 0), metres.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import NaoModel, mirror_link_name


@dataclass(frozen=True)
class Capsule:
    """Segment p-q swept by a sphere of `radius_m`, fixed on `link` (a sphere when p == q)."""

    name: str
    link: str
    p_m: tuple
    q_m: tuple
    radius_m: float
    group: str  # body part used for pair selection: torso, head, hip, l_arm, ..., l_foot

    @property
    def is_sphere(self) -> bool:
        return bool(np.allclose(self.p_m, self.q_m))

    @property
    def length_m(self) -> float:
        return float(np.linalg.norm(np.subtract(self.q_m, self.p_m)))


@dataclass(frozen=True)
class SoleBox:
    """A foot's sole as a box in the sole frame (z = 0 on the floor), metres."""

    name: str
    sole_frame: str
    link: str
    x_range_m: tuple
    y_range_m: tuple
    thickness_m: float


def _left_and_mirrored(shapes: list[Capsule]) -> list[Capsule]:
    out = []
    for s in shapes:
        out.append(s)
        if s.link.startswith(("L", "l_")):
            mirror = mirror_link_name(s.link)
            flip = (1.0, -1.0, 1.0)
            out.append(Capsule(
                "r" + s.name[1:], mirror, tuple(np.multiply(s.p_m, flip)), tuple(np.multiply(s.q_m, flip)),
                s.radius_m, "r" + s.group[1:],
            ))
    return out


def body_capsules(model: NaoModel) -> list[Capsule]:
    """The body's spheres and capsules (same for V5 and V6: the outer shell did not change)."""
    d = model.dims
    hand_end = (d.lower_arm_length + d.hand_offset_x + 0.01, 0.0, -d.hand_offset_z)
    left = [
        Capsule("l_upper_arm", "LBicep", (0.015, 0.0, 0.0), (d.upper_arm_length - 0.02, d.elbow_offset_y, 0.0), 0.032, "l_arm"),
        Capsule("l_forearm", "LForeArm", (0.0, 0.0, 0.0), hand_end, 0.034, "l_arm"),
        Capsule("l_hip", "LPelvis", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.035, "l_hip"),
        Capsule("l_thigh", "LThigh", (0.0, 0.0, -0.025), (0.0, 0.0, -d.thigh_length + 0.015), 0.045, "l_leg"),
        Capsule("l_tibia", "LTibia", (0.0, 0.0, -0.02), (0.0, 0.0, -d.tibia_length + 0.02), 0.042, "l_leg"),
        Capsule("l_foot", "l_ankle", (-0.02, 0.005, -0.025), (0.065, 0.005, -0.025), 0.03, "l_foot"),
    ]
    torso = [
        Capsule("torso_chest", "torso", (0.0019, 0.0, 0.056), (0.0019, 0.0, 0.056), 0.0642, "torso"),
        Capsule("torso_mid", "torso", (-0.010, 0.0, 0.0), (-0.010, 0.0, 0.0), 0.060, "torso"),
        Capsule("torso_belly", "torso", (0.0006, 0.0, -0.015), (0.0006, 0.0, -0.015), 0.0453, "torso"),
        Capsule("torso_back", "torso", (-0.030, 0.0, -0.060), (-0.030, 0.0, -0.060), 0.040, "torso"),
        Capsule("head", "Head", (-0.005, 0.0, 0.058), (-0.005, 0.0, 0.058), 0.058, "head"),
    ]
    return torso + _left_and_mirrored(left)


def sole_boxes(model: NaoModel) -> list[SoleBox]:
    """Sole outlines (nao-model.md: left x -50.7..99.4 mm, y -38.8..50.0 mm), right mirrored."""
    x = (-0.0507, 0.0994)
    return [
        SoleBox("l_sole_box", "l_sole", "l_ankle", x, (-0.0388, 0.0500), 0.015),
        SoleBox("r_sole_box", "r_sole", "r_ankle", x, (-0.0500, 0.0388), 0.015),
    ]


def sole_box_in_link(model: NaoModel, box: SoleBox) -> tuple[np.ndarray, np.ndarray]:
    """(centre, half extents) of a sole box in its link frame, metres."""
    sole = next(f for f in model.fixed_frames() if f.name == box.sole_frame)
    centre_sole = np.array([sum(box.x_range_m) / 2, sum(box.y_range_m) / 2, box.thickness_m / 2])
    half = np.array([np.ptp(box.x_range_m) / 2, np.ptp(box.y_range_m) / 2, box.thickness_m / 2])
    return sole.transform[:3, :3] @ centre_sole + sole.transform[:3, 3], half
