"""The kinematics node as its own process over real DDS: transforms, COM, bad input, staleness."""

import signal
import time
from pathlib import Path

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
tf2_msgs = pytest.importorskip("tf2_msgs")

from conftest import NodeGroup  # noqa: E402

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus  # noqa: E402
from geometry_msgs.msg import PointStamped  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from nao_motion.kinematics import ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.conversions import IMU_ORIENTATION_ERROR  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS, LATCHED_QOS, TF_QOS  # noqa: E402
from nao_motion.ros.tf_listener import TfListener  # noqa: E402
from nao_motion.suite import NODES  # noqa: E402
from nao_motion.urdf import generate_urdf  # noqa: E402

KINEMATICS = next(spec for spec in NODES if spec.executable == "kinematics")


class Probe:
    """The test's own node: publishes joint states, records what the kinematics node sends."""

    def __init__(self):
        self.node = rclpy.create_node("kinematics_probe")
        self.tf = TfListener(self.node)
        self.coms, self.descriptions, self.diagnostics = [], [], []
        self.tf_stamps_ns = []  # of each /tf message, in arrival order
        self.node.create_subscription(TFMessage, "/tf", self._on_tf, TF_QOS)
        self.node.create_subscription(PointStamped, "com", self.coms.append, CYCLE_QOS)
        self.node.create_subscription(String, "robot_description", self.descriptions.append, LATCHED_QOS)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self.diagnostics.append, 10)
        self.pub = self.node.create_publisher(JointState, "joint_states", CYCLE_QOS)
        self.imu_pub = self.node.create_publisher(Imu, "imu", CYCLE_QOS)

    def _on_tf(self, msg: TFMessage) -> None:
        stamp = msg.transforms[0].header.stamp
        self.tf_stamps_ns.append(stamp.sec * 1_000_000_000 + stamp.nanosec)

    def spin(self, seconds: float, until=None) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self.node, timeout_sec=0.01)
            if until is not None and until():
                return True
        return until() if until is not None else True

    def publish(self, names, positions, stamp_ns: int | None = None) -> None:
        msg = JointState(name=list(names), position=[float(p) for p in positions])
        if stamp_ns is None:
            msg.header.stamp = self.node.get_clock().now().to_msg()
        else:
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
        self.pub.publish(msg)

    def stream(self, names, positions, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.publish(names, positions)
            self.spin(0.01)


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    proc = nodes.start(KINEMATICS, params={"stale_timeout_s": 0.3})
    rclpy.init()
    probe = Probe()
    try:
        assert probe.spin(20.0, until=lambda: probe.descriptions), "no robot_description from the node"
        yield proc, probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown()
        nodes.stop()


def test_transforms_and_com_match_the_core(running):
    proc, probe = running
    model = NaoModel()
    fk = ForwardKinematics(model)
    q = posture(model, "StandInit")
    q[model.joint_index("HeadYaw")] = 0.4
    q[model.joint_index("LShoulderPitch")] = -0.3
    probe.coms.clear()
    probe.stream(model.joint_names, q, 1.0)
    assert probe.spin(2.0, until=lambda: probe.coms)
    state = fk.compute(q)
    for frame in ("l_gripper", "r_sole", "CameraTop", "gaze", "LForeArm", "Head"):
        np.testing.assert_allclose(probe.tf.lookup(frame, "torso"), fk.pose(state, frame), atol=1e-6)
    c = probe.coms[-1]
    assert c.header.frame_id == "torso"
    np.testing.assert_allclose([c.point.x, c.point.y, c.point.z], state.com_torso_m, atol=1e-9)
    # REP-120 chain: base_footprint -> base_link -> torso, footprint on the lower sole.
    footprint = probe.tf.lookup("torso", "base_footprint")
    np.testing.assert_allclose(footprint[2, 3], -fk.pose(state, "l_sole")[2, 3], atol=1e-6)
    assert probe.tf.parent_of["base_link"] == "base_footprint"
    assert {"l_sole", "r_sole", "CameraTop", "CameraBottom", "gaze", "l_gripper"} <= probe.tf.static_frames


def test_robot_description_is_the_generated_urdf(running):
    _, probe = running
    assert probe.descriptions[0].data == generate_urdf(NaoModel())


def _received_after(probe, action, seconds=0.6) -> int:
    before = probe.tf.dynamic_messages
    action()
    probe.spin(seconds)
    return probe.tf.dynamic_messages - before


@pytest.mark.parametrize("case", ["nan", "inf", "length_mismatch", "duplicate"])
def test_malformed_messages_publish_nothing_and_keep_the_node_alive(running, case):
    proc, probe = running
    model = NaoModel()
    names, q = list(model.joint_names), posture(model, "StandInit")
    bad = {
        "nan": (names, np.where(np.arange(len(q)) == 3, np.nan, q)),
        "inf": (names, np.where(np.arange(len(q)) == 9, np.inf, q)),
        "length_mismatch": (names, q[:-2]),
        "duplicate": (names + ["HeadYaw"], list(q) + [0.0]),
    }[case]
    probe.spin(0.5)  # let earlier valid messages drain
    sent = _received_after(probe, lambda: [probe.publish(*bad) or probe.spin(0.01) for _ in range(20)])
    assert sent == 0, f"{case}: the node published TF from a malformed message"
    assert proc.running()
    probe.stream(names, q, 0.3)
    assert probe.spin(1.0, until=lambda: probe.tf.dynamic_messages > 0)


def test_unknown_joint_names_are_ignored_and_known_ones_used(running):
    proc, probe = running
    model = NaoModel()
    q = posture(model, "StandInit")
    probe.stream(model.joint_names, q, 0.3)
    names = list(model.joint_names) + ["LFinger21", "Tail"]
    values = list(q) + [0.1, 0.2]
    values[model.joint_index("HeadYaw")] = -0.7
    received = _received_after(probe, lambda: probe.stream(names, values, 0.3))
    assert received > 0
    expected = ForwardKinematics(model).pose(ForwardKinematics(model).compute(np.array(values[:26])), "Head")
    np.testing.assert_allclose(probe.tf.lookup("Head", "torso"), expected, atol=1e-6)
    assert proc.running()


def test_missing_joints_keep_their_last_value(running):
    _, probe = running
    model = NaoModel()
    fk = ForwardKinematics(model)
    q = posture(model, "StandInit")
    probe.stream(model.joint_names, q, 0.3)
    probe.stream(["HeadYaw"], [0.9], 0.3)  # a partial message: only the head moves
    q[model.joint_index("HeadYaw")] = 0.9
    np.testing.assert_allclose(probe.tf.lookup("CameraTop", "torso"), fk.pose(fk.compute(q), "CameraTop"), atol=1e-6)
    np.testing.assert_allclose(probe.tf.lookup("l_gripper", "torso"), fk.pose(fk.compute(q), "l_gripper"), atol=1e-6)


def test_stale_input_stops_publication_and_warns(running):
    proc, probe = running
    model = NaoModel()
    probe.stream(model.joint_names, posture(model, "StandInit"), 0.3)
    probe.spin(0.5)  # longer than stale_timeout_s = 0.3
    probe.diagnostics.clear()
    assert _received_after(probe, lambda: None, seconds=1.5) == 0
    levels = [s.level for d in probe.diagnostics for s in d.status if s.name == "nao_motion: kinematics"]
    assert DiagnosticStatus.WARN in levels
    probe.stream(model.joint_names, posture(model, "StandInit"), 0.3)
    assert probe.tf.dynamic_messages > 0 and proc.running()


def test_an_implausible_imu_orientation_is_refused_and_said_on_diagnostics(running):
    """The IMU sent before each joint_states, so that every cycle reads it (over the simulator,
    whose own IMU comes each cycle, a cycle read the test's only by chance: test_bad_input_nodes)."""
    proc, probe = running
    model = NaoModel()
    absurd = Imu()
    absurd.orientation.w = 1e308

    def told() -> bool:
        return any(s.level != DiagnosticStatus.OK and f"imu refused ({IMU_ORIENTATION_ERROR}): " in s.message
                   and any(v.key == "refused_inputs" for v in s.values)
                   for d in probe.diagnostics for s in d.status if s.name == "nao_motion: kinematics")

    probe.diagnostics.clear()
    end = time.monotonic() + 5.0
    while time.monotonic() < end and not told():
        probe.imu_pub.publish(absurd)
        probe.publish(model.joint_names, posture(model, "StandInit"))
        probe.spin(0.01)
    assert told(), "the kinematics diagnostics did not say why"
    probe.diagnostics.clear()
    assert _received_after(probe, lambda: probe.stream(model.joint_names, posture(model, "StandInit"), 0.3)) > 0
    assert proc.running()


def test_almotion_client_answers_like_the_core(running):
    from nao_motion.almotion import ALMotion, ALMotionError

    _, probe = running
    model = NaoModel()
    fk = ForwardKinematics(model)
    q = posture(model, "StandInit")
    q[model.joint_index("RShoulderPitch")] = 0.2
    client = ALMotion()
    try:
        probe.stream(model.joint_names, q, 0.5)
        state = fk.compute(q)
        np.testing.assert_allclose(np.reshape(client.getTransform("RArm", 0, True), (4, 4)), fk.pose(state, "RArm"),
                                   atol=1e-9)
        np.testing.assert_allclose(client.getPosition("CameraTop", 2, True),
                                   fk.position_in_space(state, "CameraTop", 2), atol=1e-9)
        np.testing.assert_allclose(client.getCOM("Body", 0, True), state.com_torso_m, atol=1e-9)
        assert client.getAngles("RShoulderPitch", True) == pytest.approx([0.2])
        assert client.getJointNames("LLeg")[0] == "LHipYawPitch"
        assert client.getLimits("LKneePitch")[0][3] == pytest.approx(3.023)
        assert client.getRobotConfig()[1][0] == "naoH25"
        with pytest.raises(ALMotionError, match="space"):
            client.getPosition("Head", 5, True)
        with pytest.raises(ALMotionError, match="Tail"):
            client.getTransform("Tail", 0, True)
    finally:
        client.close()


def test_sigusr1_prints_the_node_stacks_into_its_log_and_the_node_runs_on(running):
    proc, probe = running
    log = Path(proc.log.name)
    proc.process.send_signal(signal.SIGUSR1)
    deadline = time.monotonic() + 5.0
    while "run_node" not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"no stacks in {log}"
        time.sleep(0.05)
    model = NaoModel()
    before = probe.tf.dynamic_messages
    probe.stream(model.joint_names, posture(model, "StandInit"), 0.3)
    assert proc.running() and probe.spin(1.0, until=lambda: probe.tf.dynamic_messages > before)


def test_publication_follows_the_joint_states_stamps_whatever_the_wall_time_rate(running):
    """A 100 Hz robot (stamps 10 ms apart) gives one /tf and com per two messages, stamped with
    those messages' stamps, 20 ms apart (publish_frequency 50 Hz), whether its messages come in
    bursts faster than real time or one by one slower than it: the rate is the stamps', not the
    wall clock's (a timer on the node's clock published the newest of each burst, and about once
    per message of a slow stream)."""
    proc, probe = running
    model = NaoModel()
    names, q = model.joint_names, posture(model, "StandInit")
    probe.stream(names, q, 0.3)
    probe.spin(0.3)  # let earlier messages drain
    period_ns, burst = 10_000_000, 8  # a burst within CYCLE_QOS's depth of 10: none lost
    t0 = (probe.node.get_clock().now().nanoseconds // period_ns + 10) * period_ns  # after every earlier stamp
    stamps = [t0 + k * period_ns for k in range(48)]
    expected = stamps[::2]
    probe.tf_stamps_ns.clear()
    probe.coms.clear()

    def published():
        return [s for s in probe.tf_stamps_ns if s >= t0]

    # Faster than real time: 80 ms of the robot's time at once, four times over.
    for first in range(0, 32, burst):
        for stamp in stamps[first:first + burst]:
            probe.publish(names, q, stamp)
        assert probe.spin(5.0, until=lambda: len(published()) >= (first + burst) // 2), (first, published())
    # Slower than real time: one message at a time, each once the previous one's /tf (if due) came
    # and a further 30 ms of the probe's spinning.
    for k in range(32, 48):
        probe.publish(names, q, stamps[k])
        assert probe.spin(5.0, until=lambda: len(published()) >= k // 2 + 1), (k, published())
        probe.spin(0.03)
    probe.spin(0.3)
    assert [s - t0 for s in published()] == [s - t0 for s in expected]
    com_stamps = [c.header.stamp.sec * 1_000_000_000 + c.header.stamp.nanosec for c in probe.coms]
    assert [s - t0 for s in com_stamps if s >= t0] == [s - t0 for s in expected]
    assert proc.running()
