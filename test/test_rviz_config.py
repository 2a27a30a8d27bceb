"""config/nao_motion.rviz against the running suite: every display reads a topic the suite
publishes, with a QoS that receives it, in frames the suite's TF has and joins to the fixed frame.

The first tests read the file alone (no ROS needed). The last starts the simulator and the suite
with the project's bring-up (`nao_motion.bringup.Suite`, as `nao-motion sim`), subscribes to
each display's topic as rviz would (the display's message type, the QoS the config gives it),
declares an obstacle and walks the robot through `goal_pose` (the SetGoal tool's topic), so that
the markers built only for a subscriber and only while walking come too, and checks what came:
each topic's messages, the frames they name, the robot description's links, the fixed frame and
the view's target frame, all in /tf + /tf_static and connected to the fixed frame."""

from __future__ import annotations

import os
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "config" / "nao_motion.rviz"

# rviz display class -> (the property holding its topic, its message type as module, name)
TOPIC_DISPLAYS = {
    "rviz_default_plugins/MarkerArray": ("Topic", ("visualization_msgs.msg", "MarkerArray")),
    "rviz_default_plugins/PointStamped": ("Topic", ("geometry_msgs.msg", "PointStamped")),
    "rviz_default_plugins/RobotModel": ("Description Topic", ("std_msgs.msg", "String")),
}
FRAME_DISPLAYS = {"rviz_default_plugins/Grid", "rviz_default_plugins/TF"}  # no topic: they read TF
# The QoS entries of a topic property and the values rviz accepts (rviz_common's QosProfileProperty);
# each is spelled out in the config, so that what the check subscribes with is what rviz does.
QOS_VALUES = {"History Policy": {"Keep Last", "Keep All"}, "Reliability Policy": {"Reliable", "Best Effort"},
              "Durability Policy": {"Volatile", "Transient Local"}}
WALK_PLAN_TOPICS = {"/footsteps/markers", "/walk/markers"}


@dataclass(frozen=True)
class TopicDisplay:
    name: str
    display_class: str
    topic: str
    qos: dict  # the config's QoS entries

    def message_type(self):
        module, name = TOPIC_DISPLAYS[self.display_class][1]
        return getattr(__import__(module, fromlist=[name]), name)

    def qos_profile(self):
        from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

        return QoSProfile(
            depth=int(self.qos["Depth"]),
            history=HistoryPolicy.KEEP_LAST if self.qos["History Policy"] == "Keep Last" else HistoryPolicy.KEEP_ALL,
            reliability=(ReliabilityPolicy.RELIABLE if self.qos["Reliability Policy"] == "Reliable"
                         else ReliabilityPolicy.BEST_EFFORT),
            durability=(DurabilityPolicy.TRANSIENT_LOCAL if self.qos["Durability Policy"] == "Transient Local"
                        else DurabilityPolicy.VOLATILE))


def load_config() -> dict:
    return yaml.safe_load(CONFIG.read_text())["Visualization Manager"]


def topic_displays(manager: dict) -> list[TopicDisplay]:
    displays = []
    for d in manager["Displays"]:
        if d["Class"] in TOPIC_DISPLAYS:
            prop = d[TOPIC_DISPLAYS[d["Class"]][0]]
            displays.append(TopicDisplay(d["Name"], d["Class"], prop["Value"],
                                         {k: v for k, v in prop.items() if k != "Value"}))
    return displays


def frame_references(manager: dict) -> dict[str, str]:
    """Every frame the config names: the fixed frame, the view's target, a display's reference frame."""
    refs = {"Fixed Frame": manager["Global Options"]["Fixed Frame"]}
    target = manager["Views"]["Current"].get("Target Frame", "<Fixed Frame>")
    refs["view's Target Frame"] = target
    for d in manager["Displays"]:
        if "Reference Frame" in d:
            refs[f"{d['Name']}'s Reference Frame"] = d["Reference Frame"]
    return {what: frame for what, frame in refs.items() if frame != "<Fixed Frame>"}


def test_every_display_is_one_the_check_knows_with_its_qos_spelled_out():
    manager = load_config()
    names = [d["Name"] for d in manager["Displays"]]
    assert len(names) == len(set(names)), names
    for d in manager["Displays"]:
        assert d["Class"] in set(TOPIC_DISPLAYS) | FRAME_DISPLAYS, \
            f"display {d['Name']!r}: {d['Class']} is not checked against the suite by this test"
        assert d.get("Enabled") == d.get("Value"), f"display {d['Name']!r}: Enabled and Value disagree"
    for display in topic_displays(manager):
        assert display.topic.startswith("/"), f"{display.name}: {display.topic} (absolute: no namespace surprise)"
        assert int(display.qos.get("Depth", 0)) >= 1, display
        for key, values in QOS_VALUES.items():
            assert display.qos.get(key) in values, f"{display.name}: {key} {display.qos.get(key)!r}, one of {values}"
    goal = next(t for t in manager["Tools"] if t["Class"] == "rviz_default_plugins/SetGoal")
    assert goal["Topic"]["Value"] == "/goal_pose"


def test_the_walks_plan_is_shown():
    """The footstep planner's steps and the walk's planned ZMP and CoM, enabled."""
    manager = load_config()
    enabled = {d.topic for d in topic_displays(manager)
               if next(x for x in manager["Displays"] if x["Name"] == d.name)["Enabled"]}
    assert WALK_PLAN_TOPICS <= enabled, enabled


# ---- against the running suite ------------------------------------------------------------

GOAL_ODOM = (0.3, 0.0)  # m, ahead of the robot's start: a short moveTo
OBSTACLE = {"ns": "rviz_check", "frame": "odom", "position_m": (0.0, 1.0, 0.2), "diameter_m": 0.1}  # well off the way
WALK_DIAGNOSTICS = "nao_motion: walk"


class Received:
    """What came on one display's topic: the message count and the frames its messages name."""

    def __init__(self):
        self.count = 0
        self.frames: set[str] = set()
        self.description: str | None = None

    def take(self, msg) -> None:
        from visualization_msgs.msg import Marker

        self.count += 1
        if hasattr(msg, "markers"):
            self.frames.update(m.header.frame_id for m in msg.markers if m.action != Marker.DELETEALL)
        elif hasattr(msg, "header"):
            self.frames.add(msg.header.frame_id)
        else:
            self.description = msg.data

    def drawn(self) -> bool:
        """A message that draws something (not only a DELETEALL): it names its frames."""
        return bool(self.frames) or self.description is not None


def urdf_links(description: str) -> set[str]:
    return {link.get("name") for link in ET.fromstring(description).iter("link")}


def named_frames(displays: list[TopicDisplay], received: dict[str, Received]) -> dict[str, str]:
    """What each display will look up in TF: its messages' frames, the robot description's links."""
    named = {}
    for d in displays:
        named.update({f"{d.name} ({d.topic}): {f!r}": f for f in received[d.topic].frames})
        if received[d.topic].description is not None:
            named.update({f"{d.name}'s robot description: link {f!r}": f
                          for f in urdf_links(received[d.topic].description)})
    return named


def unjoined_frames(tf, named: dict[str, str], fixed: str) -> list[str]:
    """The named frames that exist but do not join the fixed frame in TF."""
    unjoined = []
    for what, f in named.items():
        try:
            tf.lookup(f, fixed)
        except KeyError as error:
            unjoined.append(f"{what}: {error}")
    return unjoined


def test_every_display_receives_the_suite_in_frames_of_its_tf(tmp_path):
    rclpy = pytest.importorskip("rclpy")
    pytest.importorskip("mujoco")
    from geometry_msgs.msg import PoseStamped
    from visualization_msgs.msg import Marker, MarkerArray

    from nao_motion.bringup import Suite
    from nao_motion.ros.monitor import SuiteMonitor
    from nao_motion.ros.obstacle_input import OBSTACLE_QOS, OBSTACLES_TOPIC
    from nao_motion.ros.tf_listener import TfListener

    manager = load_config()
    displays = topic_displays(manager)
    # Half real time leaves headroom on a loaded 2-core machine (test_bringup.py's).
    suite = Suite(dict(os.environ), "V5", real_time_factor=0.5, log_dir=tmp_path).start()
    rclpy.init()
    node = rclpy.create_node("rviz_config_check")
    monitor = SuiteMonitor(node, tf=False)
    tf = TfListener(node)
    received = {d.topic: Received() for d in displays}
    for d in displays:
        node.create_subscription(d.message_type(), d.topic, received[d.topic].take, d.qos_profile())
    goal_pub = node.create_publisher(PoseStamped, "/goal_pose", 10)
    obstacle_pub = node.create_publisher(MarkerArray, OBSTACLES_TOPIC, OBSTACLE_QOS)
    goal = PoseStamped()
    goal.header.frame_id = "odom"
    goal.pose.position.x, goal.pose.position.y = GOAL_ODOM
    goal.pose.orientation.w = 1.0
    obstacle = Marker(ns=OBSTACLE["ns"], id=0, type=Marker.SPHERE, action=Marker.ADD)
    obstacle.header.frame_id = OBSTACLE["frame"]
    obstacle.pose.position.x, obstacle.pose.position.y, obstacle.pose.position.z = OBSTACLE["position_m"]
    obstacle.pose.orientation.w = 1.0
    obstacle.scale.x = obstacle.scale.y = obstacle.scale.z = OBSTACLE["diameter_m"]

    def walk_ready() -> bool:
        return monitor.diagnostics.get(WALK_DIAGNOSTICS, {}).get("_level") == "0"

    try:
        assert monitor.spin_for(90.0, until=walk_ready), \
            f"the walk did not report ready: {monitor.diagnostics.get(WALK_DIAGNOSTICS)}; logs in {tmp_path}"
        # The same goal and obstacle again each second until everything came: a message sent before
        # the suite's subscription matched is lost; the goal in odom is the same goal each time and
        # the obstacle (unstamped: from its arrival, forever) replaces itself.
        deadline = time.monotonic() + 60.0
        while not all(r.drawn() for r in received.values()) and time.monotonic() < deadline:
            obstacle_pub.publish(MarkerArray(markers=[obstacle]))
            goal_pub.publish(goal)
            monitor.spin_for(1.0, until=lambda: all(r.drawn() for r in received.values()))
        monitor.spin_for(0.5)  # the latest /tf of every publisher
        named = {**frame_references(manager), **named_frames(displays, received)}
        frames = tf.frames()
        unjoined = unjoined_frames(tf, named, manager["Global Options"]["Fixed Frame"])
        goal_types = {info.topic_type for info in node.get_subscriptions_info_by_topic("/goal_pose")}
    finally:
        monitor.close()
        node.destroy_node()
        rclpy.try_shutdown()
        suite.stop()

    silent = {d.name: d.topic for d in displays if not received[d.topic].drawn()}
    assert not silent, (f"displays whose topic brought nothing to draw: {silent} "
                        f"(counts {({t: r.count for t, r in received.items()})}; logs in {tmp_path})")
    missing = {what: f for what, f in named.items() if f not in frames}
    assert not missing, f"frames not in /tf + /tf_static ({sorted(frames)}): {missing}"
    assert not unjoined, f"frames rviz could not place in the fixed frame: {unjoined}"
    assert "geometry_msgs/msg/PoseStamped" in goal_types, f"no goal_pose subscriber for rviz's SetGoal: {goal_types}"
