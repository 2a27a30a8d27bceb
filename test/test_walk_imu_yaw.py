"""The walk's yaw from the IMU's orientation or, without one (nao_lola's IMU on a V6), from its
gyro integrated (``walk.imu_yaw``): the integration, the bias learnt standing, the hand-over, and
a walk in process on nao_lola's IMU judged by the simulator's ground truth."""

import math

import numpy as np
import pytest

from nao_motion import spatial
from nao_motion.model import NaoModel
from nao_motion.walk.imu_yaw import BIAS_TIME_CONSTANT_S, MAX_STANDING_RATE_RAD_S, ImuYaw

DT_S = 0.01
STALE_S = 0.5
NEVER = -math.inf


def _torso(roll_rad: float = 0.0, pitch_rad: float = 0.0, yaw_rad: float = 0.0) -> np.ndarray:
    return spatial.transform(spatial.rot_z(yaw_rad) @ spatial.rot_y(pitch_rad) @ spatial.rot_x(roll_rad), (0, 0, 0.3))


def _run_gyro(yaw: ImuYaw, gyro_rad_s, duration_s: float, start_s: float = 0.0, torso=None,
              standing: bool = False) -> float:
    """Gyro samples only (no orientation) every cycle for duration_s; the time reached."""
    torso = _torso() if torso is None else torso
    gyro = np.asarray(gyro_rad_s, dtype=float)
    t = start_s
    for _ in range(round(duration_s / DT_S)):
        t += DT_S
        yaw.update(t, STALE_S, np.eye(3), NEVER, gyro, t, torso, standing)
    return t


def test_the_gyro_integrated_about_the_vertical_gives_the_yaw():
    yaw = ImuYaw()
    _run_gyro(yaw, [0.0, 0.0, 0.5], 2.0)
    assert yaw.fresh and yaw.from_gyro
    assert yaw.yaw_rad == pytest.approx(1.0 - 0.5 * DT_S, abs=1e-9)  # the first sample is the origin
    # A pitched torso turning about the vertical: the gyro reads the turn in the torso frame.
    pitched = _torso(pitch_rad=0.3)
    yaw = ImuYaw()
    _run_gyro(yaw, pitched[:3, :3].T @ np.array([0.0, 0.0, 0.5]), 2.0, torso=pitched)
    assert yaw.yaw_rad == pytest.approx(1.0 - 0.5 * DT_S, abs=1e-9)
    # The attitude: the balancer's roll and pitch, the integrated yaw.
    expected = spatial.rot_z(yaw.yaw_rad) @ spatial.rot_y(0.3)
    np.testing.assert_allclose(yaw.attitude, expected, atol=1e-12)


def test_a_sample_is_held_over_the_time_since_the_one_before():
    """A late cycle (a sample lost on the way): the newest sample counts for the whole gap."""
    yaw = ImuYaw()
    gyro = np.array([0.0, 0.0, 1.0])
    for t in (0.01, 0.02, 0.05):
        yaw.update(t, STALE_S, np.eye(3), NEVER, gyro, t, _torso(), False)
    assert yaw.yaw_rad == pytest.approx(0.04, abs=1e-12)
    yaw.update(0.06, STALE_S, np.eye(3), NEVER, gyro, 0.05, _torso(), False)  # no new sample
    assert yaw.yaw_rad == pytest.approx(0.04, abs=1e-12)


def test_the_orientation_wins_and_the_gyro_goes_on_from_it():
    yaw = ImuYaw()
    attitude = spatial.rot_z(0.7) @ spatial.rot_x(0.05)
    gyro = np.array([0.0, 0.0, 0.3])
    assert yaw.update(0.01, STALE_S, attitude, 0.01, gyro, 0.01, _torso(), False)
    assert yaw.update(0.02, STALE_S, attitude, 0.02, gyro, 0.02, _torso(), False)
    assert not yaw.from_gyro and yaw.yaw_rad == 0.7
    np.testing.assert_allclose(yaw.attitude, attitude, atol=1e-12)  # the IMU's roll as measured
    # The orientation goes stale (after 0.5 s): the yaw goes on from it with the gyro, without a jump.
    t, yaws, gyro_cycles = 0.02, [], 0
    while t < 0.6:
        t += DT_S
        yaw.update(t, STALE_S, attitude, 0.02, gyro, t, _torso(), False)
        yaws.append(yaw.yaw_rad)
        gyro_cycles += yaw.from_gyro
    assert yaw.from_gyro and gyro_cycles >= 5
    assert yaw.yaw_rad == pytest.approx(0.7 + 0.3 * DT_S * gyro_cycles, abs=1e-9)
    assert max(np.abs(np.diff(yaws))) == pytest.approx(0.3 * DT_S, abs=1e-9)
    # Neither fresh: no yaw.
    assert not yaw.update(t + 1.0, STALE_S, attitude, 0.02, gyro, t, _torso(), False)
    assert not yaw.fresh


def test_the_bias_is_learnt_standing_and_not_from_a_turn():
    bias = 0.01  # rad/s, a gyro's order
    yaw = ImuYaw()
    t = _run_gyro(yaw, [0.0, 0.0, bias], 6 * BIAS_TIME_CONSTANT_S, standing=True)
    assert yaw.gyro_bias_rad_s == pytest.approx(bias, rel=0.01)
    before = yaw.yaw_rad
    _run_gyro(yaw, [0.0, 0.0, bias], 10.0, start_s=t)  # a 10 s walk on that gyro
    assert abs(yaw.yaw_rad - before) < 0.002  # 0.1 rad unlearnt
    # Someone turns the idle robot: a real turn, not bias.
    yaw = ImuYaw()
    _run_gyro(yaw, [0.0, 0.0, 2 * MAX_STANDING_RATE_RAD_S], 10.0, standing=True)
    assert yaw.gyro_bias_rad_s == 0.0
    assert yaw.yaw_rad == pytest.approx(2 * MAX_STANDING_RATE_RAD_S * (10.0 - DT_S), abs=1e-9)


def test_a_walk_on_nao_lolas_imu_takes_its_heading_from_the_gyro():
    """V6 in process with nao_lola's IMU (no orientation; the gyro's mean over the cycle): the
    walk corrects its heading from the integrated gyro, which follows the true turn, and the
    moveTo ends on its goal by the simulator's ground truth."""
    from nao_motion.sim.walking import SimulatedWalk
    from nao_motion.walk.controller import WalkState

    walk = SimulatedWalk(NaoModel("V6"), imu_orientation=False)
    walk.cycle()
    start, gyro_start = walk.true_footprint(), walk.controller.imu_yaw.yaw_rad
    walk.move_to(0.5, 0.0, -1.5)
    started_from_gyro = []
    while walk.time_s < 25.0 and not walk.state.fallen:
        walk.cycle()
        if walk.walk_outputs.started:
            started_from_gyro.append(walk.controller.heading_from_gyro)
        if (not walk.planner.move_is_active() and walk.controller.state is WalkState.IDLE
                and not walk.planner_cycle.closing):
            break
    assert not walk.state.fallen
    assert started_from_gyro and all(started_from_gyro), started_from_gyro
    moved = walk.true_footprint().relative_to(start)
    turned = walk.controller.imu_yaw.yaw_rad - gyro_start
    assert turned == pytest.approx(moved.theta, abs=0.02 * 1.5), (turned, moved)  # within 2 % of the turn
    assert math.hypot(moved.x - 0.5, moved.y) < 0.03, moved
    assert abs(math.degrees(moved.theta + 1.5)) < 2.0, moved
