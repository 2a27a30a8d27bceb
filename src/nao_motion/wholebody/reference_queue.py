"""The walk's references as the whole-body cycle receives them: COM, feet and torso tilt, each
stamped with the cycle they are for, paired by stamp, and the right one picked at each cycle.

Why a queue. The walk computes each cycle's references ahead (``WalkController``: on the
robot's joint_states at t, the references for t + dt), so that the whole body answers the
robot's next joint_states at once with references already in hand: the chain robot -> whole body
-> robot is one hop, not two, and fits the motion cycle on a busy machine. References arrive
ahead of the cycles they are for: the queue keeps the last few and a cycle at t takes the newest
one stamped no later than t. One that came late (the walk a
cycle or more behind) is replaced by the newest older one, counted in ``late``: the robot gets a
command every cycle, never a skipped one.

The COM and the feet arrive as separate messages; the support ("Legs", "LLeg", "RLeg") has no
stamp and is published before them, so it belongs to the next stamp that starts. The torso's
tilt (TorsoWx, TorsoWy) is optional (upright without it) and joins its stamp's reference
whether it arrives before or after the COM and the feet.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

import numpy as np

from .balancer import WalkReference

__all__ = ["DEFAULT_REFERENCE_TIMEOUT_S", "WalkReferenceQueue"]

STAMP_EPS_S = 1e-6
# References this much older than the cycle have ended the walk (the whole-body node's
# reference_timeout_s): ten cycles of a walk node that stopped sending.
DEFAULT_REFERENCE_TIMEOUT_S = 0.1
KEPT = 4  # complete references kept: the walk may run up to a few cycles ahead or behind


class WalkReferenceQueue:
    def __init__(self):
        self._complete: deque[tuple[float, WalkReference]] = deque(maxlen=KEPT)
        self._partial: dict[float, list] = {}  # stamp -> [com, (left, right), support, torso tilt]
        self.support = "Legs"
        self.late = 0  # cycles that used an older reference than their own

    def set_support(self, support: str) -> None:
        self.support = support

    def add_com(self, stamp_s: float, com_world_m: np.ndarray) -> None:
        self._add(stamp_s, 0, com_world_m)

    def add_feet(self, stamp_s: float, left_sole_world: np.ndarray, right_sole_world: np.ndarray) -> None:
        self._add(stamp_s, 1, (left_sole_world, right_sole_world))

    def add_torso_tilt(self, stamp_s: float, tilt_rad: tuple[float, float]) -> None:
        for i, (complete_s, reference) in enumerate(self._complete):
            if complete_s == stamp_s:
                self._complete[i] = (complete_s, replace(reference, torso_tilt_rad=tilt_rad))
                return
        self._partial.setdefault(stamp_s, [None, None, self.support, (0.0, 0.0)])[3] = tilt_rad

    def _add(self, stamp_s: float, slot: int, value) -> None:
        part = self._partial.setdefault(stamp_s, [None, None, self.support, (0.0, 0.0)])
        part[slot] = value
        if part[0] is None or part[1] is None:
            return
        del self._partial[stamp_s]
        if self._complete and stamp_s <= self._complete[-1][0]:  # out of order: older than what is kept
            return
        com, (left, right), support, tilt = part
        self._complete.append((stamp_s, WalkReference(com, left, right, support, tilt)))
        for stale in [s for s in self._partial if s < stamp_s]:  # never completed
            del self._partial[stale]

    def select(self, now_s: float, timeout_s: float) -> WalkReference | None:
        """The reference for the cycle at ``now_s``: the newest stamped no later than it, unless
        older than ``timeout_s`` (then the walk has ended: None)."""
        for stamp_s, reference in reversed(self._complete):
            if stamp_s <= now_s + STAMP_EPS_S:
                if now_s - stamp_s > timeout_s:
                    return None
                if stamp_s < now_s - STAMP_EPS_S:
                    self.late += 1
                return reference
        return None
