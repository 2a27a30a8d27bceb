"""The obstacles topic's markers: what is declared, what is refused and why, and what a script's
setObstacle sends (no node process needed)."""

import numpy as np
import pytest

pytest.importorskip("rclpy")

from builtin_interfaces.msg import Duration, Time  # noqa: E402
from visualization_msgs.msg import Marker  # noqa: E402

from nao_motion.ros.obstacle_input import obstacle_from_marker  # noqa: E402


def marker(kind=Marker.SPHERE, scale=(0.1, 0.1, 0.1), position=(0.2, 0.1, 0.0), w=1.0, frame="torso",
           stamp_s=0.0, lifetime_s=0.0) -> Marker:
    m = Marker(ns="test", id=3, type=kind, action=Marker.ADD)
    m.header.frame_id = frame
    m.header.stamp = Time(sec=int(stamp_s), nanosec=int((stamp_s % 1) * 1e9))
    m.lifetime = Duration(sec=int(lifetime_s), nanosec=int((lifetime_s % 1) * 1e9))
    m.pose.position.x, m.pose.position.y, m.pose.position.z = position
    m.pose.orientation.w = w
    m.scale.x, m.scale.y, m.scale.z = scale
    return m


def test_a_sphere_marker_is_a_sphere_of_half_its_scale():
    o = obstacle_from_marker(marker(), now_s=5.0)
    assert o.key == ("test", 3) and o.frame_id == "torso" and o.radius_m == pytest.approx(0.05)
    np.testing.assert_allclose(o.p_m, (0.2, 0.1, 0.0))
    np.testing.assert_allclose(o.q_m, (0.2, 0.1, 0.0))
    assert o.expires_s == np.inf


def test_a_cylinder_marker_is_the_capsule_of_its_axis_turned_by_the_pose():
    m = marker(Marker.CYLINDER, scale=(0.06, 0.06, 0.4))
    m.pose.orientation.x, m.pose.orientation.w = np.sin(np.pi / 4), np.cos(np.pi / 4)  # z axis onto -y
    o = obstacle_from_marker(m, now_s=0.0)
    np.testing.assert_allclose(o.p_m, (0.2, 0.3, 0.0), atol=1e-12)
    np.testing.assert_allclose(o.q_m, (0.2, -0.1, 0.0), atol=1e-12)
    assert o.radius_m == pytest.approx(0.03)


def test_lifetime_counts_from_the_stamp_or_the_arrival():
    assert obstacle_from_marker(marker(stamp_s=10.0, lifetime_s=2.0), now_s=11.0).expires_s == pytest.approx(12.0)
    assert obstacle_from_marker(marker(lifetime_s=2.0), now_s=11.0).expires_s == pytest.approx(13.0)


@pytest.mark.parametrize("bad, reason", [
    (marker(Marker.CUBE), "not supported"),
    (marker(scale=(0.1, 0.1, 0.2)), "no ellipsoids"),
    (marker(Marker.CYLINDER, scale=(0.1, 0.2, 0.3)), "round section"),
    (marker(scale=(0.0, 0.0, 0.0)), "scale"),
    (marker(position=(np.nan, 0.0, 0.0)), "pose"),
    (marker(w=0.0), "pose"),
    (marker(frame=""), "frame_id"),
    (marker(scale=(5.0, 5.0, 5.0)), "radius"),
    (marker(stamp_s=1.0, lifetime_s=1.0), "stale"),
])
def test_malformed_or_stale_markers_are_refused_with_the_reason(bad, reason):
    with pytest.raises(ValueError, match=reason):
        obstacle_from_marker(bad, now_s=10.0)


def test_a_scripts_obstacle_lifetime_counts_on_the_suites_clock_even_a_simulated_one():
    """setObstacle(..., lifetime) from a script (wall clock) to a suite on the simulator's clock:
    the obstacle must expire `lifetime` after it arrives in the suite's time, not decades on."""
    import rclpy
    from ros_probe import SpinningProbe
    from visualization_msgs.msg import MarkerArray

    from nao_motion.ros.obstacle_input import OBSTACLE_QOS, OBSTACLES_TOPIC

    rclpy.init()
    suite = SpinningProbe("obstacle_suite_side")
    received = []
    suite.node.create_subscription(MarkerArray, OBSTACLES_TOPIC, lambda msg: suite.add(received, msg), OBSTACLE_QOS)
    suite.start()
    try:
        from nao_motion.almotion import ALMotion

        with ALMotion("V5", node_name="obstacle_client") as motion:
            motion.setObstacle("ball", "Sphere", [0.2, 0.1, 0.0], [0.03], frame="torso", lifetime=2.0)
            assert suite.wait(lambda: received), "no declaration on the obstacles topic"
        sim_now_s = 5.0
        assert obstacle_from_marker(received[0].markers[0], now_s=sim_now_s).expires_s == pytest.approx(7.0)
    finally:
        suite.close()
        rclpy.shutdown()


@pytest.mark.parametrize("axis", [(0.0, 0.0, 1.0), (0.0, 0.0, -1.0), (0.3, -0.5, 0.2), (1.0, 0.0, 0.0)])
def test_the_display_marker_of_an_obstacle_declares_the_same_obstacle(axis):
    """What obstacles/current shows is the shape taken: its marker, declared again, is that shape."""
    from nao_motion.collision.obstacles import Obstacle
    from nao_motion.ros.obstacle_input import marker_of

    centre, axis = np.array([0.2, 0.1, -0.1]), 0.1 * np.asarray(axis) / np.linalg.norm(axis)
    for p, q in ((centre - axis, centre + axis), (centre, centre)):
        taken = Obstacle(("test", 4), "l_sole", tuple(p), tuple(q), 0.03)
        again = obstacle_from_marker(marker_of(taken), now_s=1.0)
        assert again.key == taken.key and again.frame_id == "l_sole" and again.radius_m == pytest.approx(0.03)
        np.testing.assert_allclose(again.p_m, p, atol=1e-12)
        np.testing.assert_allclose(again.q_m, q, atol=1e-12)
