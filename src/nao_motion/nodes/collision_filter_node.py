"""Collision filter node: joint targets and trajectories in, self-collision-free joint commands out.

Decode -> :class:`nao_motion.collision.filter_cycle.CollisionFilterCycle` (the wish per cycle,
NAOqi's avoidance QP, resting) -> publish. Its cycle runs on each ``joint_states`` message (the
robot's motion cycle): it samples the wish at the node's clock (``use_sim_time`` is followed),
filters it and publishes the command. Once the command has settled (no motion under way, no limp
joint, the same command two cycles running) it rests: no QP, the command repeated every 0.5 s,
until a target, a trajectory, a stiffness, an obstacle or a parameter change wakes it.

Subscriptions
  ``joint_targets`` (sensor_msgs/JointState): target ``position`` per named joint, reached in a
      straight line in joint space, all joints arriving together; ``velocity`` empty (speed =
      ``max_speed_fraction`` x each joint's maximum) or one speed in rad/s per name (capped at the
      maximum; the ALMotion client sends fractionMaxSpeed this way).
  ``joint_trajectory`` (trajectory_msgs/JointTrajectory): points interpolated at the cycle rate from
      the current command (at rest): linearly, or along the cubic through the points' positions
      and velocities when every point gives one velocity per joint (rad/s, capped at the joint's
      maximum; as ros2_control's joint_trajectory_controller); ``header.stamp`` zero = start now,
      else start then.
  ``joint_states`` (sensor_msgs/JointState): measured positions. Nothing is commanded before every
      kinematic joint has been measured once; the first command is the measured pose (no jump);
      limp joints follow it.
  ``collision_filter/robot_commands`` (sensor_msgs/JointState, the newest read when a motion of
      a joint no motion drives starts): the command the robot last got. In the full suite this is the whole-body node's
      ``joint_commands``: a walk or the balancer moves joints away from the filter's command, and
      a new target or trajectory for a joint no motion of the filter drives starts from where
      the robot's command is, not from where the filter left it (no jump back). Alone, nothing
      publishes it and motions start from the filter's own command.
  ``joint_stiffness`` (sensor_msgs/JointState): stiffness 0..1 in ``effort`` (the simulator's
      convention: an empty ``name`` list with one value sets every joint; values outside 0..1
      are clamped). Until a message arrives every joint counts as stiff (stiffness 1).
  ``obstacles`` (visualization_msgs/MarkerArray): obstacles outside the body, as rviz markers
      (SPHERE, CYLINDER; ns + id identify one; DELETE, DELETEALL; any TF frame; ``lifetime``):
      the arms keep ``margin_m`` from them (``nao_motion.ros.obstacle_input``).
  A malformed command (no names or points, unknown or duplicate joints, NaN/inf, lengths that do
  not match, trajectory times going backwards) is rejected whole with a log line; the robot keeps
  its last safe command.

Publications
  ``joint_commands`` (sensor_msgs/JointState): name + position of all 26 joints, every cycle once
      started (every 0.5 s while resting). In the full suite this is remapped to ``collision_filter/safe_joint_commands``, the
      whole-body node's input.
  ``collision_filter/closest_distance`` (std_msgs/Float64): closest distance (m) between an arm and
      the rest of the body over all candidate pairs, at the last published command.
  ``collision_filter/markers`` (visualization_msgs/MarkerArray, 10 Hz while subscribed): the body shapes in their
      link frames (frame_locked, rviz moves them with TF), coloured by their closest distance:
      green beyond the influence distance, yellow to orange inside it, red within the margin.
  ``obstacles/current`` (visualization_msgs/MarkerArray, latched: transient_local, depth 1): the
      obstacles taken, as they stand (DELETEALL, then one marker each), whenever they change; so
      an rviz started late shows them (``nao_motion.ros.obstacle_input``).
  ``/diagnostics``: cycle time, active and binding constraints, closest distance, last outcome.

Services
  ``collision_filter/set_protection/LArm``, ``.../RArm``, ``.../Arms`` (std_srvs/SetBool): NAOqi's
      setCollisionProtectionEnabled; the state is the ``protected_chains`` parameter (query it with
      ``ros2 param get`` or the get_parameters service, as the ALMotion client does).

Parameters (changes are validated as a whole and refused with the reason)
  ``nao_version`` (V5/V6, start-up), ``protected_chains`` (names from LArm, RArm, Arms; default
  [Arms] as NAOqi), ``margin_m`` (0.005), ``influence_distance_m`` (0.05), ``max_speed_fraction``
  (0.3).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import Point
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import ColorRGBA, Float64
from std_srvs.srv import SetBool
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import Marker, MarkerArray

from ..collision.avoidance import AvoidanceConfig, Outcome
from ..collision.filter_cycle import CollisionFilterCycle
from ..collision.pairs import PROTECTION_CHAINS, protected_arms
from ..collision.reference import YIELDING_TARGETS_FRAME, parse_trajectory, targets_of
from ..joint_input import MAX_COMMAND_POSITION_RAD, JointInputError, parse_joint_values, parse_stiffness
from ..model import NaoModel
from ..qp import clearance
from ..ros.conversions import stamp_parts, stamp_seconds
from ..ros.cdr import JointStateReader, MessageImage, frame_id_of
from ..ros.obstacle_input import ObstacleInput
from ..ros.parameters import NAO_VERSION, ParameterSpec, declare_startup
from ..ros.node_tools import (
    ClockWatch,
    CycleDiagnostics,
    ValidatedParameters,
    declare_thread_priority,
    merge_joint_state,
    run_node,
    throttled_warning,
)
from ..ros.qos import CYCLE_QOS, LATEST_QOS
from ..ros.sampled import CycleInputs, SampledSubscription

KEEP_ALIVE_S = 0.5
ROBOT_COMMAND_FRESH_S = 0.25  # an older robot command is not the robot's any more (its sender stopped)
MARKER_PERIOD_S = 0.1
DEFAULT_SPEED_FRACTION = 0.3  # of each joint's maximum speed, for joint_targets without velocities


class CollisionFilterNode(Node):
    def __init__(self, **kwargs):
        super().__init__("collision_filter", **kwargs)
        declare_thread_priority(self)
        version = declare_startup(self, {"nao_version": NAO_VERSION})["nao_version"]
        self.model = NaoModel(version)
        self.cycle = CollisionFilterCycle(self.model)
        self.filter = self.cycle.avoidance
        n = self.model.n_joints
        self.measured = np.zeros(n)
        self.received = np.zeros(n, dtype=bool)
        self.states_reader = JointStateReader(self.model)
        self.required = np.array([j in self.filter.fk.joint_names and j != "RHipYawPitch"
                                  for j in self.model.joint_names])
        self.stiffness = np.ones(n)
        defaults = self.filter.config
        self.params = ValidatedParameters(self, {
            "protected_chains": ParameterSpec(["Arms"], "chains protected against self-collision",
                                              choices=tuple(sorted(PROTECTION_CHAINS)),
                                              choice_name="collision protection chain"),
            "margin_m": ParameterSpec(defaults.margin_m, "distance (m) kept between an arm and the rest of the body",
                                      minimum=0.0, maximum=clearance.MAX_MARGIN_M),
            "influence_distance_m": ParameterSpec(defaults.influence_distance_m, "pairs closer than this (m) are "
                                                  "constrained; more than margin_m", minimum=0.0,
                                                  maximum=clearance.MAX_INFLUENCE_M,
                                                  exclusive_minimum=True),
            "max_speed_fraction": ParameterSpec(DEFAULT_SPEED_FRACTION, "speed of joint_targets without velocities, "
                                                "fraction of each joint's maximum", minimum=0.0, maximum=1.0,
                                                exclusive_minimum=True),
        }, self._validate, self._apply)

        self.command_pub = self.create_publisher(JointState, "joint_commands", CYCLE_QOS)
        self.distance_pub = self.create_publisher(Float64, "collision_filter/closest_distance", CYCLE_QOS)
        self.marker_pub = self.create_publisher(MarkerArray, "collision_filter/markers", 10)
        self.targets_reader = JointStateReader(self.model, unknown_names="reject", plausible=False,
                                               limit_rad=MAX_COMMAND_POSITION_RAD)
        # Read at the cycle (``CycleInputs``): walking, the arm swing's targets come every cycle; a
        # motion sent before the first joint_states waits for it in DDS.
        self.cycle_inputs = CycleInputs(self)
        self.cycle_inputs.add(JointState, "joint_targets", self.on_targets, raw=True)
        self.cycle_inputs.add(JointTrajectory, "joint_trajectory", self.on_trajectory)
        self.create_subscription(JointState, "joint_states", self.on_joint_states, LATEST_QOS, raw=True)
        self.create_subscription(JointState, "joint_stiffness", self.on_stiffness, CYCLE_QOS)
        self.robot_commands_sub = SampledSubscription(self, JointState, "collision_filter/robot_commands", raw=True)
        self.robot_commands_reader = JointStateReader(self.model)
        self.robot_command = np.zeros(n)
        self.robot_command_received = np.zeros(n, dtype=bool)
        self.robot_command_s = -np.inf
        self.obstacle_input = ObstacleInput(self, self.filter.fk, display=True)  # rviz's latched view
        for chain in PROTECTION_CHAINS:
            self.create_service(SetBool, f"collision_filter/set_protection/{chain}",
                                partial(self.on_set_protection, chain))

        # Prepared once; each cycle only fills the numbers into the serialized bytes (converting
        # a JointState's 26 names to C every cycle cost the walking suite 2 % of a core).
        n = self.model.n_joints
        self.command_image = MessageImage(JointState(name=list(self.model.joint_names), position=[0.0] * n),
                                          ["position"], ["header.stamp"])
        self.distance_image = MessageImage(Float64(), ["data"], [])
        self.markers = self._make_markers()
        self.last_markers_s = -np.inf
        self.diagnostics = CycleDiagnostics(self, "collision_filter", self.model.cycle_time_s, self._diagnose)
        self.diagnostics.set_status(DiagnosticStatus.WARN, "waiting for joint_states")
        # Resting (the cycle settled), the command is repeated every KEEP_ALIVE_S for late joiners.
        self.last_publish_s = -np.inf
        self.cycle_now_s = -np.inf  # the clock at this cycle: the motions taken at it (read once)
        self.motion_start_s = -np.inf  # of the motions taken at this cycle (the core's taken_motion_start_s)
        self.clock_watch = ClockWatch(self, "the motion under way stopped where it was")
        self.get_logger().info(
            f"collision filter for NAO {version}: {self.filter.pairs.n_pairs} pairs, "
            f"protected {sorted(self.filter.config.protected_arms)}")

    # --- parameters and protection --------------------------------------------------------
    def _config(self, values: dict) -> AvoidanceConfig:
        arms = sorted({arm for chain in values["protected_chains"] for arm in protected_arms(chain)})
        return replace(self.filter.config, protected_arms=tuple(arms), margin_m=values["margin_m"],
                       influence_distance_m=values["influence_distance_m"])

    def _validate(self, values: dict) -> str | None:
        return self._config(values).validate()

    def _apply(self, values: dict) -> None:
        self.cycle.wake()
        self.filter.update_config(self._config(values))
        self.speed_fraction = values["max_speed_fraction"]

    def on_set_protection(self, chain: str, request: SetBool.Request, response: SetBool.Response):
        arms = set(self.filter.config.protected_arms)
        arms = (arms | set(PROTECTION_CHAINS[chain])) if request.data else (arms - set(PROTECTION_CHAINS[chain]))
        result = self.set_parameters([Parameter("protected_chains", Parameter.Type.STRING_ARRAY, sorted(arms))])[0]
        response.success = result.successful
        state = "enabled" if request.data else "disabled"
        response.message = f"{chain} collision protection {state}" if result.successful else result.reason
        self.get_logger().info(response.message)
        return response

    # --- inputs -----------------------------------------------------------------------------
    def _now_s(self) -> float:
        return self.get_clock().now().nanoseconds * 1e-9

    def _reject(self, topic: str, reason: str) -> None:
        # Each reason once a second: a buggy script can send a bad command at any rate.
        throttled_warning(self, f"{topic}: {reason}",
                          f"{topic} rejected, the robot keeps its last safe command: {reason}", 1.0, family=topic)

    def on_targets(self, data: bytes) -> None:
        # Read from the bytes: the walk's arm swing comes every cycle (converting the message and
        # its names cost about as much as the filter's move).
        try:
            _, indices, positions, velocities = self.targets_reader.read(data)
            targets = targets_of(self.model, indices, positions, velocities, self.speed_fraction)
            yields = frame_id_of(data) == YIELDING_TARGETS_FRAME  # (the header was read just above)
        except (JointInputError, ValueError) as err:
            self._reject("joint_targets", str(err))
            return
        self.cycle.move_to(targets, self.motion_start_s, *self._robot_command(targets.indices), yields=yields)

    def on_trajectory(self, msg: JointTrajectory) -> None:
        try:
            trajectory = parse_trajectory(
                self.model, msg.joint_names, [p.time_from_start.sec + p.time_from_start.nanosec * 1e-9
                                              for p in msg.points], [p.positions for p in msg.points],
                [p.velocities for p in msg.points])
        except JointInputError as err:
            self._reject("joint_trajectory", str(err))
            return
        stamp_s = stamp_seconds(msg.header.stamp)
        self.cycle.follow(trajectory, stamp_s if stamp_s > 0.0 else self.motion_start_s,
                          *self._robot_command(trajectory.indices))

    def _robot_command(self, indices: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
        """The robot's command now (None: none fresh, or none needed: no joint of `indices`, model
        indices of a motion starting, can be taken from it) and the joints it has."""
        if not self.cycle.takes_from_robot(indices):
            # Walking, the arm swing's joints never can: the newest command waits in its
            # subscription (each replaces the last) for a motion that can (decoding it every
            # cycle cost ~9 us).
            return None, self.robot_command_received
        data = self.robot_commands_sub.take_latest()
        if data is not None:
            stamp = merge_joint_state(self, "collision_filter/robot_commands", self.robot_commands_reader, data,
                                      self.robot_command, self.robot_command_received)
            if stamp is not None:
                self.robot_command_s = stamp_seconds(stamp)
        fresh = abs(self.cycle_now_s - self.robot_command_s) <= ROBOT_COMMAND_FRESH_S
        return (self.robot_command if fresh else None), self.robot_command_received

    def on_joint_states(self, data: bytes) -> None:
        if merge_joint_state(self, "joint_states", self.states_reader, data, self.measured,
                             self.received, self.diagnostics) is not None:
            self.on_cycle()

    def on_stiffness(self, msg: JointState) -> None:
        try:
            parsed = parse_stiffness(self.model, msg.name, msg.effort)
        except JointInputError as err:
            self._reject("joint_stiffness", str(err))
            return
        if np.any((parsed.values < 0.0) | (parsed.values > 1.0)):
            throttled_warning(self, "stiffness_range", "stiffness outside 0..1 clamped")
        self.stiffness[parsed.indices] = np.clip(parsed.values, 0.0, 1.0)
        self.cycle.wake()

    # --- cycle ------------------------------------------------------------------------------
    def on_cycle(self) -> None:
        start = self.diagnostics.start()
        cycle = self.cycle
        if not cycle.started:
            if not np.all(self.received[self.required]):
                return
            cycle.start(self.measured)
            self.diagnostics.set_status(DiagnosticStatus.OK, "ok")
        now_s = self.cycle_now_s = self._now_s()
        if self.clock_watch.went_back(now_s):
            cycle.restart_clock()
            self.last_publish_s = self.last_markers_s = -np.inf
        self.motion_start_s = cycle.taken_motion_start_s(now_s)
        self.cycle_inputs.serve()
        if self.obstacle_input.resolve(now_s, self.filter.obstacles, self.filter.command):
            cycle.wake()  # an obstacle came, went or moved: the command may have to change
        result = cycle.cycle(now_s, self.stiffness, self.measured)
        if result is None:  # resting
            if now_s - self.last_publish_s >= KEEP_ALIVE_S:
                self._publish(cycle.result, now_s)
            return
        self._publish(result, now_s)
        if result.outcome is not Outcome.SOLVED:
            throttled_warning(self, "outcome", f"collision filter: {result.reason}")
        self.diagnostics.record(start)

    def _diagnose(self) -> None:
        """The last solved cycle's figures, before each diagnostics publication (not formatted
        every cycle)."""
        result = self.cycle.result
        if result is None:
            return
        self.diagnostics.values.update({
            "closest_distance_m": f"{result.closest_distance_m:.4f}",
            "obstacles": self.filter.obstacles.count,
            "closest_obstacle_m": f"{result.closest_obstacle_m:.4f}",
            "active_constraints": result.active_constraints,
            "binding_constraints": result.binding_constraints,
            "outcome": result.outcome.value,
            "protected_chains": ",".join(sorted(self.filter.config.protected_arms)) or "none",
        })
        level = DiagnosticStatus.OK if result.outcome is Outcome.SOLVED else DiagnosticStatus.WARN
        self.diagnostics.set_status(level, result.reason)

    def _publish(self, result, now_s: float) -> None:
        self.last_publish_s = now_s
        # Stamped with the cycle's time, the time its motion step was computed for: the clock read
        # again at publishing put a late cycle's command closer to the next one than its step.
        self.command_image.set_floats(result.q)
        self.command_image.set_stamp(*stamp_parts(now_s))
        self.command_image.publish(self.command_pub)
        self.distance_image.set_floats(result.closest_distance_m)
        self.distance_image.publish(self.distance_pub)
        if now_s - self.last_markers_s >= MARKER_PERIOD_S:  # subscribers asked for at that rate, not every cycle
            self.last_markers_s = now_s
            if self.marker_pub.get_subscription_count() > 0:
                self._colour_markers(result.distances.distance_m)
                self.marker_pub.publish(self.markers)

    # --- markers ----------------------------------------------------------------------------
    def _make_markers(self) -> MarkerArray:
        """One SPHERE_LIST per shape in its link frame: spheres of the shape's radius along its
        axis, close enough to draw the capsule."""
        markers = MarkerArray()
        for i, shape in enumerate(self.filter.pairs.shapes):
            m = Marker(ns="collision_shapes", id=i, type=Marker.SPHERE_LIST, action=Marker.ADD, frame_locked=True)
            m.header.frame_id = shape.link
            m.pose.orientation.w = 1.0
            m.scale.x = m.scale.y = m.scale.z = 2.0 * shape.radius_m
            count = 1 if shape.is_sphere else int(np.ceil(shape.length_m / (0.25 * shape.radius_m))) + 1
            for s in np.linspace(0.0, 1.0, count):
                x, y, z = (np.asarray(shape.p_m) + s * (np.asarray(shape.q_m) - np.asarray(shape.p_m))).tolist()
                m.points.append(Point(x=x, y=y, z=z))
            markers.markers.append(m)
        return markers

    def _colour_markers(self, pair_distance_m: np.ndarray) -> None:
        pairs = self.filter.pairs
        closest = np.full(len(pairs.shapes), np.inf)
        np.minimum.at(closest, pairs.first, pair_distance_m)
        np.minimum.at(closest, pairs.second, pair_distance_m)
        margin, influence = self.filter.config.margin_m, self.filter.config.influence_distance_m
        for marker, d in zip(self.markers.markers, closest):
            if d <= margin:
                rgb = (1.0, 0.0, 0.0)
            elif d < influence:  # yellow at the influence distance to orange at the margin
                rgb = (1.0, 0.5 + 0.5 * (d - margin) / (influence - margin), 0.0)
            else:
                rgb = (0.2, 0.8, 0.2)
            marker.color = ColorRGBA(r=rgb[0], g=rgb[1], b=rgb[2], a=0.5)


def main(args=None) -> None:
    run_node(CollisionFilterNode, args)


if __name__ == "__main__":
    main()
