"""NAOqi's FRAME_WORLD and robot positions: the world frame is fixed on the floor where the robot
started and follows its odometry. In this suite that floor frame is ``odom`` (the walk's sensed
odometry, which starts in the footstep planner's frame: its planted feet start at its origin);
without sensors it is the planner's own frame (``footstep_plan``, the command odometry), which
parts from ``odom`` as the robot drifts from its plan (as NAOqi's two odometries do).

* With sensors (``useSensorValues`` / ``useSensors`` True): the robot frame (FRAME_ROBOT) is
  placed in ``odom`` by the walk node's odometry (``odom``: base_footprint, the torso's yaw,
  turned to the feet's mean yaw), and the vertical is the IMU's measured attitude (``imu``):
  the torso leans as the robot does. Without an ``imu`` publisher, the lower sole is taken flat.
* Without sensors: the robot frame is the planner's robot position (the commanded planted feet,
  ``footsteps/plan``), the vertical the lower sole of the commanded pose.
* FRAME_WORLD with no ``odom`` (or ``footsteps/plan``) publisher, i.e. no walk node (or planner)
  in the graph: the robot cannot have walked, FRAME_WORLD is FRAME_ROBOT (logged once).

The streams are read when a call asks (``SampledSubscription``), the last value kept.
"""

from __future__ import annotations

import time

import numpy as np
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu

from .. import spatial
from ..footsteps import Pose2D
from ..kinematics import KinematicState
from ..ros.conversions import imu_attitude
from ..ros.sampled import SampledSubscription
from .client_base import ALMotionError


class WorldFrameMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._odometry = SampledSubscription(self.node, Odometry, "odom")  # 100 Hz: read when asked
        self._imu = SampledSubscription(self.node, Imu, "imu")
        self._footprint_odom: Pose2D | None = None
        self._attitude: np.ndarray | None = None
        self._warned: set[bool] = set()  # use_sensors values whose FRAME_WORLD fell back

    def _measured_attitude(self) -> np.ndarray | None:
        """The torso's rotation in a gravity-aligned frame from ``imu`` (None: no imu publisher)."""
        msg = self._latest(self._imu, "imu", kept=self._attitude is not None)
        if msg is not None:
            o = msg.orientation
            attitude = imu_attitude((o.x, o.y, o.z, o.w))
            if attitude is not None:
                self._attitude = attitude
        return self._attitude

    def _world_from_robot(self, use_sensors: bool, state: KinematicState,
                         attitude: np.ndarray | None, required: bool = True) -> np.ndarray | None:
        """FRAME_ROBOT in FRAME_WORLD (4x4) for the pose ``state`` (and the ``attitude`` its
        robot frame was computed with). Without the stream it needs: ALMotionError if
        ``required``, else None."""
        if not use_sensors:
            if not required and self._footstep_plan is None and not self._present("footsteps/plan"):
                return None
            return self._loco_plan().robot_position().to_transform()
        msg = self._latest(self._odometry, "odom", kept=self._footprint_odom is not None)
        if msg is not None:
            p, q = msg.pose.pose.position, msg.pose.pose.orientation
            yaw = spatial.yaw_of(spatial.transform(spatial.rotation_from_quaternion_xyzw([q.x, q.y, q.z, q.w])))
            self._footprint_odom = Pose2D(p.x, p.y, yaw)
        if self._footprint_odom is None:
            if required:
                raise ALMotionError("no odom received: is the walk node running?")
            return None
        footprint_from_robot = (spatial.inverse(self.fk.ground_frame(state, attitude, yaw_from="torso"))
                                @ self.fk.ground_frame(state, attitude, yaw_from="feet"))
        return self._footprint_odom.to_transform() @ footprint_from_robot

    def _robot_position(self, use_sensors: bool) -> Pose2D:
        """NAOqi's robot position: FRAME_ROBOT's (x, y, theta) in FRAME_WORLD."""
        if not use_sensors:
            return self._loco_plan().robot_position()
        state = self.fk.compute(self._configuration(True))
        return Pose2D.from_transform(self._world_from_robot(True, state, self._measured_attitude()))

    def _world_or_robot(self, use_sensors: bool, state: KinematicState,
                       attitude: np.ndarray | None) -> np.ndarray | None:
        """_world_from_robot for FRAME_WORLD; None (FRAME_WORLD is FRAME_ROBOT, logged once) when
        nobody publishes what it needs: the robot cannot have walked."""
        world = self._world_from_robot(use_sensors, state, attitude, required=False)
        if world is None and use_sensors not in self._warned:
            self._warned.add(use_sensors)
            source = "odom (walk node)" if use_sensors else "footsteps/plan (footstep planner)"
            self.node.get_logger().warning(f"FRAME_WORLD is FRAME_ROBOT: nobody publishes {source}")
        return world

    # --- plumbing -----------------------------------------------------------------------
    def _latest(self, subscription: SampledSubscription, topic: str, kept: bool):
        """The newest message since the last call; with none and no value ``kept``, the first
        one (waited for up to the timeout) if the topic has a publisher, else None."""
        msg = subscription.take_latest()
        if msg is not None or kept or not self._present(topic):
            return msg
        deadline = time.monotonic() + self.timeout_s
        while msg is None and time.monotonic() < deadline:
            time.sleep(0.005)
            msg = subscription.take_latest()
        return msg
