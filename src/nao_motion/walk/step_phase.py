"""Where a step is at a given time: its double-support part, then its swing (single support).

Each planned step (``Footstep``, start_s .. end_s) opens with a double-support part, both feet on
the ground while the ZMP moves from the previous support foot onto the new one, then the moving
foot swings (single support on the other foot) and touches down at end_s, which is where the
next step's double support begins (NAOqi: "one cycle is a phase of double leg support followed
by a phase of single leg support").

Why 0.15 of the step period by default: at NAOqi's shortest period (0.42 s) that is 63 ms of
double support for a lateral ZMP transfer of about FootSeparation (0.1 m), which the cart-table
still follows within a few millimetres, and it leaves 0.357 s of swing. The swing is what
limits the fast gait: lifting the foot StepHeight (2 cm) from StandInit's nearly straight leg
folds the swing knee by ~0.46 rad, and over the 0.315 s swing that 0.25 left, the knee needed
6.1 rad/s, 95 % of its motor's no-load speed (where a DC motor has no torque left). The
balancer then met its joint speed limits, and the simulated NAO fell within a metre at the
default gait; the longer swing lowers every swing-leg speed by 12 % and, with the balancer
keeping the centre of mass first (``BalancerConfig.foot_weight``) and the walk stabiliser,
walks every test gait. A still shorter transfer asks for large CoM jerks (the ZMP nearly jumps
between the feet).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..footsteps.footstep import Footstep

__all__ = ["StepPhases"]


@dataclass(frozen=True)
class StepPhases:
    """Split of every step into double support (first) and swing (the rest)."""

    double_support_fraction: float = 0.15

    def __post_init__(self) -> None:
        if not (0.05 <= self.double_support_fraction <= 0.6):
            raise ValueError(
                f"double_support_fraction must be in [0.05, 0.6], got {self.double_support_fraction!r}"
            )

    def swing_start_s(self, step: Footstep) -> float:
        """Lift-off time: the end of the step's double support."""
        return step.start_s + self.double_support_fraction * (step.end_s - step.start_s)

    def swing_phase(self, step: Footstep, t_s: float) -> float:
        """0 until lift-off, then rising linearly to 1 at touch-down (clamped)."""
        lift_off = self.swing_start_s(step)
        if t_s <= lift_off:
            return 0.0
        return min(1.0, (t_s - lift_off) / (step.end_s - lift_off))

    def in_double_support(self, step: Footstep, t_s: float) -> bool:
        return t_s < self.swing_start_s(step) or t_s >= step.end_s
