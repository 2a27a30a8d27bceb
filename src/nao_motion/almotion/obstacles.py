"""Obstacles outside the body for scripts: setObstacle, removeObstacle, removeAllObstacles.

Not NAOqi's (ALMotion protected the body against itself only); named in its style. Each call
publishes one rviz marker on the ``obstacles`` topic (``nao_motion.ros.obstacle_input``), which
the collision filter and the whole body take: namespace "almotion", id from the name, so that a
name always means the same obstacle, from any script. The declaration is checked here as the
nodes check it: a refused one raises :class:`ALMotionError` with the reason.
"""

from __future__ import annotations

import zlib

from builtin_interfaces.msg import Duration
from visualization_msgs.msg import Marker, MarkerArray

from ..ros.obstacle_input import OBSTACLE_QOS, OBSTACLES_TOPIC, obstacle_from_marker
from .client_base import ALMotionError

OBSTACLE_NAMESPACE = "almotion"
SHAPES = {"Sphere": Marker.SPHERE, "Cylinder": Marker.CYLINDER}


def obstacle_id(name: str) -> int:
    """The marker id of a named obstacle (the same in every process)."""
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


class ObstacleMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._obstacle_pub = self.node.create_publisher(MarkerArray, OBSTACLES_TOPIC, OBSTACLE_QOS)

    def setObstacle(self, name: str, shape: str, position: list[float], dimensions: list[float],
                    frame: str = "torso", lifetime: float = 0.0) -> None:
        """Declare (or move) the obstacle `name`: "Sphere" ([radius]) or "Cylinder" ([radius,
        height], axis along `frame`'s z) centred at `position` (x, y, z) m in the TF frame `frame`;
        dropped after `lifetime` s (0: kept until removed)."""
        if shape not in SHAPES:
            raise ALMotionError(f"unknown obstacle shape {shape!r}: expected one of {sorted(SHAPES)}")
        expected = 1 if shape == "Sphere" else 2
        if len(position) != 3 or len(dimensions) != expected:
            raise ALMotionError(f"a {shape} needs a position (x, y, z) and {expected} dimension(s)")
        marker = self._obstacle_marker(name, Marker.ADD)
        marker.type = SHAPES[shape]
        marker.header.frame_id = frame
        marker.pose.position.x, marker.pose.position.y, marker.pose.position.z = (float(v) for v in position)
        marker.pose.orientation.w = 1.0
        diameter = 2.0 * float(dimensions[0])
        marker.scale.x = marker.scale.y = diameter
        marker.scale.z = diameter if shape == "Sphere" else float(dimensions[1])
        marker.color.r, marker.color.a = 1.0, 0.6
        lifetime = float(lifetime)
        if not lifetime >= 0.0:
            raise ALMotionError(f"lifetime must be >= 0 s, got {lifetime!r}")
        marker.lifetime = Duration(sec=int(lifetime), nanosec=int((lifetime % 1.0) * 1e9))
        try:
            obstacle_from_marker(marker, self.node.get_clock().now().nanoseconds * 1e-9)
        except ValueError as err:
            raise ALMotionError(str(err)) from None
        self._publish_obstacles(marker)

    def removeObstacle(self, name: str) -> None:
        """Remove the obstacle `name` (nothing happens if there is none)."""
        self._publish_obstacles(self._obstacle_marker(name, Marker.DELETE))

    def removeAllObstacles(self) -> None:
        """Remove every obstacle declared through ALMotion (the "almotion" namespace)."""
        marker = Marker(ns=OBSTACLE_NAMESPACE, action=Marker.DELETEALL)
        self._publish_obstacles(marker)

    def _obstacle_marker(self, name: str, action: int) -> Marker:
        if not isinstance(name, str) or not name:
            raise ALMotionError(f"an obstacle needs a name, got {name!r}")
        # No stamp: the lifetime then counts from the marker's arrival on the nodes' clock. The
        # script's clock is wall time, the suite's is the simulator's in a simulation: a wall
        # stamp there would put the expiry decades ahead.
        return Marker(ns=OBSTACLE_NAMESPACE, id=obstacle_id(name), action=action)

    def _publish_obstacles(self, marker: Marker) -> None:
        # As every command: once the nodes listen, discovery settled (a declaration published to
        # one of them only would leave the other unaware of the obstacle).
        self._publish(self._obstacle_pub, MarkerArray(markers=[marker]), OBSTACLES_TOPIC)
