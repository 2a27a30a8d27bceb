"""Kinematics node: joint states in; /tf, /tf_static, robot_description, centre of mass out.

Publication follows the joint_states stamps, as the suite's other nodes follow the robot's
message: each valid message is merged, and the one whose stamp has reached the next publication
time publishes (stamped with its stamp), at most ``publish_frequency`` times per second of the
stamps' clock (robot_state_publisher's parameter, 50 Hz by default: rviz and TF lookups need no
more, and /tf is the suite's largest message). The next publication time is the last one plus
the period (a tenth of a period early is on time: stamps jitter and round), or the stamp plus
the period after a gap; the stamps going back (a simulator's reset_simulation, a bag replayed)
restart it. So the rate is the robot's, whatever the load of the machine: a timer on the node's
clock skipped the periods an executor ran late for. An unstamped message (stamp 0) takes the
node's clock. Between publications a message is only merged. ``imu`` is a sampled subscription
(``nao_motion.ros.sampled``), read at publication. Input handling (also in the README):
- a message with mismatched name/position lengths, duplicate names or a NaN/infinite
  position of a NAO joint is dropped whole (throttled warning), nothing is published from it;
- names that are not NAO joints are ignored (throttled warning), the rest is used;
- joints missing from a message keep their last received value; nothing is published until
  every kinematic joint (RHipYawPitch excepted: it follows LHipYawPitch) has been received once;
- stale input (no valid message for `stale_timeout_s`, checked every 0.1 s): publication stops,
  a warning is logged and the diagnostics turn WARN, so TF consumers see old data as old rather
  than as current.
"""

from __future__ import annotations

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PointStamped
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import String

from ..joint_input import quoted
from ..kinematics import ForwardKinematics
from ..model import NaoModel
from ..ros.cdr import ImuReader, JointStateReader, MessageImage
from ..ros.conversions import IMU_ORIENTATION_ERROR, transform_stamped
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
        self.state = self.fk.new_state()  # refilled at each publication
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
        self.complete = False  # every required joint received once
        self.fresh = False  # a valid joint_states since the last stale check
        self.last_valid_s = None  # the node's clock, when the stale check saw `fresh`
        self.torso_attitude = None
        self.imu_time_s = None  # the stamps' clock
        self.stale = False
        # Publication times on the stamps' clock, in integer nanoseconds (exact at any epoch).
        self.period_ns = round(1e9 / self.params.values["publish_frequency"])
        self.early_ns = self.period_ns // 10
        self.next_ns = None  # None: the next valid message publishes
        self.clock_watch = ClockWatch(self, "the IMU's reading dropped, publication restarts from the new stamps")

        self.tf = TfPublisher(self)
        self.description_pub = self.create_publisher(String, "robot_description", LATCHED_QOS)
        self.description_pub.publish(String(data=generate_urdf(self.model)))
        self.com_pub = self.create_publisher(PointStamped, "com", CYCLE_QOS)
        # Every message merged, in order (CYCLE_QOS keeps 10: a partial message is not lost behind
        # the next one, and a hiccup's backlog drains at once, each costing only its merge).
        # Composed (suite_node.share_joint_states), the process's one subscription (LATEST_QOS)
        # serves it instead.
        self.create_subscription(JointState, "joint_states", self.on_joint_states, CYCLE_QOS, raw=True)
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
        com = PointStamped()
        com.header.frame_id = "torso"
        self.com_image = MessageImage(com, ["point"], ["header.stamp"])
        self.diagnostics = CycleDiagnostics(self, "kinematics", 1.0 / self.params.values["publish_frequency"],
                                            holding="the last valid pose stays published")
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

    def _read_imu(self, now_s: float) -> None:
        data = self.imu.take_latest()
        if data is None:
            return
        attitude = self.imu_reader.read(data)[0]
        if attitude is None:
            if not self.imu_reader.no_orientation:
                throttled_warning(self, "imu", IMU_ORIENTATION_ERROR)
                self.diagnostics.refused("imu", IMU_ORIENTATION_ERROR)
            return
        self.torso_attitude = attitude
        self.imu_time_s = now_s

    def check_stale(self) -> None:
        """Every 0.1 s: a valid joint_states since the last check is dated here (no clock read per
        message), so staleness is noticed within 0.1 s of `stale_timeout_s`."""
        now_s = self._now_s()
        if self.fresh:
            self.fresh = False
            self.last_valid_s = now_s
            return
        timeout = self.params.values["stale_timeout_s"]
        if self.last_valid_s is not None and now_s - self.last_valid_s > timeout and not self.stale:
            self.stale = True
            self.get_logger().warning(f"joint_states stale (> {timeout} s): TF publication paused")
            self.diagnostics.set_status(DiagnosticStatus.WARN, "joint_states stale")

    def on_joint_states(self, data: bytes) -> None:
        """Merge the message; publish if its stamp has reached the next publication time."""
        stamp = merge_joint_state(self, "joint_states", self.joint_reader, data, self.q, self.received,
                                  self.diagnostics)
        if stamp is None:
            return
        if self.joint_reader.ignored_names:
            throttled_warning(self, "unknown",
                              f"ignoring unknown joints in joint_states: {quoted(self.joint_reader.ignored_names)}")
        self.fresh = True
        stamp_ns = stamp.sec * 1_000_000_000 + stamp.nanosec
        if stamp_ns <= 0:  # an unstamped driver: the node's clock
            stamp = self._now()
            stamp_ns = stamp.sec * 1_000_000_000 + stamp.nanosec
        if self.clock_watch.went_back(stamp_ns * 1e-9):
            self.imu_time_s = None  # read on the old clock: it would look fresh for as long as the jump
            self.next_ns = None
        if self.next_ns is not None and stamp_ns < self.next_ns - self.early_ns:
            return  # between publications: merged only
        if not self.complete:
            if not np.all(self.received[self.required]):
                missing = [n for n, r, req in zip(self.model.joint_names, self.received, self.required)
                           if req and not r]
                throttled_warning(self, "missing", f"waiting for joints before publishing TF: {missing}")
                return
            self.complete = True
        start = self.diagnostics.start()
        # On the grid of publication times; restarted from the stamp after a gap.
        next_ns = stamp_ns if self.next_ns is None else self.next_ns
        next_ns += self.period_ns
        self.next_ns = next_ns if next_ns > stamp_ns else stamp_ns + self.period_ns
        if self.stale:
            self.stale = False
            self.diagnostics.set_status(DiagnosticStatus.OK, "ok")
        self._publish(stamp, stamp_ns * 1e-9)
        self.diagnostics.record(start)

    def _publish(self, stamp, now_s: float) -> None:
        """Publish the transforms and centre of mass of the merged joint state at ``stamp``
        (``now_s``: its seconds)."""
        state = self.fk.compute(self.q, out=self.state)
        n = len(self.fk.joint_names)
        image = self.joints_image
        if self.params.values["publish_base_footprint"]:
            self._read_imu(now_s)
            imu_ok = (self.params.values["use_imu"] and self.imu_time_s is not None
                      and now_s - self.imu_time_s <= self.params.values["stale_timeout_s"])
            footprint = inverse(self.fk.ground_frame(state, self.torso_attitude if imu_ok else None,
                                                     yaw_from="torso"))
            image = self.with_footprint_image
            image.values[n, :3] = footprint[:3, 3]
            image.values[n, 3:] = quaternion_xyzw_from_rotation(footprint[:3, :3])
        image.values[:n, :3] = state.joint_local_poses[:, :3, 3]
        image.values[:n, 3:] = state.joint_local_quaternions(self.fk.axes_local)
        image.set_stamp(stamp)
        self.tf.send(image)
        self.com_image.set_floats(state.com_torso_m)
        self.com_image.set_stamp(stamp.sec, stamp.nanosec)
        self.com_image.publish(self.com_pub)


def main(args=None) -> None:
    run_node(KinematicsNode, args)


if __name__ == "__main__":
    main()
