"""The suite composed in one process (nao_motion.nodes.suite_node): still separate ROS 2 nodes,
each with its own name, its own parameter file, its own remaps, and the process's `-p` values."""

import time

import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402

from builtin_interfaces.msg import Time  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import PoseStamped  # noqa: E402
from rcl_interfaces.srv import GetParameters  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

from nao_motion.model import NaoModel  # noqa: E402

from nao_motion.nodes.suite_node import node_arguments, process_parameters, process_remaps  # noqa: E402
from nao_motion.ros.footstep_messages import decode_plan  # noqa: E402
from nao_motion.suite import SUITE_PROCESS, suite_nodes  # noqa: E402


def test_process_parameters_are_the_p_values_after_ros_args():
    argv = ["suite_node", "--ros-args", "-p", "nao_version:=V6", "-r", "a:=b", "-p", "use_sim_time:=true",
            "--param", "stale_timeout_s:=0.25"]
    assert [(p.name, p.value) for p in process_parameters(argv)] == [
        ("nao_version", "V6"), ("use_sim_time", True), ("stale_timeout_s", 0.25)]
    assert process_parameters(["suite_node", "-p", "x:=1"]) == []  # not a ROS argument


def test_a_nodes_remap_onto_a_topic_the_process_remaps_follows_it():
    """rcl takes a node's own rule before the process's and does not chain them: the collision
    filter's robot_commands:=joint_commands must follow the process's joint_commands:=<driver's>."""
    argv = ["suite_node", "--ros-args", "-r", "joint_commands:=/effectors/joint_positions",
            "-r", "walk:cmd_vel:=x", "-p", "a:=b"]
    remaps = process_remaps(argv)
    assert remaps == {"joint_commands": "/effectors/joint_positions"}  # node-prefixed rules are the node's
    spec = next(s for s in suite_nodes() if s.executable == "collision_filter")
    args = node_arguments(spec, remaps)
    assert "collision_filter/robot_commands:=/effectors/joint_positions" in args
    assert "joint_commands:=collision_filter/safe_joint_commands" in args
    assert "collision_filter/robot_commands:=joint_commands" in node_arguments(spec)


@pytest.fixture(scope="module")
def composed(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    nodes.start(SUITE_PROCESS, params={"nao_version": "V6"}, use_sim_time=True)
    rclpy.init()
    probe = SpinningProbe("suite_node_probe")
    probe.start()
    try:
        yield probe
    finally:
        probe.close()
        rclpy.shutdown()
        nodes.stop()


def test_every_suite_node_runs_under_its_own_name(composed):
    names = {spec.executable for spec in suite_nodes()}
    assert composed.wait(lambda: names <= set(composed.node.get_node_names()), 30.0), \
        composed.node.get_node_names()


def test_the_process_parameters_win_over_each_nodes_file_and_its_own_values_stay(composed):
    for spec in suite_nodes():
        response = composed.call(GetParameters, f"{spec.executable}/get_parameters",
                                 GetParameters.Request(names=["nao_version"]), timeout_s=30.0)
        assert response.values[0].string_value == "V6", spec.executable  # the files say V5
    response = composed.call(GetParameters, "kinematics/get_parameters",
                             GetParameters.Request(names=["publish_frequency"]))
    assert response.values[0].double_value == 50.0  # from config/kinematics.yaml


def test_each_node_has_its_own_remaps(composed):
    def publishers(topic):
        return {info.node_name for info in composed.node.get_publishers_info_by_topic(topic)}

    # The collision filter's joint_commands go to the whole-body node; the whole body's to the robot.
    assert composed.wait(lambda: "collision_filter" in publishers("/collision_filter/safe_joint_commands"), 30.0)
    assert "whole_body" in publishers("/joint_commands")
    assert "collision_filter" not in publishers("/joint_commands")


def test_the_process_reads_joint_states_and_clock_once(composed):
    """One reader of the robot's cycle stream and one of /clock for the whole process (each node
    of its own had one; the kinematics node's publication follows the joint_states stamps too)."""
    def readers(topic):
        return sorted(info.node_name for info in composed.node.get_subscriptions_info_by_topic(topic))

    assert composed.wait(lambda: readers("/joint_states") == ["whole_body"], 30.0), \
        readers("/joint_states")
    assert readers("/clock") == ["whole_body"]


def test_the_process_takes_each_sampled_stream_once(composed):
    """The IMU (kinematics, walk, whole body) and joint_commands (the walk, and the collision
    filter's robot_commands remapped onto it) each have one reader in the process."""
    suite = {spec.executable for spec in suite_nodes()}

    def readers(topic):
        return [info.node_name for info in composed.node.get_subscriptions_info_by_topic(topic)
                if info.node_name in suite]

    assert composed.wait(lambda: len(readers("/imu")) == 1, 30.0), readers("/imu")
    assert len(readers("/joint_commands")) == 1, readers("/joint_commands")


def test_the_planner_plans_a_goal_after_the_robots_cycle(composed):
    """Composed, the footstep planner's work follows the cycle the nodes run on each joint_states:
    a moveTo's planning (5-10 ms) started by a goal just before a joint_states held the whole
    body's answer past the robot's next cycle. A goal waits for the next joint_states, then is
    planned. (Run last: it sends the robot's joint_states.)"""
    plans = []
    node = composed.node
    node.create_subscription(Float64MultiArray, "footsteps/plan", lambda m: composed.add(plans, decode_plan(m)),
                             QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                                        durability=DurabilityPolicy.TRANSIENT_LOCAL))
    goals = node.create_publisher(PoseStamped, "goal_pose", 10)
    states = node.create_publisher(JointState, "joint_states", 10)
    assert composed.wait(lambda: goals.get_subscription_count() > 0 and states.get_subscription_count() > 0, 30.0)
    goal = PoseStamped()
    goal.header.frame_id = "odom"
    goal.pose.position.x, goal.pose.orientation.w = 0.3, 1.0
    goals.publish(goal)
    assert not composed.wait(lambda: any(p.accepted_commands for p in plans), 1.5), "planned with no robot cycle"
    model = NaoModel("V6")
    states.publish(JointState(name=list(model.joint_names), position=model.zero_configuration().tolist()))
    assert composed.wait(lambda: any(p.accepted_commands for p in plans), 10.0), "not planned after the cycle"
    planned = next(p for p in plans if p.accepted_commands)
    assert planned.refused_commands == 0 and len(planned.steps) > 0


def test_the_nodes_diagnostics_follow_the_robots_cycle_one_at_a_time(composed):
    """Composed, each node still reports about once a second, but after a robot cycle and never
    two in the same one: on their own timers the five reports fell due in one wake-up and ran
    before the joint_states that came meanwhile. Each report is stamped with the node's clock,
    here the /clock this test sends with every joint_states: one stamp per cycle. (Run after the
    planner's test: it sends the robot's joint_states.)"""
    reports = []
    node = composed.node
    suite = {f"nao_motion: {spec.executable}" for spec in suite_nodes()}
    node.create_subscription(DiagnosticArray, "/diagnostics", lambda m: composed.add(reports, m), 100)
    clock = node.create_publisher(Clock, "/clock", 10)
    states = node.create_publisher(JointState, "joint_states", 10)
    model = NaoModel("V6")
    state = JointState(name=list(model.joint_names), position=model.zero_configuration().tolist())
    deadline = time.monotonic() + 4.0
    cycle, sent = 0, set()
    while time.monotonic() < deadline:
        cycle += 1
        stamp = Time(sec=1000 + cycle // 100, nanosec=(cycle % 100) * 10_000_000)
        sent.add((stamp.sec, stamp.nanosec))
        clock.publish(Clock(clock=stamp))
        state.header.stamp = stamp
        states.publish(state)
        time.sleep(0.01)
    assert composed.wait(lambda: False, 0.5) is False  # the last reports arrive
    stamps: dict[str, list[tuple[int, int]]] = {}
    for msg in list(reports):
        for status in msg.status:
            # The first /clock (0 -> 1000 s) makes every node's own timer due at once, before any cycle.
            if status.name in suite and (msg.header.stamp.sec, msg.header.stamp.nanosec) > (1000, 10_000_000):
                stamps.setdefault(status.name, []).append((msg.header.stamp.sec, msg.header.stamp.nanosec))
    assert set(stamps) == suite, sorted(stamps)
    assert all(len(s) >= 2 for s in stamps.values()), stamps  # still about once a second each
    every = [t for s in stamps.values() for t in s]
    assert len(set(every)) == len(every), stamps  # never two nodes' reports after the same cycle
    # The nodes' clock is the /clock the cycles came with (read with each joint_states, composed).
    assert set(every) <= sent, sorted(set(every) - sent)
    # The whole body answered these joint_states and timed its answers from their publication.
    whole_body = [{kv.key: kv.value for kv in status.values} for msg in reports for status in msg.status
                  if status.name == "nao_motion: whole_body"]
    assert "answer_latency_ms" in whole_body[-1] and "late_answers_waiting" in whole_body[-1], whole_body[-1]
