"""Property-based fuzz (Hypothesis) of what decodes and validates outside input: whatever arrives,
each refuses with its own error type and a reason, or gives values the robot may be sent.

Derandomized (the same inputs every run, so CI never flakes on a new example); the numbers of
inputs tried are in ``--hypothesis-show-statistics``. Runs in a few seconds."""

import math
import struct

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nao_motion.collision.reference import parse_targets, parse_trajectory  # noqa: E402
from nao_motion.footsteps import FootstepError, FootstepPlanner  # noqa: E402
from nao_motion.joint_input import JointInputError, parse_joint_values  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.plausibility import PLAUSIBLE_MARGIN_RAD  # noqa: E402
from nao_motion.ros.parameters import ParameterSpec  # noqa: E402
from nao_motion.ros.tf_listener import pose_in_root  # noqa: E402

MODEL = NaoModel()
FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Numbers a buggy script sends: ordinary ones, the edges of float64, NaN and infinities.
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324, math.pi, 1e6]),
                    st.floats(-3.0, 3.0))
joint_names = st.one_of(st.sampled_from(MODEL.joint_names), st.text(max_size=12))


@FUZZ
@given(st.lists(joint_names, max_size=40), st.lists(numbers, max_size=40),
       st.sampled_from(["reject", "ignore"]))
def test_parse_joint_values_refuses_or_gives_finite_values_of_known_joints(names, values, unknown):
    try:
        parsed = parse_joint_values(MODEL, names, values, unknown_names=unknown)
    except JointInputError as err:
        assert str(err) and len(str(err)) < 600
        return
    assert len(set(parsed.indices.tolist())) == len(parsed.indices)
    assert np.all(np.isfinite(parsed.values)) and len(parsed.values) == len(parsed.indices)


def joint_state_bytes(names, positions, frame="") -> bytes:
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    msg = JointState(name=list(names), position=[float(v) for v in positions])
    msg.header.frame_id = frame
    return serialize_message(msg)


@st.composite
def joint_state_messages(draw):
    """Serialized JointStates, well formed or not, and the same bytes cut or overwritten."""
    n = draw(st.integers(0, 30))
    names = draw(st.lists(joint_names, min_size=n, max_size=n))
    positions = draw(st.lists(numbers, min_size=draw(st.sampled_from([n, max(0, n - 1), n + 1])),
                              max_size=n + 1))
    data = bytearray(joint_state_bytes(names, positions[:n + 1], draw(st.text(max_size=8))))
    mutation = draw(st.sampled_from(["none", "cut", "overwrite", "random"]))
    if mutation == "cut":
        data = data[:draw(st.integers(0, len(data)))]
    elif mutation == "overwrite" and data:
        at = draw(st.integers(0, len(data) - 1))
        patch = draw(st.binary(min_size=1, max_size=8))
        data[at:at + len(patch)] = patch
    elif mutation == "random":
        data = bytearray(draw(st.binary(max_size=200)))
    return bytes(data)


@FUZZ
@given(st.lists(joint_state_messages(), min_size=1, max_size=3))
def test_joint_state_reader_refuses_or_writes_plausible_positions_only(messages):
    from nao_motion.ros.cdr import JointStateReader

    reader = JointStateReader(MODEL)  # one reader: its cached name layout meets other messages
    for data in messages:
        q, received = np.full(MODEL.n_joints, np.nan), np.zeros(MODEL.n_joints, dtype=bool)
        try:
            reader.merge(data, q, received)
        except JointInputError:
            assert not received.any() and np.all(np.isnan(q))  # nothing of a refused message
            continue
        kept = q[received]
        assert np.all(np.isfinite(kept))
        assert np.all(kept >= MODEL.lower[received] - PLAUSIBLE_MARGIN_RAD)
        assert np.all(kept <= MODEL.upper[received] + PLAUSIBLE_MARGIN_RAD)


@FUZZ
@given(st.one_of(st.binary(max_size=400),
                 st.lists(numbers, min_size=37, max_size=37).map(
                     lambda v: b"\x00\x01\x00\x00" + struct.pack("<iII", 1, 2, 6) + b"torso\x00\x00\x00"
                     + struct.pack("<37d", *v))))
def test_imu_reader_gives_a_rotation_and_a_plausible_rate_or_none(data):
    from nao_motion.ros.cdr import ImuReader

    attitude, gyro = ImuReader().read(data)
    if attitude is not None:
        np.testing.assert_allclose(attitude @ attitude.T, np.eye(3), atol=1e-9)
    if gyro is not None:
        assert np.all(np.isfinite(gyro)) and np.all(np.abs(gyro) < 100.0)


@st.composite
def float_arrays(draw, labels):
    from std_msgs.msg import Float64MultiArray, MultiArrayDimension

    msg = Float64MultiArray()
    rows = draw(st.integers(0, 4))
    label = draw(st.sampled_from(labels + ["", "x"]))
    columns = len(label.split(",")) if draw(st.booleans()) else draw(st.integers(0, 20))
    msg.layout.dim = [MultiArrayDimension(label=draw(st.sampled_from(["steps", "step", ""])), size=rows,
                                          stride=rows * columns),
                      MultiArrayDimension(label=label, size=columns, stride=columns)][:draw(st.integers(0, 2))]
    msg.layout.data_offset = draw(st.integers(0, 12))
    size = msg.layout.data_offset + rows * columns if draw(st.booleans()) else draw(st.integers(0, 80))
    msg.data = draw(st.lists(st.one_of(numbers, st.sampled_from([1.0, -1.0, 0.0])), min_size=size, max_size=size))
    return msg


def request_labels():
    from nao_motion.ros.footstep_messages import REQUEST_FIELDS_SPEEDS, REQUEST_FIELDS_TIMES

    return [",".join(REQUEST_FIELDS_TIMES), ",".join(REQUEST_FIELDS_SPEEDS)]


def plan_labels():
    from nao_motion.ros.footstep_messages import PLAN_FIELDS

    return [",".join(PLAN_FIELDS)]


@FUZZ
@given(float_arrays(request_labels()), st.floats(0.0, 100.0))
def test_a_footstep_request_is_refused_or_planned_with_finite_steps(msg, now_s):
    from nao_motion.ros.footstep_messages import FootstepMessageError, decode_request

    planner = FootstepPlanner(now_s=now_s)
    try:
        request = decode_request(msg)
        method = planner.set_foot_steps_with_speed if request.with_speed else planner.set_foot_steps
        method(request.legs, request.poses, request.timing, request.clear_existing)
    except (FootstepMessageError, FootstepError) as err:
        assert str(err)
        return
    assert_finite_plan(planner)


@FUZZ
@given(float_arrays(plan_labels()))
def test_a_plan_is_refused_or_walkable(msg):
    from nao_motion.ros.footstep_messages import FootstepMessageError, decode_plan
    from nao_motion.walk.controller import PlanError, walk_plan

    try:
        plan = decode_plan(msg)
        walk_plan(plan.time_s, plan.left, plan.right, plan.steps)
    except (FootstepMessageError, PlanError) as err:
        assert str(err)


def assert_finite_plan(planner: FootstepPlanner) -> None:
    for step in planner.steps():
        assert math.isfinite(step.start_s) and math.isfinite(step.end_s) and step.end_s - step.start_s < 61.0
        assert step.target.is_finite() and abs(step.target.x) < 1e4 and abs(step.target.y) < 1e4


@FUZZ
@given(st.sampled_from(["move", "move_toward", "move_to"]), st.lists(numbers, min_size=3, max_size=3))
def test_locomotion_commands_are_refused_or_planned_with_finite_steps(command, values):
    planner = FootstepPlanner(now_s=0.0)
    try:
        getattr(planner, command)(*values)
    except FootstepError as err:
        assert str(err)
        return
    planner.advance_to(1.0)
    assert_finite_plan(planner)


@FUZZ
@given(st.lists(joint_names, max_size=8), st.lists(numbers, max_size=8), st.lists(numbers, max_size=8),
       st.lists(st.lists(numbers, max_size=8), max_size=4))
def test_targets_and_trajectories_are_refused_or_within_the_limits(names, positions, velocities, points):
    try:
        targets = parse_targets(MODEL, names, positions, velocities, 0.3)
    except JointInputError:
        pass
    else:
        i = targets.indices
        assert np.all((targets.positions >= MODEL.lower[i]) & (targets.positions <= MODEL.upper[i]))
        assert np.all(np.isfinite(targets.speeds_rps) & (targets.speeds_rps > 0.0))
    times = [float(k) for k in range(len(points))]
    try:
        trajectory = parse_trajectory(MODEL, names, times, points)
    except JointInputError:
        return
    assert np.all(np.isfinite(trajectory.positions))


@st.composite
def parameter_specs(draw):
    kind = draw(st.sampled_from([float, int, str, bool]))
    if kind is float:
        low = draw(st.floats(-10.0, 10.0))
        return ParameterSpec(low, "x", minimum=low, maximum=low + draw(st.floats(0.0, 10.0)),
                             exclusive_maximum=draw(st.booleans()))
    if kind is int:
        low = draw(st.integers(-10, 10))
        return ParameterSpec(low, "x", minimum=low, maximum=low + draw(st.integers(0, 10)))
    if kind is str:
        return ParameterSpec("a", "x", choices=("a", "b"))
    return ParameterSpec(False, "x")


@FUZZ
@given(parameter_specs(), st.one_of(numbers, st.integers(), st.text(max_size=4), st.booleans(),
                                    st.lists(st.text(max_size=3), max_size=3)))
def test_a_parameter_spec_refuses_with_a_reason_or_takes_a_value_of_its_range(spec, value):
    reason = spec.refusal("p", value)
    if reason:
        assert reason.startswith("p ")
        return
    assert type(value) is type(spec.default)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        assert math.isfinite(value) and spec.minimum <= value <= spec.maximum
    if spec.choices:
        assert value in spec.choices


@FUZZ
@given(st.dictionaries(st.sampled_from("abcdefg"), st.sampled_from("abcdefgh"), max_size=7),
       st.sampled_from("abcdefgh"), st.sampled_from("abcdefgh"))
def test_a_tf_lookup_ends_whatever_the_tree_even_a_cyclic_one(parent_of, frame, root):
    """/tf holding a cycle between frames (a misconfigured publisher) must not hang the planner's
    goal_pose lookup: KeyError, or a pose."""
    def local(child):
        t = np.eye(4)
        t[0, 3] = ord(child)  # each edge its own translation
        return t

    try:
        pose = pose_in_root(parent_of, local, frame, root)
    except KeyError as err:
        assert "cycle" in str(err) or "not connected" in str(err)
        return
    assert pose.shape == (4, 4) and np.all(np.isfinite(pose))
