"""The robot side of nao_lola's topics, for the simulator (``interface:=nao_lola``): the simulated
NAO V6 seen through the same names, message types and rate (one message each per 12 ms cycle)
as a real one through ros-sports' nao_lola_client, so that the robot bringup drives it exactly
as it would drive the real robot.

Published per cycle, stamped with the node's clock as nao_lola stamps them (``now()``), in
nao_lola's order (every ``sensors/*`` and ``imu`` first, ``joint_states`` last):
``joint_states`` (sensor_msgs/JointState: LoLA's 25 joint names, positions only; no
RHipYawPitch), ``imu`` (sensor_msgs/Imu, frame ``ImuTorsoAccelerometer_frame``: angular velocity
and linear acceleration; no orientation, ``orientation_covariance[0]`` = -1, as nao_lola; the
angular velocity is the mean over the cycle's physics steps, as the V6's IMU filters its output
to the packet rate, not one sample aliasing the footfalls' jolts), and
``sensors/fsr``, ``sensors/joint_positions``, ``sensors/joint_stiffnesses`` (nao_lola_sensor_msgs).
nao_lola's other ``sensors/*`` topics (buttons, sonar, battery...) are not simulated.

Taken at each cycle (nao_lola keeps the newest): ``effectors/joint_positions`` and
``effectors/joint_stiffnesses`` (nao_lola_command_msgs). A message whose arrays differ in length
is ignored, as nao_lola 1.2.0 ignores it; one with an index outside 0..24, a repeated index or a
non-finite value is ignored too (LoLA would pass it to the motors); stiffness is clamped to 0..1.
"""

from __future__ import annotations

import numpy as np
from nao_lola_command_msgs.msg import JointPositions as CommandPositions
from nao_lola_command_msgs.msg import JointStiffnesses as CommandStiffnesses
from nao_lola_sensor_msgs.msg import FSR, JointPositions, JointStiffnesses
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState

from ..lola.joint_indexes import LOLA_JOINT_COUNT, LOLA_JOINT_NAMES, LolaJointMap
from ..sim.simulator import NaoSimulator, SimState
from .cdr import MessageImage
from .lola_messages import Float32TailImage, float_markers
from .node_tools import throttled_warning
from .sampled import SampledSubscription

IMU_FRAME = "ImuTorsoAccelerometer_frame"  # nao_lola's
IMU_FLOATS = ["angular_velocity", "linear_acceleration"]
NAO_LOLA_DEPTH = 10  # nao_lola's publishers' history depth (its subscriptions keep 1)


class LolaRobotInterface:
    def __init__(self, node: Node, sim: NaoSimulator):
        self.node, self.sim = node, sim
        self.joints = LolaJointMap(sim.model)
        self.lola_values = np.zeros(LOLA_JOINT_COUNT)
        self.joint_states_pub = node.create_publisher(JointState, "joint_states", NAO_LOLA_DEPTH)
        self.imu_pub = node.create_publisher(Imu, "imu", NAO_LOLA_DEPTH)
        self.fsr_pub = node.create_publisher(FSR, "sensors/fsr", NAO_LOLA_DEPTH)
        self.positions_pub = node.create_publisher(JointPositions, "sensors/joint_positions", NAO_LOLA_DEPTH)
        self.stiffnesses_pub = node.create_publisher(JointStiffnesses, "sensors/joint_stiffnesses", NAO_LOLA_DEPTH)
        markers = float_markers(LOLA_JOINT_COUNT)
        self.joint_states_image = MessageImage(
            JointState(name=list(LOLA_JOINT_NAMES), position=markers), ["position"], ["header.stamp"])
        imu = Imu()
        imu.header.frame_id = IMU_FRAME
        imu.orientation.w = 0.0  # no orientation: all zero, covariance[0] = -1
        imu.orientation_covariance[0] = -1.0
        self.imu_image = MessageImage(imu, IMU_FLOATS, ["header.stamp"])
        self.imu_values = np.zeros(6)
        fsr = FSR(**dict(zip(FSR.get_fields_and_field_types(), float_markers(8))))
        self.fsr_image = Float32TailImage(fsr, float_markers(8))
        self.positions_image = Float32TailImage(JointPositions(positions=markers), markers)
        self.stiffnesses_image = Float32TailImage(JointStiffnesses(stiffnesses=markers), markers)
        self.commands = SampledSubscription(node, CommandPositions, "effectors/joint_positions", depth=1)
        self.stiffnesses = SampledSubscription(node, CommandStiffnesses, "effectors/joint_stiffnesses", depth=1)

    def take_commands(self) -> bool:
        """Apply the newest position and stiffness commands; True if a position command came."""
        stiffness = self.stiffnesses.take_latest()
        if stiffness is not None and (parsed := self._parse(stiffness, "stiffnesses")) is not None:
            names, values = parsed
            self.sim.set_joint_stiffness(names, np.clip(values, 0.0, 1.0))
        command = self.commands.take_latest()
        if command is None:
            return False
        parsed = self._parse(command, "positions")
        if parsed is not None:
            self.sim.set_joint_commands(*parsed)
        return True

    def _parse(self, msg, field: str) -> tuple[list[str], np.ndarray] | None:
        indexes = bytes(msg.indexes)
        values = np.asarray(getattr(msg, field), dtype=float)
        topic = f"effectors/joint_{field}"
        reason = None
        if len(indexes) != len(values):
            reason = f"{len(indexes)} indexes but {len(values)} {field}"
        elif any(i >= LOLA_JOINT_COUNT for i in indexes):
            reason = f"index outside 0..{LOLA_JOINT_COUNT - 1}"
        elif len(set(indexes)) != len(indexes):
            reason = "repeated index"
        elif not np.all(np.isfinite(values)):
            reason = f"non-finite {field}"
        if reason is not None:
            throttled_warning(self.node, topic, f"{topic} ignored: {reason}")
            return None
        return [LOLA_JOINT_NAMES[i] for i in indexes], values

    def publish(self, state: SimState) -> None:
        # joint_states last, as nao_lola publishes it after every sensors/* (and as the simulator's
        # own interface does): the suite runs its cycle on it and reads the newest imu and FSRs
        # then, which are this cycle's only if they were sent before.
        stamp = self.node.get_clock().now().to_msg()  # nao_lola stamps with its clock, not LoLA's
        self.imu_values[:3], self.imu_values[3:] = state.imu_angular_velocity_mean, state.imu_linear_acceleration
        self.imu_image.set_floats(self.imu_values)
        self.imu_image.set_stamp(stamp.sec, stamp.nanosec)
        self.imu_image.publish(self.imu_pub)
        self.fsr_image.values[:4], self.fsr_image.values[4:] = state.fsr_left, state.fsr_right
        self.fsr_image.publish(self.fsr_pub)
        self.stiffnesses_image.values[:] = self.joints.to_lola(state.stiffness, self.lola_values)
        self.stiffnesses_image.publish(self.stiffnesses_pub)
        self.joints.to_lola(state.position, self.lola_values)
        self.positions_image.values[:] = self.lola_values
        self.positions_image.publish(self.positions_pub)
        self.joint_states_image.set_floats(self.lola_values)
        self.joint_states_image.set_stamp(stamp.sec, stamp.nanosec)
        self.joint_states_image.publish(self.joint_states_pub)
