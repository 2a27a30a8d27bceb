"""The simulator presenting nao_lola's topics (interface:=nao_lola) as its own process over real
DDS, with the test as the robot adapter: nao_lola's names, types and layouts, one message of
each per 12 ms simulated cycle, commands and stiffness applied, malformed effectors ignored as
nao_lola ignores them, and the option refused for a V5."""

import math
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")
pytest.importorskip("nao_lola_command_msgs")

from conftest import NodeGroup  # noqa: E402
from nao_lola_command_msgs.msg import JointPositions as CommandPositions  # noqa: E402
from nao_lola_command_msgs.msg import JointStiffnesses as CommandStiffnesses  # noqa: E402
from nao_lola_sensor_msgs.msg import FSR, JointPositions, JointStiffnesses  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402

from nao_motion.lola.joint_indexes import LOLA_JOINT_COUNT, LOLA_JOINT_NAMES  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.ros.lola_robot_interface import LolaRobotInterface  # noqa: E402
from nao_motion.suite import SIMULATOR  # noqa: E402

HEAD_YAW = LOLA_JOINT_NAMES.index("HeadYaw")
TOPICS = {"joint_states": JointState, "imu": Imu, "sensors/fsr": FSR, "sensors/joint_positions": JointPositions,
          "sensors/joint_stiffnesses": JointStiffnesses, "/clock": Clock}


class Adapter(SpinningProbe):
    """nao_lola's robot adapter: keeps the last message of each topic (and their count), sends commands."""

    def __init__(self):
        super().__init__("lola_interface_probe")
        self.last, self.count = {}, {}
        for topic, msg_type in TOPICS.items():
            self.node.create_subscription(msg_type, topic, self._keeper(topic), 100)
        self.positions = self.node.create_publisher(CommandPositions, "effectors/joint_positions", 1)
        self.stiffnesses = self.node.create_publisher(CommandStiffnesses, "effectors/joint_stiffnesses", 1)

    def _keeper(self, topic):
        def keep(msg):
            with self.cond:
                self.last[topic] = msg
                self.count[topic] = self.count.get(topic, 0) + 1
                self.cond.notify_all()
        return keep

    def sim_time_s(self) -> float:
        with self.cond:
            clock = self.last["/clock"].clock
        return clock.sec + clock.nanosec * 1e-9

    def head_yaw(self) -> float:
        with self.cond:
            return self.last["sensors/joint_positions"].positions[HEAD_YAW]

    def command_head_yaw(self, yaw: float, seconds: float = 1.0) -> None:
        """Hold every motor where it is and the head at `yaw` for `seconds`, as an adapter sends."""
        with self.cond:
            held = list(self.last["sensors/joint_positions"].positions)
        held[HEAD_YAW] = yaw
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.positions.publish(CommandPositions(indexes=bytes(range(LOLA_JOINT_COUNT)), positions=held))
            time.sleep(0.012)


@pytest.fixture
def lola(tmp_path):
    rclpy.init()
    nodes = NodeGroup(tmp_path)
    probe = Adapter()
    probe.start()
    try:
        nodes.start(SIMULATOR, params={"nao_version": "V6", "interface": "nao_lola"})
        assert probe.wait(lambda: set(probe.last) == set(TOPICS), 30.0), sorted(probe.last)
        yield probe
    finally:
        probe.close()
        nodes.stop()
        rclpy.shutdown()


def test_nao_lolas_topics_once_per_simulated_cycle(lola):
    time.sleep(1.0)  # the robot has landed (it starts a few millimetres above the floor)
    states = lola.last["joint_states"]
    assert list(states.name) == list(LOLA_JOINT_NAMES) and len(states.position) == LOLA_JOINT_COUNT
    assert not states.velocity and not states.effort
    assert states.header.stamp.sec > 1_000_000_000  # the node's clock (wall time), as nao_lola's
    imu = lola.last["imu"]
    assert imu.header.frame_id == "ImuTorsoAccelerometer_frame" and imu.orientation_covariance[0] == -1.0
    assert (imu.orientation.x, imu.orientation.y, imu.orientation.z, imu.orientation.w) == (0.0, 0.0, 0.0, 0.0)
    assert imu.linear_acceleration.z == pytest.approx(9.81, abs=1.0)
    fsr = lola.last["sensors/fsr"]
    feet = [sum(getattr(fsr, f"{foot}_foot_{part}") for part in ("front_left", "front_right", "back_left",
                                                                   "back_right")) for foot in "lr"]
    assert sum(feet) == pytest.approx(5.4 * 9.81, rel=0.2) and min(feet) > 0.3 * sum(feet)  # standing on both
    np.testing.assert_allclose(lola.last["sensors/joint_stiffnesses"].stiffnesses, 1.0)
    # (the latest of each may be a cycle apart: the robot stands still, a cycle moves it a little)
    np.testing.assert_allclose(lola.last["sensors/joint_positions"].positions, states.position, atol=1e-3)
    # One message of each per 12 ms of simulated time: 83.3 per simulated second.
    with lola.cond:  # the counts and the simulated time they start from, taken together
        start = {topic: lola.count[topic] for topic in TOPICS}
        t0 = lola.sim_time_s()
    time.sleep(3.0)
    sim_s = lola.sim_time_s() - t0
    for topic in TOPICS:
        if topic != "/clock":
            assert (lola.count[topic] - start[topic]) / sim_s == pytest.approx(1 / 0.012, rel=0.05), topic


def test_commands_and_stiffness_apply_and_malformed_effectors_are_ignored(lola):
    lola.command_head_yaw(0.5)
    assert lola.head_yaw() == pytest.approx(0.5, abs=0.05)
    good = list(lola.last["sensors/joint_positions"].positions)
    bad = {
        "lengths differ": CommandPositions(indexes=bytes(range(LOLA_JOINT_COUNT)), positions=good[:-1]),
        "index outside 0..24": CommandPositions(indexes=bytes([HEAD_YAW, 25]), positions=[-0.5, 0.0]),
        "repeated index": CommandPositions(indexes=bytes([HEAD_YAW, HEAD_YAW]), positions=[-0.5, -0.5]),
        "NaN": CommandPositions(indexes=bytes([HEAD_YAW, 1]), positions=[-0.5, math.nan]),
    }
    for what, msg in bad.items():
        for _ in range(20):
            lola.positions.publish(msg)
            time.sleep(0.012)
        time.sleep(0.3)
        assert lola.head_yaw() == pytest.approx(0.5, abs=0.05), what
    # Stiffness: the head goes limp (0), shown on sensors/joint_stiffnesses; malformed: ignored.
    lola.stiffnesses.publish(CommandStiffnesses(indexes=bytes([HEAD_YAW, 1]), stiffnesses=[0.0]))
    time.sleep(0.3)
    assert lola.last["sensors/joint_stiffnesses"].stiffnesses[HEAD_YAW] == pytest.approx(1.0)
    lola.stiffnesses.publish(CommandStiffnesses(indexes=bytes([HEAD_YAW]), stiffnesses=[0.0]))
    assert lola.wait(lambda: lola.last["sensors/joint_stiffnesses"].stiffnesses[HEAD_YAW] == 0.0, 2.0)


def test_the_nao_lola_interface_is_refused_for_a_v5():
    result = subprocess.run([sys.executable, "-m", SIMULATOR.module, "--ros-args", "-p", "nao_version:=V5",
                             "-p", "interface:=nao_lola", "-p", "thread_priority:=0"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "interface nao_lola needs nao_version V6" in result.stdout + result.stderr


class PublicationLog:
    """The simulator node's stand-in for LolaRobotInterface: records what is published, in order
    (over DDS the order is lost: the probe's executor takes the ready subscriptions in its own)."""

    def __init__(self):
        self.published: list[tuple[str, bytes]] = []
        self.clock = rclpy.clock.Clock()

    def create_publisher(self, msg_type, topic, depth):
        return SimpleNamespace(publish=lambda data: self.published.append((topic, data)))

    def create_subscription(self, *args, **kwargs):
        return None

    def get_clock(self):
        return self.clock


def test_joint_states_is_published_last_after_the_sensors_as_nao_lola_does():
    from rclpy.serialization import deserialize_message

    model = NaoModel("V6")
    node = PublicationLog()
    interface = LolaRobotInterface(node, SimpleNamespace(model=model))
    position = np.linspace(-0.5, 0.5, model.n_joints)
    position[model.joint_index("RHipYawPitch")] = position[model.joint_index("LHipYawPitch")]
    interface.publish(SimpleNamespace(position=position, stiffness=np.full(model.n_joints, 0.7),
                                      imu_angular_velocity=np.zeros(3), imu_angular_velocity_mean=np.array([0.1, -0.2, 0.3]),
                                      imu_linear_acceleration=np.array([0, 0, 9.81]),
                                      fsr_left=np.ones(4), fsr_right=np.ones(4)))
    topics = [topic for topic, _ in node.published]
    assert topics[-1] == "joint_states" and sorted(topics) == sorted(set(TOPICS) - {"/clock"}), topics
    # Each carries its own values (the interface reuses one LoLA-order buffer for all of them).
    states = deserialize_message(node.published[-1][1], JointState)
    expected = [position[model.joint_index(name)] for name in LOLA_JOINT_NAMES]
    np.testing.assert_allclose(states.position, expected)
    measured = deserialize_message(dict(node.published)["sensors/joint_positions"], JointPositions)
    np.testing.assert_allclose(measured.positions, expected, atol=1e-6)
    stiffness = deserialize_message(dict(node.published)["sensors/joint_stiffnesses"], JointStiffnesses)
    np.testing.assert_allclose(stiffness.stiffnesses, 0.7, atol=1e-6)
    # The gyro as the V6's IMU gives it: the mean over the cycle, not the sample at its end.
    imu = deserialize_message(dict(node.published)["imu"], Imu)
    np.testing.assert_allclose([imu.angular_velocity.x, imu.angular_velocity.y, imu.angular_velocity.z], [0.1, -0.2, 0.3])
    assert imu.orientation_covariance[0] == -1.0
