"""The balancer driving the simulated NAO (MuJoCo, in process, no ROS): the two NAOqi examples'
motions and reaches beyond the arm. Each cycle: the balancer's command -> one physics cycle ->
the measured joints back into the balancer, as the node does."""

import math

import numpy as np
import pytest

pytest.importorskip("mujoco")

from nao_motion import spatial  # noqa: E402
from nao_motion.collision.reference import JointReference, Trajectory  # noqa: E402
from nao_motion.interpolation import merged_smooth_keys  # noqa: E402
from nao_motion.kinematics import FRAME_ROBOT  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.sim.simulator import NaoSimulator  # noqa: E402
from nao_motion.wholebody.balancer import Outcome, WholeBodyBalancer, WholeBodySettings  # noqa: E402
from nao_motion.wholebody.modes import FootState  # noqa: E402
from nao_motion.wholebody.support_polygon import sole_corners_in_sole, support_polygon  # noqa: E402

MODEL = NaoModel()
DEG = np.pi / 180.0


class Run:
    """A standing simulated NAO (StandInit) and an enabled balancer with `settings`."""

    def __init__(self, settings: WholeBodySettings):
        self.sim = NaoSimulator(MODEL)
        self.state = self.sim.step(50)  # settle on the floor
        self.balancer = b = WholeBodyBalancer(MODEL)
        b.reset(self.state.position)
        b.apply(settings)
        b.set_enabled(True, q_measured=self.state.position, torso_attitude=self._attitude())
        self.q0 = b.q.copy()
        self.time_s = 0.0

    def _attitude(self) -> np.ndarray:
        return spatial.rotation_from_quaternion_xyzw(self.state.imu_orientation_xyzw)

    def cycle(self, wish: np.ndarray):
        result = self.balancer.step(wish, q_measured=self.state.position)
        assert result.outcome in (Outcome.SOLVED, Outcome.RELAXED), result.reason
        self.sim.set_command(result.q)
        self.state = self.sim.step()
        self.time_s += MODEL.cycle_time_s
        assert not self.state.fallen, f"fell at t = {self.time_s:.2f} s"
        return result

    def measured_world(self, frame: str) -> np.ndarray:
        """A frame's true pose in the simulator's world (ground-truth torso, measured joints)."""
        torso = spatial.transform(spatial.rotation_from_quaternion_xyzw(self.state.torso_orientation_xyzw),
                                  self.state.torso_position)
        return torso @ self.balancer.fk.pose(self.balancer.fk.compute(self.state.position), frame)

    def measured_com_margin(self) -> float:
        """True COM's distance to the soles' polygon edges (m, > 0 inside)."""
        fk = self.balancer.fk
        state = fk.compute(self.state.position)
        torso = spatial.transform(spatial.rotation_from_quaternion_xyzw(self.state.torso_orientation_xyzw),
                                  self.state.torso_position)
        com = torso[:3, :3] @ state.com_torso_m + torso[:3, 3]
        feet = {"left": self.measured_world("l_sole"), "right": self.measured_world("r_sole")}
        return support_polygon(feet, ("left", "right"), sole_corners_in_sole(MODEL)).margin(com[:2])


def interpolation(q0: np.ndarray, joints: list[str], angles_rad: list[list[float]], times_s: list[list[float]]):
    """The articular wish of the ALMotion client's angleInterpolation (NAOqi's smooth path from q0
    at t = 0), as the collision filter's reference follows it; asked at increasing times."""
    indices = np.array([MODEL.joint_index(name) for name in joints])
    times, positions, speeds = merged_smooth_keys(q0[indices], [np.array(ts, dtype=float) for ts in times_s],
                                                  [np.array(a, dtype=float) for a in angles_rad])
    reference = JointReference(MODEL)
    reference.reset(q0)
    reference.follow(Trajectory(indices, times, positions, speeds), q0, 0.0)

    def wish(t: float) -> np.ndarray:
        return MODEL.mimic_hip_yaw_pitch(reference.sample(t).copy())
    return wish


def test_wb_foot_state_example_keeps_the_soles_flat_while_hip_yaw_pitch_turns():
    # almotion_wbFootState.py: Legs in Plane, LHipYawPitch -45, 10, 0 deg at 3, 6, 9 s.
    run = Run(WholeBodySettings(left_foot=FootState.PLANE, right_foot=FootState.PLANE))
    wish = interpolation(run.q0, ["LHipYawPitch"], [[-45 * DEG, 10 * DEG, 0.0]], [[3.0, 6.0, 9.0]])
    hyp = MODEL.joint_index("LHipYawPitch")
    measured_hyp, worst_tilt = [], 0.0
    while run.time_s < 10.0:
        run.cycle(wish(run.time_s + MODEL.cycle_time_s))
        measured_hyp.append(run.state.position[hyp])
        for sole in ("l_sole", "r_sole"):
            roll, pitch, _ = spatial.rpy_from_rotation(run.measured_world(sole)[:3, :3])
            worst_tilt = max(worst_tilt, abs(roll), abs(pitch))
    assert worst_tilt < 1.0 * DEG
    assert min(measured_hyp) < -40 * DEG and max(measured_hyp[450:]) > -1 * DEG  # the feet resist the way back
    assert abs(measured_hyp[-1]) < 2 * DEG


def test_wb_enable_balance_constraint_example_bends_the_knees_without_falling():
    # almotion_wbEnableBalanceConstraint.py: feet Fixed, balance on Legs, knees 0 then 40 deg.
    run = Run(WholeBodySettings(balance_enabled=True, balance_support="Legs"))
    knees = ["LKneePitch", "RKneePitch"]
    wish = interpolation(run.q0, knees, [[0.0, 40 * DEG]] * 2, [[5.0, 10.0]] * 2)
    worst_margin = np.inf
    straightest = np.inf
    while run.time_s < 11.0:
        result = run.cycle(wish(run.time_s + MODEL.cycle_time_s))
        assert result.com_margin_m > run.balancer.config.margin_m - 1e-4
        worst_margin = min(worst_margin, run.measured_com_margin())
        straightest = min(straightest, run.state.position[MODEL.joint_index("LKneePitch")])
    assert worst_margin > 0.0  # the real COM stayed over the feet
    assert straightest < 10 * DEG  # the legs did straighten
    for knee in knees:
        assert run.state.position[MODEL.joint_index(knee)] == pytest.approx(40 * DEG, abs=2 * DEG)


def test_an_arm_reaching_30cm_ahead_leans_the_robot_to_the_arms_reach():
    run = Run(WholeBodySettings(effectors=frozenset({"LArm"})))
    b = run.balancer
    state = b.fk.compute(b.q)
    torso_x = spatial.inverse(b.fk.ground_frame(state))[0, 3]
    hand0 = b.fk.position_in_space(state, "LArm", FRAME_ROBOT)[:3]
    target = b.set_effector_target("LArm", np.array([torso_x + 0.30, hand0[1], 0.30]))  # resized: beyond reach
    while run.time_s < 6.0:
        run.cycle(run.q0)
    measured_hand = b.fk.position_in_space(b.fk.compute(run.state.position), "LArm", FRAME_ROBOT)[:3]
    assert measured_hand[0] > hand0[0] + 0.1  # the robot leant forward and reached out
    assert run.measured_com_margin() > 0.0  # and stands
    hand = b.fk.position_in_space(b.fk.compute(b.q), "LArm", FRAME_ROBOT)[:3]
    assert np.linalg.norm(hand - target) < 1e-3


def test_repeated_reaches_beyond_the_arm_stop_at_its_reach_and_the_robot_stands():
    """A script reaching 3 cm further ahead and up, ten times (each target from where the hand
    is): the fifth toppled the robot over its toes while the QP chased a target beyond the arm."""
    run = Run(WholeBodySettings())
    b = run.balancer
    for _ in range(10):
        b.apply(WholeBodySettings(effectors=frozenset({"RArm"})))
        hand = b.fk.position_in_space(b.fk.compute(run.state.position), "RArm", FRAME_ROBOT)[:3]
        b.set_effector_target("RArm", hand + [0.03, 0.0, 0.03])
        for _ in range(150):
            run.cycle(run.q0)
        b.apply(WholeBodySettings())
        for _ in range(20):
            run.cycle(run.q0)
        assert math.degrees(run.state.torso_tilt_rad) < 10.0 and run.measured_com_margin() > 0.0


@pytest.mark.parametrize("target", [np.zeros(3), np.array([0.3, 0.1, 0.3])])
def test_disabling_after_an_effector_reach_holds_the_pose_the_balancer_left(target):
    """wbEnable(False) after effector control (a target at the floor between the feet, the
    fuzzing's 'empty' target; one ahead): the robot keeps the pose the balancer left it in, as
    NAOqi's, and does not fall. Returning at once to the pre-reach wish without balance, it fell.
    A joint the user then commands moves there."""
    run = Run(WholeBodySettings(balance_enabled=True, effectors=frozenset({"LArm"})))
    b = run.balancer
    b.set_effector_target("LArm", target)
    while run.time_s < 3.0:
        run.cycle(run.q0)
    held = b.q.copy()
    b.set_enabled(False)
    head = MODEL.joint_index("HeadYaw")
    wish = run.q0.copy()
    while run.time_s < 6.0:
        if run.time_s > 4.5:
            wish[head] = 0.5
        result = b.step(wish, q_measured=run.state.position)
        run.sim.set_command(result.q)
        run.state = run.sim.step()
        run.time_s += MODEL.cycle_time_s
        assert not run.state.fallen, f"fell at t = {run.time_s:.2f} s"
    moved = np.abs(b.q - held)
    moved[head] = 0.0
    assert moved.max() < 1e-9  # held where the balancer left it
    assert b.q[head] == pytest.approx(0.5)  # a new command is followed
    assert run.measured_com_margin() > 0.0


@pytest.mark.parametrize("balancing", [False, True], ids=["passing_through", "balancing"])
@pytest.mark.parametrize("version", ["V5", "V6"])
def test_standing_up_from_crouch_at_full_speed_keeps_the_robot_up(version, balancing):
    """goToPosture("StandInit", 1.0) from Crouch, through the collision filter and the whole body
    as the suite runs it: disabled (passing through at its speed limit), or balancing with the
    constraint on (the QP's articular task). The motion asks for twice the speed limit: clipped
    joint by joint, the knees came late, the legs' shape broke and the robot fell on its back from
    0.6 of the motors' speed; slowed by one factor (paced per chain in the QP), it stands up."""
    from nao_motion.postures import posture
    from nao_motion.sim.walking import SimulatedWalk

    model = NaoModel(version)
    walk = SimulatedWalk(model, NaoSimulator(model, initial_posture="Crouch"))
    if balancing:
        walk.balancer.apply(WholeBodySettings(balance_enabled=True))
        walk.balancer.set_enabled(True, q_measured=walk.state.position, torso_attitude=walk._imu_attitude())
    stand_init, full_speed = posture(model, "StandInit"), model.max_velocity.tolist()
    duration_s = walk.send_joint_targets(list(model.joint_names), stand_init, full_speed)
    for _ in range(int(duration_s / model.cycle_time_s) + 250):
        walk.cycle()
    assert walk.worst_tilt_deg < 10.0 and not walk.state.fallen
    assert walk.state.torso_position[2] > 0.3  # standing, not crouched


@pytest.mark.parametrize("version", ["V5", "V6"])
def test_a_posture_after_reaches_starts_from_where_the_legs_are(version):
    """Over the left leg, three reaches up to the arm's bound straighten the legs (the knees at
    -0.09 rad) away from their wish (StandInit's 0.66); goToPosture("Crouch", 0.6) then, balancing.
    Paced from the old wish, the legs first went there at the speed limit (0.1 rad against the
    way to Crouch, tilt 8 deg; over nao_lola, 14 deg and a fall); from where they are, they go
    straight to Crouch."""
    from nao_motion.postures import posture
    from nao_motion.sim.walking import SimulatedWalk

    model = NaoModel(version)
    walk = SimulatedWalk(model)
    b = walk.balancer
    b.apply(WholeBodySettings(balance_enabled=True))
    b.set_enabled(True, q_measured=walk.state.position, torso_attitude=walk._imu_attitude())

    def run(duration_s: float) -> None:
        for _ in range(int(duration_s / model.cycle_time_s)):
            walk.cycle()

    run(0.5)
    b.go_to_balance("LLeg", 1.5)
    run(2.0)
    b.apply(WholeBodySettings())  # the COM left over the left foot
    b.apply(WholeBodySettings(effectors=frozenset({"RArm"})))
    for z_m in (0.40, 0.44, 0.48):
        b.set_effector_target("RArm", np.array([0.28, -0.05, z_m]))
        run(2.5)
    b.apply(WholeBodySettings())  # effector control ends; its balance on Legs is kept
    assert b.balance_support == "Legs"
    crouch, start = posture(model, "Crouch"), b.q.copy()
    legs = np.array([joint.chain.endswith("Leg") for joint in model.joints])
    assert np.max(np.abs(start - b.qp.articular.wish)[legs]) > 0.3  # the legs away from their wish
    walk.worst_tilt_deg = 0.0
    duration_s = walk.send_joint_targets(list(model.joint_names), crouch, speed_fraction=0.6)
    away_rad, before = np.zeros(model.n_joints), start.copy()
    for _ in range(int((duration_s + 1.0) / model.cycle_time_s)):
        walk.cycle()
        away_rad += np.maximum((before - b.q) * np.sign(crouch - start), 0.0)
        np.copyto(before, b.q)
    assert away_rad[legs].max() < 0.05
    assert walk.worst_tilt_deg < 6.0 and not walk.state.fallen
    assert np.max(np.abs(b.q - crouch)[legs]) < 0.05  # in Crouch (balanced: within 0.03 rad)
