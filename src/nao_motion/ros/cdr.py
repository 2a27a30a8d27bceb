"""The motion cycle's messages as CDR bytes: published from an image refilled in place, and read
without building a Python message.

rclpy converts a message to C field by field in Python attribute calls: a TFMessage of 27
transforms costs about 250 µs to publish, its bytes 6 µs; a JointState 17 µs against 6 µs; taking
one as a message object costs 30 µs before the node has looked at a number. At the motion cycle
rate, with every node taking joint_states and publishing its result, that conversion was the
largest single cost of the suite after the executor (py-spy, issue 10).

``MessageImage``: a message prepared once (names, frame ids, array lengths), serialized once;
the numbers that change each cycle (float64 fields, stamps) are written into the bytes through
numpy views and the bytes are published as they are (``Publisher.publish`` takes serialized
messages). Where each number lies is found once, by serializing the message with marker values.

``JointStateReader``: the stamp and positions of a serialized ``sensor_msgs/JointState``, read
in place. The joint names are checked against the model once per distinct list of names (a
driver sends the same list every cycle), with the same rules as
:func:`nao_motion.joint_input.parse_joint_values`. Readers that read alike (the same rules and
model limits) share their last decoding: composed (``nodes.suite_node``), the same joint_states
bytes go to four nodes, each with its reader, and are decoded once.

Both rely on the CDR layout rmw implementations share for these types (little-endian XCDR1:
a 4-byte encapsulation header, 8-byte alignment of float64 counted from its end); a layout that
does not match is refused at construction (``MessageImage``) or per message (``JointStateReader``).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from builtin_interfaces.msg import Time
from rclpy.serialization import deserialize_message, serialize_message

from ..joint_input import JointInputError, check_name_count, parse_joint_values, quoted
from ..plausibility import (
    PLAUSIBLE_MARGIN_RAD,
    implausible_positions,
    plausible_angular_velocity,
    plausible_quaternion,
)
from ..spatial import rotation_from_quaternion_xyzw

ENCAPSULATION = 4  # bytes before the CDR payload: representation identifier and options
LITTLE_ENDIAN_CDR = b"\x00\x01"  # the representation identifier of little-endian CDR
_PATH_PART = re.compile(r"([A-Za-z_]\w*)(?:\[(\d+)\])?")


_STAMP = struct.Struct("<II")  # builtin_interfaces/Time's sec (int32, written as its bits) and nanosec
MARKER_TRIES = 4  # serializations with other markers before a field is declared not found


def _float_marker(k: int, salt: int = 0) -> float:
    return math.ldexp(0x1ABCDE0000 + (salt << 16) + k, 900)  # exact, distinct, never a real value


def _resolve(msg: Any, path: str) -> tuple[Any, str, int | None]:
    """The object holding the last field of a dotted path ("transforms[3].transform.rotation.w")."""
    parts = path.split(".")
    obj = msg
    for part in parts[:-1]:
        name, index = _PATH_PART.fullmatch(part).groups()
        obj = getattr(obj, name)
        if index is not None:
            obj = obj[int(index)]
    name, index = _PATH_PART.fullmatch(parts[-1]).groups()
    return obj, name, None if index is None else int(index)


def _assign(msg: Any, path: str, value: Any) -> None:
    obj, name, index = _resolve(msg, path)
    if index is None:
        setattr(obj, name, value)
    else:  # an element of a numeric array field
        values = list(getattr(obj, name))
        values[index] = value
        setattr(obj, name, values)


def _expand(msg: Any, paths: Sequence[str]) -> list[str]:
    """Array fields named whole ("position") stand for each of their elements, message fields
    ("pose.orientation") for each of their fields, in declaration order."""
    out = []
    for path in paths:
        obj, name, index = _resolve(msg, path)
        value = getattr(obj, name)
        if index is not None or isinstance(value, float):
            out.append(path)
        elif hasattr(value, "get_fields_and_field_types"):
            out += _expand(msg, [f"{path}.{field}" for field in value.get_fields_and_field_types()])
        else:
            out += [f"{path}[{i}]" for i in range(len(value))]
    return out


class MarkerNotFound(ValueError):
    """A marker not found exactly once in a serialized message."""


def _find_once(data: bytes, pattern: bytes, what: str, alignment: int) -> int:
    """Where `pattern` lies in the payload at a multiple of `alignment`. Unaligned matches are
    not fields: the serializer's padding bytes are left as they were in its buffer, and could
    hold a marker's bytes from an earlier serialization (a kinematics node failed so now and then)."""
    found, at = [], data.find(pattern)
    while at >= 0:
        if (at - ENCAPSULATION) % alignment == 0:
            found.append(at)
        at = data.find(pattern, at + 1)
    if len(found) != 1:
        raise MarkerNotFound(f"{what}: not found exactly once in the serialized message")
    return found[0]


class MessageImage:
    """A message serialized once; its float64 fields and stamps refilled in place, then published.

    ``floats``: dotted paths of float64 fields, whole float64 arrays or messages of float64
    fields (a Point, a Quaternion), in the order ``set_floats`` takes their values. ``stamps``: paths of builtin_interfaces/Time fields, all
    set by ``set_stamp``. The message's other fields (strings, array lengths) are fixed."""

    def __init__(self, msg: Any, floats: Sequence[str] = (), stamps: Sequence[str] = ()):
        float_paths = _expand(msg, floats)
        for salt in range(MARKER_TRIES):
            try:
                data, float_at, stamp_at = self._marked(msg, float_paths, stamps, salt)
                break
            except MarkerNotFound:
                # The serializer's buffer can hold an earlier serialization's bytes where this
                # one writes nothing (padding): rarely, a marker among them. Stale bytes match
                # the next markers no more.
                if salt == MARKER_TRIES - 1:
                    raise
        self.buffer = bytearray(data)
        self._f64 = np.frombuffer(self.buffer, "<f8", (len(data) - ENCAPSULATION) // 8, ENCAPSULATION)
        self._u32 = np.frombuffer(self.buffer, "<u4", len(data) // 4)
        self._float_index = np.array([(at - ENCAPSULATION) // 8 for at in float_at], dtype=np.intp)
        self._sec_index = np.array([at // 4 for at in stamp_at], dtype=np.intp)
        self._nanosec_index = self._sec_index + 1
        # One stamp (most images): packed at its place, a third of the cost of the index arrays.
        self._stamp_at = stamp_at[0] if len(stamp_at) == 1 else None
        # The marked image has markers where msg has values: fill msg's own values in.
        self.set_floats(np.array([_float_of(msg, path) for path in float_paths]))
        if stamps:
            obj, name, _ = _resolve(msg, stamps[0])
            stamp = getattr(obj, name)
            self.set_stamp(stamp.sec, stamp.nanosec)

    @property
    def float_count(self) -> int:
        return len(self._float_index)

    @staticmethod
    def _marked(msg: Any, float_paths: Sequence[str], stamps: Sequence[str], salt: int):
        """The message serialized with markers in the fields; where each marker lies."""
        marked = deserialize_message(serialize_message(msg), type(msg))  # a deep copy
        for k, path in enumerate(float_paths):
            _assign(marked, path, _float_marker(k, salt))
        stamp_marks = [(0x5A5A0000 + (salt << 12) + k, 0x2C2C0000 + (salt << 12) + k) for k in range(len(stamps))]
        for (sec, nanosec), path in zip(stamp_marks, stamps):
            _assign(marked, path, Time(sec=sec, nanosec=nanosec))
        data = serialize_message(marked)
        if data[:2] != LITTLE_ENDIAN_CDR:
            raise ValueError("MessageImage needs little-endian CDR")
        float_at = [_find_once(data, struct.pack("<d", _float_marker(k, salt)), path, 8)
                    for k, path in enumerate(float_paths)]
        stamp_at = [_find_once(data, struct.pack("<iI", sec, nanosec), path, 4)
                    for (sec, nanosec), path in zip(stamp_marks, stamps)]
        return data, float_at, stamp_at

    def set_floats(self, values: np.ndarray) -> None:
        """All the float64 slots, in the order of ``floats`` (arrays element by element)."""
        self._f64[self._float_index] = values

    def set_stamp(self, sec: int, nanosec: int) -> None:
        if self._stamp_at is not None:
            _STAMP.pack_into(self.buffer, self._stamp_at, sec & 0xFFFFFFFF, nanosec)
            return
        self._u32[self._sec_index] = sec & 0xFFFFFFFF
        self._u32[self._nanosec_index] = nanosec

    def publish(self, publisher) -> bytes:
        """Publishes the image; returns the bytes sent (a node that takes its own messages back
        tells them by these)."""
        data = bytes(self.buffer)
        publisher.publish(data)
        return data


def _float_of(msg: Any, path: str) -> float:
    obj, name, index = _resolve(msg, path)
    value = getattr(obj, name)
    return float(value if index is None else value[index])


_NONE = np.empty(0)  # a message's empty velocity sequence
_NONE.flags.writeable = False


@dataclass
class _NamesLayout:
    """One list of joint names as it appears in the bytes, checked once against the model."""

    names: bytes  # the serialized name sequence, count included
    count: int
    indices: np.ndarray  # model indices of the names kept
    keep: np.ndarray  # per name: a joint of the model
    all_kept: bool  # every name is one
    ignored: list[str]
    # The readings accepted without a closer look: within the kept joints' ranges widened by
    # PLAUSIBLE_MARGIN_RAD (without the plausibility check: within +-limit_rad, else any finite
    # value; NaN fails both comparisons, an infinity one)
    lowest: np.ndarray
    highest: np.ndarray


class _LastDecodings:
    """The last two messages the readers of one kind decoded, newest first: each (its bytes,
    (sec, nanosec, indices, positions kept (read-only), where the bytes after them begin, the
    names ignored)). Two: a node reads joint_commands with a reader like its joint_states one,
    and that decoding must not take the joint_states' away from the nodes composed after it.
    Replaced whole, so a reader in another thread sees one pair or the other."""

    __slots__ = ("last",)

    def __init__(self):
        self.last: tuple = ((None, None), (None, None))

    def find(self, data: bytes):
        for decoded_data, decoded in self.last:
            if decoded_data is data:
                return decoded
        return None

    def add(self, data: bytes, decoded: tuple) -> None:
        self.last = ((data, decoded), self.last[0])


_LAST_DECODINGS: dict[tuple, _LastDecodings] = {}  # by what makes readers read alike


class JointStateReader:
    """Stamp and positions of serialized sensor_msgs/JointState messages (see the module docstring).

    ``unknown_names``: as :func:`parse_joint_values` ("ignore" for sensor streams, "reject" for
    commands). ``plausible``: a position beyond its joint's range by more than
    ``plausibility.PLAUSIBLE_MARGIN_RAD`` refuses the message (a sensor stream's reading the robot cannot have).
    ``limit_rad`` (not plausible: commands): a position beyond +-limit_rad refuses the message, as
    :func:`parse_joint_values`'s ``limit``."""

    def __init__(self, model, unknown_names: str = "ignore", plausible: bool = True, limit_rad: float | None = None):
        if plausible and limit_rad is not None:
            raise ValueError("limit_rad is for a reader without the plausibility check")
        self.model, self.unknown_names, self.plausible, self.limit_rad = model, unknown_names, plausible, limit_rad
        self._layout: _NamesLayout | None = None
        alike = (unknown_names, plausible, limit_rad, tuple(model.joint_names), model.lower.tobytes(),
                 model.upper.tobytes())
        self._decoded = _LAST_DECODINGS.setdefault(alike, _LastDecodings())
        self.ignored_names: list[str] = []  # of the last message read

    def merge(self, data: bytes, values: np.ndarray, received: np.ndarray) -> Time:
        """Write the message's positions into ``values`` (model order), mark them ``received``,
        return its stamp. Raises JointInputError (nothing written) for a malformed message."""
        stamp, indices, kept, _ = self._positions(data)
        values[indices] = kept
        received[indices] = True
        return stamp

    def read(self, data: bytes) -> tuple[Time, np.ndarray, np.ndarray, np.ndarray]:
        """The message's stamp, the model indices of its joints (the names kept), their
        positions, and its ``velocity`` values as sent (read-only; a JointState carries none or
        one per name, which the caller checks). Raises JointInputError for a malformed message."""
        stamp, indices, kept, at = self._positions(data)  # at: the velocities' length, 4-aligned
        try:
            (velocity_count,) = struct.unpack_from("<I", data, at)
            start = ENCAPSULATION + _align(at + 4 - ENCAPSULATION, 8)
            velocities = np.frombuffer(data, "<f8", velocity_count, start) if velocity_count else _NONE
        except (struct.error, ValueError) as err:
            raise JointInputError(f"not a serialized JointState ({err})") from None
        return stamp, indices, kept, velocities

    def _positions(self, data: bytes) -> tuple[Time, np.ndarray, np.ndarray, int]:
        """Stamp, model indices and positions of the joints kept, and where the bytes after the
        positions begin; JointInputError for a malformed message."""
        decoded = self._decoded.find(data)
        if decoded is not None:  # decoded by a reader like this one (a node composed with this one)
            sec, nanosec, indices, kept, end, self.ignored_names = decoded
            return Time(sec=sec, nanosec=nanosec), indices, kept, end
        try:
            sec, nanosec, frame_length = struct.unpack_from("<iII", data, ENCAPSULATION)
            names_at = _align(ENCAPSULATION + 12 + frame_length, 4)
            layout = self._names_layout(data, names_at)
            at = _align(names_at + len(layout.names), 4)
            (count,) = struct.unpack_from("<I", data, at)
            if count != layout.count:
                raise JointInputError(f"{layout.count} joint names but {count} position values")
            start = ENCAPSULATION + _align(at + 4 - ENCAPSULATION, 8)
            positions = np.frombuffer(data, "<f8", count, start)
        except (struct.error, ValueError, IndexError) as err:
            if isinstance(err, JointInputError):
                raise
            raise JointInputError(f"not a serialized JointState ({err})") from None
        # Immutable bytes with every name a joint (a driver's, a node's): their positions, read
        # in place, are the ones kept (no copy: the bytes cannot change under a reader).
        kept = positions if layout.all_kept and type(data) is bytes else positions[layout.keep]
        # One test for the usual message (finite and plausible); the reason only when it fails.
        # (Its bytes searched for a False: ndarray.all(), a reduction, costs several times more.)
        if 0 in np.logical_and(kept >= layout.lowest, kept <= layout.highest).tobytes():
            raise JointInputError(self._refusal(data, names_at, positions, layout))
        self.ignored_names = layout.ignored
        if type(data) is bytes:  # immutable: the same object is the same message
            kept.flags.writeable = False  # shared with the readers alike
            self._decoded.add(data, (sec, nanosec, layout.indices, kept, start + 8 * count, layout.ignored))
        return Time(sec=sec, nanosec=nanosec), layout.indices, kept, start + 8 * count

    def _refusal(self, data: bytes, names_at: int, positions: np.ndarray, layout: _NamesLayout) -> str:
        """Why positions outside ``layout``'s accepted readings are refused."""
        kept = positions[layout.keep]
        names = self._names(data, names_at)[0]
        if not np.all(np.isfinite(kept)):
            bad = [n for n, v, k in zip(names, positions, layout.keep) if k and not np.isfinite(v)]
            return f"non-finite position for {quoted(bad)}"
        if self.plausible:
            return implausible_positions(self.model, layout.indices, kept)
        bad = [n for n, v, k in zip(names, positions, layout.keep) if k and abs(v) > self.limit_rad]
        return f"position beyond +-{self.limit_rad:.3g} for {quoted(bad)}: refused, not clamped"

    def _names_layout(self, data: bytes, names_at: int) -> _NamesLayout:
        layout = self._layout
        if layout is not None and data[names_at:names_at + len(layout.names)] == layout.names:
            return layout
        (count,) = struct.unpack_from("<I", data, names_at)
        check_name_count(self.model, count)  # before decoding them
        names, end = self._names(data, names_at)
        parsed = parse_joint_values(self.model, names, np.zeros(len(names)), unknown_names=self.unknown_names)
        keep = np.array([self.model.has_joint(n) for n in names], dtype=bool)
        if self.plausible:
            lowest = self.model.lower[parsed.indices] - PLAUSIBLE_MARGIN_RAD
            highest = self.model.upper[parsed.indices] + PLAUSIBLE_MARGIN_RAD
        else:
            bound = np.finfo(np.float64).max if self.limit_rad is None else self.limit_rad
            lowest, highest = np.full(len(parsed.indices), -bound), np.full(len(parsed.indices), bound)
        self._layout = _NamesLayout(bytes(data[names_at:end]), len(names), parsed.indices, keep, bool(keep.all()),
                                    parsed.ignored_names, lowest, highest)
        return self._layout

    @staticmethod
    def _names(data: bytes, at: int) -> tuple[list[str], int]:
        (count,) = struct.unpack_from("<I", data, at)
        if count > (len(data) - at) // 5:  # each name takes at least a length and a NUL
            raise JointInputError(f"not a serialized JointState (name count {count})")
        at += 4
        names = []
        for _ in range(count):
            at = _align(at, 4)
            (length,) = struct.unpack_from("<I", data, at)
            if length == 0 or at + 4 + length > len(data):
                raise JointInputError("not a serialized JointState (name length)")
            names.append(bytes(data[at + 4:at + 3 + length]).decode("utf-8", "replace"))
            at += 4 + length
        return names, at


# Where sensor_msgs/Imu's and geometry_msgs/PoseStamped's numbers are among their float64 fields.
IMU_FLOATS, IMU_ORIENTATION, IMU_ANGULAR_VELOCITY = 37, slice(0, 4), slice(13, 16)
IMU_LINEAR_ACCELERATION = slice(25, 28)
IMU_ORIENTATION_COVARIANCE_0 = 4
POSE_FLOATS = 7  # position x, y, z, orientation x, y, z, w


class StampedFloatsReader:
    """The stamp, frame and float64 fields of a serialized message made of a std_msgs/Header and
    then float64 fields only (sensor_msgs/Imu: 37, geometry_msgs/PoseStamped: 7), read in place.

    ``read(data)`` returns (frame_id, stamp seconds, the fields as a read-only float64 array in
    declaration order), or raises ValueError for bytes too short or not little-endian CDR."""

    def __init__(self, count: int):
        self.count = count

    def read(self, data: bytes) -> tuple[str, float, np.ndarray]:
        frame, stamp_s, end = _header(data)
        start = ENCAPSULATION + _align(end - ENCAPSULATION, 8)
        if len(data) < start + 8 * self.count:
            raise ValueError("message too short")
        return frame, stamp_s, np.frombuffer(data, "<f8", self.count, start)


class StampedPosesReader:
    """The stamp, frame and poses of a serialized geometry_msgs/PoseArray, read in place.

    ``read(data)`` returns (frame_id, stamp seconds, the poses as a read-only (n, 7) float64
    array: position x, y, z, orientation x, y, z, w), or raises ValueError for bytes too short or
    not little-endian CDR."""

    MAX_POSES = 1024  # a length beyond any the suite sends: the bytes are not a PoseArray

    def read(self, data: bytes) -> tuple[str, float, np.ndarray]:
        frame, stamp_s, end = _header(data)
        length_at = ENCAPSULATION + _align(end - ENCAPSULATION, 4)
        if len(data) < length_at + 4:
            raise ValueError("message too short")
        (count,) = struct.unpack_from("<I", data, length_at)
        start = ENCAPSULATION + _align(length_at + 4 - ENCAPSULATION, 8)
        if count > self.MAX_POSES or (count and len(data) < start + 8 * POSE_FLOATS * count):
            raise ValueError("message too short")
        poses = (np.frombuffer(data, "<f8", POSE_FLOATS * count, start).reshape(count, POSE_FLOATS) if count
                 else np.empty((0, POSE_FLOATS)))
        return frame, stamp_s, poses


def frame_id_of(data: bytes) -> str:
    """The frame_id of a serialized message that opens with a std_msgs/Header, read without
    taking the message (ValueError as ``_header``): a node that drops its own messages by their
    frame_id (the walk's arm swing, every cycle) tells them for a third of the cost of taking one."""
    return _header(data)[0]


def after_stamp(data: bytes) -> bytes:
    """A serialized stamped message's bytes after its header's stamp: equal for two messages
    that differ in their stamp only (a command repeated cycle after cycle)."""
    return data[ENCAPSULATION + 8:]


def _header(data: bytes) -> tuple[str, float, int]:
    """A serialized message's leading std_msgs/Header: its frame_id, its stamp in seconds, and
    where the bytes after it begin. ValueError for bytes too short or not little-endian CDR."""
    if data[:2] != LITTLE_ENDIAN_CDR or len(data) < ENCAPSULATION + 12:
        raise ValueError("not a little-endian CDR message")
    sec, nanosec, frame_length = struct.unpack_from("<iII", data, ENCAPSULATION)
    frame_at = ENCAPSULATION + 12
    if frame_length == 0 or len(data) < frame_at + frame_length:
        raise ValueError("message too short")
    frame = bytes(data[frame_at:frame_at + frame_length - 1]).decode("utf-8", "replace")
    return frame, sec + nanosec * 1e-9, frame_at + frame_length


class Float32TailReader:
    """The float32 sequence that ends a serialized message (std_msgs/Float32MultiArray's ``data``,
    after its layout), read in place: taking it converted costs the walk node ~1 % of a core for
    two foot sensors at 100 Hz.

    ``read(data)`` returns the ``count`` values as a read-only float32 array, or raises
    ValueError for bytes that are not little-endian CDR or whose last sequence does not hold
    exactly ``count`` values (told by the length before the last ``count`` values: a longer
    sequence whose element there reads as that length, a float32 of about 1e-44, is not told apart)."""

    def __init__(self, count: int):
        self.count = count

    def read(self, data: bytes) -> np.ndarray:
        start = len(data) - 4 * self.count
        # the layout (a dim sequence's length and data_offset) and the data's length come first
        if data[:2] != LITTLE_ENDIAN_CDR or start < ENCAPSULATION + 12 or (start - ENCAPSULATION) % 4:
            raise ValueError("not a little-endian CDR message of float32 values")
        if struct.unpack_from("<I", data, start - 4)[0] != self.count:
            raise ValueError(f"expected {self.count} float32 values at the end")
        return np.frombuffer(data, "<f4", self.count, start)


class ImuReader:
    """The attitude and angular velocity of serialized sensor_msgs/Imu messages.

    ``read(data)`` returns (attitude 3x3 or None when the orientation is refused, as
    ``imu_attitude`` refuses it or when the bytes are not an Imu; angular velocity in rad/s or
    None when not finite or beyond what a gyrometer reads, ``plausibility``). An IMU without an
    orientation estimate says so as sensor_msgs/Imu documents it, ``orientation_covariance[0]`` =
    -1 (nao_lola's, on a NAO V6): its attitude is None too, but ``no_orientation`` is then True
    (the last message read): not an error. ``acceleration`` is the last message's linear
    acceleration (m/s^2, Python floats; None when not finite)."""

    def __init__(self):
        self._floats = StampedFloatsReader(IMU_FLOATS)
        self.no_orientation = False
        self.acceleration: list[float] | None = None

    def read(self, data: bytes) -> tuple[np.ndarray | None, np.ndarray | None]:
        orientation_xyzw, gyro = self.read_floats(data)
        return (None if orientation_xyzw is None else rotation_from_quaternion_xyzw(orientation_xyzw),
                None if gyro is None else np.array(gyro))

    def read_floats(self, data: bytes) -> tuple[list[float] | None, list[float] | None]:
        """As ``read``, with the orientation as its quaternion (x, y, z, w) and both as Python
        floats: for a reader that needs the attitude only now and then (the whole body, when the
        QP starts), not every message."""
        try:
            _, _, values = self._floats.read(data)
        except (ValueError, struct.error):
            self.no_orientation, self.acceleration = False, None
            return None, None
        # Python floats: the checks of a few values cost a fifth of numpy's (``plausibility``).
        floats = values[:IMU_LINEAR_ACCELERATION.stop].tolist()
        acceleration = floats[IMU_LINEAR_ACCELERATION]
        self.acceleration = acceleration if all(map(math.isfinite, acceleration)) else None
        gyro = floats[IMU_ANGULAR_VELOCITY]
        orientation = floats[IMU_ORIENTATION]
        self.no_orientation = floats[IMU_ORIENTATION_COVARIANCE_0] == -1.0
        return (None if self.no_orientation or not plausible_quaternion(orientation) else orientation,
                gyro if plausible_angular_velocity(gyro) else None)


def _align(offset: int, alignment: int) -> int:
    return (offset + alignment - 1) // alignment * alignment
