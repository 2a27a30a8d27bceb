"""The whole-body node's motion cycle: the fall detector, the balancer's step, then the walk's
ankle damping.

``WholeBodyCycle.cycle(wish, walk_reference, q_measured, gyro, up)`` is what the whole-body node
runs each cycle and what ``nao_motion.sim.walking`` runs in process, so the command the robot
gets is produced here in both. While walking (the balancer in ``Mode.WALKING``) and with a
fresh gyro, ``WalkStabilizer`` adds the ankle damping to the published command only: the
balancer keeps integrating its own, so the correction cannot accumulate. A robot that is down
(``fall_detector``, from the measured vertical ``up``) is commanded nothing that
assumes it stands: the balancer is disabled (the wish passes through, so joint motions still
work: getting up, rest()) and the walk's references are ignored until it is up again.

    cycle = WholeBodyCycle(model)
    cycle.start(q_measured)                   # once, when every kinematic joint was measured
    command = cycle.cycle(q_wish, walk_reference_or_none, q_measured, gyro_radps_or_none, up_or_none)
    cycle.result                              # the balancer's BalancerResult of that cycle
    cycle.fall.fallen, cycle.fall_changed     # down, and whether that changed in that cycle

The balancer (``cycle.balancer``) keeps its API for settings, effectors and services.
"""

from __future__ import annotations

import numpy as np

from ..model import NaoModel
from ..walk.stabilizer import StabilizerConfig, WalkStabilizer
from .balancer import BalancerConfig, BalancerResult, Mode, WalkReference, WholeBodyBalancer
from .fall_detector import FallDetector

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
        self.fall = FallDetector(model, fk=self.balancer.fk)
        self.fall_changed = False

    def set_stabilizer_config(self, config: StabilizerConfig) -> None:
        self.stabilizer = WalkStabilizer(self.model, config)

    def start(self, q_measured: np.ndarray) -> np.ndarray:
        """Start (pass-through) from the measured pose; returns the balancer's first command."""
        self.balancer.reset(q_measured)
        self.stabilizer.reset()  # no damping left over
        self.fall.reset()
        np.copyto(self.command, self.balancer.q)
        return self.balancer.q

    def cycle(self, q_wish: np.ndarray, walk: WalkReference | None = None, q_measured: np.ndarray | None = None,
              gyro_radps: np.ndarray | None = None, up_torso: tuple[float, float, float] | None = None) -> np.ndarray:
        """The command (26 joints, rad; this object's buffer) for the wish, the walk's references
        (wb_world; None: not walking), the measured joints (None: not known), the IMU's
        angular velocity (torso frame, rad/s; None: not fresh, no damping) and the measured
        vertical in the torso frame (``fall_detector``; None: not measured this cycle)."""
        self.fall_changed = q_measured is not None and self.fall.update(up_torso, q_measured)
        if self.fall.fallen:
            walk = None
            if self.balancer.enabled:
                self.balancer.set_enabled(False)
        result = self.result = self.balancer.step(q_wish, walk, q_measured)
        np.copyto(self.command, result.q)
        if result.mode is Mode.WALKING and walk is not None and gyro_radps is not None:
            self.stabilizer.apply(self.command, gyro_radps, walk.support)
        else:  # the walk ended or the gyro is stale: the damping fades out, no jump
            self.stabilizer.fade(self.command)
        return self.command
