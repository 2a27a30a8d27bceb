"""One declaration per parameter (issue 16): every node made in process, each parameter it declares
has the same default in its config/ file, is named in the README, says its range and default in its
descriptor, and is read-only at run time when it is read at start-up."""

import math
from pathlib import Path

import pytest
import yaml

rclpy = pytest.importorskip("rclpy")

from rclpy.parameter import Parameter  # noqa: E402

from nao_motion.suite import LOLA_ADAPTER, PLAYER, SIMULATOR, suite_nodes  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
ROS_OWN = {"use_sim_time", "start_type_description_service"}  # rclpy's, on every node
CLASSES = {"simulator": "SimulatorNode", "joint_state_player": "JointStatePlayer", "lola_adapter": "LolaAdapterNode"}
START_UP = {"nao_version", "thread_priority", "physics_step_s", "initial_posture", "initial_stiffness",
            "actuation_delay_cycles", "self_collision", "max_velocity_fraction", "preview_s", "publish_frequency",
            "topic", "interface", "startup_stiffness"}


def flattened(tree: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            out.update(flattened(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def declared(node) -> dict:
    """Every parameter the node declared, by name (public rclpy: the empty prefix is every name)."""
    return node.get_parameters_by_prefix("")


def documented(name: str) -> bool:
    """Named in backticks, or as one of a group (`effector_control.Head`, `.LArm`; `Left<key>`)."""
    if f"`{name}`" in README:
        return True
    head, _, tail = name.rpartition(".")
    if head and f"`.{tail}`" in README and f"`{head}." in README:
        return True
    return any(name.startswith(side) and f"`{side}<key>`" in README for side in ("Left", "Right"))


@pytest.fixture(scope="module")
def made_nodes():
    import importlib

    rclpy.init()
    nodes = []
    try:
        for spec in (*suite_nodes(), SIMULATOR, PLAYER, LOLA_ADAPTER):
            module = importlib.import_module(spec.module)
            nodes.append((spec, getattr(module, spec.node_class or CLASSES[spec.executable])()))
        yield nodes
    finally:
        for _, node in nodes:
            node.destroy_node()
        rclpy.shutdown()


def test_each_parameter_is_declared_once_with_one_default(made_nodes):
    for spec, node in made_nodes:
        config = yaml.safe_load((ROOT / "config" / spec.config).read_text())
        in_file = flattened(config[spec.executable]["ros__parameters"])
        for name, parameter in declared(node).items():
            if name in ROS_OWN:
                continue
            value = parameter.value
            assert documented(name), f"{spec.executable}: {name} is not in the README"
            if name in in_file:
                same = (isinstance(value, float) and math.isnan(value) and math.isnan(in_file[name])) or \
                    in_file[name] == value
                assert same, f"{spec.executable}: {name} is {value!r}, config/{spec.config} says {in_file[name]!r}"
            descriptor = node.describe_parameter(name)
            assert descriptor.read_only == (name in START_UP), f"{spec.executable}: {name}"
            if name != "thread_priority":
                assert "default" in descriptor.description, f"{spec.executable}: {name}: {descriptor.description}"


def test_start_up_parameters_are_read_only_at_run_time(made_nodes):
    for spec, node in made_nodes:
        for name in START_UP & set(declared(node)):
            value = node.get_parameter(name).value
            result = node.set_parameters([Parameter(name, value=value)])[0]
            assert not result.successful, f"{spec.executable}: {name} changed at run time"



def readme_section(heading: str) -> list[str]:
    """The lines of the README's section `### heading`, up to the next heading."""
    lines = README.splitlines()
    start = lines.index(f"### {heading}") + 1
    end = next((k for k in range(start, len(lines)) if lines[k].startswith("#")), len(lines))
    return lines[start:end]


def stated_range(description: str) -> str:
    """The range ParameterSpec.summary put in a descriptor: "<description>; <range>[ or NaN
    (...)]; default ..." -> "(0, 60]", "> 0", or "" for a parameter without a numeric range."""
    head = description.rsplit("; default ", 1)[0]
    text = head.rsplit("; ", 1)[1].split(" or NaN (")[0]
    if text.startswith("in ") and text[3] in "[(":
        return text[3:]
    return text if text[:1] in "<>" else ""


def test_the_readme_states_each_numeric_range_as_its_spec(made_nodes):
    """The README's row for a parameter, in its node's section, gives the range the node refuses
    outside of (push_duration_s and margin_m once disagreed: issue 16)."""
    wrong = []
    for spec, node in made_nodes:
        rows = [line for line in readme_section(spec.executable) if line.startswith("|")]
        for name in declared(node):
            if name in ROS_OWN or name == "thread_priority":
                continue
            interval = stated_range(node.describe_parameter(name).description)
            if not interval:
                continue
            named = [row for row in rows if f"`{name}`" in row]
            if not any(interval in row for row in named):
                wrong.append(f"{spec.executable}: {name} {interval}: {named}")
    assert not wrong, "\n".join(wrong)
