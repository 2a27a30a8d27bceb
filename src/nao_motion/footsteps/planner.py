"""FootstepPlanner: NAOqi's locomotion API on top of one clipped step queue.

Commands (the last one wins; each keeps the unchangeable steps and applies
after them):

* ``move_to(x_m, y_m, theta_rad, config)`` - goal relative to the robot
  position at call time, reached along the constant-twist path with both feet
  FootSeparation apart at the end (``move_to_path``);
* ``move(vx_mps, vy_mps, wz_radps, config)`` and ``move_toward(x, y, theta,
  config)`` (normalised, via the seed's conversion) - walk until told
  otherwise; the queue is refilled as time advances (``velocity_walk``); a
  zero command stops like ``stop_move``;
* ``set_foot_steps`` / ``set_foot_steps_with_speed`` - NAOqi's poses relative
  to the other foot, clipped; ``clear_existing`` replaces the changeable steps,
  otherwise the new steps go after every queued step;
* ``stop_move`` - keep the unchangeable steps, then one closing step that
  brings the feet together (FootSeparation apart) if they are not;
* ``kill_move`` - empty the queue at once, step in progress included.

Invalid input raises an ``InvalidCommandError`` / ``MoveConfigError``
(ValueError) with the reason, before anything is changed: the current plan is
kept as it was.

The walk generator calls ``advance(dt_s)`` (or ``advance_to(t_s)``) every
cycle; it returns the steps completed meanwhile, and ``current_step()`` /
``steps()`` expose what is being and will be executed.

Robot position: midpoint of the planted feet with their mean heading
(REP-120 base_footprint). A swinging foot counts at its lift-off pose until its
step ends.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from enum import Enum
from typing import Any

from .errors import InvalidCommandError, finite_number, plausible_number
from .footstep import FeetState, Footstep, Leg, make_step
from .gait_config import (
    DEFAULT_GAIT_CONFIG,
    DEFAULT_MOVE_CONFIG,
    MoveConfig,
    get_move_config,
    parse_move_config,
)
from .move_to_path import approach_footprints, plan_move_to
from .normalized_velocity import normalized_length_to_si_velocity
from .pose2d import Pose2D
from .step_queue import DEFAULT_PREVIEW_S, StepQueue
from .step_timing import durations_from_speeds, durations_from_times
from .velocity_walk import VelocityStride, first_swing_leg, plan_velocity_stride

__all__ = ["WalkMode", "FootstepPlanner"]

_STRIDE_CACHE_SIZE = 64


# Bounds of what a command can ask before it is refused instead of clipped to the gait: a hundred
# times NAO's speed (about 0.1 m/s), a kilometre of moveTo, ten metres (and radians) of footstep.
MAX_COMMAND_SPEED_MPS = 10.0
MAX_COMMAND_RATE_RADPS = 10.0
MAX_MOVE_TO_M = 1000.0
MAX_MOVE_TO_RAD = 100.0
MAX_FOOTSTEP_M = 10.0
MAX_FOOTSTEP_RAD = 10.0


class WalkMode(Enum):
    IDLE = "idle"
    MOVE_TO = "move_to"
    VELOCITY = "velocity"
    FOOTSTEPS = "footsteps"
    STOPPING = "stopping"


def _pose(value: Any, what: str) -> Pose2D:
    if isinstance(value, Pose2D):
        if not value.is_finite():
            raise InvalidCommandError(f"{what} {value} is not finite")
        return _pose([value.x, value.y, value.theta], what)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 3:
        raise InvalidCommandError(f"{what} {value!r} is not an [x, y, theta] triple")
    return Pose2D(plausible_number(value[0], f"{what} x", MAX_FOOTSTEP_M),
                  plausible_number(value[1], f"{what} y", MAX_FOOTSTEP_M),
                  plausible_number(value[2], f"{what} theta", MAX_FOOTSTEP_RAD))


def _sequence(value: Any, what: str) -> Sequence:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidCommandError(f"{what} must be a list, got {value!r}")
    return value


class FootstepPlanner:
    """NAOqi-style footstep planner over a time-advanced queue (no ROS dependency).

    ``left_foot`` / ``right_foot`` are the planted feet (world/odometry plane);
    by default the robot stands at the origin, feet FootSeparation apart.
    ``preview_s`` is the unchangeable window (NAOqi: 0.8 s).
    """

    def __init__(
        self,
        left_foot: Pose2D | None = None,
        right_foot: Pose2D | None = None,
        now_s: float = 0.0,
        preview_s: float = DEFAULT_PREVIEW_S,
    ) -> None:
        half = 0.5 * DEFAULT_GAIT_CONFIG.foot_separation_m
        self._queue = StepQueue(
            left_foot if left_foot is not None else Pose2D(0.0, half, 0.0),
            right_foot if right_foot is not None else Pose2D(0.0, -half, 0.0),
            now_s,
            preview_s,
        )
        self._mode = WalkMode.IDLE
        self._config: MoveConfig = DEFAULT_MOVE_CONFIG
        self._stride: VelocityStride | None = None
        # Recent strides by (vx, vy, wz, config): a joystick repeats the same
        # few commands (often at full deflection, where saturating is costly).
        self._stride_cache: OrderedDict[tuple, VelocityStride] = OrderedDict()
        self._first_leg = Leg.LEFT

    # ------------------------------------------------------------------ clock
    @property
    def now_s(self) -> float:
        return self._queue.now_s

    @property
    def preview_s(self) -> float:
        return self._queue.preview_s

    def advance(self, dt_s: float) -> list[Footstep]:
        """Advance the clock by ``dt_s`` seconds; returns the steps completed meanwhile."""
        dt = finite_number(dt_s, "dt_s")
        if dt < 0.0:
            raise InvalidCommandError(f"dt_s {dt} must be >= 0")
        return self.advance_to(self._queue.now_s + dt)

    def advance_to(self, t_s: float) -> list[Footstep]:
        """Advance the clock to ``t_s`` seconds; returns the steps completed meanwhile."""
        done = self._queue.advance_to(finite_number(t_s, "t_s"))
        if self._mode is WalkMode.VELOCITY:
            self._fill_velocity_steps()
        elif not len(self._queue):
            self._mode = WalkMode.IDLE
        return done

    # --------------------------------------------------------------- queries
    @property
    def mode(self) -> WalkMode:
        return self._mode

    @property
    def velocity_stride(self) -> VelocityStride | None:
        """The stride of the current move/moveToward command (None otherwise)."""
        return self._stride if self._mode is WalkMode.VELOCITY else None

    @property
    def feet(self) -> FeetState:
        return self._queue.feet

    def steps(self) -> tuple[Footstep, ...]:
        """Every queued step, the one in progress first."""
        return self._queue.steps

    def planned_feet(self) -> FeetState:
        """The feet after every queued step (where the current plan ends)."""
        return self._queue.state_after()

    def unchangeable_steps(self) -> tuple[Footstep, ...]:
        return self._queue.unchangeable()

    def changeable_steps(self) -> tuple[Footstep, ...]:
        return self._queue.changeable()

    def current_step(self) -> Footstep | None:
        return self._queue.in_progress()

    def move_is_active(self) -> bool:
        return self._mode is WalkMode.VELOCITY or len(self._queue) > 0

    def get_robot_position(self) -> Pose2D:
        """Robot pose now: midpoint of the planted feet, mean heading."""
        return self._queue.feet.robot_pose()

    def get_next_robot_position(self) -> Pose2D:
        """Robot pose after the last unchangeable step (now, if there is none)."""
        return self._queue.state_after(self._queue.unchangeable_count()).robot_pose()

    def get_foot_steps(self) -> list:
        """NAOqi-style ``getFootSteps``.

        ``[[left [x, y, theta], right [x, y, theta]], unchangeable, changeable]``
        where the feet are the planted poses now and each step is
        ``[leg name, [x, y, theta] touch-down pose, seconds until it ends]``;
        poses in the world/odometry plane (m, rad).
        """
        now = self._queue.now_s
        feet = self._queue.feet

        def fmt(steps: Sequence[Footstep]) -> list:
            return [[s.leg.value, s.target.as_list(), s.end_s - now] for s in steps]

        return [
            [feet.left.as_list(), feet.right.as_list()],
            fmt(self._queue.unchangeable()),
            fmt(self._queue.changeable()),
        ]

    @staticmethod
    def get_move_config(kind: str) -> list[list[Any]]:
        """NAOqi ``getMoveConfig("Max" | "Min" | "Default")``."""
        return get_move_config(kind)

    # -------------------------------------------------------------- commands
    def move_to(
        self, x_m: float, y_m: float, theta_rad: float, move_config: Any = None
    ) -> None:
        """Walk to (x, y, theta) relative to the robot position now; ends feet together."""
        target = Pose2D(plausible_number(x_m, "x", MAX_MOVE_TO_M), plausible_number(y_m, "y", MAX_MOVE_TO_M),
                        plausible_number(theta_rad, "theta", MAX_MOVE_TO_RAD))
        config = parse_move_config(move_config, allow_per_foot=False, allow_frequency=False)
        goal = (self.get_robot_position() * target).normalized()
        gait = config.left
        state = self._queue.state_after(self._queue.unchangeable_count())
        steps = plan_move_to(state, goal, gait, gait.step_period_s(config.frequency))
        self._queue.replace_changeable(steps)
        self._config = config
        self._set_mode(WalkMode.MOVE_TO)

    def move(
        self, vx_mps: float, vy_mps: float, wz_radps: float, move_config: Any = None
    ) -> None:
        """Walk at the body velocity (m/s, m/s, rad/s) until another command; zero stops."""
        vx = plausible_number(vx_mps, "vx", MAX_COMMAND_SPEED_MPS)
        vy = plausible_number(vy_mps, "vy", MAX_COMMAND_SPEED_MPS)
        wz = plausible_number(wz_radps, "wz", MAX_COMMAND_RATE_RADPS)
        config = parse_move_config(move_config)
        self._set_velocity(vx, vy, wz, config)

    def move_toward(
        self, x: float, y: float, theta: float, move_config: Any = None
    ) -> None:
        """Normalised velocity in [-1, 1] per axis (Frequency in the config); zero stops."""
        xn, yn, tn = finite_number(x, "x"), finite_number(y, "y"), finite_number(theta, "theta")
        for name, v in (("x", xn), ("y", yn), ("theta", tn)):
            if not -1.0 <= v <= 1.0:
                raise InvalidCommandError(f"normalised {name} {v} is outside [-1, 1]")
        config = parse_move_config(move_config)
        if xn == 0.0 and yn == 0.0 and tn == 0.0:
            vx = vy = wz = 0.0
        else:
            vx, vy, wz = normalized_length_to_si_velocity(
                xn, yn, tn, config.frequency, config.left, config.right
            )
        self._set_velocity(vx, vy, wz, config)

    def set_foot_steps(
        self,
        legs: Sequence[str],
        poses: Sequence[Sequence[float]],
        times_s: Sequence[float],
        clear_existing: bool,
    ) -> None:
        """NAOqi ``setFootSteps``: poses relative to the other foot, cumulative end times (s)."""
        legs_p, poses_p = self._parse_footsteps(legs, poses, times_s, "times", clear_existing)
        durations = durations_from_times(times_s, DEFAULT_GAIT_CONFIG)
        self._apply_footsteps(legs_p, poses_p, durations, clear_existing)

    def set_foot_steps_with_speed(
        self,
        legs: Sequence[str],
        poses: Sequence[Sequence[float]],
        speeds: Sequence[float],
        clear_existing: bool,
    ) -> None:
        """NAOqi ``setFootStepsWithSpeed``: normalised speeds in [0, 1] set each step's duration."""
        legs_p, poses_p = self._parse_footsteps(legs, poses, speeds, "speeds", clear_existing)
        durations = durations_from_speeds(speeds, DEFAULT_GAIT_CONFIG)
        self._apply_footsteps(legs_p, poses_p, durations, clear_existing)

    def stop_move(self) -> None:
        """Stop at the next safe double support: unchangeable steps, then feet together."""
        keep = self._queue.unchangeable_count()
        state = self._queue.state_after(keep)
        closing: list[Footstep] = []
        gait = self._config.left
        sep = gait.foot_separation_m
        last = state.last_moved
        if last is not None and not state.feet_together(sep):
            anchor = state.pose(last)
            beside = anchor * Pose2D(0.0, last.other.side * sep, 0.0)
            goals = {last: anchor, last.other: beside.normalized()}
            closing_gait = self._config.for_leg(last.other.is_left)
            closing = approach_footprints(
                state, goals, closing_gait, closing_gait.step_period_s(self._config.frequency), 2
            )
        self._queue.replace_changeable(closing)
        self._set_mode(WalkMode.STOPPING)

    def hold_start(self) -> None:
        """The walk has not started the plan and cannot yet (its initialization movement, NAOqi:
        "the robot first performs an initialization movement"; or the plan reached it too late
        for its first step): the plan's first step is kept one preview window ahead, moved back
        there if it has begun on this clock. Called every cycle while the walk says so."""
        self._queue.postpone_start(self._queue.now_s + self._queue.preview_s)

    def hold_steps(self, duration_s: float) -> None:
        """The walk held its lift-off for ``duration_s`` (its step could not catch the robot,
        ``walk/hold_step``): every step, the one in progress too, comes that much later."""
        self._queue.postpone(finite_number(duration_s, "duration_s"))

    def kill_move(self) -> None:
        """Stop at once: every step is dropped, the one in progress included."""
        self._queue.clear()
        self._set_mode(WalkMode.IDLE)

    def reset(self, left_foot: Pose2D, right_foot: Pose2D, now_s: float | None = None) -> None:
        """Drop every step and set the planted feet (e.g. measured after killMove)."""
        self._queue.reset(_pose(left_foot, "left foot"), _pose(right_foot, "right foot"), now_s)
        self._set_mode(WalkMode.IDLE)

    # -------------------------------------------------------------- helpers
    def _set_mode(self, mode: WalkMode) -> None:
        if mode is not WalkMode.VELOCITY:
            self._stride = None
        if mode is not WalkMode.IDLE and not len(self._queue):
            mode = WalkMode.IDLE
        self._mode = mode

    def _set_velocity(self, vx: float, vy: float, wz: float, config: MoveConfig) -> None:
        if vx == 0.0 and vy == 0.0 and wz == 0.0:
            self._config = config
            self.stop_move()
            return
        key = (vx, vy, wz, config)
        stride = self._stride_cache.get(key)
        if stride is None:
            stride = plan_velocity_stride(vx, vy, wz, config)
            self._stride_cache[key] = stride
            if len(self._stride_cache) > _STRIDE_CACHE_SIZE:
                self._stride_cache.popitem(last=False)
        else:
            self._stride_cache.move_to_end(key)
        self._queue.replace_changeable(())
        self._config = config
        self._stride = stride
        self._first_leg = first_swing_leg(vy, wz)
        self._mode = WalkMode.VELOCITY
        self._fill_velocity_steps()

    def _fill_velocity_steps(self) -> None:
        stride = self._stride
        assert stride is not None
        horizon = self._queue.now_s + self._queue.preview_s
        steps = self._queue.steps
        if steps and steps[-1].start_s >= horizon:
            return
        state = self._queue.state_after()
        new: list[Footstep] = []
        config = self._config
        while True:
            leg = state.last_moved.other if state.last_moved is not None else self._first_leg
            gait = config.for_leg(leg.is_left)
            step, state = make_step(
                state, leg, stride.move_for(leg), stride.period_for(leg), gait
            )
            new.append(step)
            # Keep at least one changeable step so the walk always previews ahead.
            if step.start_s >= horizon:
                break
        self._queue.append(new)

    def _parse_footsteps(
        self, legs: Any, poses: Any, timing: Any, timing_name: str, clear_existing: Any
    ) -> tuple[list[Leg], list[Pose2D]]:
        if not isinstance(clear_existing, bool):
            raise InvalidCommandError(f"clear_existing must be a bool, got {clear_existing!r}")
        legs = _sequence(legs, "legs")
        poses = _sequence(poses, "poses")
        timing = _sequence(timing, timing_name)
        if not (len(legs) == len(poses) == len(timing)):
            raise InvalidCommandError(
                f"legs, poses and {timing_name} must have the same length "
                f"(got {len(legs)}, {len(poses)}, {len(timing)})"
            )
        legs_p = [Leg.parse(name) for name in legs]
        poses_p = [_pose(p, f"pose {i}") for i, p in enumerate(poses)]
        return legs_p, poses_p

    def _apply_footsteps(
        self, legs: list[Leg], poses: list[Pose2D], durations: list[float], clear_existing: bool
    ) -> None:
        if clear_existing:
            state = self._queue.state_after(self._queue.unchangeable_count())
        else:
            state = self._queue.state_after()
        new: list[Footstep] = []
        for leg, pose, duration in zip(legs, poses, durations):
            step, state = make_step(state, leg, pose, duration, DEFAULT_GAIT_CONFIG)
            new.append(step)
        if clear_existing:
            self._queue.replace_changeable(new)
        else:
            self._queue.append(new)
        self._config = DEFAULT_MOVE_CONFIG
        self._set_mode(WalkMode.FOOTSTEPS)
