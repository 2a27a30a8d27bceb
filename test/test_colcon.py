"""The package as a ROS 2 user builds and starts it: `colcon build` into a fresh workspace, the
install space sourced, `ros2 launch nao_motion sim.launch.py` from it. Its nodes must run under
an interpreter that sees every dependency (osqp for the whole body, mujoco for the simulator): the
console scripts start with `#!/usr/bin/env python3` (setup.cfg), so whichever Python ran colcon
they run under the python3 first on PATH (an activated venv); the suite must then answer the
simulator and keep the robot standing, and Ctrl-C end every process.

Needs colcon (requirements-ros2-tools.txt) and ros2cli/ros2launch (scripts/setup_ros2_tools.sh, or
a sourced distribution)."""

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The venv's tools first, as an activated venv has them (./run does not put .venv/bin on PATH).
TOOLS_PATH = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
COLCON = shutil.which("colcon", path=TOOLS_PATH)
ROS2 = shutil.which("ros2", path=TOOLS_PATH)
BUILD_TIMEOUT_S = 600.0
STOP_TIMEOUT_S = 30.0

pytestmark = pytest.mark.skipif(
    COLCON is None or ROS2 is None,
    reason="colcon and ros2cli are not installed: scripts/setup_ros2_tools.sh installs them from the upstream "
    "sources (../shared/ros2-upstream, NAO_MOTION_ROS2_UPSTREAM), or source a ROS 2 distribution")


def user_env() -> dict:
    """This test run's environment (loopback DDS, its domain) with the venv activated."""
    return dict(os.environ, PATH=TOOLS_PATH)


def in_workspace(install: Path, command: str) -> list[str]:
    """`command` in bash after sourcing the workspace's install space, as a user runs it."""
    return ["bash", "-c", f'source "{install}/setup.bash" && {command}']


@pytest.fixture(scope="module")
def install(tmp_path_factory) -> Path:
    workspace = tmp_path_factory.mktemp("colcon_ws")
    build = subprocess.run(
        [COLCON, "--log-base", str(workspace / "log"), "build", "--paths", str(REPO),
         "--build-base", str(workspace / "build"), "--install-base", str(workspace / "install")],
        cwd=workspace, env=user_env(), capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    assert build.returncode == 0, build.stdout + build.stderr
    return workspace / "install"


def test_colcon_installs_the_nodes_to_run_under_the_python3_on_path(install):
    prefix = install / "nao_motion"
    for launch_file in ("sim.launch.py", "nao_motion.launch.py", "robot.launch.py"):
        assert (prefix / "share" / "nao_motion" / "launch" / launch_file).is_file(), launch_file
    simulator = prefix / "lib" / "nao_motion" / "simulator"
    assert simulator.read_text().splitlines()[0] == "#!/usr/bin/env python3"
    # That python3, in the sourced workspace, sees the installed package and every dependency.
    probe = subprocess.run(
        in_workspace(install, 'python3 -c "import osqp, mujoco, scipy, yaml, rclpy, nao_motion; '
                     'print(nao_motion.__file__)"'),
        env=user_env(), capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip().startswith(str(prefix)), probe.stdout


def test_ros2_launch_from_the_install_space_runs_the_suite_on_the_simulator(install, tmp_path):
    from launch_probe import LaunchProbe

    log_path = tmp_path / "ros2_launch.log"
    with open(log_path, "w") as log:
        launch = subprocess.Popen(in_workspace(install, "exec ros2 launch nao_motion sim.launch.py"),
                                  env=user_env(), stdout=log, stderr=subprocess.STDOUT)
    pids: list[int] = []
    probe = LaunchProbe("colcon_launch_probe")
    try:
        monitor = probe.monitor
        answered = probe.spin_for(120.0, until=lambda: monitor.joint_commands is not None
                                  and monitor.torso_pose is not None)
        assert answered, "the installed suite did not answer the simulator:\n" + log_path.read_text()[-4000:]
        probe.spin_for(2.0)
        assert probe.standing(), (monitor.torso_pose, monitor.falls())
        log_text = log_path.read_text()
        started = dict(re.findall(r"\[INFO\] \[([\w-]+)\]: process started with pid \[(\d+)\]", log_text))
        pids = [int(pid) for pid in started.values()]
        assert {name.rsplit("-", 1)[0] for name in started} == {"simulator", "nao_motion_suite"}, started
        for pid in pids:  # each node is the installed console script, under the python3 on PATH
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            assert argv[0] == b"python3" and argv[1].decode().startswith(str(install)), argv
    finally:
        probe.close()
        launch.send_signal(signal.SIGINT)
        try:
            code = launch.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            launch.kill()
            code = launch.wait()
        leftovers = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
        for pid in leftovers:
            os.kill(pid, signal.SIGKILL)
    assert code == 0 and not leftovers, (code, leftovers, log_path.read_text()[-4000:])
