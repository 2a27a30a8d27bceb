"""nao_motion.ros.cdr: images refilled in place give the messages rclpy would have serialized;
the JointState reader reads what rclpy deserializes and refuses what parse_joint_values refuses."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("rclpy")

from geometry_msgs.msg import PoseArray, Pose, TransformStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.serialization import deserialize_message, serialize_message  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float32MultiArray, MultiArrayDimension  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from nao_motion.collision.reference import parse_targets, targets_of  # noqa: E402
from nao_motion.joint_input import MAX_COMMAND_POSITION_RAD, JointInputError, parse_joint_values  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.ros.cdr import Float32TailReader, JointStateReader, MessageImage, frame_id_of  # noqa: E402
from nao_motion.ros.node_tools import TransformsImage  # noqa: E402

MODEL = NaoModel("V5")


def test_joint_state_image_equals_the_refilled_message():
    names = list(MODEL.joint_names)
    msg = JointState(name=names, position=[0.0] * len(names), velocity=[0.0] * len(names))
    msg.header.frame_id = "torso"
    image = MessageImage(msg, ["position", "velocity"], ["header.stamp"])
    values = np.linspace(-1.0, 1.0, 2 * len(names))
    image.set_floats(values)
    image.set_stamp(1234, 567_000_000)
    msg.position, msg.velocity = values[:len(names)].tolist(), values[len(names):].tolist()
    msg.header.stamp.sec, msg.header.stamp.nanosec = 1234, 567_000_000
    assert deserialize_message(bytes(image.buffer), JointState) == msg


def test_a_marker_found_twice_is_made_again_with_other_markers(monkeypatch):
    """Stale bytes of an earlier serialization can hold a marker where the serializer writes
    nothing: the image is made again with other markers, not refused (a kinematics node failed
    to start so now and then)."""
    from nao_motion.ros import cdr

    marker = cdr._float_marker
    monkeypatch.setattr(cdr, "_float_marker", lambda k, salt=0: marker(0 if salt == 0 else k, salt))
    msg = JointState(name=["HeadYaw", "HeadPitch"], position=[0.25, -0.5])
    image = MessageImage(msg, ["position"])  # with the first markers, every field looks like the first
    image.set_floats(np.array([0.75, 0.125]))
    assert list(deserialize_message(bytes(image.buffer), JointState).position) == [0.75, 0.125]
    monkeypatch.setattr(cdr, "_float_marker", lambda k, salt=0: marker(0, salt))
    with pytest.raises(ValueError, match="not found exactly once"):
        MessageImage(msg, ["position"])


def test_nested_fields_and_message_fields_expand_in_declaration_order():
    feet = PoseArray(poses=[Pose(), Pose()])
    feet.header.frame_id = "wb_world"
    image = MessageImage(feet, [f"poses[{i}].{f}" for i in (0, 1) for f in ("position", "orientation")],
                         ["header.stamp"])
    assert image.float_count == 14
    image.set_floats(np.arange(14.0))
    back = deserialize_message(bytes(image.buffer), PoseArray)
    assert (back.poses[1].position.x, back.poses[1].orientation.w) == (7.0, 13.0)
    assert back.header.frame_id == "wb_world"


def test_odometry_image_keeps_the_values_it_was_made_with():
    odom = Odometry()
    odom.header.frame_id, odom.child_frame_id = "odom", "base_footprint"
    odom.pose.pose.orientation.w = 1.0
    image = MessageImage(odom, ["pose.pose.position", "pose.pose.orientation"], ["header.stamp"])
    back = deserialize_message(bytes(image.buffer), Odometry)
    assert back.pose.pose.orientation.w == 1.0 and back.child_frame_id == "base_footprint"


def test_transforms_image_rows_are_translation_then_quaternion():
    transforms = [TransformStamped(child_frame_id=f"link{i}") for i in range(3)]
    for t in transforms:
        t.header.frame_id = "base_link"
    image = TransformsImage(TFMessage(transforms=transforms))
    image.values[2] = [1.0, 2.0, 3.0, 0.0, 0.0, math.sin(0.5), math.cos(0.5)]

    class Capture:
        def publish(self, data: bytes) -> None:
            self.data = data

    capture = Capture()
    image.publish(capture)
    back = deserialize_message(capture.data, TFMessage)
    t = back.transforms[2].transform
    assert (t.translation.z, t.rotation.w) == (3.0, math.cos(0.5))
    assert back.transforms[0].transform.rotation.w == 1.0  # identity until filled


def serialized(names, positions) -> bytes:
    return serialize_message(JointState(name=names, position=positions))


def test_reader_reads_what_rclpy_deserializes():
    names = list(MODEL.joint_names)[::-1] + ["LFinger21"]
    # distinct values, each within its joint's range (a sensor's reading)
    low, high = np.append(MODEL.lower[::-1], -1.0), np.append(MODEL.upper[::-1], 1.0)
    positions = low + (high - low) * np.linspace(0.1, 0.9, len(names))
    reader = JointStateReader(MODEL)
    q, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    msg = JointState(name=names, position=positions.tolist())
    msg.header.stamp.sec, msg.header.stamp.nanosec = 12, 34
    msg.header.frame_id = "odd length"
    stamp = reader.merge(serialize_message(msg), q, received)
    expected = parse_joint_values(MODEL, names, positions, unknown_names="ignore")
    assert (stamp.sec, stamp.nanosec) == (12, 34)
    assert received.all() and np.array_equal(q[expected.indices], expected.values)
    assert reader.ignored_names == ["LFinger21"]
    # the same names again: read from the cached layout
    q2 = np.zeros(MODEL.n_joints)
    reader.merge(serialize_message(msg), q2, received)
    assert np.array_equal(q, q2)


def test_readers_alike_decode_the_same_bytes_once():
    """Composed nodes each read the same joint_states bytes: a reader like the one that decoded
    them (same rules, a model with the same joints and limits) takes that decoding; another
    kind of reader, or other bytes, are decoded afresh; the shared positions are read-only."""
    msg = JointState(name=["HeadYaw", "LFinger21"], position=[0.25, 0.5])
    msg.header.stamp.sec = 7
    data = serialize_message(msg)
    first, second = JointStateReader(MODEL), JointStateReader(NaoModel("V5"))
    stamp, indices, kept, _ = first.read(data)
    stamp2, indices2, kept2, _ = second.read(data)
    assert kept2 is kept and stamp2.sec == stamp.sec == 7 and second.ignored_names == ["LFinger21"]
    assert not kept.flags.writeable
    assert JointStateReader(MODEL, plausible=False).read(data)[2] is not kept
    assert second.read(serialize_message(msg))[2] is not kept  # equal bytes, another message
    q = np.zeros(MODEL.n_joints)
    second.merge(data, q, np.zeros(MODEL.n_joints, dtype=bool))
    assert q[MODEL.joint_index("HeadYaw")] == 0.25
    # A node's other topic read in between (its joint_commands) leaves the first decoding to the next node.
    states = serialized(["HeadYaw"], [0.3])
    kept = JointStateReader(MODEL).read(states)[2]
    JointStateReader(MODEL).read(serialized(["HeadPitch"], [0.1]))
    assert JointStateReader(NaoModel("V5")).read(states)[2] is kept


@pytest.mark.parametrize("names, positions, reason", [
    (["HeadYaw", "HeadYaw"], [0.0, 0.1], "duplicate"),
    (["HeadYaw", "HeadPitch"], [0.0], "2 joint names but 1 position"),
    (["HeadYaw"], [math.nan], "non-finite"),
    (["HeadYaw"], [math.inf], "non-finite"),
])
@pytest.mark.parametrize("plausible", [True, False], ids=["sensor stream", "commands (clamped later)"])
def test_reader_refuses_what_parse_joint_values_refuses(names, positions, reason, plausible):
    reader = JointStateReader(MODEL, plausible=plausible)
    q, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    with pytest.raises(JointInputError, match=reason):
        reader.merge(serialized(names, positions), q, received)
    assert not received.any() and not q.any()


def test_a_command_reader_takes_any_finite_position():
    """Without the plausibility check (the robot adapter's commands, clamped afterwards), a
    position far outside the joint's range is read as it is."""
    reader = JointStateReader(MODEL, plausible=False)
    q, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    reader.merge(serialized(["HeadYaw"], [1e300]), q, received)
    assert q[MODEL.joint_index("HeadYaw")] == 1e300
    with pytest.raises(JointInputError, match="implausible"):
        JointStateReader(MODEL).merge(serialized(["HeadYaw"], [1e300]), q, received)
    # With a limit (the whole body's wish, MAX_COMMAND_POSITION_RAD): beyond it, refused whole.
    limited = JointStateReader(MODEL, unknown_names="reject", plausible=False, limit_rad=10.0)
    q[:] = 0.0
    limited.merge(serialized(["HeadYaw", "HeadPitch"], [-9.5, 0.2]), q, received)
    assert q[MODEL.joint_index("HeadYaw")] == -9.5
    with pytest.raises(JointInputError, match=r"beyond \+-10 for \['HeadPitch'\]"):
        limited.merge(serialized(["HeadYaw", "HeadPitch"], [0.1, 11.0]), q, received)
    assert q[MODEL.joint_index("HeadYaw")] == -9.5  # nothing written
    with pytest.raises(JointInputError, match="unknown"):
        limited.merge(serialized(["HeadYaw", "LFinger21"], [0.1, 0.1]), q, received)


@pytest.mark.parametrize("velocities", [[], [1.0, 0.5, 2.0], [1.0, 0.5]], ids=["none", "one a name", "too few"])
def test_targets_read_from_bytes_are_parse_targets_targets(velocities):
    """The collision filter's joint_targets, read in place, make the targets (or the refusal)
    parse_targets makes of the converted message."""
    names, positions = ["LShoulderPitch", "HeadYaw", "RElbowRoll"], [0.5, -3.0, 0.3]  # HeadYaw clipped
    msg = JointState(name=names, position=positions, velocity=velocities)
    reader = JointStateReader(MODEL, unknown_names="reject", plausible=False, limit_rad=MAX_COMMAND_POSITION_RAD)
    try:
        expected = parse_targets(MODEL, names, positions, velocities, 0.3)
    except JointInputError as err:
        with pytest.raises(JointInputError, match=str(err)):
            targets_of(MODEL, *reader.read(serialize_message(msg))[1:], 0.3)
        return
    _, indices, read_positions, read_velocities = reader.read(serialize_message(msg))
    got = targets_of(MODEL, indices, read_positions, read_velocities, 0.3)
    for field in ("indices", "positions", "speeds_rps"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    with pytest.raises(JointInputError, match="no joint names"):
        targets_of(MODEL, *reader.read(serialized([], []))[1:], 0.3)


def test_reader_refuses_bytes_that_are_not_a_joint_state():
    reader = JointStateReader(MODEL)
    q, received = np.zeros(MODEL.n_joints), np.zeros(MODEL.n_joints, dtype=bool)
    good = serialized(["HeadYaw"], [0.1])
    for data in (b"", b"\x00\x01\x00\x00", good[:48], good[:20] + b"\xff\xff\xff\x7f" + good[24:]):
        with pytest.raises(JointInputError):
            reader.merge(data, q, received)
    assert not received.any()
    # a good message after garbage is read
    reader.merge(good, q, received)
    assert q[MODEL.joint_index("HeadYaw")] == 0.1


def test_imu_and_pose_read_in_place():
    from geometry_msgs.msg import PoseStamped
    from sensor_msgs.msg import Imu

    from nao_motion.ros.cdr import POSE_FLOATS, ImuReader, StampedFloatsReader

    imu = Imu()
    imu.header.frame_id = "torso"
    imu.orientation.z, imu.orientation.w = math.sin(0.25), math.cos(0.25)
    imu.angular_velocity.x, imu.angular_velocity.z = 0.5, -1.5
    attitude, gyro = ImuReader().read(serialize_message(imu))
    assert np.allclose(attitude[:2, :2], [[math.cos(0.5), -math.sin(0.5)], [math.sin(0.5), math.cos(0.5)]])
    assert gyro.tolist() == [0.5, 0.0, -1.5]
    # The same reading with the orientation as its quaternion, unconverted
    assert ImuReader().read_floats(serialize_message(imu)) == (
        [0.0, 0.0, math.sin(0.25), math.cos(0.25)], [0.5, 0.0, -1.5])
    imu.orientation.w = math.nan
    imu.angular_velocity.y = math.inf
    assert ImuReader().read(serialize_message(imu)) == (None, None)
    assert ImuReader().read_floats(serialize_message(imu)) == (None, None)
    assert ImuReader().read(b"\x00\x01\x00\x00") == (None, None)

    pose = PoseStamped()
    pose.header.frame_id, pose.header.stamp.sec, pose.header.stamp.nanosec = "wb_world", 3, 250_000_000
    pose.pose.position.y, pose.pose.orientation.w = 0.25, 1.0
    frame, stamp_s, values = StampedFloatsReader(POSE_FLOATS).read(serialize_message(pose))
    assert (frame, stamp_s, values.tolist()) == ("wb_world", 3.25, [0.0, 0.25, 0.0, 0.0, 0.0, 0.0, 1.0])
    with pytest.raises(ValueError):
        StampedFloatsReader(POSE_FLOATS).read(serialize_message(pose)[:40])


def test_pose_array_read_in_place_whatever_its_frame_length():
    from geometry_msgs.msg import Pose, PoseArray

    from nao_motion.ros.cdr import StampedPosesReader

    reader = StampedPosesReader()
    for frame in ("", "w", "wb_world", "a_frame_of_eight"):  # the sequence's alignment varies with it
        msg = PoseArray(poses=[Pose(), Pose()])
        msg.header.frame_id, msg.header.stamp.sec, msg.header.stamp.nanosec = frame, 7, 500_000_000
        msg.poses[0].position.x, msg.poses[0].orientation.w = 0.125, 1.0
        msg.poses[1].position.y, msg.poses[1].orientation.z = -0.05, 1.0
        got_frame, stamp_s, poses = reader.read(serialize_message(msg))
        assert (got_frame, stamp_s) == (frame, 7.5)
        assert poses.tolist() == [[0.125, 0, 0, 0, 0, 0, 1.0], [0, -0.05, 0, 0, 0, 1.0, 1.0]]  # w: 1 by default
    assert reader.read(serialize_message(PoseArray()))[2].shape == (0, 7)
    data = serialize_message(PoseArray(poses=[Pose(), Pose()]))
    for bad in (data[:-8], data[:10], b"\x00\x00" + data[2:]):  # short, no header, big-endian
        with pytest.raises(ValueError):
            reader.read(bad)


def test_float32_tail_reader_reads_the_foot_sensors_whatever_their_layout_and_refuses_other_counts():
    reader = Float32TailReader(4)
    forces = [1.5, 22.25, -3.0, 40.0]
    layouts = ([], [MultiArrayDimension(label="FL,FR,RL,RR", size=4, stride=4)],
               [MultiArrayDimension(label="abc", size=2, stride=4), MultiArrayDimension(label="x", size=2, stride=2)])
    for dims in layouts:
        msg = Float32MultiArray(data=forces)
        msg.layout.dim, msg.layout.data_offset = dims, 3
        np.testing.assert_array_equal(reader.read(serialize_message(msg)), forces)
    for values in ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0, 5.0], []):
        with pytest.raises(ValueError):
            reader.read(serialize_message(Float32MultiArray(data=values)))
    with pytest.raises(ValueError):
        reader.read(b"\x00\x00\x00\x00" + bytes(32))  # big-endian CDR


@pytest.mark.parametrize("frame", ["walk_arm_swing", "a", "abc", "odom_frame_of_some_length", "é"])
def test_the_frame_id_is_read_from_the_bytes_for_every_length(frame):
    """The walk drops its own joint_targets (its arm swing, every cycle) by the frame_id read in
    place; the names that follow start at any alignment."""
    msg = JointState(name=["LShoulderPitch"], position=[0.1])
    msg.header.frame_id = frame
    msg.header.stamp.sec, msg.header.stamp.nanosec = 12, 345
    assert frame_id_of(serialize_message(msg)) == frame


def test_bytes_that_do_not_hold_a_header_have_no_frame_id():
    data = serialize_message(JointState())
    with pytest.raises(ValueError):
        frame_id_of(data[:10])
    with pytest.raises(ValueError):
        frame_id_of(b"\x00\x00" + data[2:])  # big-endian CDR is not read in place
