"""End to end: NAOqi's example (examples/almotion_reflexesCollisionAvoidance.py, the
specification's script with only its imports changed) through its ALProxy, this test's ALMotion
client, the collision filter node and the simulator node, each in its own process.

Without protection the simulated left arm goes into the chest; with it, the arm's shapes stay
off the body for the whole motion and the commands rest at the nearest safe pose."""

import threading
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from conftest import NodeGroup, load_example  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from nao_motion.collision.pairs import PairDistances, collision_pairs  # noqa: E402
from nao_motion.joint_input import parse_joint_values  # noqa: E402
from nao_motion.kinematics import ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.naoqi.broker import serving  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import NODES, SIMULATOR  # noqa: E402

FILTER = next(spec for spec in NODES if spec.executable == "collision_filter")
MODEL = NaoModel()
LARM_IDX = [MODEL.joint_index("L" + j) for j in ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll")]
NEAREST = np.deg2rad([46.371, 9.929, -3.040, -84.309])  # see test_collision_avoidance


class Recorder:
    """Measured and commanded joint positions with the wall time they arrived."""

    def __init__(self, node):
        self.lock = threading.Lock()
        self.states, self.commands = [], []
        node.create_subscription(JointState, "joint_states", lambda m: self._add(self.states, m), CYCLE_QOS)
        node.create_subscription(JointState, "joint_commands", lambda m: self._add(self.commands, m), CYCLE_QOS)

    def _add(self, store, msg):
        parsed = parse_joint_values(MODEL, msg.name, msg.position, unknown_names="ignore")
        q = MODEL.zero_configuration()
        q[parsed.indices] = parsed.values
        with self.lock:
            store.append((time.monotonic(), q))

    def between(self, store, t0, t1):
        with self.lock:
            return np.array([q for t, q in store if t0 <= t < t1])


def test_the_example_bumps_the_chest_only_without_protection(tmp_path):
    example = load_example("almotion_reflexesCollisionAvoidance")
    nodes = NodeGroup(tmp_path)
    nodes.start(SIMULATOR)
    # The filter alone drives the simulator (in the suite the whole-body node comes in between).
    nodes.start(FILTER, use_sim_time=True, remaps={"joint_commands": "joint_commands"})
    rclpy.init()
    try:
        from nao_motion.almotion import ALMotion

        motion = ALMotion(timeout_s=20.0)
        recorder = Recorder(motion.node)
        switches = []  # (wall time, enabled) of each setCollisionProtectionEnabled call
        original = motion.setCollisionProtectionEnabled

        def recording(chain, enable):
            switches.append((time.monotonic(), bool(enable)))
            return original(chain, enable)

        motion.setCollisionProtectionEnabled = recording
        try:
            motion.getAngles("Body", True)  # waits for the simulator's joint_states
            assert motion.getCollisionProtectionEnabled("LArm")  # NAOqi's default: Arms protected
            with serving(motion):  # the script's ALProxy gives this client
                example.main("127.0.0.1")
        finally:
            motion.close()
        end = time.monotonic()
    finally:
        rclpy.shutdown()
        nodes.stop()

    assert [enabled for _, enabled in switches] == [False, True]
    (t_off, _), (t_on, _) = switches
    checker = PairDistances(ForwardKinematics(MODEL), collision_pairs(MODEL))
    left = checker.pairs.checked({"LArm"})
    torso = np.array([checker.pairs.shapes[b].group == "torso" for b in checker.pairs.second])

    def closest(rows, mask):
        return np.array([checker.at(q).distance_m[mask].min() for q in rows])

    unprotected = recorder.between(recorder.states, t_off, t_on)
    protected = recorder.between(recorder.states, t_on, end)
    commands_on = recorder.between(recorder.commands, t_on, end)
    assert len(unprotected) > 100 and len(protected) > 100
    # Protection off: the measured left arm is inside the torso (the forearm by more than 1 cm).
    assert closest(unprotected, left & torso).min() < -0.01
    # Protection on: the measured arm never touches the body, and the commands rest at the
    # nearest pose keeping the margin.
    assert closest(protected, left).min() >= 0.0
    assert np.abs(commands_on[:, LARM_IDX] - NEAREST).max(axis=1).min() < 2e-4
