"""How far a pushed robot's DCM is beyond what any steps within NAOqi's limits can catch (LIPM).

Why. A push leaves the robot with a DCM xi = c + c_dot / omega ahead of its feet. On the linear
inverted pendulum it runs away from the centre of pressure p as xi_dot = omega (xi - p), and it is
caught once it is within the CoP's reach: p can then sit on it. Whether any walk could catch a push
is then a matter of how far the CoP reaches and how soon and how far the feet can step
(N-step capturability: Koolen, de Boer, Rebula, Goswami and Pratt, IJRR 2012). This bound tells a
push that no walk within the limits catches (the physics) from one the walk failed (the
controller); ``bench_walk_envelope.py --pushes`` prints it per pushed walk.

What limits the reach, along the push's direction (one axis: forward, or sideways):

* one foot down: its sole's edge, and its ankle's torque over the robot's weight (AnklePitch's
  3.02 N m hold the CoP at most 5.8 cm ahead of the ankle on the 5.3 kg NAO V5, short of its toe at
  9.9 cm: the leg then pitches over the flat foot);
* both feet down: the load split between them that puts the CoP farthest (each ankle carries its
  own torque, so a part of the weight on each foot reaches farther than all of it on the front one);
* the steps: the step in progress lands no sooner than MinStepPeriod after it started, the next ones
  every MinStepPeriod, each at NAOqi's extremal clipping (MaxStepX 0.08 m forward of the other foot;
  sideways MaxStepY 0.16 m from it for the foot on the push's side, MinFootSeparation 0.088 m for
  the other, which cannot cross), with the most favourable double-support share of a few.

Generous on purpose (a bound, not a plan): the swinging foot may land anywhere within the limits
whatever its swing has left, each axis at its own maximum (the clipping's ellipse ignored), the CoP
jumps to its reach. Not counted: the body's angular momentum (a hip strategy, and the rotation a
push at the torso starts) and the CoM's height changing. The simulated NAO survives some pushes
this bound calls short by up to 1.8 cm, and falls in one it leaves 1.8 cm of room (2.2 cm on the
V6): a push toward the swinging foot late in its swing lands it early and rolling over its outer
edge (``bench_walk_envelope.py --pushes``, which takes a foot carrying the robot as landed).

No rclpy; one axis, m, s, N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..body_shapes import sole_boxes
from ..footsteps.clipping import EXTREMAL_CLIP_LIMITS
from ..footsteps.gait_config import GAIT_PARAMETERS
from ..model import NaoModel
from .preview_control import GRAVITY_MPS2

__all__ = ["CaptureLimits", "StepInProgress", "catchable_dcm_m", "dcm_shortfall_m", "two_feet_reach_m"]

CAPTURE_STEPS = 8  # steps after the one in progress; more change the bound by < 0.1 mm
DOUBLE_SUPPORT_SHARES = (0.15, 0.25, 0.4)  # of MinStepPeriod; the walk's are 0.15-0.25


@dataclass(frozen=True)
class CaptureLimits:
    """The CoP's reach and the steps' limits (module docstring), from the model and NAOqi's gait table."""

    sole_x_m: tuple[float, float]  # heel, toe: the sole frame (under the ankle), x forward
    left_sole_y_m: tuple[float, float]  # inner, outer edge of the left sole (the right one mirrored)
    ankle_pitch_torque_nm: float
    ankle_roll_torque_nm: float
    weight_n: float
    max_step_x_m: float = EXTREMAL_CLIP_LIMITS.max_step_x_m
    max_step_y_m: float = EXTREMAL_CLIP_LIMITS.max_step_y_m
    min_foot_separation_m: float = EXTREMAL_CLIP_LIMITS.min_foot_separation_m
    min_step_period_s: float = GAIT_PARAMETERS["MinStepPeriod"].default

    @classmethod
    def for_model(cls, model: NaoModel) -> "CaptureLimits":
        left = next(b for b in sole_boxes(model) if b.sole_frame == "l_sole")
        return cls(left.x_range_m, left.y_range_m,
                   float(model.max_effort[model.joint_index("LAnklePitch")]),
                   float(model.max_effort[model.joint_index("LAnkleRoll")]),
                   model.total_mass_kg * GRAVITY_MPS2)

    def ankle_reach_m(self, forward: bool) -> float:
        """How far from its ankle one foot carrying the whole weight holds the CoP, by the ankle's
        torque (AnklePitch ahead or behind, AnkleRoll sideways); the sole's edge may stop it sooner."""
        torque_nm = self.ankle_pitch_torque_nm if forward else self.ankle_roll_torque_nm
        return torque_nm / self.weight_n

    def edge_m(self, forward: bool, left_foot: bool, toward_left: bool) -> float:
        """How far the sole reaches from its ankle along the direction: ahead, or toward the left
        (``toward_left``) or the right."""
        if forward:
            return self.sole_x_m[1]
        inner, outer = -self.left_sole_y_m[0], self.left_sole_y_m[1]
        return outer if left_foot == toward_left else inner


@dataclass(frozen=True)
class StepInProgress:
    """The step the walk is taking (its own clock): which foot swings, and when."""

    left_moving: bool
    start_s: float
    lift_s: float  # the end of its double support
    end_s: float  # planned touchdown


def catchable_dcm_m(omega: float, phases: Sequence[tuple[float, float]]) -> float:
    """The farthest DCM (along the axis) that phases of (duration s, the CoP's reach m) catch.

    With the CoP at its reach the DCM runs away least; it is caught in a phase it starts within the
    reach of. Backward, the DCM caught at the start of phase k came from
    reach_j + (xi - reach_j) exp(-omega d_j) at the start of each earlier phase j."""
    best = -math.inf
    for k in range(len(phases)):
        xi = phases[k][1]
        for duration_s, reach_m in reversed(phases[:k]):
            xi = reach_m + (xi - reach_m) * math.exp(-omega * duration_s)
        best = max(best, xi)
    return best


def two_feet_reach_m(first_m: float, first_edge_m: float, second_m: float, second_edge_m: float,
                     torque_nm: float, weight_n: float) -> float:
    """The farthest CoP of two feet down (ankles at ``first_m``, ``second_m``; soles reaching
    ``*_edge_m`` past them), the weight split between them, each ankle's torque ``torque_nm``.

    The moment sum_i (F_i a_i + min(F_i e_i, torque)) is piecewise linear in the split: its
    maximum is at a kink or an end."""
    def reach(first_n: float) -> float:
        second_n = weight_n - first_n
        return (first_n * first_m + min(first_n * first_edge_m, torque_nm)
                + second_n * second_m + min(second_n * second_edge_m, torque_nm)) / weight_n
    kinks = (0.0, weight_n, torque_nm / first_edge_m, weight_n - torque_nm / second_edge_m)
    return max(reach(min(weight_n, max(0.0, f))) for f in kinks)


def dcm_shortfall_m(limits: CaptureLimits, omega: float, dcm_m: float, left_m: float, right_m: float,
                    step: StepInProgress, now_s: float, forward: bool, toward_left: bool = True) -> float:
    """How far the DCM (``dcm_m``) is beyond what any steps within the limits catch (> 0: none
    does; <= 0: the margin), along the axis: ahead (``forward``), else toward the left or the
    right (``toward_left``). ``*_m``: the DCM and the ankles on that axis, as coordinates along it
    (forward: x ahead; sideways: y toward the left)."""
    sign = 1.0 if forward or toward_left else -1.0
    along = {True: sign * left_m, False: sign * right_m}  # the ankles, keyed by "left foot"
    torque = limits.ankle_pitch_torque_nm if forward else limits.ankle_roll_torque_nm
    weight = limits.weight_n

    def edge(left_foot: bool) -> float:
        return limits.edge_m(forward, left_foot, toward_left)

    def one(left_foot: bool, at: dict) -> float:
        return at[left_foot] + min(edge(left_foot), limits.ankle_reach_m(forward))

    def two(at: dict) -> float:
        return two_feet_reach_m(at[True], edge(True), at[False], edge(False), torque, weight)

    def landing(left_foot: bool, at: dict) -> float:
        other = at[not left_foot]
        if forward:
            return other + limits.max_step_x_m
        # The foot on the push's side steps out; the other comes no closer than the separation.
        return other + (limits.max_step_y_m if left_foot == toward_left else -limits.min_foot_separation_m)

    touchdown_s = max(now_s, min(step.end_s, step.start_s + limits.min_step_period_s))
    moving = step.left_moving
    first = []
    if now_s < step.lift_s:
        first.append((step.lift_s - now_s, two(along)))
    first.append((touchdown_s - max(now_s, step.lift_s), one(not moving, along)))
    best = -math.inf
    for share in DOUBLE_SUPPORT_SHARES:
        at, leg, phases = dict(along), moving, list(first)
        for _ in range(CAPTURE_STEPS):
            at[leg] = landing(leg, at)
            phases.append((share * limits.min_step_period_s, two(at)))
            phases.append(((1.0 - share) * limits.min_step_period_s, one(leg, at)))
            leg = not leg
        best = max(best, catchable_dcm_m(omega, phases))
    return sign * dcm_m - best
