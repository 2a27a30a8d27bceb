"""The launch files: they name only executables and parameter files the package installs, pass
use_sim_time to every node and make the processes the launch cannot work without required (read
from their source, no ROS 2 needed). Where launch and ros2cli are installed (a ROS 2 distribution,
or the upstream tools installed by hand into the venv: they are not on PyPI), `ros2 launch` runs
for real: the arguments each file declares, rviz:=true refused before anything starts where rviz2
is not installed, and a required process that dies taking the launch down with nothing left
behind (what `ps` would show: every process carrying the launch's environment)."""

import ast
import importlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from nao_motion.processes import keep_dds_local
from nao_motion.suite import LOLA_ADAPTER, PLAYER, SIMULATOR, SUITE_PROCESS, suite_nodes

REPO = Path(__file__).resolve().parents[1]
LAUNCH_FILES = sorted((REPO / "launch").glob("*.launch.py"))
USE_SIM_TIME_DEFAULT = {"nao_motion.launch.py": "false", "robot.launch.py": "false", "sim.launch.py": "true"}
SUITE_NODE_NAMES = [spec.executable for spec in suite_nodes()]


def console_scripts() -> dict[str, str]:
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "NODES":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no NODES dict")


def node_calls(path: Path) -> list[tuple[ast.Call, str]]:
    """Each `Node(...)` in a launch file, with its source text."""
    source = path.read_text()
    return [(call, ast.get_source_segment(source, call)) for call in ast.walk(ast.parse(source))
            if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Node"]


def test_there_are_launch_files():
    assert {p.name for p in LAUNCH_FILES} == set(USE_SIM_TIME_DEFAULT)


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


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_node_gets_use_sim_time_and_ours_are_required(path):
    """use_sim_time reaches every node, composed or not, rviz too (the simulator, /clock's source, is
    given false); every process of ours ends the launch when it ends (`on_exit=required(...)`)."""
    calls = node_calls(path)
    assert calls, f"{path.name} starts no Node of its own"
    for call, text in calls:
        assert "use_sim_time" in text, f"{path.name}: a Node without use_sim_time:\n{text}"
        keywords = {k.arg: k.value for k in call.keywords}
        if getattr(keywords.get("package"), "value", None) == "nao_motion":
            assert "on_exit" in keywords and "required(" in ast.unparse(keywords["on_exit"]), \
                f"{path.name}: a process of ours that is not required:\n{text}"
    assert "launch_description(" in path.read_text(), \
        f"{path.name} must build on nao_motion.launch.py's launch_description (the refusals come first)"


# ---- with launch (a ROS 2 distribution, or the upstream tools installed into the venv) ---------

def ros2_cli() -> str | None:
    return shutil.which("ros2", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


needs_launch = pytest.mark.skipif(
    importlib.util.find_spec("launch_ros") is None or importlib.util.find_spec("ros2launch") is None
    or ros2_cli() is None,
    reason="launch, launch_ros and ros2cli are not on PyPI: they need a sourced ROS 2 distribution or the "
           "upstream tools installed into the venv (test_launch_files' static checks and test_bringup.py, which "
           "starts the same processes without launch, cover the rest)")


def load(path: Path):
    from launch.launch_description_sources import get_launch_description_from_python_launch_file

    return get_launch_description_from_python_launch_file(str(path))


@needs_launch
@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_launch_arguments(path):
    from launch import LaunchContext
    from launch.utilities import perform_substitutions

    declared = {a.name: a for a in load(path).get_launch_arguments()}
    expected = {"nao_version", "use_sim_time", "rviz", "composed",
                *[f"{t}_topic" for t in ("joint_states", "joint_commands", "joint_stiffness", "imu")]}
    if path.name == "sim.launch.py":
        expected.add("real_time_factor")
    assert set(declared) == expected
    context = LaunchContext()
    assert perform_substitutions(context, declared["use_sim_time"].default_value) == USE_SIM_TIME_DEFAULT[path.name]
    for flag in ("use_sim_time", "rviz", "composed"):
        assert declared[flag].choices == ["true", "false"], flag  # anything else is refused before a process starts
    assert declared["nao_version"].choices == (["V6"] if path.name == "robot.launch.py" else ["V5", "V6"])


class LaunchRun:
    """`ros2 launch nao_motion <file> <args>` in this test's DDS domain, every process it starts
    marked by an environment variable of its own, so what it leaves behind can be found."""

    MARK = "NAO_MOTION_LAUNCH_TEST"
    TAIL_CHARS = 4000

    def __init__(self, log_dir: Path, launch_file: str, *args: str):
        self.mark = uuid.uuid4().hex
        env = keep_dds_local(dict(os.environ))
        env.update({self.MARK: self.mark, "PYTHONUNBUFFERED": "1"})
        self.log_path = log_dir / f"{launch_file}.log"
        with open(self.log_path, "w") as log:  # a file, not a pipe: a full pipe would stop the launch
            self.process = subprocess.Popen([ros2_cli(), "launch", "nao_motion", launch_file, *args], env=env,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def processes(self) -> dict[int, list[str]]:
        """pid -> argv of every live process carrying this run's mark, the launch itself included."""
        found = {}
        needle = f"{self.MARK}={self.mark}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
                    if (entry / "stat").read_text().split(") ")[-1][0] != "Z":  # a zombie is gone already
                        found[int(entry.name)] = argv
            except OSError:  # it ended meanwhile
                continue
        return found

    def pid_of(self, executable: str) -> int | None:
        return next((pid for pid, argv in self.processes().items()
                     if any(a.endswith(f"/nao_motion/{executable}") for a in argv)), None)

    def wait(self, timeout_s: float) -> int | None:
        try:
            return self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return None

    @property
    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def tail(self) -> str:
        return self.output[-self.TAIL_CHARS:]

    def close(self) -> list[list[str]]:
        """Stop the launch if it still runs (Ctrl-C, as a user), then kill what it left behind (ours,
        by pid); returns the argv of what was left."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            if self.wait(30.0) is None:
                self.process.kill()
                self.wait(10.0)
        left = self.processes()
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return list(left.values())


def rviz2_installed() -> bool:
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix

    try:
        get_package_prefix("rviz2")
    except PackageNotFoundError:
        return False
    return True


@needs_launch
@pytest.mark.parametrize("launch_file", [p.name for p in LAUNCH_FILES])
def test_rviz_without_rviz2_is_refused_before_anything_starts(launch_file, tmp_path):
    if rviz2_installed():
        pytest.skip("rviz2 is installed here: there is no refusal to see")
    run = LaunchRun(tmp_path, launch_file, "rviz:=true")
    code = run.wait(60.0)
    left = run.close()
    assert code not in (None, 0), f"the launch did not fail (exit {code}):\n{run.tail()}"
    assert "rviz2 is not installed" in run.output and "nothing was started" in run.output, run.tail()
    assert "process started" not in run.output, f"a process was started before the refusal:\n{run.tail()}"
    assert not left, f"left behind: {left}"


def node_names(probe) -> set[str]:
    return set(probe.node.get_node_names())


def use_sim_time_of(probe, node_name: str) -> bool:
    from rcl_interfaces.srv import GetParameters

    answer = probe.call(GetParameters, f"/{node_name}/get_parameters", GetParameters.Request(names=["use_sim_time"]))
    return answer.values[0].bool_value


# (launch file and arguments, the nodes it runs, the process killed, use_sim_time it gives the suite)
REQUIRED_CASES = {
    "suite": (("nao_motion.launch.py",), SUITE_NODE_NAMES, SUITE_PROCESS.executable, False),
    "separate_node": (("nao_motion.launch.py", "composed:=false", "nao_version:=V6", "use_sim_time:=true"),
                      SUITE_NODE_NAMES, "footstep_planner", True),
    "simulator": (("sim.launch.py",), SUITE_NODE_NAMES + [SIMULATOR.executable], SIMULATOR.executable, True),
    "adapter": (("robot.launch.py",), SUITE_NODE_NAMES + [LOLA_ADAPTER.executable], LOLA_ADAPTER.executable, False),
}


@needs_launch
@pytest.mark.parametrize("case", list(REQUIRED_CASES))
def test_a_required_process_that_dies_takes_the_launch_down(case, tmp_path):
    """The launch runs (every node up, with the use_sim_time asked for; the suite alone: it answers
    joint_states with /tf), then the process is killed as a crash would end it: the launch stops the
    rest and ends, leaving nothing behind."""
    rclpy = pytest.importorskip("rclpy")
    from ros_probe import SpinningProbe
    from sensor_msgs.msg import JointState

    from nao_motion.model import NaoModel
    from nao_motion.postures import posture
    from nao_motion.ros.tf_listener import TfListener

    launch_args, nodes, killed, use_sim_time = REQUIRED_CASES[case]
    run = LaunchRun(tmp_path, *launch_args)
    rclpy.init()
    probe = SpinningProbe("launch_probe")
    probe.start()
    left = []
    try:
        assert probe.wait(lambda: set(nodes) <= node_names(probe), 90.0), \
            f"not every node came up: {sorted(node_names(probe))} of {nodes}\n{run.tail()}"
        if SIMULATOR.executable in nodes:
            assert use_sim_time_of(probe, SIMULATOR.executable) is False  # /clock's source
        assert use_sim_time_of(probe, "walk") is use_sim_time
        if case == "suite":
            listener = TfListener(probe.node)
            states = probe.node.create_publisher(JointState, "joint_states", 10)
            model = NaoModel()
            stand = JointState(name=list(model.joint_names), position=posture(model, "StandInit").tolist())

            def tf_came() -> bool:
                states.publish(stand)
                return listener.dynamic_messages > 0
            assert probe.wait(tf_came, 30.0), f"no /tf from the launched suite\n{run.tail()}"
        pid = run.pid_of(killed)
        assert pid is not None, f"no {killed} process among {list(run.processes().values())}"
        os.kill(pid, signal.SIGKILL)
        code = run.wait(60.0)
        assert code is not None, f"the launch still runs 60 s after {killed} died:\n{run.tail()}"
    finally:
        probe.close()
        rclpy.try_shutdown()
        left = run.close()
    assert "was required: shutting down launched system" in run.output, run.tail()
    assert not left, f"left behind: {left}\n{run.tail()}"
