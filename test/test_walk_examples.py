"""NAOqi's ALMotion examples ported to examples/ (locomotion, the robot model, whole-body effector
control), end to end: the simulator and the whole suite composed in one process, as users run it
(sim time; the simulator in lockstep, conftest.LOCKSTEP), each example driving it through the ALMotion
client. What the robot did comes from the simulator's ground truth: its true torso pose, with the
measured joints (FK) for the feet, arms and head, and its FSRs."""

import math
import threading
import time
from functools import partial

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from conftest import LOCKSTEP, load_example, simulated_suite_client  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rcl_interfaces.srv import GetParameters  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float32MultiArray  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from nao_motion import spatial  # noqa: E402
from nao_motion.almotion.posture import ALRobotPosture  # noqa: E402
from nao_motion.naoqi.broker import serving  # noqa: E402
from nao_motion.joint_input import parse_joint_values  # noqa: E402
from nao_motion.kinematics import ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402

# Well short of a fall (60 deg). Through the suite's processes the torso tilts more than with the
# chain in process (test_walk_sim.py, 6 deg): the cha-cha reaches ~11 deg here against 5.7 there.
MAX_TILT_DEG = 20.0
MODEL = NaoModel()
FK = ForwardKinematics(MODEL)


class TrueTorso:
    """The simulator's true torso pose (4x4, world) and the worst tilt since `mark()`; its history
    (wall time, pose, measured joints, FSR totals [left, right] N) since `record()`."""

    def __init__(self, node):
        self.lock = threading.Lock()
        self.pose = None
        self.q = MODEL.zero_configuration()
        self.fsr_n = np.zeros(2)
        self.worst_tilt_deg = 0.0
        self.history: list | None = None
        node.create_subscription(Odometry, "ground_truth/odom", self._on_odom, CYCLE_QOS)
        node.create_subscription(JointState, "joint_states", self._on_states, CYCLE_QOS)
        for i, side in enumerate(("left", "right")):
            node.create_subscription(Float32MultiArray, f"fsr/{side}", partial(self._on_fsr, i), CYCLE_QOS)

    def _on_fsr(self, foot: int, msg):
        with self.lock:
            self.fsr_n[foot] = sum(msg.data)

    def _on_states(self, msg):
        parsed = parse_joint_values(MODEL, msg.name, msg.position, unknown_names="ignore")
        with self.lock:
            self.q[parsed.indices] = parsed.values

    def _on_odom(self, msg):
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        pose = spatial.transform(spatial.rotation_from_quaternion_xyzw([o.x, o.y, o.z, o.w]), [p.x, p.y, p.z])
        with self.lock:
            self.pose = pose
            self.worst_tilt_deg = max(self.worst_tilt_deg, math.degrees(math.acos(min(1.0, pose[2, 2]))))
            if self.history is not None:
                self.history.append((time.monotonic(), pose, self.q.copy(), self.fsr_n.copy()))

    def record(self) -> None:
        with self.lock:
            self.history = []

    def recorded(self, since: float = -math.inf, until: float = math.inf) -> list:
        with self.lock:
            return [h for h in self.history if since <= h[0] <= until]

    def now(self):
        """(true torso pose, measured joints) now."""
        with self.lock:
            return self.pose.copy(), self.q.copy()

    def mark(self) -> np.ndarray:
        with self.lock:
            self.worst_tilt_deg = 0.0
            return self.pose.copy()

    def moved_since(self, start: np.ndarray) -> tuple[float, float, float]:
        """(x, y) in the start's heading frame (level), and the turn (rad)."""
        with self.lock:
            now = self.pose.copy()
        yaw = math.atan2(start[1, 0], start[0, 0])
        dx, dy = now[:2, 3] - start[:2, 3]
        turn = math.atan2(now[1, 0], now[0, 0]) - yaw
        return (math.cos(yaw) * dx + math.sin(yaw) * dy, -math.sin(yaw) * dx + math.cos(yaw) * dy,
                math.atan2(math.sin(turn), math.cos(turn)))


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    # At most half real time: the moveToward example's pauses are wall time, set for that.
    with simulated_suite_client(tmp_path_factory.mktemp("walk_examples_logs"),
                                {**LOCKSTEP, "real_time_factor": 0.5}) as motion:
        truth = TrueTorso(motion.node)
        motion.getAngles("Body", True)  # waits for the simulator's joint_states
        deadline = time.monotonic() + 30.0
        while truth.pose is None:
            assert time.monotonic() < deadline, "no ground truth from the simulator"
            time.sleep(0.05)
        time.sleep(6.0)  # every node up and cycling, the robot settled on the floor
        yield motion, truth


@pytest.fixture(autouse=True)
def standing(suite):
    """Each example starts with the robot standing: one that fell in an earlier test (on a loaded
    machine) is stood up again with the simulator's reset, so that its fall fails that test only."""
    motion, truth = suite
    if truth.now()[0][2, 2] < math.cos(math.radians(MAX_TILT_DEG)):
        motion.killMove()
        client = motion.node.create_client(Trigger, "reset")
        try:
            assert motion.call_service(client, Trigger.Request(), "simulator").success
        finally:
            motion.node.destroy_client(client)
        time.sleep(4.0)  # the robot settles on the floor
    yield


def test_move_to_example_walks_to_its_goal(suite):
    motion, truth = suite
    start = truth.mark()
    load_example("almotion_moveTo").main(motion)  # moveTo(0.2, 0.2, 1.5709), blocking
    x, y, turn = truth.moved_since(start)
    assert math.hypot(x - 0.2, y - 0.2) < 0.05 and abs(turn - 1.5709) < math.radians(5.0), (x, y, turn)
    assert truth.worst_tilt_deg < MAX_TILT_DEG


def test_robot_position_example_sees_the_next_position_ahead(suite):
    motion, truth = suite
    truth.mark()
    robot, next_robot = load_example("almotion_robotPosition").main(motion)  # post.moveTo(0.2, 0, 0.1)
    assert math.hypot(next_robot[0] - robot[0], next_robot[1] - robot[1]) > 0.01  # unchangeable steps ahead
    assert not motion.moveIsActive()
    assert truth.worst_tilt_deg < MAX_TILT_DEG


def test_cha_cha_example_completes(suite):
    motion, truth = suite
    start = truth.mark()
    with serving(motion):  # NAOqi's script, its ALProxy giving this client; it ends in rest()
        load_example("almotion_setFootStepsWithSpeed").main("127.0.0.1")
    x, y, _ = truth.moved_since(start)
    # The dance comes back about where it started (in process 3-5 cm, through the suite 4-6 cm,
    # turned 14-33 deg); its own extent is 0.3 m sideways.
    assert math.hypot(x, y) < 0.3
    assert truth.worst_tilt_deg < MAX_TILT_DEG
    assert not motion.moveIsActive()
    motion.wakeUp()  # standing again for the next example
    ALRobotPosture(motion).goToPosture("StandInit", 0.5)


def test_move_toward_example_walks_and_stops(suite):
    motion, truth = suite
    start = truth.mark()
    load_example("almotion_moveToward").main(motion, pauses_s=(6.0, 4.0, 4.0))  # wall s: half in sim time
    x, _, turn = truth.moved_since(start)
    assert x > 0.1 and turn > math.radians(5.0)  # forward, then turning left (theta 0.6)
    assert truth.worst_tilt_deg < MAX_TILT_DEG
    assert not motion.moveIsActive()


def level_rpy(rotation: np.ndarray) -> np.ndarray:
    """Roll and pitch (rad) of a world rotation about its own heading."""
    return spatial.rpy_from_rotation(spatial.rot_z(spatial.yaw_of(spatial.transform(rotation))).T @ rotation)[:2]


def test_get_position_example_answers_as_the_true_robot_stands(suite):
    motion, truth = suite
    robot_position, rarm, camera = load_example("almotion_getPosition").main(motion)
    torso, q = truth.now()
    state = FK.compute(q)
    assert np.allclose(robot_position, motion.getRobotPosition(False), atol=1e-3)
    np.testing.assert_allclose(np.reshape(rarm, (4, 4)), FK.pose(state, "RArm"), atol=0.01)
    # The top camera in FRAME_WORLD: on the floor frame, leaning as the true robot leans (the
    # floor plane x, y and the heading are the odometry's, which drifts from the truth).
    true_camera = torso @ FK.pose(state, "CameraTop")
    assert camera[2] == pytest.approx(true_camera[2, 3], abs=0.01)
    np.testing.assert_allclose(level_rpy(spatial.rotation_from_rpy(*camera[3:])), level_rpy(true_camera[:3, :3]),
                               atol=math.radians(1.0))


def test_move_example_walks_with_the_per_foot_move_config(suite):
    """examples/almotion_move.py: move(0.05, 0, 0) with LeftStepHeight 0.02, RightStepHeight 0.005,
    RightTorsoWx -7 deg and TorsoWy 5 deg, then a clean stop (moveToward(0, 0, 0), whose own
    config, the defaults, closes the feet)."""
    motion, truth = suite
    stops = []
    move_toward = motion.moveToward
    motion.moveToward = lambda *args: (stops.append(time.monotonic()), move_toward(*args))
    start = truth.mark()
    truth.record()
    try:
        load_example("almotion_move").main(motion, walk_s=12.0)  # wall s: 6 s in sim time
    finally:
        del motion.moveToward
    x, _, _ = truth.moved_since(start)
    assert x > 0.15 and truth.worst_tilt_deg < MAX_TILT_DEG and not motion.moveIsActive()
    walking = truth.recorded(until=stops[0])
    soles = np.array([[(pose @ FK.pose(FK.compute(q), sole))[2, 3] for sole in ("l_sole", "r_sole")]
                      for _, pose, q, _ in walking[::2]])
    lifts = soles.max(axis=0) - np.median(soles, axis=0)
    assert lifts[0] > 0.015 and lifts[1] < 0.01, lifts  # the left foot lifts higher (FK + true torso: +-5 mm)
    pitch = np.array([level_rpy(pose[:3, :3])[1] for _, pose, _, _ in walking])
    assert pitch.max() > math.radians(3.0), math.degrees(pitch.max())  # TorsoWy: leaning forward in single support


def test_set_move_arms_enabled_example_stops_the_arms_swinging(suite):
    """The left arm's swing stops, 10 s (here 6 s of wall time) later the right one's. Ground truth:
    the swinging arm follows the walk's swing (about 0.7 rad peak to peak at this speed); the
    others stay still, once returned from their last swing: the whole body balancer walks with
    the legs (README, ALMotion: setMoveArmsEnabled)."""
    motion, truth = suite
    calls, swing_targets = [], []
    set_move_arms_enabled = motion.setMoveArmsEnabled
    motion.setMoveArmsEnabled = lambda left, right: (set_move_arms_enabled(left, right),
                                                     calls.append(time.monotonic()))
    subscription = motion.node.create_subscription(
        JointState, "joint_targets",
        lambda m: m.header.frame_id == "walk_arm_swing" and swing_targets.append((time.monotonic(), set(m.name))),
        CYCLE_QOS)
    start = truth.mark()
    truth.record()
    try:
        enabled = load_example("almotion_setMoveArmsEnabled").main(motion, pause_s=6.0)
    finally:
        del motion.setMoveArmsEnabled
        motion.node.destroy_subscription(subscription)
        motion.setMoveArmsEnabled(True, True)
    assert enabled == [False, False, False]
    x, _, _ = truth.moved_since(start)
    assert x > 0.1 and truth.worst_tilt_deg < MAX_TILT_DEG
    # the walk swings the right arm only, then neither
    assert {name for t, names in swing_targets if calls[0] + 0.1 < t < calls[1] for name in names} == {"RShoulderPitch"}
    assert not [t for t, names in swing_targets if calls[1] + 0.5 < t]
    shoulders = [MODEL.joint_index(j) for j in ("LShoulderPitch", "RShoulderPitch")]

    def swing_rad(since, until):
        """Median peak to peak of each shoulder over one-step windows (1 s of wall time)."""
        q = np.array([q[shoulders] for _, _, q, _ in truth.recorded(since, until)])
        windows = np.array_split(q, max(1, round(until - since)))
        return np.median([np.ptp(w, axis=0) for w in windows], axis=0)

    right_only = swing_rad(calls[0] + 3.0, calls[1])  # walking (from one preview after the command)
    neither = swing_rad(calls[1] + 1.0, calls[1] + 3.0)
    # Not swung, an arm stays still (0.29-0.43 rad when the balancer used it for balance): the
    # walk's soft hold keeps it within a few hundredths of a radian (in process, SimulatedWalk,
    # this walk with the left arm disabled: 0.042 rad peak to peak while the right one swings
    # 0.69 rad; 0.033 rad with neither; here, in lockstep over DDS, 0.032 and 0.032-0.033 rad in
    # 3 runs): the bounds leave room for the suite's timing, a recruited arm (0.3 rad) fails them.
    assert right_only[1] > 0.4 and right_only[0] < 0.15, right_only
    assert neither.max() < 0.1, (right_only, neither)


def test_wait_until_move_is_finished_example_waits_for_the_end_of_the_walk(suite):
    """post.moveTo(d, 0, 0, 1.0) (the step frequency form), waitUntilMoveIsFinished; then the same
    polled with moveIsActive: each returns when the robot has arrived and stopped."""
    motion, truth = suite
    start = truth.mark()
    finished = []

    def on_finished(name):
        moved = truth.moved_since(start)
        active = motion.moveIsActive()
        time.sleep(1.0)
        finished.append((name, moved, active, truth.moved_since(start)))

    load_example("almotion_waitUntilMoveIsFinished").main(motion, distance_m=0.3, on_finished=on_finished)
    assert [name for name, *_ in finished] == ["waitUntilMoveIsFinished", "moveIsActive"]
    for k, (name, moved, active, later) in enumerate(finished):
        assert moved[0] == pytest.approx(0.3 * (k + 1), abs=0.06), (name, moved)
        # Stopped: the torso (the ground truth followed) only settles over the feet, about 1 cm.
        assert not active and math.hypot(later[0] - moved[0], later[1] - moved[1]) < 0.02, (name, moved, later)
    assert truth.worst_tilt_deg < MAX_TILT_DEG


def test_kill_move_example_stops_the_walk_at_once(suite):
    motion, truth = suite
    kill_move = motion.killMove
    stops = []

    def timed_kill_move():
        kill_move()
        called = time.monotonic()
        while motion.moveIsActive():
            time.sleep(0.01)
        stops.append(time.monotonic() - called)

    motion.killMove = timed_kill_move
    truth.mark()
    truth.record()
    try:
        load_example("almotion_killMove").main(motion, walk_s=4.0)
    finally:
        del motion.killMove
    # half real time: 0.8 s of wall time is 0.4 s on the robot (NAOqi ~20 ms; here the landing, at
    # most 0.1 s, and the way over DDS; settling took up to 2 s)
    assert stops and stops[0] < 0.8, stops
    assert truth.worst_tilt_deg < MAX_TILT_DEG and not motion.moveIsActive()
    assert min(truth.recorded()[-1][3]) > 1.0  # standing on both feet


def test_set_motion_config_example_lets_a_walk_start_with_a_weak_leg_joint(suite):
    """With the stiffness protection (NAOqi's default), a leg joint at stiffness 0.6 refuses a walk;
    after the example's setMotionConfig it walks. (HipYawPitch: the leg joint a straight walk
    loads least; the simulated robot falls walking with every leg joint at 0.6.)"""
    motion, truth = suite

    def protections():
        client = motion.node.create_client(GetParameters, "walk/get_parameters")
        try:
            request = GetParameters.Request(names=["foot_contact_protection", "stiffness_protection"])
            return [v.bool_value for v in motion.call_service(client, request, "walk node").values]
        finally:
            motion.node.destroy_client(client)

    assert protections() == [True, True]
    motion.moveInit()
    motion.setStiffnesses("LHipYawPitch", 0.6)
    try:
        start = truth.mark()
        motion.moveTo(0.1, 0.0, 0.0)  # refused by the walk: killMove
        assert abs(truth.moved_since(start)[0]) < 0.01
        load_example("almotion_setMotionConfig").main(motion)
        assert protections() == [False, False]
        start = truth.mark()
        motion.moveTo(0.1, 0.0, 0.0)
        assert truth.moved_since(start)[0] == pytest.approx(0.1, abs=0.03)
        assert truth.worst_tilt_deg < MAX_TILT_DEG
    finally:
        motion.setStiffnesses("LHipYawPitch", 1.0)
        motion.setMotionConfig([["ENABLE_FOOT_CONTACT_PROTECTION", True], ["ENABLE_STIFFNESS_PROTECTION", True]])


def test_wb_effector_control_example_turns_the_head_toward_its_target(suite):
    """Head target (0.1, 0, 0) rad in FRAME_ROBOT: a roll the head's own joints (yaw, pitch) cannot
    make; the whole body leans the head toward it as far as balance and the fixed feet allow."""
    motion, truth = suite
    torso, q = truth.now()
    before = level_rpy((torso @ FK.pose(FK.compute(q), "Head"))[:3, :3])
    tracking = []

    def on_tracking():
        torso, q = truth.now()
        tracking.append(level_rpy((torso @ FK.pose(FK.compute(q), "Head"))[:3, :3]))

    truth.mark()
    load_example("almotion_wbEffectorControl").main(motion, on_tracking=on_tracking)
    assert tracking[0][0] - before[0] > 0.03, (before, tracking)
    assert truth.worst_tilt_deg < MAX_TILT_DEG
