"""A small /tf + /tf_static listener that resolves frames into a root frame.

Used by the demo and the tests to check what the kinematics node publishes, with or
without tf2_ros (it only needs tf2_msgs).
"""

from __future__ import annotations

import numpy as np
from rclpy.node import Node
from tf2_msgs.msg import TFMessage

from ..spatial import rotation_from_quaternion_xyzw, transform
from .conversions import stamp_seconds
from .qos import TF_QOS, TF_STATIC_QOS


class TfListener:
    def __init__(self, node: Node):
        self.parent_of: dict[str, str] = {}
        self._latest = {}  # child frame -> TransformStamped; converted only when looked up
        self.dynamic_messages = 0
        self.static_frames: set[str] = set()
        node.create_subscription(TFMessage, "/tf", self._on_tf, TF_QOS)
        node.create_subscription(TFMessage, "/tf_static", self._on_static, TF_STATIC_QOS)

    def _store(self, msg: TFMessage) -> None:
        for t in msg.transforms:
            self.parent_of[t.child_frame_id] = t.header.frame_id
            self._latest[t.child_frame_id] = t

    def local(self, child: str) -> np.ndarray:
        """Latest transform parent -> child as a 4x4 pose."""
        t = self._latest[child].transform
        r, p = t.rotation, t.translation
        return transform(rotation_from_quaternion_xyzw([r.x, r.y, r.z, r.w]), (p.x, p.y, p.z))

    def stamp_s(self, child: str) -> float:
        return stamp_seconds(self._latest[child].header.stamp)

    def _on_tf(self, msg: TFMessage) -> None:
        self.dynamic_messages += 1
        self._store(msg)

    def _on_static(self, msg: TFMessage) -> None:
        self.static_frames.update(t.child_frame_id for t in msg.transforms)
        self._store(msg)

    def frames(self) -> set[str]:
        return set(self.parent_of) | set(self.parent_of.values())

    def lookup(self, frame: str, root: str = "torso") -> np.ndarray:
        """Pose of `frame` in `root` from the latest transforms (KeyError if not connected)."""
        def path_to_top(f: str) -> list[str]:
            path = [f]
            while f in self.parent_of:
                f = self.parent_of[f]
                path.append(f)
            return path

        def pose_in(f: str, ancestor: str) -> np.ndarray:
            t = np.eye(4)
            while f != ancestor:
                if f not in self.parent_of:
                    raise KeyError(f"{frame!r} is not connected to {root!r}")
                t = self.local(f) @ t
                f = self.parent_of[f]
            return t

        root_path = set(path_to_top(root))
        common = next((f for f in path_to_top(frame) if f in root_path), None)
        if common is None:
            raise KeyError(f"{frame!r} is not connected to {root!r}")
        return np.linalg.inv(pose_in(root, common)) @ pose_in(frame, common)
