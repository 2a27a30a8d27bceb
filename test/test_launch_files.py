"""Launch files name only executables and parameter files the package installs; with a ROS 2
distribution (launch_ros present) the suite launch file is started for real."""

import ast
import importlib
import time
from pathlib import Path

import pytest

from nao_motion.suite import LOLA_ADAPTER, PLAYER, SIMULATOR, suite_nodes

REPO = Path(__file__).resolve().parents[1]
LAUNCH_FILES = sorted((REPO / "launch").glob("*.launch.py"))


def console_scripts() -> dict[str, str]:
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "NODES":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no NODES dict")


def test_there_are_launch_files():
    assert {p.name for p in LAUNCH_FILES} >= {"nao_motion.launch.py", "sim.launch.py", "robot.launch.py"}


@pytest.mark.parametrize("spec", [*suite_nodes(), SIMULATOR, LOLA_ADAPTER, PLAYER], ids=lambda s: s.executable)
def test_every_node_in_the_list_is_installed_with_its_parameter_file(spec):
    scripts = console_scripts()
    if spec.executable not in scripts:
        pytest.fail(f"{spec.executable} is not a console script in setup.py (ros2 run would not find it)")
    assert scripts[spec.executable] == f"{spec.module}:main"
    assert callable(importlib.import_module(spec.module).main)
    assert (REPO / "config" / spec.config).is_file(), f"config/{spec.config} missing (setup.py installs config/*)"


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_file_literals_are_installed_things(path):
    """Executables named literally must be ours (or rviz2); .yaml/.rviz files must exist in config/."""
    tree = ast.parse(path.read_text())
    scripts = console_scripts()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "executable" and isinstance(node.value, ast.Constant):
            assert node.value.value in set(scripts) | {"rviz2"}, node.value.value
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and " " not in node.value \
                and node.value.endswith((".yaml", ".rviz")):
            assert (REPO / "config" / node.value).is_file(), node.value
    assert "suite_nodes" in path.read_text() or "suite_actions" in path.read_text(), \
        "launch files must take their nodes from nao_motion.suite"


@pytest.mark.skipif(importlib.util.find_spec("launch_ros") is None,
                    reason="launch_ros is not on PyPI: needs a sourced ROS 2 distribution (covered here by "
                    "test_kinematics_node.py, which starts the same node processes without launch)")
def test_suite_launch_file_starts_and_publishes_tf():
    import launch
    import rclpy
    from launch.launch_description_sources import PythonLaunchDescriptionSource
    from sensor_msgs.msg import JointState

    from nao_motion.model import NaoModel
    from nao_motion.postures import posture
    from nao_motion.ros.tf_listener import TfListener

    service = launch.LaunchService()
    service.include_launch_description(launch.actions.IncludeLaunchDescription(
        PythonLaunchDescriptionSource(str(REPO / "launch" / "nao_motion.launch.py"))))
    import threading

    runner = threading.Thread(target=service.run, daemon=True)
    runner.start()
    rclpy.init()
    node = rclpy.create_node("launch_probe")
    listener = TfListener(node)
    pub = node.create_publisher(JointState, "joint_states", 10)
    model = NaoModel()
    try:
        end = time.monotonic() + 20
        while time.monotonic() < end and listener.dynamic_messages == 0:
            pub.publish(JointState(name=list(model.joint_names), position=posture(model, "StandInit").tolist()))
            rclpy.spin_once(node, timeout_sec=0.05)
        assert listener.dynamic_messages > 0
    finally:
        node.destroy_node()
        rclpy.shutdown()
        service.shutdown()
        runner.join(10)
