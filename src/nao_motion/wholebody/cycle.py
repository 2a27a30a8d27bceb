"""The whole-body node's motion cycle: the balancer's step, then the walk's ankle damping.

``WholeBodyCycle.cycle(wish, walk_reference, q_measured, gyro)`` is what the whole-body node
runs each cycle and what ``nao_motion.sim.walking`` runs in process, so the command the robot
gets is produced here in both. While walking (the balancer in ``Mode.WALKING``) and with a
fresh gyro, ``WalkStabilizer`` adds the ankle damping to the published command only: the
balancer keeps integrating its own, so the correction cannot accumulate.

    cycle = WholeBodyCycle(model)
    cycle.start(q_measured)                   # once, when every kinematic joint was measured
    command = cycle.cycle(q_wish, walk_reference_or_none, q_measured, gyro_radps_or_none)
    cycle.result                              # the balancer's BalancerResult of that cycle

The balancer (``cycle.balancer``) keeps its API for settings, effectors and services.
"""

from __future__ import annotations

import numpy as np

from ..model import NaoModel
from ..walk.stabilizer import StabilizerConfig, WalkStabilizer
from .balancer import BalancerConfig, BalancerResult, Mode, WalkReference, WholeBodyBalancer

__all__ = ["WholeBodyCycle"]


class WholeBodyCycle:
    """WholeBodyBalancer + WalkStabilizer: one robot command per motion cycle."""

    def __init__(self, model: NaoModel, balancer_config: BalancerConfig | None = None,
                 stabilizer_config: StabilizerConfig | None = None):
        self.model = model
        self.balancer = WholeBodyBalancer(model, balancer_config)
        self.stabilizer = WalkStabilizer(model, stabilizer_config)
        self.command = np.zeros(model.n_joints)  # the last command: the balancer's + the ankle damping
        self.result: BalancerResult | None = None

    def set_stabilizer_config(self, config: StabilizerConfig) -> None:
        self.stabilizer = WalkStabilizer(self.model, config)

    def start(self, q_measured: np.ndarray) -> np.ndarray:
        """Start (pass-through) from the measured pose; returns the balancer's first command."""
        self.balancer.reset(q_measured)
        self.stabilizer.reset()  # no damping left over
        np.copyto(self.command, self.balancer.q)
        return self.balancer.q

    def cycle(self, q_wish: np.ndarray, walk: WalkReference | None = None, q_measured: np.ndarray | None = None,
              gyro_radps: np.ndarray | None = None) -> np.ndarray:
        """The command (26 joints, rad; this object's buffer) for the wish, the walk's references
        (wb_world; None: not walking), the measured joints (None: not known) and the IMU's
        angular velocity (torso frame, rad/s; None: not fresh, no damping)."""
        result = self.result = self.balancer.step(q_wish, walk, q_measured)
        np.copyto(self.command, result.q)
        if result.mode is Mode.WALKING and walk is not None and gyro_radps is not None:
            self.stabilizer.apply(self.command, gyro_radps, walk.support)
        else:  # the walk ended or the gyro is stale: the damping fades out, no jump
            self.stabilizer.fade(self.command)
        return self.command
