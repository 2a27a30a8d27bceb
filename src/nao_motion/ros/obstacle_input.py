"""The ``obstacles`` topic: obstacles declared as rviz markers, into the core's ObstacleSet.

visualization_msgs/MarkerArray, so that rviz shows what was declared (a MarkerArray display on
``/obstacles``). Each marker is one obstacle, identified by (``ns``, ``id``):

* ``action`` ADD (or MODIFY): declare it, or replace the one of the same ns and id;
  ``type`` SPHERE (``scale.x`` = ``scale.y`` = ``scale.z``: the diameter) or CYLINDER (``scale.x`` =
  ``scale.y``: the diameter, ``scale.z``: the height along the marker's z), centred at ``pose``
  in ``header.frame_id`` (any TF frame). A cylinder is avoided as the capsule of the same axis
  and radius (it encloses it: up to a radius more beyond each end face). CUBE and the other
  types are refused: a box's exact distance is not computed; declare an enclosing shape;
* DELETE: remove it; DELETEALL: remove every obstacle (of ``ns`` when it is not empty);
* ``lifetime`` (0: forever): the obstacle is dropped that long after ``header.stamp`` (zero:
  its arrival); one already past its lifetime on arrival is refused as stale.

A refused marker (unknown type or action, NaN, a zero quaternion, a non-uniform sphere, sizes
out of range, an empty frame, more than ``MAX_OBSTACLES`` obstacles) leaves the others as they
were and is logged with its reason (throttled). Each cycle :meth:`ObstacleInput.resolve` drops
stale obstacles and places the others in the torso frame: in a frame of the robot's own (a link,
``l_sole``, ``base_link``, ...) by the node's forward kinematics of its command, the
configuration its QP linearises (TF is computed from the measured joints, which lag the command:
an obstacle held on a sole would move in the command's torso frame as the torso leans, and the
whole body, leaning to clear it, would chase it); in any other frame from TF. One whose frame is
not (yet) in TF is left out, with a throttled warning.

Display (``display=True``, the collision filter's): the obstacles taken, as they stand, on
``obstacles/current``, latched (transient_local, depth 1, as ``robot_description``): one
MarkerArray, DELETEALL then one marker per obstacle (in its frame, unstamped so rviz places it
by the latest TF, forever), republished whenever one is declared, replaced, removed or
expires. So an rviz started after the declarations shows them, and a deletion too; the
declarations' own topic stays volatile, so that any publisher connects.
"""

from __future__ import annotations

import numpy as np
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from .. import spatial
from ..collision.obstacles import Obstacle, ObstacleSet, ObstacleSlots
from ..kinematics import ForwardKinematics
from .conversions import pose_matrix, stamp_seconds
from .node_tools import throttled_warning
from .tf_listener import TfListener

OBSTACLES_TOPIC = "obstacles"
ROOT_FRAME = "torso"
# Declarations are events, not a stream: keep them all (a script may declare several at once);
# volatile, so that any publisher (rviz tools, ros2 topic pub, scripts) connects.
OBSTACLE_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
# The obstacles taken, latched: a late subscriber (rviz) gets them as they stand.
DISPLAY_TOPIC = "obstacles/current"
DISPLAY_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
DISPLAY_COLOR = ColorRGBA(r=0.9, g=0.1, b=0.1, a=0.5)
_RELATIVE_TOLERANCE = 1e-6
_IDENTITY = np.eye(4)
_IDENTITY.flags.writeable = False


def obstacle_from_marker(marker: Marker, now_s: float) -> Obstacle:
    """The obstacle an ADD marker declares (ValueError with the reason when refused)."""
    key = (marker.ns, int(marker.id))
    pose = pose_matrix(marker.pose)
    if pose is None:
        raise ValueError(f"obstacle {key}: pose must be finite with a non-zero quaternion")
    sx, sy, sz = marker.scale.x, marker.scale.y, marker.scale.z
    if not all(np.isfinite(v) and v > 0.0 for v in (sx, sy, sz)):
        raise ValueError(f"obstacle {key}: scale must be finite and > 0, got ({sx}, {sy}, {sz})")
    if marker.type == Marker.SPHERE:
        if not np.allclose([sy, sz], sx, rtol=_RELATIVE_TOLERANCE):
            raise ValueError(f"obstacle {key}: a SPHERE needs scale.x = scale.y = scale.z (no ellipsoids)")
        half_height = 0.0
    elif marker.type == Marker.CYLINDER:
        if not np.isclose(sy, sx, rtol=_RELATIVE_TOLERANCE):
            raise ValueError(f"obstacle {key}: a CYLINDER needs scale.x = scale.y (a round section)")
        half_height = 0.5 * sz
    else:
        raise ValueError(f"obstacle {key}: marker type {marker.type} not supported: SPHERE ({Marker.SPHERE}) "
                         f"or CYLINDER ({Marker.CYLINDER}); declare a box as an enclosing one")
    ends = pose @ np.array([[0.0, 0.0], [0.0, 0.0], [-half_height, half_height], [1.0, 1.0]])
    stamp_s = stamp_seconds(marker.header.stamp) or now_s
    lifetime_s = stamp_seconds(marker.lifetime)
    expires_s = stamp_s + lifetime_s if lifetime_s > 0.0 else np.inf
    if expires_s < now_s:
        raise ValueError(f"obstacle {key}: stale (stamp + lifetime {expires_s:.3f} s is before now {now_s:.3f} s)")
    obstacle = Obstacle(key, marker.header.frame_id, tuple(ends[:3, 0].tolist()), tuple(ends[:3, 1].tolist()),
                        0.5 * sx, expires_s)
    reason = obstacle.refusal()
    if reason:
        raise ValueError(reason)
    return obstacle


def marker_of(obstacle: Obstacle) -> Marker:
    """The display marker of an obstacle: a SPHERE, or the CYLINDER of its axis and radius (the
    shape declared), in its frame, unstamped, forever."""
    m = Marker(ns=obstacle.key[0], id=obstacle.key[1], action=Marker.ADD, color=DISPLAY_COLOR)
    m.header.frame_id = obstacle.frame_id
    p, q = np.asarray(obstacle.p_m), np.asarray(obstacle.q_m)
    axis = q - p
    length = float(np.linalg.norm(axis))
    m.type = Marker.CYLINDER if length > 0.0 else Marker.SPHERE
    m.scale.x = m.scale.y = 2.0 * obstacle.radius_m
    m.scale.z = length if length > 0.0 else 2.0 * obstacle.radius_m
    centre = 0.5 * (p + q)
    m.pose.position.x, m.pose.position.y, m.pose.position.z = centre.tolist()
    # The rotation taking z onto the axis (about z x axis; about x when it points down).
    z = np.array([0.0, 0.0, 1.0])
    unit = axis / length if length > 0.0 else z
    turn = np.cross(z, unit)
    angle = float(np.arctan2(np.linalg.norm(turn), unit[2]))
    if angle > 0.0 and np.linalg.norm(turn) < 1e-12:
        turn = np.array([1.0, 0.0, 0.0])
    direction = turn / np.linalg.norm(turn) if angle > 0.0 else z
    x, y, zq, w = spatial.quaternion_xyzw_from_rotation(spatial.rotation_from_vector(direction * angle))
    m.pose.orientation.x, m.pose.orientation.y, m.pose.orientation.z, m.pose.orientation.w = x, y, zq, w
    return m


def display_markers(obstacles: ObstacleSet) -> MarkerArray:
    """The obstacles as they stand: DELETEALL (what was shown before), then one marker each."""
    return MarkerArray(markers=[Marker(action=Marker.DELETEALL), *(marker_of(o) for o in obstacles.obstacles())])


def fk_frame(fk: ForwardKinematics, frame: str) -> bool:
    """Whether `frame` is one of the robot's own (placed by its forward kinematics)."""
    return frame == ROOT_FRAME or fk.has_frame(frame)


class ObstacleInput:
    """Subscribes to ``obstacles`` for `node`, keeps them in `obstacles` (an ObstacleSet) and
    places them in the torso frame each cycle (:meth:`resolve`); `fk` places the robot's frames.
    With `display`, publishes them as they stand on DISPLAY_TOPIC (latched) when they change."""

    def __init__(self, node: Node, fk: ForwardKinematics, obstacles: ObstacleSet | None = None,
                 display: bool = False):
        self.node = node
        self.fk = fk
        self._state = fk.new_state()
        self._state_valid = False
        self.obstacles = obstacles or ObstacleSet()
        self.tf: TfListener | None = None  # made at the first obstacle in another frame than torso's
        self._changed = False
        self._last = ObstacleSlots(len(self.obstacles.slots))
        node.create_subscription(MarkerArray, OBSTACLES_TOPIC, self.on_markers, OBSTACLE_QOS)
        self._display_pub = node.create_publisher(MarkerArray, DISPLAY_TOPIC, DISPLAY_QOS) if display else None
        self._display()  # none yet: a late rviz clears what an earlier run left

    def _now_s(self) -> float:
        return self.node.get_clock().now().nanoseconds * 1e-9

    def on_markers(self, msg: MarkerArray) -> None:
        now_s = self._now_s()
        changed = self._changed
        self._changed = False
        for marker in msg.markers:
            try:
                self.apply(marker, now_s)
            except ValueError as err:
                throttled_warning(self.node, f"obstacle {marker.ns}/{marker.id}", f"obstacle refused: {err}")
        if self._changed:
            self._display()
        self._changed |= changed

    def _display(self) -> None:
        if self._display_pub is not None:
            self._display_pub.publish(display_markers(self.obstacles))

    def apply(self, marker: Marker, now_s: float) -> None:
        """One marker's action (ValueError with the reason when refused)."""
        if marker.action == Marker.DELETEALL:
            self._changed |= self.obstacles.clear(marker.ns or None) > 0
        elif marker.action == Marker.DELETE:
            self._changed |= self.obstacles.remove((marker.ns, int(marker.id)))
        elif marker.action == Marker.ADD:  # MODIFY is the same value (0)
            obstacle = obstacle_from_marker(marker, now_s)
            self.obstacles.declare(obstacle)
            self._changed = True
            if not fk_frame(self.fk, obstacle.frame_id) and self.tf is None:
                self.tf = TfListener(self.node)
        else:
            raise ValueError(f"unknown marker action {marker.action}")

    def resolve(self, now_s: float, out: ObstacleSlots, q_command: np.ndarray) -> bool:
        """Drop stale obstacles, place the others in the torso frame into `out` (the robot's
        frames at `q_command`); whether `out` changed since the last call."""
        expired = self.obstacles.expire(now_s)
        for key in expired:
            self.node.get_logger().info(f"obstacle {key} expired (lifetime)")
            self._changed = True
        if expired:
            self._display()
        if not self._changed and not len(self.obstacles):
            return False
        self._q_command, self._state_valid = q_command, False
        missing = self.obstacles.in_torso(self._torso_from, out)
        if missing:
            throttled_warning(self.node, "obstacle frames",
                              f"obstacles in frames {sorted(set(missing))} left out: not connected to "
                              f"{ROOT_FRAME!r} in TF")
        last = self._last
        changed = self._changed or not np.array_equal(out.packed, last.packed)
        if changed:
            np.copyto(last.packed, out.packed)
        self._changed = False
        return changed

    def _torso_from(self, frame: str) -> np.ndarray | None:
        if frame == ROOT_FRAME:
            return _IDENTITY
        if fk_frame(self.fk, frame):
            if not self._state_valid:
                self.fk.compute(self._q_command, out=self._state)
                self._state_valid = True
            return self.fk.pose(self._state, frame)
        if self.tf is None:
            return None
        try:
            return self.tf.lookup(frame, ROOT_FRAME)
        except KeyError:
            return None
