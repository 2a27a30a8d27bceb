"""Start nao_motion nodes as separate processes (demo, bringup, tests, benchmarks).

Nodes start as `python -m <module> --ros-args ...`, which works with a sourced ROS 2
distribution and with the PyPI wheels alike. Discovery settings are the caller's: the demo
and the tests pass :func:`local_ros_env`; the bringup for a real robot passes the user's
environment unchanged.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .paths import config_file
from .suite import NodeSpec


# Distributions older than Iron ignore ROS_AUTOMATIC_DISCOVERY_RANGE: there, ROS_LOCALHOST_ONLY
# keeps DDS on loopback (newer ones take it too, but warn that it is deprecated).
LOCALHOST_ONLY_DISTROS = frozenset({"humble"})


def keep_dds_local(env: dict) -> dict:
    """``env`` (changed in place, and returned) with DDS discovery on this machine only, in the
    spelling of the distribution it runs (``ROS_DISTRO``; the PyPI wheels, Jazzy or Kilted, set
    none)."""
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env.pop("ROS_STATIC_PEERS", None)
    if env.get("ROS_DISTRO") in LOCALHOST_ONLY_DISTROS:
        env["ROS_LOCALHOST_ONLY"] = "1"
    return env


def local_ros_env(domain_id: int | None = None, base: dict | None = None) -> dict:
    """Environment keeping DDS on this machine (loopback only) in its own domain."""
    env = keep_dds_local(dict(os.environ if base is None else base))
    env["ROS_DOMAIN_ID"] = str(domain_id if domain_id is not None else random.randint(1, 100))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _param_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


# The protocol between NodeProcess and run_node (ros/node_tools.py).
STACK_DUMP_SIGNAL = signal.SIGUSR1  # run_node has faulthandler print every thread's stack on it
TEARDOWN_CUT_SHORT = -signal.SIGALRM  # exit code: the rmw teardown hung and run_node ended it
# None: never started; -SIGINT: the second Ctrl-C ended it.
CLEAN_EXIT_CODES = (0, None, -signal.SIGINT, TEARDOWN_CUT_SHORT)
STACK_DUMP_WAIT_S = 1.0


@dataclass
class NodeProcess:
    """One node in its own process, with its config file, parameter overrides and remaps."""

    spec: NodeSpec
    env: dict
    params: dict = field(default_factory=dict)
    remaps: dict = field(default_factory=dict)
    use_sim_time: bool = False
    log: IO | None = None
    process: subprocess.Popen | None = None
    interrupted: bool = False

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", self.spec.module, "--ros-args"]
        config = config_file(self.spec.config) if self.spec.config else None
        if config is not None and config.exists():
            cmd += ["--params-file", str(config)]
        params = dict(self.params)
        if self.use_sim_time:
            params["use_sim_time"] = True
        for name, value in params.items():
            cmd += ["-p", f"{name}:={_param_value(value)}"]
        for source, target in {**self.spec.remaps, **self.remaps}.items():
            cmd += ["-r", f"{source}:={target}"]
        return cmd

    def start(self) -> "NodeProcess":
        self.process = subprocess.Popen(
            self.command(), env=self.env, stdout=self.log or subprocess.DEVNULL,
            stderr=subprocess.STDOUT if self.log else subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            preexec_fn=_hear_ctrl_c)
        return self

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def interrupt(self) -> None:
        """Ctrl-C the node, once: a second SIGINT right away would land in its clean-up."""
        if self.process is not None and self.process.poll() is None and not self.interrupted:
            self.process.send_signal(signal.SIGINT)
            self.interrupted = True

    def stop(self, timeout_s: float = 5.0) -> int | None:
        """Ctrl-C the node (clean shutdown); if it is still running after `timeout_s`, Ctrl-C it
        again (now and then rclpy swallows one that lands in a message conversion); if it still
        runs, have it dump its threads' stacks into its log (SIGUSR1, see run_node), then kill it.
        The exit code is 0, -SIGINT when the second Ctrl-C ended it, or TEARDOWN_CUT_SHORT (see
        CLEAN_EXIT_CODES); anything else is a failure."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.interrupt()
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.send_signal(signal.SIGINT)
                try:
                    self.process.wait(timeout_s)
                except subprocess.TimeoutExpired:
                    self.process.send_signal(STACK_DUMP_SIGNAL)
                    try:
                        self.process.wait(STACK_DUMP_WAIT_S)
                    except subprocess.TimeoutExpired:
                        pass
                    self.process.kill()
                    self.process.wait()
        return self.process.returncode


def _hear_ctrl_c() -> None:
    """In the child: Ctrl-C back to its default. A shell without job control starts background
    commands with SIGINT ignored, and children inherit that; a node that ignores it cannot be
    stopped cleanly (``stop``)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def open_log(directory: Path, name: str) -> IO:
    directory.mkdir(parents=True, exist_ok=True)
    return open(directory / f"{name}.log", "w")


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux /proc), for benchmarks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
