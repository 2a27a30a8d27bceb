"""The wished command per cycle, from joint targets and trajectories (the filter's input side).

* A target (``joint_targets``, setAngles, angleInterpolationWithSpeed) moves the named joints
  in a straight line in joint space from where the command is, all arriving together, the
  slowest joint at its speed (``speeds_rps``): NAOqi's angleInterpolationWithSpeed timing.
* A trajectory (``joint_trajectory``, angleInterpolation) is interpolated between its points at
  the cycle rate, from the current command (at rest) to its first point (at that point's time,
  or at once when it is 0): linearly, or, when every point gives its joints' speeds, along the
  cubic through the points with those speeds (``nao_motion.interpolation``; angleInterpolation
  sends NAOqi's smooth speeds).
* A new motion takes its joints over from older ones (NAOqi: the last command wins); joints
  without a motion keep their last wished value.
* Joints held by the caller (limp joints) wish their measured value and drop out of motions,
  so stiffening them again starts from where they are.

Positions are clipped into the joints' ranges here; speed limits and the coupled head / ankle
ranges are the avoidance's. Input is validated here, for the node and the tests alike:
malformed input raises :class:`~nao_motion.joint_input.JointInputError` saying why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..interpolation import hermite_rows, hermite_weights
from ..joint_input import MAX_COMMAND_POSITION_RAD, JointInputError, parse_joint_values
from ..model import NaoModel
from .distance import any_set


# joint_targets with this header.frame_id (the walk's arm swing, re-sent every cycle) yield: they
# take no joint that another motion still moves (``JointReference.not_driven``).
YIELDING_TARGETS_FRAME = "walk_arm_swing"


@dataclass
class Targets:
    """Validated targets: model indices, positions (rad, clipped to range) and speeds (rad/s)."""

    indices: np.ndarray
    positions: np.ndarray
    speeds_rps: np.ndarray


@dataclass
class Trajectory:
    """Validated trajectory: model indices, point times (s, increasing), (k, n) positions and,
    when the points give them, (k, n) speeds (rad/s; None: interpolated linearly)."""

    indices: np.ndarray
    times_s: np.ndarray
    positions: np.ndarray
    speeds_rps: np.ndarray | None = None


def parse_targets(model: NaoModel, names: Sequence[str], positions: Sequence[float],
                  velocities: Sequence[float], speed_fraction: float) -> Targets:
    """Targets from a JointState-like message; empty `velocities` means speed_fraction * max speed.

    Given velocities (rad/s, > 0, one per name) set each joint's speed, capped at its maximum.
    """
    if len(names) == 0:
        raise JointInputError("no joint names")
    parsed = parse_joint_values(model, names, positions, limit=MAX_COMMAND_POSITION_RAD)
    return targets_of(model, parsed.indices, parsed.values, velocities, speed_fraction)


def targets_of(model: NaoModel, indices: np.ndarray, positions: np.ndarray, velocities: Sequence[float],
               speed_fraction: float) -> Targets:
    """parse_targets' targets of joints already checked (model ``indices``, finite positions
    within MAX_COMMAND_POSITION_RAD, as ``ros.cdr.JointStateReader`` reads them)."""
    if len(indices) == 0:
        raise JointInputError("no joint names")
    vmax = model.max_velocity[indices]
    if len(velocities) == 0:
        speeds = speed_fraction * vmax
    else:
        speeds = np.asarray(velocities, dtype=float)
        if speeds.shape != (len(indices),):
            raise JointInputError(f"{len(indices)} joint names but {len(velocities)} velocity values")
        # Python floats: the walk's arm swing comes every cycle, and np.all on two values costs
        # more than the comparisons (NaN fails both).
        if not all(0.0 < v < math.inf for v in speeds.tolist()):
            raise JointInputError(f"velocities must be finite and > 0 (speeds in rad/s), got {list(speeds)}")
        speeds = np.minimum(speeds, vmax)
    clipped = np.minimum(np.maximum(positions, model.lower[indices]), model.upper[indices])  # np.clip's checks cost more
    return Targets(indices, clipped, speeds)


def parse_trajectory(model: NaoModel, names: Sequence[str], times_s: Sequence[float],
                     points: Sequence[Sequence[float]],
                     speeds: Sequence[Sequence[float]] | None = None) -> Trajectory:
    """A trajectory from joint names, point times and point positions (one row per point), and
    optionally the points' speeds (rad/s, one row per point: every row empty, or one speed per
    name in every row; each capped at its joint's maximum speed)."""
    if len(names) == 0:
        raise JointInputError("no joint names")
    if len(points) == 0:
        raise JointInputError("no trajectory points")
    rows = []
    for k, positions in enumerate(points):
        try:
            rows.append(parse_joint_values(model, names, positions, limit=MAX_COMMAND_POSITION_RAD))
        except JointInputError as err:
            raise JointInputError(f"point {k}: {err}") from None
    times = np.asarray(times_s, dtype=float)
    if not np.all(np.isfinite(times)) or times[0] < 0.0:
        raise JointInputError(f"time_from_start must be finite and >= 0, got {list(times)}")
    backwards = np.flatnonzero(np.diff(times) <= 0.0)
    if len(backwards):
        k = int(backwards[0]) + 1
        raise JointInputError(f"time_from_start goes backwards at point {k}: {times[k]} s after {times[k - 1]} s")
    indices = rows[0].indices
    positions = np.clip(np.stack([r.values for r in rows]), model.lower[indices], model.upper[indices])
    return Trajectory(indices, times, positions, _point_speeds(model, indices, speeds, len(rows)))


def _point_speeds(model: NaoModel, indices: np.ndarray, speeds: Sequence[Sequence[float]] | None,
                  n_points: int) -> np.ndarray | None:
    """The points' speeds ((k, n), in the order of the names, as ``indices``; capped), or None
    when no point gives any."""
    if speeds is None or all(len(row) == 0 for row in speeds):
        return None
    if len(speeds) != n_points or any(len(row) != len(indices) for row in speeds):
        raise JointInputError(f"velocities: every point gives one per joint name ({len(indices)}) or none does")
    values = np.asarray([list(row) for row in speeds], dtype=float)
    if not np.all(np.isfinite(values)):
        raise JointInputError(f"velocities must be finite, got {values.tolist()}")
    vmax = model.max_velocity[indices]
    return np.clip(values, -vmax, vmax)


@dataclass
class _Motion:
    """A target or trajectory for some joints, interpolated into a buffer prepared with it."""

    indices: np.ndarray  # model indices of the joints it drives
    start_s: float
    times_s: np.ndarray  # (k,), from 0
    positions: np.ndarray  # (k, n)
    yields: bool = False  # the walk's arm swing: it gives way to the other motions (not_driven)
    line: bool = False  # move_to's straight line of two points, its times and points its own (renewable)
    speeds: np.ndarray | None = None  # (k, n) rad/s: the cubic through the points (else linear)

    def __post_init__(self):
        self._value = np.empty(len(self.indices))
        # The cubics' rows and weights, prepared here: a cycle only fills the four weights.
        self._rows = None if self.speeds is None else hermite_rows(self.times_s, self.positions, self.speeds)
        self._weights = np.empty(4)

    def release(self, taken: np.ndarray) -> None:
        """Stop driving the joints where `taken` (bool, model order) is True."""
        keep = ~taken[self.indices]
        if not keep.all():
            self.indices, self.positions = self.indices[keep], self.positions[:, keep]
            if self.speeds is not None:
                self.speeds, self._rows = self.speeds[:, keep], self._rows[:, :, keep]
            self._value = np.empty(len(self.indices))

    def write(self, now_s: float, q: np.ndarray) -> bool:
        """Write the positions at `now_s` into q (nothing before the start); True once over."""
        t = now_s - self.start_s
        times, points, value = self.times_s, self.positions, self._value
        if t >= times[-1]:
            q[self.indices] = points[-1]
            return True
        if t > 0.0:
            k = int(np.searchsorted(times, t, side="right")) - 1
            if self._rows is not None:
                weights = hermite_weights((t - times[k]) / (times[k + 1] - times[k]), self._weights)
                np.matmul(weights, self._rows[k], out=value)
            else:
                np.subtract(points[k + 1], points[k], out=value)
                value *= (t - times[k]) / (times[k + 1] - times[k])
                value += points[k]
            q[self.indices] = value
        return False


class JointReference:
    """Per-cycle wished positions of all joints (model order) from targets and trajectories."""

    def __init__(self, model: NaoModel):
        self.model = model
        self.q = model.zero_configuration()
        self._motions: list[_Motion] = []
        # The last straight line that ended: the walk's arm swing re-sends its target every cycle,
        # each line over by the next sample, and the next one reuses it (_renew).
        self._ended_line: _Motion | None = None
        self._taken = np.zeros(model.n_joints, dtype=bool)
        self._idle = np.zeros(model.n_joints, dtype=bool)
        self._moved = np.zeros(model.n_joints, dtype=bool)
        # When a motion last gave each joint's wish; inf: a motion added, not sampled yet.
        self._driven_s = np.full(model.n_joints, -np.inf)
        self._sampled_s = -np.inf

    def reset(self, q: np.ndarray) -> None:
        self.q[:] = q
        self._motions.clear()
        self._ended_line = None
        self._driven_s.fill(-np.inf)
        self._sampled_s = -np.inf

    @property
    def moving(self) -> bool:
        return bool(self._motions)

    def idle(self, for_s: float) -> np.ndarray:
        """The joints no motion has driven for `for_s` before the last sample, nor drives now
        (bool, model order; the reference's buffer)."""
        np.less(self._driven_s, self._sampled_s - for_s, out=self._idle)
        return self._idle

    def take_over(self, q: np.ndarray, joints: np.ndarray) -> None:
        """`joints` (bool, model order; idle ones) wish `q`'s values from now on."""
        np.copyto(self.q, q, where=joints)

    def not_driven(self, targets: Targets) -> Targets | None:
        """The targets of the joints no motion moves but yielding ones; None if none is left.

        For the walk's arm swing: a user's arm command reaches the filter as the walk computes
        its cycle, so the swing's target of that cycle can come after it, and would take the
        user's joint back (the walk leaves the arm to the user from its next cycle)."""
        if all(motion.yields for motion in self._motions):  # walking with no user motion: every cycle
            return targets
        moved = self._moved
        moved.fill(False)
        for motion in self._motions:
            if not motion.yields:
                moved[motion.indices] = True
        keep = ~moved[targets.indices]
        if keep.all():
            return targets
        if not keep.any():
            return None
        return Targets(targets.indices[keep], targets.positions[keep], targets.speeds_rps[keep])

    def move_to(self, targets: Targets, start: np.ndarray, now_s: float, yields: bool = False) -> float:
        """Straight line from `start` (the current command) to the targets; returns its duration (s).
        `yields`: the targets came through ``not_driven``, and later yielding targets may take
        their joints."""
        begin = start[targets.indices]
        delta = np.abs(targets.positions - begin)
        duration_s = float((delta / targets.speeds_rps).max())
        if duration_s <= 0.0:
            self._add(_Motion(targets.indices, now_s, np.zeros(1), targets.positions[None, :], yields))
        elif not self._renew(targets, begin, now_s, duration_s, yields):
            points = np.stack([begin, targets.positions])
            self._add(_Motion(targets.indices, now_s, np.array([0.0, duration_s]), points, yields, line=True))
        return duration_s

    def _renew(self, targets: Targets, begin: np.ndarray, now_s: float, duration_s: float, yields: bool) -> bool:
        """The straight line `begin` -> targets made of a line of the same joints without the
        allocations (the walk's arm swing, re-sent every cycle): the newest motion restarted in
        place (no older motion drives those joints: each added motion took its joints from the
        older ones), or the last line that ended, added again. False: neither is such a line."""
        indices = targets.indices.tobytes()
        newest = self._motions[-1] if self._motions else None
        if newest is not None and newest.line and newest.yields == yields and newest.indices.tobytes() == indices:
            motion = newest
        else:
            motion = self._ended_line
            if motion is None or motion.yields != yields or motion.indices.tobytes() != indices:
                return False
            self._ended_line = None
        motion.start_s = now_s
        motion.times_s[1] = duration_s
        motion.positions[0] = begin
        motion.positions[1] = targets.positions
        if motion is newest:
            self._driven_s[motion.indices] = np.inf
        else:
            self._add(motion)
        return True

    def follow(self, trajectory: Trajectory, start: np.ndarray, start_s: float) -> float:
        """Interpolate `trajectory` from `start_s`, beginning at `start`; returns its duration (s)."""
        times, points, speeds = trajectory.times_s, trajectory.positions, trajectory.speeds_rps
        if times[0] > 0.0:  # from the command, at rest
            times = np.concatenate([[0.0], times])
            points = np.concatenate([start[trajectory.indices][None, :], points])
            if speeds is not None:
                speeds = np.concatenate([np.zeros((1, speeds.shape[1])), speeds])
        self._add(_Motion(trajectory.indices, start_s, times, points, speeds=speeds))
        return float(times[-1])

    def _add(self, motion: _Motion) -> None:
        self._driven_s[motion.indices] = np.inf
        if self._motions:
            taken = self._taken
            taken.fill(False)
            taken[motion.indices] = True
            for older in self._motions:
                older.release(taken)
        self._motions = [m for m in self._motions if len(m.indices)] + [motion]

    def sample(self, now_s: float, hold: np.ndarray | None = None, hold_values: np.ndarray | None = None) -> np.ndarray:
        """The wish at `now_s` (the reference's buffer); `hold` joints wish `hold_values`."""
        holding = hold is not None and any_set(hold)
        if holding:
            for motion in self._motions:
                motion.release(hold)
            np.copyto(self.q, hold_values, where=hold)
        over = [motion.write(now_s, self.q) for motion in self._motions]
        self._sampled_s = now_s
        np.minimum(self._driven_s, now_s, out=self._driven_s)  # added, then held before a sample
        for motion in self._motions:
            self._driven_s[motion.indices] = now_s
        if holding or any(over):
            for motion, done in zip(self._motions, over):
                if done and motion.line and len(motion.indices):
                    self._ended_line = motion
            self._motions = [m for m, done in zip(self._motions, over) if not done and len(m.indices)]
        return self.q
