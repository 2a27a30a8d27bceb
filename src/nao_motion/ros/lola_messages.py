"""nao_lola's messages as CDR bytes, for the per-cycle streams between the suite and LoLA.

nao_lola's messages end with float32 numbers (JointPositions' ``positions``, FSR's eight
forces), as does std_msgs/Float32MultiArray (``data``): a message of fixed layout is serialized
once and its last float32 values are refilled in place before each publication, and a received
one is read where its numbers lie (``nao_motion.ros.cdr`` does the same for float64 fields).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rclpy.serialization import serialize_message

from .cdr import ENCAPSULATION, LITTLE_ENDIAN_CDR


def float_markers(count: int) -> list[float]:
    """Distinct values, exact in float32, to build a message whose tail is then located."""
    return [k + 0.25 for k in range(count)]


class Float32TailImage:
    """A message serialized once, ending with the float32 values `tail` (as the caller filled
    them, e.g. with ``float_markers``); ``values`` is a writable view of them in the bytes."""

    def __init__(self, msg: Any, tail) -> None:
        expected = np.asarray(tail, dtype="<f4")
        data = serialize_message(msg)
        if data[:2] != LITTLE_ENDIAN_CDR:
            raise ValueError("Float32TailImage needs little-endian CDR")
        self.buffer = bytearray(data)
        self.values = np.frombuffer(self.buffer, "<f4", len(expected), len(data) - 4 * len(expected))
        if not np.array_equal(self.values, expected):
            raise ValueError(f"{type(msg).__name__} does not end with the given {len(expected)} float32 values")

    def publish(self, publisher) -> None:
        publisher.publish(bytes(self.buffer))


def read_float32_tail(data: bytes, count: int) -> np.ndarray:
    """The last `count` float32 values of a serialized message (read-only view); ValueError if
    the bytes are not little-endian CDR or too short."""
    if data[:2] != LITTLE_ENDIAN_CDR or len(data) < ENCAPSULATION + 4 * count:
        raise ValueError("not a little-endian CDR message of the expected size")
    return np.frombuffer(data, "<f4", count, len(data) - 4 * count)


def fsr_sides_image(names: tuple[str, ...]):
    """The suite's fsr/left or fsr/right message (std_msgs/Float32MultiArray, one dimension
    labelled with the sensor names) as an image to refill."""
    from std_msgs.msg import Float32MultiArray, MultiArrayDimension

    msg = Float32MultiArray(data=float_markers(len(names)))
    msg.layout.dim = [MultiArrayDimension(label=",".join(names), size=len(names), stride=len(names))]
    return Float32TailImage(msg, msg.data)
