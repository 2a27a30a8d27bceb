"""MJCF (MuJoCo XML) of the NAO, generated from the project's model and body shapes.

Nothing here restates a dimension, mass or limit: bodies, joints, inertials and ranges come
from :class:`~nao_motion.model.NaoModel`, geometry from :mod:`nao_motion.body_shapes`, the FSR
positions from :mod:`nao_motion.sim.fsr`, the servo figures from :mod:`nao_motion.sim.servo`.

Choices:

* One body per model link, named as the link (``torso``, ``LThigh``, ``l_ankle``, ...), placed
  at ``model.joint_origin_in_parent`` with the identity orientation (link frames are
  torso-parallel at q = 0); one hinge per kinematic joint, named as the NAOqi joint, about
  ``model.joint_axis_in_link``, limited to the model's range. The torso carries a free joint.
* Inertials: the model's mass, centre of mass and inertia diagonal (principal axes taken along
  the link frame); geoms carry no mass.
* HipYawPitch: ONE motor, as on the robot. The actuator drives LHipYawPitch and an equality
  constraint ``RHipYawPitch = LHipYawPitch`` couples the right joint to it (a rigid mechanical
  coupling, solved with the contacts), so the two can never disagree by more than the
  constraint's softness (well under 0.1 deg) and the motor feels both legs' load.
* Geoms: the body capsules and spheres for contact with the floor (and, optionally, with each
  other), sole boxes under the feet. The foot capsules are visual only: they reach below the
  sole plane and would otherwise hold the foot off the floor.
* Contacts: soles 1.0 sliding friction with a little torsional and rolling friction (condim 6),
  other geoms 0.8 sliding (condim 3). Robot geoms collide with the floor only; with
  ``self_collision`` the self-collision filter's shape pairs (``collision.pairs``: each arm
  against the rest of the body) are added as explicit contact pairs.
* Sensors: a site ``imu`` at the torso frame origin (orientation, gyro, accelerometer), sites
  ``l_fsr_FL`` ... ``r_fsr_RR`` at the FSR positions in the sole plane, sites ``l_sole`` and
  ``r_sole`` at the sole frames.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from .. import body_shapes
from ..model import NaoModel
from .fsr import FOOT_SIDES, FSR_NAMES, fsr_positions_in_sole
from .servo import ServoBank, ServoParams

IMU_SITE = "imu"
FREE_JOINT = "root"
FLOOR_GEOM = "floor"
HIP_COUPLING = "hip_yaw_pitch_coupling"


@dataclass(frozen=True)
class ContactParams:
    """Contact tuning (MuJoCo units): friction (sliding, torsional, rolling), condim, solref."""

    sole_friction: tuple = (1.0, 0.01, 0.0001)
    sole_condim: int = 6
    body_friction: tuple = (0.8, 0.005, 0.0001)
    body_condim: int = 3
    # Contact time constant (s) and damping ratio; MuJoCo keeps the time constant >= 2 steps.
    solref: tuple = (0.01, 1.0)
    solimp: tuple = (0.95, 0.99, 0.001, 0.5, 2)
    cone: str = "elliptic"


def fsr_site_name(side: str, sensor: str) -> str:
    return f"{side[0]}_fsr_{sensor}"


def sole_frame_name(side: str) -> str:
    return f"{side[0]}_sole"


def _fmt(values) -> str:
    """Space-separated numbers; rounding noise (|x| < 1e-12, e.g. cos(pi/2)) written as 0."""
    return " ".join(f"{(0.0 if abs(float(v)) < 1e-12 else float(v)):.9g}" for v in np.ravel(values))


_GROUP_RGBA = {
    "torso": "0.93 0.93 0.93 1", "head": "0.93 0.93 0.93 1", "hip": "0.55 0.6 0.7 1",
    "arm": "0.85 0.87 0.9 1", "leg": "0.85 0.87 0.9 1", "foot": "0.3 0.45 0.8 1",
}


def _rgba(group: str) -> str:
    return _GROUP_RGBA.get(group.split("_")[-1], "0.8 0.8 0.8 1")


def build_mjcf(
    model: NaoModel,
    physics_step_s: float = 0.002,
    servo: ServoParams | None = None,
    contact: ContactParams | None = None,
    self_collision: bool = False,
) -> str:
    """The NAO on a floor as an MJCF string (compile with ``mujoco.MjModel.from_xml_string``)."""
    servo_bank = ServoBank(model, servo)
    contact = contact or ContactParams()
    root = ET.Element("mujoco", model=f"nao_{model.version.lower()}")
    ET.SubElement(root, "compiler", angle="radian", autolimits="true", inertiafromgeom="false")
    ET.SubElement(
        root, "option", timestep=f"{physics_step_s:.9g}", integrator="implicitfast", cone=contact.cone,
        gravity="0 0 -9.81",
    )
    visual = ET.SubElement(root, "visual")
    ET.SubElement(visual, "headlight", ambient="0.35 0.35 0.35", diffuse="0.5 0.5 0.5", specular="0.1 0.1 0.1")
    ET.SubElement(visual, "global", offwidth="1280", offheight="960")

    asset = ET.SubElement(root, "asset")
    ET.SubElement(asset, "texture", name="grid", type="2d", builtin="checker", rgb1="0.82 0.82 0.8",
                  rgb2="0.7 0.72 0.74", width="256", height="256", mark="edge", markrgb="0.6 0.6 0.6")
    ET.SubElement(asset, "material", name="floor", texture="grid", texrepeat="10 10", reflectance="0.0")
    ET.SubElement(asset, "texture", name="sky", type="skybox", builtin="gradient", rgb1="0.6 0.7 0.85",
                  rgb2="0.95 0.95 0.97", width="64", height="64")

    # Robot geoms: contype 2 / conaffinity 1 collide with the floor (1 / 1) but not with each other.
    default = ET.SubElement(root, "default")
    ET.SubElement(default, "geom", contype="2", conaffinity="1",
                  condim=str(contact.body_condim), friction=_fmt(contact.body_friction),
                  solref=_fmt(contact.solref), solimp=_fmt(contact.solimp))
    ET.SubElement(default, "site", size="0.006", rgba="1 0.3 0.1 0.8", group="4")

    world = ET.SubElement(root, "worldbody")
    ET.SubElement(world, "light", name="sun", pos="0.5 -0.5 2.5", dir="-0.2 0.2 -1", directional="true",
                  castshadow="false", diffuse="0.6 0.6 0.6")  # OSMesa: shadow acne
    ET.SubElement(world, "geom", name=FLOOR_GEOM, type="plane", size="0 0 0.05", material="floor",
                  contype="1", conaffinity="1", condim=str(contact.sole_condim),
                  friction=_fmt(contact.sole_friction))

    # --- kinematic tree ------------------------------------------------------------------------
    bodies: dict[str, ET.Element] = {}
    # The torso's initial pose is set by the simulator's reset (feet on the floor).
    torso = ET.SubElement(world, "body", name="torso", pos="0 0 0.4")
    ET.SubElement(torso, "freejoint", name=FREE_JOINT)
    bodies["torso"] = torso
    index_in_bank = {n: i for i, n in enumerate(servo_bank.joint_names)}
    coupled_armature = servo_bank.armature[index_in_bank["LHipYawPitch"]]
    for name in model.kinematic_joint_names:
        spec = model.joint(name)
        parent = bodies[model.parent_link(name)]
        body = ET.SubElement(parent, "body", name=spec.child_link, pos=_fmt(model.joint_origin_in_parent(name)))
        bodies[spec.child_link] = body
        if name in index_in_bank:
            i = index_in_bank[name]
            armature, damping, friction = servo_bank.armature[i], servo_bank.damping[i], servo_bank.friction[i]
        else:  # RHipYawPitch: the shared motor's inertia is on LHipYawPitch; a gear pair remains
            armature, damping, friction = 0.1 * coupled_armature, servo_bank.params.passive_damping_nms, 0.0
        ET.SubElement(
            body, "joint", name=name, type="hinge", axis=_fmt(model.joint_axis_in_link(name)),
            range=_fmt((spec.lower, spec.upper)), armature=f"{armature:.6g}", damping=f"{damping:.6g}",
            frictionloss=f"{friction:.6g}",
        )
    for link, body in bodies.items():
        inertial = model.inertials[link]
        # Inertials go first in the body element (MuJoCo accepts any order; keep it readable).
        body.insert(0, ET.Element("inertial", pos=_fmt(inertial.com), mass=f"{inertial.mass:.9g}",
                                  diaginertia=_fmt(inertial.inertia_diag)))

    # --- geoms ----------------------------------------------------------------------------------
    for cap in body_shapes.body_capsules(model):
        attrs = {"name": cap.name, "rgba": _rgba(cap.group)}
        if cap.group.endswith("foot"):
            attrs.update(contype="0", conaffinity="0", group="1")
        if cap.is_sphere:
            attrs.update(type="sphere", pos=_fmt(cap.p_m), size=f"{cap.radius_m:.9g}")
        else:
            attrs.update(type="capsule", fromto=_fmt(np.concatenate([cap.p_m, cap.q_m])), size=f"{cap.radius_m:.9g}")
        ET.SubElement(bodies[cap.link], "geom", **attrs)
    for box in body_shapes.sole_boxes(model):
        centre, half = body_shapes.sole_box_in_link(model, box)
        ET.SubElement(bodies[box.link], "geom", name=box.name, type="box", pos=_fmt(centre), size=_fmt(half),
                      condim=str(contact.sole_condim), friction=_fmt(contact.sole_friction),
                      rgba=_rgba("foot"))

    # --- sites ----------------------------------------------------------------------------------
    torso.insert(1, ET.Element("site", name=IMU_SITE, pos="0 0 0", size="0.01", rgba="0.1 0.8 0.1 1"))
    frames = {f.name: f for f in model.fixed_frames()}
    for side in FOOT_SIDES:
        sole = frames[sole_frame_name(side)]
        body = bodies[sole.parent_link]
        ET.SubElement(body, "site", name=sole.name, pos=_fmt(sole.transform[:3, 3]))
        for sensor, p in zip(FSR_NAMES, fsr_positions_in_sole(model, side)):
            pos = sole.transform[:3, :3] @ p + sole.transform[:3, 3]
            ET.SubElement(body, "site", name=fsr_site_name(side, sensor), pos=_fmt(pos))

    if self_collision:
        from ..collision.pairs import collision_pairs

        pairs = collision_pairs(model)
        slide, torsion, roll = contact.body_friction
        pair_friction = (slide, slide, torsion, roll, roll)  # a <pair> takes all 5 coefficients
        contact_el = ET.SubElement(root, "contact")
        for a, b in zip(pairs.first, pairs.second):
            ET.SubElement(contact_el, "pair", geom1=pairs.shapes[a].name, geom2=pairs.shapes[b].name,
                          condim=str(contact.body_condim), friction=_fmt(pair_friction),
                          solref=_fmt(contact.solref), solimp=_fmt(contact.solimp))

    # --- coupling, actuators, sensors --------------------------------------------------------
    equality = ET.SubElement(root, "equality")
    ET.SubElement(equality, "joint", name=HIP_COUPLING, joint1="RHipYawPitch", joint2="LHipYawPitch",
                  polycoef="0 1 0 0 0", solref=f"{max(2 * physics_step_s, 0.002):.6g} 1")
    actuator = ET.SubElement(root, "actuator")
    for i, name in enumerate(servo_bank.joint_names):
        tau = servo_bank.max_effort[i]
        ET.SubElement(
            actuator, "position", name=name, joint=name, kp=f"{servo_bank.kp[i]:.9g}",
            dampratio=f"{servo_bank.params.damping_ratio:.6g}", forcelimited="true",
            forcerange=f"{-tau:.9g} {tau:.9g}", ctrlrange=_fmt((servo_bank.lower[i], servo_bank.upper[i])),
        )
    sensor = ET.SubElement(root, "sensor")
    ET.SubElement(sensor, "framequat", name="imu_orientation", objtype="site", objname=IMU_SITE)
    ET.SubElement(sensor, "gyro", name="imu_gyro", site=IMU_SITE)
    ET.SubElement(sensor, "accelerometer", name="imu_accelerometer", site=IMU_SITE)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode")

