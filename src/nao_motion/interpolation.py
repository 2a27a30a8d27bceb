"""Smooth keyframe interpolation, as NAOqi's angleInterpolation moves a joint: through each key at
its time, at rest at the first and the last, with a continuous speed through the others.

A joint's path between two keys is the cubic with the keys' positions and speeds (cubic Hermite):
with a speed at every trajectory point, this is how ``joint_trajectory`` is followed (as
ros2_control's joint_trajectory_controller follows points that carry velocities). The speeds of
``smooth_speeds`` are NAOqi's "smooth" keys: 0 at the ends; 0 at a key where the motion turns
back or stops (a local extremum), so the path never overshoots a key; elsewhere the weighted
harmonic mean of the two neighbouring slopes (Fritsch-Butland, the monotone cubic of PCHIP). The
path between two keys then stays between them: inside the joint's range whenever the keys are.

angleInterpolationBezier's curves (``bezier_path``: NAOqi's keys and handles as cubic Beziers in
the (time, angle) plane) are followed the same way, sampled densely with their speeds
(``merged_bezier_keys``).
"""

from __future__ import annotations

import numpy as np


def smooth_speeds(times_s: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The speed (rad/s) of each key of ``points`` ((k, n), one column per joint) at ``times_s``
    ((k,), increasing): NAOqi's smooth keys (module docstring); (k, n)."""
    points = np.asarray(points, dtype=float)
    speeds = np.zeros_like(points)
    if len(points) < 3:
        return speeds
    h = np.diff(np.asarray(times_s, dtype=float))[:, None]  # (k - 1, 1)
    slopes = np.diff(points, axis=0) / h
    before, after = slopes[:-1], slopes[1:]
    w1 = 2.0 * h[1:] + h[:-1]
    w2 = h[1:] + 2.0 * h[:-1]
    same_way = before * after > 0.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # where not used
        mean = (w1 + w2) / (w1 / before + w2 / after)
    speeds[1:-1] = np.where(same_way, mean, 0.0)
    return speeds


def hermite_weights(s: float, out: np.ndarray) -> np.ndarray:
    """The cubic Hermite weights at ``s`` (0..1 along a segment of length h) of p0, p1, h v0 and
    h v1, written into ``out`` (4,)."""
    s2 = s * s
    s3 = s2 * s
    out[:] = 2.0 * s3 - 3.0 * s2 + 1.0, 3.0 * s2 - 2.0 * s3, s3 - 2.0 * s2 + s, s3 - s2
    return out


def hermite(t_s: float, t0_s: float, t1_s: float, p0: np.ndarray, p1: np.ndarray, v0: np.ndarray,
            v1: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The cubic from (p0, v0) at ``t0_s`` to (p1, v1) at ``t1_s``, at ``t_s``, written into ``out``."""
    h = t1_s - t0_s
    w = hermite_weights((t_s - t0_s) / h, np.empty(4))
    np.multiply(p0, w[0], out=out)
    out += w[1] * p1
    out += (w[2] * h) * v0
    out += (w[3] * h) * v1
    return out


def hermite_rows(times_s: np.ndarray, points: np.ndarray, speeds: np.ndarray) -> np.ndarray:
    """Per segment of the path through ``points`` ((k, n)) with ``speeds`` at ``times_s``, the rows
    ``hermite_weights`` weighs: (k - 1, 4, n) of p0, p1, h v0, h v1 (prepared once per path)."""
    h = np.diff(np.asarray(times_s, dtype=float))[:, None]
    return np.stack([points[:-1], points[1:], h * speeds[:-1], h * speeds[1:]], axis=1)


def hermite_rate(t_s: float, t0_s: float, t1_s: float, p0: np.ndarray, p1: np.ndarray, v0: np.ndarray,
                 v1: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``hermite``'s time derivative (the speed along the cubic) at ``t_s``, written into ``out``."""
    h = t1_s - t0_s
    s = (t_s - t0_s) / h
    s2 = s * s
    np.multiply(p1 - p0, (6.0 * s - 6.0 * s2) / h, out=out)
    out += (3.0 * s2 - 4.0 * s + 1.0) * v0
    out += (3.0 * s2 - 2.0 * s) * v1
    return out


def sample_smooth(times_s: np.ndarray, points: np.ndarray, speeds: np.ndarray,
                  at_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions and speeds ((m, n) each) of the Hermite path through ``points`` ((k, n)) with
    ``speeds`` at ``times_s`` ((k,), increasing), at the times ``at_s`` ((m,), within their span)."""
    times_s = np.asarray(times_s, dtype=float)
    positions = np.empty((len(at_s), points.shape[1]))
    rates = np.empty_like(positions)
    for i, t in enumerate(np.asarray(at_s, dtype=float)):
        k = min(max(int(np.searchsorted(times_s, t, side="right")) - 1, 0), len(times_s) - 2)
        segment = (t, times_s[k], times_s[k + 1], points[k], points[k + 1], speeds[k], speeds[k + 1])
        hermite(*segment, out=positions[i])
        hermite_rate(*segment, out=rates[i])
    return positions, rates


def merged_smooth_keys(starts: np.ndarray, key_times_s: list[np.ndarray],
                       keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Several joints' smooth paths as one trajectory: joint j from ``starts[j]`` at rest at 0
    through ``keys[j]`` at ``key_times_s[j]`` (positive, increasing), each joint sampled with its
    speed at every key time of any joint. Returns (times (m,), positions (m, n), speeds (m, n));
    followed with those speeds each joint keeps its own path (between two of the merged times
    it is the same cubic), and a joint whose keys end early rests at its last one."""
    times = np.unique(np.concatenate(key_times_s))
    positions, speeds = np.empty((len(times), len(keys))), np.zeros((len(times), len(keys)))
    for j, (start, t, a) in enumerate(zip(starts, key_times_s, keys)):
        own_times = np.concatenate([[0.0], t])
        own_keys = np.concatenate([[start], a])[:, None]
        p, v = sample_smooth(own_times, own_keys, smooth_speeds(own_times, own_keys), np.minimum(times, t[-1]))
        positions[:, j] = p[:, 0]
        speeds[:, j] = np.where(times < t[-1], v[:, 0], 0.0)
    return times, positions, speeds


# angleInterpolationBezier's path is sampled this often (and at every key) and followed as cubics
# through the samples' positions and speeds. Where a handle's time is not a third of its segment
# the curve's angle is not a cubic in time: followed within 0.08 mrad of it for handles at a
# tenth to a half of their segments, 1.5 mrad for a steep one (0.4 rad in 0.05 s); 0.05 s: 1.3
# and 10 mrad (test_interpolation).
BEZIER_SAMPLE_S = 0.02
BEZIER_KINK_S = 1e-3  # a corner of the curve (handles not in line) is followed within this time
_BISECTIONS = 40  # the Bezier parameter of a time, to 1e-12 of the segment


class BezierError(ValueError):
    """Control points that do not make a joint's angle a function of time, saying why."""


def bezier_path(start: float, key_times_s: np.ndarray, keys: list) -> tuple[np.ndarray, np.ndarray]:
    """NAOqi's angleInterpolationBezier curve of one joint, as Bezier control points in the
    (time, angle) plane: from ``start`` at rest at 0, through ``keys[i] = [angle, [type, dAngle1,
    dTime1], [type, dAngle2, dTime2]]`` at ``key_times_s[i]``, where (dTime1, dAngle1) is the
    handle toward the key before (dTime1 <= 0) and (dTime2, dAngle2) the one toward the next
    (dTime2 >= 0); the interpolation type is not read (every segment is a cubic Bezier). Returns
    the control points' times and angles, (segments, 4) each."""
    times = np.concatenate([[0.0], np.asarray(key_times_s, dtype=float)])
    angles = [float(start)] + [float(key[0]) for key in keys]
    before = [(0.0, 0.0)] + [_handle(key[1], i, "first") for i, key in enumerate(keys)]
    after = [(0.0, 0.0)] + [_handle(key[2], i, "second") for i, key in enumerate(keys)]
    control_t, control_a = np.empty((len(keys), 4)), np.empty((len(keys), 4))
    for s in range(len(keys)):
        h = times[s + 1] - times[s]
        (dt_out, da_out), (dt_in, da_in) = after[s], before[s + 1]
        if s == 0:  # from rest: the start's handle flat, a third of the way
            dt_out, da_out = h / 3.0, 0.0
        if not (0.0 <= dt_out <= h and -h <= dt_in <= 0.0):
            raise BezierError(f"key {s}: its handles' times must stay within their segments "
                              f"(second handle 0..{h:.3g} s after, first handle 0..{h:.3g} s before the next key)")
        if (dt_out == 0.0 and da_out != 0.0) or (dt_in == 0.0 and da_in != 0.0):
            raise BezierError(f"key {s}: a handle that changes the angle needs a time (an infinite speed)")
        control_t[s] = times[s], times[s] + dt_out, times[s + 1] + dt_in, times[s + 1]
        control_a[s] = angles[s], angles[s] + da_out, angles[s + 1] + da_in, angles[s + 1]
    return control_t, control_a


def _handle(handle, key: int, which: str) -> tuple[float, float]:
    if len(handle) != 3:
        raise BezierError(f"key {key}: the {which} handle is [interpolationType, dAngle, dTime], got {handle!r}")
    d_angle, d_time = float(handle[1]), float(handle[2])
    if not (np.isfinite(d_angle) and np.isfinite(d_time)):
        raise BezierError(f"key {key}: the {which} handle must be finite, got {handle!r}")
    return d_time, d_angle


def sample_bezier(control_t: np.ndarray, control_a: np.ndarray, at_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Angles and speeds of a ``bezier_path`` at the times ``at_s`` (held at the last key after it)."""
    at_s = np.minimum(np.asarray(at_s, dtype=float), control_t[-1, 3])
    # At a key, the segment that starts there: its speed, which the path takes from the key on.
    segment = np.clip(np.searchsorted(control_t[:, 3], at_s, side="right"), 0, len(control_t) - 1)
    ct, ca = control_t[segment], control_a[segment]
    lo, hi = np.zeros(len(at_s)), np.ones(len(at_s))
    for _ in range(_BISECTIONS):  # the curve's time grows with its parameter (handles within segments)
        mid = 0.5 * (lo + hi)
        later = _bezier(ct, mid) > at_s
        hi = np.where(later, mid, hi)
        lo = np.where(later, lo, mid)
    u = 0.5 * (lo + hi)
    dt_du, da_du = _bezier_rate(ct, u), _bezier_rate(ca, u)
    with np.errstate(divide="ignore", invalid="ignore"):
        speeds = np.where(dt_du > 1e-12, da_du / dt_du, 0.0)  # a flat handle's end is at rest
    return _bezier(ca, u), speeds


def _bezier(c: np.ndarray, u: np.ndarray) -> np.ndarray:
    v = 1.0 - u
    return v ** 3 * c[:, 0] + 3.0 * v * v * u * c[:, 1] + 3.0 * v * u * u * c[:, 2] + u ** 3 * c[:, 3]


def _bezier_rate(c: np.ndarray, u: np.ndarray) -> np.ndarray:
    v = 1.0 - u
    return 3.0 * (v * v * (c[:, 1] - c[:, 0]) + 2.0 * v * u * (c[:, 2] - c[:, 1]) + u * u * (c[:, 3] - c[:, 2]))


def merged_bezier_keys(starts: np.ndarray, key_times_s: list[np.ndarray],
                       keys: list[list]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Several joints' ``bezier_path``s as one trajectory, sampled every BEZIER_SAMPLE_S, at
    every key of any joint and BEZIER_KINK_S before it: (times (m,), positions (m, n), speeds
    (m, n)); a joint whose keys end early rests at its last one. A key whose two handles are not
    in line is a corner of the curve, its speed changing there: the sample just before it keeps
    the speed before the corner, the key's own the speed after."""
    paths = [bezier_path(start, t, k) for start, t, k in zip(starts, key_times_s, keys)]
    end_s = max(float(t[-1]) for t in key_times_s)
    grid = np.arange(BEZIER_SAMPLE_S, end_s, BEZIER_SAMPLE_S)
    keys_s = np.concatenate(key_times_s)
    times = np.unique(np.concatenate([grid, keys_s, keys_s - BEZIER_KINK_S]))
    times = times[times > 0.0]
    positions, speeds = np.empty((len(times), len(keys))), np.empty((len(times), len(keys)))
    for j, (control_t, control_a) in enumerate(paths):
        positions[:, j], speeds[:, j] = sample_bezier(control_t, control_a, times)
        speeds[times >= control_t[-1, 3], j] = 0.0
    return times, positions, speeds
