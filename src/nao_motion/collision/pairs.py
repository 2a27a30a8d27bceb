"""Which body-shape pairs the self-collision filter checks, and their distances per cycle.

NAOqi protects the arms ("LArm", "RArm", or both as "Arms") against the rest of the body.
The pair rule here:

* every shape of an arm (upper arm, forearm with hand) is paired with every shape that is
  not on the same arm: torso, head, hips, legs, feet and the other arm's shapes;
* the two shapes of one arm are not paired: they are joined at the elbow and always overlap
  there, so the pair says nothing about a collision;
* nothing else is left out. The upper arm against the chest sphere is the closest pair at rest
  (about 1 cm) but it does not always touch: with the arm lowered (ShoulderPitch near 90 deg)
  and ShoulderRoll at its inward limit it is 6 mm deep, so it is checked like any other pair.
  Pairs between two non-arm shapes (head against torso, leg against leg) are not
  self-collisions NAOqi avoids and are not listed.

Arm-against-arm pairs appear once (left shape first) and are checked when either arm is
protected. All pairs are computed together, every cycle, by one call of the vectorised
distance core with a preallocated workspace; the avoidance QP keeps one constraint row per
pair (relaxed when not needed), so its sparsity pattern never changes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..body_shapes import Capsule, body_capsules
from ..kinematics import ForwardKinematics, KinematicState
from ..model import NaoModel
from .distance import DistanceResult, DistanceWorkspace
from .obstacles import ObstacleDistances, ObstacleSlots

#: Chains NAOqi's setCollisionProtectionEnabled accepts, and the arms each one protects.
PROTECTION_CHAINS: dict[str, tuple[str, ...]] = {"LArm": ("LArm",), "RArm": ("RArm",), "Arms": ("LArm", "RArm")}
#: Protected arm -> body_shapes group of its shapes.
ARM_GROUPS: dict[str, str] = {"LArm": "l_arm", "RArm": "r_arm"}


def protected_arms(chain_name: str) -> tuple[str, ...]:
    """The arms a NAOqi protection chain name stands for; ValueError (with the reason) otherwise."""
    try:
        return PROTECTION_CHAINS[chain_name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown collision protection chain {chain_name!r}: expected one of {sorted(PROTECTION_CHAINS)}"
        ) from None


@dataclass(frozen=True)
class CollisionPairs:
    """The checked pairs: shape A is always an arm shape, shape B any other shape.

    first / second: (n_pairs,) indices into `shapes`; arm_of_pair: (n_pairs, 2) bool, column k
    True when the pair has a shape on ``ARMS[k]`` (LArm, RArm), i.e. protecting that arm checks it.
    """

    shapes: tuple[Capsule, ...]
    first: np.ndarray
    second: np.ndarray
    arm_of_pair: np.ndarray

    ARMS = ("LArm", "RArm")

    @property
    def n_pairs(self) -> int:
        return len(self.first)

    def names(self, i: int) -> tuple[str, str]:
        return self.shapes[self.first[i]].name, self.shapes[self.second[i]].name

    def checked(self, protected: set[str] | frozenset[str]) -> np.ndarray:
        """(n_pairs,) bool: pairs checked when the arms in `protected` are protected."""
        columns = [k for k, arm in enumerate(self.ARMS) if arm in protected]
        return self.arm_of_pair[:, columns].any(axis=1)


def collision_pairs(model: NaoModel, shapes: list[Capsule] | None = None) -> CollisionPairs:
    """The pairs by the rule of the module docstring (shapes default to body_shapes.body_capsules)."""
    shapes = tuple(shapes if shapes is not None else body_capsules(model))
    arm_of_group = {group: arm for arm, group in ARM_GROUPS.items()}
    arm_shapes = [i for i, s in enumerate(shapes) if s.group in arm_of_group]
    first, second = [], []
    for i in arm_shapes:
        for j, other in enumerate(shapes):
            if other.group == shapes[i].group:
                continue  # same arm: joined at the elbow
            if j in arm_shapes and shapes[j].group < shapes[i].group:
                continue  # arm-arm pair already listed from the left ("l_arm" < "r_arm")
            first.append(i)
            second.append(j)
    arm_of_pair = np.zeros((len(first), len(CollisionPairs.ARMS)), dtype=bool)
    for k, arm in enumerate(CollisionPairs.ARMS):
        group = ARM_GROUPS[arm]
        arm_of_pair[:, k] = [shapes[a].group == group or shapes[b].group == group for a, b in zip(first, second)]
    return CollisionPairs(shapes, np.array(first, dtype=int), np.array(second, dtype=int), arm_of_pair)


class PairDistances:
    """Per-cycle distances of all pairs for a kinematic state, into preallocated buffers.

    Shape end points are moved from their link frames into the torso frame with one batched
    product; both shapes' end points of every pair are gathered into the distance core's
    workspace with one ``take(..., out=)``, and the core then writes into it. :meth:`compute`
    returns the workspace's result (overwritten by the next call).

    With `obstacles` (the layout of the arms against the declared obstacle slots), every cycle
    computes the pairs and the obstacle pairs in one call of the distance core, from one
    gather (its cost is its numpy calls, hardly the number of pairs; an empty
    slot's distance is inf): ``all_result`` holds both, ``result`` (the pairs) and
    ``obstacle_result`` are views of it. While every slot is empty only the pairs are computed
    (``rows_computed``), the obstacle pairs' distances inf. Without `obstacles` only the pairs
    are computed.
    """

    def __init__(self, fk: ForwardKinematics, pairs: CollisionPairs, obstacles: ObstacleDistances | None = None):
        self.fk = fk
        self.pairs = pairs
        link_index = {name: i for i, name in enumerate(fk.link_names)}
        shapes = pairs.shapes
        self.shape_link = np.array([link_index[s.link] for s in shapes])
        # Homogeneous local end points as rows, (n_shapes, 2, 4): p, then q.
        ends = np.ones((len(shapes), 2, 4))
        ends[:, 0, :3] = [s.p_m for s in shapes]
        ends[:, 1, :3] = [s.q_m for s in shapes]
        self._ends_local = ends
        self.radius_m = np.array([s.radius_m for s in shapes])
        n, m = len(shapes), pairs.n_pairs
        first, second, r1, r2 = pairs.first, pairs.second, self.radius_m[pairs.first], self.radius_m[pairs.second]
        self.obstacles = obstacles
        capacity = 0
        if obstacles is not None:
            # An obstacle pair's shape A is one of the pairs' shapes; its B is a slot, held after them.
            capacity = obstacles.capacity
            shape_of = {s.name: i for i, s in enumerate(shapes)}
            obstacle_shape = np.array([shape_of[s.name] for s in obstacles.shapes])[obstacles.pair_shape]
            first = np.concatenate([first, obstacle_shape])
            second = np.concatenate([second, n + obstacles.pair_slot])
            r1 = np.concatenate([r1, obstacles.radius_m[:, 0]])
            r2 = np.concatenate([r2, np.zeros(obstacles.n_pairs)])
        #: Link of each pair's shape A (pairs, then obstacle pairs) and of the pairs' shape B.
        self.link_a = self.shape_link[first]
        self.link_b = self.shape_link[pairs.second]
        # The gather's source: the shapes' end points (torso frame, every cycle), then the slots'
        # (rows p, q per shape or slot).
        self._poses = np.empty((n, 4, 4))
        self._poses_rows = self._poses.transpose(0, 2, 1)[:, :, :3]  # (T e)' = e' T', its x y z
        self._ends = np.zeros((n + capacity, 2, 3))
        self._shape_ends = self._ends[:n]
        self._slot_ends = self._ends[n:]
        self._end_rows = self._ends.reshape(-1, 3)
        # The distance core's end points, rows q1, q2, p1, p2, p2 of every pair: one gather.
        self._end_order = np.concatenate([2 * first + 1, 2 * second + 1, 2 * first, 2 * second, 2 * second])
        count = len(first)
        self.workspace = DistanceWorkspace(count)
        #: The leading rows of ``all_result`` the last :meth:`compute` computed (with the layout of
        #: obstacles and none declared, the pairs'; the others as they were).
        self.rows_computed = count
        self._pair_ends = self.workspace.ends.reshape(-1, 3)
        self.workspace.signed_radius_m[0, :, 0] = r1
        self.workspace.signed_radius_m[1, :, 0] = np.negative(r2)
        self.all_result = self.workspace.result
        self.result = DistanceResult(*(getattr(self.all_result, f.name)[:m] for f in fields(DistanceResult)))
        self.obstacle_result: DistanceResult | None = None
        if obstacles is not None:
            self.obstacle_result = DistanceResult(*(getattr(self.all_result, f.name)[m:]
                                                    for f in fields(DistanceResult)))
            self._slot_signed_radius = self.workspace.signed_radius_m[1, m:, 0]
            self._slot_used = np.zeros(obstacles.n_pairs)
            self._unused = np.zeros(obstacles.n_pairs, dtype=bool)
            self._no_obstacles = ObstacleSlots(capacity)
            self._slots_seen: bytes | None = None  # the slots the gather's source holds
            # With every slot empty (walking, mostly) only the pairs are computed: the obstacle
            # pairs' distances stay inf, their other results as they were (finite, never read
            # for an inactive row).
            self._pairs_only = DistanceWorkspace(m, leading_of=self.workspace)
            self._no_slot_used = True

    def compute(self, state: KinematicState, obstacles: ObstacleSlots | None = None) -> DistanceResult:
        """The pairs' distances (``result``), and with the layout of obstacles those to the
        declared `obstacles` (``obstacle_result``, inf for an empty slot; all empty when None)."""
        state.link_poses.take(self.shape_link, axis=0, out=self._poses)
        np.matmul(self._ends_local, self._poses_rows, out=self._shape_ends)
        if self.obstacles is not None:
            self._take_slots(obstacles if obstacles is not None else self._no_obstacles)
        self._end_rows.take(self._end_order, axis=0, out=self._pair_ends)
        if self.obstacles is None:
            self.workspace.compute_ends()
            return self.result
        workspace = self._pairs_only if self._no_slot_used else self.workspace
        workspace.compute_ends()
        self.rows_computed = workspace.n
        np.copyto(self.obstacle_result.distance_m, np.inf, where=self._unused)
        return self.result

    def computed_with(self, obstacles: ObstacleSlots) -> bool:
        """Whether the last :meth:`compute` had these obstacles (always, without their layout)."""
        return self.obstacles is None or obstacles.packed.tobytes() == self._slots_seen

    def _take_slots(self, obstacles: ObstacleSlots) -> None:
        """The slots' end points and radii into the gather's source, when they changed (they
        are declared far less often than a cycle)."""
        seen = obstacles.packed.tobytes()
        if seen == self._slots_seen:
            return
        self._slots_seen = seen
        capacity = obstacles.capacity
        # packed rows [p, q, radius, used]: p and q as the rows of a (2, 3) block per slot.
        np.copyto(self._slot_ends, obstacles.packed[:, :6].reshape(capacity, 2, 3))
        obstacles.radius_m.take(self.obstacles.pair_slot, out=self._slot_signed_radius)
        np.negative(self._slot_signed_radius, out=self._slot_signed_radius)
        obstacles.used.take(self.obstacles.pair_slot, out=self._slot_used)
        np.equal(self._slot_used, 0.0, out=self._unused)
        self._no_slot_used = bool(self._unused.all())

    def at(self, q: np.ndarray) -> DistanceResult:
        """Distances at configuration q (runs the FK; for checks and tests, not the cycle)."""
        return self.compute(self.fk.compute(q))
