"""NAO model: documented dimensions, masses, limits, coupled-limit tables, frames."""

import numpy as np
import pytest

from nao_motion.kinematics import ForwardKinematics
from nao_motion.model import NaoModel, coupled_range, project_coupled_limits
from nao_motion.postures import POSTURES, posture

# Zero-pose joint positions in the torso frame documented in nao-model.md (m).
DOCUMENTED_ZERO_POSE = {
    "HeadYaw": (0, 0, 0.1265),
    "LShoulderPitch": (0, 0.098, 0.100),
    "LElbowYaw": (0.105, 0.113, 0.100),
    "LWristYaw": (0.16095, 0.113, 0.100),
    "LHipYawPitch": (0, 0.050, -0.085),
    "LKneePitch": (0, 0.050, -0.185),
    "LAnklePitch": (0, 0.050, -0.2879),
}


@pytest.mark.parametrize("version", ["V5", "V6"])
def test_zero_pose_positions_match_documentation(version):
    model = NaoModel(version)
    fk = ForwardKinematics(model)
    state = fk.compute(model.zero_configuration())
    for joint, expected in DOCUMENTED_ZERO_POSE.items():
        np.testing.assert_allclose(fk.pose(state, joint)[:3, 3], expected, atol=1e-6, err_msg=joint)
        mirrored = "R" + joint[1:] if joint[0] == "L" else joint
        np.testing.assert_allclose(fk.pose(state, mirrored)[:3, 3], np.multiply(expected, (1, -1, 1)), atol=1e-6)


def test_chain_end_points_at_zero_pose():
    model = NaoModel()
    fk = ForwardKinematics(model)
    state = fk.compute(model.zero_configuration())
    # Hand: wrist + (HandOffsetX, 0, -HandOffsetZ); sole: ankle - FootHeight; torso orientation.
    np.testing.assert_allclose(fk.pose(state, "LArm"), _pose((0.2187, 0.113, 0.08769)), atol=1e-9)
    np.testing.assert_allclose(fk.pose(state, "RLeg"), _pose((0.0, -0.05, -0.33309)), atol=1e-9)
    np.testing.assert_allclose(fk.pose(state, "Head"), _pose((0.0, 0.0, 0.1265)), atol=1e-9)


def _pose(xyz):
    t = np.eye(4)
    t[:3, 3] = xyz
    return t


@pytest.mark.parametrize("version, total", [("V5", 5.305), ("V6", 5.360)])
def test_total_mass_per_version(version, total):
    assert NaoModel(version).total_mass_kg == pytest.approx(total, abs=1e-3)


def test_unknown_version_is_refused():
    with pytest.raises(ValueError, match="V4"):
        NaoModel("V4")


def test_joint_table_order_and_limits():
    model = NaoModel()
    assert model.joint_names[:3] == ("HeadYaw", "HeadPitch", "LShoulderPitch")
    assert len(model.joint_names) == 26 and len(model.kinematic_joint_names) == 24
    assert "RHipYawPitch" not in model.motor_joint_names and len(model.motor_joint_names) == 25
    assert np.all(model.lower < model.upper)
    j = model.joint("RElbowRoll")
    assert (np.rad2deg(j.lower), np.rad2deg(j.upper)) == pytest.approx((2.0, 88.5))
    assert model.joint("LKneePitch").max_effort == pytest.approx(3.023)
    assert model.names_for("LArm")[-1] == "LHand" and len(model.names_for("Body")) == 26
    with pytest.raises(KeyError):
        model.names_for("Tail")


def test_hip_yaw_pitch_is_one_motor():
    model = NaoModel()
    fk = ForwardKinematics(model)
    q = model.zero_configuration()
    q[model.joint_index("LHipYawPitch")] = -0.5
    q[model.joint_index("RHipYawPitch")] = 0.3  # ignored: the right joint follows the left motor
    state = fk.compute(q)
    assert state.q[model.joint_index("RHipYawPitch")] == -0.5
    mirror = fk.pose(state, "r_sole")[:3, 3] * (1, -1, 1)
    np.testing.assert_allclose(fk.pose(state, "l_sole")[:3, 3], mirror, atol=1e-12)


@pytest.mark.parametrize("yaw_deg, pitch_min, pitch_max", [
    (0.0, -38.5, 29.51), (27.85, -38.5, 24.18), (43.32, -31.40, 21.20), (51.74, -27.50, 18.91),
    (62.45, -24.64, 17.19), (87.49, -18.91, 11.46), (119.52, -25.73, 18.91),
    (-87.49, -18.91, 11.46), ((27.85 + 43.32) / 2, (-38.5 - 31.40) / 2, (24.18 + 21.20) / 2),
])
def test_head_pitch_limits_depend_on_yaw(yaw_deg, pitch_min, pitch_max):
    model = NaoModel()
    for request, expected in ((-2.0, pitch_min), (2.0, pitch_max), (0.0, 0.0)):
        q = model.zero_configuration()
        q[model.joint_index("HeadYaw")] = np.deg2rad(yaw_deg)
        q[model.joint_index("HeadPitch")] = request
        out = project_coupled_limits(model, q)
        assert np.rad2deg(out[model.joint_index("HeadPitch")]) == pytest.approx(expected, abs=1e-9)
        assert out[model.joint_index("HeadYaw")] == q[model.joint_index("HeadYaw")]


@pytest.mark.parametrize("pitch_deg, roll_min, roll_max", [
    (-68.15, -2.86, 4.3), (-48.13, -10.31, 9.74), (-40.11, -22.8, 12.61), (-25.78, -22.8, 44.06),
    (5.73, -22.8, 44.06), (20.05, -22.8, 31.54), (52.87, 0.0, 2.86),
])
def test_ankle_roll_limits_depend_on_pitch_and_mirror(pitch_deg, roll_min, roll_max):
    model = NaoModel()
    q = model.zero_configuration()
    for side in "LR":
        q[model.joint_index(side + "AnklePitch")] = np.deg2rad(pitch_deg)
    q[model.joint_index("LAnkleRoll")] = -2.0
    q[model.joint_index("RAnkleRoll")] = 2.0
    out = project_coupled_limits(model, q)
    assert np.rad2deg(out[model.joint_index("LAnkleRoll")]) == pytest.approx(roll_min, abs=1e-9)
    assert np.rad2deg(out[model.joint_index("RAnkleRoll")]) == pytest.approx(-roll_min, abs=1e-9)
    q[model.joint_index("LAnkleRoll")] = 2.0
    q[model.joint_index("RAnkleRoll")] = -2.0
    out = project_coupled_limits(model, q)
    assert np.rad2deg(out[model.joint_index("LAnkleRoll")]) == pytest.approx(roll_max, abs=1e-9)
    assert np.rad2deg(out[model.joint_index("RAnkleRoll")]) == pytest.approx(-roll_max, abs=1e-9)


def test_coupled_range_clamps_outside_the_table():
    lo, hi = coupled_range(np.array([[0.0, -10.0, 10.0], [10.0, -5.0, 5.0]]), 50.0)
    assert np.rad2deg([lo, hi]) == pytest.approx([-5.0, 5.0])


def test_clip_to_limits_respects_ranges_and_couplings():
    model = NaoModel()
    rng = np.random.default_rng(3)
    for _ in range(200):
        q = model.clip_to_limits(rng.uniform(model.lower - 1, model.upper + 1))
        assert np.all(q >= model.lower - 1e-12) and np.all(q <= model.upper + 1e-12)
        assert np.allclose(project_coupled_limits(model, q), q)


def test_postures_are_within_limits_and_upright():
    model = NaoModel()
    fk = ForwardKinematics(model)
    for name in POSTURES:
        q = posture(model, name)
        assert np.all(q >= model.lower) and np.all(q <= model.upper), name
        sole = fk.pose(fk.compute(q), "l_sole")
        assert abs(np.arcsin(sole[0, 2])) < 0.07, name  # soles nearly flat under an upright torso


def test_named_frames_exist():
    fk = ForwardKinematics(NaoModel())
    for name in ("torso", "Head", "gaze", "CameraTop", "CameraBottom", "l_wrist", "r_wrist", "l_ankle",
                 "r_ankle", "l_sole", "r_sole", "l_gripper", "r_gripper", "base_link",
                 "LArm", "RArm", "LLeg", "RLeg", "Torso"):
        assert fk.has_frame(name), name
    assert not fk.has_frame("Tail")


def test_chain_end_frames_are_pure_translations_of_their_links():
    for frame in NaoModel().fixed_frames():
        if frame.name in ("l_gripper", "r_gripper", "l_sole", "r_sole"):
            np.testing.assert_allclose(frame.transform[:3, :3], np.eye(3), atol=1e-12)
