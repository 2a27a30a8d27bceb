"""The fall detector (NAOqi's robotHasFallen, no ROS): the vertical from an IMU's orientation or
accelerometer, the tilt and centre-of-mass criteria, their confirmation and the way back up; and
on the simulated NAO, a collapse detected, a walk never taken for one, and the balancer and the
walk stopped by it."""

import math

import numpy as np
import pytest

from nao_motion import spatial
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.wholebody.fall_detector import (FallConfig, FallDetector, up_from_acceleration,
                                                up_from_quaternion_xyzw)

MODEL = NaoModel()
STAND = posture(MODEL, "StandInit")
CONFIG = FallConfig()


def up_at(rotation: np.ndarray) -> tuple[float, float, float]:
    """The vertical in the torso frame of a torso turned by `rotation` (from the upright)."""
    return tuple(rotation.T[:, 2])


def cycles(seconds: float) -> int:
    return round(seconds / MODEL.cycle_time_s)


def test_the_vertical_from_an_orientation_and_from_an_accelerometer():
    rotation = spatial.rot_y(0.4) @ spatial.rot_x(-0.2)
    x, y, z, w = spatial.quaternion_xyzw_from_rotation(rotation)
    np.testing.assert_allclose(up_from_quaternion_xyzw(x, y, z, w), up_at(rotation), atol=1e-12)
    gravity_up = 9.81 * np.array(up_at(rotation))  # an accelerometer at rest reads +g upward
    np.testing.assert_allclose(up_from_acceleration(*gravity_up), up_at(rotation), atol=1e-12)
    assert up_from_acceleration(0.0, 0.0, 0.0) is None  # free fall
    assert up_from_acceleration(math.nan, 0.0, 9.8) is None


def test_a_torso_lying_is_down_once_confirmed_and_up_again_after_standing_a_second():
    detector = FallDetector(MODEL)
    lying = up_at(spatial.rot_y(math.radians(60.0)))
    for _ in range(cycles(CONFIG.confirm_s) - 1):
        assert not detector.update(lying, STAND) and not detector.fallen  # a jolt is not a fall
    assert detector.update(lying, STAND) and detector.fallen
    assert detector.reason == "the torso leans 60 deg from the vertical"
    assert not detector.update(None, STAND) and detector.fallen  # no vertical measured: no change
    upright = up_at(np.eye(3))
    for _ in range(cycles(CONFIG.recover_s) - 1):
        assert not detector.update(upright, STAND) and detector.fallen
    assert detector.update(upright, STAND) and not detector.fallen and detector.reason == ""


def test_leaning_counts_as_down_only_with_the_centre_of_mass_outside_the_feet():
    # The whole robot tipped 30 deg over its toes: its centre of mass is well ahead of them.
    detector = FallDetector(MODEL)
    tipped = up_at(spatial.rot_y(math.radians(30.0)))
    for _ in range(cycles(CONFIG.confirm_s)):
        detector.update(tipped, STAND)
    assert detector.fallen and "outside the feet" in detector.reason
    # A bow: the torso leans as much from the hips, the soles flat, the centre of mass over them.
    bow = STAND.copy()
    for hip in ("LHipPitch", "RHipPitch"):
        bow[MODEL.joint_index(hip)] -= 0.45
    state = detector.fk.compute(bow)
    sole_up = tuple(detector.fk.pose(state, "l_sole")[:3, 2])
    assert math.degrees(math.acos(sole_up[2])) > math.degrees(CONFIG.leaning_tilt_rad)
    detector = FallDetector(MODEL)
    for _ in range(cycles(2.0)):
        assert not detector.update(sole_up, bow)
    assert not detector.fallen


def test_on_the_simulated_nao_a_collapse_is_down_and_a_walk_never_is():
    pytest.importorskip("mujoco")
    from nao_motion.sim.walking import SimulatedWalk
    from nao_motion.wholebody.balancer import Mode

    walk = SimulatedWalk(MODEL, balancer_enabled=True)
    walk.move_to(0.5, 0.0, 0.3)
    walking = 0
    for _ in range(cycles(9.0)):
        result = walk.cycle()
        walking += result.mode is Mode.WALKING
        assert not walk.whole_body.fall.fallen, walk.whole_body.fall.reason
    assert walking > cycles(3.0)
    assert walk.balancer.enabled
    walk.sim.set_stiffness(0.0)  # limp while standing: the robot collapses
    for k in range(cycles(4.0)):
        walk.cycle()
        if walk.whole_body.fall.fallen:
            break
    assert walk.whole_body.fall.fallen and walk.state.torso_tilt_rad > math.radians(45.0)
    assert not walk.balancer.enabled  # disabled by the fall: the wish passes through
    walk.move_to(0.3, 0.0, 0.0)
    for _ in range(cycles(1.0)):
        walk.cycle()
        assert walk.walk_outputs.reference is None
    assert "the robot has fallen" in walk.walk_outputs.reason
