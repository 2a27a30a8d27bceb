"""The environment made by scripts/setup_env.sh delivers what it promises.

ROS 2 (rclpy, the message packages, tf2_msgs built from scripts/tf2_msgs when
ROS 2 comes from PyPI wheels), the numerical and simulation libraries, DDS
between processes on loopback only, and a set-up that is a quick no-op when
nothing changed.
"""
from __future__ import annotations

import math
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import local_ros_env, release_domain_id

REPO = Path(__file__).resolve().parents[1]
WHEELS_MODE = not os.environ.get("ROS_DISTRO")


def _transform_stamped(child="base_link", x=0.25):
    from geometry_msgs.msg import TransformStamped

    t = TransformStamped()
    t.header.stamp.sec = 12
    t.header.stamp.nanosec = 345
    t.header.frame_id = "odom"
    t.child_frame_id = child
    t.transform.translation.x = x
    t.transform.translation.y = -0.5
    t.transform.translation.z = 0.333
    t.transform.rotation.z = math.sin(0.3)
    t.transform.rotation.w = math.cos(0.3)
    return t


# ------------------------------------------------------------------ imports --

def test_rclpy_creates_a_node_on_loopback():
    import rclpy
    from rclpy.context import Context

    assert os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "LOCALHOST"
    ctx = Context()
    rclpy.init(context=ctx)
    try:
        node = rclpy.create_node("env_check", context=ctx)
        assert node.get_name() == "env_check"
        assert ctx.get_domain_id() == int(os.environ["ROS_DOMAIN_ID"])
        node.destroy_node()
    finally:
        rclpy.shutdown(context=ctx)


def test_message_packages_import():
    from diagnostic_msgs.msg import DiagnosticArray  # noqa: F401
    from geometry_msgs.msg import Twist, PoseStamped  # noqa: F401
    from nav_msgs.msg import Odometry  # noqa: F401
    from sensor_msgs.msg import Imu, JointState  # noqa: F401
    from std_msgs.msg import String  # noqa: F401
    from std_srvs.srv import Trigger  # noqa: F401
    from trajectory_msgs.msg import JointTrajectory  # noqa: F401
    from visualization_msgs.msg import MarkerArray  # noqa: F401
    from rcl_interfaces.msg import ParameterDescriptor  # noqa: F401


def test_tf2_msgs_round_trip_serialisation():
    from rclpy.serialization import deserialize_message, serialize_message
    from tf2_msgs.msg import TFMessage

    msg = TFMessage(transforms=[_transform_stamped()])
    data = serialize_message(msg)
    assert isinstance(data, bytes) and len(data) > 60
    back = deserialize_message(data, TFMessage)
    assert back == msg
    t = back.transforms[0]
    assert (t.header.frame_id, t.child_frame_id) == ("odom", "base_link")
    assert t.header.stamp.sec == 12 and t.header.stamp.nanosec == 345
    assert t.transform.translation.z == pytest.approx(0.333)
    assert t.transform.rotation.w == pytest.approx(math.cos(0.3))
    # the ROS type name is the upstream one, so tf2 tools elsewhere understand it
    assert TFMessage.__module__.startswith("tf2_msgs.msg")
    assert type(msg).__name__ == "TFMessage"


@pytest.mark.skipif(not WHEELS_MODE, reason="tf2_msgs comes from the sourced ROS 2 distribution")
def test_tf2_msgs_needs_no_environment_variables(tmp_path):
    """The generated tf2_msgs loads from the venv python with a bare environment."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "_ROS_WHEELS_BOOTSTRAP_COMPLETE", "AMENT_PREFIX_PATH",
                        "PYTHONPATH")}
    code = ("from tf2_msgs.msg import TFMessage; from rclpy.serialization import serialize_message; "
            "print(len(serialize_message(TFMessage())))")
    r = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.strip()) > 0


def test_tf2_msgs_in_ament_index():
    from ament_index_python.packages import get_package_share_directory

    share = Path(get_package_share_directory("tf2_msgs"))
    assert (share / "msg" / "TFMessage.msg").is_file() or (share / "msg" / "TFMessage.idl").is_file()


def test_osqp_solves_a_small_qp():
    import numpy as np
    import osqp
    from scipy import sparse

    # min 1/2 x'Px + q'x  s.t.  x1 + x2 = 1, 0 <= x <= 0.7
    P = sparse.csc_matrix([[4.0, 1.0], [1.0, 2.0]])
    q = np.array([1.0, 1.0])
    A = sparse.csc_matrix([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    lo = np.array([1.0, 0.0, 0.0])
    hi = np.array([1.0, 0.7, 0.7])
    prob = osqp.OSQP()
    prob.setup(P, q, A, lo, hi, verbose=False, eps_abs=1e-8, eps_rel=1e-8, polishing=True)
    res = prob.solve(raise_error=False)
    assert res.info.status == "solved"
    np.testing.assert_allclose(res.x, [0.3, 0.7], atol=1e-5)


def test_mujoco_steps_and_renders_offscreen():
    assert os.environ.get("MUJOCO_GL") in ("osmesa", "egl", "glfw")
    import mujoco
    import numpy as np

    model = mujoco.MjModel.from_xml_string("""
      <mujoco>
        <worldbody>
          <light pos="0 0 3"/>
          <geom type="plane" size="1 1 .1" rgba=".8 .8 .8 1"/>
          <body pos="0 0 .5"><freejoint/><geom type="sphere" size=".1" rgba="1 0 0 1"/></body>
        </worldbody>
      </mujoco>""")
    data = mujoco.MjData(model)
    for _ in range(200):
        mujoco.mj_step(model, data)
    assert data.qpos[2] < 0.5  # the ball fell
    with mujoco.Renderer(model, 48, 64) as renderer:
        renderer.update_scene(data)
        img = renderer.render()
    assert img.shape == (48, 64, 3) and img.dtype == np.uint8
    assert img.max() > 0  # something was drawn (OSMesa works)


def test_nao_motion_is_installed_with_its_console_script():
    import nao_motion

    assert Path(nao_motion.__file__).resolve().is_relative_to(REPO / "src")  # editable install
    script = shutil.which("nao-motion", path=str(Path(sys.executable).parent))
    assert script, f"nao-motion console script missing in {Path(sys.executable).parent}"


def test_nao_motion_share_directory_in_ament_index():
    """setup.py's data_files are reachable the ROS way (launch files, config, URDF)."""
    from ament_index_python.packages import get_package_share_directory

    share = Path(get_package_share_directory("nao_motion"))
    assert (share / "package.xml").resolve() == (REPO / "package.xml").resolve()


# --------------------------------------------------------------------- DDS --

def test_local_ros_env_is_loopback_with_its_own_domain():
    a, b = local_ros_env(), local_ros_env()
    try:
        for env in (a, b):
            assert env["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "LOCALHOST"
            assert 1 <= int(env["ROS_DOMAIN_ID"]) <= 100
        ids = {int(a["ROS_DOMAIN_ID"]), int(b["ROS_DOMAIN_ID"]), int(os.environ["ROS_DOMAIN_ID"])}
        assert len(ids) == 3
    finally:
        release_domain_id(int(a["ROS_DOMAIN_ID"]))
        release_domain_id(int(b["ROS_DOMAIN_ID"]))


_LISTENER = r"""
import os, sys, time
import rclpy
from tf2_msgs.msg import TFMessage

rclpy.init()
node = rclpy.create_node("tf_listener_env_test")
got = []
node.create_subscription(TFMessage, "/tf", got.append, 10)
print("READY", os.environ["ROS_DOMAIN_ID"], os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"], flush=True)
deadline = time.monotonic() + float(sys.argv[1])
while not got and time.monotonic() < deadline:
    rclpy.spin_once(node, timeout_sec=0.05)
if got:
    t = got[0].transforms[0]
    print("GOT", t.header.frame_id, t.child_frame_id, repr(t.transform.translation.x), flush=True)
node.destroy_node()
rclpy.shutdown()
sys.exit(0 if got else 3)
"""


def _readline(proc, timeout):
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline() if ready else ""


def test_tf_message_crosses_processes_over_dds(ros_env, tmp_path):
    """A TFMessage published on /tf here is received by a subprocess over DDS."""
    import rclpy
    from rclpy.context import Context
    from tf2_msgs.msg import TFMessage

    domain = int(ros_env["ROS_DOMAIN_ID"])
    assert ros_env["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "LOCALHOST"
    assert domain != int(os.environ["ROS_DOMAIN_ID"])

    child = subprocess.Popen([sys.executable, "-c", _LISTENER, "30"], env=ros_env, cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ctx = Context()
    try:
        line = _readline(child, 30)
        assert line.split() == ["READY", str(domain), "LOCALHOST"], (line, child.poll())

        rclpy.init(context=ctx, domain_id=domain)
        node = rclpy.create_node("tf_talker_env_test", context=ctx)
        pub = node.create_publisher(TFMessage, "/tf", 10)
        msg = TFMessage(transforms=[_transform_stamped(child="torso", x=0.125)])
        deadline = time.monotonic() + 30
        while child.poll() is None and time.monotonic() < deadline:
            pub.publish(msg)
            time.sleep(0.05)
        out, err = child.communicate(timeout=10)
        assert child.returncode == 0, f"listener got nothing (rc={child.returncode}): {err[-2000:]}"
        assert out.split() == ["GOT", "odom", "torso", "0.125"], out
        node.destroy_node()
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
        if ctx.ok():
            rclpy.shutdown(context=ctx)


# --------------------------------------------------------------- set-up -----

@pytest.mark.skipif(not WHEELS_MODE, reason="ROS_DISTRO is set: ROS 2 is the sourced distribution's")
def test_the_venv_holds_the_wheels_of_one_distribution_the_one_chosen():
    """NAO_MOTION_ROS_DISTRO's wheels, and no other distribution's: rclpy's major version is the
    chosen distribution's, and no ros-<other distro>-* wrapper is installed beside them."""
    from importlib import metadata

    from nao_motion.ros.distribution import DISTRIBUTION_OF_RCLPY_MAJOR, ros_distribution

    chosen = os.environ.get("NAO_MOTION_ROS_DISTRO", "jazzy")
    assert DISTRIBUTION_OF_RCLPY_MAJOR[int(metadata.version("ros-rclpy").split(".")[0])] == chosen
    assert ros_distribution()["ros_distro"] == chosen
    others = set(DISTRIBUTION_OF_RCLPY_MAJOR.values()) - {chosen}
    mixed = sorted(name for d in metadata.distributions()
                   if (name := (d.metadata["Name"] or "").lower()).startswith(tuple(f"ros-{o}-" for o in others)))
    assert not mixed, f"{chosen} venv holds other distributions' wheels: {mixed}"


@pytest.mark.setup_env
@pytest.mark.skipif(not WHEELS_MODE, reason="ROS_DISTRO is set: the set-up check is for the PyPI mode")
def test_setup_env_second_run_is_a_noop():
    venv = Path(sys.prefix)
    if not (venv / ".nao_motion_setup").is_dir():
        pytest.skip(f"tests do not run in a venv made by scripts/setup_env.sh ({venv})")
    env = dict(os.environ, NAO_MOTION_VENV=str(venv))
    script = REPO / "scripts" / "setup_env.sh"

    check = subprocess.run(["bash", str(script), "--check"], env=env, cwd=REPO,
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, (
        "environment is not up to date, so a rerun would not be a no-op; run "
        f"scripts/setup_env.sh first:\n{check.stdout}{check.stderr}")

    stamps = {p: p.stat().st_mtime_ns for p in (venv / ".nao_motion_setup").iterdir()}
    r = subprocess.run(["bash", str(script)], env=env, cwd=REPO,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    # a no-op: it says so and redoes no step (how long it takes is a figure, not a test's)
    assert "already up to date" in r.stdout, r.stdout + r.stderr
    assert {p: p.stat().st_mtime_ns for p in (venv / ".nao_motion_setup").iterdir()} == stamps


def test_nao_motion_bench_finds_every_benchmark_script():
    """`nao-motion bench NAME` runs benchmarks/bench_NAME.py from the installed share directory."""
    from nao_motion.paths import share_directory

    installed = {p.name for p in (share_directory() / "benchmarks").glob("bench_*.py")}
    assert installed == {p.name for p in (REPO / "benchmarks").glob("bench_*.py")}
    result = subprocess.run([sys.executable, "-m", "nao_motion.cli", "bench", "no_such_one"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "no such benchmark" in result.stderr
