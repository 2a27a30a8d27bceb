"""The simulated NAO (MuJoCo core, no ROS): model fidelity, standing, limp, pushes, tracking, sensors."""

import time

import mujoco
import numpy as np
import pytest

from nao_motion import body_shapes
from nao_motion.kinematics import ForwardKinematics
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.sim.fsr import FSR_NAMES, distribute_to_fsrs, fsr_positions_in_sole
from nao_motion.sim.mjcf import build_mjcf, fsr_site_name
from nao_motion.sim.servo import actuated_joint_names
from nao_motion.sim.simulator import NaoSimulator

DEG = np.pi / 180.0


@pytest.fixture(scope="module")
def sim():
    return NaoSimulator(NaoModel("V5"))


def name_id(m, kind, name):
    i = mujoco.mj_name2id(m, kind, name)
    assert i >= 0, f"{name} missing from the MJCF"
    return i


# --- MJCF ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("version", ["V5", "V6"])
def test_mjcf_follows_the_model(version):
    model = NaoModel(version)
    m = mujoco.MjModel.from_xml_string(build_mjcf(model))
    assert m.body_mass.sum() == pytest.approx(model.total_mass_kg, abs=1e-9)
    for link in model.link_names:
        b = name_id(m, mujoco.mjtObj.mjOBJ_BODY, link)
        inertial = model.inertials[link]
        assert m.body_mass[b] == pytest.approx(inertial.mass)
        np.testing.assert_allclose(m.body_ipos[b], inertial.com, atol=1e-12)
        np.testing.assert_allclose(np.sort(m.body_inertia[b]), np.sort(inertial.inertia_diag), rtol=1e-9)
    for name in model.kinematic_joint_names:
        j = name_id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
        spec = model.joint(name)
        np.testing.assert_allclose(m.jnt_range[j], (spec.lower, spec.upper))
        np.testing.assert_allclose(m.jnt_axis[j], model.joint_axis_in_link(name), atol=1e-12)
        child = m.jnt_bodyid[j]
        assert mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, child) == spec.child_link
        np.testing.assert_allclose(m.body_pos[child], model.joint_origin_in_parent(name), atol=1e-12)
        parent = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.body_parentid[child])
        assert parent == model.parent_link(name)
    # One motor for the two HipYawPitch joints: no RHipYawPitch actuator, one joint equality.
    actuators = [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_ACTUATOR, i) for i in range(m.nu)]
    assert actuators == list(actuated_joint_names(model)) and "RHipYawPitch" not in actuators
    assert m.neq == 1 and m.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    for i, name in enumerate(actuators):
        tau = model.max_effort[model.joint_index(name)]
        np.testing.assert_allclose(m.actuator_forcerange[i], (-tau, tau))
    # Sole boxes and IMU / FSR sites are present.
    for box in body_shapes.sole_boxes(model):
        name_id(m, mujoco.mjtObj.mjOBJ_GEOM, box.name)
    name_id(m, mujoco.mjtObj.mjOBJ_SITE, "imu")
    for side in ("left", "right"):
        for sensor in FSR_NAMES:
            name_id(m, mujoco.mjtObj.mjOBJ_SITE, fsr_site_name(side, sensor))
    assert NaoSimulator(model).substeps == round(model.cycle_time_s / 0.002)


def test_bodies_match_forward_kinematics(sim):
    """MuJoCo's link poses at a random configuration equal the project's FK (torso frame)."""
    model, fk = sim.model, ForwardKinematics(sim.model)
    rng = np.random.default_rng(3)
    q = model.mimic_hip_yaw_pitch(rng.uniform(model.lower, model.upper))
    m = sim.mj_model
    d = mujoco.MjData(m)
    for name in model.kinematic_joint_names:
        d.qpos[m.jnt_qposadr[name_id(m, mujoco.mjtObj.mjOBJ_JOINT, name)]] = q[model.joint_index(name)]
    d.qpos[:7] = (0, 0, 0, 1, 0, 0, 0)
    mujoco.mj_kinematics(m, d)
    state = fk.compute(q)
    for link in model.link_names:
        b = name_id(m, mujoco.mjtObj.mjOBJ_BODY, link)
        pose = fk.pose(state, link)
        np.testing.assert_allclose(d.xpos[b], pose[:3, 3], atol=1e-9)
        np.testing.assert_allclose(d.xmat[b].reshape(3, 3), pose[:3, :3], atol=1e-9)
    for side, sole in (("left", "l_sole"), ("right", "r_sole")):
        sole_pose = fk.pose(state, sole)
        for sensor, p in zip(FSR_NAMES, fsr_positions_in_sole(model, side)):
            s = name_id(m, mujoco.mjtObj.mjOBJ_SITE, fsr_site_name(side, sensor))
            np.testing.assert_allclose(d.site_xpos[s], sole_pose[:3, :3] @ p + sole_pose[:3, 3], atol=1e-9)


# --- FSR data and distribution ------------------------------------------------------------------
def test_fsr_positions_and_mirror():
    model = NaoModel()
    left, right = fsr_positions_in_sole(model, "left"), fsr_positions_in_sole(model, "right")
    np.testing.assert_allclose(left[0, :2], (0.07025, 0.0299))  # left FL from the documentation
    np.testing.assert_allclose(left[3, :2], (-0.02965, -0.0191))  # left RR
    # Right foot = left foot mirrored in y, sensor names following their side.
    mirror = {0: 1, 1: 0, 2: 3, 3: 2}
    for i, j in mirror.items():
        np.testing.assert_allclose(right[i], left[j] * (1, -1, 1))
    assert np.all(left[:, 2] == 0) and np.all(right[:, 2] == 0)


def test_fsr_distribution_keeps_force_and_centre_of_pressure():
    xy = fsr_positions_in_sole(NaoModel(), "left")[:, :2]
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = rng.integers(1, 6)
        points = np.column_stack([rng.uniform(-0.02, 0.06, n), rng.uniform(-0.015, 0.025, n)])
        forces = rng.uniform(0.0, 20.0, n)
        out = distribute_to_fsrs(xy, points, forces)
        assert np.all(out >= 0) and out.sum() == pytest.approx(forces.sum())
        cop = forces @ points / forces.sum()
        cop_fsr = out @ xy / out.sum()
        assert cop_fsr[1] == pytest.approx(cop[1], abs=1e-9)
        assert cop_fsr[0] == pytest.approx(cop[0], abs=1e-3)  # rear sensors differ by 0.6 mm in x
    # A force on a sensor goes to that sensor alone; outside the span to the nearest row.
    np.testing.assert_allclose(distribute_to_fsrs(xy, xy[1:2], [10.0]), [0, 10, 0, 0], atol=1e-9)
    np.testing.assert_allclose(distribute_to_fsrs(xy, [[0.099, 0.0299]], [10.0]), [10, 0, 0, 0], atol=1e-9)
    assert distribute_to_fsrs(xy, np.zeros((0, 2)), []).sum() == 0.0


# --- reset and sensors ----------------------------------------------------------------------------
def test_reset_stands_on_the_floor_and_sensors_read_gravity(sim):
    s0 = sim.reset("StandInit")
    np.testing.assert_allclose(s0.position, posture(sim.model, "StandInit"), atol=1e-12)
    assert s0.torso_tilt_rad < 1e-9  # StandInit's pitches sum to 0: upright torso, flat soles
    s = sim.run(1.0)
    weight = sim.model.total_mass_kg * 9.81
    assert s.fsr_total_n == pytest.approx(weight, rel=0.01)
    assert s.fsr_left.sum() == pytest.approx(s.fsr_right.sum(), rel=0.05)
    assert np.all(s.fsr_left > 0.5) and np.all(s.fsr_right > 0.5)
    # Left/right symmetric: the left foot's FL sensor reads like the right foot's FR.
    np.testing.assert_allclose(s.fsr_left, s.fsr_right[[1, 0, 3, 2]], rtol=0.05)
    np.testing.assert_allclose(s.imu_linear_acceleration, (0, 0, 9.81), atol=0.1)
    np.testing.assert_allclose(s.imu_angular_velocity, 0, atol=5e-3)
    np.testing.assert_allclose(np.abs(s.imu_orientation_xyzw @ s.torso_orientation_xyzw), 1.0, atol=1e-6)
    # Soles on the floor: the sole sites at z ~ 0 (contact softness: under a millimetre).
    for site in ("l_sole", "r_sole"):
        z = sim.mj_data.site_xpos[name_id(sim.mj_model, mujoco.mjtObj.mjOBJ_SITE, site)][2]
        assert abs(z) < 1e-3
    assert not s.fallen and s.effort.shape == (26,)


# --- standing for a minute ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def standing_minute():
    sim = NaoSimulator(NaoModel("V5"))
    s0 = sim.reset("StandInit", 1.0)
    cycles = int(round(60.0 / sim.control_period_s))
    max_tilt, max_error, fallen = 0.0, np.zeros(26), False
    start = time.perf_counter()
    for _ in range(cycles):
        s = sim.step()
        max_tilt = max(max_tilt, s.torso_tilt_rad)
        max_error = np.maximum(max_error, np.abs(s.position - s.command))
        fallen |= s.fallen
    wall = time.perf_counter() - start
    return dict(sim=sim, start=s0, end=s, max_tilt=max_tilt, max_error=max_error, fallen=fallen,
                rtf=s.time_s / wall, wall=wall)


def test_stands_still_for_a_minute(standing_minute):
    r = standing_minute
    assert r["end"].time_s == pytest.approx(60.0)
    assert not r["fallen"]
    assert r["max_tilt"] < 2 * DEG, f"torso tilt {r['max_tilt'] / DEG:.2f} deg"
    worst = int(np.argmax(r["max_error"]))
    assert r["max_error"][worst] < 1 * DEG, (
        f"{r['sim'].joint_names[worst]} drifted {r['max_error'][worst] / DEG:.2f} deg from its command")
    # No creeping over the floor.
    drift = np.linalg.norm(r["end"].torso_position[:2] - r["start"].torso_position[:2])
    assert drift < 0.005


def test_faster_than_real_time(standing_minute):
    print(f"\nstanding minute: {standing_minute['wall']:.2f} s wall, real-time factor {standing_minute['rtf']:.1f}")
    assert standing_minute["rtf"] > 1.0


# --- limp, pushes -------------------------------------------------------------------------------
def test_reset_keeps_time_on_request(sim):
    sim.reset()
    sim.run(0.1)
    assert sim.reset(keep_time=True).time_s == pytest.approx(0.1)
    assert sim.state.cycle == 10
    assert sim.reset().time_s == 0.0 and sim.state.cycle == 0


def test_stiffness_zero_collapses(sim):
    sim.reset("StandInit", stiffness=0.0)
    s = sim.run(3.0)
    assert s.fallen
    assert s.torso_position[2] < 0.6 * sim.reset("StandInit").torso_position[2] or s.torso_tilt_rad > 60 * DEG
    assert np.all(s.effort == 0.0)


def test_limp_in_crouch_the_gearboxes_hold_the_robot(sim):
    """NAOqi's rest(): Crouch, then every joint limp. A real NAO stays crouched; with the stiff
    joints' friction only, the simulated one fell on its back within a second."""
    crouched = sim.reset("Crouch")
    sim.run(0.5)
    sim.set_stiffness(0.0)
    s = sim.run(3.0)
    assert not s.fallen
    assert s.torso_tilt_rad < crouched.torso_tilt_rad + 3 * DEG
    assert s.torso_position[2] == pytest.approx(crouched.torso_position[2], abs=0.01)


@pytest.mark.parametrize("direction", [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)])
def test_small_push_does_not_topple(sim, direction):
    sim.reset("StandInit")
    sim.run(0.3)
    sim.push(5.0 * np.asarray(direction, dtype=float), 0.1)
    max_tilt = 0.0
    for _ in range(int(2.5 / sim.control_period_s)):
        s = sim.step()
        max_tilt = max(max_tilt, s.torso_tilt_rad)
        assert not s.fallen
    assert max_tilt > 0.05 * DEG  # the push did something
    assert s.torso_tilt_rad < 2 * DEG  # and the robot came back


@pytest.mark.parametrize("direction", [(1, 0, 0), (0, 1, 0)])
def test_large_push_topples(sim, direction):
    sim.reset("StandInit")
    sim.run(0.3)
    sim.push(50.0 * np.asarray(direction, dtype=float), 0.2)
    assert sim.step().pushing
    s = sim.run(2.0)
    assert s.fallen
    # It fell the way it was pushed.
    assert np.dot(s.torso_position[:2] - sim.reset().torso_position[:2], direction[:2]) > 0.05


def test_push_in_torso_frame(sim):
    sim.reset("StandInit")
    sim.push((0.0, 0.0, 0.0), 0.1, frame="torso")
    with pytest.raises(ValueError):
        sim.push((1.0, 0.0, 0.0), 0.1, frame="moon")


# --- joint tracking -------------------------------------------------------------------------------
@pytest.mark.parametrize("joint, delta", [("LShoulderRoll", 0.5), ("LShoulderPitch", -0.5), ("RElbowYaw", -0.5)])
def test_arm_step_settles_fast_without_overshoot(sim, joint, delta):
    sim.reset("StandInit")
    s = sim.run(0.2)
    i = sim.model.joint_index(joint)
    q0 = s.position[i]
    command = s.command.copy()
    command[i] += delta
    target = command[i]
    sim.set_command(command)
    t, q = [], []
    for _ in range(int(0.4 / sim.control_period_s)):
        s = sim.step()
        t.append(s.time_s)
        q.append(s.position[i])
    t, q = np.array(t) - t[0] + sim.control_period_s, np.array(q)
    overshoot = np.max((q - target) * np.sign(delta)) / abs(delta)
    assert overshoot < 0.10, f"overshoot {overshoot:.1%}"
    outside = np.flatnonzero(np.abs(q - target) > 0.02 * abs(delta))  # 2 % band
    settle = t[outside[-1] + 1] if outside.size else t[0]
    assert settle <= 0.2, f"{joint} settled in {settle:.3f} s"
    assert abs(q[0] - q0) < abs(q[-1] - q0)  # it moved
    assert np.max(np.abs(np.diff(q))) / sim.control_period_s <= sim.model.max_velocity[i] * 1.05


def test_commands_are_clamped_and_validated(sim):
    sim.reset("StandInit")
    command = sim.state.command.copy()
    i = sim.model.joint_index("HeadYaw")
    command[i] = 10.0
    sim.set_command(command)
    assert sim.step().command[i] == pytest.approx(sim.model.upper[i])
    with pytest.raises(ValueError):
        sim.set_command(np.zeros(5))
    bad = command.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError):
        sim.set_command(bad)
    with pytest.raises(KeyError):
        sim.set_joint_commands(["NoSuchJoint"], [0.0])


def test_hip_yaw_pitch_is_one_motor(sim):
    sim.reset("StandInit")
    left, r = sim.model.joint_index("LHipYawPitch"), sim.model.joint_index("RHipYawPitch")
    sim.set_joint_commands(["LHipYawPitch", "RHipYawPitch"], [-0.2, 0.3])  # R ignored
    for _ in range(50):
        s = sim.step()
        assert s.position[r] == pytest.approx(s.position[left], abs=0.1 * DEG)  # the coupling holds
    assert s.command[left] == s.command[r] == -0.2
    assert s.position[left] == pytest.approx(-0.2, abs=1 * DEG)
    assert s.effort[r] == s.effort[left]
    sim.set_joint_commands(["RHipYawPitch"], [0.0])  # alone, it drives the shared motor
    assert sim.step().command[left] == 0.0


def test_hands_follow_their_commands(sim):
    sim.reset("StandInit")
    i = sim.model.joint_index("LHand")
    sim.set_joint_commands(["LHand"], [1.0])
    s = sim.step()
    assert 0.25 < s.position[i] < 1.0  # speed-limited
    assert sim.run(0.3).position[i] == pytest.approx(1.0)
    sim.set_joint_stiffness(["LHand"], [0.0])
    sim.set_joint_commands(["LHand"], [0.0])
    assert sim.run(0.3).position[i] == pytest.approx(1.0)  # limp: stays where it is


def test_stiffness_scales_the_servo(sim):
    """Half stiffness: the same load gives about twice the position error (gain and torque scale)."""
    errors = []
    for stiffness in (1.0, 0.5):
        sim.reset("StandInit", stiffness)
        s = sim.run(1.0)
        i = sim.model.joint_index("LShoulderPitch")
        errors.append(abs(s.position[i] - s.command[i]))
        assert not s.fallen
    assert errors[1] == pytest.approx(2 * errors[0], rel=0.25)


def test_actuation_delay():
    sim = NaoSimulator(actuation_delay_cycles=3)
    i = sim.model.joint_index("HeadYaw")
    command = sim.state.command.copy()
    command[i] = 0.5
    sim.set_command(command)
    positions = [sim.step().position[i] for _ in range(6)]
    assert max(abs(p) for p in positions[:3]) < 1e-3
    assert positions[5] > 0.05


def test_deterministic():
    a, b = NaoSimulator(), NaoSimulator()
    for s in (a, b):
        s.push((3.0, 1.0, 0.0), 0.1)
        s.set_joint_commands(["HeadYaw"], [0.4])
    sa, sb = a.run(1.0), b.run(1.0)
    np.testing.assert_array_equal(sa.position, sb.position)
    np.testing.assert_array_equal(sa.fsr_left, sb.fsr_left)


def test_v6_cycle_and_stand():
    sim = NaoSimulator(NaoModel("V6"))
    assert sim.control_period_s == pytest.approx(0.012) and sim.substeps == 6
    s = sim.run(3.0)
    assert not s.fallen and s.torso_tilt_rad < 2 * DEG
    assert s.time_s == pytest.approx(0.012 * 250)
    with pytest.raises(ValueError):
        NaoSimulator(NaoModel("V6"), physics_step_s=0.005)  # 12 ms is not a whole number of 5 ms steps


def test_self_collision_stops_an_arm_driven_into_the_hip():
    """With self_collision the collision filter's shape pairs touch instead of passing through."""
    from nao_motion.collision.pairs import PairDistances, collision_pairs

    model = NaoModel()
    arm = [model.joint_index(n) for n in ("LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll")]
    q = posture(model, "StandInit")
    q[arm] = (1.294, 0.247, 0.182, -1.248)  # forearm through the hip and thigh
    fk = ForwardKinematics(model)
    assert PairDistances(fk, collision_pairs(model)).compute(fk.compute(q)).distance_m.min() < -0.02
    errors = {}
    for self_collision in (False, True):
        sim = NaoSimulator(model, self_collision=self_collision)
        sim.set_command(q)
        s = sim.run(1.0)
        assert not s.fallen
        errors[self_collision] = np.abs(s.position[arm] - q[arm]).max()
    assert errors[False] < 1 * DEG
    assert errors[True] > 5 * DEG
