"""A small /tf + /tf_static listener that resolves frames into a root frame.

Used by the footstep planner (goal_pose in any frame), the demo, the bringup monitor and the
tests, with or without tf2_ros (it only needs tf2_msgs). Its subscriptions are sampled
(``nao_motion.ros.sampled``): /tf arrives at twice the motion cycle rate and most readers look
a frame up now and then, so the messages stay in the middleware's history (the last
``history`` of them, a few seconds of a NAO's /tf) and are converted only when a lookup, the
frame list or the message count is asked for.

A transform is checked as it is taken in, as every pose from outside is (``pose_refusal``): one
with a non-finite number or a quaternion that is no rotation (zero, one of norm 1e-300) is
refused, the frame's last valid transform kept, and a lookup that cannot resolve says which
transforms it refused. A zero quaternion on /tf reached the quaternion's normalisation and
killed the footstep planner at a goal in that frame.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from rclpy.node import Node
from rclpy.serialization import deserialize_message
from tf2_msgs.msg import TFMessage

from ..spatial import rotation_from_quaternion_xyzw, transform
from .conversions import pose_refusal, stamp_seconds
from .sampled import SampledSubscription

# /tf messages kept between two reads: 5 s of the suite's own /tf (two publishers at 100 Hz),
# so a slower publisher's frame (map -> odom from a localiser) is still there at a lookup.
TF_HISTORY = 1000
REFUSED_KEPT = 8  # frames whose refused transform a failed lookup names


class TfListener:
    """``convert_last``: convert only the newest that many /tf messages of each read (all are
    counted): for a reader that shows frames and looks up the newest transforms (a monitor),
    not for one that must see a frame a single older message carried."""

    def __init__(self, node: Node, history: int = TF_HISTORY, convert_last: int | None = None):
        self.convert_last = convert_last
        self.parent_of: dict[str, str] = {}
        self._latest = {}  # child frame -> TransformStamped
        # child frame -> why its last transform was refused, while it has no valid one since (the
        # newest REFUSED_KEPT frames: a flood of bad transforms under new names stays bounded)
        self.refused: dict[str, str] = {}
        self._dynamic_messages = 0
        self.static_frames: set[str] = set()
        self._dynamic = SampledSubscription(node, TFMessage, "/tf", depth=history, raw=True)
        self._static = SampledSubscription(node, TFMessage, "/tf_static", depth=100, latched=True)

    def update(self) -> None:
        """Take in what arrived since the last read (every read calls it)."""
        for msg in self._static.take_all():
            self.static_frames.update(t.child_frame_id for t in msg.transforms)
            self._store(msg)
        taken = self._dynamic.take_all()
        self._dynamic_messages += len(taken)
        for raw in taken if self.convert_last is None else taken[-self.convert_last:]:
            self._store(deserialize_message(raw, TFMessage))

    def _store(self, msg: TFMessage) -> None:
        for t in msg.transforms:
            p, r = t.transform.translation, t.transform.rotation
            reason = pose_refusal((p.x, p.y, p.z, r.x, r.y, r.z, r.w))
            if reason is not None:
                self.refused.pop(t.child_frame_id, None)
                self.refused[t.child_frame_id] = reason
                if len(self.refused) > REFUSED_KEPT:
                    del self.refused[next(iter(self.refused))]
                continue
            self.refused.pop(t.child_frame_id, None)
            self.parent_of[t.child_frame_id] = t.header.frame_id
            self._latest[t.child_frame_id] = t

    @property
    def dynamic_messages(self) -> int:
        """/tf messages received so far (those beyond the history between two reads are lost)."""
        self.update()
        return self._dynamic_messages

    def local(self, child: str) -> np.ndarray:
        """Latest transform parent -> child as a 4x4 pose."""
        t = self._latest[child].transform
        r, p = t.rotation, t.translation
        return transform(rotation_from_quaternion_xyzw([r.x, r.y, r.z, r.w]), (p.x, p.y, p.z))

    def stamp_s(self, child: str) -> float:
        return stamp_seconds(self._latest[child].header.stamp)

    def frames(self) -> set[str]:
        self.update()
        return set(self.parent_of) | set(self.parent_of.values())

    def lookup(self, frame: str, root: str = "torso") -> np.ndarray:
        """Pose of `frame` in `root` from the latest valid transforms (KeyError if not connected;
        its message names the transforms refused)."""
        self.update()
        try:
            return pose_in_root(self.parent_of, self.local, frame, root)
        except KeyError as err:
            if not self.refused:
                raise
            refused = "; ".join(f"{child!r}: {reason}" for child, reason in self.refused.items())
            raise KeyError(f"{err.args[0]} (transforms refused on /tf: {refused})") from None


def pose_in_root(parent_of: dict[str, str], local: Callable[[str], np.ndarray], frame: str, root: str) -> np.ndarray:
    """Pose of `frame` in `root` through the tree `parent_of` (child -> parent) whose edges'
    poses `local(child)` gives; KeyError when they are not connected or a cycle is met."""

    def path_to_top(f: str) -> list[str]:
        path, seen = [f], {f}
        while f in parent_of:
            f = parent_of[f]
            if f in seen:  # a cycle in /tf (a misconfigured publisher) has no top
                raise KeyError(f"/tf has a cycle through {f!r}")
            seen.add(f)
            path.append(f)
        return path

    def pose_in(f: str, ancestor: str) -> np.ndarray:
        t = np.eye(4)
        while f != ancestor:
            t = local(f) @ t
            f = parent_of[f]
        return t

    root_path = set(path_to_top(root))
    common = next((f for f in path_to_top(frame) if f in root_path), None)
    if common is None:
        raise KeyError(f"{frame!r} is not connected to {root!r}")
    return np.linalg.inv(pose_in(root, common)) @ pose_in(frame, common)
