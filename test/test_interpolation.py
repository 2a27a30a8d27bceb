"""NAOqi's smooth keyframe paths (``nao_motion.interpolation``) and the collision filter's reference
following them (``collision.reference``): at rest at the ends, a continuous speed through the keys,
never beyond a key, each joint's own path kept when several joints' keys are merged."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nao_motion.collision.reference import JointReference, parse_trajectory
from nao_motion.interpolation import (BezierError, bezier_path, hermite, hermite_rate, merged_bezier_keys,
                                     merged_smooth_keys, sample_bezier, sample_smooth, smooth_speeds)
from nao_motion.joint_input import JointInputError
from nao_motion.model import NaoModel

MODEL = NaoModel()
DT_S = MODEL.cycle_time_s

keyframes = st.lists(st.tuples(st.floats(0.05, 2.0), st.floats(-1.5, 1.5)), min_size=1, max_size=6)


def own_path(start: float, keys):
    """(times from 0, positions) of one joint's keys, from `start` at rest."""
    times = np.concatenate([[0.0], np.cumsum([dt for dt, _ in keys])])
    return times, np.array([[start]] + [[a] for _, a in keys])


@settings(max_examples=200, deadline=None)
@given(st.floats(-1.5, 1.5), keyframes)
def test_a_smooth_path_rests_at_its_ends_and_never_goes_beyond_a_key(start, keys):
    times, points = own_path(start, keys)
    speeds = smooth_speeds(times, points)
    assert speeds[0, 0] == 0.0 and speeds[-1, 0] == 0.0
    at = np.linspace(0.0, times[-1], 400)
    positions, _ = sample_smooth(times, points, speeds, at)
    for k in range(len(times) - 1):  # between two keys, between their values
        inside = (at >= times[k]) & (at <= times[k + 1])
        low, high = sorted((points[k, 0], points[k + 1, 0]))
        assert np.all(positions[inside, 0] >= low - 1e-12) and np.all(positions[inside, 0] <= high + 1e-12)
    np.testing.assert_allclose(sample_smooth(times, points, speeds, times)[0], points, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.floats(-1.5, 1.5), keyframes)
def test_the_speed_is_continuous_through_every_key(start, keys):
    times, points = own_path(start, keys)
    speeds = smooth_speeds(times, points)
    out_left, out_right = np.empty(1), np.empty(1)
    for k in range(1, len(times) - 1):
        left = hermite_rate(times[k], times[k - 1], times[k], points[k - 1], points[k], speeds[k - 1], speeds[k],
                            out=out_left)
        right = hermite_rate(times[k], times[k], times[k + 1], points[k], points[k + 1], speeds[k], speeds[k + 1],
                             out=out_right)
        assert left[0] == pytest.approx(right[0], abs=1e-9) == speeds[k, 0]


def test_a_key_where_the_motion_turns_back_is_passed_at_rest_and_a_straight_line_at_its_slope():
    times = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    points = np.array([[0.0], [0.5], [1.0], [0.2], [0.2]])
    speeds = smooth_speeds(times, points)[:, 0]
    assert speeds[1] == pytest.approx(0.5)  # on a straight line: its slope
    assert speeds[2] == 0.0 and speeds[3] == 0.0  # the turn back, and the stop


def test_hermite_is_the_cubic_with_the_ends_positions_and_speeds():
    c = np.array([0.3, -1.2, 0.7, 0.25])  # c0 + c1 t + c2 t^2 + c3 t^3

    def cubic(t):
        return c[0] + c[1] * t + c[2] * t ** 2 + c[3] * t ** 3

    def rate(t):
        return c[1] + 2 * c[2] * t + 3 * c[3] * t ** 2
    t0, t1, out = 0.4, 1.9, np.empty(1)
    ends = (t0, t1, np.array([cubic(t0)]), np.array([cubic(t1)]), np.array([rate(t0)]), np.array([rate(t1)]))
    for t in np.linspace(t0, t1, 7):
        assert hermite(t, *ends, out=out)[0] == pytest.approx(cubic(t))
        assert hermite_rate(t, *ends, out=out)[0] == pytest.approx(rate(t))


def test_merged_keys_followed_by_the_filter_keep_each_joints_own_path():
    """Two joints with their own key times (angleInterpolation's per-joint lists): the filter's
    reference, following the merged trajectory cycle by cycle, is each joint's own smooth path."""
    names = ["HeadYaw", "LShoulderPitch"]
    start = MODEL.zero_configuration()
    indices = [MODEL.joint_index(n) for n in names]
    key_times = [np.array([0.4, 1.1, 1.5]), np.array([0.6, 1.0])]
    keys = [np.array([0.5, -0.3, 0.1]), np.array([1.2, 0.4])]
    times, positions, speeds = merged_smooth_keys(start[indices], key_times, keys)
    trajectory = parse_trajectory(MODEL, names, times, positions, speeds)
    reference = JointReference(MODEL)
    reference.reset(start)
    reference.follow(trajectory, start, 0.0)
    cycles = np.arange(0.0, 1.6, DT_S)
    followed = np.array([reference.sample(t)[indices] for t in cycles])
    for j in range(2):
        own_times, own_keys = own_path(0.0, list(zip(np.diff(np.concatenate([[0.0], key_times[j]])), keys[j])))
        expected, _ = sample_smooth(own_times, own_keys, smooth_speeds(own_times, own_keys),
                                    np.minimum(cycles, own_times[-1]))
        np.testing.assert_allclose(followed[:, j], expected[:, 0], atol=1e-9)
    # At rest at the start and the end; no velocity step anywhere: its largest change in a cycle
    # is a twelfth of the straight lines' through the same points (0.29 against 3.6 rad/s).
    velocity = np.diff(followed, axis=0) / DT_S
    assert np.abs(velocity[0]).max() < 0.1 and np.abs(velocity[-1]).max() < 1e-9
    reference.reset(start)
    reference.follow(parse_trajectory(MODEL, names, times, positions), start, 0.0)
    lines = np.diff([reference.sample(t)[indices] for t in cycles], axis=0) / DT_S
    assert np.abs(np.diff(velocity, axis=0)).max() < np.abs(np.diff(lines, axis=0)).max() / 10.0


def test_a_trajectory_without_velocities_is_followed_in_straight_lines():
    trajectory = parse_trajectory(MODEL, ["HeadYaw"], [1.0, 2.0], [[0.5], [-0.5]])
    assert trajectory.speeds_rps is None
    reference = JointReference(MODEL)
    start = MODEL.zero_configuration()
    reference.reset(start)
    reference.follow(trajectory, start, 0.0)
    yaw = MODEL.joint_index("HeadYaw")
    assert [reference.sample(t)[yaw] for t in (0.5, 1.5)] == pytest.approx([0.25, 0.0])


@pytest.mark.parametrize("speeds, message", [([[0.1], []], "every point gives one per joint name"),
                                             ([[0.1, 0.2], [0.0, 0.0]], "every point gives one per joint name"),
                                             ([[float("nan")], [0.0]], "finite")])
def test_trajectory_velocities_are_all_or_none_and_finite(speeds, message):
    with pytest.raises(JointInputError, match=message):
        parse_trajectory(MODEL, ["HeadYaw"], [1.0, 2.0], [[0.5], [-0.5]], speeds)


def test_trajectory_velocities_are_capped_at_the_joints_speed():
    trajectory = parse_trajectory(MODEL, ["HeadYaw"], [1.0, 2.0], [[0.5], [-0.5]], [[100.0], [-100.0]])
    vmax = MODEL.max_velocity[MODEL.joint_index("HeadYaw")]
    np.testing.assert_allclose(trajectory.speeds_rps[:, 0], [vmax, -vmax])


# angleInterpolationBezier's control points: [angle, [type, dAngle, dTime] toward the key before,
# [type, dAngle, dTime] toward the next]
KEY_TIMES = np.array([1.0, 1.8, 3.0])
HANDLES = {"thirds": [[0.8, [2, -0.1, -0.33], [2, 0.05, 0.27]], [-0.4, [2, 0.1, -0.27], [2, -0.1, 0.4]],
                      [0.2, [2, -0.1, -0.4], [2, 0.0, 0.3]]],
           "uneven": [[0.8, [2, -0.3, -0.6], [2, 0.1, 0.1]], [-0.4, [2, 0.1, -0.3], [2, -0.1, 0.6]],
                      [0.2, [2, -0.1, -0.9], [2, 0.0, 0.3]]],
           "steep": [[0.8, [2, -0.3, -0.6], [2, 0.2, 0.1]], [-0.4, [2, 0.4, -0.05], [2, -0.1, 0.5]],
                     [0.2, [2, -0.2, -0.9], [2, 0.0, 0.3]]]}


def test_bezier_handles_a_third_of_their_segment_are_the_cubic_with_their_slopes():
    """Handles of a third of their segments: the curve is the cubic through the keys whose speed
    at each key is its handles' slope (dAngle / dTime)."""
    slopes, angles = [0.5, -0.2, 0.0], [0.3, 0.8, 0.1]
    bounds = np.concatenate([[0.0], KEY_TIMES, [4.0]])
    keys = [[a, [2, -v * (bounds[i + 1] - bounds[i]) / 3, -(bounds[i + 1] - bounds[i]) / 3],
             [2, v * (bounds[i + 2] - bounds[i + 1]) / 3, (bounds[i + 2] - bounds[i + 1]) / 3]]
            for i, (a, v) in enumerate(zip(angles, slopes))]
    control_t, control_a = bezier_path(0.0, KEY_TIMES, keys)
    at = np.linspace(0.0, 3.0, 61)
    angle, speed = sample_bezier(control_t, control_a, at)
    times = np.concatenate([[0.0], KEY_TIMES])
    cubic, cubic_speed = sample_smooth(times, np.array([[0.0]] + [[a] for a in angles]),
                                       np.array([[0.0]] + [[v] for v in slopes]), at)
    np.testing.assert_allclose(angle, cubic[:, 0], atol=1e-12)
    np.testing.assert_allclose(speed, cubic_speed[:, 0], atol=1e-9)


@pytest.mark.parametrize("handles, tolerance_rad", [("thirds", 1e-6), ("uneven", 1e-4), ("steep", 2e-3)])
def test_the_filter_follows_a_bezier_curve_through_its_samples(handles, tolerance_rad):
    """The curve sent as angleInterpolationBezier sends it, followed by the filter's reference
    at the cycle rate (cycles off the samples' times), against the curve itself."""
    keys = HANDLES[handles]
    yaw = MODEL.joint_index("HeadYaw")
    start = MODEL.zero_configuration()
    times, positions, speeds = merged_bezier_keys(start[[yaw]], [KEY_TIMES], [keys])
    reference = JointReference(MODEL)
    reference.reset(start)
    reference.follow(parse_trajectory(MODEL, ["HeadYaw"], times, positions, speeds), start, 0.0)
    cycles = np.arange(0.0, 3.2, DT_S) + 0.003
    followed = np.array([reference.sample(t)[yaw] for t in cycles])
    curve, _ = sample_bezier(*bezier_path(0.0, KEY_TIMES, keys), cycles)
    assert np.abs(followed - curve).max() < tolerance_rad
    np.testing.assert_allclose(sample_bezier(*bezier_path(0.0, KEY_TIMES, keys), KEY_TIMES)[0],
                               [k[0] for k in keys], atol=1e-12)  # through every key at its time


@pytest.mark.parametrize("keys, message", [
    ([[0.5, [2, 0.0, 0.1], [2, 0.0, 0.1]]], "within their segments"),     # the first handle points forward
    ([[0.5, [2, 0.0, -1.5], [2, 0.0, 0.1]]], "within their segments"),    # beyond the segment
    ([[0.5, [2, 0.3, 0.0], [2, 0.0, 0.1]]], "needs a time"),              # a vertical handle
    ([[0.5, [2, 0.0], [2, 0.0, 0.1]]], "interpolationType, dAngle, dTime"),
    ([[0.5, [2, float("nan"), -0.1], [2, 0.0, 0.1]]], "finite")])
def test_bezier_control_points_that_make_no_function_of_time_are_refused(keys, message):
    with pytest.raises(BezierError, match=message):
        merged_bezier_keys(np.zeros(1), [np.array([1.0])], [keys])
