"""Forward kinematics, centre of mass, Jacobians and NAOqi spaces."""

from pathlib import Path

import numpy as np
import pytest

from nao_motion import spatial
from nao_motion.kinematics import FRAME_ROBOT, FRAME_TORSO, FRAME_WORLD, ForwardKinematics
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.urdf import UrdfTree, generate_urdf

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fk():
    return ForwardKinematics(NaoModel())


def random_configurations(model, n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(model.lower, model.upper, size=(n, model.n_joints))


def test_tree_fk_equals_the_mdh_chains(fk):
    model = fk.model
    for q in random_configurations(model, 300, seed=1):
        state = fk.compute(q)
        for chain in model.chains:
            np.testing.assert_allclose(fk.pose(state, chain), fk.chain_end_by_mdh(q, chain), atol=1e-12)
            for joint, mdh in zip(model.chains[chain].joints, fk.joint_frames_by_mdh(q, chain)):
                np.testing.assert_allclose(fk.pose(state, joint)[:3, 3], mdh[:3, 3], atol=1e-12)
                # The link frame is the mDH frame turned by the constant link_from_mdh rotation.
                np.testing.assert_allclose(fk.pose(state, joint), mdh @ model.link_from_mdh(joint), atol=1e-12)


@pytest.mark.parametrize("version, path", [("V5", "urdf/nao.urdf"), ("V6", "urdf/nao_v6.urdf")])
def test_mdh_fk_equals_urdf_fk_at_1000_random_configurations(version, path):
    model = NaoModel(version)
    fk = ForwardKinematics(model)
    urdf = UrdfTree((REPO / path).read_text())
    worst = 0.0
    for q in random_configurations(model, 1000, seed=2):
        positions = dict(zip(model.joint_names, q))
        for chain in model.chains:
            for joint, mdh in zip(model.chains[chain].joints, fk.joint_frames_by_mdh(q, chain)):
                urdf_pose = urdf.link_pose(model.joint(joint).child_link, positions)
                worst = max(worst, np.abs(urdf_pose[:3, 3] - mdh[:3, 3]).max())
            end = model.chains[chain].end_frame
            worst = max(worst, np.abs(urdf.link_pose(end, positions) - fk.chain_end_by_mdh(q, chain)).max())
    assert worst < 1e-9


@pytest.mark.parametrize("version, path", [("V5", "urdf/nao.urdf"), ("V6", "urdf/nao_v6.urdf")])
def test_checked_in_urdf_is_what_the_generator_produces(version, path):
    assert (REPO / path).read_text() == generate_urdf(NaoModel(version)), (
        f"{path} is out of date: run `nao-motion urdf --version {version} -o {path}`")


def test_urdf_frames_masses_and_mimic(fk):
    urdf = UrdfTree(generate_urdf(fk.model))
    assert set(fk.frame_names()) <= set(urdf.link_names)
    assert sum(urdf.masses.values()) == pytest.approx(fk.model.total_mass_kg)
    assert urdf.joints["RHipYawPitch"].mimic == "LHipYawPitch"
    lo, hi = urdf.joints["LKneePitch"].lower, urdf.joints["LKneePitch"].upper
    assert (lo, hi) == pytest.approx((np.deg2rad(-5.29), np.deg2rad(121.04)))


def _numeric_jacobian(fk, q, function, eps=1e-6):
    columns = []
    for joint in fk.joint_names:
        i = fk.model.joint_index(joint)
        if joint == "RHipYawPitch":  # no independent coordinate: checked through the motor column
            columns.append(None)
            continue
        dq = np.zeros_like(q)
        dq[i] = eps
        columns.append((function(q + dq) - function(q - dq)) / (2 * eps))
    return columns


def _angular_velocity(r_plus, r_minus, eps):
    w = (r_plus @ r_minus.T - r_minus @ r_plus.T) / (4 * eps)  # skew part of dR R^T
    return np.array([w[2, 1], w[0, 2], w[1, 0]])


@pytest.mark.parametrize("frame", ["l_gripper", "r_sole", "CameraTop", "LElbowRoll", "Head"])
def test_frame_jacobians_equal_finite_differences(fk, frame):
    for q in random_configurations(fk.model, 5, seed=4):
        jac = fk.fold_hip_yaw_pitch(fk.frame_jacobian(fk.compute(q), frame))
        eps = 1e-6
        for motor_i, joint in enumerate(fk.motor_joint_names):
            dq = np.zeros_like(q)
            dq[fk.model.joint_index(joint)] = eps
            plus, minus = fk.pose(fk.compute(q + dq), frame), fk.pose(fk.compute(q - dq), frame)
            linear = (plus[:3, 3] - minus[:3, 3]) / (2 * eps)
            np.testing.assert_allclose(jac[:3, motor_i], linear, atol=1e-8, err_msg=joint)
            np.testing.assert_allclose(jac[3:, motor_i], _angular_velocity(plus[:3, :3], minus[:3, :3], eps),
                                       atol=1e-8, err_msg=joint)


def test_point_jacobian_of_a_point_on_a_link(fk):
    q = random_configurations(fk.model, 1, seed=5)[0]
    offset = np.array([0.03, -0.01, 0.02, 1.0])

    def point(qq):
        return (fk.pose(fk.compute(qq), "LForeArm") @ offset)[:3]

    jac = fk.fold_hip_yaw_pitch(fk.point_jacobian(fk.compute(q), "LForeArm", point(q)))
    for motor_i, joint in enumerate(fk.motor_joint_names):
        dq = np.zeros_like(q)
        dq[fk.model.joint_index(joint)] = 1e-6
        np.testing.assert_allclose(jac[:3, motor_i], (point(q + dq) - point(q - dq)) / 2e-6, atol=1e-8)


def test_com_jacobian_equals_finite_differences(fk):
    for q in random_configurations(fk.model, 5, seed=6):
        jac = fk.fold_hip_yaw_pitch(fk.com_jacobian(fk.compute(q)))
        for motor_i, joint in enumerate(fk.motor_joint_names):
            dq = np.zeros_like(q)
            dq[fk.model.joint_index(joint)] = 1e-6
            numeric = (fk.compute(q + dq).com_torso_m - fk.compute(q - dq).com_torso_m) / 2e-6
            np.testing.assert_allclose(jac[:, motor_i], numeric, atol=1e-9, err_msg=joint)


def test_com_is_the_mass_weighted_mean_of_the_chains(fk):
    q = random_configurations(fk.model, 1, seed=7)[0]
    state = fk.compute(q)
    torso = fk.model.inertials["torso"]
    parts = [(torso.mass, np.asarray(torso.com))]
    for chain in ("Head", "LArm", "RArm", "LLeg", "RLeg"):
        links = [fk.model.joint(j).child_link for j in fk.model.chains[chain].joints]
        mass = sum(fk.model.inertials[link].mass for link in links)
        parts.append((mass, fk.com(state, chain)))
    total = sum(m for m, _ in parts)
    np.testing.assert_allclose(sum(m * c for m, c in parts) / total, fk.com(state, "Body"), atol=1e-12)
    with pytest.raises(KeyError):
        fk.com(state, "Tail")


def test_naoqi_spaces_at_stand_init(fk):
    state = fk.compute(posture(fk.model, "StandInit"))
    torso_in_robot = fk.transform_in_space(state, "Torso", FRAME_ROBOT)
    sole = fk.pose(state, "l_sole")
    # Torso straight above the feet midpoint at the legs' height; soles on the floor (z = 0).
    assert torso_in_robot[2, 3] == pytest.approx(-sole[2, 3], abs=1e-12)
    assert fk.transform_in_space(state, "LLeg", FRAME_ROBOT)[2, 3] == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(fk.transform_in_space(state, "LArm", FRAME_TORSO), fk.pose(state, "LArm"))
    world_from_robot = spatial.transform(spatial.rot_z(0.5), (1.0, 2.0, 0.0))
    in_world = fk.transform_in_space(state, "Torso", FRAME_WORLD, world_from_robot=world_from_robot)
    np.testing.assert_allclose(in_world, world_from_robot @ torso_in_robot, atol=1e-12)
    with pytest.raises(ValueError, match="space"):
        fk.transform_in_space(state, "Torso", 7)


def test_robot_frame_uses_the_feet_and_footprint_the_torso_yaw(fk):
    q = posture(fk.model, "StandInit")
    q[fk.model.joint_index("LHipYawPitch")] = -0.4  # both feet turn outwards symmetrically
    state = fk.compute(q)
    upright = np.eye(3)  # the IMU says the torso is upright (the turned feet are not flat)
    robot = fk.ground_frame(state, torso_attitude=upright, yaw_from="feet")
    footprint = fk.ground_frame(state, torso_attitude=upright, yaw_from="torso")
    heading = spatial.inverse(robot)[:3, :3] @ np.array([1.0, 0.0, 0.0])
    assert abs(np.arctan2(heading[1], heading[0])) < 1e-9  # symmetric feet: mean heading = torso x
    np.testing.assert_allclose(robot[:3, 3], footprint[:3, 3], atol=1e-12)


def test_ground_frame_with_an_imu_attitude(fk):
    state = fk.compute(posture(fk.model, "StandInit"))
    tilt = spatial.rot_y(0.2)  # torso pitched forward by 0.2 rad in the world
    ground = fk.ground_frame(state, torso_attitude=tilt, yaw_from="torso")
    np.testing.assert_allclose(tilt @ ground[:3, :3], np.eye(3), atol=1e-12)  # ground z is world-vertical


def test_position6d_convention_round_trip():
    rng = np.random.default_rng(8)
    for _ in range(100):
        p = np.concatenate([rng.uniform(-1, 1, 3), rng.uniform(-1.5, 1.5, 3)])
        t = spatial.transform_from_position6d(p)
        np.testing.assert_allclose(spatial.position6d_from_transform(t), p, atol=1e-12)
    np.testing.assert_allclose(spatial.transform_from_position6d([0, 0, 0, 0, 0, 0.3])[:3, :3], spatial.rot_z(0.3))


def test_get_position_of_the_top_camera_follows_head_yaw(fk):
    q = posture(fk.model, "StandInit")
    q[fk.model.joint_index("HeadYaw")] = 0.6
    p = fk.position_in_space(fk.compute(q), "CameraTop", FRAME_TORSO)
    assert p[5] == pytest.approx(0.6)
    assert p[4] == pytest.approx(np.deg2rad(1.2))
    assert np.hypot(p[0], p[1]) == pytest.approx(0.05871)


def test_quaternion_round_trip():
    rng = np.random.default_rng(9)
    for _ in range(100):
        r = spatial.rotation_from_rpy(*rng.uniform(-3, 3, 3))
        np.testing.assert_allclose(spatial.rotation_from_quaternion_xyzw(spatial.quaternion_xyzw_from_rotation(r)),
                                   r, atol=1e-12)


def test_rotation_vector_round_trip_and_the_rotation_halfway():
    rng = np.random.default_rng(10)
    out = np.zeros((3, 3))
    for _ in range(100):
        start = spatial.rotation_from_rpy(*rng.uniform(-3, 3, 3))
        turn = rng.normal(size=3)
        turn *= rng.uniform(0.0, 3.0) / np.linalg.norm(turn)
        end = spatial.rotation_from_vector(turn) @ start
        np.testing.assert_allclose(spatial.rotation_error(end, start), turn, atol=1e-9)
        vector = np.zeros(3)
        assert spatial.rotation_error(end, start, out=vector) is vector
        np.testing.assert_allclose(vector, turn, atol=1e-9)
        spatial.rotation_halfway(start, end, out=out)
        np.testing.assert_allclose(out, spatial.rotation_from_vector(0.5 * turn) @ start, atol=1e-12)
    spatial.rotation_halfway(start, start, out=out)
    np.testing.assert_allclose(out, start, atol=1e-15)


def test_the_scalar_rotations_of_the_per_cycle_code():
    """The whole body's scalar forms (Python floats) equal the numpy ones to round-off."""
    rng = np.random.default_rng(11)
    for _ in range(100):
        rpy = rng.uniform(-3, 3, 3)
        np.testing.assert_allclose(spatial.rotation_rows_from_rpy(*rpy), spatial.rotation_from_rpy(*rpy), atol=1e-15)
        start, end = (spatial.rotation_from_rpy(*rng.uniform(-3, 3, 3)) for _ in range(2))
        expected = spatial.rotation_error(end, start)
        assert spatial.rotation_error_floats(end, start) == tuple(expected.tolist())
        np.testing.assert_allclose(spatial.rotation_error_of_rows(end.tolist(), start.tolist()), expected, atol=1e-12)
