"""Bad input to the running suite (issue 16): the simulator and the composed suite over real DDS,
sent what a buggy script sends: parameters out of range, absurd pushes and sensor values, floods
of refused commands and service calls, the clock jumping back; and a flood of generated bad input
on every topic the whole-body node takes, while its robot-facing joint_commands are watched."""

import math
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import Pose, PointStamped, PoseArray, Twist, Vector3Stamped, WrenchStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rcl_interfaces.msg import Log  # noqa: E402
from rcl_interfaces.srv import SetParameters  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import QoSProfile  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray, MultiArrayDimension, String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.conversions import stamp_seconds  # noqa: E402
from nao_motion.ros.footstep_messages import decode_plan  # noqa: E402
from nao_motion.ros.node_tools import FAMILY_LINES  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS, LATCHED_QOS  # noqa: E402
from nao_motion.suite import SIMULATOR, SUITE_PROCESS, suite_nodes  # noqa: E402

MODEL = NaoModel()
DT = MODEL.cycle_time_s
# Per cycle, no command moves a joint faster than its motor can (the whole body's limit is half).
MAX_STEP_RAD = MODEL.max_velocity * DT * 1.01 + 1e-9
# A client that floods a service: the calls that share a movement are answered together, in a
# burst that the default depth (10) would cut to its last 10 answers (measured: 8 of 17 lost).
FLOOD_QOS = QoSProfile(depth=1000)


class Watcher(SpinningProbe):
    """Records the robot-facing commands, the clock, the plan, odometry, logs and diagnostics."""

    def __init__(self):
        super().__init__("bad_input_probe")
        self.commands, self.clock, self.safe, self.plans, self.odom = [], [], [], [], []
        self.logs, self.diagnostics, self.torso_z = [], {}, []
        n = self.node
        n.create_subscription(JointState, "joint_commands", self._on_command, CYCLE_QOS)
        n.create_subscription(JointState, "collision_filter/safe_joint_commands",
                              lambda m: self.add(self.safe, stamp_seconds(m.header.stamp)), CYCLE_QOS)
        n.create_subscription(Clock, "/clock", lambda m: self.add(self.clock, stamp_seconds(m.clock)), 10)
        n.create_subscription(Float64MultiArray, "footsteps/plan", lambda m: self.add(self.plans, decode_plan(m)),
                              LATCHED_QOS)
        n.create_subscription(Odometry, "odom", lambda m: self.add(self.odom, stamp_seconds(m.header.stamp)), 10)
        n.create_subscription(Odometry, "ground_truth/odom",
                              lambda m: self.add(self.torso_z, m.pose.pose.position.z), CYCLE_QOS)
        n.create_subscription(Log, "/rosout", lambda m: self.add(self.logs, (time.monotonic(), m.name, m.msg)), 1000)
        n.create_subscription(DiagnosticArray, "/diagnostics", self._on_diagnostics, 50)
        self.start()

    def _on_command(self, msg: JointState) -> None:
        self.add(self.commands, (stamp_seconds(msg.header.stamp), np.array(msg.position)))

    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        with self.cond:
            for status in msg.status:
                self.diagnostics.setdefault(status.name, []).append(status)
            self.cond.notify_all()

    def count(self, store) -> int:
        with self.cond:
            return len(store)

    def set_parameter(self, node: str, name: str, value):
        request = SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()])
        return self.call(SetParameters, f"{node}/set_parameters", request, 15.0).results[0]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("bad_input_logs"))
    sim = nodes.start(SIMULATOR)
    process = nodes.start(SUITE_PROCESS, use_sim_time=True)
    rclpy.init()
    watcher = Watcher()
    try:
        assert watcher.wait(lambda: len(watcher.commands) > 100 and watcher.plans and watcher.odom, 60.0), \
            "the suite did not start commanding the robot"
        yield watcher, sim, process
    finally:
        watcher.close()
        rclpy.shutdown()
        nodes.stop()


def assert_safe(commands) -> None:
    """Every command within the joint limits and finite; between two cycles, no joint faster than
    its motor."""
    q = np.array([c for _, c in commands])
    assert np.all(np.isfinite(q))
    assert np.all(q >= MODEL.lower - 1e-9) and np.all(q <= MODEL.upper + 1e-9)
    steps = np.abs(np.diff(q, axis=0))
    over = steps - MAX_STEP_RAD
    k, j = np.unravel_index(int(np.argmax(over)), over.shape)
    assert over[k, j] <= 0.0, (f"{MODEL.joint_names[j]} jumped by {steps[k, j]:.3f} rad in a cycle (its motor: "
                               f"{MAX_STEP_RAD[j]:.3f}), command {k + 1} of {len(q)}: {q[k, j]:.3f} -> {q[k + 1, j]:.3f}, "
                               f"stamps {commands[k][0]} -> {commands[k + 1][0]}")


def standing(watcher) -> bool:
    with watcher.cond:
        return bool(watcher.torso_z) and watcher.torso_z[-1] > 0.25


@pytest.mark.parametrize("node, name, value", [
    ("simulator", "real_time_factor", 1e-300),  # was a TypeError in create_timer: the node died
    ("simulator", "real_time_factor", 1e308),  # was an OverflowError at the next tick
    ("simulator", "physics_step_s", -1.0),  # start-up parameters were settable at run time
    ("simulator", "physics_step_s", math.nan),
    ("simulator", "initial_stiffness", 5.0),
    ("simulator", "actuation_delay_cycles", -3),
    ("simulator", "actuation_delay_cycles", 1000),
    ("simulator", "initial_posture", "Unknown"),
    ("simulator", "push_duration_s", 11.0),
    ("kinematics", "stale_timeout_s", math.inf),  # was accepted
    ("whole_body", "go_to_balance_duration_s", 0.0),  # was accepted
    ("whole_body", "stale_timeout_s", math.inf),
] + [(spec.executable, "nao_version", "V6") for spec in suite_nodes()])  # was accepted by some
def test_a_bad_or_start_up_parameter_is_refused_with_a_reason(suite, node, name, value):
    watcher, _, _ = suite
    result = watcher.set_parameter(node, name, value)
    assert not result.successful and result.reason
    clock = watcher.count(watcher.clock)
    assert watcher.wait(lambda: len(watcher.clock) > clock + 10, 10.0), "the simulator stopped"


@pytest.mark.parametrize("node, name, value", [
    ("simulator", "push_duration_s", 10.0), ("whole_body", "margin_m", 0.03),  # the README's ranges
    ("simulator", "push_duration_s", 0.1), ("whole_body", "margin_m", 0.01),
])
def test_the_documented_ranges_are_taken(suite, node, name, value):
    watcher, _, _ = suite
    assert watcher.set_parameter(node, name, value).successful


def test_an_absurd_push_is_refused_and_time_never_goes_back(suite):
    """Was: a push of 1e308 N blew MuJoCo up, which reset itself: sim time back to 0, and the
    whole-body, footstep and walk nodes silent afterwards."""
    watcher, _, _ = suite
    pub = watcher.node.create_publisher(WrenchStamped, "push", 10)
    start = watcher.count(watcher.clock)
    for force in (1e308, -1e308, 1e5):
        msg = WrenchStamped()
        msg.wrench.force.x = force
        pub.publish(msg)
        time.sleep(0.05)
    assert watcher.wait(lambda: len(watcher.clock) > start + 100, 10.0)
    with watcher.cond:
        clock = watcher.clock[start:]
        logs = [text for _, name, text in watcher.logs if name == "simulator"]
    assert all(b >= a for a, b in zip(clock, clock[1:])), "sim time went back"
    assert any("push ignored" in text and "weight" in text for text in logs)
    assert standing(watcher)


def test_implausible_joint_states_hold_the_command_and_say_so(suite):
    """Was: 1e308 in joint_states taken as the measured pose by the whole-body node: its command
    jumped by 3.1-3.5 rad and the robot fell."""
    watcher, _, _ = suite
    pub = watcher.node.create_publisher(JointState, "joint_states", CYCLE_QOS)
    q = np.zeros(MODEL.n_joints)
    q[MODEL.joint_index("LAnklePitch")] = 1e308
    start = watcher.count(watcher.commands)
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        msg = JointState(name=list(MODEL.joint_names), position=q.tolist())
        msg.header.stamp = watcher.node.get_clock().now().to_msg()
        pub.publish(msg)
        time.sleep(0.01)
    with watcher.cond:
        commands = watcher.commands[start:]
    assert len(commands) > 50
    assert_safe(commands)

    def warned():
        return any(status.level != b"\x00" and "joint_states refused (implausible position" in status.message
                   for status in watcher.diagnostics.get("nao_motion: whole_body", [])[-3:])
    assert watcher.wait(warned, 5.0), "the whole-body diagnostics did not say why"
    assert standing(watcher)


def test_an_implausible_imu_leaves_the_suite_safe_and_standing(suite):
    """An IMU whose gyro rate no gyrometer reads, then one whose orientation is no rotation, sent
    among the simulator's own: the nodes that sample one refuse it (each node's test, where the
    test's IMU comes before every joint_states, checks that their diagnostics say why; here a
    cycle samples it only when it came after the simulator's IMU of that cycle and before the
    node took the newest: 0-4 times in 5 s, by chance), and the robot's commands stay safe."""
    watcher, _, _ = suite
    pub = watcher.node.create_publisher(Imu, "imu", CYCLE_QOS)
    absurd_rate, absurd_attitude = Imu(), Imu()
    absurd_rate.orientation.w, absurd_rate.angular_velocity.x = 1.0, 1e308
    absurd_attitude.orientation.w = 1e308
    start = watcher.count(watcher.commands)
    for msg in (absurd_rate, absurd_attitude):
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            msg.header.stamp = watcher.node.get_clock().now().to_msg()
            pub.publish(msg)
            time.sleep(0.005)
    with watcher.cond:
        commands = watcher.commands[start:]
    assert len(commands) > 300  # the nodes went on commanding the robot meanwhile
    assert_safe(commands)
    assert standing(watcher)
    watcher.node.destroy_publisher(pub)


def test_refused_commands_are_logged_throttled(suite):
    """Was: the collision filter logged each rejected message (about 120 lines a second)."""
    watcher, _, _ = suite
    pub = watcher.node.create_publisher(JointState, "joint_targets", 100)
    t0 = time.monotonic()
    for k in range(300):  # 300 bad commands in 1.5 s (longer on a busy machine), each bad differently
        pub.publish(JointState(name=[f"Tail{k}"], position=[0.0]))
        time.sleep(0.005)
    time.sleep(0.5)
    span_s = time.monotonic() - t0
    with watcher.cond:
        lines = [text for t, name, text in watcher.logs if t >= t0 and name == "collision_filter"]
    # At most FAMILY_LINES a second for the topic, however long the burst took to send.
    assert 1 <= len(lines) <= FAMILY_LINES * math.ceil(span_s), (len(lines), span_s)


def test_a_flood_of_move_init_calls_is_answered(suite):
    """Was: a moveInit called again while one was under way dropped the earlier call's answer
    (10 of 100 answered in 1 s). From Stand (not walk-ready, so moveInit moves and waits), 100
    calls 10 ms apart, as the issue sent them: each is answered, and all alike, since the calls
    that overlap share the movement under way and the robot gets to StandInit. (The old test was
    answered at once since moveInit from a walk-ready posture moves nothing.)"""
    watcher, _, _ = suite
    stand, stand_init = posture(MODEL, "Stand"), posture(MODEL, "StandInit")
    pub = watcher.node.create_publisher(JointState, "joint_targets", 10)
    client = watcher.node.create_client(Trigger, "walk/move_init", qos_profile=FLOOD_QOS)

    def commanded_near(q) -> bool:
        with watcher.cond:
            return bool(watcher.commands) and np.max(np.abs(watcher.commands[-1][1] - q)) < 0.01

    try:
        assert client.wait_for_service(timeout_sec=10.0)
        pub.publish(JointState(name=list(MODEL.joint_names), position=stand.tolist()))
        assert watcher.wait(lambda: commanded_near(stand), 10.0), "the robot did not go to Stand"
        time.sleep(0.5)  # the measured legs follow: not walk-ready
        futures = []
        for _ in range(100):
            futures.append(client.call_async(Trigger.Request()))
            time.sleep(0.01)
        assert watcher.wait(lambda: all(f.done() for f in futures), 30.0), \
            f"{sum(not f.done() for f in futures)} of {len(futures)} calls unanswered"
        answers = [(f.result().success, f.result().message) for f in futures]
        assert answers[0] == (True, "StandInit reached"), answers[0]  # the first one moved the robot
        assert all(a in ((True, "StandInit reached"), (True, "walk-ready already: nothing to move"))
                   for a in answers), sorted(set(answers))
        assert answers.count((True, "StandInit reached")) > 1  # calls made while it moved waited for it
        assert commanded_near(stand_init)
        assert standing(watcher)
    finally:
        watcher.node.destroy_client(client)
        watcher.node.destroy_publisher(pub)


def test_after_the_clock_jumps_back_every_node_carries_on(suite):
    """reset_simulation: sim time back to 0. Every node notices, drops what it dated on the old
    clock, and goes on: the whole body commands, the collision filter's keep-alive, the walk's
    odometry, the planner's plan, and a walk asked for then is planned."""
    watcher, _, _ = suite
    with watcher.cond:
        before = watcher.clock[-1]
    assert watcher.call(Trigger, "reset_simulation", Trigger.Request()).success
    assert watcher.wait(lambda: watcher.clock[-1] < before - 1.0, 5.0)
    with watcher.cond:
        jumped = watcher.clock[-1]
        seen = {name: len(store) for name, store in
                (("commands", watcher.commands), ("safe", watcher.safe), ("odom", watcher.odom))}

    def after(store, name):
        items = store[seen[name]:]
        return [i for i in items if (i[0] if isinstance(i, tuple) else i) < before - 1.0]

    assert watcher.wait(lambda: len(after(watcher.commands, "commands")) > 100, 10.0), "whole body silent"
    assert watcher.wait(lambda: len(after(watcher.odom, "odom")) > 100, 10.0), "walk silent"
    assert watcher.wait(lambda: len(after(watcher.safe, "safe")) >= 2, 10.0), "collision filter silent"
    assert watcher.wait(lambda: watcher.plans[-1].time_s < before - 1.0, 10.0), "planner silent"
    with watcher.cond:
        assert_safe(watcher.commands[seen["commands"]:])
    logs = [text for _, name, text in watcher.logs]
    assert sum("the clock went back" in text for text in logs) >= 3
    pub = watcher.node.create_publisher(Twist, "cmd_vel", 10)
    pub.publish(Twist())  # stop
    msg = Twist()
    msg.linear.x = 0.04
    pub.publish(msg)
    assert watcher.wait(lambda: watcher.plans[-1].steps and watcher.plans[-1].time_s > jumped, 10.0), \
        "no walk planned after the jump"
    pub.publish(Twist())
    assert watcher.wait(lambda: not watcher.plans[-1].steps, 15.0)


# ---- the flood ----------------------------------------------------------------------------------

def bad_joint_state(rng) -> JointState:
    kind = rng.integers(6)
    names = list(MODEL.joint_names)
    q = np.zeros(len(names))
    if kind == 0:
        q[rng.integers(len(q))] = rng.choice([1e308, -1e308, math.nan, math.inf, 50.0])
    elif kind == 1:
        names = names + names[:rng.integers(1, 5)]  # duplicates
        q = np.zeros(len(names))
    elif kind == 2:
        names = [f"X{i}" for i in range(rng.integers(1, 3000))]  # long, unknown
        q = rng.normal(size=len(names))
    elif kind == 3:
        q = q[:rng.integers(len(q))]  # lengths that do not match
    elif kind == 4:
        names, q = [], np.array([])
    else:
        q = rng.uniform(-1e6, 1e6, len(names))  # finite, absurd
        q[0] = 1e6
    msg = JointState(name=names)
    msg.position = [float(v) for v in q]
    return msg


def bad_vector(rng) -> list[float]:
    """Three numbers, one of them (at least) absurd: a command that must be refused."""
    values = rng.choice([0.0, 1e308, -1e308, math.nan, math.inf, 1e3, 0.1], 3)
    values[rng.integers(3)] = rng.choice([1e308, -1e308, math.nan, math.inf, 1e3])
    return [float(v) for v in values]


def test_a_flood_of_generated_bad_input_keeps_the_node_alive_bounded_and_safe(suite):
    """Every topic the whole-body node takes, and the footstep planner's, at about 1,000 messages
    a second of generated bad input for 6 s: the suite's process stays alive, its memory and its
    log stay bounded, and the robot is never sent an unsafe command (and keeps standing)."""
    watcher, _, process = suite
    node = watcher.node
    pubs = {
        "states": node.create_publisher(JointState, "joint_states", 100),
        "wish": node.create_publisher(JointState, "collision_filter/safe_joint_commands", 100),
        "targets": node.create_publisher(JointState, "joint_targets", 100),
        "head": node.create_publisher(Vector3Stamped, "whole_body/effector/Head", 100),
        "arm": node.create_publisher(PointStamped, "whole_body/effector/LArm", 100),
        "com": node.create_publisher(PointStamped, "whole_body/com_reference", 100),
        "feet": node.create_publisher(PoseArray, "whole_body/foot_references", 100),
        "support": node.create_publisher(String, "whole_body/support", 100),
        "cmd_vel": node.create_publisher(Twist, "cmd_vel", 100),
        "request": node.create_publisher(Float64MultiArray, "footsteps/request", 100),
    }
    pid = process.process.pid
    rss_before = rss_kb(pid)
    rng = np.random.default_rng(16)
    start_commands = watcher.count(watcher.commands)
    t0 = time.monotonic()
    sent = 0
    while time.monotonic() - t0 < 6.0:
        for _ in range(10):
            kind = list(pubs)[rng.integers(len(pubs))]
            pubs[kind].publish(bad_message(kind, rng))
            sent += 1
        time.sleep(0.01)
    time.sleep(1.0)
    assert process.running(), "the suite's process died"
    with watcher.cond:
        commands = watcher.commands[start_commands:]
        lines = [text for t, name, text in watcher.logs if t >= t0 and name in
                 {spec.executable for spec in suite_nodes()}]
    rss_growth_mb = (rss_kb(pid) - rss_before) / 1024.0
    print(f"\nflood: {sent} messages sent, {len(commands)} commands watched, {len(lines)} log lines, "
          f"RSS growth {rss_growth_mb:.1f} MB")
    assert len(commands) > 50, "the whole body stopped commanding"
    assert_safe(commands)
    assert standing(watcher), "the robot fell"
    # Each topic's refusals FAMILY_LINES a second at most, per node that takes it (joint_states:
    # four): a dozen families. Unthrottled, each of the messages refused would be a line.
    assert len(lines) < FAMILY_LINES * 12 * 7, f"{len(lines)} log lines in 7 s"
    assert rss_growth_mb < 100.0
    for pub in pubs.values():
        node.destroy_publisher(pub)


def bad_message(kind: str, rng):
    if kind in ("states", "wish", "targets"):
        return bad_joint_state(rng)
    if kind == "head":
        msg = Vector3Stamped()
        msg.vector.x, msg.vector.y, msg.vector.z = bad_vector(rng)
        return msg
    if kind in ("arm", "com"):
        msg = PointStamped()
        msg.header.frame_id = str(rng.choice(["", "FRAME_ROBOT", "wb_world", "nowhere"]))
        msg.point.x, msg.point.y, msg.point.z = bad_vector(rng)
        return msg
    if kind == "feet":
        msg = PoseArray()
        msg.poses = [_pose(rng) for _ in range(rng.integers(0, 4))]
        return msg
    if kind == "support":
        return String(data=str(rng.choice(["Legs", "LLeg", "", "Tail", "x" * 1000])))
    if kind == "cmd_vel":
        msg = Twist()
        msg.linear.x, msg.linear.y, msg.angular.z = bad_vector(rng)
        return msg
    msg = Float64MultiArray()
    rows = int(rng.integers(0, 5))
    msg.layout.dim = [MultiArrayDimension(label="steps", size=rows, stride=rows * 5),
                      MultiArrayDimension(label="leg,x,y,theta,time_s", size=5, stride=5)]
    msg.layout.data_offset = 1
    data = rng.choice([0.0, 1.0, -1.0, 1e308, math.nan, 0.6], 1 + rows * 5)
    data[rng.integers(len(data))] = rng.choice([1e308, math.nan, -1e308, 2.0])  # never a valid request
    msg.data = [float(v) for v in data]
    return msg


def _pose(rng) -> Pose:
    pose = Pose()
    pose.position.x, pose.position.y, pose.position.z = bad_vector(rng)
    pose.orientation.w = float(rng.choice([1.0, 0.0, 1e308, math.nan]))
    return pose


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")

