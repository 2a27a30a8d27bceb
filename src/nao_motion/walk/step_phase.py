"""Where a step is at a given time: its double-support part, then its swing (single support).

Each planned step (``Footstep``, start_s .. end_s) opens with a double-support part, both feet on
the ground while the ZMP moves from the previous support foot onto the new one, then the moving
foot swings (single support on the other foot) and touches down at end_s, which is where the
next step's double support begins (NAOqi: "one cycle is a phase of double leg support followed
by a phase of single leg support").

How long the double support is depends on how far the swinging foot goes
(``double_support_share``): 0.15 of the period for NAOqi's largest step, up to 0.25 for a step
in place, linearly in between (0.2 for the default gait's full step forward). The two limits
pull the other way:

* The largest steps need the swing. At NAOqi's shortest period (0.42 s) 0.15 leaves 0.357 s of
  swing, and 63 ms of double support for a lateral ZMP transfer of about FootSeparation (0.1 m),
  which the cart-table still follows within a few millimetres. Lifting the foot StepHeight (2 cm)
  from StandInit's nearly straight leg folds the swing knee by ~0.46 rad; with 0.2 of the period
  for every step (0.336 s of swing), the simulated NAO fell walking forward at MaxStepX 0.08 (V5
  and V6) and turning at MaxStepTheta 0.524 (V5; the V6 turned at 54 % of the speed asked),
  ``bench_walk_envelope --envelope``.
* A robot whose servos give more under load than the model's needs the double support. The
  robot's weight comes onto the new support foot late (on the simulated NAO the foot about to
  swing still carries over 90 % of it at lift-off, nominal or weak, 0.15 or 0.2), and with 70 %
  of the model's servo strength and 0.15 for every step, the swinging foot was off the floor only
  100-230 ms of its 357 ms swing on a 0.3 m walk (nominal: 250-270 ms); its short sideways steps
  went the wrong way and a 0.4 m moveTo ended 5 cm to the side. With the default gait's 0.2 that
  foot is off the floor 190-230 ms of 335 ms, and the moveTo ends 2 cm off.

A still shorter transfer than 0.15 asks for large CoM jerks (the ZMP nearly jumps between the
feet).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..footsteps.footstep import Footstep
from ..footsteps.pose2d import normalize_angle
from ..footsteps.gait_config import GAIT_PARAMETERS

__all__ = ["StepPhases", "landed_early", "swing_size"]

# How far the swinging foot goes in NAOqi's largest step (the gait parameters' upper bounds), in
# the frame of where it lifts off: from MaxStepX behind the support foot to MaxStepX ahead of it;
# sideways from FootSeparation to MaxStepY; turned by MaxStepTheta.
LARGEST_SWING_X_M = 2 * GAIT_PARAMETERS["MaxStepX"].maximum
LARGEST_SWING_Y_M = GAIT_PARAMETERS["MaxStepY"].maximum - GAIT_PARAMETERS["FootSeparation"].default
LARGEST_SWING_THETA_RAD = GAIT_PARAMETERS["MaxStepTheta"].maximum
# Lift-off times remembered per step object: a walk cycle asks for those of the same few steps
# (in the ZMP window, the step in progress) about ten times. More than this many: forgotten.
LIFT_OFF_CACHE_STEPS = 64


def swing_size(step: Footstep) -> float:
    """How far the step's swinging foot goes, of the largest step's (0..1): its largest motion
    (forward, sideways, turning) in the frame of where it lifts off, against the same motion in
    the largest step."""
    swing = step.target.relative_to(step.origin)
    # The turn wrapped: poses are normalised, and a small turn across a heading of +-pi is small.
    size = max(abs(swing.x) / LARGEST_SWING_X_M, abs(swing.y) / LARGEST_SWING_Y_M,
               abs(normalize_angle(swing.theta)) / LARGEST_SWING_THETA_RAD)
    return size if size < 1.0 else 1.0


def landed_early(swing_phase: float, swing_foot_carries: bool) -> bool:
    """Whether a step's swinging foot has landed before its touchdown on the walk's clock (a push
    toward it lands it early): it carries the robot (more of the weight than the stance foot)
    after mid-swing. Before mid-swing, that is the foot still dragging at its lift-off."""
    return swing_phase > 0.5 and swing_foot_carries


@dataclass(frozen=True)
class StepPhases:
    """Split of every step into double support (first) and swing (the rest): of the period,
    ``double_support_fraction`` for the largest step, ``small_step_double_support_fraction``
    for a step in place (module docstring)."""

    double_support_fraction: float = 0.15
    small_step_double_support_fraction: float = 0.25
    # id(step) -> (step, its lift-off time): the step is kept, so its id is not reused meanwhile.
    _lift_off_s: dict[int, tuple[Footstep, float]] = field(default_factory=dict, init=False, repr=False,
                                                           compare=False)

    def __post_init__(self) -> None:
        for name in ("double_support_fraction", "small_step_double_support_fraction"):
            if not (0.05 <= getattr(self, name) <= 0.6):
                raise ValueError(f"{name} must be in [0.05, 0.6], got {getattr(self, name)!r}")

    def double_support_share(self, step: Footstep) -> float:
        """The step's double support, a fraction of its period (``double_support_for`` its
        ``swing_size``)."""
        return self.double_support_for(swing_size(step))

    def double_support_for(self, size: float) -> float:
        """The double support of a step whose swing is ``size`` (0..1) of the largest one's."""
        small = self.small_step_double_support_fraction
        return small + (self.double_support_fraction - small) * size

    def swing_start_s(self, step: Footstep) -> float:
        """Lift-off time: the end of the step's double support."""
        cached = self._lift_off_s.get(id(step))
        if cached is not None and cached[0] is step:
            return cached[1]
        lift_off_s = step.start_s + self.double_support_share(step) * (step.end_s - step.start_s)
        if len(self._lift_off_s) >= LIFT_OFF_CACHE_STEPS:
            self._lift_off_s.clear()
        self._lift_off_s[id(step)] = (step, lift_off_s)
        return lift_off_s

    def swing_phase(self, step: Footstep, t_s: float) -> float:
        """0 until lift-off, then rising linearly to 1 at touch-down (clamped)."""
        lift_off = self.swing_start_s(step)
        if t_s <= lift_off:
            return 0.0
        return min(1.0, (t_s - lift_off) / (step.end_s - lift_off))

    def in_double_support(self, step: Footstep, t_s: float) -> bool:
        return t_s < self.swing_start_s(step) or t_s >= step.end_s
