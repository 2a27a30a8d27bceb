"""The suite's nodes composed in one process: still separate ROS 2 nodes, with their own names,
parameters (their own config/*.yaml), remaps and topics, spun by one executor on one thread.
The whole-body node, which answers the robot's joint_states with its command, is added first:
the executor serves it first when a joint_states arrives (``nao_motion.ros.executor``), and the
others' work on the same message comes after the robot has its command.

Why: every rclpy process pays for its interpreter and for an executor that wakes once per
message of every subscription. The suite's nodes all take the robot's 100 Hz streams
(joint_states, /clock) and sample others (the IMU, joint_commands); composed, a message several
nodes take wakes one executor once and is taken from DDS once, and the walk -> whole body ->
joint_commands chain runs without crossing process boundaries. The
measured difference: ``./run bench suite`` (``--separate`` for one process per node).

    python -m nao_motion.nodes.suite_node --ros-args -p nao_version:=V5 -p use_sim_time:=true

Parameters given after ``--ros-args`` (``-p name:=value``) apply to every node that declares
them and win over the nodes' parameter files, as they do for a node in a process of its own;
each node also gets its parameter file and its remaps from ``nao_motion.suite``.
"""

from __future__ import annotations

import importlib
import sys
from functools import partial
from typing import Callable

import yaml
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState

from ..paths import config_file
from ..ros import rclpy_compat as compat
from ..ros.node_tools import CycleDiagnostics, publish_most_overdue, run_nodes
from ..ros.qos import LATEST_QOS
from ..ros.sampled import SampledSubscription, SampleView, SharedSample
from ..suite import NodeSpec, suite_nodes


def node_arguments(spec: NodeSpec, process_remaps: dict[str, str] | None = None) -> list[str]:
    """The node's own command-line arguments: its parameter file and its remaps.

    A node's own remap is applied instead of the process's (rcl takes the first rule that
    matches and does not chain them): a remap onto a topic the process remaps (the collision
    filter's ``collision_filter/robot_commands:=joint_commands`` with the process's
    ``joint_commands:=/effectors/joint_positions``) goes where the process's rule sends it."""
    process_remaps = process_remaps or {}
    args = ["--ros-args"]
    config = config_file(spec.config)
    if config.exists():
        args += ["--params-file", str(config)]
    for source, target in spec.remaps.items():
        args += ["-r", f"{source}:={process_remaps.get(target, target)}"]
    return args


def _ros_argument_pairs(argv: list[str], flags: tuple[str, ...]) -> list[tuple[str, str]]:
    """The ``flag name:=value`` pairs of the process's ROS arguments."""
    pairs, ros_args = [], False
    for i, arg in enumerate(argv):
        if arg == "--ros-args":
            ros_args = True
        elif arg == "--":
            ros_args = False
        elif ros_args and arg in flags and i + 1 < len(argv) and ":=" in argv[i + 1]:
            pairs.append(tuple(argv[i + 1].split(":=", 1)))
    return pairs


def process_parameters(argv: list[str]) -> list[Parameter]:
    """The ``-p name:=value`` pairs of the process's ROS arguments (values read as YAML, as rcl does).

    rcl applies a node's own arguments (its parameter file) after the process's: given as
    overrides, the process's values win, as on a node's own command line."""
    return [Parameter(name, value=yaml.safe_load(value)) for name, value in _ros_argument_pairs(argv, ("-p", "--param"))]


def process_remaps(argv: list[str]) -> dict[str, str]:
    """The process's ``-r topic:=topic`` remaps that apply to every node (no ``node:`` prefix)."""
    return {source: target for source, target in _ros_argument_pairs(argv, ("-r", "--remap")) if ":" not in source}


def node_factory(spec: NodeSpec, overrides: list[Parameter], remaps: dict[str, str] | None = None):
    node_class = getattr(importlib.import_module(spec.module), spec.node_class)
    return partial(node_class, cli_args=node_arguments(spec, remaps), parameter_overrides=overrides)


# Served first (see the module docstring); the others' results have a cycle of slack (the walk's
# references are one cycle ahead).
FIRST = "whole_body"


def share_clock(nodes: list) -> None:
    """One /clock subscription for the process: the first node's time source drives every node's
    clock.

    rclpy gives each node a time source with a /clock subscription of its own: composed, each
    simulator tick woke the process once per node and cost the simulator a delivery per node.
    use_sim_time is the process's (``-p use_sim_time:=true`` applies to every node)."""
    compat.share_time_source(nodes)


def share_joint_states(nodes: list) -> None:
    """One joint_states subscription for the nodes that run a cycle on each message: it hands the
    message to each of them in the process's order (the whole body first), then runs the other
    nodes' work that follows the robot's cycle (``after_robot_cycle``).

    Composed, each node's own subscription was a reader of its own: the robot's driver (or the
    simulator) delivered every joint_states once per node, and the process woke once per node.
    The nodes' callbacks take the serialized message (``nao_motion.ros.cdr``)."""
    readers = [(node, sub) for node in nodes for sub in list(node.subscriptions)
               if sub.raw and getattr(sub.callback, "__name__", "") == "on_joint_states"]
    if len({sub.topic_name for _, sub in readers}) != 1:  # remapped apart: each keeps its own
        return
    topic = readers[0][1].topic_name
    # (callback, whether it takes the message info: the whole body times its answer from it)
    callbacks = [(sub.callback, compat.takes_message_info(sub.callback)) for _, sub in readers]
    for node, sub in readers:
        node.destroy_subscription(sub)
    # Nodes whose work is not the cycle's run right after it, while the thread is free until the
    # next joint_states (the footstep planner: ``follow_robot_cycle``).
    followers = [node for node in nodes if hasattr(node, "follow_robot_cycle")]
    for node in followers:
        node.follow_robot_cycle()
    # The nodes' once-a-second diagnostics too, one at most after a cycle (``publish_most_overdue``).
    diagnostics = [node.diagnostics for node in nodes
                   if isinstance(getattr(node, "diagnostics", None), CycleDiagnostics)]
    for d in diagnostics:
        d.followed = True

    read_clock = sample_clock(compat.time_source_of(nodes[0]))

    def on_joint_states(data: bytes, info: dict) -> None:
        read_clock()
        for callback, with_info in callbacks:
            if with_info:
                callback(data, info)
            else:
                callback(data)
        for node in followers:
            node.after_robot_cycle()
        publish_most_overdue(diagnostics)

    nodes[0].create_subscription(JointState, topic, on_joint_states, LATEST_QOS, raw=True)


def sample_clock(time_source) -> Callable[[], None]:
    """The process's /clock read when a joint_states arrives, before the nodes' cycles, instead
    of at a wake-up of its own; returns the read.

    The simulator publishes /clock just before the cycle's sensors, so the process woke twice a
    cycle, once for each: a wake-up costs this process about 0.2 ms of CPU whatever it serves
    (measured, an executor woken by a timer), and this one served only the clock. Read here, the
    cycle still runs on its own cycle's time (the /clock came first). The subscription stays the
    time source's (its QoS, and use_sim_time turned off destroys it as before; turned on again,
    the time source makes an ordinary one, served as usual); without sim time, nothing is read."""
    own = compat.clock_subscription(time_source)
    if own is None:
        return lambda: None
    node = compat.time_source_node(time_source)
    sampled = SampledSubscription(node, own.msg_type, own.topic_name, qos=own.qos_profile)
    node.destroy_subscription(own)
    compat.set_clock_subscription(time_source, sampled.subscription)

    def read_clock() -> None:
        if compat.clock_subscription(time_source) is sampled.subscription and \
                (msg := sampled.take_latest()) is not None:
            time_source.clock_callback(msg)
    return read_clock


def share_samples(nodes: list) -> None:
    """One reader per sampled stream for the process: the nodes that sample the same topic (the
    IMU: kinematics, walk and whole body; joint_commands: the walk and the collision filter's
    robot_commands) read one subscription's samples (``ros.sampled.SharedSample``), which is
    taken from DDS once a cycle instead of once per node (a take with data: ~36 us)."""
    by_topic: dict[tuple, list[tuple[object, str, SampledSubscription]]] = {}
    for node in nodes:
        for name, value in vars(node).items():
            if isinstance(value, SampledSubscription) and value.depth == 1:
                key = (value.subscription.topic_name, value.msg_type, value.raw)
                by_topic.setdefault(key, []).append((node, name, value))
    for readers in by_topic.values():
        if len(readers) < 2:
            continue
        shared = SharedSample(readers[0][2])
        for node, name, sampled in readers:
            if sampled is not shared.sampled:
                node.destroy_subscription(sampled.subscription)
            setattr(node, name, SampleView(shared))


def prepare(nodes: list) -> None:
    share_clock(nodes)
    share_joint_states(nodes)
    share_samples(nodes)


def main(args=None) -> None:
    argv = sys.argv if args is None else args
    overrides, remaps = process_parameters(argv), process_remaps(argv)
    specs = sorted(suite_nodes(), key=lambda spec: spec.executable != FIRST)
    run_nodes([node_factory(spec, overrides, remaps) for spec in specs], args, prepare)


if __name__ == "__main__":
    main()
