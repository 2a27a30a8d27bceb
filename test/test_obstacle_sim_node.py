"""End to end: obstacles declared through the ALMotion client (setObstacle: a marker on the
``obstacles`` topic) to the suite (composed) driving the simulated NAO, each in its own process.
Judged by ground truth: the simulator's measured joints placed by the forward kinematics, the
arm's capsules against the declared sphere (torso frame, shape by shape), not by the nodes'
reports.

One motion after the other: LShoulderPitch sent through a sphere stops at the margin; the sphere
moved beside the way, the same target is reached; effector control (wbSetEffectorControl) to a
point inside a sphere ends at the closest feasible point."""

import threading
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from closest_feasible import closest_feasible_gap_m  # noqa: E402
from conftest import LOCKSTEP, NodeGroup  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from visualization_msgs.msg import MarkerArray  # noqa: E402

from nao_motion.body_shapes import body_capsules  # noqa: E402
from nao_motion.collision.distance import capsule_capsule_distance  # noqa: E402
from nao_motion.joint_input import parse_joint_values  # noqa: E402
from nao_motion.kinematics import FRAME_ROBOT, FRAME_TORSO, ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.ros.obstacle_input import OBSTACLE_QOS, OBSTACLES_TOPIC  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import SIMULATOR, SUITE_PROCESS  # noqa: E402

MODEL = NaoModel()
FK = ForwardKinematics(MODEL)
RADIUS_M = 0.03
MARGIN_M = 0.005  # the collision filter's and the whole body's default
PITCH = MODEL.joint_index("LShoulderPitch")
ARM_SHAPES = [s for s in body_capsules(MODEL) if s.group == "l_arm"]


def arm_to_sphere_m(q, centre_torso) -> float:
    """Ground truth: the closest left-arm capsule to the sphere, at measured joints q."""
    state, best = FK.compute(q), np.inf
    for shape in ARM_SHAPES:
        pose = FK.pose(state, shape.link)
        p, q_end = (pose[:3, :3] @ np.asarray(end) + pose[:3, 3] for end in (shape.p_m, shape.q_m))
        best = min(best, float(capsule_capsule_distance(p, q_end, shape.radius_m, centre_torso, centre_torso,
                                                        RADIUS_M).distance_m))
    return best


class Recorder:
    """The simulator's measured joints, and what reaches the obstacles topic (rviz's view)."""

    def __init__(self, node):
        self.lock = threading.Lock()
        self.states, self.markers, self.filtered = [], [], []
        node.create_subscription(JointState, "joint_states", self._on_states, CYCLE_QOS)
        node.create_subscription(JointState, "collision_filter/safe_joint_commands",
                                 lambda m: self.filtered.append(1), CYCLE_QOS)
        node.create_subscription(MarkerArray, OBSTACLES_TOPIC, lambda m: self.markers.append(m), OBSTACLE_QOS)

    def _on_states(self, msg):
        parsed = parse_joint_values(MODEL, msg.name, msg.position, unknown_names="ignore")
        q = MODEL.zero_configuration()
        q[parsed.indices] = parsed.values
        with self.lock:
            self.states.append(q)

    def count(self) -> int:
        with self.lock:
            return len(self.states)

    def run(self, cycles: int, timeout_s: float = 120.0) -> np.ndarray:
        """The measured joints of the next `cycles` simulator cycles."""
        start, deadline = self.count(), time.monotonic() + timeout_s
        while self.count() < start + cycles:
            assert time.monotonic() < deadline, "the simulator stopped publishing joint_states"
            time.sleep(0.02)
        with self.lock:
            return np.array(self.states[start:start + cycles])


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    nodes.start(SIMULATOR, params=LOCKSTEP)
    nodes.start(SUITE_PROCESS, use_sim_time=True)
    rclpy.init()
    try:
        from nao_motion.almotion import ALMotion

        motion = ALMotion(timeout_s=30.0)
        recorder = Recorder(motion.node)
        try:
            motion.getAngles("Body", True)  # waits for the simulator
            deadline = time.monotonic() + 60.0
            while not recorder.filtered:  # and for the collision filter's first command
                assert time.monotonic() < deadline, "the collision filter did not start"
                time.sleep(0.05)
            recorder.run(50)
            yield motion, recorder
        finally:
            motion.close()
    finally:
        rclpy.shutdown()
        nodes.stop()


def test_obstacles_stop_an_arm_at_the_margin_let_it_by_beside_and_bound_effector_control(suite):
    motion, recorder = suite
    start = np.array(motion.getAngles("Body", True))
    raised = start.copy()
    raised[PITCH] = 0.0
    hand = FK.pose(FK.compute(raised), "l_gripper")[:3, 3]  # where the raised hand would be

    # 1. Through the sphere: the arm stops at the margin, never touching it.
    motion.setObstacle("ball", "Sphere", hand.tolist(), [RADIUS_M], frame="torso")
    recorder.run(20)
    motion.setAngles(["LShoulderPitch"], [0.0], 0.3)
    through = recorder.run(400)
    distances = [arm_to_sphere_m(q, hand) for q in through]
    print(f"through: min {min(distances) * 1e3:.2f} mm, final {distances[-1] * 1e3:.2f} mm, "
          f"LShoulderPitch {through[-1, PITCH]:.3f} rad")
    assert min(distances) > 0.0
    assert distances[-1] < MARGIN_M + 0.004  # resting at the margin (the servo's lag keeps it a little off)
    assert through[-1, PITCH] > 0.15  # well short of the target
    assert any(m.markers and m.markers[0].ns == "almotion" for m in recorder.markers)  # rviz sees the sphere

    # 2. The sphere moved beside the way: the same target is reached.
    beside = hand + (0.0, 0.15, 0.0)
    motion.setObstacle("ball", "Sphere", beside.tolist(), [RADIUS_M], frame="torso")
    by = recorder.run(300)
    print(f"beside: min {min(arm_to_sphere_m(q, beside) for q in by) * 1e3:.1f} mm, "
          f"LShoulderPitch {by[-1, PITCH]:.3f} rad")
    assert min(arm_to_sphere_m(q, beside) for q in by) > MARGIN_M
    assert abs(by[-1, PITCH]) < 0.03

    # 3. Effector control to a point inside a sphere: the closest feasible point.
    motion.removeAllObstacles()
    motion.angleInterpolationWithSpeed(["LShoulderPitch"], [float(start[PITCH])], 0.3)
    recorder.run(50)
    offset = np.array([0.08, 0.0, 0.05])
    now = np.array(motion.getAngles("Body", True))
    centre_torso = FK.pose(FK.compute(now), "l_gripper")[:3, 3] + offset
    target = np.array(motion.getPosition("LArm", FRAME_ROBOT, True)[:3]) + offset
    # Declared in the left sole's frame (TF), which stays put while the whole body leans the torso
    # toward the target; the ground truth places it back in the torso frame at each measured pose.
    centre_sole = (np.linalg.inv(FK.pose(FK.compute(now), "l_sole")) @ np.append(centre_torso, 1.0))[:3]
    motion.setObstacle("disc", "Cylinder", centre_sole.tolist(), [RADIUS_M, 0.001], frame="l_sole")
    motion.removeObstacle("disc")
    motion.setObstacle("ball", "Sphere", centre_sole.tolist(), [RADIUS_M], frame="l_sole")
    recorder.run(20)
    motion.wbEnableEffectorControl("LArm", True)
    motion.wbSetEffectorControl("LArm", target.tolist())
    reach = recorder.run(500)

    def in_torso(q):
        return (FK.pose(FK.compute(q), "l_sole") @ np.append(centre_sole, 1.0))[:3]

    distances = [arm_to_sphere_m(q, in_torso(q)) for q in reach]
    # The closest feasible point at the measured end pose (closest_feasible: no pose of the arm,
    # the rest of the body where it ended, brings the hand closer while keeping the margin).
    end = reach[-1]
    end_state = FK.compute(end)
    target_torso = (FK.ground_frame(end_state) @ np.append(target, 1.0))[:3]  # the feet stay: FRAME_ROBOT too
    gap = np.linalg.norm(FK.position_in_space(end_state, "LArm", FRAME_TORSO)[:3] - target_torso)
    best = closest_feasible_gap_m(FK, end, target_torso, in_torso(end), RADIUS_M, MARGIN_M)
    print(f"effector: min {min(distances) * 1e3:.2f} mm, final {distances[-1] * 1e3:.2f} mm, "
          f"hand {gap * 1e3:.1f} mm from the target, closest feasible {best * 1e3:.1f} mm")
    motion.wbEnableEffectorControl("LArm", False)
    motion.wbEnable(False)
    motion.removeAllObstacles()
    assert min(distances) > 0.0
    assert distances[-1] < MARGIN_M + 0.004
    assert best > 0.03  # the target is well behind the sphere
    assert gap < best + 0.01  # the servos' lag keeps the measured arm a little off the margin
