"""ALMotion's joint commands: setAngles, changeAngles, angleInterpolation, angleInterpolationBezier,
angleInterpolationWithSpeed, openHand, closeHand, setStiffnesses, wakeUp and rest, with NAOqi's
argument forms, over the collision filter's topics.

* names: one joint or chain name ("LArm", "Body", ...) or a list of them; chains expand with
  the model's getJointNames order ("LArm" is the 5 arm joints and LHand).
* values (angles, stiffnesses): one value for every joint, or one per expanded joint;
  angleInterpolation also takes one list of angles (and of times) per joint.
* setAngles and angleInterpolationWithSpeed publish ``joint_targets`` with one speed per joint
  in ``velocity`` (fraction x the joint's maximum); angleInterpolation publishes one
  ``joint_trajectory`` with a velocity at every point: NAOqi's smooth path (at rest at the
  ends, a continuous speed through the keys, no overshoot: ``nao_motion.interpolation``); per-joint
  time lists are merged on the union of their times, each joint sampled with its speed there,
  which keeps each joint's own path; setStiffnesses publishes ``joint_stiffness``.
* The blocking calls return when the filter's commands have run the motion's duration (read in
  their stamps, the node's clock, so they follow sim time whatever the rate of joint_states) and
  then stopped changing: either the targets are reached or self-collision avoidance holds the
  arm at the nearest safe pose.
"""

from __future__ import annotations

import time
from numbers import Real

import numpy as np
from builtin_interfaces.msg import Duration
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..collision.reference import parse_targets, parse_trajectory
from ..interpolation import BezierError, merged_bezier_keys, merged_smooth_keys
from ..joint_input import JointInputError
from ..postures import posture
from ..ros.qos import CYCLE_QOS
from ..suite import SAFE_JOINT_COMMANDS
from .client_base import ALMotionError
from .cycle_clock import CycleClock, Tick

SETTLED_CYCLES = 10  # the same command this many times running: the motion is over
SETTLED_RAD = 1e-6
# The same command again after a longer gap than this (in cycle times): the filter has settled and
# rests, repeating its command every 0.5 s only (SETTLED_CYCLES of those would take 5 s).
RESTING_GAP_CYCLES = 2.0
COMMANDS_PUBLISHER = "collision filter"
REST_SPEED_FRACTION = 0.2  # rest() goes down slowly: the robot is balanced by no one on the way
# openHand / closeHand: NAOqi does not say its speed; at this a hand opens or closes in 0.6 s
HAND_SPEED_FRACTION = 0.2
HANDS = ("LHand", "RHand")
DISCOVERY_SETTLE_S = 0.2  # no new subscriber for this long: all of them have been discovered


class MotionCommandMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Created with the client, so that discovery runs while the script starts.
        self._targets_pub = self.node.create_publisher(JointState, "joint_targets", CYCLE_QOS)
        self._trajectory_pub = self.node.create_publisher(JointTrajectory, "joint_trajectory", CYCLE_QOS)
        self._stiffness_pub = self.node.create_publisher(JointState, "joint_stiffness", CYCLE_QOS)
        self._settled_topics: set[str] = set()

    # --- NAOqi methods ------------------------------------------------------------------
    def setAngles(self, names, angles, fractionMaxSpeed: float) -> None:
        """Non-blocking: move the joints toward the angles at fractionMaxSpeed of their maximum speed."""
        self._send_targets(names, angles, fractionMaxSpeed)

    def changeAngles(self, names, changes, fractionMaxSpeed: float) -> None:
        """Non-blocking: move the joints by the changes (rad) from their current command, at
        fractionMaxSpeed of their maximum speed (NAOqi's changeAngles: setAngles, relative)."""
        joints = self._joint_names(names)
        deltas = np.asarray(_per_joint_values(changes, len(joints), "changes"), dtype=float)
        current = self._configuration(False)
        self._send_targets(joints, (current[[self.model.joint_index(j) for j in joints]] + deltas).tolist(),
                           fractionMaxSpeed)

    def openHand(self, handName: str) -> None:
        """Blocking: the hand ("LHand" or "RHand") open (1.0), at HAND_SPEED_FRACTION."""
        self.angleInterpolationWithSpeed(_hand(handName), 1.0, HAND_SPEED_FRACTION)

    def closeHand(self, handName: str) -> None:
        """Blocking: the hand ("LHand" or "RHand") closed (0.0), at HAND_SPEED_FRACTION."""
        self.angleInterpolationWithSpeed(_hand(handName), 0.0, HAND_SPEED_FRACTION)

    def angleInterpolationWithSpeed(self, names, targetAngles, maxSpeedFraction: float) -> None:
        """Blocking: move to the angles at maxSpeedFraction of the maximum speed, all joints together."""
        start, duration_s, joints = self._send_targets(names, targetAngles, maxSpeedFraction)
        self._wait_for_motion(start, duration_s, joints)

    def angleInterpolation(self, names, angleLists, timeLists, isAbsolute: bool) -> None:
        """Blocking: pass through the angles at the times (s from now), per joint, smoothly as
        NAOqi does (at rest at the start and the end, a continuous speed through the keys, no
        overshoot: ``nao_motion.interpolation``); relative angles (isAbsolute False) are added to
        the current command."""
        joints = self._joint_names(names)
        angles = _per_joint_lists(angleLists, len(joints), "angleLists")
        times = _per_joint_lists(timeLists, len(joints), "timeLists")
        current = self._configuration(False)
        indices = [self.model.joint_index(j) for j in joints]
        key_times, keys = [], []
        for joint, index, a, t in zip(joints, indices, angles, times):
            key_times.append(_key_times(joint, t, len(a), "angles"))
            keys.append(np.asarray(a, dtype=float) + (0.0 if isAbsolute else current[index]))
        self._follow(joints, *merged_smooth_keys(current[indices], key_times, keys))

    def angleInterpolationBezier(self, jointNames, times, controlPoints) -> None:
        """Blocking: each joint along its Bezier curve through its keys (NAOqi's control points:
        per joint, per key ``[angle, [type, dAngle, dTime], [type, dAngle, dTime]]``, the handles
        toward the key before and the one after; ``nao_motion.interpolation.bezier_path``), from
        its current command at rest."""
        joints = self._joint_names(jointNames)
        key_times = _per_joint_lists(times, len(joints), "times")
        keys = list(controlPoints) if isinstance(controlPoints, (list, tuple)) else []
        if len(keys) != len(joints) or not all(isinstance(k, (list, tuple)) for k in keys):
            raise ALMotionError(f"controlPoints: one list of [angle, handle1, handle2] per joint ({len(joints)}), "
                                f"got {controlPoints!r}")
        current = self._configuration(False)
        checked_times = [_key_times(joint, t, len(k), "control points") for joint, t, k in zip(joints, key_times, keys)]
        try:
            merged = merged_bezier_keys(current[[self.model.joint_index(j) for j in joints]], checked_times, keys)
        except (BezierError, TypeError, ValueError, IndexError) as err:
            raise ALMotionError(f"controlPoints: {err}") from None
        self._follow(joints, *merged)

    def _follow(self, joints: list[str], times_s: np.ndarray, positions: np.ndarray, speeds: np.ndarray) -> None:
        """Send the trajectory (positions and speeds at the times from now) and wait for its end."""
        try:  # the node's own validation, so that a refused trajectory is refused here, saying why
            parse_trajectory(self.model, joints, times_s, positions, speeds)
        except JointInputError as err:
            raise ALMotionError(str(err)) from None
        msg = JointTrajectory(joint_names=joints)
        for t, p, v in zip(times_s, positions, speeds):
            sec = int(t)
            msg.points.append(JointTrajectoryPoint(positions=p.tolist(), velocities=v.tolist(), time_from_start=Duration(
                sec=sec, nanosec=int(round((t - sec) * 1e9)))))
        start = self._publish(self._trajectory_pub, msg, "joint_trajectory")
        self._wait_for_motion(start, float(times_s[-1]), joints)

    def setStiffnesses(self, names, stiffnesses) -> None:
        """Stiffness 0..1 of joints or chains (one value, or one per joint)."""
        joints = self._joint_names(names)
        values = np.asarray(_per_joint_values(stiffnesses, len(joints), "stiffnesses"), dtype=float)
        if not np.all(np.isfinite(values) & (values >= 0.0) & (values <= 1.0)):
            raise ALMotionError(f"stiffnesses must be in [0, 1], got {values.tolist()}")
        self._publish(self._stiffness_pub, JointState(name=joints, effort=values.tolist()), "joint_stiffness")

    def wakeUp(self) -> None:
        """NAOqi's wakeUp: every joint stiff (the posture is left as it is)."""
        self.setStiffnesses("Body", 1.0)

    def rest(self) -> None:
        """NAOqi's rest: to the Crouch posture at a safe speed, then every joint limp."""
        self.angleInterpolationWithSpeed("Body", posture(self.model, "Crouch").tolist(), REST_SPEED_FRACTION)
        self.setStiffnesses("Body", 0.0)

    # --- helpers -------------------------------------------------------------------------
    def _send_targets(self, names, angles, fraction: float) -> tuple[Tick | None, float, list[str]]:
        """Publish joint_targets; returns the latest command then, the motion's duration (s) and
        its joints."""
        joints = self._joint_names(names)
        values = _per_joint_values(angles, len(joints), "angles")
        if not (isinstance(fraction, Real) and 0.0 < fraction <= 1.0):
            raise ALMotionError(f"fraction of maximum speed must be in (0, 1], got {fraction!r}")
        speeds = [fraction * self.model.joint(j).max_velocity for j in joints]
        try:  # the node's own validation (and clipping into the joints' ranges)
            targets = parse_targets(self.model, joints, values, speeds, fraction)
        except JointInputError as err:
            raise ALMotionError(str(err)) from None
        current = self._configuration(False)
        duration_s = float(np.max(np.abs(targets.positions - current[targets.indices]) / targets.speeds_rps))
        start = self._publish(self._targets_pub, JointState(name=joints, position=[float(v) for v in values],
                                                            velocity=speeds), "joint_targets")
        return start, duration_s, joints

    def _publish(self, publisher, msg, topic: str) -> Tick | None:
        """Publish once the topic has subscribers (the first time, also let discovery settle, so
        that a script's first command reaches every node); returns the latest command then (None
        before the first), whose stamp is the node's time the motion starts from."""
        deadline = time.monotonic() + self.timeout_s
        while publisher.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                raise ALMotionError(f"nobody subscribes {topic} within {self.timeout_s} s: is the suite up?")
            time.sleep(0.01)
        if topic not in self._settled_topics:
            # Every subscriber the graph shows matched, and none new for DISCOVERY_SETTLE_S. Waiting
            # for the count to stay still alone, a fresh script's wakeUp after a rest left the
            # robot crouched on a loaded machine (its posture did not move it, and the script's
            # balancing then made it fall): most likely the stiffness reached only the subscribers
            # matched by then, while a node that missed it kept the joints limp.
            count, since = -1, time.monotonic()
            while time.monotonic() < deadline:
                matched = publisher.get_subscription_count()
                if matched != count or matched < self.node.count_subscribers(publisher.topic_name):
                    count, since = matched, time.monotonic()
                elif time.monotonic() - since >= DISCOVERY_SETTLE_S:
                    break
                time.sleep(0.01)
            self._settled_topics.add(topic)
        start = self._motion_clock().latest()
        publisher.publish(msg)
        return start

    def _motion_clock(self) -> CycleClock:
        """The stream a joint motion is waited on: the collision filter's command. In the suite
        that is its own topic (``SAFE_JOINT_COMMANDS``): the whole body's ``joint_commands``
        carries the balance's corrections, which move the arms a little every cycle of a walk, so
        a motion of theirs never looked finished until the walk ended. Alone, the filter publishes
        ``joint_commands`` itself. Subscribed when a suite's filter is first seen."""
        if self._safe_commands_clock is None and self.node.count_publishers(SAFE_JOINT_COMMANDS) > 0:
            self._safe_commands_clock = CycleClock(self.node, JointState, SAFE_JOINT_COMMANDS)
        return self._safe_commands_clock or self._joint_commands_clock

    def _wait_for_motion(self, start: Tick | None, duration_s: float, joints: list[str]) -> None:
        """Wait the motion's duration in the filter's time (the stamps of its commands), then until
        its commands of the motion's `joints` stop changing (the other joints' may never: the walk
        swings the arms it was not asked to leave alone)."""
        clock = self._motion_clock()
        tick = clock.wait_elapsed(start, duration_s, duration_s + self.timeout_s, COMMANDS_PUBLISHER)
        resting_gap_s = RESTING_GAP_CYCLES * self.model.cycle_time_s
        still = 0
        while still < SETTLED_CYCLES:
            previous, tick = tick, clock.wait_next(tick, self.timeout_s, COMMANDS_PUBLISHER)
            if not _same_positions(previous.msg, tick.msg, joints):
                still = 0
            elif tick.gap_s > resting_gap_s:
                return
            else:
                still += 1


def _same_positions(a: JointState, b: JointState, joints: list[str]) -> bool:
    """Whether two commands hold the same positions of `joints` (not when a joint is missing)."""
    if a.name != b.name or len(a.position) != len(a.name) or len(b.position) != len(b.name):
        return False
    try:
        at = [a.name.index(j) for j in joints]
    except ValueError:
        return False
    return bool(np.all(np.abs(np.take(a.position, at) - np.take(b.position, at)) < SETTLED_RAD))


def _is_number(x) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


def _key_times(joint: str, times, n_keys: int, what: str) -> np.ndarray:
    """A joint's key times (s from now): one per key, positive and increasing."""
    t = np.asarray(times, dtype=float)
    if len(t) != n_keys or not n_keys:
        raise ALMotionError(f"{joint}: {n_keys} {what} but {len(t)} times")
    if not np.all(np.isfinite(t)) or t[0] <= 0.0 or np.any(np.diff(t) <= 0.0):
        raise ALMotionError(f"{joint}: times must be positive and increasing, got {list(t)}")
    return t


def _hand(name: object) -> str:
    if name not in HANDS:
        raise ALMotionError(f"unknown hand {name!r}: expected one of {list(HANDS)}")
    return name


def _per_joint_values(values, n: int, what: str) -> list[float]:
    """One value for all n joints, or a list of n values."""
    if _is_number(values):
        return [float(values)] * n
    values = list(values)
    if len(values) == n and all(_is_number(v) for v in values):
        return [float(v) for v in values]
    raise ALMotionError(f"{what}: expected one number or {n} numbers (one per joint), got {values!r}")


def _per_joint_lists(values, n: int, what: str) -> list[list[float]]:
    """NAOqi's angleLists / timeLists forms: a number; a list (one joint's sequence when n == 1,
    else one value per joint); or one list (or number) per joint."""
    if _is_number(values):
        return [[float(values)]] * n
    values = list(values)
    if all(_is_number(v) for v in values):
        if n == 1:
            return [[float(v) for v in values]]
        if len(values) == n:
            return [[float(v)] for v in values]
    elif len(values) == n:
        return [[float(values[i])] if _is_number(values[i]) else [float(v) for v in values[i]] for i in range(n)]
    raise ALMotionError(f"{what}: expected a number, a list of {n} values or {n} lists, got {values!r}")
