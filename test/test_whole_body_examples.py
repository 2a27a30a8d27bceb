"""The specification's two whole-body scripts (examples/, NAOqi's with only the import changed),
end to end: the simulator node, the collision filter and the whole-body node as their own
processes (sim time), the script driving them through a qi session on the test's ALMotion client
(``nao_motion.naoqi.broker.serving``). The soles' tilt and the fall come from the simulator's
ground truth, up to the script's closing rest()."""

import threading

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from conftest import LOCKSTEP, NodeGroup, load_example  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from nao_motion import spatial  # noqa: E402
from nao_motion.naoqi import qi  # noqa: E402
from nao_motion.naoqi.broker import serving  # noqa: E402
from nao_motion.joint_input import parse_joint_values  # noqa: E402
from nao_motion.kinematics import ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import NODES, SIMULATOR  # noqa: E402

MODEL = NaoModel()
FK = ForwardKinematics(MODEL)
DEG = np.pi / 180.0


class GroundTruth:
    """Per simulated cycle: measured joints, the soles' worst tilt (rad) and whether it stands.

    The joints and the true torso of one cycle are paired by their stamp: a test process starved
    on a busy machine takes the two streams' messages in different wake-ups, and the newest joints
    with another cycle's torso showed a tilt the soles never had (1.6 deg while the hip turned)."""

    def __init__(self, node):
        self.lock = threading.Lock()
        self.q_by_stamp: dict[tuple[int, int], np.ndarray] = {}  # the last cycles' joints
        self.records = []  # (q, worst sole tilt, torso tilt)
        node.create_subscription(JointState, "joint_states", self._on_states, CYCLE_QOS)
        node.create_subscription(Odometry, "ground_truth/odom", self._on_odom, CYCLE_QOS)

    def _on_states(self, msg):
        parsed = parse_joint_values(MODEL, msg.name, msg.position, unknown_names="ignore")
        q = MODEL.zero_configuration()
        q[parsed.indices] = parsed.values
        with self.lock:
            self.q_by_stamp[msg.header.stamp.sec, msg.header.stamp.nanosec] = q
            while len(self.q_by_stamp) > 100:
                del self.q_by_stamp[next(iter(self.q_by_stamp))]

    def _on_odom(self, msg):
        o = msg.pose.pose.orientation
        torso = spatial.rotation_from_quaternion_xyzw([o.x, o.y, o.z, o.w])
        with self.lock:
            q = self.q_by_stamp.get((msg.header.stamp.sec, msg.header.stamp.nanosec))
            if q is None:
                return
            state = FK.compute(q)
            tilt = max(np.abs(spatial.rpy_from_rotation(torso @ FK.pose(state, sole)[:3, :3])[:2]).max()
                       for sole in ("l_sole", "r_sole"))
            self.records.append((q, tilt, np.arccos(np.clip(torso[2, 2], -1.0, 1.0))))


@pytest.fixture
def suite(tmp_path):
    """Simulator, collision filter and whole body node, in this test run's domain, sim time."""
    nodes = NodeGroup(tmp_path)
    nodes.start(SIMULATOR, params=LOCKSTEP)
    for name in ("collision_filter", "whole_body"):
        nodes.start(next(s for s in NODES if s.executable == name), use_sim_time=True)
    rclpy.init()
    try:
        from nao_motion.almotion import ALMotion

        motion = ALMotion(timeout_s=20.0)
        truth = GroundTruth(motion.node)
        try:
            motion.getAngles("Body", True)  # waits for the simulator's joint_states
            yield motion, truth
        finally:
            motion.close()
    finally:
        rclpy.shutdown()
        nodes.stop()


def run_to_rest(motion, truth: GroundTruth, example: str) -> list:
    """The NAOqi example (a qi script) through a session on this client, up to its closing rest()
    (crouch, then limp): the ground truth recorded before the rest."""
    marks, rest = [], motion.rest

    def marked_rest():
        with truth.lock:
            marks.append(len(truth.records))
        rest()
    motion.rest = marked_rest
    session = qi.Session()
    with serving(motion):
        session.connect()
        load_example(example).main(session)
    assert marks, "the example did not end in rest()"
    with truth.lock:
        return list(truth.records[:marks[0]])


def test_wb_foot_state_example_keeps_the_soles_flat(suite):
    motion, truth = suite
    records = run_to_rest(motion, truth, "almotion_wbFootState")
    hyp = np.array([q[MODEL.joint_index("LHipYawPitch")] for q, _, _ in records])
    assert hyp.min() < -40 * DEG  # the hip turned...
    # ...with the soles flat: within 0.7 deg here (the most near -40 deg of hip, where the legs'
    # compensation reaches its joints' limits), 1.2 and 1.6 deg in two CI runs of the whole suite
    # with a core busy (not reproduced alone, even with four busy loops). Uncompensated, the turn
    # tilts a sole by tens of degrees.
    tilts = np.array([tilt for _, tilt, _ in records])
    assert np.percentile(tilts, 95) < 1.0 * DEG and tilts.max() < 2.0 * DEG, np.degrees(tilts.max())
    assert max(torso for _, _, torso in records) < 30 * DEG


def test_wb_enable_balance_constraint_example_bends_the_knees_without_falling(suite):
    motion, truth = suite
    records = run_to_rest(motion, truth, "almotion_wbEnableBalanceConstraint")
    knee = np.array([q[MODEL.joint_index("LKneePitch")] for q, _, _ in records])
    assert knee.min() < 15 * DEG and knee[-1] == pytest.approx(40 * DEG, abs=3 * DEG)
    assert max(torso for _, _, torso in records) < 30 * DEG  # never fell
