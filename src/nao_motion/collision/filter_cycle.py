"""The collision filter node's motion cycle: targets and trajectories -> the wish per cycle -> the
avoidance QP -> the safe command, resting once it has settled.

``CollisionFilterCycle`` is what the collision filter node runs (decode -> this -> publish) and
what ``nao_motion.sim.walking`` runs in process, so the wish the whole body gets is made here in
both:

* ``move_to`` / ``follow`` start a motion (``JointReference``). A joint that no motion has driven
  for ``TAKE_OVER_IDLE_S`` and that the robot's command has elsewhere (the whole body's walk or
  balancer moved it) starts from the robot's command: the motion goes on from where the robot
  is, not from where the filter left it (``robot_command``; None where nothing else commands
  the robot). A joint driven a moment ago (the walk's arm swing sends a target every cycle) is
  where the filter's last motion put it: the robot's command, a cycle or two behind it, or the
  walk's QP near it, would hold it back at every target;
* ``cycle`` samples the wish, runs the avoidance (``CollisionAvoidance``) and says whether the
  command has settled: no motion, no limp joint, the same command two cycles running. Settled,
  nothing can change the command until an input does (``wake``), and ``cycle`` returns None
  without solving.

    filter = CollisionFilterCycle(model)
    filter.start(q_measured)                         # once every kinematic joint was measured
    filter.move_to(targets, now_s, robot_command)    # a joint_targets message (parse_targets)
    result = filter.cycle(now_s, stiffness, q_measured)   # None: resting, the last result holds
"""

from __future__ import annotations

import numpy as np

from ..model import NaoModel
from .avoidance import AvoidanceConfig, AvoidanceResult, CollisionAvoidance
from .distance import any_set
from .reference import JointReference, Targets, Trajectory

__all__ = ["CollisionFilterCycle", "SETTLED_RAD", "TAKE_OVER_IDLE_S"]

SETTLED_RAD = 1e-9  # a command that moves less than this between two cycles has settled (QP round-off)
TAKE_OVER_IDLE_S = 0.1  # ten cycles: over DDS the robot's command is one or two behind the filter's
MOTION_START_BACK_S = 0.1  # a motion taken at a cycle starts at most this long before it


class CollisionFilterCycle:
    """JointReference + CollisionAvoidance: one safe command per motion cycle."""

    def __init__(self, model: NaoModel, config: AvoidanceConfig | None = None):
        self.model = model
        self.avoidance = CollisionAvoidance(model, config)
        self.reference = JointReference(model)
        self.started = False
        self.settled = False
        self.result: AvoidanceResult | None = None  # the last cycle's (the avoidance's own object)
        n = model.n_joints
        self.limp = np.zeros(n, dtype=bool)
        self._change = np.zeros(n)
        self._taken = np.zeros(n, dtype=bool)
        self._last_cycle_s = -np.inf

    @property
    def command(self) -> np.ndarray:
        return self.avoidance.command

    def start(self, q_measured: np.ndarray) -> None:
        """Start from the measured pose: the first command, no jump."""
        self.avoidance.reset(q_measured)
        self.reference.reset(self.avoidance.command)
        self.started = True
        self.settled = False
        self._last_cycle_s = -np.inf

    def wake(self) -> None:
        """An input that can change the command (stiffness, settings, obstacles) came."""
        self.settled = False

    def restart_clock(self) -> None:
        """The clock went back: the motions under way are timed on the old one, they stop where
        the command is."""
        self.reference.reset(self.avoidance.command)
        self.settled = False
        self._last_cycle_s = -np.inf

    def taken_motion_start_s(self, now_s: float) -> float:
        """When a motion taken just before the cycle at `now_s` starts: at the last cycle, whose
        command it starts from, as if taken when it came (a target re-sent every cycle goes on at
        its speed, whatever the rate of the cycles); after a stall, at most MOTION_START_BACK_S
        before `now_s`."""
        return max(self._last_cycle_s, now_s - MOTION_START_BACK_S)

    def move_to(self, targets: Targets, now_s: float, robot_command: np.ndarray | None = None,
                robot_known: np.ndarray | None = None, yields: bool = False) -> float:
        """joint_targets: straight to the targets from the command; returns the duration (s).
        `robot_command` (26, rad) is the robot's command now, `robot_known` (bool) the joints it has.
        `yields` (the walk's arm swing, ``YIELDING_TARGETS_FRAME``): the joints another motion still
        moves are left to it (0.0 if that is all of them)."""
        if yields and (targets := self.reference.not_driven(targets)) is None:
            return 0.0
        self._start_from_robot_command(targets.indices, robot_command, robot_known)
        return self.reference.move_to(targets, self.avoidance.command, now_s, yields)

    def follow(self, trajectory: Trajectory, start_s: float, robot_command: np.ndarray | None = None,
               robot_known: np.ndarray | None = None) -> float:
        """joint_trajectory from `start_s`; returns its duration (s). Robot command: as move_to."""
        self._start_from_robot_command(trajectory.indices, robot_command, robot_known)
        return self.reference.follow(trajectory, self.avoidance.command, start_s)

    def takes_from_robot(self, indices: np.ndarray) -> bool:
        """Whether a motion of these joints (model indices) started now may start from the robot's
        command: one of them is idle (no motion drove it for TAKE_OVER_IDLE_S). The arm swing's,
        sent every cycle, never are: an owner need not read the robot's command for them."""
        return any_set(self.reference.idle(TAKE_OVER_IDLE_S).take(indices, out=self._taken[: len(indices)]))

    def _start_from_robot_command(self, indices: np.ndarray, robot_command: np.ndarray | None,
                                  robot_known: np.ndarray | None) -> None:
        self.settled = False
        if robot_command is None or not self.takes_from_robot(indices):
            return  # all driven a moment ago (the arm swing's, every cycle): nothing to take
        taken = self._taken
        taken.fill(False)
        taken[indices] = True
        taken &= self.reference.idle(TAKE_OVER_IDLE_S)
        if robot_known is not None:
            taken &= robot_known
        taken &= robot_command != self.avoidance.command
        if taken.any():
            self.avoidance.take_over(robot_command, taken)
            self.reference.take_over(self.avoidance.command, taken)

    def _moved_rad(self, q: np.ndarray) -> float:
        """How far the command moved since the last cycle (rad, largest joint): asked only once
        no motion is under way (walking, the arm swing always is)."""
        change = self._change
        np.subtract(q, change, out=change)  # the last command was kept here
        np.abs(change, out=change)
        return float(change.max())

    def cycle(self, now_s: float, stiffness: np.ndarray, q_measured: np.ndarray) -> AvoidanceResult | None:
        """The safe command at `now_s` for the joints' stiffness (0..1) and measured positions
        (limp joints follow them); None while settled (the last result holds)."""
        self._last_cycle_s = now_s
        avoidance = self.avoidance
        np.less(stiffness, avoidance.config.limp_stiffness, out=self.limp)
        if self.settled and not self.reference.moving:
            return None
        wish = self.reference.sample(now_s, self.limp, q_measured)
        result = avoidance.step(wish, stiffness, q_measured)
        self.settled = (self.result is not None and not self.reference.moving and not any_set(self.limp)
                        and self._moved_rad(result.q) <= SETTLED_RAD)
        np.copyto(self._change, result.q)  # the last command, for _moved_rad
        self.result = result
        return result
