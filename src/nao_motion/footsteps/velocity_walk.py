"""move / moveToward: the stride that realises a body velocity.

A velocity (vx m/s, vy m/s, wz rad/s, in the robot frame) becomes a robot
increment per step of exp(T * (vx, vy, wz)), T being the moving leg's step
period from Frequency (``GaitConfig.step_period_s``). Each new step then moves
the swing foot by the regular-pattern move relative to its support foot
(``walk_pattern``), which is the same for every left step and for every right
step, so a command costs one stride computation and a few cheap steps.

A velocity beyond what the gait allows is scaled down as a whole (direction
kept): first by the per-axis stride limits, then by bisection on the scale
(8 halvings, i.e. within 0.4 % of the feasible maximum) until the pattern is
feasible (ellipse, foot collision, turning cross terms).
"""

from __future__ import annotations

from dataclasses import dataclass

from .footstep import Leg
from .gait_config import MoveConfig
from .pose2d import Pose2D, se2_exp
from .walk_pattern import StepShape, choose_half_width, turn_offset_ratio

__all__ = ["VelocityStride", "plan_velocity_stride", "first_swing_leg"]

_BISECTION_ITERATIONS = 8


@dataclass(frozen=True, slots=True)
class VelocityStride:
    """Per-leg move (relative to the support foot) and period realising a velocity."""

    velocity: tuple[float, float, float]  # requested (vx_mps, vy_mps, wz_radps)
    scale: float  # fraction of the requested velocity achieved, in [0, 1]
    left_move: Pose2D
    right_move: Pose2D
    left_period_s: float
    right_period_s: float
    half_width_m: float

    def move_for(self, leg: Leg) -> Pose2D:
        return self.left_move if leg is Leg.LEFT else self.right_move

    def period_for(self, leg: Leg) -> float:
        return self.left_period_s if leg is Leg.LEFT else self.right_period_s

    @property
    def achieved_velocity(self) -> tuple[float, float, float]:
        vx, vy, wz = self.velocity
        return (vx * self.scale, vy * self.scale, wz * self.scale)


def first_swing_leg(vy: float, wz: float) -> Leg:
    """From standing, open towards the motion: left for leftward or CCW, else right.

    Pure forward/backward walking starts with the left leg.
    """
    if vy != 0.0:
        return Leg.LEFT if vy > 0.0 else Leg.RIGHT
    if wz != 0.0:
        return Leg.LEFT if wz > 0.0 else Leg.RIGHT
    return Leg.LEFT


def _box_scale(vx: float, vy: float, wz: float, period_s: float, gait) -> float:
    """Largest scale in [0, 1] keeping one step's increment within the stride limits.

    With the balanced fore-aft offsets a step moves the foot by exactly the
    increment (dx, dy +- 2h, dphi), so the limits are |dx| <= MaxStepX (or
    |MinStepX|), |dy| <= (MaxStepY - MinFootSeparation) / 2 and |dphi| <=
    MaxStepTheta. Turning mixes x and y in the increment (exp of the twist),
    so the ratio is refined on the exact increment.
    """
    x_lim = gait.max_step_x_m if vx >= 0.0 else -gait.min_step_x_m
    y_lim = 0.5 * (gait.max_step_y_m - gait.min_foot_separation_m)
    t_lim = gait.max_step_theta_rad
    scale = 1.0
    for _ in range(4):
        d = se2_exp(scale * period_s * vx, scale * period_s * vy, scale * period_s * wz)
        ratio = max(abs(d.x) / x_lim, abs(d.y) / y_lim, abs(d.theta) / t_lim)
        if ratio <= 1.0:
            return scale
        scale /= ratio * (1.0 + 1e-12)
    return scale


def plan_velocity_stride(vx: float, vy: float, wz: float, config: MoveConfig) -> VelocityStride:
    """Stride for the body velocity (vx, vy, wz) under ``config`` (see module docstring)."""
    gl, gr = config.left, config.right
    tl = gl.step_period_s(config.frequency)
    tr = gr.step_period_s(config.frequency)
    half0 = 0.5 * gl.foot_separation_m

    def attempt(scale: float, max_candidates: int = 10):
        dl = se2_exp(scale * tl * vx, scale * tl * vy, scale * tl * wz)
        dr = se2_exp(scale * tr * vx, scale * tr * vy, scale * tr * wz)
        # Both feet share one fore-aft ratio (they are each other's support);
        # with equal periods it balances the turning steps exactly.
        tau = turn_offset_ratio(0.5 * (dl.theta + dr.theta))
        # A left step is supported by the right foot and vice versa.
        shapes = [
            (StepShape(Leg.RIGHT, None, dl, None, tau), gl),
            (StepShape(Leg.LEFT, None, dr, None, tau), gr),
        ]
        h = choose_half_width(shapes, half0, max_candidates)
        if h is None:
            return None
        return VelocityStride(
            (vx, vy, wz), scale, shapes[0][0].relative(h), shapes[1][0].relative(h), tl, tr, h
        )

    scale = 1.0
    for gait, period in ((gl, tl), (gr, tr)):
        scale = min(scale, _box_scale(vx, vy, wz, period, gait))
    best = attempt(scale)
    if best is None:
        lo, hi = 0.0, scale
        for _ in range(_BISECTION_ITERATIONS):
            mid = 0.5 * (lo + hi)
            # A few stances per probe keep a saturated update cheap; the
            # answer is at worst a slightly lower scale.
            stride = attempt(mid, 4)
            if stride is None:
                hi = mid
            else:
                lo, best = mid, stride
        if best is None:
            best = attempt(0.0)
    assert best is not None  # stepping in place at FootSeparation is always feasible
    return best
