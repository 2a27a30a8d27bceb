"""The footstep planner node's cycle without ROS: the planner advanced to the clock, the plan's
frame against the walk's sensed odometry (``PlanFrame``), and moveTo's closing steps
(``MoveToCorrection``).

The planner node decodes its messages and calls this object; the in-process chain
(``nao_motion.sim.walking``) calls the same, so the closing steps a test sees are the ones the
robot walks.

    cycle = FootstepPlannerCycle(FootstepPlanner(left, right, now_s))
    cycle.move_to(0.4, 0.0, 0.0, config)          # moveTo: closed on through the odometry
    cycle.other_command(lambda: cycle.planner.move(0.1, 0.0, 0.0))   # any other command
    cycle.hear_walk_hold_step(holding, heard_s)   # walk/hold_step, when it changes
    cycle.advance_to(now_s, walk_holds_start)      # every motion cycle while there is a plan
    if cycle.wants_odometry:                       # the feet stand: a sample can be compared
        cycle.observe(base_footprint_odom, stamp_s)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .move_to_correction import MoveToCorrection, MoveToCorrectionConfig
from .plan_frame import PlanFrame
from .planner import FootstepPlanner
from .pose2d import Pose2D

__all__ = ["FootstepPlannerCycle", "CLOSING_WAIT_S"]

# A moveTo that ended waits this long for an odometry sample on its planted feet; without one
# (no walk node, no odometry) it is done as planned and the planner goes idle.
CLOSING_WAIT_S = 1.0


class FootstepPlannerCycle:
    """FootstepPlanner + PlanFrame + MoveToCorrection, stepped by the clock (module docstring)."""

    def __init__(self, planner: FootstepPlanner, correction: MoveToCorrectionConfig | None = None):
        self.planner = planner
        self.plan_frame = PlanFrame()  # plan_from_odom: identity until the walk's odom is compared
        self.correction = MoveToCorrection(correction)
        self._ended_s: float | None = None  # when the moveTo being closed on ran out of steps
        # walk/hold_step: heard true since (None: not holding), and the time held in holds heard
        # ending since the last advance
        self._step_hold_since_s: float | None = None
        self._step_held_s = 0.0

    @property
    def closing(self) -> bool:
        """A moveTo waits to be compared with the odometry (or walks its closing steps)."""
        return self.correction.goal_odom is not None

    @property
    def wants_odometry(self) -> bool:
        """Whether a sample can be compared now: mid-step nothing compares (it may wait undecoded)."""
        return self.planner.current_step() is None

    def set_correction(self, config: MoveToCorrectionConfig) -> None:
        """New tolerances, from the next comparison on."""
        self.correction.config = config

    def hear_walk_hold_step(self, holding: bool, heard_s: float) -> None:
        """``walk/hold_step`` heard at ``heard_s``: the walk holds a lift-off (or no longer). The
        plan's time stands still from when the hold is heard to when its end is heard, not from
        the last advance: a planner whose cycle ran late (its process starved) held the whole gap
        before it heard the hold, up to 0.3 s more than the walk held, and the walk, seeing its
        step in progress moved, stopped (killMove). Hearing late holds less, which the walk
        absorbs (it executes the plan later by what the planner has not held yet)."""
        if holding and self._step_hold_since_s is None:
            self._step_hold_since_s = heard_s
        elif not holding and self._step_hold_since_s is not None:
            self._step_held_s += max(0.0, heard_s - self._step_hold_since_s)
            self._step_hold_since_s = None

    def advance_to(self, now_s: float, walk_holds_start: bool = False) -> bool:
        """The planner to the clock (steps done, the plan's feet planted, the start held while
        the walk asks for it: ``walk/hold_start``; the plan's time standing still by what the walk
        held of it: ``hear_walk_hold_step``); returns whether the clock went back (a simulation
        reset: the plan is dropped, the feet kept, nothing closed on)."""
        planner = self.planner
        held_s, self._step_held_s = self._step_held_s, 0.0
        if self._step_hold_since_s is not None:
            held_s += max(0.0, now_s - self._step_hold_since_s)
            self._step_hold_since_s = now_s
        went_back = now_s < planner.now_s
        if went_back:
            feet = planner.feet
            planner.reset(feet.left, feet.right, now_s)
            self.plan_frame.restart_clock()
            self.correction.cancel()
        elif held_s > 0.0:
            planner.hold_steps(held_s)
        done = planner.advance_to(now_s)
        if done:
            self.plan_frame.feet_planted_at(done[-1].end_s)
        if walk_holds_start:
            planner.hold_start()
        if not self.closing or planner.move_is_active():
            self._ended_s = None
        elif self._ended_s is None:
            self._ended_s = now_s
        elif now_s - self._ended_s > CLOSING_WAIT_S:
            self.correction.cancel()
        return went_back

    def observe(self, base_footprint_odom: Pose2D, stamp_s: float) -> bool:
        """One odometry sample (the walk's sensed base_footprint at ``stamp_s``): compared with the
        plan while its feet stand (``PlanFrame``); a moveTo that has ended and is off its goal by
        more than the tolerance walks the rest. Whether that closing moveTo was planned."""
        planner = self.planner
        compared = self.plan_frame.observe(base_footprint_odom, stamp_s, planner.feet, planner.steps())
        if not (compared and self.closing and not planner.move_is_active()):
            return False
        rest = self.correction.rest(self.plan_frame.to_plan(self.correction.goal_odom), planner.get_robot_position())
        if rest is None:
            return False
        planner.move_to(rest.x, rest.y, rest.theta, self.correction.move_config)
        self._ended_s = None
        return True

    def move_to(self, x_m: float, y_m: float, theta_rad: float, move_config: Any = None) -> None:
        """moveTo (relative to the robot now; a refusal raises before anything changes), closed on
        through the odometry when it ends."""
        self.planner.move_to(x_m, y_m, theta_rad, move_config)  # checked: numbers from here on
        # The goal as the planner took it: relative to the planted feet, which a moveTo keeps.
        goal_plan = (self.planner.get_robot_position() * Pose2D(float(x_m), float(y_m), float(theta_rad))).normalized()
        self.correction.start(self.plan_frame.to_odom(goal_plan), move_config)
        self._ended_s = None

    def other_command(self, run: Callable[[], None]) -> None:
        """Any locomotion command but moveTo (move, moveToward, setFootSteps, stopMove): run (a
        refusal raises before anything changes); the moveTo it replaces is not closed on."""
        run()
        self.correction.cancel()

    def kill_move(self) -> None:
        """killMove: every step dropped, the one in progress too; its feet stand from now on."""
        self.planner.kill_move()
        self.plan_frame.feet_planted_at(self.planner.now_s)
        self.correction.cancel()
