"""Test-wide environment for nao_motion.

Every ROS process a test starts must stay on this machine and in its own DDS
domain:

* ``os.environ`` gets ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and a ROS_DOMAIN_ID
  (when not already set), so in-process rclpy in tests is on loopback;
* ``local_ros_env(domain_id=None)`` returns a copy of the environment for a child
  process with LOCALHOST discovery and a domain id of its own;
* the ``ros_env`` fixture is ``local_ros_env()`` for one test (its domain id is
  released when the test ends).

Domain ids (1..100) are reserved with an flock on a file in the temp directory,
so concurrent test runs on the machine (pytest-xdist workers, several
developers) do not share a domain.
"""
from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path
import sys
import tempfile
import warnings
from contextlib import contextmanager

import pytest

DOMAIN_MIN, DOMAIN_MAX = 1, 100
_held: dict[int, object] = {}  # domain id -> open lock file (held while the file is open)


def _lock_path(domain_id: int) -> str:
    d = os.path.join(tempfile.gettempdir(), "nao_motion_ros_domains")
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, f"{domain_id}.lock")


def _try_reserve(domain_id: int) -> bool:
    if domain_id in _held:
        return False
    try:
        f = open(_lock_path(domain_id), "a")
    except OSError:
        return False
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        f.close()
        if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            return False
        raise
    _held[domain_id] = f
    return True


def _env_domain_id() -> int | None:
    try:
        return int(os.environ["ROS_DOMAIN_ID"])
    except (KeyError, ValueError):
        return None


def allocate_domain_id(prefer: int | None = None, exclude=()) -> int:
    """Reserve a ROS_DOMAIN_ID in 1..100 that no other cooperating process holds.

    Held until ``release_domain_id`` or the end of this process.
    """
    excluded = set(exclude)
    env_id = _env_domain_id()
    if env_id is not None:
        excluded.add(env_id)  # the in-process default domain is not handed out again
    if prefer is not None and prefer not in excluded and _try_reserve(prefer):
        return prefer
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    start = (os.getpid() * 7 + 13 * sum(map(ord, worker))) % (DOMAIN_MAX - DOMAIN_MIN + 1)
    for i in range(DOMAIN_MAX - DOMAIN_MIN + 1):
        did = DOMAIN_MIN + (start + i) % (DOMAIN_MAX - DOMAIN_MIN + 1)
        if did not in excluded and _try_reserve(did):
            return did
    did = DOMAIN_MIN + start
    warnings.warn(f"all ROS domain ids {DOMAIN_MIN}..{DOMAIN_MAX} are reserved; sharing {did}")
    return did


def release_domain_id(domain_id: int) -> None:
    f = _held.pop(domain_id, None)
    if f is not None:
        f.close()


def local_ros_env(domain_id: int | None = None) -> dict:
    """Environment for a child ROS process: discovery on loopback only, own domain.

    ``domain_id=None`` reserves a fresh one (different from this process's).
    """
    from nao_motion.processes import keep_dds_local

    env = keep_dds_local(dict(os.environ))
    env["ROS_DOMAIN_ID"] = str(allocate_domain_id() if domain_id is None else int(domain_id))
    env.setdefault("MUJOCO_GL", "osmesa")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _set_process_defaults() -> None:
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    if os.environ.get("ROS_DISTRO") == "humble":  # ignores the discovery range (nao_motion.processes)
        os.environ.setdefault("ROS_LOCALHOST_ONLY", "1")
    os.environ.setdefault("MUJOCO_GL", "osmesa")
    # ./run test picks a random id and says so with NAO_MOTION_AUTO_DOMAIN_ID=1:
    # such an id (or none) is replaced by a reserved one; a user's own is kept.
    env_id = _env_domain_id()
    if env_id is None or os.environ.get("NAO_MOTION_AUTO_DOMAIN_ID") == "1":
        os.environ.pop("ROS_DOMAIN_ID", None)
        os.environ["ROS_DOMAIN_ID"] = str(allocate_domain_id(prefer=env_id))
        os.environ.pop("NAO_MOTION_AUTO_DOMAIN_ID", None)
    # Ament index of the venv the tests run in (share/nao_motion, share/tf2_msgs).
    if os.path.isdir(os.path.join(sys.prefix, "share", "ament_index")):
        paths = [p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
        if sys.prefix not in paths:
            os.environ["AMENT_PREFIX_PATH"] = os.pathsep.join([sys.prefix] + paths)


_set_process_defaults()


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "setup_env: checks scripts/setup_env.sh itself (skipped when ROS_DISTRO is set)",
    )
    # noise from lark (the rosidl parser, imported with rclpy), not from our code
    for mod in ("sre_parse", "sre_constants"):
        config.addinivalue_line("filterwarnings", f"ignore:module '{mod}' is deprecated:DeprecationWarning")


def pytest_report_header(config):
    return (
        f"ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID')} "
        f"ROS_AUTOMATIC_DISCOVERY_RANGE={os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE')} "
        f"ROS_DISTRO={os.environ.get('ROS_DISTRO', '(none: PyPI wheels)')}"
    )


@pytest.fixture
def context():
    """An rclpy context of the test's own (this process's domain), shut down after it."""
    import rclpy

    ctx = rclpy.Context()
    rclpy.init(context=ctx)
    yield ctx
    rclpy.shutdown(context=ctx)


@pytest.fixture
def ros_env():
    """Child-process environment with LOCALHOST discovery and a domain id of its own."""
    env = local_ros_env()
    try:
        yield env
    finally:
        release_domain_id(int(env["ROS_DOMAIN_ID"]))


# The simulator as the simulation tests run it: stepping when the controller has answered (at
# most in real time). They judge what the suite does, which must not depend on how busy the
# machine is; whether it keeps the real-time cycle is what benchmarks/bench_suite.py and the
# demo measure.
LOCKSTEP = {"lockstep": True, "real_time_factor": 1.0}


def load_example(name: str):
    """The module of examples/<name>.py (the ported NAOqi scripts are files, not a package)."""
    return _load_file_module("examples", name)


def load_benchmark(name: str):
    """The module of benchmarks/<name>.py (scripts, not a package)."""
    return _load_file_module("benchmarks", name)


def _load_file_module(folder: str, name: str):
    import importlib.util

    directory = Path(__file__).resolve().parents[1] / folder
    spec = importlib.util.spec_from_file_location(name, directory / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@contextmanager
def simulated_suite_client(log_dir: Path, simulator_params: dict, suite_params: dict | None = None,
                           timeout_s: float = 30.0):
    """The simulator and the suite composed in one process, as ``nao-motion sim`` runs them (sim
    time), and an ALMotion client in this process's rclpy: yields the client (its version: the
    suite's). Everything is closed and stopped after."""
    import rclpy

    from nao_motion.suite import SIMULATOR, SUITE_PROCESS

    nodes = NodeGroup(log_dir)
    nodes.start(SIMULATOR, params=simulator_params)
    nodes.start(SUITE_PROCESS, params=suite_params or {}, use_sim_time=True)
    rclpy.init()
    try:
        from nao_motion.almotion import ALMotion

        motion = ALMotion(timeout_s=timeout_s)
        try:
            yield motion
        finally:
            motion.close()
    finally:
        rclpy.shutdown()
        nodes.stop()


class NodeGroup:
    """The node processes a test starts, each logging to a file of its own in `log_dir`, in
    this test run's environment (loopback, a domain of its own: see above).

    `stop` Ctrl-Cs them in start order and fails, quoting the end of its log, for any node
    that did not exit cleanly (a hung node's log ends with its stacks: NodeProcess.stop)."""

    LOG_TAIL_LINES = 60

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.env = dict(os.environ)
        self.processes: list = []

    def start(self, spec, **kwargs):
        from nao_motion.processes import NodeProcess, open_log

        log = open_log(self.log_dir, f"{len(self.processes)}_{spec.executable}")
        process = NodeProcess(spec, self.env, log=log, **kwargs).start()
        self.processes.append(process)
        return process

    def stop(self) -> None:
        from nao_motion.processes import CLEAN_EXIT_CODES

        codes = [(p, p.stop()) for p in self.processes]
        failures = []
        for p, code in codes:
            p.log.close()
            if code not in CLEAN_EXIT_CODES:
                tail = Path(p.log.name).read_text(errors="replace").splitlines()[-self.LOG_TAIL_LINES:]
                failures.append(f"{p.spec.executable} exited with {code}; the end of {p.log.name}:\n"
                                + "\n".join(tail))
        assert not failures, "a node did not exit cleanly on Ctrl-C:\n" + "\n\n".join(failures)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path, parent):
    """A test file that is no launch test (no generate_test_description) is collected as pytest
    would without launch_testing's plugin. That plugin imports every file to look for the
    function, and a module-level skip raised there (pytest.importorskip of something a machine
    lacks) skipped the whole test directory, every other file with it."""
    if module_path.name != "__init__.py" and "generate_test_description" not in module_path.read_text(errors="replace"):
        return pytest.Module.from_parent(parent, path=module_path)
    return None
