"""The obstacles as rviz sees them: the collision filter node (its own process, real DDS) keeps
the obstacles taken on ``obstacles/current``, latched, so a subscriber that starts after the
declarations (an rviz opened late) gets them as they stand, removals included."""

import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402
from visualization_msgs.msg import Marker, MarkerArray  # noqa: E402

from nao_motion.ros.obstacle_input import DISPLAY_QOS, DISPLAY_TOPIC, OBSTACLE_QOS, OBSTACLES_TOPIC  # noqa: E402
from nao_motion.suite import NODES  # noqa: E402

FILTER = next(spec for spec in NODES if spec.executable == "collision_filter")


def sphere(ident: int, x: float) -> Marker:
    m = Marker(ns="display_test", id=ident, type=Marker.SPHERE, action=Marker.ADD)
    m.header.frame_id = "torso"
    m.pose.position.x, m.pose.orientation.w = x, 1.0
    m.scale.x = m.scale.y = m.scale.z = 0.06
    return m


def shown(msg: MarkerArray) -> list[tuple]:
    """What a MarkerArray leaves on screen after a DELETEALL: (ns, id, type, x) per marker."""
    assert msg.markers and msg.markers[0].action == Marker.DELETEALL, "the state starts with DELETEALL"
    return sorted((m.ns, m.id, m.type, round(m.pose.position.x, 6)) for m in msg.markers[1:])


@pytest.fixture(scope="module")
def filter_node(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    nodes.start(FILTER)
    rclpy.init()
    probe = SpinningProbe("obstacle_display_probe")
    probe.start()
    try:
        yield probe
    finally:
        probe.close()
        rclpy.shutdown()
        nodes.stop()


def test_a_late_subscriber_gets_the_obstacles_as_they_stand(filter_node):
    probe = filter_node
    declare = probe.node.create_publisher(MarkerArray, OBSTACLES_TOPIC, OBSTACLE_QOS)
    early = []
    probe.node.create_subscription(MarkerArray, DISPLAY_TOPIC, lambda m: probe.add(early, shown(m)), DISPLAY_QOS)
    assert probe.wait(lambda: declare.get_subscription_count() > 0, 30.0), "the filter does not listen"
    declare.publish(MarkerArray(markers=[sphere(1, 0.3), sphere(2, 0.4)]))
    both = [("display_test", 1, Marker.SPHERE, 0.3), ("display_test", 2, Marker.SPHERE, 0.4)]
    assert probe.wait(lambda: both in early, 30.0), f"declarations not shown: {early}"
    removal = Marker(ns="display_test", id=1, action=Marker.DELETE)
    declare.publish(MarkerArray(markers=[removal, sphere(3, 0.5)]))
    now = [("display_test", 2, Marker.SPHERE, 0.4), ("display_test", 3, Marker.SPHERE, 0.5)]
    assert probe.wait(lambda: early and early[-1] == now, 30.0), f"removal not shown: {early}"

    # rviz opened now: it gets the current state at once, without the declarations being sent again.
    late = []
    probe.node.create_subscription(MarkerArray, DISPLAY_TOPIC, lambda m: probe.add(late, shown(m)), DISPLAY_QOS)
    assert probe.wait(lambda: late, 30.0), "a late subscriber got nothing"
    assert late == [now]
