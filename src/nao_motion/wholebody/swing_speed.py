"""The swing leg's joint speed limit while walking: as fast as its foot's reference moves.

Why. Every joint the balancer moves is limited to ``max_velocity_fraction`` (0.5) of its motor's
no-load speed. The joint speeds a swing asks for grow with its foot's speed: NAOqi's default gait
at its fastest (MaxStepX 0.04 m, MaxStepTheta 0.349 rad, 0.42 s steps) already asks the swing
knee for 0.75 of its no-load speed, which the limit clips, and walks well so (its foot lags a
little and lifts late, once the weight is on the stance foot). NAOqi's maximum steps ask for
twice that foot speed: MaxStepX 0.08 m sends the swing foot 0.16 m in 0.36 s (0.86 m/s at
mid-swing), MaxStepTheta 0.524 turns it 1.05 rad (4.8 rad/s); with the hips, knee and ankles
clipped at half their speed for most of the swing, the foot lifted 6-14 mm of the 20, scuffed
the floor and landed late and short, the torso tilted a little more each step and the
simulated NAO fell within 3 s (turning within 2.3 s). Letting every leg joint go faster instead
made the default gait's stance foot slip (its true speed fell from 99 % to 86 % of the plan).

So the swing leg's limit scales with how much faster than the default gait's fastest swing its
foot's reference moves this cycle (linear speed against ``walk_swing_speed_mps``, yaw rate
against ``walk_swing_rate_radps``): the default gait keeps ``max_velocity_fraction`` and its
behaviour, a long or turning step gets up to ``walk_max_velocity_fraction`` of the no-load
speed, only around mid-swing, where its foot is fast. The hip yaw-pitch, one motor for both
legs, follows the swing leg's. The stance leg keeps the base limit.
"""

from __future__ import annotations

import math

import numpy as np

from ..model import NaoModel
from .context import WholeBodyContext

__all__ = ["SwingSpeedLimit", "LEG_JOINTS"]

LEG_JOINTS = ("HipYawPitch", "HipRoll", "HipPitch", "KneePitch", "AnklePitch", "AnkleRoll")
SIDE = {"left": "L", "right": "R"}


def reference_speeds(previous_world, current_world, dt_s: float) -> tuple[float, float]:
    """(floor-plane speed m/s, yaw rate rad/s) of a sole reference between two cycles (4x4 poses:
    arrays or nested lists)."""
    (p0, p1), (c0, c1) = previous_world[:2], current_world[:2]
    dx, dy = c0[3] - p0[3], c1[3] - p1[3]
    linear_mps = math.hypot(dx, dy) / dt_s
    yaw_prev = math.atan2(p1[0], p0[0])
    yaw_now = math.atan2(c1[0], c0[0])
    turn = math.atan2(math.sin(yaw_now - yaw_prev), math.cos(yaw_now - yaw_prev))
    return linear_mps, abs(turn) / dt_s


def swing_velocity_fraction(base: float, maximum: float, linear_mps: float, rate_radps: float,
                            nominal_mps: float, nominal_radps: float) -> float:
    """The swing leg's fraction of no-load speed: ``base`` scaled by the foot's speed over the
    nominal swing's, within [base, max(base, maximum)]."""
    ratio = max(1.0, linear_mps / nominal_mps, rate_radps / nominal_radps)
    return max(base, min(maximum, base * ratio))


class SwingSpeedLimit:
    """Writes the context's joint speed limits (``ctx.vmax_motor``) each cycle."""

    def __init__(self, model: NaoModel, ctx: WholeBodyContext):
        self.ctx, cfg = ctx, ctx.config
        self.base_vmax_motor = ctx.vmax_motor.copy()
        no_load = model.max_velocity[ctx.motor]
        column_of = {int(j): k for k, j in enumerate(ctx.motor)}  # model index -> QP column

        def columns(joints: list[str]) -> np.ndarray:
            indices = dict.fromkeys(model.joint_index(j) for j in joints)  # once each, in order
            return np.array([column_of[i] for i in indices if i in column_of])

        # Each leg's QP columns (the hip yaw-pitch, one motor for both legs, in both).
        self._columns = {foot: columns([f"{side}{j}" for j in LEG_JOINTS] + ["LHipYawPitch", "RHipYawPitch"])
                         for foot, side in SIDE.items()}
        self._no_load = {foot: no_load[cols] for foot, cols in self._columns.items()}
        self._leg_vmax = {foot: np.empty(len(cols)) for foot, cols in self._columns.items()}
        self._base, self._maximum = cfg.max_velocity_fraction, cfg.walk_max_velocity_fraction
        self._previous_foot: str | None = None  # the swing foot of the last cycle, and its reference
        self._previous_world: list[list[float]] = []  # (Python floats: compared and read in Python)
        self.fraction = self._base  # the swing leg's, this cycle
        self._last_fraction = self._base

    def update(self, swing_foot: str | None, target_world: np.ndarray | None) -> float:
        """The limits for this cycle: the base everywhere, the swing leg's (``swing_foot``, its
        reference ``target_world``; None: no foot swings) scaled by its reference's speed since
        the last cycle. Returns the swing leg's fraction."""
        ctx, cfg = self.ctx, self.ctx.config
        np.copyto(ctx.vmax_motor, self.base_vmax_motor)
        self.fraction = self._base
        if swing_foot is None or target_world is None:
            self._previous_foot = None
            return self.fraction
        current_world = target_world.tolist()
        if self._previous_foot == swing_foot:
            if current_world == self._previous_world:
                # The same reference again: the walk's came late and the queue repeated the last
                # (deployed, a cycle now and then). The foot did not stop: keep its limit.
                self.fraction = self._last_fraction
            else:
                linear_mps, rate_radps = reference_speeds(self._previous_world, current_world, ctx.dt_s)
                self.fraction = swing_velocity_fraction(self._base, self._maximum, linear_mps, rate_radps,
                                                        cfg.walk_swing_speed_mps, cfg.walk_swing_rate_radps)
            # (the fraction is never below the base: the leg's limit only grows)
            leg_vmax = self._leg_vmax[swing_foot]
            np.multiply(self._no_load[swing_foot], self.fraction, out=leg_vmax)
            ctx.vmax_motor[self._columns[swing_foot]] = leg_vmax
        self._previous_foot = swing_foot
        self._previous_world = current_world
        self._last_fraction = self.fraction
        return self.fraction
