"""NodeProcess.stop and run_node's shutdown: a node that stops on Ctrl-C exits cleanly; one
deaf to it leaves its stacks in its log (SIGUSR1, as run_node registers it) and is killed; a
real node whose teardown hangs is ended by run_node's bound, its stacks in its log."""

import os
import signal
import time
from pathlib import Path

import pytest

from nao_motion.processes import CLEAN_EXIT_CODES, NodeProcess, open_log
from nao_motion.suite import NodeSpec

QUIET_NODE = """
import time
print("ready", flush=True)
try:
    time.sleep(60)
except KeyboardInterrupt:
    pass
"""

HANGING_TEARDOWN_NODE = """
import time
from rclpy.node import Node
from nao_motion.ros.node_tools import run_node

class HangingTeardown(Node):
    def __init__(self):
        super().__init__("hanging_teardown")
        self.create_timer(0.5, lambda: print("ready", flush=True))

    def destroy_node(self):  # as the rmw's node destruction sometimes does
        time.sleep(60)

run_node(HangingTeardown)
"""

STUBBORN_NODE = """
import faulthandler, signal, time
faulthandler.register(signal.SIGUSR1, all_threads=True)
signal.signal(signal.SIGINT, signal.SIG_IGN)
print("ready", flush=True)

def stuck_in_shutdown():
    time.sleep(60)

stuck_in_shutdown()
"""


def start_script(directory: Path, name: str, source: str, env: dict | None = None) -> NodeProcess:
    """`source` as a node process logging to directory/name.log, once it has printed "ready"."""
    (directory / f"{name}.py").write_text(source)
    env = {**(env or {"PATH": "/usr/bin:/bin"}), "PYTHONPATH": str(directory)}
    process = NodeProcess(NodeSpec(name, name, "none.yaml"), env, log=open_log(directory, name)).start()
    deadline = time.monotonic() + 20.0
    while "ready" not in (directory / f"{name}.log").read_text():
        assert time.monotonic() < deadline and process.running(), f"{name} did not start"
        time.sleep(0.05)
    return process


def test_a_node_that_stops_on_ctrl_c_exits_cleanly(tmp_path):
    process = start_script(tmp_path, "quiet_node", QUIET_NODE)
    assert process.stop(timeout_s=5.0) == 0


def test_a_node_deaf_to_ctrl_c_leaves_its_stacks_in_its_log_and_is_killed(tmp_path):
    process = start_script(tmp_path, "stubborn_node", STUBBORN_NODE)
    code = process.stop(timeout_s=0.5)
    process.log.close()
    assert code == -signal.SIGKILL and code not in CLEAN_EXIT_CODES
    text = (tmp_path / "stubborn_node.log").read_text()
    assert "stuck_in_shutdown" in text and "File " in text, text


def test_a_node_whose_teardown_hangs_is_ended_with_its_stacks_in_its_log(tmp_path):
    pytest.importorskip("rclpy")
    from nao_motion.ros.node_tools import TEARDOWN_TIMEOUT_S

    env = dict(os.environ)  # conftest: loopback, this test run's domain
    process = start_script(tmp_path, "hanging_teardown_node", HANGING_TEARDOWN_NODE, env)
    t0 = time.monotonic()
    code = process.stop(timeout_s=TEARDOWN_TIMEOUT_S + 3.0)
    process.log.close()
    assert code == -signal.SIGALRM and code in CLEAN_EXIT_CODES
    assert time.monotonic() - t0 < TEARDOWN_TIMEOUT_S + 2.0
    text = (tmp_path / "hanging_teardown_node.log").read_text()
    assert "destroy_node" in text and "run_node" in text, text
