"""Bad input in the core (issue 16): each defect the fuzz of the running suite found, at the level
of the object the node calls. Each of these failed before the fix."""

import math
import re

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner, InvalidCommandError, Leg, Pose2D
from nao_motion.joint_input import JointInputError, parse_joint_values
from nao_motion.model import NaoModel
from nao_motion.plausibility import MAX_ANGULAR_VELOCITY_RADPS, PLAUSIBLE_MARGIN_RAD, max_fsr_force_n, plausible_fsr
from nao_motion.postures import posture
from nao_motion.ros.conversions import imu_attitude
from nao_motion.ros.parameters import ParameterSpec

MODEL = NaoModel()


def test_duplicate_names_are_refused_with_a_short_reason():
    """Was: a reason quoting every one of 5,000 duplicates (44 kB a log line), found by a count
    per name (quadratic: seconds for one message)."""
    names = [f"J{i % 50}" for i in range(100)]
    with pytest.raises(JointInputError, match="duplicate joint names") as refused:
        parse_joint_values(MODEL, names, np.zeros(len(names)), unknown_names="ignore")
    assert len(str(refused.value)) < 200 and "45 more" in str(refused.value)


def test_ten_thousand_names_are_refused_on_their_count_before_any_per_name_work(monkeypatch):
    """Was: 10,000 duplicated names still cost about 15 ms a message (each name decoded, then
    counted): more than a motion cycle, for every such message."""
    from nao_motion.joint_input import max_joint_names
    from nao_motion.ros.cdr import JointStateReader

    names = [f"J{i % 5000}" for i in range(10_000)]
    bound = f"more than {max_joint_names(MODEL)} (4 x the model's {MODEL.n_joints} joints)"
    with pytest.raises(JointInputError, match=re.escape(bound)) as refused:
        parse_joint_values(MODEL, names, np.zeros(len(names)), unknown_names="ignore")
    assert len(str(refused.value)) < 100
    reader = JointStateReader(MODEL)
    monkeypatch.setattr(JointStateReader, "_names", staticmethod(lambda *_: pytest.fail("names decoded")))
    values, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    with pytest.raises(JointInputError, match=re.escape(bound)):
        reader.merge(joint_state_bytes(names, np.zeros(len(names))), values, received)
    assert not received.any()
    allowed = list(MODEL.joint_names) + [f"Finger{i}" for i in range(max_joint_names(MODEL) - MODEL.n_joints)]
    assert len(parse_joint_values(MODEL, allowed, np.zeros(len(allowed)), unknown_names="ignore").ignored_names) \
        == len(allowed) - MODEL.n_joints  # up to the bound, extra joints are ignored as before


def joint_state_bytes(names, positions) -> bytes:
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    return serialize_message(JointState(name=list(names), position=[float(v) for v in positions]))


@pytest.mark.parametrize("value", [1e308, -1e308, 3.0e3])
def test_a_finite_but_absurd_joint_angle_is_refused_like_nan(value):
    """Was: 1e308 in joint_states taken as the measured pose (the balancer's command jumped by
    3 rad and the robot fell)."""
    from nao_motion.ros.cdr import JointStateReader

    reader = JointStateReader(MODEL)
    q = posture(MODEL, "StandInit")
    q[MODEL.joint_index("LAnklePitch")] = value
    measured, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    with pytest.raises(JointInputError, match=r"implausible position .*LAnklePitch"):
        reader.merge(joint_state_bytes(MODEL.joint_names, q), measured, received)
    assert not received.any() and not measured.any()  # nothing of it is kept


def test_a_joint_a_little_beyond_its_range_is_a_reading():
    from nao_motion.ros.cdr import JointStateReader

    q = posture(MODEL, "StandInit")
    i = MODEL.joint_index("LAnklePitch")
    q[i] = MODEL.upper[i] + 0.5 * PLAUSIBLE_MARGIN_RAD
    measured, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    JointStateReader(MODEL).merge(joint_state_bytes(MODEL.joint_names, q), measured, received)
    assert measured[i] == q[i]


def test_imu_and_fsr_readings_beyond_the_hardware_are_refused():
    from nao_motion.ros.cdr import ImuReader
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import Imu

    assert imu_attitude([0.0, 0.0, 0.0, 1e308]) is None  # finite, but no unit quaternion
    assert imu_attitude([0.0, 0.0, 0.0, 1.0]) is not None
    imu = Imu()
    imu.header.frame_id = "torso"
    imu.orientation.w = 1.0
    imu.angular_velocity.x = 1.5 * MAX_ANGULAR_VELOCITY_RADPS
    attitude, gyro = ImuReader().read(serialize_message(imu))
    assert attitude is not None and gyro is None
    limit = max_fsr_force_n(MODEL)
    assert plausible_fsr(np.array([10.0, 10.0, 5.0, 0.0]), limit)
    assert not plausible_fsr(np.array([1e308, 0.0, 0.0, 0.0]), limit)
    assert not plausible_fsr(np.array([-50.0, 0.0, 0.0, 0.0]), limit)


def test_a_pose_whose_quaternion_overflows_is_refused_not_read_as_no_rotation():
    """Was: a goal_pose quaternion (0, 0, 1e308, 1e308) overflowed in the norm, was read as the
    identity (theta 0) and walked. The goal_pose, foot references, torso pose and obstacle
    markers all decode through pose_matrix_of."""
    from nao_motion.ros.conversions import pose_matrix_of, pose_refusal
    from nao_motion.spatial import yaw_of

    absurd = (1.0, 0.0, 0.0, 0.0, 0.0, 1e308, 1e308)
    assert pose_matrix_of(absurd) is None
    reason = pose_refusal(absurd)
    assert reason is not None and "norm" in reason and "1e+06" in reason
    for values in ((1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0), (1.0, 0.0, 0.0, 0.0, 0.0, 1e5, 1e5)):  # unnormalised: taken
        assert pose_refusal(values) is None
        assert yaw_of(pose_matrix_of(values)) == pytest.approx(math.pi / 2)
    assert pose_refusal((0.0,) * 7) == "zero orientation quaternion"
    assert pose_refusal((math.nan,) + (0.0,) * 5 + (1.0,)) == "non-finite position or orientation"


def test_a_quaternion_that_is_no_rotation_raises_a_value_error_not_a_division_by_zero():
    """Inputs are checked before they reach the conversion (pose_refusal, plausible_quaternion);
    one that slipped through (a zero quaternion on /tf killed the footstep planner with a
    ZeroDivisionError) is a ValueError, which the nodes' handlers refuse, never a NaN rotation."""
    from nao_motion.spatial import rotation_from_quaternion_xyzw, transform_from_quaternion_xyzw

    for q in ((0.0, 0.0, 0.0, 0.0), (math.nan, 0.0, 0.0, 1.0), (math.inf, 0.0, 0.0, 1.0)):
        with pytest.raises(ValueError, match="no rotation"):
            rotation_from_quaternion_xyzw(q)
        with pytest.raises(ValueError, match="no rotation"):
            transform_from_quaternion_xyzw(q, (0.0, 0.0, 0.0))
    assert np.allclose(rotation_from_quaternion_xyzw((0.0, 0.0, 2.0, 0.0)), np.diag([-1.0, -1.0, 1.0]))


def test_last_pose_matrix_is_pose_matrix_of_converted_once_per_pose():
    """The whole body's sole references: a pose sent again is not converted again; any other
    pose (-0.0 for 0.0 included) is, and a refused one gives None as pose_matrix_of does."""
    from nao_motion.ros.conversions import LastPoseMatrix, pose_matrix_of

    matrix_of = LastPoseMatrix()
    stance = np.array([0.1, 0.05, 0.0, 0.0, 0.0, math.sin(0.2), math.cos(0.2)])
    first = matrix_of(stance)
    assert np.array_equal(first, pose_matrix_of(stance)) and not first.flags.writeable
    assert matrix_of(stance.copy()) is first
    negative_zero = stance.copy()
    negative_zero[2] = -0.0
    assert matrix_of(negative_zero) is not first
    assert matrix_of([0.0, 0.0, math.nan, 0.0, 0.0, 0.0, 1.0]) is None
    assert matrix_of([0.0] * 7) is None  # no rotation


def test_a_push_that_blows_the_physics_up_does_not_send_time_back(tmp_path, monkeypatch):
    """Was: MuJoCo reset itself on a 1e308 N push, sim time went back to 0 on /clock."""
    from nao_motion.sim.simulator import NaoSimulator, SimulationDiverged

    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warning to MUJOCO_LOG.TXT in the working directory
    sim = NaoSimulator(MODEL)
    sim.step(5)
    t0 = sim.time_s
    sim.push([1e308, 0.0, 0.0], 0.1)
    with pytest.raises(SimulationDiverged, match="unstable"):
        sim.step(3)
    assert sim.time_s >= t0
    state = sim.reset(None, 1.0, keep_time=True)  # what the node does
    assert state.time_s >= t0 and sim.step().time_s > state.time_s


@pytest.mark.parametrize("command", [
    lambda p: p.move(1e308, 0.0, 0.0),
    lambda p: p.move(0.05, 0.0, -1e308),
    lambda p: p.move_to(1e308, 0.0, 0.0),
    lambda p: p.set_foot_steps(["LLeg"], [[1e308, 0.1, 0.0]], [0.6], True),
    lambda p: p.set_foot_steps(["LLeg"], [[0.02, 0.1, 0.0]], [1e308], True),
    lambda p: p.set_foot_steps(["LLeg", "RLeg"], [[0.02, 0.1, 0.0], [0.02, -0.1, 0.0]], [0.6, 1e6], True),
])
def test_absurd_footstep_commands_are_refused_not_clipped(command):
    """Was: 1e308 in cmd_vel, a footstep or a step time clipped to the gait and walked."""
    planner = FootstepPlanner(now_s=0.0)
    with pytest.raises(InvalidCommandError, match="refused, not clipped"):
        command(planner)
    assert planner.steps() == ()


def test_footstep_commands_within_reach_of_clipping_are_still_clipped():
    planner = FootstepPlanner(now_s=0.0)
    planner.move(0.5, 0.0, 0.0)  # five times NAO's speed: NAOqi clips it, so do we
    assert planner.steps()
    planner.set_foot_steps(["LLeg"], [Pose2D(0.2, 0.1, 0.0)], [0.6], True)
    assert planner.steps()[-1].leg is Leg.LEFT


@pytest.mark.parametrize("name, target", [("LArm", [1e308, 0.1, 0.3]), ("RArm", [0.1, -0.1, -5.0]),
                                          ("Head", [0.0, 1e308, 0.0])])
def test_absurd_effector_targets_are_refused(name, target):
    """Was: 1e308 given to the QP (iteration limit, the robot fell)."""
    from nao_motion.wholebody.balancer import WholeBodyBalancer, WholeBodySettings

    balancer = WholeBodyBalancer(MODEL)
    balancer.reset(posture(MODEL, "StandInit"))
    balancer.apply(WholeBodySettings(effectors=frozenset({name})))
    with pytest.raises(ValueError, match="no pose of the robot comes near it"):
        balancer.set_effector_target(name, np.array(target))


@pytest.mark.parametrize("spec, good, bad", [
    (ParameterSpec(0.5, "a timeout", minimum=0.0, maximum=60.0, exclusive_minimum=True),
     [1e-3, 60.0], [math.inf, math.nan, 0.0, -1.0, 61.0, 1, "0.5", True]),
    (ParameterSpec(0, "cycles", minimum=0, maximum=10), [0, 10], [-3, 1000, 1.0, False]),
    (ParameterSpec("StandInit", "a posture", choices=("StandInit", "Crouch")), ["Crouch"], ["Sit", 1]),
    (ParameterSpec(["Arms"], "chains", choices=("Arms", "LArm")), [[], ["LArm", "Arms"]], [["Head"], "Arms"]),
    (ParameterSpec(math.nan, "override", minimum=0.0, maximum=1.0, nan_means="unset"), [math.nan, 0.5],
     [math.inf, 2.0]),
])
def test_a_parameter_spec_takes_its_range_and_refuses_the_rest(spec, good, bad):
    for value in good:
        assert spec.refusal("p", value) is None, value
    for value in bad:
        assert spec.refusal("p", value), value
    assert spec.range_text() in spec.summary()
