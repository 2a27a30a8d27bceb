"""The collision filter node as its own process over real DDS, with the test as the robot: first
command, protection, malformed input, services and parameters, and the ALMotion client."""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue  # noqa: E402
from rcl_interfaces.srv import GetParameters, SetParameters  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint  # noqa: E402
from visualization_msgs.msg import MarkerArray  # noqa: E402

from nao_motion.collision.filter_cycle import MOTION_START_BACK_S  # noqa: E402
from nao_motion.collision.pairs import collision_pairs  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import NODES  # noqa: E402

FILTER = next(spec for spec in NODES if spec.executable == "collision_filter")
# The filter drives the robot (the suite remaps its output to the whole body and its
# robot_commands to the whole body's joint_commands); this test plays the whole body's command.
STANDALONE = {"joint_commands": "joint_commands",
              "collision_filter/robot_commands": "collision_filter/robot_commands"}
MODEL = NaoModel()
LARM = ["LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll"]
LARM_IDX = [MODEL.joint_index(n) for n in LARM]
FINAL = np.deg2rad([50.0, 6.0, 0.0, -150.0])
# The nearest pose to FINAL keeping the margin (test_collision_avoidance checks it with SLSQP).
NEAREST = np.deg2rad([46.371, 9.929, -3.040, -84.309])


class Robot(SpinningProbe):
    """The test's node: a perfect robot (joint_states = the last joint_commands, except limp
    joints, which stay where the test puts them) that also records what the filter says."""

    def __init__(self, q0, states_period_s: float = 0.0):
        super().__init__("collision_filter_probe")
        self.q = q0.copy()
        self.limp = np.zeros(MODEL.n_joints, dtype=bool)
        self.commands, self.distances, self.markers, self.logs, self.diagnostics = [], [], [], [], []
        self.command_times, self.command_stamps = [], []  # received (monotonic), stamped (the node's clock)
        self.states_period_s = states_period_s  # joint_states at most this often (the timer's 10 ms at 0)
        self.last_states_s = -np.inf
        self.states_pub = self.node.create_publisher(JointState, "joint_states", CYCLE_QOS)
        self.targets_pub = self.node.create_publisher(JointState, "joint_targets", CYCLE_QOS)
        self.trajectory_pub = self.node.create_publisher(JointTrajectory, "joint_trajectory", CYCLE_QOS)
        self.node.create_subscription(JointState, "joint_commands", self._on_command, CYCLE_QOS)
        self.node.create_subscription(Float64, "collision_filter/closest_distance",
                                      lambda m: self.add(self.distances, m.data), CYCLE_QOS)
        self.node.create_subscription(MarkerArray, "collision_filter/markers",
                                      lambda m: self.add(self.markers, m), 10)
        self.record_logs("collision_filter", self.logs)
        self.node.create_subscription(DiagnosticArray, "/diagnostics",
                                      lambda m: self.add(self.diagnostics, m), 10)
        self.node.create_timer(0.01, self.publish_states)
        self.start()

    def _on_command(self, msg: JointState):
        q = np.array(msg.position)
        with self.cond:
            self.commands.append(q)
            self.command_times.append(time.monotonic())
            self.command_stamps.append(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9)
            self.q[~self.limp] = q[~self.limp]
            self.cond.notify_all()

    def publish_states(self):
        now_s = time.monotonic()
        with self.cond:
            if now_s - self.last_states_s < self.states_period_s:
                return
            self.last_states_s = now_s
            msg = JointState(name=list(MODEL.joint_names), position=self.q.tolist())
        self.states_pub.publish(msg)

    def last_command(self):
        with self.cond:
            return self.commands[-1].copy() if self.commands else None

    def count(self):
        with self.cond:
            return len(self.commands)

    def settle(self, since=0, cycles=15, timeout_s=10.0):
        """Wait until the commands after number `since` (a motion sent then has run) have stopped
        changing: the last `cycles` equal (1e-9 rad), or the last two equal and no new one for
        0.2 s (resting, the filter repeats its command every 0.5 s only); returns the last one."""
        def still():
            new = self.commands[since:]
            if len(new) < 2 or np.abs(new[-1] - new[-2]).max() >= 1e-9:
                return False
            return (time.monotonic() - self.command_times[-1] > 0.2
                    or (len(new) >= cycles and np.ptp(np.array(new[-cycles:]), axis=0).max() < 1e-9))
        assert self.wait(still, timeout_s), "the commands did not settle"
        return self.last_command()

    def set_parameter(self, name, value):
        if isinstance(value, float):
            pv = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=value)
        elif isinstance(value, int):
            pv = ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=value)
        else:
            pv = ParameterValue(type=ParameterType.PARAMETER_STRING_ARRAY, string_array_value=list(value))
        response = self.call(SetParameters, "collision_filter/set_parameters",
                             SetParameters.Request(parameters=[Parameter(name=name, value=pv)]))
        return response.results[0]

    def protected_chains(self):
        response = self.call(GetParameters, "collision_filter/get_parameters",
                             GetParameters.Request(names=["protected_chains"]))
        return list(response.values[0].string_array_value)


START = posture(MODEL, "StandInit")
START[MODEL.joint_index("HeadYaw")] = 0.3  # not a posture the node could know


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    proc = nodes.start(FILTER, remaps=STANDALONE)
    rclpy.init()
    robot = Robot(START)
    try:
        assert robot.wait(lambda: robot.commands, 20.0), "no joint_commands from the node"
        yield proc, robot
    finally:
        robot.close()
        rclpy.shutdown()
        nodes.stop()


def send_targets(robot, names, positions, velocities=()):
    robot.targets_pub.publish(JointState(name=list(names), position=[float(p) for p in positions],
                                         velocity=[float(v) for v in velocities]))


def go_home(robot):
    count = robot.count()
    send_targets(robot, LARM, START[LARM_IDX], [4.0] * 4)
    robot.settle(count)


def test_the_first_command_is_the_measured_pose(running):
    _, robot = running
    with robot.cond:
        first = robot.commands[0]
    np.testing.assert_allclose(first, MODEL.clip_to_limits(START), atol=1e-12)
    assert len(first) == MODEL.n_joints


def test_the_arm_sent_into_the_chest_stops_at_the_nearest_safe_pose(running):
    _, robot = running
    go_home(robot)
    with robot.cond:
        robot.distances.clear()
        robot.markers.clear()
    count = robot.count()
    send_targets(robot, LARM, FINAL)  # max_speed_fraction (0.3) of each joint's speed
    end = robot.settle(count)
    np.testing.assert_allclose(end[LARM_IDX], NEAREST, atol=2e-4)
    with robot.cond:
        assert min(robot.distances) >= 0.0
        markers = robot.markers[-1].markers
    shapes = collision_pairs(MODEL).shapes
    assert [m.header.frame_id for m in markers] == [s.link for s in shapes]
    forearm = markers[[s.name for s in shapes].index("l_forearm")]
    assert forearm.frame_locked and forearm.color.g < 0.8  # not green: held at the margin
    go_home(robot)


def trajectory(names, times, points):
    msg = JointTrajectory(joint_names=list(names))
    for t, p in zip(times, points):
        point = JointTrajectoryPoint(positions=[float(v) for v in p])
        point.time_from_start.sec, point.time_from_start.nanosec = int(t), int(round((t - int(t)) * 1e9))
        msg.points.append(point)
    return msg


MALFORMED = {
    "target_nan": ("joint_targets", lambda r: send_targets(r, LARM, [0.0, 0.0, np.nan, -0.5]), "non-finite"),
    "target_unknown_joint": ("joint_targets", lambda r: send_targets(r, LARM + ["Tail"], [0, 0, 0, -0.5, 0]),
                             "unknown joint names"),
    "target_wrong_length": ("joint_targets", lambda r: send_targets(r, LARM, [0.0, 0.0]),
                            "4 joint names but 2 position"),
    "trajectory_empty": ("joint_trajectory", lambda r: r.trajectory_pub.publish(trajectory(LARM, [], [])),
                         "no trajectory points"),
    "trajectory_backwards": ("joint_trajectory", lambda r: r.trajectory_pub.publish(
        trajectory(LARM, [1.0, 0.5], [[0, 0, 0, -0.5], [0.2, 0, 0, -0.5]])), "goes backwards"),
    "trajectory_wrong_length": ("joint_trajectory", lambda r: r.trajectory_pub.publish(
        trajectory(LARM, [0.5], [[0, 0, -0.5]])), "4 joint names but 3 position"),
    "trajectory_nan": ("joint_trajectory", lambda r: r.trajectory_pub.publish(
        trajectory(LARM, [0.5], [[0, 0, np.nan, -0.5]])), "non-finite"),
    "trajectory_unknown_joint": ("joint_trajectory", lambda r: r.trajectory_pub.publish(
        trajectory(["LShoulderPitch", "Tail"], [0.5], [[0, 0]])), "unknown joint names"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_commands_are_rejected_and_the_robot_keeps_its_command(running, case):
    proc, robot = running
    topic, send, reason = MALFORMED[case]
    before = robot.settle()
    with robot.cond:
        robot.logs.clear()
        count = len(robot.commands)
    send(robot)
    assert robot.wait(lambda: any(reason in line for line in robot.logs), 5.0), f"no log line for {case}"
    time.sleep(0.6)  # the resting filter repeats its command every 0.5 s
    with robot.cond:
        after = np.array(robot.commands[count:])
        line = next(line for line in robot.logs if reason in line)
    assert len(after) >= 1 and np.all(after == before), "the command changed"
    assert line.startswith(f"{topic} rejected, the robot keeps its last safe command")
    assert proc.running()


def test_protection_services_and_parameters(running):
    _, robot = running
    assert sorted(robot.protected_chains()) in (["Arms"], ["LArm", "RArm"])
    response = robot.call(SetBool, "collision_filter/set_protection/LArm", SetBool.Request(data=False))
    assert response.success and "LArm collision protection disabled" in response.message
    assert robot.protected_chains() == ["RArm"]
    assert robot.call(SetBool, "collision_filter/set_protection/Arms", SetBool.Request(data=False)).success
    assert robot.protected_chains() == []
    assert robot.call(SetBool, "collision_filter/set_protection/Arms", SetBool.Request(data=True)).success
    assert robot.protected_chains() == ["LArm", "RArm"]
    refused = robot.set_parameter("protected_chains", ["LArm", "Head"])
    assert not refused.successful and "unknown collision protection chain 'Head'" in refused.reason
    for name, value, reason in (("margin_m", -0.01, "margin_m"), ("margin_m", 1, "type"),
                                ("influence_distance_m", 0.001, "influence_distance_m"),
                                ("max_speed_fraction", 1.5, "max_speed_fraction")):
        result = robot.set_parameter(name, value)
        assert not result.successful and reason in result.reason
    assert robot.protected_chains() == ["LArm", "RArm"]
    assert robot.set_parameter("margin_m", 0.01).successful
    assert robot.set_parameter("margin_m", 0.005).successful


def test_diagnostics_report_the_cycle_and_the_constraints(running):
    _, robot = running
    assert robot.wait(lambda: any(s.name == "nao_motion: collision_filter" for d in robot.diagnostics
                                  for s in d.status), 5.0)
    with robot.cond:
        status = [s for d in robot.diagnostics for s in d.status if s.name == "nao_motion: collision_filter"][-1]
    keys = {kv.key for kv in status.values}
    assert {"cycle_time_median_ms", "active_constraints", "closest_distance_m", "outcome"} <= keys


def test_almotion_client_commands_and_protection(running):
    from nao_motion.almotion import ALMotion, ALMotionError

    _, robot = running
    go_home(robot)
    motion = ALMotion()
    try:
        assert motion.getCollisionProtectionEnabled("Arms")
        assert motion.setCollisionProtectionEnabled("LArm", False)
        assert not motion.getCollisionProtectionEnabled("LArm") and motion.getCollisionProtectionEnabled("RArm")
        assert not motion.getCollisionProtectionEnabled("Arms")
        assert motion.setCollisionProtectionEnabled("Arms", True) and motion.getCollisionProtectionEnabled("LArm")
        with pytest.raises(ALMotionError, match="unknown collision protection chain 'Head'"):
            motion.setCollisionProtectionEnabled("Head", True)
        with pytest.raises(ALMotionError, match="unknown collision protection chain"):
            motion.getCollisionProtectionEnabled("Legs")

        # Blocking interpolation with per-joint time lists (merged on their union).
        motion.angleInterpolation(["LShoulderPitch", "HeadYaw"], [[1.0, 1.2], [-0.2]], [[0.2, 0.4], [0.3]], True)
        q = robot.last_command()
        assert q[MODEL.joint_index("LShoulderPitch")] == pytest.approx(1.2, abs=1e-9)
        assert q[MODEL.joint_index("HeadYaw")] == pytest.approx(-0.2, abs=1e-9)
        motion.angleInterpolation("HeadYaw", 0.1, 0.2, False)  # relative
        assert robot.last_command()[MODEL.joint_index("HeadYaw")] == pytest.approx(-0.1, abs=1e-9)
        motion.angleInterpolationBezier(["HeadYaw"], [[0.3, 0.6]], [[[0.3, [2, -0.05, -0.1], [2, 0.05, 0.1]],
                                                                   [-0.1, [2, 0.05, -0.1], [2, 0.0, 0.1]]]])
        assert robot.last_command()[MODEL.joint_index("HeadYaw")] == pytest.approx(-0.1, abs=1e-9)
        with pytest.raises(ALMotionError, match="needs a time"):
            motion.angleInterpolationBezier(["HeadYaw"], [[0.3]], [[[0.3, [2, -0.05, 0.0], [2, 0.0, 0.1]]]])
        count = robot.count()
        motion.changeAngles(["HeadYaw", "HeadPitch"], [0.2, 0.1], 0.5)  # non-blocking, from the command
        end = robot.settle(count)
        assert end[[MODEL.joint_index("HeadYaw"), MODEL.joint_index("HeadPitch")]] == pytest.approx(
            [0.1, q[MODEL.joint_index("HeadPitch")] + 0.1], abs=1e-9)
        motion.closeHand("LHand")
        assert robot.last_command()[MODEL.joint_index("LHand")] == pytest.approx(0.0, abs=1e-9)
        motion.openHand("LHand")
        assert robot.last_command()[MODEL.joint_index("LHand")] == pytest.approx(1.0, abs=1e-9)
        with pytest.raises(ALMotionError, match="unknown hand 'LArm'"):
            motion.openHand("LArm")
        with pytest.raises(ALMotionError, match="positive and increasing"):
            motion.angleInterpolation("HeadYaw", [0.1, 0.2], [0.5, 0.4], True)

        # NAOqi's example motion: blocking until the arm rests at the nearest safe pose.
        motion.angleInterpolationWithSpeed("LArm", list(FINAL) + [0.0, 0.0], 0.5)
        np.testing.assert_allclose(robot.last_command()[LARM_IDX], NEAREST, atol=2e-4)
        count = robot.count()
        motion.setAngles(LARM, list(START[LARM_IDX]), 0.8)  # non-blocking
        end = robot.settle(count)
        np.testing.assert_allclose(end[LARM_IDX], START[LARM_IDX], atol=1e-9)

        # A limp arm's command follows the arm (moved by hand here); stiff again: no jump.
        with robot.cond:
            robot.limp[[MODEL.joint_index(n) for n in MODEL.names_for("LArm")]] = True
            robot.q[LARM_IDX[0]] = 0.4
        motion.setStiffnesses("LArm", 0.0)
        assert robot.wait(lambda: robot.last_command()[LARM_IDX[0]] == pytest.approx(0.4, abs=1e-9), 5.0)
        motion.setStiffnesses("LArm", 1.0)
        with robot.cond:
            robot.limp[:] = False
        time.sleep(0.3)
        assert robot.last_command()[LARM_IDX[0]] == pytest.approx(0.4, abs=1e-9)
        with pytest.raises(ALMotionError, match=r"stiffnesses must be in \[0, 1\]"):
            motion.setStiffnesses("LArm", 1.5)
        with pytest.raises(ALMotionError, match="expected one number or 6 numbers"):
            motion.setStiffnesses("LArm", [1.0, 0.5])
    finally:
        motion.close()
    go_home(robot)


def test_almotion_posture_wake_up_and_rest(running):
    from nao_motion.almotion import ALMotion, ALMotionError
    from nao_motion.almotion.posture import ALRobotPosture
    from nao_motion.postures import posture

    _, robot = running
    go_home(robot)
    sent = []  # the client's joint_stiffness messages: (names, values)
    with ALMotion.connect() as motion:
        motion.node.create_subscription(JointState, "joint_stiffness",
                                        lambda m: sent.append((list(m.name), list(m.effort))), 10)
        postures = ALRobotPosture(motion)
        assert {"StandInit", "Stand", "Crouch"} <= set(postures.getPostureList())
        with pytest.raises(ALMotionError, match="unknown posture 'Sit'"):
            postures.goToPosture("Sit", 0.5)
        with pytest.raises(ALMotionError, match="maxSpeedFraction"):
            postures.goToPosture("Stand", 0.0)
        assert postures.goToPosture("Stand", 1.0)
        np.testing.assert_allclose(robot.last_command(), posture(MODEL, "Stand"), atol=1e-6)

        motion.wakeUp()
        assert robot.wait(lambda: len(sent) == 1, 5.0)
        assert sent[0] == (list(MODEL.names_for("Body")), [1.0] * len(MODEL.names_for("Body")))
        motion.rest()  # down to Crouch, then limp
        np.testing.assert_allclose(robot.last_command(), posture(MODEL, "Crouch"), atol=1e-3)
        assert robot.wait(lambda: len(sent) == 2, 5.0)
        assert sent[1][1] == [0.0] * len(MODEL.names_for("Body"))
    go_home(robot)


def test_almotion_waits_by_the_filters_clock_whatever_the_rate_of_joint_states(running):
    """The filter runs its motion by its clock, one cycle per joint_states, and once settled
    rests, repeating its command every 0.5 s: the client waits by the stamps of the commands.
    Counting commands as 10 ms cycles, a 1 s motion with joint_states at 25 Hz timed out (the
    count came at 2 Hz once the filter rested), and at the full rate the client waited for ten
    commands at rest (4.5 s) to see that the motion had settled."""
    from nao_motion.almotion import ALMotion

    _, robot = running
    head = MODEL.joint_index("HeadYaw")
    fraction = 0.6 / MODEL.joint("HeadYaw").max_velocity  # 0.6 rad in 1 s
    with ALMotion.connect() as motion:
        motion.wakeUp()  # a test before may have left the robot limp (rest)
        go_home(robot)
        there = robot.last_command()[head]
        away = there - 0.6 if there > 0.0 else there + 0.6
        try:
            for states_period_s, target in ((0.035, away), (0.0, there)):
                with robot.cond:
                    robot.states_period_s = states_period_s  # 0.035: every 4th 10 ms tick, 25 Hz
                    since = len(robot.commands)
                motion.angleInterpolationWithSpeed("HeadYaw", float(target), fraction)
                returned_s = time.monotonic()
                # The motion was over: no command after the return leaves the target.
                assert robot.wait(lambda: robot.command_times[-1] > returned_s, 5.0)
                with robot.cond:
                    after = [q[head] for q, t in zip(robot.commands[since:], robot.command_times[since:])
                             if t >= returned_s]
                    times = [t for t in robot.command_times[since:] if t < returned_s]
                np.testing.assert_allclose(after, target, atol=1e-6)
                # At rest the filter's first repeated command says it has settled.
                repeats_at_rest = sum(1 for a, b in zip(times, times[1:]) if b - a > 0.3)
                assert repeats_at_rest <= 2, f"{states_period_s}: {repeats_at_rest} commands at rest waited for"
        finally:
            with robot.cond:
                robot.states_period_s = 0.0
    go_home(robot)


def test_a_motion_starts_from_the_robots_command_where_another_node_moved_the_joints(running):
    """In the suite the whole body's walk or balance moves the legs away from the filter's
    command: a new motion of a joint no motion drives starts where the robot's command is (no
    jump back to where the filter left it); the other joints keep the filter's command."""
    _, robot = running
    lknee, rknee = MODEL.joint_index("LKneePitch"), MODEL.joint_index("RKneePitch")
    before = robot.settle()
    moved = before.copy()
    moved[lknee] -= 0.2  # where the walk left the legs
    moved[rknee] -= 0.2
    robot_pub = robot.node.create_publisher(JointState, "collision_filter/robot_commands", CYCLE_QOS)
    try:
        msg = JointState(name=list(MODEL.joint_names), position=moved.tolist())
        for _ in range(50):  # discovery; then the command the robot has, fresh
            msg.header.stamp = robot.node.get_clock().now().to_msg()
            robot_pub.publish(msg)
            time.sleep(0.02)
        since = robot.count()
        send_targets(robot, ["LKneePitch"], [before[lknee] - 0.3], [0.5])
        last = robot.settle(since)
        with robot.cond:
            knees = np.array([q[[lknee, rknee]] for q in robot.commands[since:]])
        # From there, on by the time since the filter's last cycle: one cycle, more when that cycle
        # came late (up to MOTION_START_BACK_S); never from the filter's own command, 0.2 rad away.
        assert 0.0 <= moved[lknee] - knees[0, 0] <= 0.5 * MOTION_START_BACK_S + 1e-6
        assert np.all(np.diff(knees[:, 0]) <= 1e-9)  # straight on, never back first
        assert last[lknee] == pytest.approx(before[lknee] - 0.3, abs=1e-6)
        np.testing.assert_allclose(knees[:, 1], before[rknee], atol=1e-9)  # no motion: the filter's own
    finally:
        robot.node.destroy_publisher(robot_pub)
        since = robot.count()
        send_targets(robot, ["LKneePitch"], [before[lknee]], [2.0])
        robot.settle(since)


def test_a_target_sent_again_every_cycle_moves_the_joint_at_its_speed(running):
    """The walk's arm swing sends its target every cycle: each one starts from the last cycle's
    command (the filter takes it at its next cycle), so the joint goes on at the target's speed
    instead of starting afresh every cycle, which would hold it where it is."""
    _, robot = running
    head = MODEL.joint_index("HeadYaw")
    start = robot.settle()[head]
    goal, speed_radps = start - 0.2, 0.5
    since = robot.count()
    end = time.monotonic() + 1.0  # the goal is 0.4 s away at that speed
    while time.monotonic() < end:
        send_targets(robot, ["HeadYaw"], [goal], [speed_radps])
        time.sleep(0.005)
    with robot.cond:
        head_commands = np.array([q[head] for q in robot.commands[since:]])
        stamps_s = np.array(robot.command_stamps[since:])
    assert head_commands[-1] == pytest.approx(goal, abs=1e-6)  # reached while the targets still came
    assert np.all(np.diff(head_commands) <= 1e-9)
    # Never faster than its speed (the commands are stamped with their cycle's time; 2 ms of slack).
    assert np.all(-np.diff(head_commands) <= speed_radps * (np.diff(stamps_s) + 0.002))
    since = robot.count()
    send_targets(robot, ["HeadYaw"], [start], [2.0])
    robot.settle(since)


def test_the_walks_arm_swing_leaves_a_users_arm_motion_alone(running):
    """The walk's arm swing (frame_id walk_arm_swing) can come right after a user's arm command,
    before the walk has seen it: the swing does not take the joint the user's motion moves."""
    _, robot = running
    shoulder = MODEL.joint_index("LShoulderPitch")
    start = robot.settle()[shoulder]
    since = robot.count()
    send_targets(robot, ["LShoulderPitch"], [start - 0.3], [1.0])
    swing = JointState(name=["LShoulderPitch"], position=[start + 0.05], velocity=[2.0])
    swing.header.frame_id = "walk_arm_swing"
    robot.targets_pub.publish(swing)
    assert robot.settle(since)[shoulder] == pytest.approx(start - 0.3, abs=1e-6)
    since = robot.count()
    robot.targets_pub.publish(swing)  # the user's motion is over: the swing takes the joint
    assert robot.settle(since)[shoulder] == pytest.approx(start + 0.05, abs=1e-6)
    since = robot.count()
    send_targets(robot, ["LShoulderPitch"], [start], [2.0])
    robot.settle(since)
