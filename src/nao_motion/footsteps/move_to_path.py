"""moveTo: constant-twist path to the goal in as few steps as the gait allows.

The path is NAOqi's "SE3 interpolation" restricted to the ground plane: the
robot reference pose follows P(s) = P0 * exp(s * log(P0^-1 * G)), s in [0, 1],
i.e. a constant body velocity (a circular arc, or a line when the goal heading
equals the start heading). Each foot lands on the reference pose of its step
offset by the stance (``walk_pattern``: half width h sideways, h tan(dphi/2)
fore-aft).

Step count. For a stance h, every kind of step has a *capacity*: the largest
share of the path it can cover while staying feasible (user gait box, NAOqi's
extremal box and ellipse, no foot collision). The kinds are: the first step
(from the standing stance, FootSeparation apart), a middle left step, a middle
right step, and the last step onto the goal footprint. The fewest steps is the
smallest N whose capacities add up to the whole path; every step then takes
its capacity scaled down so that the shares sum to 1 (a smaller share of a
feasible step stays feasible). This lets the first and last steps use the
slack the stance change gives them, and lets the closing foot of a sideways
walk take more of the forward stride where NAOqi's ellipse limits the opening
foot. Stances tried: FootSeparation / 2 (best for straight walking) and, for
sideways or turning walks, the one maximising a left+right cycle's share
(golden-section search between MinFootSeparation / 2 and MaxStepY / 2; a
wider stance lets the closing foot of a sideways walk land further and the
toed-in foot of a turn clear the other) with two neighbours; the fewest
steps wins. When the last step cannot land on the goal footprint, the
pattern ends on the stance and two closing steps follow.

Capacities are exact where the gait box binds (secant on the step's
coordinates) so a box-limited walk never loses a step to rounding; the
ellipse boundary is found by regula falsi, a collision limit by bisection.

A closing step brings the other foot beside the last one (FootSeparation
apart), so the robot ends on the goal.

P0 is taken from the foot that supports the first new step, as if the feet
were together: for a standing robot it is exactly the robot position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .clipping import (
    ELLIPSE_TOLERANCE,
    EXTREMAL_CLIP_LIMITS,
    ClipLimits,
    clip_footstep_on_gait_config,
)
from .footstep import FeetState, Footstep, Leg, foot_offset, make_step
from .gait_config import GaitConfig
from .pose2d import Pose2D, se2_exp, se2_log
from .walk_pattern import Offset, is_move_feasible, turn_offset_ratio

__all__ = ["path_step_count_lower_bound", "plan_move_to", "approach_footprints"]

_POSE_TOL = 1e-9
_SHARE_EPS = 1e-12


def path_step_count_lower_bound(vx_m: float, vy_m: float, w_rad: float, gait: GaitConfig) -> int:
    """Steps the per-axis stride limits suggest for a path with body twist (vx, vy, w).

    max(|vx| / MaxStepX (|MinStepX| backwards), |vy| / ((MaxStepY -
    MinFootSeparation) / 2), |w| / MaxStepTheta), rounded up. Each step's
    displacement, seen from the support foot, is the body velocity turned by
    half the step's rotation, so the estimate is iterated with that.
    """
    x_lim_f, x_lim_b = gait.max_step_x_m, -gait.min_step_x_m
    y_lim = 0.5 * (gait.max_step_y_m - gait.min_foot_separation_m)
    n_theta = abs(w_rad) / gait.max_step_theta_rad
    ux, uy = vx_m, vy_m
    n = 1
    for _ in range(3):
        x_lim = x_lim_f if ux >= 0.0 else x_lim_b
        n = max(1, math.ceil(max(abs(ux) / x_lim, abs(uy) / y_lim, n_theta) - 1e-9))
        half = 0.5 * w_rad / n
        c, s = math.cos(half), math.sin(half)
        ux, uy = c * vx_m - s * vy_m, s * vx_m + c * vy_m
    return n


@dataclass(frozen=True, slots=True)
class _Pattern:
    steps_total: int  # path steps plus closing steps
    swing0: Leg
    shares: tuple[float, ...]  # share of the path per path step, summing to 1
    h: float
    tau: float
    exact: bool  # the last path step lands on the goal footprint
    p0: Pose2D
    twist: tuple[float, float, float]

    def reference(self, s: float) -> Pose2D:
        """Robot reference pose at path parameter s in [0, 1]."""
        vx, vy, w = self.twist
        return self.p0 * se2_exp(vx * s, vy * s, w * s)


class _StepKind:
    """One kind of step of a pattern; gives its feasible share of the path.

    ``move(share)`` is ``StepShape(...).relative(h)`` with the increment
    exp(share * twist), inlined on floats: capacities evaluate it a few
    thousand times per moveTo.
    """

    __slots__ = ("swing", "ss", "ea", "ha", "eb", "hb", "vx", "vy", "w", "gait")

    def __init__(self, support_leg: Leg, a: Offset, b: Offset, tau: float, h: float, twist, gait):
        free = (tau * h, h)
        self.swing = support_leg.other
        self.ss = support_leg.side
        self.ea, self.ha = free if a is None else a
        self.eb, self.hb = free if b is None else b
        self.vx, self.vy, self.w = twist
        self.gait = gait

    def move_xyt(self, share: float) -> tuple[float, float, float]:
        dphi = self.w * share
        if abs(dphi) < 1e-6:
            d2 = dphi * dphi
            ca, cb = 1.0 - d2 / 6.0, dphi / 2.0 - dphi * d2 / 24.0
        else:
            ca, cb = math.sin(dphi) / dphi, (1.0 - math.cos(dphi)) / dphi
        vx, vy = self.vx * share, self.vy * share
        dx = ca * vx - cb * vy
        dy = cb * vx + ca * vy
        c, s = math.cos(dphi), math.sin(dphi)
        ss = self.ss
        return (
            dx - ss * (self.ea + c * self.eb - s * self.hb),
            dy - ss * (self.ha + s * self.eb + c * self.hb),
            dphi,
        )

    def move(self, share: float) -> Pose2D:
        return Pose2D(*self.move_xyt(share))

    def feasible(self, share: float) -> bool:
        x, y, t = self.move_xyt(share)
        return is_move_feasible(x, y, t, self.swing, self.gait)

    def capacity(self, hint: float) -> float | None:
        """Largest feasible share in [0, 1] (None if even a zero share is not).

        The gait-box limit is solved on the (nearly affine) step coordinates
        with secant steps, to full precision: a box-bound walk must not lose a
        step to rounding. If NAOqi's ellipse binds first, its boundary is found
        by regula falsi on the ellipse value; a foot collision (rare: the
        stance is chosen wide enough) falls back to bisection.
        """
        if not self.feasible(0.0):
            return None
        r0 = self.move_xyt(0.0)
        s = min(1.0, max(hint, 1e-6))
        for _ in range(4):
            s_next = min(1.0, self._box_limit(r0, self.move_xyt(s), s))
            if abs(s_next - s) <= 1e-15:
                break
            s = s_next
        if self.feasible(s):
            return s
        if self._ellipse_value(self.move_xyt(s)) >= 0.0:
            s = self._ellipse_limit(s)
            if self.feasible(s):
                return s
        lo, hi = 0.0, s
        for _ in range(24):
            mid = 0.5 * (lo + hi)
            if self.feasible(mid):
                lo = mid
            else:
                hi = mid
        return lo

    @staticmethod
    def _ellipse_value(move: tuple[float, float, float]) -> float:
        # < 0 inside NAOqi's ellipse (with its 1.00001 tolerance), >= 0 outside.
        lim = EXTREMAL_CLIP_LIMITS
        sep = lim.min_foot_separation_m
        x, y = move[0], move[1]
        ay = abs(y) - sep
        if ay <= 0.0:
            return -1.0
        a = lim.max_step_x_m if x >= 0.0 else lim.min_step_x_m
        b = lim.max_step_y_m - sep
        return (x / a) ** 2 + (ay / b) ** 2 - (ELLIPSE_TOLERANCE - 1e-9)

    def _ellipse_limit(self, s_out: float) -> float:
        """Share where the step meets the ellipse, from inside (Illinois regula falsi)."""
        lo, hi = 0.0, s_out
        f_lo = self._ellipse_value(self.move_xyt(lo))
        f_hi = self._ellipse_value(self.move_xyt(hi))
        side = 0
        for _ in range(30):
            if f_hi == f_lo:
                break
            m = hi - f_hi * (hi - lo) / (f_hi - f_lo)
            if not lo < m < hi:
                m = 0.5 * (lo + hi)
            f_m = self._ellipse_value(self.move_xyt(m))
            if f_m < 0.0:
                lo, f_lo = m, f_m
                if side == -1:
                    f_hi *= 0.5
                side = -1
            else:
                hi, f_hi = m, f_m
                if side == 1:
                    f_lo *= 0.5
                side = 1
            if hi - lo <= 1e-12 * s_out:
                break
        return lo

    def _box_limit(self, r0: tuple, r1: tuple, s1: float) -> float:
        g = self.gait
        if self.swing is Leg.LEFT:
            ylo, yhi = g.min_foot_separation_m, g.max_step_y_m
        else:
            ylo, yhi = -g.max_step_y_m, -g.min_foot_separation_m
        limit = math.inf
        for v0, v1, lo, hi in (
            (r0[0], r1[0], g.min_step_x_m, g.max_step_x_m),
            (r0[1], r1[1], ylo, yhi),
            (r0[2], r1[2], -g.max_step_theta_rad, g.max_step_theta_rad),
        ):
            rate = (v1 - v0) / s1
            if rate > 1e-15:
                limit = min(limit, (hi - v0) / rate)
            elif rate < -1e-15:
                limit = min(limit, (lo - v0) / rate)
        return max(0.0, limit)


def _legs(n: int, swing0: Leg) -> list[Leg]:
    return [swing0 if k % 2 == 1 else swing0.other for k in range(1, n + 1)]


_GOLDEN = 0.5 * (math.sqrt(5.0) - 1.0)


def _best_stance(mid_capacity, lo: float, hi: float, iterations: int = 10) -> float:
    """Golden-section search of the half width maximising a middle cycle's share."""
    a, b = lo, hi
    c = b - _GOLDEN * (b - a)
    d = a + _GOLDEN * (b - a)
    fc, fd = mid_capacity(c), mid_capacity(d)
    for _ in range(iterations):
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - _GOLDEN * (b - a)
            fc = mid_capacity(c)
        else:
            a, c, fc = c, d, fd
            d = a + _GOLDEN * (b - a)
            fd = mid_capacity(d)
    return c if fc >= fd else d


def _pattern(state: FeetState, goal: Pose2D, gait: GaitConfig, swing0: Leg) -> _Pattern | None:
    """The pattern with the fewest steps when ``swing0`` steps first, or None."""
    half0 = 0.5 * gait.foot_separation_m
    support0 = swing0.other
    p0 = state.pose(support0) * foot_offset(support0, half0).inverse()
    twist = se2_log(goal.relative_to(p0))
    vx, vy, w = twist
    if abs(vx) <= _POSE_TOL and abs(vy) <= _POSE_TOL and abs(w) <= _POSE_TOL:
        return None
    n_est = path_step_count_lower_bound(vx, vy, w, gait)
    hint = 1.0 / n_est
    tau = turn_offset_ratio(w / n_est)
    stance0 = (0.0, half0)
    single = _StepKind(support0, stance0, stance0, tau, half0, twist, gait)
    best: _Pattern | None = None
    if single.feasible(1.0):  # one step onto the goal footprint, then the closing step
        best = _Pattern(2, swing0, (1.0,), half0, tau, True, p0, twist)
    n_max = 4 * n_est + 8
    mids: dict[float, dict] = {}

    def mid_capacities(h: float) -> dict:
        if h not in mids:
            mids[h] = {
                leg: _StepKind(leg.other, None, None, tau, h, twist, gait).capacity(hint)
                for leg in Leg
            }
        return mids[h]

    def cycle_share(h: float) -> float:
        caps = mid_capacities(h)
        if caps[Leg.LEFT] is None or caps[Leg.RIGHT] is None:
            return -1.0
        return caps[Leg.LEFT] + caps[Leg.RIGHT]

    # Stances: the standing one (best when walking straight), and for
    # sideways or turning walks the one that maximises a cycle's share, with
    # two neighbours that may suit the first/last steps better.
    candidates = [half0]
    if abs(vy) > 1e-9 or abs(w) > 1e-9:
        h_best = _best_stance(
            cycle_share, 0.5 * gait.min_foot_separation_m, 0.5 * gait.max_step_y_m
        )
        candidates += [h_best, h_best - 0.002, h_best + 0.002]
    for h in candidates:
        first = _StepKind(support0, stance0, None, tau, h, twist, gait).capacity(hint)
        if first is None:
            continue
        mid = mid_capacities(h)
        if mid[Leg.LEFT] is None or mid[Leg.RIGHT] is None:
            continue
        last = {
            leg: _StepKind(leg.other, None, stance0, tau, h, twist, gait).capacity(hint)
            for leg in Leg
        }
        if mid[Leg.LEFT] + mid[Leg.RIGHT] <= _SHARE_EPS:
            continue
        # Smallest N: progress through step k-1 in ``covered`` (middles only).
        covered = first
        for n in range(2, n_max + 1):
            leg = swing0 if n % 2 == 1 else support0
            if best is not None and n + 1 >= best.steps_total:
                break
            cap_last = last[leg]
            if cap_last is not None and covered + cap_last >= 1.0 - _SHARE_EPS:
                caps = [first] + [mid[lg] for lg in _legs(n, swing0)[1:-1]] + [cap_last]
                best = _finish(caps, swing0, h, tau, True, p0, twist, n + 1)
                break
            covered += mid[leg]
            if covered >= 1.0 - _SHARE_EPS and (best is None or n + 2 < best.steps_total):
                caps = [first] + [mid[lg] for lg in _legs(n, swing0)[1:]]
                best = _finish(caps, swing0, h, tau, False, p0, twist, n + 2)
                # an exact finish with n + 1 steps costs the same: stop here
                break
    return best


def _finish(caps, swing0, h, tau, exact, p0, twist, total) -> _Pattern:
    scale = 1.0 / sum(caps)
    return _Pattern(total, swing0, tuple(c * scale for c in caps), h, tau, exact, p0, twist)


def plan_move_to(
    state: FeetState, goal: Pose2D, gait: GaitConfig, step_duration_s: float
) -> list[Footstep]:
    """Steps from ``state`` to both feet on the goal footprints (FootSeparation apart).

    ``goal`` is the robot pose to reach in the world plane. The first step is
    taken by the leg that did not move last, or, from idle, by whichever leg
    gives fewer steps.
    """
    half0 = 0.5 * gait.foot_separation_m
    goals = {leg: (goal * foot_offset(leg, half0)).normalized() for leg in Leg}
    if state.last_moved is not None:
        swings = [state.last_moved.other]
    else:
        swings = [Leg.LEFT, Leg.RIGHT]
    best: _Pattern | None = None
    for swing0 in swings:
        pattern = _pattern(state, goal, gait, swing0)
        if pattern is not None and (best is None or pattern.steps_total < best.steps_total):
            best = pattern
    if best is None:
        # Already there, or no regular pattern from this start: walk each foot
        # straight to its footprint, clipped; converges in a few steps.
        return approach_footprints(state, goals, gait, step_duration_s, max_steps=400)
    steps: list[Footstep] = []
    n = len(best.shares)
    s = 0.0
    for k, (leg, share) in enumerate(zip(_legs(n, best.swing0), best.shares), start=1):
        s = 1.0 if k == n else s + share  # land exactly on the goal
        pk = best.reference(s)
        if k == n and best.exact:
            target = pk * foot_offset(leg, half0)
        else:
            target = pk * foot_offset(leg, best.h, best.tau * best.h)
        requested = target.relative_to(state.pose(leg.other)).normalized()
        step, state = make_step(state, leg, requested, step_duration_s, gait)
        steps.append(step)
    steps.extend(approach_footprints(state, goals, gait, step_duration_s, max_steps=4))
    return steps


def _at(pose: Pose2D, goal: Pose2D) -> bool:
    r = pose.relative_to(goal)
    return (
        abs(r.x) <= _POSE_TOL
        and abs(r.y) <= _POSE_TOL
        and abs(math.remainder(r.theta, 2.0 * math.pi)) <= _POSE_TOL
    )


def approach_footprints(
    state: FeetState,
    goals: dict[Leg, Pose2D],
    gait: GaitConfig,
    step_duration_s: float,
    max_steps: int,
) -> list[Footstep]:
    """Greedy steps putting each foot on its goal footprint (closing steps).

    Alternates legs when both feet are off their footprints, otherwise moves
    the one that is off; each move is clipped to the gait box then by NAOqi's
    clipping, so a far goal is approached over several steps.
    """
    limits = ClipLimits.from_gait(gait)
    steps: list[Footstep] = []
    for _ in range(max_steps):
        off = [leg for leg in Leg if not _at(state.pose(leg), goals[leg])]
        if not off:
            break
        preferred = state.last_moved.other if state.last_moved is not None else Leg.RIGHT
        swing = preferred if preferred in off else off[0]
        requested = goals[swing].relative_to(state.pose(swing.other)).normalized()
        requested = clip_footstep_on_gait_config(requested, swing is Leg.RIGHT, limits)
        step, state = make_step(state, swing, requested, step_duration_s, gait)
        steps.append(step)
    return steps
