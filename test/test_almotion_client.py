"""The ALMotion client's world frame and robot positions against exact values: the test's node
plays the suite's side (joint_states, joint_commands, the walk's odom, the imu, the planner's
footsteps/plan) with chosen values, no node process needed."""

import math
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from ros_probe import SpinningProbe  # noqa: E402

from nav_msgs.msg import Odometry  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

from nao_motion import spatial  # noqa: E402
from nao_motion.footsteps import FootstepPlanner, Pose2D  # noqa: E402
from nao_motion.kinematics import FRAME_ROBOT, FRAME_TORSO, FRAME_WORLD, ForwardKinematics  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.postures import posture  # noqa: E402
from nao_motion.ros.footstep_messages import encode_plan, plan_of  # noqa: E402
from nao_motion.ros.qos import CYCLE_QOS, LATCHED_QOS  # noqa: E402

MODEL = NaoModel()
FK = ForwardKinematics(MODEL)
SENSED = posture(MODEL, "StandInit")
SENSED[MODEL.joint_index("HeadYaw")] = 0.3
COMMANDED = SENSED.copy()
COMMANDED[MODEL.joint_index("HeadYaw")] = -0.2
ODOM = Pose2D(1.0, 0.5, 0.7)  # the walk's measured base_footprint in odom
PLANNED = Pose2D(0.9, 0.45, 0.6)  # the planner's robot position (planted feet)
ATTITUDE = spatial.rot_z(2.0) @ spatial.rot_y(0.08) @ spatial.rot_x(-0.05)  # the imu's (yaw ignored)


def planted_plan():
    """A plan whose planted feet are at PLANNED, walking 0.3 m ahead, its first steps unchangeable."""
    left, right = PLANNED * Pose2D(0.0, 0.05, 0.0), PLANNED * Pose2D(0.0, -0.05, 0.0)
    planner = FootstepPlanner(left, right, now_s=10.0)
    planner.move_to(0.3, 0.0, 0.0)
    planner.advance_to(10.5)
    feet = planner.feet
    return plan_of(planner.now_s, 1, 0, feet.left, feet.right, planner.steps(), len(planner.unchangeable_steps()))


class Suite(SpinningProbe):
    def __init__(self, imu: bool):
        super().__init__("almotion_suite_side")
        node = self.node
        pubs = {"states": node.create_publisher(JointState, "joint_states", CYCLE_QOS),
                "commands": node.create_publisher(JointState, "joint_commands", CYCLE_QOS),
                "odom": node.create_publisher(Odometry, "odom", 10)}
        if imu:
            pubs["imu"] = node.create_publisher(Imu, "imu", CYCLE_QOS)
        self.pubs = pubs
        self.plan = planted_plan()
        node.create_publisher(Float64MultiArray, "footsteps/plan", LATCHED_QOS).publish(encode_plan(self.plan))
        node.create_timer(0.01, self.publish)
        self.start()

    def publish(self):
        self.pubs["states"].publish(JointState(name=list(MODEL.joint_names), position=SENSED.tolist()))
        self.pubs["commands"].publish(JointState(name=list(MODEL.joint_names), position=COMMANDED.tolist()))
        odom = Odometry()
        odom.header.frame_id, odom.child_frame_id = "odom", "base_footprint"
        odom.pose.pose.position.x, odom.pose.pose.position.y = ODOM.x, ODOM.y
        odom.pose.pose.orientation.z, odom.pose.pose.orientation.w = math.sin(ODOM.theta / 2), math.cos(ODOM.theta / 2)
        self.pubs["odom"].publish(odom)
        if "imu" in self.pubs:
            msg = Imu()
            o = msg.orientation
            o.x, o.y, o.z, o.w = spatial.quaternion_xyzw_from_rotation(ATTITUDE).tolist()
            self.pubs["imu"].publish(msg)


@pytest.fixture(params=[True, False], ids=["imu", "no_imu"])
def client(request):
    rclpy.init()
    suite = Suite(imu=request.param)
    try:
        from nao_motion.almotion import ALMotion

        with ALMotion("V5", node_name="world_frame_client") as motion:
            motion.getAngles("Body", True)  # the first joint_states
            time.sleep(0.5)  # every stream and the plan received
            yield motion, request.param, suite.plan
    finally:
        suite.close()
        rclpy.shutdown()


def test_frame_world_follows_the_odometry_and_the_measured_attitude(client):
    motion, imu, plan = client
    attitude = ATTITUDE if imu else None
    sensed, commanded = FK.compute(SENSED), FK.compute(COMMANDED)
    # Measured: the walk's base_footprint (torso yaw) in odom, turned to FRAME_ROBOT (feet yaw).
    footprint_from_robot = (spatial.inverse(FK.ground_frame(sensed, attitude, yaw_from="torso"))
                            @ FK.ground_frame(sensed, attitude, yaw_from="feet"))
    world_from_robot = {True: ODOM.to_transform() @ footprint_from_robot, False: plan.robot_position().to_transform()}
    for use_sensors, state in ((True, sensed), (False, commanded)):
        level = attitude if use_sensors else None
        for name in ("CameraTop", "RArm", "LLeg", "Torso"):
            in_robot = FK.transform_in_space(state, name, FRAME_ROBOT, torso_attitude=level)
            np.testing.assert_allclose(np.reshape(motion.getTransform(name, FRAME_ROBOT, use_sensors), (4, 4)),
                                       in_robot, atol=1e-9)
            np.testing.assert_allclose(np.reshape(motion.getTransform(name, FRAME_WORLD, use_sensors), (4, 4)),
                                       world_from_robot[use_sensors] @ in_robot, atol=1e-9)
            np.testing.assert_allclose(motion.getPosition(name, FRAME_WORLD, use_sensors),
                                       spatial.position6d_from_transform(world_from_robot[use_sensors] @ in_robot),
                                       atol=1e-9)
        world_from_torso = world_from_robot[use_sensors] @ spatial.inverse(FK.ground_frame(state, level))
        np.testing.assert_allclose(motion.getCOM("Body", FRAME_WORLD, use_sensors),
                                   world_from_torso[:3, :3] @ state.com_torso_m + world_from_torso[:3, 3], atol=1e-9)
        np.testing.assert_allclose(motion.getCOM("Body", FRAME_TORSO, use_sensors), state.com_torso_m, atol=1e-12)
    # The world frame differs from the robot frame by the odometry: after a walk the answers differ.
    torso_world = np.reshape(motion.getTransform("Torso", FRAME_WORLD, True), (4, 4))
    torso_robot = np.reshape(motion.getTransform("Torso", FRAME_ROBOT, True), (4, 4))
    assert np.linalg.norm(torso_world[:2, 3] - torso_robot[:2, 3]) > 1.0
    if imu:  # the measured attitude: the torso leans as the imu says, whatever the legs
        assert torso_world[2, 2] == pytest.approx(ATTITUDE[2, 2], abs=1e-9)


def test_robot_positions_with_and_without_sensors(client):
    motion, imu, plan = client
    sensed_robot = Pose2D.from_transform(
        ODOM.to_transform() @ spatial.inverse(FK.ground_frame(FK.compute(SENSED), ATTITUDE if imu else None,
                                                           yaw_from="torso"))
        @ FK.ground_frame(FK.compute(SENSED), ATTITUDE if imu else None, yaw_from="feet"))
    np.testing.assert_allclose(motion.getRobotPosition(True), sensed_robot.as_list(), atol=1e-9)
    np.testing.assert_allclose(motion.getRobotPosition(False), plan.robot_position().as_list(), atol=1e-9)
    planned_next = plan.next_robot_position()
    np.testing.assert_allclose(motion.getNextRobotPosition(False), planned_next.as_list(), atol=1e-9)
    # With sensors: the measured robot position moved by what the unchangeable steps still do.
    ahead = planned_next.relative_to(plan.robot_position())
    assert ahead.x > 0.01
    np.testing.assert_allclose(motion.getNextRobotPosition(True), (sensed_robot * ahead).as_list(), atol=1e-9)


@pytest.fixture
def ros_context():
    rclpy.init()
    yield
    rclpy.shutdown()


def test_the_client_learns_the_robot_from_the_running_suite(ros_context):
    """NAOqi's proxy talks to the robot it is on: without a nao_version, the client asks the suite
    (a suite node's nao_version parameter; here a node named as the suite's kinematics node)."""
    from rclpy.parameter import Parameter

    from nao_motion.almotion import ALMotion

    suite = SpinningProbe("kinematics", parameter_overrides=[Parameter("nao_version", value="V6")],
                          automatically_declare_parameters_from_overrides=True)
    suite.start()
    try:
        with ALMotion(node_name="version_client", timeout_s=10.0) as motion:
            assert motion.model.version == "V6"
            assert motion.model.cycle_time_s == pytest.approx(0.012)
    finally:
        suite.close()


def test_without_a_suite_the_client_says_so_or_takes_the_version_it_is_given(ros_context):
    from nao_motion.almotion import ALMotion, ALMotionError

    start = time.monotonic()
    with pytest.raises(ALMotionError, match="told its nao_version within 1.0 s: is the suite up"):
        ALMotion(node_name="lonely_client", timeout_s=1.0)
    assert time.monotonic() - start < 5.0
    with ALMotion("V6", node_name="told_client", timeout_s=1.0) as motion:
        assert motion.model.version == "V6"
