"""The walk on the simulated NAO in one process, without ROS: the suite's walk chain built from
exactly the objects its nodes call (for tests, benchmarks and notebooks).

Each cycle at the simulator's time t, as the nodes do on a ``joint_states`` message stamped t:
the footstep planner advanced to t and its plan, when it changed, converted as the walk node
converts ``footsteps/plan`` (``walk_plan``) -> ``WalkController.cycle`` (the walk node's core)
and its ``joint_targets`` (the arm swing's shoulders, moveInit's posture) parsed as the collision
filter node parses them, for ``CollisionFilterCycle`` (the collision filter node's core: the wish,
the avoidance; a motion starts from the whole body's command where the walk moved a joint),
whose command of the cycle (the targets of the cycle before sampled) goes to
``WholeBodyCycle.cycle`` (the whole-body node's core: balancer + ankle damping) -> one physics
cycle. A killMove the controller asks for is the planner's ``kill_move``; while it cannot start
the plan yet (its initialization movement, a plan that came too late) the planner holds the
plan (``hold_start``, as the planner node on ``walk/hold_start``); while it holds a lift-off the
planner holds its steps at its next cycle (``walk/hold_step``). The balancer is disabled, as
the suite starts it (wbEnable(False): pass-through while not walking), unless
``balancer_enabled``.

What the controller reads is what the walk node receives: the simulated joint positions, IMU
orientation and gyro, FSR totals and joint stiffness of the current physics state (with
``imu_orientation=False``, nao_lola's IMU on a V6: no orientation, and the gyro's mean over
the cycle, as the simulator's nao_lola interface publishes it, for the walk and the whole body), and the whole body's torso
pose and (damped) command of the previous cycle, as over DDS, where the whole-body node
publishes them after its cycle and the walk node reads them at the next ``joint_states``. The
controller computes the references for a later cycle (``reference_time_s``, as the walk node
sends them ahead); the whole-body cycle takes the ones stamped for this cycle through the
whole-body node's ``WalkReferenceQueue``, and this cycle's gyro. Declared obstacles
(``obstacles``, an ObstacleSet, as the nodes' ``obstacles`` topic fills theirs) are placed in each
core's torso frame every cycle as the nodes place them (``ObstacleInput``: torso or a robot frame,
by the FK of that core's command). The collision filter's command
reaches the whole body in the same cycle (over DDS, composed, one later); the transport's own
jitter is not in this chain.

The planner's odometry starts as the balancer's world frame: the robot stands (StandInit,
settled on the floor; every node starts from the measured pose) at the planner's feet, so
``odom`` and ``wb_world`` coincide until the walk turns them apart (heading correction).

    walk = SimulatedWalk(NaoModel("V5"))
    walk.move_to(1.0, 0.0, 0.0)                  # or walk.planner.move(...), ... (FootstepPlanner)
    walk.finish()
    walk.true_moved(), walk.planned_moved()   # ground truth vs odometry
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import mujoco
import numpy as np

from .. import spatial
from ..collision.filter_cycle import CollisionFilterCycle
from ..collision.obstacles import ObstacleSet, ObstacleSlots
from ..collision.reference import parse_targets
from ..footsteps import FootstepPlanner, FootstepPlannerCycle, Pose2D
from ..model import NaoModel
from ..walk import ARM_SWING_JOINTS
from ..walk.controller import WalkController, WalkInputs, WalkOutputs, walk_plan
from ..wholebody.balancer import BalancerResult, WholeBodySettings
from ..wholebody.cycle import WholeBodyCycle
from ..wholebody.fall_detector import up_from_acceleration, up_from_quaternion_xyzw
from ..wholebody.reference_queue import DEFAULT_REFERENCE_TIMEOUT_S, WalkReferenceQueue
from .mjcf import sole_frame_name
from .simulator import NaoSimulator

SETTLE_CYCLES = 50  # the robot settles on the floor before the walk starts


class SimulatedWalk:
    """A standing simulated NAO and the walk chain driving it."""

    def __init__(self, model: NaoModel, sim: NaoSimulator | None = None, balancer_enabled: bool = False,
                 imu_orientation: bool = True):
        self.model = model
        self.sim = sim or NaoSimulator(model)
        self.imu_orientation = imu_orientation
        self.state = self.sim.step(SETTLE_CYCLES)
        self.whole_body = WholeBodyCycle(model)
        self.balancer = b = self.whole_body.balancer
        self.whole_body.start(self.state.position)
        b.apply(WholeBodySettings())
        if balancer_enabled:
            b.set_enabled(True, q_measured=self.state.position, torso_attitude=self._imu_attitude())
        self.filter = CollisionFilterCycle(model)
        self.filter.start(self.state.position)
        self.obstacles = ObstacleSet()  # declared obstacles: torso or robot frames
        self._obstacle_state = b.fk.new_state()
        fk_state = b.fk.compute(b.q)
        left, right = (b.torso_world @ b.fk.pose(fk_state, sole) for sole in ("l_sole", "r_sole"))
        # The planner node's core: the planner, its frame against the walk's odometry, moveTo's
        # closing steps (``move_to`` goes through it; ``planner`` is its FootstepPlanner).
        self.planner_cycle = FootstepPlannerCycle(FootstepPlanner(Pose2D.from_transform(left), Pose2D.from_transform(right)))
        self.planner = self.planner_cycle.planner
        self._odometry_s = 0.0  # the stamp of the walk's last odometry (its measurements')
        self._plan_key: tuple | None = None
        self.controller = WalkController(model)
        c = self.controller
        # The walk node's joint_targets messages, as it prepares them.
        self._init_names = [model.joint_names[j] for j in c.init_indices]
        self._arm_names = {arms: [ARM_SWING_JOINTS[a] for a in arms] for arms in ((0, 1), (0,), (1,))}
        self.inputs = i = WalkInputs.for_model(model)
        # The whole body's outputs as the walk node last received them: its command and torso.
        i.q_commanded[:] = b.q
        i.commanded_received[:] = True
        i.torso_world[:] = b.torso_world
        i.torso_s = 0.0
        self.command = self.whole_body.command
        self.walk_outputs: WalkOutputs = self.controller.outputs
        self.references = WalkReferenceQueue()  # the walk's references, for the cycles they are for
        self.time_s = 0.0
        self.chain_time_s = 0.0  # wall time of the last cycle's walk controller + whole-body cycle
        self.worst_tilt_deg = 0.0
        self.start_torso = self._true_torso()

    def _true_torso(self) -> np.ndarray:
        return spatial.transform(spatial.rotation_from_quaternion_xyzw(self.state.torso_orientation_xyzw),
                                 self.state.torso_position)

    def _imu_attitude(self) -> np.ndarray:
        return spatial.rotation_from_quaternion_xyzw(self.state.imu_orientation_xyzw)

    def _up(self) -> tuple[float, float, float] | None:
        """The vertical in the torso frame, as the whole-body node takes it from the IMU."""
        if self.imu_orientation:
            return up_from_quaternion_xyzw(*self.state.imu_orientation_xyzw.tolist())
        return up_from_acceleration(*self.state.imu_linear_acceleration.tolist())

    def _gyro(self) -> np.ndarray:
        """The gyro as the simulator's interface in use publishes it."""
        return self.state.imu_angular_velocity if self.imu_orientation else self.state.imu_angular_velocity_mean

    def _sense(self) -> None:
        """The physics state as the walk node receives it at time_s (joint_states, imu, fsr)."""
        i, s, t = self.inputs, self.state, self.time_s
        i.time_s = self.controller.reference_time_s(t)
        i.states_s = i.gyro_s = t
        i.q_measured[:] = s.position
        i.q_received[:] = True
        i.gyro_rad_s[:] = self._gyro()
        if self.imu_orientation:
            i.imu_s = t
            i.imu_attitude[:] = self._imu_attitude()
        i.fsr_total_n[:] = (float(np.sum(s.fsr_left)), float(np.sum(s.fsr_right)))
        i.fsr_s[:] = t
        i.stiffness[:] = s.stiffness
        i.fallen = self.whole_body.fall.fallen  # robot_has_fallen, as of the last cycle

    def _publish_plan(self) -> None:
        """The planner node's cycle (its odometry: the walk's of the last cycle, as over DDS) and
        its footsteps/plan, sent when its steps or feet changed."""
        planner, core = self.planner, self.planner_cycle
        core.hear_walk_hold_step(self.walk_outputs.hold_step, planner.now_s)  # said at the last cycle
        core.advance_to(self.time_s)
        odometry = self.walk_outputs.odometry
        if odometry is not None and core.wants_odometry:
            core.observe(odometry, self._odometry_s)
        steps, feet = planner.steps(), planner.feet
        key = (len(steps), steps[0] if steps else None, steps[-1] if steps else None, feet.left, feet.right)
        if self._plan_key is None or any(a is not b for a, b in zip(key, self._plan_key)):
            self._plan_key = key
            self.inputs.plan = walk_plan(planner.now_s, feet.left, feet.right, steps)

    def move_to(self, x_m: float, y_m: float, theta_rad: float, move_config=None) -> None:
        """moveTo, as the planner node takes a goal: closed on through the sensed odometry."""
        self.planner_cycle.move_to(x_m, y_m, theta_rad, move_config)

    def send_joint_targets(self, names: Sequence[str], positions_rad: Sequence[float],
                           speeds_radps: Sequence[float] = (), speed_fraction: float = 0.3,
                           yields: bool = False) -> float:
        """A ``joint_targets`` message (a user's posture, the walk's) to the collision filter now,
        as its node takes it (``yields``: framed as the arm swing); returns the motion's duration (s)."""
        targets = parse_targets(self.model, names, positions_rad, speeds_radps, speed_fraction)
        return self.filter.move_to(targets, self.time_s, self.inputs.q_commanded, yields=yields)

    def cycle(self) -> BalancerResult:
        """One motion cycle: the chain's command, then one physics cycle; the balancer's result."""
        start = time.perf_counter()
        self._publish_plan()
        self._sense()
        t = self.time_s
        # The collision filter's command of this cycle: the walk's joint_targets of the last cycle
        # have reached it (over DDS too, a cycle before they are sampled).
        if len(self.obstacles) or self.filter.avoidance.obstacles.count:
            if self._place_obstacles(self.filter.avoidance.obstacles, self.filter.command):
                self.filter.wake()  # as the node: an obstacle came, went or moved
        self.filter.cycle(t, self.state.stiffness, self.state.position)
        c = self.controller
        out = c.cycle(self.inputs)
        self._odometry_s = t
        if out.kill_move:
            self.planner_cycle.kill_move()
        if out.state.holds_start:
            self.planner.hold_start()
        # The walk node's joint_targets, as the collision filter node takes them: from the robot's
        # command (the whole body's, last cycle's) where the walk moved a joint.
        if out.move_init:
            self.send_joint_targets(self._init_names, c.init_q[c.init_indices], c.init_speeds_radps[c.init_indices])
        if out.arm_swing_arms:
            arms = out.arm_swing_arms
            self.send_joint_targets(self._arm_names[arms], out.arm_swing_rad[list(arms)],
                                    [c.walk_config.arms.max_rate_radps] * len(arms), yields=True)
        # The references just computed are for a later cycle (the walk node sends them ahead);
        # this cycle takes the ones stamped for it, through the whole-body node's own queue.
        if out.reference is not None:
            self.references.set_support(out.reference.support)
            self.references.add_com(out.time_s, out.reference.com_world_m)
            self.references.add_feet(out.time_s, out.reference.left_sole_world, out.reference.right_sole_world)
            self.references.add_torso_tilt(out.time_s, out.reference.torso_tilt_rad)
        reference = self.references.select(self.time_s, DEFAULT_REFERENCE_TIMEOUT_S)
        if len(self.obstacles) or self.balancer.obstacles.count:
            self._place_obstacles(self.balancer.obstacles, self.balancer.q)
        command = self.whole_body.cycle(self.filter.command, reference, self.state.position, self._gyro(),
                                        self._up())
        result = self.whole_body.result
        # What the walk node will have at the next joint_states: this cycle's command and torso.
        i = self.inputs
        np.copyto(i.q_commanded, command)
        np.copyto(i.torso_world, result.torso_world)
        i.torso_s = self.time_s
        self.chain_time_s = time.perf_counter() - start
        self.sim.set_command(command)
        self.state = self.sim.step()
        self.time_s += self.model.cycle_time_s
        self.worst_tilt_deg = max(self.worst_tilt_deg, math.degrees(self.state.torso_tilt_rad))
        return result

    def _place_obstacles(self, slots: ObstacleSlots, q_command: np.ndarray) -> bool:
        """The declared obstacles into a core's `slots` (its torso frame at its command, as the
        nodes' ObstacleInput places them; no TF here: torso and robot frames only); whether they
        changed."""
        fk, state = self.balancer.fk, self._obstacle_state
        fk.compute(q_command, out=state)
        before = slots.packed.copy()
        self.obstacles.in_torso(lambda frame: np.eye(4) if frame == "torso" else
                                fk.pose(state, frame) if fk.has_frame(frame) else None, slots)
        return not np.array_equal(before, slots.packed)

    def true_footprint(self) -> Pose2D:
        """The simulator's ground truth of REP-120 base_footprint in its world: the midpoint of the
        true soles, the true torso's yaw (what ``odom`` estimates)."""
        m, d = self.sim.mj_model, self.sim.mj_data
        left, right = (d.site_xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, sole_frame_name(side))]
                       for side in ("left", "right"))
        yaw = spatial.yaw_of(spatial.rotation_from_quaternion_xyzw(self.state.torso_orientation_xyzw))
        return Pose2D(0.5 * float(left[0] + right[0]), 0.5 * float(left[1] + right[1]), yaw)

    def true_moved(self) -> Pose2D:
        """How far the true torso moved: (x, y) in the start torso's heading frame, and its turn."""
        start, now = self.start_torso, self._true_torso()
        heading = spatial.rot_z(spatial.yaw_of(start))  # start heading, level
        xy = (heading.T @ (now[:3, 3] - start[:3, 3]))[:2]
        return Pose2D(float(xy[0]), float(xy[1]), spatial.yaw_of(spatial.inverse(start) @ now))

    def planned_moved(self) -> Pose2D:
        """The planner's robot position: the odometry, started at the robot's pose (0, 0, 0)."""
        return self.planner.get_robot_position()

    def odometry(self) -> Pose2D | None:
        """The controller's odometry (base_footprint in odom, from the measured joints), as ``odom``."""
        return self.walk_outputs.odometry
