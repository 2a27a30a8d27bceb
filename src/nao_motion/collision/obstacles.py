"""Obstacles outside the body (seed 002): their declaration, and their distances to the body's
shapes with the rates at which the joints shrink them.

An obstacle is a capsule: a segment swept by a radius (a sphere when the segment is a point),
in any frame, identified by a key (namespace, id) as visualization_msgs identify markers. A
cylinder is held as the capsule of the same axis and radius, which encloses it (conservative
by at most its radius beyond each end face); boxes are not taken (their exact distance to a
capsule is not computed here, and an enclosing shape is the user's to choose).

The declared obstacles live in fixed slots (``MAX_OBSTACLES``), so every QP that keeps clear
of them has a fixed number of rows: one per (body shape, slot), relaxed while the slot is empty.
Each cycle the owner resolves the obstacles' frames into the torso frame
(:meth:`ObstacleSet.in_torso`), then :class:`ObstacleDistances` gives, for every body shape and
slot, the signed distance, the closest points, the normal (from the body toward the obstacle)
and, per kinematic joint, how fast the joint moves the body's closest point along that normal
(n . J(p): the distance it takes away per radian, :class:`NormalRates`). The whole body's
avoidance rows are then ``qp.clearance.ClearanceConstraint``'s; the collision filter computes
the arms against the slots as more of its self-collision pairs (``pairs.PairDistances``, whose
rows have the same form).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..body_shapes import Capsule, body_capsules
from ..kinematics import ForwardKinematics, KinematicState
from ..model import NaoModel
from ..spatial import CROSS_OF_OUTER
from .distance import DistanceResult, DistanceWorkspace

MAX_OBSTACLES = 8
MAX_RADIUS_M = 2.0
MAX_LENGTH_M = 10.0
#: Body shape groups that keep clear of obstacles: the collision filter moves the arms only (its
#: pairs.ARM_GROUPS); the whole body moves every limb.
LIMB_GROUPS = ("l_arm", "r_arm", "l_leg", "r_leg", "l_foot", "r_foot")


@dataclass(frozen=True)
class Obstacle:
    """Segment p-q swept by `radius_m` (a sphere when p == q), in `frame_id`, metres.

    expires_s: the time (s, the owner's clock) after which it is stale and dropped (inf: never).
    """

    key: tuple[str, int]
    frame_id: str
    p_m: tuple[float, float, float]
    q_m: tuple[float, float, float]
    radius_m: float
    expires_s: float = np.inf

    def refusal(self) -> str | None:
        """Why this obstacle cannot be declared, or None."""
        if not self.frame_id:
            return f"obstacle {self.key}: empty frame_id"
        ends = np.array([self.p_m, self.q_m], dtype=float)
        if ends.shape != (2, 3) or not np.all(np.isfinite(ends)):
            return f"obstacle {self.key}: position and axis must be finite 3-vectors"
        if not (np.isfinite(self.radius_m) and 0.0 < self.radius_m <= MAX_RADIUS_M):
            return f"obstacle {self.key}: radius {self.radius_m!r} m not in (0, {MAX_RADIUS_M}]"
        if np.linalg.norm(ends[1] - ends[0]) > MAX_LENGTH_M:
            return f"obstacle {self.key}: longer than {MAX_LENGTH_M} m"
        return None


class ObstacleSlots:
    """The obstacles of one cycle in one frame (the torso's): (capacity, 3) ends p_m and q_m,
    radius_m, used (1.0 / 0.0): views of one array, ``packed``, so that a cycle compares and
    copies them in one call each."""

    def __init__(self, capacity: int = MAX_OBSTACLES):
        self.packed = np.zeros((capacity, 8))
        self.p_m = self.packed[:, 0:3]
        self.q_m = self.packed[:, 3:6]
        self.radius_m = self.packed[:, 6]
        self.used = self.packed[:, 7]

    @property
    def capacity(self) -> int:
        return len(self.used)

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.used))


class ObstacleSet:
    """The declared obstacles, in fixed slots; a declaration with a known key replaces it."""

    def __init__(self, capacity: int = MAX_OBSTACLES):
        self.slots: list[Obstacle | None] = [None] * capacity
        self._ends_h = np.ones((capacity, 4, 2))

    def __len__(self) -> int:
        return sum(o is not None for o in self.slots)

    def obstacles(self) -> list[Obstacle]:
        return [o for o in self.slots if o is not None]

    def declare(self, obstacle: Obstacle) -> None:
        """Add or replace `obstacle` (ValueError with the reason when refused or when full)."""
        reason = obstacle.refusal()
        if reason:
            raise ValueError(reason)
        index = self._index(obstacle.key)
        if index is None:
            free = [i for i, o in enumerate(self.slots) if o is None]
            if not free:
                raise ValueError(f"obstacle {obstacle.key}: already {len(self.slots)} obstacles declared "
                                 "(remove one first)")
            index = free[0]
        self.slots[index] = obstacle

    def remove(self, key: tuple[str, int]) -> bool:
        """Remove the obstacle of `key`; whether there was one."""
        index = self._index(key)
        if index is not None:
            self.slots[index] = None
        return index is not None

    def clear(self, namespace: str | None = None) -> int:
        """Remove every obstacle (of `namespace` when given); how many were removed."""
        removed = 0
        for i, o in enumerate(self.slots):
            if o is not None and (namespace is None or o.key[0] == namespace):
                self.slots[i] = None
                removed += 1
        return removed

    def expire(self, now_s: float) -> list[tuple[str, int]]:
        """Drop the obstacles whose lifetime ended before `now_s`; their keys."""
        gone = []
        for i, o in enumerate(self.slots):
            if o is not None and o.expires_s < now_s:
                gone.append(o.key)
                self.slots[i] = None
        return gone

    def in_torso(self, torso_from: Callable[[str], np.ndarray | None], out: ObstacleSlots) -> list[str]:
        """The obstacles in the torso frame, into `out`; `torso_from(frame)` is the 4x4 pose of a
        frame in the torso frame (None: unknown). Obstacles in unknown frames are left out (their
        slot unused); returns those frames."""
        missing = []
        out.used.fill(False)
        for i, o in enumerate(self.slots):
            if o is None:
                continue
            transform = torso_from(o.frame_id)
            if transform is None:
                missing.append(o.frame_id)
                continue
            ends = self._ends_h[i]
            ends[:3, 0], ends[:3, 1] = o.p_m, o.q_m
            moved = transform @ ends
            out.p_m[i], out.q_m[i] = moved[:3, 0], moved[:3, 1]
            out.radius_m[i] = o.radius_m
            out.used[i] = True
        return missing

    def _index(self, key: tuple[str, int]) -> int | None:
        return next((i for i, o in enumerate(self.slots) if o is not None and o.key == key), None)


class NormalRates:
    """g[i, j] = n_i . (a_j x (p_i - o_j)) where joint j moves point i, else 0: how fast revolute
    joint j (unit axis a_j through o_j) moves point p_i along n_i, per radian.

    Computed as a_j . (p_i x n_i) - n_i . (a_j x o_j): cross products as outer products times
    CROSS_OF_OUTER, then two matrix products; buffers prepared for `moves` ((m, k) bool).
    ``point_normal`` keeps the last p_i x n_i (the row of a rotation about the origin).
    """

    def __init__(self, moves: np.ndarray):
        self.moves = np.asarray(moves, dtype=float)
        m, k = self.moves.shape
        self.rates = np.zeros((m, k))
        self._outer_joints = np.zeros((k, 3, 3))
        self._outer_points = np.zeros((m, 3, 3))
        self._axis_origin = np.zeros((k, 3))
        self.point_normal = np.zeros((m, 3))
        self._tmp = np.zeros((m, k))

    def compute(self, axes: np.ndarray, origins: np.ndarray | None, points: np.ndarray, normals: np.ndarray,
                axis_origin: np.ndarray | None = None) -> np.ndarray:
        """The rates; `axis_origin` (k, 3): a_j x o_j when the caller has them (then `origins`
        is not needed)."""
        k, m = len(axes), len(points)
        if axis_origin is None:
            np.multiply(axes[:, :, None], origins[:, None, :], out=self._outer_joints)
            np.matmul(self._outer_joints.reshape(k, 9), CROSS_OF_OUTER, out=self._axis_origin)
            axis_origin = self._axis_origin
        np.multiply(points[:, :, None], normals[:, None, :], out=self._outer_points)
        np.matmul(self._outer_points.reshape(m, 9), CROSS_OF_OUTER, out=self.point_normal)
        np.matmul(self.point_normal, axes.T, out=self.rates)
        np.matmul(normals, axis_origin.T, out=self._tmp)
        self.rates -= self._tmp
        self.rates *= self.moves
        return self.rates


def obstacle_shapes(model: NaoModel, groups: tuple[str, ...]) -> list[Capsule]:
    """The body shapes of `groups` (body_shapes' groups), in body_capsules' order."""
    return [s for s in body_capsules(model) if s.group in groups]


class ObstacleDistances:
    """Every shape against every obstacle slot, torso frame: pair i = shape i // capacity, slot
    i % capacity. :meth:`compute` gives the distances (inf for an unused slot) and the closest
    points; :meth:`rates` then how fast each kinematic joint shrinks each distance (per rad).

    The layout (``shapes``, ``pair_shape``, ``pair_slot``, ``moves``) also serves an owner that
    computes these pairs in one call with other pairs (``pairs.PairDistances``: the distance
    core's cost is its ~60 numpy calls, hardly the number of pairs).
    """

    def __init__(self, fk: ForwardKinematics, shapes: list[Capsule], capacity: int = MAX_OBSTACLES):
        self.fk = fk
        link_index = {name: i for i, name in enumerate(fk.link_names)}
        ns, m = len(shapes), len(shapes) * capacity
        self.shapes, self.capacity, self.n_pairs = tuple(shapes), capacity, m
        self.shape_link = np.array([link_index[s.link] for s in shapes])
        self.pair_link = np.repeat(self.shape_link, capacity)
        self.pair_shape = np.repeat(np.arange(ns), capacity)
        self.pair_slot = np.tile(np.arange(capacity), ns)
        ends = np.ones((ns, 4, 2))
        ends[:, :3, 0] = [s.p_m for s in shapes]
        ends[:, :3, 1] = [s.q_m for s in shapes]
        self._ends_local = ends
        self._poses = np.zeros((ns, 4, 4))
        self._ends = np.zeros((ns, 4, 2))
        self._shape_p = np.zeros((ns, 3))
        self._shape_q = np.zeros((ns, 3))
        self.radius_m = np.repeat([s.radius_m for s in shapes], capacity)[:, None]
        self.unused = np.zeros(m, dtype=bool)
        self._used = np.zeros(m)
        self._inputs = [np.zeros((m, 3)), np.zeros((m, 3)), self.radius_m.copy(), np.zeros((m, 3)), np.zeros((m, 3)),
                        np.zeros((m, 1))]
        self.workspace = DistanceWorkspace(m)
        # moves[i, j]: kinematic joint j moves pair i's shape.
        self.moves = fk.moves_link[:, self.pair_link].T
        self.normal_rates = NormalRates(self.moves)

    def compute(self, state: KinematicState, obstacles: ObstacleSlots) -> DistanceResult:
        """The distances on their own (the whole body's; tests' ground truth)."""
        p1, q1, r1, p2, q2, r2 = self._inputs
        state.link_poses.take(self.shape_link, axis=0, out=self._poses)
        np.matmul(self._poses, self._ends_local, out=self._ends)
        np.copyto(self._shape_p, self._ends[:, :3, 0])
        np.copyto(self._shape_q, self._ends[:, :3, 1])
        self._shape_p.take(self.pair_shape, axis=0, out=p1)
        self._shape_q.take(self.pair_shape, axis=0, out=q1)
        obstacles.p_m.take(self.pair_slot, axis=0, out=p2)
        obstacles.q_m.take(self.pair_slot, axis=0, out=q2)
        obstacles.radius_m.take(self.pair_slot, out=r2[:, 0])
        obstacles.used.take(self.pair_slot, out=self._used)
        np.equal(self._used, 0.0, out=self.unused)
        result = self.workspace.compute(p1, q1, r1, p2, q2, r2)
        np.copyto(result.distance_m, np.inf, where=self.unused)
        return result

    def rates(self, axes: np.ndarray, axis_origin: np.ndarray, result: DistanceResult | None = None) -> np.ndarray:
        """(n_pairs, kinematic joints): n . J(point on the body) of `result` (default: the last
        :meth:`compute`'s), from the joints' unit axes a_j and a_j x o_j (torso frame, (k, 3)) at
        the same state (the whole body's ``FloatingBaseJacobians.axes`` / ``axis_origin_cross``)."""
        result = result if result is not None else self.workspace.result
        return self.normal_rates.compute(axes, None, result.point_a, result.normal, axis_origin=axis_origin)
