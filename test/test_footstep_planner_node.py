"""The footstep planner node as its own process over real DDS: its plans match the core's for the
same commands, refusals keep the plan, services, parameters, markers and diagnostics, and the
ALMotion locomotion methods against it. Also the plan/request codec (no ROS graph needed)."""

import math
import time
from contextlib import contextmanager

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import PoseStamped, TransformStamped, Twist  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rcl_interfaces.msg import Log  # noqa: E402
from rcl_interfaces.srv import GetParameters, SetParametersAtomically  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402
from std_msgs.msg import Bool, Float64MultiArray, UInt64  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402
from visualization_msgs.msg import Marker, MarkerArray  # noqa: E402

from nao_motion.footsteps import NAO_FOOT_BOXES, FootstepPlanner, Leg, Pose2D  # noqa: E402
from nao_motion.footsteps.gait_config import get_move_config  # noqa: E402
from nao_motion.ros.footstep_messages import (  # noqa: E402
    FootstepMessageError, FootstepPlan, FootstepRequest, decode_plan, decode_request, encode_plan,
    encode_request, plan_of)
from nao_motion.ros.qos import LATCHED_QOS, TF_QOS, TF_STATIC_QOS  # noqa: E402
from nao_motion.suite import NODES  # noqa: E402

PLANNER = next(spec for spec in NODES if spec.executable == "footstep_planner")
# The probe keeps every plan: at the node's depth of 1 a plan is lost when the next one arrives before
# it is taken, and the plan a command makes from standing differs from the next cycle's (refilled).
PLAN_RECORDER_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE,
                               durability=DurabilityPolicy.TRANSIENT_LOCAL)

STREAM_PERIOD_S = 0.1  # a teleop's cmd_vel stream: 10 Hz, within the planner's cmd_vel_timeout_s (0.5)
PLAN_FRAME = ("odom", "footstep_plan")

# The seed's cha-cha (setFootStepsWithSpeed, one step per call, speed 0.8).
CHA_CHA = [("LLeg", [0.06, 0.1, 0.0]), ("LLeg", [0.00, 0.16, 0.0]), ("RLeg", [0.00, -0.1, 0.0]),
           ("LLeg", [0.00, 0.16, 0.0]), ("RLeg", [-0.04, -0.1, 0.0]), ("RLeg", [0.00, -0.16, 0.0]),
           ("LLeg", [0.00, 0.1, 0.0]), ("RLeg", [0.00, -0.16, 0.0])]


def core_plan(planner: FootstepPlanner) -> FootstepPlan:
    feet = planner.feet
    return plan_of(planner.now_s, 0, 0, feet.left, feet.right, planner.steps(), len(planner.unchangeable_steps()))


def final_feet(plan: FootstepPlan) -> dict:
    feet = {Leg.LEFT: plan.left, Leg.RIGHT: plan.right}
    for step in plan.steps:
        feet[step.leg] = step.target
    return feet


def pose_close(a: Pose2D, b: Pose2D, tol_m=1e-3, tol_rad=math.radians(0.1)) -> bool:
    return math.hypot(a.x - b.x, a.y - b.y) <= tol_m and abs(math.remainder(a.theta - b.theta, 2 * math.pi)) <= tol_rad


def assert_pose_close(a: Pose2D, b: Pose2D, tol_m=1e-3, tol_rad=math.radians(0.1)):
    assert pose_close(a, b, tol_m, tol_rad), (a, b)


def assert_same_steps(a: FootstepPlan, b: FootstepPlan, tol=1e-9):
    assert [s.leg for s in a.steps] == [s.leg for s in b.steps]
    assert [s.unchangeable for s in a.steps] == [s.unchangeable for s in b.steps]
    for sa, sb in zip(a.steps, b.steps):
        np.testing.assert_allclose(
            [sa.start_s, sa.end_s, *sa.origin.as_list(), *sa.target.as_list(), *sa.support.as_list(),
             sa.step_height_m, sa.torso_wx_rad, sa.torso_wy_rad],
            [sb.start_s, sb.end_s, *sb.origin.as_list(), *sb.target.as_list(), *sb.support.as_list(),
             sb.step_height_m, sb.torso_wx_rad, sb.torso_wy_rad], atol=tol)


# --- the codec (pure) ---------------------------------------------------------------------------
def test_plan_encoding_round_trips_exactly():
    planner = FootstepPlanner(Pose2D(0.1, 0.2, 0.3), Pose2D(0.12, 0.1, 0.25), now_s=12.5)
    planner.move_to(0.5, -0.2, 1.0, [["StepHeight", 0.03], ["TorsoWx", 0.05]])
    planner.advance(0.3)
    plan = plan_of(planner.now_s, 7, 3, planner.feet.left, planner.feet.right, planner.steps(),
                   len(planner.unchangeable_steps()))
    assert len(plan.steps) > 10 and 0 < sum(s.unchangeable for s in plan.steps) < len(plan.steps)
    msg = encode_plan(plan)
    assert msg.layout.dim[0].label == "steps" and msg.layout.dim[0].size == len(plan.steps)
    assert msg.layout.dim[1].label.split(",")[:3] == ["leg", "start_s", "end_s"]
    assert decode_plan(msg) == plan
    # NAOqi's getFootSteps and getNextRobotPosition from the decoded plan equal the core's
    assert plan.foot_steps() == planner.get_foot_steps()
    assert plan.next_robot_position() == planner.get_next_robot_position()


def test_request_encoding_round_trips_and_bad_messages_say_why():
    request = FootstepRequest(["LLeg", "RLeg"], [[0.06, 0.1, 0.0], [0.0, -0.1, 0.1]], [0.5, 1.0], True, False)
    assert decode_request(encode_request(request)) == request
    speeds = FootstepRequest(["RLeg"], [[0.0, -0.16, 0.0]], [0.8], False, True)
    assert decode_request(encode_request(speeds)) == speeds

    def broken(edit):
        msg = encode_request(request)
        edit(msg)
        return msg

    cases = {
        "need 11 values, got 10": lambda m: setattr(m, "data", list(m.data)[:-1]),
        "NaN or infinite": lambda m: setattr(m, "data", [math.nan] + list(m.data)[1:]),
        "neither +1 (LLeg) nor -1 (RLeg)": lambda m: setattr(m, "data", [1.0, 0.0] + list(m.data)[2:]),
        "layout must have 2 dims": lambda m: setattr(m.layout.dim[1], "label", "leg,x,y,theta,when"),
        "clear_existing must be 0 or 1": lambda m: setattr(m, "data", [0.5] + list(m.data)[1:]),
    }
    for reason, edit in cases.items():
        with pytest.raises(FootstepMessageError, match=reason.replace("(", r"\(").replace(")", r"\)")
                           .replace("+", r"\+")):
            decode_request(broken(edit))
    empty = encode_request(FootstepRequest([], [], [], False, False))
    with pytest.raises(FootstepMessageError, match="no steps"):
        decode_request(empty)


# --- the node -----------------------------------------------------------------------------------
class Probe(SpinningProbe):
    """The test's node: sends commands, records plans, markers, logs and diagnostics."""

    def __init__(self):
        super().__init__("footstep_planner_probe")
        self.plans, self.markers, self.logs, self.diagnostics, self.static_tf = [], [], [], [], []
        node = self.node
        self.pubs = {
            "cmd_vel": node.create_publisher(Twist, "cmd_vel", 10),
            "cmd_vel_normalized": node.create_publisher(Twist, "cmd_vel_normalized", 10),
            "goal_pose": node.create_publisher(PoseStamped, "goal_pose", 10),
            "footsteps/request": node.create_publisher(Float64MultiArray, "footsteps/request", 10),
            "cmd_vel_keepalive": node.create_publisher(UInt64, "cmd_vel_keepalive", 10),
        }
        self.tf_pub = node.create_publisher(TFMessage, "/tf", TF_QOS)
        self.odom_pub = node.create_publisher(Odometry, "odom", 10)
        self.hold_step_pub = node.create_publisher(Bool, "walk/hold_step", LATCHED_QOS)
        node.create_subscription(Float64MultiArray, "footsteps/plan", self._on_plan, PLAN_RECORDER_QOS)
        node.create_subscription(MarkerArray, "footsteps/markers", lambda m: self.add(self.markers, m), 10)
        self.record_logs("footstep_planner", self.logs)
        node.create_subscription(DiagnosticArray, "/diagnostics", lambda m: self.add(self.diagnostics, m), 10)
        node.create_subscription(TFMessage, "/tf_static", lambda m: self.add(self.static_tf, m), TF_STATIC_QOS)
        self.start()

    def _on_plan(self, msg):
        self.add(self.plans, decode_plan(msg))

    def latest(self) -> FootstepPlan:
        assert self.wait(lambda: self.plans, 10.0), "no footsteps/plan"
        with self.cond:
            return self.plans[-1]

    def send(self, topic: str, msg) -> FootstepPlan:
        """Publish a command; return the first plan published after the node took or refused it."""
        pub = self.pubs[topic]
        end = time.monotonic() + 10.0
        while pub.get_subscription_count() == 0 and time.monotonic() < end:
            time.sleep(0.01)
        before = self.latest()
        pub.publish(msg)
        answered = (lambda p: p.accepted_commands > before.accepted_commands
                    or p.refused_commands > before.refused_commands)
        assert self.wait(lambda: answered(self.plans[-1]), 5.0), f"no answer to {topic}"
        with self.cond:
            return next(p for p in self.plans if answered(p))

    def set_parameters(self, **values):
        request = SetParametersAtomically.Request(
            parameters=[Parameter(name, value=v).to_parameter_msg() for name, v in values.items()])
        return self.call(SetParametersAtomically, "footstep_planner/set_parameters_atomically", request).result

    def parameter(self, name):
        response = self.call(GetParameters, "footstep_planner/get_parameters", GetParameters.Request(names=[name]))
        return response.values[0].double_value

    def odometry_samples(self) -> int:
        """The odometry samples the planner compared, as its latest diagnostics say."""
        with self.cond:
            statuses = [s for d in self.diagnostics for s in d.status if s.name == "nao_motion: footstep_planner"]
        values = {kv.key: kv.value for kv in statuses[-1].values} if statuses else {}
        return int(values.get("odometry_samples", 0))

    def odometry(self, pose: Pose2D) -> Odometry:
        msg = Odometry()
        msg.header.frame_id, msg.child_frame_id = "odom", "base_footprint"
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.pose.pose.position.x, msg.pose.pose.position.y = pose.x, pose.y
        msg.pose.pose.orientation.z, msg.pose.pose.orientation.w = math.sin(0.5 * pose.theta), math.cos(0.5 * pose.theta)
        return msg

    def sense(self, pose: Pose2D) -> None:
        """The walk's odom says the robot stands at `pose`: sent (freshly stamped) until the
        planner has compared a sample (nobody else publishes odom here)."""
        before = self.odometry_samples()
        end = time.monotonic() + 10.0
        while self.odometry_samples() <= before:
            assert time.monotonic() < end, "the planner compared no odom"
            self.odom_pub.publish(self.odometry(pose))
            time.sleep(0.1)

    @contextmanager
    def streaming(self, topic: str, msg):
        """`msg` on `topic` every STREAM_PERIOD_S while in the block, as a teleop sends cmd_vel."""
        timer = self.node.create_timer(STREAM_PERIOD_S, lambda: self.pubs[topic].publish(msg))
        try:
            yield
        finally:
            self.node.destroy_timer(timer)

    def plan_frames(self) -> list:
        """The odom -> footstep_plan transforms received on /tf_static."""
        with self.cond:
            return [t for m in self.static_tf for t in m.transforms if (t.header.frame_id, t.child_frame_id) == PLAN_FRAME]

    def idle(self) -> FootstepPlan:
        """killMove, then the plan once it is empty."""
        assert self.call(Trigger, "kill_move", Trigger.Request()).success
        assert self.wait(lambda: not self.plans[-1].steps, 5.0)
        return self.latest()


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    proc = nodes.start(PLANNER)
    rclpy.init()
    probe = Probe()
    try:
        assert probe.wait(lambda: probe.plans, 20.0), "no footsteps/plan from the node"
        yield proc, probe
    finally:
        probe.close()
        rclpy.shutdown()
        nodes.stop()


def twist(x=0.0, y=0.0, wz=0.0) -> Twist:
    msg = Twist()
    msg.linear.x, msg.linear.y, msg.angular.z = float(x), float(y), float(wz)
    return msg


def goal(x, y, theta, frame="odom") -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = frame
    msg.pose.position.x, msg.pose.position.y = float(x), float(y)
    msg.pose.orientation.z, msg.pose.orientation.w = math.sin(0.5 * theta), math.cos(0.5 * theta)
    return msg


def wait_until(condition, timeout_s: float) -> bool:
    end = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


def idle_core(plan: FootstepPlan, now_s: float) -> FootstepPlanner:
    return FootstepPlanner(plan.left, plan.right, now_s=now_s)


def test_cmd_vel_plans_what_the_core_plans(running):
    _, probe = running
    probe.idle()
    for topic, command, (x, y, wz) in (("cmd_vel", "move", (0.05, 0.02, 0.2)),
                                       ("cmd_vel_normalized", "move_toward", (0.8, 0.0, -0.5))):
        idle = probe.idle()
        plan = probe.send(topic, twist(x, y, wz))
        assert plan.accepted_commands == idle.accepted_commands + 1 and plan.steps
        core = idle_core(idle, plan.time_s)
        getattr(core, command)(x, y, wz)
        assert_same_steps(plan, core_plan(core))
        # the walk goes on as the clock advances while the command keeps coming: later plans keep
        # previewing ahead
        with probe.streaming(topic, twist(x, y, wz)):
            assert probe.wait(lambda: probe.plans[-1].time_s > plan.time_s + 1.0, 5.0)
            later = probe.latest()
        assert later.steps and later.steps[-1].start_s >= later.time_s + 0.8 - 1e-9
    probe.send("cmd_vel", twist())  # zero twist: stopMove
    assert probe.wait(lambda: not probe.plans[-1].steps, 5.0)
    end = probe.latest()
    separation = end.right.relative_to(end.left)
    assert separation.x == pytest.approx(0.0, abs=1e-9) and separation.y == pytest.approx(-0.1, abs=1e-9)


def test_goal_pose_in_odom_ends_where_the_core_ends(running):
    _, probe = running
    idle = probe.idle()
    target = (idle.robot_position() * Pose2D(0.3, 0.1, 0.5)).normalized()
    plan = probe.send("goal_pose", goal(target.x, target.y, target.theta))
    assert plan.accepted_commands == idle.accepted_commands + 1
    core = idle_core(idle, plan.time_s)
    relative = target.relative_to(core.get_robot_position())
    core.move_to(relative.x, relative.y, relative.theta)
    expected = core.planned_feet()
    feet = final_feet(plan)
    assert_pose_close(feet[Leg.LEFT], expected.left)
    assert_pose_close(feet[Leg.RIGHT], expected.right)
    assert_pose_close(FootstepPlan(0, 0, 0, feet[Leg.LEFT], feet[Leg.RIGHT], ()).robot_position(), target)


def test_goal_pose_in_another_frame_goes_through_tf(running):
    _, probe = running
    idle = probe.idle()
    landmark = TransformStamped()
    landmark.header.frame_id, landmark.child_frame_id = "odom", "landmark"
    landmark.transform.translation.x = idle.robot_position().x + 0.2
    landmark.transform.rotation.z, landmark.transform.rotation.w = math.sin(0.25 * math.pi), math.cos(0.25 * math.pi)
    end = time.monotonic() + 5.0
    while probe.tf_pub.get_subscription_count() == 0 and time.monotonic() < end:
        time.sleep(0.01)
    probe.tf_pub.publish(TFMessage(transforms=[landmark]))
    time.sleep(0.3)
    plan = probe.send("goal_pose", goal(0.1, 0.0, 0.0, frame="landmark"))
    assert plan.accepted_commands == idle.accepted_commands + 1
    feet = final_feet(plan)
    reached = FootstepPlan(0, 0, 0, feet[Leg.LEFT], feet[Leg.RIGHT], ()).robot_position()
    assert_pose_close(reached, Pose2D(idle.robot_position().x + 0.2, 0.1, 0.5 * math.pi))


def test_a_goal_in_a_frame_whose_transform_is_no_pose_is_refused_and_the_planner_goes_on(running):
    """Was: a zero quaternion on /tf killed the footstep planner at a goal in that frame (a
    ZeroDivisionError in the quaternion's normalisation). The transform is refused as it is taken
    in, the goal refused with the reason, and the planner goes on planning: a valid transform of
    that frame later is taken."""
    proc, probe = running
    idle = probe.idle()
    broken = TransformStamped()
    broken.header.frame_id, broken.child_frame_id = "odom", "broken_landmark"
    broken.transform.translation.x = 0.2
    broken.transform.rotation.w = 0.0  # (x, y, z, w) all zero
    end = time.monotonic() + 5.0
    while probe.tf_pub.get_subscription_count() == 0 and time.monotonic() < end:
        time.sleep(0.01)
    probe.tf_pub.publish(TFMessage(transforms=[broken]))
    time.sleep(0.3)
    with probe.cond:
        probe.logs.clear()
    plan = probe.send("goal_pose", goal(0.1, 0.0, 0.0, frame="broken_landmark"))
    assert plan.accepted_commands == idle.accepted_commands
    assert probe.wait(lambda: any("'broken_landmark': zero orientation quaternion" in line for line in probe.logs),
                      5.0), "no log line saying why"
    assert proc.running()
    broken.transform.rotation.w = 1.0  # the frame's publisher mended: its next transform is taken
    probe.tf_pub.publish(TFMessage(transforms=[broken]))
    time.sleep(0.3)
    plan = probe.send("goal_pose", goal(0.1, 0.0, 0.0, frame="broken_landmark"))
    assert plan.accepted_commands == idle.accepted_commands + 1
    probe.idle()


def test_goal_pose_in_odom_is_where_the_sensed_odometry_has_it_and_markers_are_drawn_in_odom(running):
    """The walk's odom has the robot 10 cm behind, 5 cm left of and turned 0.3 rad from where the
    plan has it (it fell short): a goal in odom 0.2 m ahead of the sensed robot is 0.2 m ahead of
    the plan's robot; the markers show the plan's feet around the sensed robot; a goal in
    footstep_plan (ALMotion's moveTo) is taken as is."""
    from nao_motion.nodes.footstep_planner_node import _box_centre_and_size

    _, probe = running
    idle = probe.idle()
    planned = idle.robot_position()
    sensed = (planned * Pose2D(-0.1, 0.05, 0.3)).normalized()
    try:
        probe.sense(sensed)
        # a broken odometry sample is ignored with the reason (the transform kept)
        with probe.cond:
            probe.logs.clear()
        probe.odom_pub.publish(probe.odometry(Pose2D(math.nan, 0.0, 0.0)))
        assert probe.wait(lambda: any("odom ignored: non-finite" in line for line in probe.logs), 5.0)

        goal_odom = (sensed * Pose2D(0.2, 0.0, 0.0)).normalized()
        plan = probe.send("goal_pose", goal(goal_odom.x, goal_odom.y, goal_odom.theta))
        assert plan.accepted_commands == idle.accepted_commands + 1
        feet = final_feet(plan)
        reached = FootstepPlan(0, 0, 0, feet[Leg.LEFT], feet[Leg.RIGHT], ()).robot_position()
        assert_pose_close(reached, planned * Pose2D(0.2, 0.0, 0.0))

        odom_from_plan = sensed * planned.inverse()
        (cx, cy), _ = _box_centre_and_size(NAO_FOOT_BOXES.left)
        with probe.cond:
            probe.markers.clear()
        assert probe.wait(lambda: probe.markers, 5.0), "no footsteps/markers"
        with probe.cond:
            planted_left = probe.markers[-1].markers[1]
        assert planted_left.ns == "planted" and planted_left.header.frame_id == "odom"
        # the planted left foot then: where it stood, or where a step of this plan put it
        lefts = [idle.left] + [s.target for s in plan.steps if s.leg is Leg.LEFT]
        drawn = (planted_left.pose.position.x, planted_left.pose.position.y)
        assert any(math.dist(drawn, (odom_from_plan * left).transform_point(cx, cy)) < 1e-6 for left in lefts), drawn

        standing = probe.idle()
        target = (standing.robot_position() * Pose2D(0.1, 0.0, 0.0)).normalized()
        plan = probe.send("goal_pose", goal(target.x, target.y, target.theta, frame="footstep_plan"))
        assert plan.accepted_commands == standing.accepted_commands + 1
        feet = final_feet(plan)
        assert_pose_close(FootstepPlan(0, 0, 0, feet[Leg.LEFT], feet[Leg.RIGHT], ()).robot_position(), target)
    finally:
        # odom back on the plan (identity) for the tests that follow
        probe.sense(probe.idle().robot_position())



def test_a_move_to_the_odometry_says_ended_short_walks_the_rest(running):
    """A moveTo (goal_pose) has walked its plan; the walk's odom, on the planted feet, says the
    robot stands 5 cm short of it: the planner plans the rest (the core's closing moveTo), ending
    where the goal is, and its diagnostics count the correction."""
    _, probe = running
    idle = probe.idle()
    probe.sense(idle.robot_position())  # odom on the plan
    target = (idle.robot_position() * Pose2D(0.1, 0.0, 0.0)).normalized()
    try:
        plan = probe.send("goal_pose", goal(target.x, target.y, target.theta))
        assert plan.accepted_commands == idle.accepted_commands + 1 and plan.steps
        assert probe.wait(lambda: not probe.plans[-1].steps, 15.0), "the moveTo's plan did not end"
        ended = probe.latest()
        assert_pose_close(ended.robot_position(), target)
        probe.sense((target * Pose2D(-0.05, 0.0, 0.0)).normalized())  # 5 cm short, by odom
        assert probe.wait(lambda: probe.plans[-1].steps, 5.0), "no closing moveTo"
        closing = probe.latest()
        feet = final_feet(closing)
        reached = FootstepPlan(0, 0, 0, feet[Leg.LEFT], feet[Leg.RIGHT], ()).robot_position()
        assert_pose_close(reached, target * Pose2D(0.05, 0.0, 0.0))
        assert closing.accepted_commands == plan.accepted_commands  # the planner's own, not a command
        # The plan's frame on /tf_static where odom has it: the plan's robot position (target) is
        # odom's (5 cm short of it).
        def plan_frame() -> Pose2D | None:
            frames = probe.plan_frames()
            if not frames:
                return None
            tr, q = frames[-1].transform.translation, frames[-1].transform.rotation
            return Pose2D(tr.x, tr.y, 2.0 * math.atan2(q.z, q.w))
        sensed = (target * Pose2D(-0.05, 0.0, 0.0)).normalized()
        assert probe.wait(lambda: plan_frame() is not None and
                          abs((plan_frame() * target).x - sensed.x) < 1e-6, 5.0), plan_frame()
        assert_pose_close((plan_frame() * target).normalized(), sensed)

        def corrections() -> int:
            with probe.cond:
                statuses = [s for d in probe.diagnostics for s in d.status if s.name == "nao_motion: footstep_planner"]
            return int({kv.key: kv.value for kv in statuses[-1].values}.get("move_to_corrections", 0))
        assert probe.wait(lambda: corrections() == 1, 5.0)
    finally:
        probe.sense(probe.idle().robot_position())  # killMove, and odom back on the plan

def request_msg(legs, poses, times, clear=False, speed=False):
    return encode_request(FootstepRequest(legs, poses, times, clear, speed))


def bad_length_request():
    msg = request_msg(["LLeg", "RLeg"], [[0.04, 0.1, 0.0], [0.04, -0.1, 0.0]], [0.5, 1.0])
    msg.layout.dim[0].size = 3  # says 3 steps, carries 2
    return msg


REFUSED = {
    "nan_goal": ("goal_pose", lambda: goal(math.nan, 0.0, 0.0), "non-finite"),
    "unknown_frame": ("goal_pose", lambda: goal(0.1, 0.0, 0.0, frame="nowhere"), "unknown frame 'nowhere'"),
    "far_goal": ("goal_pose", lambda: goal(500.0, 0.0, 0.0), "unreachable"),
    "mismatched_lengths": ("footsteps/request", bad_length_request, "need 16 values, got 11"),
    "unknown_leg": ("footsteps/request", lambda: Float64MultiArray(
        layout=request_msg(["LLeg"], [[0.0, 0.1, 0.0]], [0.5]).layout, data=[0.0, 2.0, 0.0, 0.1, 0.0, 0.5]),
        "leg code 2.0"),
    "empty": ("footsteps/request", lambda: request_msg([], [], []), "no steps"),
    "bad_time": ("footsteps/request", lambda: request_msg(["LLeg"], [[0.0, 0.1, 0.0]], [-1.0]), "must be positive"),
    "nan_cmd_vel": ("cmd_vel", lambda: twist(math.nan, 0.0, 0.0), "not finite"),
    "out_of_range_normalized": ("cmd_vel_normalized", lambda: twist(1.5, 0.0, 0.0), "outside [-1, 1]"),
}


def identity(step):
    """A step without its unchangeable flag (which changes as time passes)."""
    return step.leg, step.start_s, step.end_s, step.origin, step.target


def test_the_plans_time_stands_still_while_the_walk_holds_a_lift_off(running):
    """walk/hold_step: every step, the one in progress too, comes later by the time held."""
    _, probe = running
    idle = probe.idle()
    target = (idle.robot_position() * Pose2D(0.3, 0.0, 0.0)).normalized()
    plan = probe.send("goal_pose", goal(target.x, target.y, target.theta))
    first = plan.steps[0]
    probe.hold_step_pub.publish(Bool(data=True))
    time.sleep(0.5)
    probe.hold_step_pub.publish(Bool(data=False))
    # its clock ran on (the plan goes out on a change and at 2 Hz)
    assert probe.wait(lambda: probe.plans[-1].time_s > plan.time_s + 0.7, 5.0)
    later = probe.latest()
    same = [s for s in later.steps if s.leg is first.leg and s.target == first.target]
    assert same, "the first step is gone"
    assert same[0].start_s - first.start_s == pytest.approx(0.5, abs=0.15)
    assert later.steps[-1].end_s - same[0].start_s == pytest.approx(plan.steps[-1].end_s - first.start_s)
    probe.idle()


def test_refused_commands_say_why_and_keep_the_plan(running):
    proc, probe = running
    idle = probe.idle()
    walking = probe.send("goal_pose", goal(*(idle.robot_position() * Pose2D(2.0, 0.0, 0.0)).as_list()))
    last = walking.steps[-1]
    for case, (topic, make, reason) in REFUSED.items():
        with probe.cond:
            probe.logs.clear()
        plan = probe.send(topic, make())
        assert plan.accepted_commands == walking.accepted_commands, case
        kept = walking.steps[len(walking.steps) - len(plan.steps):]
        assert plan.steps and plan.steps[-1].target == last.target, f"{case}: the plan changed"
        assert [identity(s) for s in plan.steps] == [identity(s) for s in kept], f"{case}: the plan changed"
        assert probe.wait(lambda: any(reason in line for line in probe.logs), 5.0), f"no log line for {case}"
        with probe.cond:
            line = next(line for line in probe.logs if reason in line)
        assert line.startswith(f"{topic} refused, the plan is kept"), line
    assert proc.running()
    probe.idle()


def test_stop_move_and_kill_move_services(running):
    _, probe = running
    probe.idle()
    walking = probe.send("cmd_vel", twist(0.08, 0.0, 0.0))
    with probe.streaming("cmd_vel", twist(0.08, 0.0, 0.0)):  # (stopMove follows well within its timeout)
        assert probe.wait(lambda: probe.plans[-1].time_s > walking.time_s + 1.0, 5.0)
    response = probe.call(Trigger, "stop_move", Trigger.Request())
    assert response.success and "stopping" in response.message
    stopping = probe.latest()
    assert stopping.steps and all(s.unchangeable for s in stopping.steps[:-2])
    assert probe.wait(lambda: not probe.plans[-1].steps, 5.0), "stopMove did not end the walk"
    stopped = probe.latest()
    separation = stopped.right.relative_to(stopped.left)
    assert separation.x == pytest.approx(0.0, abs=1e-9) and separation.y == pytest.approx(-0.1, abs=1e-9)
    assert stopped.robot_position().x > walking.robot_position().x + 0.05  # it walked

    probe.send("cmd_vel", twist(0.08, 0.0, 0.0))
    before = probe.latest()
    assert probe.call(Trigger, "kill_move", Trigger.Request()).success
    assert probe.wait(lambda: probe.plans[-1].accepted_commands > before.accepted_commands, 2.0)
    assert not probe.latest().steps  # at once: the first plan after killMove is empty


def test_bad_parameters_are_refused_whole_with_the_reason(running):
    _, probe = running
    result = probe.set_parameters(MaxStepX=0.2)
    assert not result.successful and "MaxStepX=0.2 is outside [0.001, 0.08]" in result.reason
    result = probe.set_parameters(MaxStepX=0.06, StepHeight=1.0)
    assert not result.successful and "StepHeight" in result.reason
    result = probe.set_parameters(frequency=2.0)
    assert not result.successful and "Frequency" in result.reason
    result = probe.set_parameters(max_goal_distance_m=-1.0)
    assert not result.successful and "max_goal_distance_m" in result.reason
    assert probe.parameter("MaxStepX") == pytest.approx(0.04)  # nothing half-applied

    # A per-foot override applies from the next command, to that foot only.
    assert probe.set_parameters(LeftStepHeight=0.03, TorsoWy=0.05).successful
    idle = probe.idle()
    plan = probe.send("cmd_vel", twist(0.05, 0.0, 0.0))
    core = idle_core(idle, plan.time_s)
    core.move(0.05, 0.0, 0.0, [["LeftStepHeight", 0.03], ["TorsoWy", 0.05]])
    assert_same_steps(plan, core_plan(core))
    # From standing the plan holds the first step only, one preview ahead; the next cycle's
    # refill adds the other foot's.
    assert probe.wait(lambda: probe.plans[-1].time_s > plan.time_s, 5.0)
    later = probe.latest()
    heights = {s.leg: s.step_height_m for s in later.steps}
    assert heights == {Leg.LEFT: 0.03, Leg.RIGHT: 0.02}
    assert all(s.torso_wy_rad == 0.05 for s in later.steps)
    core.advance_to(later.time_s)
    assert_same_steps(later, core_plan(core))
    assert probe.set_parameters(LeftStepHeight=math.nan, TorsoWy=0.0).successful
    probe.idle()


def test_markers_and_diagnostics(running):
    _, probe = running
    probe.idle()
    plan = probe.send("cmd_vel", twist(0.05, 0.0, 0.1))
    # From standing the first step starts one preview after the command, so the steps become
    # unchangeable one by one from the next cycle on: wait until both feet have one.
    with probe.streaming("cmd_vel", twist(0.05, 0.0, 0.1)):
        assert probe.wait(lambda: probe.markers and sum(m.ns == "unchangeable" for m in probe.markers[-1].markers)
                          >= 2, 5.0)
        with probe.cond:
            markers = probe.markers[-1].markers
    assert markers[0].action == Marker.DELETEALL
    boxes = markers[1:]
    assert all(m.header.frame_id == "odom" and m.type == Marker.CUBE for m in boxes)
    assert [m.ns for m in boxes[:2]] == ["planted", "planted"]
    assert {m.ns for m in boxes[2:]} == {"unchangeable", "changeable"}
    left = next(m for m in boxes[2:] if m.ns == "unchangeable" and m.color.g > m.color.r)
    right = next(m for m in boxes[2:] if m.ns == "unchangeable" and m.color.r > m.color.g)
    changeable = next(m for m in boxes[2:] if m.ns == "changeable")
    assert changeable.color.a < left.color.a and left.color.a == right.color.a
    assert boxes[0].scale.x == pytest.approx(0.157) and boxes[0].scale.y == pytest.approx(0.088)
    assert plan.steps
    assert probe.wait(lambda: any(s.name == "nao_motion: footstep_planner" for d in probe.diagnostics
                                  for s in d.status), 5.0)
    with probe.cond:
        status = [s for d in probe.diagnostics for s in d.status if s.name == "nao_motion: footstep_planner"][-1]
    values = {kv.key: kv.value for kv in status.values}
    assert {"cycle_time_median_ms", "mode", "steps", "refused_commands", "last_refusal"} <= set(values)
    probe.idle()


def test_almotion_locomotion_methods(running):
    from nao_motion.almotion import ALMotion, ALMotionError

    _, probe = running
    start = probe.idle()
    motion = ALMotion()
    try:
        assert motion.getMoveConfig("Max") == get_move_config("Max")
        with pytest.raises(ALMotionError, match="unknown move config kind"):
            motion.getMoveConfig("Fastest")

        # moveTo blocks until the plan is done; the feet end 0.2 m ahead
        motion.moveTo(0.2, 0.0, 0.0, [["StepHeight", 0.03]])
        steps = motion.getFootSteps()
        assert steps[1] == [] and steps[2] == []
        assert probe.wait(lambda: not probe.plans[-1].steps, 2.0)
        after = probe.latest()
        assert_pose_close(after.robot_position(), (start.robot_position() * Pose2D(0.2, 0.0, 0.0)))
        assert probe.parameter("StepHeight") == pytest.approx(0.03)  # the config reached the node
        with pytest.raises(ALMotionError, match="per-foot keys are only accepted by move and moveToward"):
            motion.moveTo(0.1, 0.0, 0.0, [["LeftStepHeight", 0.03]])
        with pytest.raises(ALMotionError, match="MaxStepX"):
            motion.move(0.1, 0.0, 0.0, [["MaxStepX", 0.5]])
        with pytest.raises(ALMotionError, match="finite numbers"):
            motion.moveTo(math.nan, 0.0, 0.0)

        # move (non-blocking) with a per-foot config in NAOqi's two-list form; getFootSteps and
        # getNextRobotPosition describe the node's plan
        motion.move(0.06, 0.0, 0.0, [[["StepHeight", 0.035]], [["StepHeight", 0.01]]])
        assert motion.moveIsActive()
        # from standing the first step is unchangeable from the cycle after the command on, when
        # the refill adds the other foot's first step
        assert probe.wait(lambda: any(s.unchangeable for s in probe.plans[-1].steps), 2.0)
        assert wait_until(lambda: motion.getFootSteps()[1], 2.0)  # the client has that plan too
        plan = probe.latest()
        assert {s.leg: s.step_height_m for s in plan.steps} == {Leg.LEFT: 0.035, Leg.RIGHT: 0.01}
        assert probe.parameter("StepHeight") == pytest.approx(0.02)  # a call's config replaces the previous
        feet, unchangeable, changeable = motion.getFootSteps()
        assert unchangeable and all(name in ("LLeg", "RLeg") and len(pose) == 3 and t > 0
                                    for name, pose, t in unchangeable + changeable)
        now = FootstepPlan(0, 0, 0, Pose2D(*feet[0]), Pose2D(*feet[1]), ()).robot_position()
        assert Pose2D(*motion.getNextRobotPosition()).relative_to(now).x > 0.005  # the unchangeable steps
        motion.stopMove()
        motion.waitUntilMoveIsFinished()
        assert not motion.moveIsActive()

        # setFootSteps refusals come with the planner's reason, nothing sent
        with pytest.raises(ALMotionError, match="same length"):
            motion.setFootSteps(["LLeg", "RLeg"], [[0.0, 0.1, 0.0]], [0.5], False)
        with pytest.raises(ALMotionError, match="unknown leg name"):
            motion.setFootSteps(["Leg"], [[0.0, 0.1, 0.0]], [0.5], False)

        # the seed's cha-cha, twice, blocking call by call; ends where the core ends. The probe
        # may take a plan after the client did: wait for the one that ended the stopMove.
        assert probe.wait(lambda: probe.plans[-1].accepted_commands > plan.accepted_commands
                          and not probe.plans[-1].steps, 2.0)
        begin = probe.latest()
        core = FootstepPlanner(begin.left, begin.right)
        for _ in range(2):
            for leg, pose in CHA_CHA:
                called = time.monotonic()
                motion.setFootStepsWithSpeed([leg], [pose], [0.8], False)
                assert time.monotonic() - called >= 0.45  # blocking: one step at speed 0.8 lasts 0.456 s
                assert not motion.moveIsActive()
                core.set_foot_steps_with_speed([leg], [pose], [0.8], False)
                core.advance_to(core.steps()[-1].end_s)
        assert probe.wait(lambda: probe.plans[-1].accepted_commands == begin.accepted_commands + 2 * len(CHA_CHA)
                          and not probe.plans[-1].steps, 2.0)
        end = probe.latest()
        assert_pose_close(end.left, core.feet.left, 1e-9, 1e-9)
        assert_pose_close(end.right, core.feet.right, 1e-9, 1e-9)

        # setFootSteps does not block; killMove drops it at once
        motion.setFootSteps(["LLeg", "RLeg"], [[0.04, 0.1, 0.0], [0.04, -0.1, 0.0]], [0.6, 1.2], True)
        assert motion.moveIsActive()
        motion.killMove()
        assert not motion.moveIsActive() and motion.getFootSteps()[1:] == [[], []]
    finally:
        motion.close()
    probe.idle()


def test_almotion_move_to_takes_a_numeric_frequency_and_posted_errors_reach_the_caller(running):
    """Seed 003: ``proxy.post.moveTo(1.0, 0.0, 0.0, 1.0)`` then waitUntilMoveIsFinished / moveIsActive."""
    from nao_motion.almotion import ALMotion, ALMotionError

    _, probe = running
    start = probe.idle()
    client_logs = []  # (level, text) of the client's /rosout
    probe.node.create_subscription(Log, "/rosout", lambda m: m.name == "post_test_client" and probe.add(
        client_logs, (m.level, m.msg)), 100)
    motion = ALMotion(node_name="post_test_client")
    try:
        task = motion.post.moveTo(0.2, 0.0, 0.0, 0.5)
        assert motion.moveIsActive()  # at once: the posted call is the move until it has started
        motion.waitUntilMoveIsFinished()
        assert motion.wait(task, 0) and not motion.moveIsActive()
        with probe.cond:
            plan = next(p for p in probe.plans if p.accepted_commands > start.accepted_commands and p.steps)
        # normalised frequency 0.5: each step halfway between MaxStepPeriod 0.6 s and MinStepPeriod 0.42 s
        assert all(s.end_s - s.start_s == pytest.approx(0.51, abs=1e-6) for s in plan.steps), plan.steps
        goal = start.robot_position() * Pose2D(0.2, 0.0, 0.0)
        # The planner's last plan (robot at the goal) may reach the probe after the client saw the
        # walk end, on a busy machine.
        probe.wait(lambda: pose_close(probe.latest().robot_position(), goal), 5.0)
        assert_pose_close(probe.latest().robot_position(), goal)

        # an error inside a posted call reaches wait(), waitUntilMoveIsFinished() and the log
        task = motion.post.moveTo(0.2, 0.0, 0.0, 1.5)
        with pytest.raises(ALMotionError, match="frequency"):
            motion.wait(task, 0)
        assert "frequency" in str(motion.post.errors[task])
        with pytest.raises(ALMotionError, match="frequency"):
            motion.waitUntilMoveIsFinished()
        motion.waitUntilMoveIsFinished()  # reported once: nothing left to wait for
        assert probe.wait(lambda: any(level == Log.ERROR and "post.moveTo" in m and "frequency" in m
                                      for level, m in client_logs), 5.0)
        assert not probe.latest().steps
    finally:
        motion.close()


# --- ROS 2 conventions: cmd_vel times out, /tf_static only when the plan's frame changes ---------
def feet_together(plan: FootstepPlan) -> bool:
    separation = plan.right.relative_to(plan.left)
    return abs(separation.x) < 1e-9 and abs(separation.y + 0.1) < 1e-9


def timeout_lines(probe) -> int:
    with probe.cond:
        return sum("no cmd_vel for" in line for line in probe.logs)


def test_a_single_cmd_vel_stops_after_the_timeout_and_a_stream_walks_on(running):
    """cmd_vel_timeout_s (0.5 s): one message walks the steps the timeout leaves (the unchangeable
    ones) and stops with the feet together, as a zero twist does, without a command counted;
    a 10 Hz stream walks on past several timeouts and stops once it ends; 0 never times out."""
    _, probe = running
    assert probe.parameter("cmd_vel_timeout_s") == pytest.approx(0.5)
    idle = probe.idle()
    with probe.cond:
        probe.logs.clear()
    once = probe.send("cmd_vel", twist(0.06))
    assert once.steps
    assert probe.wait(lambda: not probe.plans[-1].steps, 5.0), "one cmd_vel walked on"
    stopped = probe.latest()
    assert stopped.accepted_commands == once.accepted_commands  # the planner's own stop
    assert feet_together(stopped) and stopped.robot_position().x > idle.robot_position().x + 0.005  # it stepped
    assert probe.wait(lambda: timeout_lines(probe) == 1, 5.0)

    start = probe.send("cmd_vel", twist(0.06))
    with probe.streaming("cmd_vel", twist(0.06)):
        assert probe.wait(lambda: probe.plans[-1].time_s > start.time_s + 2.5, 10.0)  # five timeouts
        assert probe.latest().steps and timeout_lines(probe) == 1  # not one more
    assert probe.wait(lambda: not probe.plans[-1].steps, 5.0), "the walk went on after its stream ended"
    end = probe.latest()
    assert feet_together(end) and end.robot_position().x > stopped.robot_position().x + 0.1
    assert probe.wait(lambda: timeout_lines(probe) == 2, 5.0)

    assert probe.set_parameters(cmd_vel_timeout_s=0.0).successful
    try:
        walking = probe.send("cmd_vel", twist(0.06))
        assert probe.wait(lambda: probe.plans[-1].time_s > walking.time_s + 1.5, 5.0)
        assert probe.latest().steps  # NAOqi's move: until told otherwise
    finally:
        assert probe.set_parameters(cmd_vel_timeout_s=0.5).successful
    assert probe.wait(lambda: not probe.plans[-1].steps, 5.0), "the timeout did not apply once set again"
    assert not probe.set_parameters(cmd_vel_timeout_s=-1.0).successful


def test_cmd_vel_keepalive_renews_its_own_command_only(running):
    """A keep-alive naming the velocity command keeps its walk going without a command counted,
    and resumes it when it came late (the walk timed out meanwhile); once another command was
    accepted, a keep-alive naming the old one is ignored."""
    _, probe = running
    probe.idle()
    with probe.cond:
        probe.logs.clear()
    walking = probe.send("cmd_vel", twist(0.06))
    command = UInt64(data=walking.accepted_commands)
    with probe.streaming("cmd_vel_keepalive", command):
        assert probe.wait(lambda: probe.plans[-1].time_s > walking.time_s + 2.0, 10.0)  # four timeouts
        renewed = probe.latest()
        assert renewed.steps and renewed.accepted_commands == walking.accepted_commands and timeout_lines(probe) == 0
    assert probe.wait(lambda: timeout_lines(probe) == 1, 5.0), "no timeout once the keep-alives stopped"
    probe.pubs["cmd_vel_keepalive"].publish(command)  # late: the walk goes on
    assert probe.wait(lambda: probe.plans[-1].steps and probe.plans[-1].steps[-1].start_s
                      >= probe.plans[-1].time_s + 0.8 - 1e-9 and timeout_lines(probe) == 1, 5.0)
    assert probe.wait(lambda: timeout_lines(probe) == 2, 5.0)  # and times out again without more

    stop = probe.send("cmd_vel", twist())
    assert stop.accepted_commands == walking.accepted_commands + 1
    assert probe.wait(lambda: not probe.plans[-1].steps, 5.0)
    probe.pubs["cmd_vel_keepalive"].publish(command)  # names a command that is no longer the last
    time.sleep(1.0)
    assert not probe.latest().steps


def test_an_unchanged_plan_frame_is_not_sent_again_on_tf_static(running):
    """Standing, the walk's odometry differs from sample to sample by nanometres (measured in the
    simulator): the planner compares a sample every 0.5 s, and re-sent an unchanged frame each
    time. Now only a change of more than 1 mm / 1 mrad at the robot is sent, once."""
    _, probe = running
    standing = probe.idle().robot_position()
    probe.sense(standing)
    try:
        sent = len(probe.plan_frames())
        assert sent >= 1  # at start-up at least
        compared = probe.odometry_samples()
        end, i = time.monotonic() + 3.0, 0
        while time.monotonic() < end:  # 3 s of odometry jittering by a micrometre and a microradian
            sign = 1.0 if i % 2 else -1.0
            probe.odom_pub.publish(probe.odometry(standing * Pose2D(1e-6 * sign, -1e-6 * sign, 1e-6 * sign)))
            i += 1
            time.sleep(0.05)
        assert probe.wait(lambda: probe.odometry_samples() >= compared + 3, 5.0), "the planner compared no odom"
        assert len(probe.plan_frames()) == sent

        sensed = standing * Pose2D(-0.01, 0.0, 0.0)  # odom has the robot 1 cm behind its plan
        probe.sense(sensed)
        assert probe.wait(lambda: len(probe.plan_frames()) == sent + 1, 5.0), "a changed frame was not sent"
        time.sleep(1.5)
        assert len(probe.plan_frames()) == sent + 1
        frame = probe.plan_frames()[-1].transform.translation
        odom_from_plan = sensed * standing.inverse()
        assert (frame.x, frame.y) == pytest.approx((odom_from_plan.x, odom_from_plan.y), abs=1e-6)
    finally:
        probe.sense(probe.idle().robot_position())  # odom back on the plan


def test_almotion_move_walks_until_told_otherwise_through_the_cmd_vel_timeout(running):
    """NAOqi's move through the client: it renews the command within the planner's timeout
    (cmd_vel_keepalive), so the robot walks on past several timeouts until stopMove (a call the
    planner refuses changes nothing meanwhile); another command (a goal_pose) takes the move over
    and that moveTo walks to its end."""
    from nao_motion.almotion import ALMotion, ALMotionError

    _, probe = running
    start = probe.idle()
    with probe.cond:
        probe.logs.clear()
    with ALMotion(node_name="move_renewal_client") as motion:
        motion.move(0.06, 0.0, 0.0)
        with pytest.raises(ALMotionError, match="refused by the footstep planner"):
            motion.moveToward(1.5, 0.0, 0.0)  # outside [-1, 1]: the planner's refusal
        moved = probe.latest()
        assert probe.wait(lambda: probe.plans[-1].time_s > moved.time_s + 2.5, 10.0)  # five timeouts
        assert motion.moveIsActive() and timeout_lines(probe) == 0
        motion.stopMove()
        motion.waitUntilMoveIsFinished()
        assert not motion.moveIsActive()
        assert probe.wait(lambda: not probe.plans[-1].steps, 2.0)  # (the probe may take it after the client)
        stopped = probe.latest()
        assert feet_together(stopped)
        assert stopped.robot_position().x > start.robot_position().x + 0.1

        motion.moveToward(0.5, 0.0, 0.0)
        assert probe.wait(lambda: probe.plans[-1].time_s > stopped.time_s + 1.0, 5.0)
        target = (probe.latest().robot_position() * Pose2D(0.3, 0.0, 0.0)).normalized()
        probe.pubs["goal_pose"].publish(goal(target.x, target.y, target.theta, frame="footstep_plan"))
        assert probe.wait(lambda: not probe.plans[-1].steps, 15.0), "the moveTo did not end"
        assert_pose_close(probe.latest().robot_position(), target)
        assert wait_until(lambda: not motion.moveIsActive(), 2.0)  # (the client may take the plan after the probe)
    assert timeout_lines(probe) == 0
