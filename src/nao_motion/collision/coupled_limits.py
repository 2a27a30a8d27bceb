"""Linear QP rows keeping a joint inside a range that depends on another joint, for one step.

NAO's HeadPitch range depends on |HeadYaw| (model.HEAD_PITCH_VS_YAW_DEG, linear between rows).
Within one control step the driver joint x can only move inside I = [x + step_lo, x + step_hi]
(velocity and position limits), so the constraint y' <= F(x') (F the upper bound, or -lower
bound with y negated) only has to hold on I. The rows are built so that

* they are conservative on I: every (x', y') they allow satisfies the table;
* the current point is always allowed (y <= F(x) implies every row holds at zero step), so the
  QP can always keep still;

which follows from F being piecewise linear with kinks farther apart than one step (checked at
construction), so I holds at most one kink on each side of x:

* the line of the segment containing x is always a row; through a convex kink it stays below F
  on the far side too;
* through a concave kink (slope decreasing) it would leave F, so the far segment's line is added
  as well: the region below a concave function is the intersection of its segments' half-planes,
  and those lines pass above the current point.

Each bound uses ROWS_PER_BOUND rows with a fixed sparsity (coefficients of dy and dx); unused
rows are relaxed by the caller (infinite right-hand side).
"""

from __future__ import annotations

import bisect

import numpy as np

ROWS_PER_BOUND = 3


class CoupledLimitRows:
    """Rows c_y dy + c_x dx <= rhs for lower(x) <= y <= upper(x), valid for one step of x.

    table_deg: rows (|x| or x, lower, upper) in degrees; symmetric: the table is in |x|.
    max_step_rad: the largest |dx| in one step (kinks must be farther apart than this).
    """

    n_rows = 2 * ROWS_PER_BOUND

    def __init__(self, table_deg: np.ndarray, symmetric: bool, max_step_rad: float):
        t = np.deg2rad(np.asarray(table_deg, dtype=float))
        if symmetric:  # F(x) = table(|x|): mirror the rows onto negative x
            t = np.concatenate([t[:0:-1] * [-1.0, 1.0, 1.0], t])
        x = t[:, 0]
        # Bounds as "upper" functions with their segment slopes: upper(x) and -lower(x).
        # Kept as Python floats: fill() does a handful of scalar operations every cycle.
        self._x = x.tolist()
        self._bounds = [(sign, f.tolist(), (np.diff(f) / np.diff(x)).tolist())
                        for sign, f in ((1.0, t[:, 2]), (-1.0, -t[:, 1]))]
        spacing = float(np.min(np.diff(x)))
        if spacing <= max_step_rad:
            raise ValueError(f"table breakpoints {spacing:.3f} rad apart, closer than one step {max_step_rad:.3f} rad")
        # Coefficients and used rows depend only on which segments' lines are rows (a handful of
        # choices): prepared for each, keyed by the rows' segments, so that a cycle copies them.
        self._blocks: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        segments = len(x) - 1
        for k in range(segments):
            choices = [(k, *extra) for extra in ((), (k - 1,), (k + 1,), (k - 1, k + 1))
                       if all(0 <= seg < segments for seg in extra)]
            for upper in choices:
                for lower in choices:
                    self._prepare_block((upper, lower))

    def _prepare_block(self, rows_per_bound: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
        """Coefficients [c_y, c_x] and used mask of the rows on these segments (per bound; an
        unused row repeats the first), keyed as :meth:`fill` returns them."""
        coefficients, used = np.zeros((self.n_rows, 2)), np.zeros(self.n_rows, dtype=bool)
        key = []
        for b, ((sign, _, slopes), rows) in enumerate(zip(self._bounds, rows_per_bound)):
            for r in range(ROWS_PER_BOUND):
                seg = rows[r] if r < len(rows) else rows[0]
                coefficients[b * ROWS_PER_BOUND + r] = (sign, -slopes[seg])
                used[b * ROWS_PER_BOUND + r] = r < len(rows)
                key.append(seg if r < len(rows) else -1)
        self._blocks[tuple(key)] = (coefficients, used)

    def fill(self, x: float, y: float, step_lo: float, step_hi: float,
             coefficients: np.ndarray, rhs: np.ndarray, used: np.ndarray) -> tuple[int, ...]:
        """Write (n_rows, 2) coefficients [c_y, c_x], right-hand sides and the used-row mask.
        Returns the rows' segments (-1: unused): equal keys, equal coefficients and mask."""
        key, rows_rhs = self.rows(x, y, step_lo, step_hi)
        block_coefficients, block_used = self._blocks[key]
        np.copyto(coefficients, block_coefficients)
        np.copyto(used, block_used)
        rhs[:] = rows_rhs
        return key

    def block(self, key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The (n_rows, 2) coefficients [c_y, c_x] and used-row mask of the rows keyed `key`
        (as :meth:`rows` returns it; prepared, not to be written)."""
        return self._blocks[key]

    def rows(self, x: float, y: float, step_lo: float, step_hi: float) -> tuple[tuple[int, ...], list[float]]:
        """The rows' segments (the key of their coefficients, -1: unused) and right-hand sides
        (rad; an unused row repeats its bound's first), in Python floats: a caller that keeps
        the coefficients while the key stays the same needs no numpy call."""
        x, y, xs = float(x), float(y), self._x
        k = min(max(bisect.bisect_right(xs, x) - 1, 0), len(xs) - 2)
        kink_left = k > 0 and xs[k] >= x + step_lo  # a kink inside the step, on the left
        kink_right = k + 2 < len(xs) and xs[k + 1] <= x + step_hi  # on the right
        key, rows_rhs = [], []
        for sign, f, slopes in self._bounds:
            rows = [k]
            if kink_left and slopes[k - 1] > slopes[k]:  # concave
                rows.append(k - 1)
            if kink_right and slopes[k + 1] < slopes[k]:
                rows.append(k + 1)
            # Line of segment `seg` at the current x, minus sign * y: the room left for the step.
            room = [f[seg] + slopes[seg] * (x - xs[seg]) - sign * y for seg in rows]
            unused = ROWS_PER_BOUND - len(rows)
            rows_rhs += room + [room[0]] * unused
            key += rows + [-1] * unused
        return tuple(key), rows_rhs
