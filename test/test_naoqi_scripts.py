"""The specification's NAOqi scripts, run as NAOqi users run them: each its own Python process,
written as NAOqi's example (in Python 3) with only its import lines changed to
``nao_motion.naoqi`` (``ALProxy``; ``qi.Session``; ``motion``), against the simulator and the
composed suite (``nao-motion sim``). What the robot did is judged by the simulator's ground
truth (the true torso), its measured joints and the suite's commands.

The scripts are in examples/ (the four complete scripts of the specification); their order
here is the order a user at the robot would run them in: the arm example on the standing robot,
then the whole-body ones (each ends in rest: Crouch, limp; the next wakes the robot up and stands
it up first), then the dance."""

import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from conftest import LOCKSTEP, NodeGroup  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rcl_interfaces.msg import Log  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from nao_motion import spatial  # noqa: E402
from nao_motion.collision.pairs import PairDistances, collision_pairs  # noqa: E402
from nao_motion.joint_input import parse_joint_values  # noqa: E402
from nao_motion.kinematics import ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import SIMULATOR, SUITE_PROCESS  # noqa: E402

SCRIPTS = Path(__file__).resolve().parents[1] / "examples"
MODEL = NaoModel()
FK = ForwardKinematics(MODEL)
MAX_TILT_DEG = 20.0  # well short of a fall (test_walk_examples)
LARM = [MODEL.joint_index("L" + j) for j in ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll")]
SCRIPT_TIMEOUT_S = 240.0


class Robot(SpinningProbe):
    """Records, with the wall time they came: the measured joints, the suite's commands, the true
    torso pose, and the collision filter's log lines."""

    def __init__(self):
        super().__init__("naoqi_scripts_probe")
        self.states, self.commands, self.torso, self.filter_logs = [], [], [], []
        self._q = MODEL.zero_configuration()
        self._q_command = MODEL.zero_configuration()
        node = self.node
        node.create_subscription(JointState, "joint_states", self._on_states, CYCLE_QOS)
        node.create_subscription(JointState, "joint_commands", self._on_commands, CYCLE_QOS)
        node.create_subscription(Odometry, "ground_truth/odom", self._on_odom, CYCLE_QOS)
        node.create_subscription(Log, "/rosout", self._on_log, 100)
        self.start()

    def _merged(self, q: np.ndarray, msg: JointState) -> np.ndarray:
        parsed = parse_joint_values(MODEL, msg.name, msg.position, unknown_names="ignore")
        q[parsed.indices] = parsed.values
        return q.copy()

    def _on_states(self, msg):
        self.add(self.states, (time.monotonic(), self._merged(self._q, msg)))

    def _on_commands(self, msg):
        self.add(self.commands, (time.monotonic(), self._merged(self._q_command, msg)))

    def _on_odom(self, msg):
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        pose = spatial.transform(spatial.rotation_from_quaternion_xyzw([o.x, o.y, o.z, o.w]), [p.x, p.y, p.z])
        self.add(self.torso, (time.monotonic(), pose))

    def _on_log(self, msg: Log):
        if msg.name == "collision_filter":
            self.add(self.filter_logs, (time.monotonic(), msg.msg))

    def since(self, store: list, t0: float, until: float = math.inf) -> list:
        with self.cond:
            return [item for t, item in store if t0 <= t <= until]

    def worst_tilt_deg(self, t0: float) -> float:
        return max(math.degrees(math.acos(min(1.0, pose[2, 2]))) for pose in self.since(self.torso, t0))


@pytest.fixture(scope="module")
def robot(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("naoqi_scripts_logs"))
    nodes.start(SIMULATOR, params=LOCKSTEP)
    nodes.start(SUITE_PROCESS, use_sim_time=True)
    rclpy.init()
    probe = None
    try:
        probe = Robot()
        assert probe.wait(lambda: probe.torso and probe.commands, 60.0), "no ground truth or joint_commands"
        time.sleep(3.0)  # every node cycling, the robot settled on the floor
        yield probe
    finally:
        if probe is not None:
            probe.close()
        rclpy.shutdown()
        nodes.stop()


def run_script(name: str, *args: str) -> subprocess.CompletedProcess:
    """examples/<name>.py in a Python process of its own, as a user runs it (this run's ROS
    environment: the loopback and the test's domain)."""
    result = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), *args], env=dict(os.environ),
                            capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S)
    assert result.returncode == 0, (name, result.returncode, result.stdout[-2000:], result.stderr[-3000:])
    return result


def test_the_reflexes_script_bumps_the_chest_only_without_protection(robot):
    """Seed 000's almotion_reflexesCollisionAvoidance.py (ALProxy, motion.TO_RAD): the left arm
    goes into the chest with LArm's protection disabled, and stays off the body once enabled."""
    t0 = time.monotonic()
    result = run_script("almotion_reflexesCollisionAvoidance", "127.0.0.1")
    assert "Failed" not in result.stdout, result.stdout
    logs = robot.since(robot.filter_logs, t0)
    switches = [(t, text) for t, text in robot.filter_logs if t >= t0 and "LArm collision protection" in text]
    assert [text.rsplit(" ", 1)[1] for _, text in switches] == ["disabled", "enabled"], logs
    (t_off, _), (t_on, _) = switches
    checker = PairDistances(FK, collision_pairs(MODEL))
    left = checker.pairs.checked({"LArm"})
    torso = np.array([checker.pairs.shapes[b].group == "torso" for b in checker.pairs.second])

    def closest(rows, mask) -> float:
        return min(float(checker.at(q).distance_m[mask].min()) for q in rows)

    unprotected, protected = robot.since(robot.states, t_off, t_on), robot.since(robot.states, t_on)
    assert len(unprotected) > 100 and len(protected) > 100
    assert closest(unprotected, left & torso) < -0.01  # the forearm more than 1 cm into the chest
    assert closest(protected, left) >= 0.0
    assert robot.worst_tilt_deg(t0) < MAX_TILT_DEG


def test_the_whole_body_foot_state_script_keeps_the_feet_flat(robot):
    """Seed 004's almotion_wbFootState.py (qi.Session): LHipYawPitch to -45, 10, 0 deg with the
    balancer on and the feet in a plane, then rest. The hip turns, the robot stays up, and it ends
    crouched and limp."""
    t0 = time.monotonic()
    run_script("almotion_wbFootState", "--ip", "127.0.0.1", "--port", "9559")
    states = np.array(robot.since(robot.states, t0))
    hip = states[:, MODEL.joint_index("LHipYawPitch")]
    turned = int(np.argmin(hip))
    # to -45 deg, then back past 0 toward 10 deg (the feet held flat resist that way: 4-7 deg)
    assert hip[turned] < math.radians(-35.0) and hip[turned:].max() > math.radians(2.0), (hip.min(), hip.max())
    assert robot.worst_tilt_deg(t0) < MAX_TILT_DEG
    crouch = posture(MODEL, "Crouch")
    legs = [MODEL.joint_index(n) for n in MODEL.chains["LLeg"].joints + MODEL.chains["RLeg"].joints]
    assert np.abs(states[-1][legs] - crouch[legs]).max() < 0.15  # rest: crouched (then limp)


def test_the_balance_constraint_script_bends_the_knees_without_falling(robot):
    """Seed 004's almotion_wbEnableBalanceConstraint.py (qi.Session): from rest, wakeUp and
    StandInit, then with the feet Fixed and the balance constraint on Legs, both knees to 0 and
    then 40 deg, then rest."""
    t0 = time.monotonic()
    run_script("almotion_wbEnableBalanceConstraint", "--ip", "127.0.0.1")
    states = np.array(robot.since(robot.states, t0))
    knees = states[:, [MODEL.joint_index("LKneePitch"), MODEL.joint_index("RKneePitch")]]
    straightest = int(np.argmax(knees.max(axis=1) < math.radians(15.0)))
    assert knees[straightest].max() < math.radians(15.0)  # straightened
    # then bent to 40 deg and at rest there (the end of the interpolation; rest's Crouch passes it
    # at speed): ten states running within 3 deg
    at_40 = np.all(np.abs(knees[straightest:] - math.radians(40.0)) < math.radians(3.0), axis=1).astype(int)
    assert np.convolve(at_40, np.ones(10, dtype=int), "valid").max() == 10
    assert robot.worst_tilt_deg(t0) < MAX_TILT_DEG


def test_the_cha_cha_script_dances_its_steps(robot):
    """Seed 003's almotion_setFootStepsWithSpeed.py (ALProxy): wakeUp, StandInit, two rounds of
    the cha-cha's eight steps (its sidesteps take the robot about 0.1 m to its left and back),
    then rest."""
    t0 = time.monotonic()
    run_script("almotion_setFootStepsWithSpeed", "--ip", "127.0.0.1")
    torso = robot.since(robot.torso, t0)
    start = torso[0]
    yaw = math.atan2(start[1, 0], start[0, 0])
    left = [-math.sin(yaw) * (p[0, 3] - start[0, 3]) + math.cos(yaw) * (p[1, 3] - start[1, 3]) for p in torso]
    assert max(left) > 0.06, max(left)
    assert robot.worst_tilt_deg(t0) < MAX_TILT_DEG
