"""Simulator node: a simulated NAO (MuJoCo) behind the robot driver's topics.

A thin adapter over :class:`nao_motion.sim.simulator.NaoSimulator`. The node is the clock: it
steps the physics one motion cycle (10 ms V5, 12 ms V6) per tick and publishes sim time on
``/clock``; the other nodes run with ``use_sim_time:=true``. This node itself must not.

Subscriptions
  ``joint_commands`` (sensor_msgs/JointState): ``name`` + ``position`` (rad), optional
      ``velocity`` (rad/s, feed-forward; empty or one per name). Joints not named keep their
      command. Positions are clamped to the joint limits (coupled head/ankle limits included);
      beyond a full turn (2 pi) they are refused.
      RHipYawPitch follows LHipYawPitch (one motor): its entry is ignored when LHipYawPitch is
      in the message and drives the shared motor when it is alone. A message with an unknown
      joint name, duplicate names, a length mismatch or a NaN/inf value is ignored whole
      (throttled warning).
  ``joint_stiffness`` (sensor_msgs/JointState): stiffness 0..1 in the ``effort`` field, one per
      name (values outside 0..1 are clamped). An empty ``name`` list with ONE effort value sets
      every joint. Same validation as joint_commands.
  ``push`` (geometry_msgs/WrenchStamped): a force (N) applied at the torso's centre of mass for
      ``push_duration_s`` seconds of sim time, in the frame ``header.frame_id``: "" or "world"
      (world frame), "torso" or "base_link" (torso frame at the moment the push starts). The
      torque part is ignored. A force beyond ten times the robot's weight is refused.

Publications (stamped with sim time)
  ``joint_states`` (sensor_msgs/JointState): all 26 joints, position (rad), velocity (rad/s),
      effort (motor torque, N m).
  ``imu`` (sensor_msgs/Imu, frame ``torso``): orientation in the world frame, angular velocity
      and linear acceleration (gravity included, as an accelerometer reads it) in the torso
      frame. Covariances all zero (unknown).
  ``fsr/left``, ``fsr/right`` (std_msgs/Float32MultiArray): 4 forces (N), order FL, FR, RL, RR
      (front/rear, left/right in the sole frame); layout dim[0].label "FL,FR,RL,RR".
  ``ground_truth/odom`` (nav_msgs/Odometry): the true torso pose in ``world`` (child frame
      ``torso``), twist in the torso frame.
  ``/clock`` (rosgraph_msgs/Clock), ``/diagnostics`` (cycle time, real-time factor, falls).

With ``interface:=nao_lola`` (V6 only) the joint and sensor topics above are replaced by
nao_lola's (``nao_motion.ros.lola_robot_interface``: ``effectors/joint_positions`` and
``effectors/joint_stiffnesses`` in; ``joint_states``, ``imu``, ``sensors/fsr``,
``sensors/joint_positions``, ``sensors/joint_stiffnesses`` out, stamped with the node's clock),
so that the robot bringup (``nao-motion robot``) drives the simulated V6 as a real one;
``ground_truth/odom``, ``/clock``, ``push`` and ``reset`` stay.

Services
  ``reset`` (std_srvs/Trigger): back to ``initial_posture`` with ``initial_stiffness``; sim time
      goes on (no jump back on /clock).
  ``reset_simulation`` (std_srvs/Trigger): the same, and sim time restarts at 0 (Gazebo's name): the
      clock jumps back, as in a bag replay; the other nodes start their cycle state afresh.

Parameters (``STARTUP_PARAMETERS``, read-only at run time, and ``RUN_TIME_PARAMETERS``: defaults
and ranges there)
  ``nao_version`` (V5/V6), ``physics_step_s`` (0.002; must divide the cycle),
  ``initial_posture`` (a name from nao_motion.postures), ``initial_stiffness`` (1.0),
  ``actuation_delay_cycles`` (0), ``self_collision`` (false), ``interface`` ("nao_motion" or
  "nao_lola"): read at start-up;
  ``real_time_factor`` (1.0 = wall time, 2.0 = twice as fast, 0 = as fast as possible; else in
  [0.01, 100]), ``push_duration_s`` (0.1, in (0, 10]), ``lockstep`` (false: when true the
  simulator steps one cycle per received joint_commands message, so a controller that answers
  every joint_states runs deterministically, at most at ``real_time_factor``; with no command
  for ``lockstep_timeout_s`` of wall time (0.2, in (0, 10]) it steps on the last one, counted as
  missed): changeable at run time.
"""

from __future__ import annotations

import math
import time
from functools import partial

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import WrenchStamped
from nav_msgs.msg import Odometry
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rosgraph_msgs.msg import Clock as ClockMsg
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import Float32MultiArray
from std_srvs.srv import Trigger

from ..gravity import GRAVITY_MPS2
from ..joint_input import MAX_COMMAND_POSITION_RAD, JointInputError, parse_joint_values, parse_stiffness
from ..model import NaoModel
from ..postures import POSTURES
from ..ros.conversions import time_msg
from ..ros.lola_messages import fsr_sides_image
from ..ros.lola_robot_interface import LolaRobotInterface
from ..ros.sampled import SampledSubscription
from ..ros.node_tools import (
    CycleDiagnostics,
    ValidatedParameters,
    THREAD_PRIORITY,
    declare_thread_priority,
    run_node,
    throttled_warning,
)
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.qos import CYCLE_QOS
from ..sim.fsr import FSR_NAMES
from ..sim.simulator import NaoSimulator, SimState, SimulationDiverged

# The timer ticks this many times per motion cycle, and a tick steps at most one cycle: a cycle
# stepped late to catch up with the wall-clock schedule comes a tick after the previous one, not
# right after it, so the controller has a chance to answer the joint_states in between (a real
# robot's cycles never bunch; a simulator's late tick is not the controller's miss).
TICKS_PER_CYCLE = 2
# A cycle is due at a tick that comes up to this fraction of a cycle before its time on the
# schedule (timer jitter), and not at the tick half a cycle earlier.
DUE_TOLERANCE_CYCLES = 0.25
# Further behind than this (paused, overloaded), the schedule restarts from now.
MAX_BEHIND_CYCLES = 5
# The controller has at least this much of a cycle to answer a joint_states before the next step
# counts it missed. On schedule it has a cycle less the physics' step (~0.75); a state published
# late (the simulator's own tick or step came late: a busy machine) would leave it a few
# milliseconds, and the simulator's lateness would be counted as the controller's miss, which a
# real robot's steady cycle never does. The step waits for the next tick instead, and the
# schedule is caught up half a cycle at a time as when the simulator is late.
ANSWER_WINDOW_CYCLES = 0.5
# Missed cycles' times reported per diagnostics publication, at most (the count has them all).
MISSED_TIMES_REPORTED = 100
# Slower than a cycle per second of wall time is a pause, not a simulation (and a timer's period
# of the cycle divided by a tiny factor does not fit in a ROS duration); faster than 100 is more
# than a core steps the physics.
MIN_REAL_TIME_FACTOR, MAX_REAL_TIME_FACTOR = 0.01, 100.0
# A push beyond ten times the robot's weight is not a push but a bug: MuJoCo's integrator blows
# up and resets the world (sim time back to 0).
MAX_PUSH_WEIGHTS = 10.0


def answer_pending(since_state_s: float, commands_since_step: int, commands_started: bool, cycle_s: float) -> bool:
    """Whether the next step waits for the controller: it answers joint_states (commands have
    started), has not answered the last one yet, and has had less than ANSWER_WINDOW_CYCLES of a
    cycle (``cycle_s``, wall time) since it went out ``since_state_s`` ago."""
    return commands_started and commands_since_step == 0 and since_state_s < ANSWER_WINDOW_CYCLES * cycle_s


def cycles_due(scheduled_s: float, stepped_s: float, cycle_s: float) -> int:
    """Cycles due on the wall-clock schedule and not stepped yet, at a tick: ``scheduled_s`` of
    sim time the schedule has reached since it started, ``stepped_s`` stepped since then. 1 at a
    cycle's own tick (a cycle's step makes it), 0 at the tick half a cycle later, more when the
    simulator is late."""
    return math.floor((scheduled_s - stepped_s) / cycle_s + DUE_TOLERANCE_CYCLES)


INTERFACES = ("nao_motion", "nao_lola")  # the topics the simulated robot presents
STARTUP_PARAMETERS = {
    "nao_version": NAO_VERSION,
    "physics_step_s": ParameterSpec(0.002, "MuJoCo's step (s); must divide the motion cycle", minimum=0.0,
                                    maximum=0.005, exclusive_minimum=True, startup=True),
    "initial_posture": ParameterSpec("StandInit", "posture at start-up and reset", choices=tuple(sorted(POSTURES)),
                                     startup=True),
    "initial_stiffness": ParameterSpec(1.0, "stiffness of every joint at start-up and reset", minimum=0.0,
                                       maximum=1.0, startup=True),
    "actuation_delay_cycles": ParameterSpec(0, "cycles between a command's arrival and its effect", minimum=0,
                                            maximum=10, startup=True),
    "self_collision": ParameterSpec(False, "collisions between the robot's own bodies", startup=True),
    "interface": ParameterSpec("nao_motion", "the topics the simulated robot presents (nao_lola: V6 only)",
                               choices=INTERFACES, startup=True),
}
RUN_TIME_PARAMETERS = {
    "real_time_factor": ParameterSpec(1.0, f"sim seconds per wall second (1 = wall time, 0 = as fast as possible, "
                                           f"else at least {MIN_REAL_TIME_FACTOR})", minimum=0.0,
                                      maximum=MAX_REAL_TIME_FACTOR),
    "push_duration_s": ParameterSpec(0.1, "duration (s, sim time) of a force received on `push`", minimum=0.0,
                                     maximum=10.0, exclusive_minimum=True),
    "lockstep": ParameterSpec(False, "step one cycle per joint_commands message"),
    "lockstep_timeout_s": ParameterSpec(0.2, "lockstep: wall time (s) without a command after which the robot steps "
                                             "on its last one", minimum=0.0, maximum=10.0, exclusive_minimum=True),
}

WORLD_FRAMES = ("", "world")
TORSO_FRAMES = ("torso", "base_link")


class SimulatorNode(Node):
    def __init__(self, **kwargs):
        super().__init__("simulator", **kwargs)
        cfg = declare_startup(self, STARTUP_PARAMETERS)
        if cfg["interface"] == "nao_lola" and cfg["nao_version"] != "V6":
            raise ValueError("invalid start-up parameters: interface nao_lola needs nao_version V6 (LoLA is the V6's)")
        declare_thread_priority(self)  # the robot's own cycle runs real time too (LoLA)
        self.model = NaoModel(cfg["nao_version"])
        self.initial_stiffness = float(cfg["initial_stiffness"])
        self.sim = NaoSimulator(
            self.model, physics_step_s=cfg["physics_step_s"], initial_posture=cfg["initial_posture"],
            initial_stiffness=self.initial_stiffness, self_collision=cfg["self_collision"],
            actuation_delay_cycles=cfg["actuation_delay_cycles"],
        )
        self._timer = None
        self._wall_cycle_s = 0.0  # a motion cycle in wall time at real_time_factor (0: as fast as possible)
        self._steady = Clock(clock_type=ClockType.STEADY_TIME)
        self._commands_since_step = 0  # joint_commands received since the last physics cycle
        self._commands_started = False
        self._last_step_wall_s = self._state_sent_wall_s = time.monotonic()
        self.cycles = self.missed_cycles = 0
        self.catch_up_cycles = 0  # cycles stepped a whole cycle or more late, to keep real time
        # When cycles were missed since the last diagnostics (time.monotonic(), the machine's clock):
        # a benchmark tells a late suite from a host that halted it (bench_suite.py).
        self._missed_at_s: list[float] = []
        self._was_fallen = False
        self._rtf_window = (time.monotonic(), self.sim.time_s)
        self.diagnostics = CycleDiagnostics(self, "simulator", self.sim.control_period_s,
                                            fill=self._report_missed_times)

        # Publishers, with messages prepared once.
        self.lola = LolaRobotInterface(self, self.sim) if cfg["interface"] == "nao_lola" else None
        if self.lola is None:
            self.joint_pub = self.create_publisher(JointState, "joint_states", CYCLE_QOS)
            self.imu_pub = self.create_publisher(Imu, "imu", CYCLE_QOS)
            self.fsr_pubs = {side: self.create_publisher(Float32MultiArray, f"fsr/{side}", CYCLE_QOS)
                             for side in ("left", "right")}
            self.fsr_images = {side: fsr_sides_image(FSR_NAMES) for side in ("left", "right")}
        self.odom_pub = self.create_publisher(Odometry, "ground_truth/odom", CYCLE_QOS)
        self.clock_pub = self.create_publisher(ClockMsg, "/clock", 10)
        self.joint_msg = JointState(name=list(self.model.joint_names))
        self.imu_msg = Imu()
        self.imu_msg.header.frame_id = "torso"
        self.odom_msg = Odometry()
        self.odom_msg.header.frame_id = "world"
        self.odom_msg.child_frame_id = "torso"

        # Read at each tick, just before the physics steps: a command that arrived in time is
        # applied even when the tick's timer and the message became ready together (an executor
        # serves timers first), and the simulator does not wake once per command.
        if self.lola is None:
            self.commands = SampledSubscription(self, JointState, "joint_commands", depth=20)
            self.create_subscription(JointState, "joint_stiffness", self.on_joint_stiffness, CYCLE_QOS)
        self.create_subscription(WrenchStamped, "push", self.on_push, 10)
        self.create_service(Trigger, "reset", self.on_reset)
        # Gazebo's reset_simulation: sim time restarts at 0 too (the clock jumps back).
        self.create_service(Trigger, "reset_simulation", partial(self.on_reset, keep_time=False))

        self.params = ValidatedParameters(self, RUN_TIME_PARAMETERS, self._validate, self._apply)
        self.publish_state(self.sim.state)
        self.get_logger().info(
            f"simulated NAO {self.model.version}: cycle {self.sim.control_period_s * 1e3:.0f} ms, physics step "
            f"{self.sim.physics_step_s * 1e3:.1f} ms, posture {cfg['initial_posture']}, "
            f"real_time_factor {self.params.values['real_time_factor']}")

    # --- parameters ---------------------------------------------------------------------------
    def _validate(self, values: dict) -> str | None:
        rtf = values["real_time_factor"]
        if 0.0 < rtf < MIN_REAL_TIME_FACTOR:
            return f"real_time_factor must be 0 (as fast as possible) or >= {MIN_REAL_TIME_FACTOR}, got {rtf!r}"
        if rtf == 0.0 and self.get_parameter(THREAD_PRIORITY).value != 0:
            # Stepping flat out at real-time priority would hold a core from everything else.
            return "real_time_factor 0 (as fast as possible) needs thread_priority 0 (set at start-up)"
        return None

    def _apply(self, values: dict) -> None:
        if self._timer is not None:
            self.destroy_timer(self._timer)
        rtf = values["real_time_factor"]
        period = self._wall_cycle_s = self.sim.control_period_s / rtf if rtf > 0.0 else 0.0
        self.diagnostics.period_s = period if rtf > 0.0 else self.sim.control_period_s
        # Wall-clock (steady) timer: this node makes sim time, it cannot wait on it.
        self._timer = self.create_timer(period / TICKS_PER_CYCLE, self.on_tick, clock=self._steady)
        self._rtf_window = (time.monotonic(), self.sim.time_s)
        self._schedule = (time.monotonic(), self.sim.time_s)

    # --- inputs -----------------------------------------------------------------------------------
    def _parse(self, msg: JointState, field: str, what: str, limit: float | None = None):
        values = list(getattr(msg, field))
        return parse_joint_values(self.model, msg.name, values, unknown_names="reject", what=what, limit=limit)

    def on_joint_commands(self, msg: JointState) -> None:
        try:
            parsed = self._parse(msg, "position", "position", MAX_COMMAND_POSITION_RAD)
            velocities = None
            if len(msg.velocity):
                velocities = self._parse(msg, "velocity", "velocity").values
        except JointInputError as err:
            throttled_warning(self, "joint_commands", f"joint_commands message ignored: {err}")
            return
        names = [self.model.joint_names[i] for i in parsed.indices]
        self.sim.set_joint_commands(names, parsed.values, velocities)
        self._commands_since_step += 1
        self._commands_started = True

    def on_joint_stiffness(self, msg: JointState) -> None:
        try:
            parsed = parse_stiffness(self.model, msg.name, msg.effort)
        except JointInputError as err:
            throttled_warning(self, "joint_stiffness", f"joint_stiffness message ignored: {err}")
            return
        if np.any((parsed.values < 0.0) | (parsed.values > 1.0)):
            throttled_warning(self, "stiffness_range", "stiffness outside 0..1 clamped")
        self.sim.set_joint_stiffness([self.model.joint_names[i] for i in parsed.indices], parsed.values)

    def on_push(self, msg: WrenchStamped) -> None:
        f = msg.wrench.force
        force = np.array([f.x, f.y, f.z])
        frame = msg.header.frame_id
        max_force_n = MAX_PUSH_WEIGHTS * self.model.total_mass_kg * GRAVITY_MPS2
        if not np.all(np.isfinite(force)) or np.linalg.norm(force) > max_force_n:
            throttled_warning(self, "push", f"push ignored: the force must be finite and at most {max_force_n:.0f} N "
                                            f"({MAX_PUSH_WEIGHTS:g} times the robot's weight)")
            return
        if frame in WORLD_FRAMES:
            frame = "world"
        elif frame in TORSO_FRAMES:
            frame = "torso"
        else:
            throttled_warning(self, "push", f"push ignored: frame_id must be one of {WORLD_FRAMES + TORSO_FRAMES}, "
                                            f"got {frame!r}")
            return
        duration = self.params.values["push_duration_s"]
        self.sim.push(force, duration, frame)
        self.get_logger().info(
            f"push {force.round(2).tolist()} N ({frame}) for {duration} s at t = {self.sim.time_s:.3f} s")

    def on_reset(self, request, response, keep_time: bool = True):
        state = self.sim.reset(None, self.initial_stiffness, keep_time=keep_time)
        self._schedule = self._rtf_window = (time.monotonic(), state.time_s)
        self._was_fallen = False
        self._commands_since_step = 0
        self._commands_started = False
        self.diagnostics.set_status(DiagnosticStatus.OK, "ok")
        self.publish_state(state)
        response.success = True
        response.message = f"reset to {self.sim.initial_posture} at sim time {state.time_s:.3f} s"
        return response

    # --- cycle ------------------------------------------------------------------------------------
    def on_tick(self) -> None:
        if self.lola is None:
            for msg in self.commands.take_all():
                self.on_joint_commands(msg)
        elif self.lola.take_commands():
            self._commands_since_step += 1
            self._commands_started = True
        if self.params.values["lockstep"]:
            # The controller's answer steps the robot, a cycle (at real_time_factor) after the last
            # step at the earliest. Without one for lockstep_timeout_s (no controller yet, or one
            # that stalled) the robot steps on its last command, as a real one would: a controller
            # that missed a joint_states would otherwise stop the world.
            waited_s = time.monotonic() - self._last_step_wall_s
            if waited_s < (1.0 - DUE_TOLERANCE_CYCLES) * self._wall_cycle_s:
                return
            if self._commands_since_step == 0 and waited_s < self.params.values["lockstep_timeout_s"]:
                return
            self._step_once()
            return
        rtf = self.params.values["real_time_factor"]
        if rtf > 0.0:
            wall0, sim0 = self._schedule
            behind = cycles_due(rtf * (time.monotonic() - wall0), self.sim.time_s - sim0,
                                self.sim.control_period_s)
            if behind < 1 or answer_pending(time.monotonic() - self._state_sent_wall_s, self._commands_since_step,
                                            self._commands_started, self._wall_cycle_s):
                return
            if behind > MAX_BEHIND_CYCLES:
                self._schedule = (time.monotonic(), self.sim.time_s)
            elif behind > 1:
                self.catch_up_cycles += 1
        self._step_once()

    def _step_once(self) -> None:
        start = self.diagnostics.start()
        # A cycle stepped with no command since the last one: the controller's answer to the
        # last joint_states came late (or not at all), and the robot ran on a stale command.
        self.cycles += 1
        if self._commands_started and self._commands_since_step == 0:
            self.missed_cycles += 1
            if len(self._missed_at_s) < MISSED_TIMES_REPORTED:
                self._missed_at_s.append(time.monotonic())
        self._commands_since_step = 0
        self._last_step_wall_s = time.monotonic()
        try:
            state = self.sim.step()
        except SimulationDiverged as err:
            self.get_logger().error(f"{err}: resetting")
            state = self.sim.reset(None, self.initial_stiffness, keep_time=True)
        self.publish_state(state)
        self._state_sent_wall_s = time.monotonic()
        self._watch_falls(state)
        self.diagnostics.record(start)
        self._update_rtf()

    def _report_missed_times(self) -> None:
        """The cycles, the missed ones and when, counted up to this publication: the count and
        the times of one message agree (counted at the real-time factor's update, the count
        lagged the times by up to half a second, and a demo read 0 missed cycles of which 1
        came during a vCPU halt)."""
        values = self.diagnostics.values
        values["cycles"], values["missed_cycles"] = str(self.cycles), str(self.missed_cycles)
        values["missed_cycles_at_monotonic_s"] = " ".join(f"{t:.3f}" for t in self._missed_at_s)
        self._missed_at_s.clear()

    def _watch_falls(self, state: SimState) -> None:
        if state.fallen and not self._was_fallen:
            self.get_logger().warning(
                f"the robot fell at t = {state.time_s:.2f} s (tilt {np.rad2deg(state.torso_tilt_rad):.0f} deg, "
                f"torso height {state.torso_position[2]:.3f} m); call the reset service to stand it up")
            self.diagnostics.set_status(DiagnosticStatus.WARN, "fallen")
        elif not state.fallen and self._was_fallen:
            self.diagnostics.set_status(DiagnosticStatus.OK, "ok")
        self._was_fallen = state.fallen

    def _update_rtf(self) -> None:
        wall0, sim0 = self._rtf_window
        wall = time.monotonic()
        if wall - wall0 >= 0.5:
            rtf = (self.sim.time_s - sim0) / (wall - wall0)
            self._rtf_window = (wall, self.sim.time_s)
            self.diagnostics.values.update({
                "real_time_factor": f"{rtf:.2f}",
                "real_time_factor_target": str(self.params.values["real_time_factor"]),
                "sim_time_s": f"{self.sim.time_s:.3f}",
                "falls": str(self.sim.falls),
                "catch_up_cycles": str(self.catch_up_cycles),
                "fallen": str(self.sim.fallen),
            })

    def publish_state(self, s: SimState) -> None:
        stamp = time_msg(s.time_s)
        self.clock_pub.publish(ClockMsg(clock=stamp))
        if self.lola is not None:
            self.lola.publish(s)
        else:
            self._publish_sensors(s, stamp)
        self._publish_ground_truth(s, stamp)

    def _publish_sensors(self, s: SimState, stamp) -> None:
        # joint_states last: the nodes run their cycle on it and read the other sensors' newest
        # sample then, which is this cycle's only if it was sent before (published after it, the
        # IMU of the cycle before was read about one cycle in eight).
        imu = self.imu_msg
        imu.header.stamp = stamp
        o = s.imu_orientation_xyzw
        imu.orientation.x, imu.orientation.y, imu.orientation.z, imu.orientation.w = o.tolist()
        w, a = s.imu_angular_velocity, s.imu_linear_acceleration
        imu.angular_velocity.x, imu.angular_velocity.y, imu.angular_velocity.z = w.tolist()
        imu.linear_acceleration.x, imu.linear_acceleration.y, imu.linear_acceleration.z = a.tolist()
        self.imu_pub.publish(imu)

        for side, forces in (("left", s.fsr_left), ("right", s.fsr_right)):
            image = self.fsr_images[side]
            image.values[:] = forces
            image.publish(self.fsr_pubs[side])

        j = self.joint_msg
        j.header.stamp = stamp
        j.position, j.velocity, j.effort = s.position.tolist(), s.velocity.tolist(), s.effort.tolist()
        self.joint_pub.publish(j)

    def _publish_ground_truth(self, s: SimState, stamp) -> None:
        odom = self.odom_msg
        odom.header.stamp = stamp
        p, q = s.torso_position, s.torso_orientation_xyzw
        pose = odom.pose.pose
        pose.position.x, pose.position.y, pose.position.z = p.tolist()
        pose.orientation.x, pose.orientation.y, pose.orientation.z, pose.orientation.w = q.tolist()
        v, w = s.torso_linear_velocity_local, s.torso_angular_velocity_local
        odom.twist.twist.linear.x, odom.twist.twist.linear.y, odom.twist.twist.linear.z = v.tolist()
        odom.twist.twist.angular.x, odom.twist.twist.angular.y, odom.twist.twist.angular.z = w.tolist()
        self.odom_pub.publish(odom)


def main(args=None) -> None:
    run_node(SimulatorNode, args)


if __name__ == "__main__":
    main()
