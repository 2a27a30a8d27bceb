"""Kinematics node: joint states in; /tf, /tf_static, robot_description, centre of mass out.

Publication runs at ``publish_frequency`` (robot_state_publisher's parameter, 50 Hz by default:
rviz and TF lookups need no more, and /tf is the suite's largest message) from the newest valid
joint_states received since the last publication, stamped with its stamp; joint_states and imu
are sampled subscriptions (``nao_motion.ros.sampled``), read at publication. Input handling
(also in the README):
- a message with mismatched name/position lengths, duplicate names or a NaN/infinite
  position of a NAO joint is dropped whole (throttled warning), nothing is published from it;
- names that are not NAO joints are ignored (throttled warning), the rest is used;
- joints missing from a message keep their last received value; nothing is published until
  every kinematic joint (RHipYawPitch excepted: it follows LHipYawPitch) has been received once;
- stale input (no valid message for `stale_timeout_s`): publication stops, a warning is logged
  and the diagnostics turn WARN, so TF consumers see old data as old rather than as current.
"""

from __future__ import annotations

import time

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PointStamped
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import String

from ..joint_input import quoted
from ..kinematics import ForwardKinematics
from ..model import NaoModel
from ..ros.cdr import ImuReader, JointStateReader
from ..ros.conversions import IMU_ORIENTATION_ERROR, stamp_seconds, transform_stamped
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.node_tools import (
    ClockWatch,
    CycleDiagnostics,
    TfPublisher,
    ValidatedParameters,
    merge_joint_state,
    run_node,
    throttled_warning,
)
from ..ros.qos import CYCLE_QOS, LATCHED_QOS
from ..ros.sampled import SampledSubscription
from ..spatial import inverse, quaternion_xyzw_from_rotation
from ..urdf import generate_urdf


class KinematicsNode(Node):
    def __init__(self, **kwargs):
        super().__init__("kinematics", **kwargs)
        version = declare_startup(self, {"nao_version": NAO_VERSION})["nao_version"]
        self.model = NaoModel(version)
        self.fk = ForwardKinematics(self.model)
        self.params = ValidatedParameters(self, {
            "stale_timeout_s": ParameterSpec(0.5, "stop publishing when no valid joint_states for this long (s)",
                                             minimum=0.0, maximum=60.0, exclusive_minimum=True),
            "use_imu": ParameterSpec(True, "take the vertical for base_footprint from imu (else: the lower sole "
                                           "is flat)"),
            "publish_base_footprint": ParameterSpec(True, "publish base_footprint -> base_link (REP-120)"),
            "publish_frequency": ParameterSpec(50.0, "most /tf and com publications per second (Hz): at most "
                                                     "one per joint_states", minimum=0.0, maximum=1000.0,
                                               exclusive_minimum=True, startup=True),
        }, None, lambda values: None)
        n = self.model.n_joints
        self.q = np.zeros(n)
        self.received = np.zeros(n, dtype=bool)
        self.required = np.array([j in self.fk.joint_names and j != "RHipYawPitch" for j in self.model.joint_names])
        self.stamp = None
        self.last_valid_s = None
        self.torso_attitude = None
        self.imu_time_s = None
        self.stale = False
        self.clock_watch = ClockWatch(self, "the IMU's reading dropped")

        self.tf = TfPublisher(self)
        self.description_pub = self.create_publisher(String, "robot_description", LATCHED_QOS)
        self.description_pub.publish(String(data=generate_urdf(self.model)))
        self.com_pub = self.create_publisher(PointStamped, "com", CYCLE_QOS)
        # Read at each publication: every message since the last one is merged, in order.
        self.joint_states = SampledSubscription(self, JointState, "joint_states", depth=50, raw=True)
        self.joint_reader = JointStateReader(self.model)
        # Only the newest attitude matters, read when the joints arrive: no wake-up per message.
        self.imu = SampledSubscription(self, Imu, "imu", raw=True)
        self.imu_reader = ImuReader()
        self._publish_static()

        # Prepared once; each cycle only fills the numbers in.
        joint_transforms = [
            transform_stamped(self.model.parent_link(j), self.model.joint(j).child_link, np.eye(4), self._now())
            for j in self.fk.joint_names
        ]
        footprint = transform_stamped("base_footprint", "base_link", np.eye(4), self._now())
        self.joints_image = self.tf.image(joint_transforms)
        self.with_footprint_image = self.tf.image(joint_transforms + [footprint])
        self.com_msg = PointStamped()
        self.com_msg.header.frame_id = "torso"
        self.diagnostics = CycleDiagnostics(self, "kinematics", 1.0 / self.params.values["publish_frequency"],
                                            holding="the last valid pose stays published")
        self.create_timer(1.0 / self.params.values["publish_frequency"], self.on_cycle)
        self.create_timer(0.1, self.check_stale)
        self.get_logger().info(
            f"kinematics for NAO {version}: {len(self.fk.frame_names())} frames")

    def _now(self):
        return self.get_clock().now().to_msg()

    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _publish_static(self) -> None:
        stamp = self._now()
        transforms = [transform_stamped("base_link", "torso", np.eye(4), stamp)]
        transforms += [
            transform_stamped(f.parent_link, f.name, f.transform, stamp)
            for f in self.model.fixed_frames() if f.name != "base_link"
        ]
        self.tf.send_static(transforms)

    def _merge_joint_states(self) -> bool:
        """Merge the joint_states received since the last call; True if one of them was valid."""
        valid = False
        for msg in self.joint_states.take_all():
            valid = self._merge(msg) or valid
        return valid

    def _merge(self, data: bytes) -> bool:
        stamp = merge_joint_state(self, "joint_states", self.joint_reader, data, self.q, self.received,
                                  self.diagnostics)
        if stamp is None:
            return False
        if self.joint_reader.ignored_names:
            throttled_warning(self, "unknown",
                              f"ignoring unknown joints in joint_states: {quoted(self.joint_reader.ignored_names)}")
        self.stamp = stamp if stamp_seconds(stamp) > 0.0 else self._now()
        self.last_valid_s = self._now_s()
        return True

    def _read_imu(self) -> None:
        data = self.imu.take_latest()
        if data is None:
            return
        attitude = self.imu_reader.read(data)[0]
        if attitude is None:
            if not self.imu_reader.no_orientation:
                throttled_warning(self, "imu", IMU_ORIENTATION_ERROR)
            return
        self.torso_attitude = attitude
        self.imu_time_s = self._now_s()

    def check_stale(self) -> None:
        timeout = self.params.values["stale_timeout_s"]
        if self.last_valid_s is not None and self._now_s() - self.last_valid_s > timeout and not self.stale:
            self.stale = True
            self.get_logger().warning(f"joint_states stale (> {timeout} s): TF publication paused")
            self.diagnostics.set_status(DiagnosticStatus.WARN, "joint_states stale")

    def on_cycle(self) -> None:
        """Publish the transforms and centre of mass of the newest valid joint state, if one came."""
        start = time.perf_counter()
        if self.clock_watch.went_back(self._now_s()):
            self.imu_time_s = None  # read on the old clock: it would look fresh for as long as the jump
        if not self._merge_joint_states():
            return
        if not np.all(self.received[self.required]):
            missing = [n for n, r, req in zip(self.model.joint_names, self.received, self.required) if req and not r]
            throttled_warning(self, "missing", f"waiting for joints before publishing TF: {missing}")
            return
        if self.stale:
            self.stale = False
            self.diagnostics.set_status(DiagnosticStatus.OK, "ok")
        self._publish(self.last_valid_s)
        self.diagnostics.record(time.perf_counter() - start)

    def _publish(self, now_s: float) -> None:
        state = self.fk.compute(self.q)
        n = len(self.fk.joint_names)
        image = self.joints_image
        if self.params.values["publish_base_footprint"]:
            self._read_imu()
            imu_ok = (self.params.values["use_imu"] and self.imu_time_s is not None
                      and now_s - self.imu_time_s <= self.params.values["stale_timeout_s"])
            footprint = inverse(self.fk.ground_frame(state, self.torso_attitude if imu_ok else None,
                                                     yaw_from="torso"))
            image = self.with_footprint_image
            image.values[n, :3] = footprint[:3, 3]
            image.values[n, 3:] = quaternion_xyzw_from_rotation(footprint[:3, :3])
        image.values[:n, :3] = state.joint_local_poses[:, :3, 3]
        image.values[:n, 3:] = state.joint_local_quaternions(self.fk.axes_local)
        image.set_stamp(self.stamp)
        self.tf.send(image)
        self.com_msg.header.stamp = self.stamp
        self.com_msg.point.x, self.com_msg.point.y, self.com_msg.point.z = state.com_torso_m.tolist()
        self.com_pub.publish(self.com_msg)


def main(args=None) -> None:
    run_node(KinematicsNode, args)


if __name__ == "__main__":
    main()
