"""Heading and position correction: the steps the walk executes are turned by the heading the
feet lost and shifted by the distance the sensed odometry says the robot fell short of its plan.

Why. The walk is open loop in the floor plane: the balancer places each foot relative to the
others as planned, assuming the planted feet do not move. They do: measured in the simulator
on moveTo(1.0, 0.5, 1.57) (31 steps turning 3 deg each), the foot that has just landed turns
~0.4-0.5 deg further in the turning direction during the double support that follows (the
trailing foot, being unloaded, turns ~0.7 deg, but it is lifted and re-placed next), the
support foot turns +-0.9 deg in single support (alternating, nearly cancelling) and the swing
foot lands 0.1-0.4 deg off its target: summed along the chain of support feet, +10.3 deg of
heading over the walk, which put the robot 11 deg and 12 cm off the goal. The translations
(a millimetre per step) are much smaller. What the feet lose in yaw the torso's IMU sees; the
balancer's model (its torso in ``wb_world``, feet fixed) does not. Their difference is the
heading error, measurable on a real NAO (IMU yaw: the integrated gyro, good over a walk's
tens of seconds; torso model: joint encoders), as NAOqi's own odometry is.

What. At each step's lift-off, when the swing foot's trajectory has not started (so no
reference jumps), the correction ``C`` (a 2D rigid transform, planned odometry plane ->
executed plane) is turned by minus the heading error not yet corrected, about the support
foot (the point the robot stands on, so the steps already taken stay where they are). Every
pose not yet reached is executed through ``C``: the swinging foot's target and all later
steps; a planted foot keeps the correction it landed with, so a planted foot is never moved.
Position, in the same transform: the feet also land off their targets, by what the servos do
not track (weaker or later than the model: 70 % servos walked 0.83 m of a planned 1 m, every
step ~7 mm short); the balancer's model does not see that, the sensed odometry
(``walk.leg_odometry``: support-foot kinematics of the measured joints) does. At the same
lift-off, after the turn, ``C``'s translation is set so that the support foot as sensed (in the
plan's frame) maps onto the support foot as executed: the steps not yet taken then go from where
the robot really stands to the planned targets (the next step longer or shorter by the error),
so a moveTo ends at its goal as the sensed odometry measures it, up to the last step's own
error. At most ``max_step_shift_m`` per lift-off (a misread foot, a push), times ``position_gain``.
A balance recovery step (``walk.step_recovery``) translates ``C`` (``shift``): from then on the
executed steps are clipped by NAOqi's clipping (a foot moved toward the support foot stops at
the collision limit; it lands with the transform of its clipped target) and the position
correction runs at full gain, so the steps go back onto the plan from where the robot stands.
The plan itself (the footstep planner's queue, its odometry frame) is not changed: the walk
executes a corrected copy of it, and reports odometry through ``C`` back in the planner's
frame (``planned_from_executed``), which is then the robot's pose including the turn its feet
lost, as the planner expects it.

Per cycle (before ``WalkPatternGenerator.step``)::

    steps, feet = correction.update(t_s, planner_steps, planner_feet, imu_yaw_rad, model_yaw_rad, sensed_feet)
    output = generator.step(t_s, steps, feet)

``imu_yaw_rad``: the torso's measured yaw (IMU orientation); ``model_yaw_rad``: the torso's yaw
in the balancer's world (its torso pose, the one that goes with the joints measured now). Both
only count from ``reset`` on (their start values are the reference). ``sensed_feet``: each
sole's sensed floor pose in the planner's frame (None: not measured this cycle, no shift). The executed steps are
rebuilt only when the plan, the correction or a planted foot changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..footsteps.clipping import clip_footstep
from ..footsteps.footstep import FeetState, Footstep, Leg
from ..footsteps.pose2d import Pose2D, normalize_angle
from .step_phase import StepPhases

__all__ = ["HeadingCorrection", "HeadingCorrectionConfig", "planned_pose", "rotation_about"]

IDENTITY = Pose2D(0.0, 0.0, 0.0)


@dataclass(frozen=True)
class HeadingCorrectionConfig:
    """Fraction of the measured heading (position) error corrected at each lift-off, and a per-step bound."""

    gain: float = 1.0
    position_gain: float = 1.0
    # A step turns at most MaxStepTheta (0.349 rad) and the clipping's hard limit is 0.524 rad:
    # a bounded correction keeps every executed step near its clipped plan even if the IMU
    # reads a jump (a push, a collision).
    max_step_correction_rad: float = 0.05
    # 70 % servos lose ~7 mm per 4 cm step: twice that per lift-off catches up within a step or
    # two, and a step stays within a centimetre and a half of its clipped plan (feet apart).
    max_step_shift_m: float = 0.015

    def __post_init__(self) -> None:
        if not (math.isfinite(self.gain) and 0.0 <= self.gain <= 1.0):
            raise ValueError(f"gain must be in [0, 1], got {self.gain!r}")
        if not (math.isfinite(self.position_gain) and 0.0 <= self.position_gain <= 1.0):
            raise ValueError(f"position_gain must be in [0, 1], got {self.position_gain!r}")
        if not (math.isfinite(self.max_step_shift_m) and 0.0 < self.max_step_shift_m <= 0.05):
            raise ValueError(f"max_step_shift_m must be in (0, 0.05], got {self.max_step_shift_m!r}")
        if not (math.isfinite(self.max_step_correction_rad) and 0.0 < self.max_step_correction_rad <= 0.2):
            raise ValueError(f"max_step_correction_rad must be in (0, 0.2], got {self.max_step_correction_rad!r}")


def _same_step(a: Footstep, b: Footstep | None) -> bool:
    return b is not None and a.leg is b.leg and a.start_s == b.start_s


def planned_pose(executed_to_planned: Pose2D, pose: Pose2D) -> Pose2D:
    """A pose of the executed plane in the planner's, by ``HeadingCorrection.executed_to_planned``
    (as it was when the pose was executed)."""
    return (executed_to_planned * pose).normalized()


def rotation_about(x_m: float, y_m: float, angle_rad: float) -> Pose2D:
    """The rigid transform turning the plane by ``angle_rad`` about the point (x_m, y_m)."""
    c, s = math.cos(angle_rad), math.sin(angle_rad)
    return Pose2D(x_m - (c * x_m - s * y_m), y_m - (s * x_m + c * y_m), angle_rad)


class HeadingCorrection:
    """Planned steps -> executed steps, turned by the measured heading error (module docstring)."""

    def __init__(self, phases: StepPhases, config: HeadingCorrectionConfig | None = None):
        self.phases = phases
        self.config = config or HeadingCorrectionConfig()
        self.reset(FeetState(IDENTITY, IDENTITY, None, 0.0), 0.0, 0.0)

    def reset(self, feet: FeetState, imu_yaw_rad: float, model_yaw_rad: float) -> None:
        """Start a walk from the planner's planted ``feet``: no correction, the yaws' reference."""
        self.correction = IDENTITY  # executed_from_planned
        self._inverse = (IDENTITY, IDENTITY)  # (C, C's inverse)
        self.position_gain = self.config.position_gain
        self.heading_error_rad = 0.0
        self._yaw_offset_rad = imu_yaw_rad - model_yaw_rad
        self._leg_correction = {Leg.LEFT: IDENTITY, Leg.RIGHT: IDENTITY}  # what each planted foot landed with
        self._planted = {Leg.LEFT: feet.left, Leg.RIGHT: feet.right}
        self._lifted: Footstep | None = None
        self._support_error: dict[Leg, tuple[float, float]] = {}  # each foot's sensed - planned (m) when it last supported
        self._plan_in: tuple[Sequence[Footstep], FeetState] | None = None
        self._executed: tuple[tuple[Footstep, ...], FeetState] = ((), feet)
        # A recovery step shifted the plan (``shift``): from then on every executed step is clipped
        # by NAOqi's clipping, and a foot lands with the transform of its clipped target.
        self._clipping = False
        self._shift_pending = False

    @property
    def corrected_rad(self) -> float:
        """The heading turned into the executed steps so far (minus the measured error, when caught up)."""
        return self.correction.theta

    @property
    def executed_to_planned(self) -> Pose2D:
        """C's inverse: the executed plane -> the planner's odometry plane (``planned_pose``)."""
        if self._inverse[0] is not self.correction:  # C changes at lift-offs only
            self._inverse = (self.correction, self.correction.inverse())
        return self._inverse[1]

    def planned_from_executed(self, pose: Pose2D) -> Pose2D:
        """A pose measured in the executed plane (the balancer's, through ``world_from_odom``) in
        the planner's odometry plane."""
        return planned_pose(self.executed_to_planned, pose)

    def shift(self, dx_m: float, dy_m: float) -> None:
        """Translate every pose not yet reached (``walk.step_recovery``), from the next ``update``.

        From then on the executed steps are clipped, and the position correction runs at full
        gain for the rest of the walk: after a push the robot no longer stands where the plan
        has it, and the steps not yet taken go on from where the sensed odometry has it, so the
        running moveTo still reaches its goal."""
        c = self.correction
        self.correction = Pose2D(c.x + dx_m, c.y + dy_m, c.theta)
        self._clipping = self._shift_pending = True
        self.position_gain = 1.0

    def update(
        self, t_s: float, steps: Sequence[Footstep], feet: FeetState, imu_yaw_rad: float | None,
        model_yaw_rad: float, sensed_feet: Mapping[Leg, Pose2D] | None = None,
    ) -> tuple[tuple[Footstep, ...], FeetState]:
        """The executed steps and planted feet at ``t_s`` for the planner's ``steps`` and ``feet``.

        ``imu_yaw_rad`` None (no fresh IMU): the last error is kept, so once corrected nothing
        more turns until the IMU is back.
        """
        if imu_yaw_rad is not None:
            self.heading_error_rad = normalize_angle(imu_yaw_rad - model_yaw_rad - self._yaw_offset_rad)
        changed, self._shift_pending = self._shift_pending, False
        for leg in (Leg.LEFT, Leg.RIGHT):
            if feet.pose(leg) != self._planted[leg]:  # that foot landed (or the plan was reset)
                self._planted[leg] = feet.pose(leg)
                self._leg_correction[leg] = self._landed_correction(leg, feet.pose(leg))
                changed = True
        current = steps[0] if steps and steps[0].start_s <= t_s else None
        # A step is the same step from cycle to cycle by its leg and start, not by its object: a
        # walk's first step of each leg is rebuilt every cycle (start_from_actual_feet), and a
        # step taken for a new one turned C again at every cycle of its swing, by up to
        # max_step_correction_rad each: the executed plan spun under the robot, which fell.
        if (current is not None and not _same_step(current, self._lifted)
                and t_s >= self.phases.swing_start_s(current)):
            self._lifted = current
            support_leg = current.support_leg
            changed |= self._turn_about(feet.pose(support_leg), support_leg)
            if sensed_feet is not None:
                changed |= self._shift_to(feet, support_leg, sensed_feet)
        if changed or not self._same_plan(steps, feet):
            self._plan_in = (steps, feet)
            self._executed = self._execute(steps, feet)
        return self._executed

    def _turn_about(self, support_planned: Pose2D, support_leg: Leg) -> bool:
        """Turn ``C`` by the error not yet corrected, about the support foot where it is executed."""
        cfg = self.config
        error_rad = normalize_angle(self.heading_error_rad + self.correction.theta)
        turn_rad = -min(cfg.max_step_correction_rad, max(-cfg.max_step_correction_rad, cfg.gain * error_rad))
        if turn_rad == 0.0:
            return False
        support = self._leg_correction[support_leg] * support_planned
        self.correction = (rotation_about(support.x, support.y, turn_rad) * self.correction).normalized()
        return True

    def _shift_to(self, feet: FeetState, support_leg: Leg, sensed_feet: Mapping[Leg, Pose2D]) -> bool:
        """Shift ``C`` so that the next targets lie from where the robot really stands as planned
        (gain, bounded): ``C`` maps the support foot as executed from the support foot's planned
        pose plus the feet's mean error (sensed - planned).

        The mean of both feet's errors, not the support foot's alone: weak hips land each foot
        ~2 cm inward of its target (the left toward -y, the right toward +y); following the
        support foot alone moved the next target by that each step, narrowed the stance by twice
        the bias and the feet collided (the robot fell within 3 s). The other foot's error is the
        one it had when it last supported (at the previous lift-off): by now it is unloaded and
        may have been dragged, which moves it but not where the robot stands."""
        cfg = self.config
        planned = feet.pose(support_leg)
        sensed = sensed_feet[support_leg]
        error = (sensed.x - planned.x, sensed.y - planned.y)
        other = support_leg.other
        if other not in self._support_error:  # the walk's first lift-off: the other foot has not moved yet
            o_planned, o_sensed = feet.pose(other), sensed_feet[other]
            self._support_error[other] = (o_sensed.x - o_planned.x, o_sensed.y - o_planned.y)
        other_error = self._support_error[other]
        self._support_error[support_leg] = error
        # Where the robot stands, as the support foot's pose would be with the mean error.
        sx = planned.x + 0.5 * (error[0] + other_error[0])
        sy = planned.y + 0.5 * (error[1] + other_error[1])
        executed = self._leg_correction[support_leg] * planned
        c, s = math.cos(self.correction.theta), math.sin(self.correction.theta)
        dx = executed.x - (c * sx - s * sy) - self.correction.x
        dy = executed.y - (s * sx + c * sy) - self.correction.y
        scale = self.position_gain
        length_m = math.hypot(dx, dy) * scale
        if length_m > cfg.max_step_shift_m:
            scale *= cfg.max_step_shift_m / length_m
        if scale * math.hypot(dx, dy) < 1e-6:
            return False
        c = self.correction
        self.correction = Pose2D(c.x + scale * dx, c.y + scale * dy, c.theta)
        return True

    def _landed_correction(self, leg: Leg, planned: Pose2D) -> Pose2D:
        """The transform a foot that just landed on ``planned`` keeps: ``C``, or with clipping
        on, the one onto the target it was executed to (its step's, the leg's first in the last
        executed plan)."""
        if self._clipping:
            for step in self._executed[0]:
                if step.leg is leg:
                    return (step.target * planned.inverse()).normalized()
        return self.correction

    def _same_plan(self, steps: Sequence[Footstep], feet: FeetState) -> bool:
        if self._plan_in is None:
            return False
        old_steps, old_feet = self._plan_in
        # Not the feet's time: the planner advances it every cycle and the generator does not use it.
        if (old_feet.left, old_feet.right, old_feet.last_moved) != (feet.left, feet.right, feet.last_moved) \
                or len(old_steps) != len(steps):
            return False
        return old_steps is steps or all(a is b or a == b for a, b in zip(old_steps, steps))

    def _execute(self, steps: Sequence[Footstep], feet: FeetState) -> tuple[tuple[Footstep, ...], FeetState]:
        if self.correction == IDENTITY and all(c == IDENTITY for c in self._leg_correction.values()):
            return tuple(steps), feet
        left = (self._leg_correction[Leg.LEFT] * feet.left).normalized()
        right = (self._leg_correction[Leg.RIGHT] * feet.right).normalized()
        state = executed_feet = FeetState(left, right, feet.last_moved, feet.time_s)
        out = []
        for step in steps:
            target = (self.correction * step.target).normalized()
            support = state.pose(step.support_leg)
            move = target.relative_to(support)
            if self._clipping:
                move = clip_footstep(move, step.leg is Leg.RIGHT)
                target = (support * move).normalized()
            executed = replace(step, move=move, origin=state.pose(step.leg), target=target, support=support)
            out.append(executed)
            state = state.after(executed)
        return tuple(out), executed_feet
