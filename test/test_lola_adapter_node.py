"""The robot adapter node as its own process over real DDS, with the test as nao_lola and as the
suite: what crosses (LoLA indexes, FSR layout), every malformed input refused with nothing sent,
clamping, the stiffness ramp from the measured stiffness, the stale-command diagnostics, the
shutdown, and a version other than V6 refused."""

import math
import subprocess
import sys
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("nao_lola_command_msgs")

from conftest import NodeGroup  # noqa: E402
from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from nao_lola_command_msgs.msg import JointPositions, JointStiffnesses  # noqa: E402
from nao_lola_sensor_msgs.msg import FSR  # noqa: E402
from nao_lola_sensor_msgs.msg import JointStiffnesses as MeasuredStiffnesses  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float32MultiArray  # noqa: E402

from nao_motion.lola.joint_indexes import LOLA_JOINT_COUNT, LOLA_JOINT_NAMES  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import LOLA_ADAPTER  # noqa: E402

MODEL = NaoModel("V6")
STAND = posture(MODEL, "StandInit")
SETTLE_S = 0.5  # time for a message that would be sent to arrive


class Lola(SpinningProbe):
    """nao_lola's side (sensors in, effectors recorded) and the suite's (commands out, fsr/* in)."""

    def __init__(self):
        super().__init__("lola_probe")
        self.positions, self.stiffnesses, self.fsr, self.diagnostics, self.logs = [], [], {"left": [], "right": []}, [], []
        self.commands = self.node.create_publisher(JointState, "joint_commands", CYCLE_QOS)
        self.stiffness = self.node.create_publisher(JointState, "joint_stiffness", CYCLE_QOS)
        self.fsr_pub = self.node.create_publisher(FSR, "sensors/fsr", 10)
        self.measured_pub = self.node.create_publisher(MeasuredStiffnesses, "sensors/joint_stiffnesses", 10)
        self.node.create_subscription(JointPositions, "effectors/joint_positions",
                                      lambda m: self.add(self.positions, m), 100)
        self.node.create_subscription(JointStiffnesses, "effectors/joint_stiffnesses",
                                      lambda m: self.add(self.stiffnesses, m), 100)
        for side in ("left", "right"):
            self.node.create_subscription(Float32MultiArray, f"fsr/{side}",
                                          lambda m, side=side: self.add(self.fsr[side], m), 100)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, 10)
        self.record_logs("lola_adapter", self.logs)

    def _on_diagnostics(self, msg):
        for status in msg.status:
            if status.name == "nao_motion: lola_adapter":
                self.add(self.diagnostics, (status.message, {kv.key: kv.value for kv in status.values}))

    def command(self, names, positions):
        self.commands.publish(JointState(name=list(names), position=[float(p) for p in positions]))

    def stand(self, **changes):
        q = STAND.copy()
        for name, value in changes.items():
            q[MODEL.joint_index(name)] = value
        self.command(MODEL.joint_names, q)

    def sends_nothing_for(self, publish) -> bool:
        """Whether nothing goes out on effectors/joint_positions after `publish()`."""
        time.sleep(SETTLE_S)
        before = len(self.positions)
        publish()
        time.sleep(SETTLE_S)
        return len(self.positions) == before

    def diagnosed(self, condition, timeout_s=5.0):
        since = len(self.diagnostics)
        found = []

        def seen():
            found[:] = [d for d in self.diagnostics[since:] if condition(*d)]
            return bool(found)
        assert self.wait(seen, timeout_s), self.diagnostics[-1:] if self.diagnostics else "no diagnostics"
        return found[-1]


def lola_values(msg_values) -> dict[str, float]:
    return dict(zip(LOLA_JOINT_NAMES, msg_values))


@pytest.fixture
def adapter(tmp_path):
    rclpy.init()
    nodes = NodeGroup(tmp_path)
    probe = Lola()
    probe.start()
    try:
        nodes.start(LOLA_ADAPTER, params={"stiffness_ramp_s": 0.5, "limp_duration_s": 0.3, "sit_duration_s": 0.5})
        assert probe.wait(lambda: probe.diagnostics, 30.0), "the adapter did not start"
        yield probe, nodes
    finally:
        probe.close()
        nodes.stop()
        rclpy.shutdown()


def test_commands_stiffness_and_fsr_cross_in_each_others_layout(adapter):
    lola, nodes = adapter
    # Before the measured stiffness: positions go, the stiffness ramp waits.
    lola.stand(HeadYaw=0.3)
    assert lola.wait(lambda: lola.positions, 5.0)
    msg = lola.positions[-1]
    assert list(msg.indexes) == list(range(LOLA_JOINT_COUNT)) and len(msg.positions) == LOLA_JOINT_COUNT
    sent = lola_values(msg.positions)
    for name in LOLA_JOINT_NAMES:
        expected = 0.3 if name == "HeadYaw" else STAND[MODEL.joint_index(name)]
        assert sent[name] == pytest.approx(expected, abs=1e-6), name
    assert not lola.stiffnesses
    # The robot is limp: the ramp starts from 0 and ends at 1 in 0.5 s.
    lola.measured_pub.publish(MeasuredStiffnesses(stiffnesses=[0.0] * LOLA_JOINT_COUNT))
    time.sleep(0.2)
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        lola.stand()
        time.sleep(0.012)
    ramp = [max(m.stiffnesses) for m in lola.stiffnesses]
    assert ramp[0] < 0.2 and ramp[-1] == pytest.approx(1.0) and np.all(np.diff(ramp) >= 0.0), ramp
    assert all(list(m.indexes) == list(range(LOLA_JOINT_COUNT)) and len(m.stiffnesses) == LOLA_JOINT_COUNT
               for m in lola.stiffnesses)
    count = len(lola.stiffnesses)
    lola.stand()
    time.sleep(SETTLE_S)
    assert len(lola.stiffnesses) == count  # unchanged: not sent again
    # joint_stiffness: sent once, RHipYawPitch alone drives the shared motor, clamped.
    lola.stiffness.publish(JointState(name=["RHipYawPitch", "LHand"], effort=[0.4, 3.0]))
    time.sleep(0.1)
    lola.stand()
    assert lola.wait(lambda: len(lola.stiffnesses) > count, 5.0)
    sent = lola_values(lola.stiffnesses[-1].stiffnesses)
    assert sent["LHipYawPitch"] == pytest.approx(0.4) and sent["LHand"] == pytest.approx(1.0)
    # FSR: nao_lola's eight fields as the suite's FL, FR, RL, RR per foot.
    lola.fsr_pub.publish(FSR(**dict(zip(FSR.get_fields_and_field_types(), [float(k) for k in range(1, 9)]))))
    assert lola.wait(lambda: lola.fsr["left"] and lola.fsr["right"], 5.0)
    assert list(lola.fsr["left"][-1].data) == [1, 2, 3, 4] and list(lola.fsr["right"][-1].data) == [5, 6, 7, 8]
    assert lola.fsr["left"][-1].layout.dim[0].label == "FL,FR,RL,RR"
    count = len(lola.fsr["left"])
    lola.fsr_pub.publish(FSR(l_foot_front_left=math.nan))
    time.sleep(SETTLE_S)
    assert len(lola.fsr["left"]) == count


def test_malformed_commands_send_nothing_and_out_of_range_is_clamped(adapter):
    lola, nodes = adapter
    lola.stand()
    assert lola.wait(lambda: lola.positions, 5.0)
    names = list(MODEL.joint_names)
    bad = {
        "NaN": lambda: lola.command(names, np.where(np.arange(len(names)) == 3, math.nan, STAND)),
        "inf": lambda: lola.command(names, np.where(np.arange(len(names)) == 3, math.inf, STAND)),
        "fewer positions than names": lambda: lola.command(names, STAND[:-1]),
        "more positions than names": lambda: lola.command(names[:-1], STAND),
        "unknown name": lambda: lola.command(["HeadYaw", "Tail"], [0.0, 0.0]),
        "duplicate name": lambda: lola.command(["HeadYaw", "HeadYaw"], [0.0, 0.1]),
    }
    for what, publish in bad.items():
        assert lola.sends_nothing_for(publish), what
    message, values = lola.diagnosed(lambda m, v: int(v["commands_refused"]) == len(bad))
    assert any("refused, nothing sent" in log for log in lola.logs)
    # Outside the limits: sent clamped (HeadYaw's range, then HeadPitch's at that yaw).
    lola.stand(HeadYaw=5.0, LKneePitch=-1.0)
    assert lola.wait(lambda: lola_values(lola.positions[-1].positions)["HeadYaw"] > 2.0, 5.0)
    sent = lola_values(lola.positions[-1].positions)
    assert sent["HeadYaw"] == pytest.approx(MODEL.upper[MODEL.joint_index("HeadYaw")], abs=1e-6)
    assert sent["LKneePitch"] == pytest.approx(MODEL.lower[MODEL.joint_index("LKneePitch")], abs=1e-6)
    assert all(math.isfinite(v) for v in sent.values())


def test_no_fresh_command_is_said_on_the_diagnostics_and_ctrl_c_sits_the_robot_down(adapter):
    lola, nodes = adapter
    lola.diagnosed(lambda m, v: m == "no joint_commands yet: sending nothing")
    lola.measured_pub.publish(MeasuredStiffnesses(stiffnesses=[1.0] * LOLA_JOINT_COUNT))
    time.sleep(0.2)
    for _ in range(60):
        lola.stand()
        time.sleep(0.012)
    lola.diagnosed(lambda m, v: "LoLA holds the last command" in m)
    positions, stiffnesses = len(lola.positions), len(lola.stiffnesses)
    nodes.stop()  # Ctrl-C, then waits for a clean exit
    sit = [lola_values(m.positions) for m in lola.positions[positions:]]
    crouch = posture(MODEL, "Crouch")
    assert sit and sit[-1]["LKneePitch"] == pytest.approx(crouch[MODEL.joint_index("LKneePitch")], abs=1e-5)
    limp = [max(m.stiffnesses) for m in lola.stiffnesses[stiffnesses:]]
    assert limp and limp[-1] == 0.0 and np.all(np.diff(limp) <= 0.0), limp
    nodes.processes.clear()  # stopped


def test_a_version_other_than_v6_is_refused(tmp_path):
    result = subprocess.run([sys.executable, "-m", LOLA_ADAPTER.module, "--ros-args", "-p", "nao_version:=V5"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "nao_version must be one of V6" in result.stdout + result.stderr
