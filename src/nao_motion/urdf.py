"""URDF generation from the NAO model, and a small URDF reader used to check it.

``python -m nao_motion.urdf --version V5 --output urdf/nao.urdf`` (or
``nao-motion urdf``) regenerates the checked-in file; a test fails if they differ.
Shapes are primitives from :mod:`nao_motion.body_shapes` (NAO's meshes are not
redistributable); a capsule is written as a cylinder between two spheres.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import spatial
from .body_shapes import Capsule, body_capsules, sole_box_in_link, sole_boxes
from .model import NaoModel

COLOURS = {"torso": "0.85 0.85 0.85 1", "head": "0.85 0.85 0.85 1", "foot": "0.3 0.3 0.35 1"}
DEFAULT_COLOUR = "0.55 0.6 0.7 1"


def _f(x: float) -> str:
    # 12 significant digits keep URDF FK within 1e-12 m of the model; + 0.0 drops "-0".
    return f"{float(x) + 0.0:.12g}"


def _xyz(v) -> str:
    return " ".join(_f(float(x)) for x in v)


def _capsule_geometries(c: Capsule) -> list[tuple[str, dict, np.ndarray]]:
    """(geometry tag, attributes, 4x4 origin) triples drawing a capsule with URDF primitives."""
    p, q = np.asarray(c.p_m), np.asarray(c.q_m)
    spheres = [("sphere", {"radius": _f(c.radius_m)}, spatial.translation(*p))]
    if c.is_sphere:
        return spheres
    axis = (q - p) / c.length_m
    # Rotate z onto the segment axis (cylinders are along z in URDF).
    z = np.array([0.0, 0.0, 1.0])
    v, cos = np.cross(z, axis), float(z @ axis)
    if np.linalg.norm(v) < 1e-12:
        rot = np.eye(3) if cos > 0 else spatial.rot_x(np.pi)
    else:
        k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
        rot = np.eye(3) + k + k @ k / (1.0 + cos)
    cylinder = ("cylinder", {"radius": _f(c.radius_m), "length": _f(c.length_m)},
                spatial.transform(rot, (p + q) / 2))
    return spheres + [cylinder, ("sphere", {"radius": _f(c.radius_m)}, spatial.translation(*q))]


def _add_origin(parent: ET.Element, t: np.ndarray) -> None:
    ET.SubElement(parent, "origin", xyz=_xyz(t[:3, 3]), rpy=_xyz(spatial.rpy_from_rotation(t[:3, :3])))


def _add_shape(link: ET.Element, tag: str, attrs: dict, origin: np.ndarray, material: str | None) -> None:
    for kind in ("visual", "collision"):
        el = ET.SubElement(link, kind)
        _add_origin(el, origin)
        geometry = ET.SubElement(el, "geometry")
        ET.SubElement(geometry, tag, attrs)
        if kind == "visual" and material:
            ET.SubElement(el, "material", name=material)


def generate_urdf(model: NaoModel) -> str:
    """The URDF text of `model`: links with inertials and primitive shapes, limits, HipYawPitch mimic."""
    robot = ET.Element("robot", name=f"NaoH25{model.version}")
    for name, rgba in {**COLOURS, "limb": DEFAULT_COLOUR}.items():
        ET.SubElement(ET.SubElement(robot, "material", name=name), "color", rgba=rgba)

    links: dict[str, ET.Element] = {}

    def link(name: str) -> ET.Element:
        if name not in links:
            links[name] = ET.SubElement(robot, "link", name=name)
        return links[name]

    link("base_link")
    for name in model.link_names:
        el = link(name)
        inertial = model.inertials.get(name)
        if inertial is not None:
            ie = ET.SubElement(el, "inertial")
            ET.SubElement(ie, "origin", xyz=_xyz(inertial.com), rpy="0 0 0")
            ET.SubElement(ie, "mass", value=_f(inertial.mass))
            ixx, iyy, izz = inertial.inertia_diag
            ET.SubElement(ie, "inertia", ixx=_f(ixx), ixy="0", ixz="0", iyy=_f(iyy), iyz="0", izz=_f(izz))
    for capsule in body_capsules(model):
        material = capsule.group if capsule.group in COLOURS else "limb"
        for tag, attrs, origin in _capsule_geometries(capsule):
            _add_shape(link(capsule.link), tag, attrs, origin, material)
    for box in sole_boxes(model):
        centre, half = sole_box_in_link(model, box)
        _add_shape(link(box.link), "box", {"size": _xyz(2 * half)}, spatial.translation(*centre), "foot")

    base = ET.SubElement(robot, "joint", name="base_link_fixedjoint", type="fixed")
    ET.SubElement(base, "parent", link="base_link")
    ET.SubElement(base, "child", link="torso")
    ET.SubElement(base, "origin", xyz="0 0 0", rpy="0 0 0")
    for name in model.kinematic_joint_names:
        spec = model.joint(name)
        j = ET.SubElement(robot, "joint", name=name, type="revolute")
        ET.SubElement(j, "parent", link=model.parent_link(name))
        ET.SubElement(j, "child", link=spec.child_link)
        ET.SubElement(j, "origin", xyz=_xyz(model.joint_origin_in_parent(name)), rpy="0 0 0")
        ET.SubElement(j, "axis", xyz=_xyz(model.joint_axis_in_link(name)))
        ET.SubElement(j, "limit", lower=_f(spec.lower), upper=_f(spec.upper),
                      effort=_f(spec.max_effort), velocity=_f(spec.max_velocity))
        if name == "RHipYawPitch":
            ET.SubElement(j, "mimic", joint="LHipYawPitch", multiplier="1", offset="0")
    for frame in model.fixed_frames():
        if frame.name == "base_link":
            continue
        link(frame.name)
        j = ET.SubElement(robot, "joint", name=f"{frame.name}_fixedjoint", type="fixed")
        ET.SubElement(j, "parent", link=frame.parent_link)
        ET.SubElement(j, "child", link=frame.name)
        _add_origin(j, frame.transform)
    ET.indent(robot)
    header = (
        "<?xml version=\"1.0\"?>\n"
        f"<!-- Generated from nao_motion.model (NAO {model.version}) by `nao-motion urdf`. Do not edit. -->\n"
    )
    return header + ET.tostring(robot, encoding="unicode") + "\n"


@dataclass
class UrdfJoint:
    name: str
    kind: str
    parent: str
    child: str
    origin: np.ndarray
    axis: np.ndarray
    mimic: str | None
    lower: float
    upper: float


class UrdfTree:
    """A minimal URDF reader and forward kinematics (used to check the generated file)."""

    def __init__(self, text: str):
        root = ET.fromstring(text)
        self.joints: dict[str, UrdfJoint] = {}
        for j in root.findall("joint"):
            origin = j.find("origin")
            xyz = [float(v) for v in origin.get("xyz", "0 0 0").split()] if origin is not None else [0, 0, 0]
            rpy = [float(v) for v in origin.get("rpy", "0 0 0").split()] if origin is not None else [0, 0, 0]
            axis = j.find("axis")
            mimic = j.find("mimic")
            limit = j.find("limit")
            self.joints[j.get("name")] = UrdfJoint(
                j.get("name"), j.get("type"), j.find("parent").get("link"), j.find("child").get("link"),
                spatial.transform(spatial.rotation_from_rpy(*rpy), xyz),
                np.array([float(v) for v in axis.get("xyz").split()]) if axis is not None else np.zeros(3),
                mimic.get("joint") if mimic is not None else None,
                float(limit.get("lower")) if limit is not None else 0.0,
                float(limit.get("upper")) if limit is not None else 0.0,
            )
        self._by_child = {j.child: j for j in self.joints.values()}
        self.link_names = [link.get("name") for link in root.findall("link")]
        self.masses = {
            link.get("name"): float(link.find("inertial/mass").get("value"))
            for link in root.findall("link") if link.find("inertial") is not None
        }

    def link_pose(self, link: str, positions: dict[str, float], root: str = "torso") -> np.ndarray:
        """Pose of `link` in `root` at the given joint positions (mimic joints follow their master)."""
        chain = []
        while link != root:
            joint = self._by_child[link]
            chain.append(joint)
            link = joint.parent
        t = np.eye(4)
        for joint in reversed(chain):
            t = t @ joint.origin
            if joint.kind == "revolute":
                q = positions.get(joint.mimic or joint.name, 0.0)
                axis = joint.axis / np.linalg.norm(joint.axis)
                k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
                t = t @ spatial.transform(np.eye(3) + np.sin(q) * k + (1 - np.cos(q)) * k @ k)
        return t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the NAO URDF generated from nao_motion's model.")
    parser.add_argument("--version", default="V5", choices=["V5", "V6"])
    parser.add_argument("--output", "-o", help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    text = generate_urdf(NaoModel(args.version))
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
