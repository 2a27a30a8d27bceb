"""The whole-body node as its own process over real DDS: pass-through, wbEnable, the parameters'
refusals, malformed commands, effector control and wbGoToBalance through the ALMotion client,
markers and diagnostics, and the cycle driven by joint_states. The test's node is a perfect
robot: joint_states (stamped, 100 Hz) = the last command."""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import PointStamped  # noqa: E402
from rcl_interfaces.srv import GetParameters, SetParametersAtomically  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402
from visualization_msgs.msg import MarkerArray  # noqa: E402

from nao_motion.kinematics import FRAME_ROBOT, ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.conversions import IMU_ANGULAR_VELOCITY_ERROR  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import NODES  # noqa: E402

WHOLE_BODY = next(spec for spec in NODES if spec.executable == "whole_body")
MODEL = NaoModel()
FK = ForwardKinematics(MODEL)
START = posture(MODEL, "StandInit")
WISH = "collision_filter/safe_joint_commands"


class Robot(SpinningProbe):
    """Publishes joint_states (the last command) and wishes; records what the node says."""

    def __init__(self):
        super().__init__("whole_body_probe")
        self.q = START.copy()
        self.publishing = True
        self.imu: Imu | None = None  # sent before each joint_states when set: every cycle reads it
        self.commands, self.logs, self.markers, self.diagnostics = [], [], [], []
        self.states_stamps, self.command_stamps = [], []
        self.states_pub = self.node.create_publisher(JointState, "joint_states", CYCLE_QOS)
        self.wish_pub = self.node.create_publisher(JointState, WISH, CYCLE_QOS)
        self.imu_pub = self.node.create_publisher(Imu, "imu", CYCLE_QOS)
        self.arm_pub = self.node.create_publisher(PointStamped, "whole_body/effector/LArm", 10)
        self.node.create_subscription(JointState, "joint_commands", self._on_command, CYCLE_QOS)
        self.record_logs("whole_body", self.logs)
        self.node.create_subscription(MarkerArray, "whole_body/markers", lambda m: self.add(self.markers, m), 10)
        self.node.create_subscription(DiagnosticArray, "/diagnostics", lambda m: self.add(self.diagnostics, m), 10)
        self.node.create_timer(0.01, self.publish_states)
        self.start()

    def _on_command(self, msg: JointState):
        q = np.array(msg.position)
        with self.cond:
            self.commands.append(q)
            self.command_stamps.append((msg.header.stamp.sec, msg.header.stamp.nanosec))
            self.q = q
            self.cond.notify_all()

    def publish_states(self):
        with self.cond:
            if not self.publishing:
                return
            msg = JointState(name=list(MODEL.joint_names), position=self.q.tolist())
            msg.header.stamp = self.node.get_clock().now().to_msg()
            self.states_stamps.append((msg.header.stamp.sec, msg.header.stamp.nanosec))
            imu = self.imu
        if imu is not None:
            imu.header.stamp = msg.header.stamp
            self.imu_pub.publish(imu)
        self.states_pub.publish(msg)

    def wish(self, q):
        self.wish_pub.publish(JointState(name=list(MODEL.joint_names), position=[float(v) for v in q]))

    def last_command(self):
        with self.cond:
            return self.commands[-1].copy()

    def settle(self, cycles=20, timeout_s=15.0):
        """Wait until the commands stay within 10 urad (the QP's tolerance) for `cycles` cycles."""
        def still():
            recent = self.commands[-cycles:]
            return len(recent) == cycles and np.ptp(np.array(recent), axis=0).max() < 1e-5
        time.sleep(0.1)
        assert self.wait(still, timeout_s), "the commands did not settle"
        return self.last_command()

    def set_parameters(self, **values):
        request = SetParametersAtomically.Request(parameters=[
            Parameter(name.replace("__", "."), value=v).to_parameter_msg() for name, v in values.items()])
        return self.call(SetParametersAtomically, "whole_body/set_parameters_atomically", request).result


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    proc = nodes.start(WHOLE_BODY)
    rclpy.init()
    robot = Robot()
    try:
        assert robot.wait(lambda: robot.commands, 20.0), "no joint_commands from the node"
        yield proc, robot
    finally:
        robot.close()
        rclpy.shutdown()
        nodes.stop()


def test_disabled_it_passes_the_wish_through_within_limits(running):
    _, robot = running
    np.testing.assert_allclose(robot.commands[0], START, atol=1e-12)  # the first command: the measured pose
    wish = START.copy()
    wish[MODEL.joint_index("HeadYaw")] = 5.0  # beyond the joint's range
    wish[MODEL.joint_index("LShoulderPitch")] = 1.0
    robot.wish(wish)
    end = robot.settle()
    assert end[MODEL.joint_index("HeadYaw")] == pytest.approx(MODEL.upper[MODEL.joint_index("HeadYaw")])
    assert end[MODEL.joint_index("LShoulderPitch")] == pytest.approx(1.0)
    robot.wish(START)
    np.testing.assert_allclose(robot.settle(), START, atol=1e-9)


def test_each_joint_states_runs_one_cycle_stamped_like_it(running):
    _, robot = running
    robot.settle()
    with robot.cond:
        robot.publishing = False
    time.sleep(0.3)
    with robot.cond:
        count = len(robot.command_stamps)
    time.sleep(0.3)
    with robot.cond:
        assert len(robot.command_stamps) == count  # no joint_states, no cycle
        robot.publishing = True
    assert robot.wait(lambda: len(robot.command_stamps) >= count + 50, 5.0)
    with robot.cond:
        sent = set(robot.states_stamps)
        stamps = robot.command_stamps[count:]
    assert all(stamp in sent for stamp in stamps)  # every command carries its joint_states' stamp
    assert len(set(stamps)) == len(stamps)  # one cycle per message


def test_refused_parameters_say_why_and_the_command_stays(running):
    _, robot = running
    held = robot.settle()
    result = robot.set_parameters(left_foot_state="Plane", right_foot_state="Plane", balance_constraint=True)
    assert not result.successful and "at least one foot Fixed" in result.reason
    result = robot.set_parameters(balance_constraint=True, balance_support="LLeg")
    assert not result.successful and "outside the LLeg support polygon" in result.reason
    result = robot.set_parameters(left_foot_state="Sliding")
    assert not result.successful and "unknown foot state" in result.reason
    result = robot.set_parameters(margin_m=0.5)
    assert not result.successful and "margin_m" in result.reason
    np.testing.assert_array_equal(robot.settle(), held)
    assert robot.set_parameters(balance_constraint=True, balance_support="Legs").successful
    result = robot.set_parameters(right_foot_state="Free")
    assert not result.successful and "both feet on the ground" in result.reason


def test_enabled_it_balances_and_refuses_malformed_commands(running):
    _, robot = running
    assert robot.call(SetBool, "whole_body/enable", SetBool.Request(data=True)).success
    wish = START.copy()
    wish[MODEL.joint_index("LKneePitch")] = wish[MODEL.joint_index("RKneePitch")] = 0.0
    robot.wish(wish)
    balanced = robot.settle()
    # Feet Fixed and balance on Legs: the knees straighten only as far as the rest can follow.
    assert balanced[MODEL.joint_index("LKneePitch")] < START[MODEL.joint_index("LKneePitch")] - 0.1
    state = FK.compute(balanced)
    np.testing.assert_allclose(FK.pose(state, "l_sole")[:3, :3], FK.pose(state, "r_sole")[:3, :3], atol=1e-4)

    with robot.cond:
        robot.logs.clear()
    bad = wish.copy()
    bad[3] = np.nan
    robot.wish(bad)
    robot.wish_pub.publish(JointState(name=["LKneePitch", "Tail"], position=[0.1, 0.2]))
    robot.arm_pub.publish(PointStamped())  # LArm effector control is not enabled
    wrong_frame = PointStamped()
    wrong_frame.header.frame_id = "map"
    robot.arm_pub.publish(wrong_frame)
    def refused() -> bool:  # the wishes at the node's next cycle, the effector targets when they come
        logs = "\n".join(robot.logs)
        return ("non-finite position" in logs and "unknown joint names ['Tail']" in logs
                and ("not enabled" in logs or "FRAME_ROBOT" in logs))
    assert robot.wait(refused, 5.0), robot.logs
    np.testing.assert_allclose(robot.settle(), balanced, atol=1e-4)  # the last balanced command stays
    robot.wish(START)
    robot.settle()


def test_effector_control_and_go_to_balance_through_the_almotion_client(running):
    from nao_motion.almotion import ALMotion, ALMotionError

    _, robot = running
    robot.wish(START)
    client_logs = []
    robot.record_logs("wb_test_client", client_logs)
    client = ALMotion(node_name="wb_test_client")
    try:
        client.wbEnable(True)
        # NAOqi: "if COM is not inside the desired support polygon, this constraint is not
        # activated": said by the return value and the log, not by an exception
        def balance():
            values = robot.call(GetParameters, "whole_body/get_parameters", GetParameters.Request(
                names=["balance_constraint", "balance_support"])).values
            return values[0].bool_value, values[1].string_value

        before = balance()
        assert client.wbEnableBalanceConstraint(True, "RLeg") is False
        assert balance() == before != (True, "RLeg")  # nothing changed
        assert robot.wait(lambda: any("outside the RLeg support polygon" in m for m in client_logs), 5.0)
        with pytest.raises(ALMotionError, match="unknown effector"):
            client.wbEnableEffectorControl("Tail", True)
        client.wbEnableEffectorControl("LArm", True)
        state = FK.compute(robot.settle())
        target = FK.position_in_space(state, "LArm", FRAME_ROBOT)[:3] + [0.04, 0.02, 0.05]
        client.wbSetEffectorControl("LArm", target.tolist())
        robot.settle()
        time.sleep(0.3)
        reached = FK.position_in_space(FK.compute(robot.settle()), "LArm", FRAME_ROBOT)[:3]
        assert np.linalg.norm(reached - target) < 1e-3
        # a target the node refuses reaches the caller with the node's reason, and nothing is sent
        with pytest.raises(ALMotionError, match=r"LArm target \[2.0, 0.0, 0.0\] is beyond \+-1 m in FRAME_ROBOT: "
                                                "no pose of the robot comes near it"):
            client.wbSetEffectorControl("LArm", [2, 0, 0])
        time.sleep(0.3)
        assert not any("beyond +-1 m" in m for m in robot.logs)
        assert np.linalg.norm(FK.position_in_space(FK.compute(robot.settle()), "LArm", FRAME_ROBOT)[:3]
                              - target) < 1e-3
        client.wbEnableEffectorControl("LArm", False)
        with pytest.raises(ALMotionError, match="effector control of LArm is not enabled"):
            client.wbSetEffectorControl("LArm", target.tolist())

        client.wbGoToBalance("RLeg", 1.0)
        assert client.wbEnableBalanceConstraint(True, "RLeg") is True  # the COM is over the right foot now
        with pytest.raises(ALMotionError, match="needs the right foot Fixed"):
            client.wbFootState("Plane", "RLeg")
        client.wbEnableBalanceConstraint(True, "Legs")
        client.wbFootState("Plane", "LLeg")
        client.wbFootState("Fixed", "Legs")
        client.wbEnableBalanceConstraint(False, "Legs")
        client.wbEnable(False)
    finally:
        client.close()
    with robot.cond:
        markers = robot.markers[-1].markers
        statuses = [s for d in robot.diagnostics for s in d.status if s.name == "nao_motion: whole_body"]
    assert {m.ns for m in markers} == {"com", "com_floor", "support_polygon", "margin", "margin_text"}
    assert len(markers[2].points) >= 5 and all(m.header.frame_id == "torso" for m in markers)
    keys = {kv.key for kv in statuses[-1].values}
    assert {"mode", "outcome", "com_margin_m", "cycle_time_median_ms"} <= keys


def test_an_implausible_gyro_rate_is_refused_and_said_on_diagnostics(running):
    """The IMU sent before each joint_states, so that every cycle reads it (over the simulator,
    whose own IMU comes each cycle, a cycle read the test's only by chance: test_bad_input_nodes).
    The command stays the wish's, within the joint limits."""
    proc, robot = running
    absurd = Imu()
    absurd.orientation.w, absurd.angular_velocity.x = 1.0, 1e308
    with robot.cond:
        seen = len(robot.diagnostics)

    def told() -> bool:
        return any(s.level != b"\x00" and f"imu refused ({IMU_ANGULAR_VELOCITY_ERROR}): the robot keeps its last "
                   "command" in s.message and any(v.key == "refused_inputs" for v in s.values)
                   for d in robot.diagnostics[seen:] for s in d.status if s.name == "nao_motion: whole_body")
    robot.imu = absurd
    try:
        assert robot.wait(told, 5.0), "the whole-body diagnostics did not say why"
    finally:
        robot.imu = None
    with robot.cond:
        start = len(robot.commands)
    assert robot.wait(lambda: len(robot.commands) > start + 20, 5.0) and proc.running()
    assert np.all((robot.last_command() >= MODEL.lower - 1e-9) & (robot.last_command() <= MODEL.upper + 1e-9))
