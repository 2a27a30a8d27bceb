"""The walk on the simulated NAO in one process, without ROS: what the suite's nodes do each
cycle, chained directly (for tests, benchmarks and notebooks).

Each cycle, as the footstep planner, walk and whole-body nodes do: the planner advanced to t ->
heading correction (IMU yaw against the balancer's torso yaw) -> pattern generator (its arm
swing added to the standing wish) -> whole-body balancer (measured joints fed back) -> walk
stabiliser (IMU gyro) -> one physics cycle. The planner's odometry is the balancer's world frame,
which starts where the robot stands (StandInit, settled on the floor).

    walk = SimulatedWalk(NaoModel("V5"))
    walk.planner.move_to(1.0, 0.0, 0.0)
    walk.finish()
    walk.true_moved(), walk.planned_moved()   # ground truth vs odometry
"""

from __future__ import annotations

import math
import time

import numpy as np

from .. import spatial
from ..footsteps import FootstepPlanner, Pose2D
from ..model import NaoModel
from ..walk import ARM_SWING_JOINTS, HeadingCorrection, WalkPatternGenerator, WalkStabilizer, balancer_reference
from ..wholebody.balancer import BalancerResult, WholeBodyBalancer, WholeBodySettings
from .simulator import NaoSimulator

SETTLE_CYCLES = 50  # the robot settles on the floor before the walk starts


class SimulatedWalk:
    """A standing simulated NAO and the walk chain driving it."""

    def __init__(self, model: NaoModel, sim: NaoSimulator | None = None):
        self.model = model
        self.sim = sim or NaoSimulator(model)
        self.state = self.sim.step(SETTLE_CYCLES)
        self.balancer = b = WholeBodyBalancer(model)
        b.reset(self.state.position)
        b.apply(WholeBodySettings())
        b.set_enabled(True, q_measured=self.state.position,
                      torso_attitude=spatial.rotation_from_quaternion_xyzw(self.state.imu_orientation_xyzw))
        self.stand = b.q.copy()
        self.wish = b.q.copy()
        self.shoulders = [model.joint_index(j) for j in ARM_SWING_JOINTS]
        fk_state = b.fk.compute(b.q)
        left, right = (b.torso_world @ b.fk.pose(fk_state, sole) for sole in ("l_sole", "r_sole"))
        self.planner = FootstepPlanner(Pose2D.from_transform(left),
                                       Pose2D.from_transform(right))
        self.generator = WalkPatternGenerator.for_model(model)
        self.stabilizer = WalkStabilizer(model)
        # The balancer's torso for the joints measured now: the last command's model.
        self.model_torso = b.torso_world.copy()
        self.heading = HeadingCorrection(self.generator.config.phases)
        self.heading.reset(self.planner.feet, self._imu_yaw(), spatial.yaw_of(self.model_torso))
        self.command = np.zeros(model.n_joints)
        self.time_s = 0.0
        self.chain_time_s = 0.0  # wall time of the last cycle's walk + balancer + stabiliser
        self.worst_tilt_deg = 0.0
        self.start_torso = self._true_torso()

    def _true_torso(self) -> np.ndarray:
        return spatial.transform(spatial.rotation_from_quaternion_xyzw(self.state.torso_orientation_xyzw),
                                 self.state.torso_position)

    def _imu_yaw(self) -> float:
        return spatial.yaw_of(spatial.rotation_from_quaternion_xyzw(self.state.imu_orientation_xyzw))

    def cycle(self) -> BalancerResult:
        """One motion cycle: the chain's command, then one physics cycle; the balancer's result."""
        start = time.perf_counter()
        self.planner.advance_to(self.time_s)
        steps, feet = self.heading.update(self.time_s, self.planner.steps(), self.planner.feet,
                                          self._imu_yaw(), spatial.yaw_of(self.model_torso))
        out = self.generator.step(self.time_s, steps, feet)
        np.copyto(self.wish, self.stand)
        self.wish[self.shoulders] += out.arm_offsets_rad
        result = self.balancer.step(self.wish, balancer_reference(out), q_measured=self.state.position)
        np.copyto(self.command, result.q)
        np.copyto(self.model_torso, result.torso_world)
        self.stabilizer.apply(self.command, self.state.imu_angular_velocity, out.support)
        self.chain_time_s = time.perf_counter() - start
        self.sim.set_command(self.command)
        self.state = self.sim.step()
        self.time_s += self.model.cycle_time_s
        self.worst_tilt_deg = max(self.worst_tilt_deg, math.degrees(self.state.torso_tilt_rad))
        return result

    def true_moved(self) -> Pose2D:
        """How far the true torso moved: (x, y) in the start torso's heading frame, and its turn."""
        start, now = self.start_torso, self._true_torso()
        heading = spatial.rot_z(spatial.yaw_of(start))  # start heading, level
        xy = (heading.T @ (now[:3, 3] - start[:3, 3]))[:2]
        return Pose2D(float(xy[0]), float(xy[1]), spatial.yaw_of(spatial.inverse(start) @ now))

    def planned_moved(self) -> Pose2D:
        """The planner's robot position: the odometry, started at the robot's pose (0, 0, 0)."""
        return self.planner.get_robot_position()
