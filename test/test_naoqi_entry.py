"""NAOqi's entry points without a robot (``nao_motion.naoqi``): almath's Pose2D and clipping
functions against the planner's clipping, the ``motion`` constants, and the checks ALProxy and
qi make before they connect. Connected, the scripts run against the simulated suite:
test_naoqi_scripts.py."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nao_motion.almotion import FRAME_ROBOT, FRAME_TORSO, FRAME_WORLD
from nao_motion.footsteps.clipping import EXTREMAL_CLIP_LIMITS, clip_foot_with_ellipse, clip_footstep
from nao_motion.footsteps.pose2d import Pose2D as PlannerPose2D
from nao_motion.naoqi import ALProxy, almath, motion, qi

LIMITS = EXTREMAL_CLIP_LIMITS
maxStepX, minStepX = LIMITS.max_step_x_m, LIMITS.min_step_x_m
maxStepY, maxStepTheta = LIMITS.max_step_y_m, LIMITS.max_step_theta_rad
minFootSeparation = LIMITS.min_foot_separation_m


# Seed 003's almath_foot_clip.py, in Python 3: the three stages as a NAOqi user calls them, on
# almath's mutable Pose2D.
def clipFootStepOnGaitConfig(footMove, isLeftSupport):
    def clipFloat(minValue, maxValue, value):
        clipped = value
        if (clipped < minValue):
            clipped = minValue
        if (clipped > maxValue):
            clipped = maxValue
        return clipped
    footMove.x = clipFloat(minStepX, maxStepX, footMove.x)
    if not isLeftSupport:
        footMove.y = clipFloat(minFootSeparation, maxStepY, footMove.y)
    else:
        footMove.y = clipFloat(-maxStepY, - minFootSeparation, footMove.y)
    footMove.theta = clipFloat(-maxStepTheta, maxStepTheta, footMove.theta)


def clipFootStepWithEllipse(footMove):
    if (footMove.y < -minFootSeparation):
        footMove.y = footMove.y + minFootSeparation
    elif (footMove.y > minFootSeparation):
        footMove.y = footMove.y - minFootSeparation
    else:
        return
    if footMove.x >= 0:
        almath.clipFootWithEllipse(maxStepX, maxStepY - minFootSeparation, footMove)
    else:
        almath.clipFootWithEllipse(minStepX, maxStepY - minFootSeparation, footMove)
    if footMove.y >= 0:
        footMove.y = footMove.y + minFootSeparation
    else:
        footMove.y = footMove.y - minFootSeparation


def clipFootStepToAvoidCollision(footMove, isLeftSupport):
    rFootBox = [almath.Pose2D(0.11, 0.038, 0.0), almath.Pose2D(0.11, -0.050, 0.0),
                almath.Pose2D(-0.047, -0.050, 0.0), almath.Pose2D(-0.047, 0.038, 0.0)]
    lFootBox = [almath.Pose2D(0.11, 0.050, 0.0), almath.Pose2D(0.11, -0.038, 0.0),
                almath.Pose2D(-0.047, -0.038, 0.0), almath.Pose2D(-0.047, 0.050, 0.0)]
    almath.avoidFootCollision(lFootBox, rFootBox, isLeftSupport, footMove)


moves = st.tuples(st.floats(-0.2, 0.2), st.floats(-0.3, 0.3), st.floats(-1.0, 1.0))


@settings(max_examples=300, deadline=None)
@given(moves, st.booleans())
def test_a_script_clips_a_footstep_as_the_planner_does(move, is_left_support):
    """Seed 003's clipping, written with almath as NAOqi documents it, gives the planner's step."""
    footMove = almath.Pose2D(*move)
    clipFootStepOnGaitConfig(footMove, is_left_support)
    clipFootStepWithEllipse(footMove)
    clipFootStepToAvoidCollision(footMove, is_left_support)
    planner = clip_footstep(PlannerPose2D(*move), is_left_support)
    assert footMove.toVector() == pytest.approx(planner.as_list(), abs=1e-12)


def test_clip_foot_with_ellipse_changes_the_pose_it_is_given_and_says_so():
    move = almath.Pose2D(0.2, 0.1, 0.3)
    assert almath.clipFootWithEllipse(0.08, 0.072, move) is True
    expected, _ = clip_foot_with_ellipse(0.08, 0.072, PlannerPose2D(0.2, 0.1, 0.3))
    assert move.toVector() == pytest.approx(expected.as_list())
    assert move.x ** 2 / 0.08 ** 2 + move.y ** 2 / 0.072 ** 2 == pytest.approx(1.0)
    inside = almath.Pose2D(0.01, 0.01, 0.3)
    assert almath.clipFootWithEllipse(0.08, 0.072, inside) is False
    assert inside.toVector() == [0.01, 0.01, 0.3]


def test_avoid_foot_collision_turns_a_colliding_foot_back():
    move = almath.Pose2D(0.0, -0.09, -0.5)  # the right foot, turned into the left one
    corners = [almath.Pose2D(x, y) for x, y in ((0.11, 0.05), (0.11, -0.038), (-0.047, -0.038), (-0.047, 0.05))]
    right = [almath.Pose2D(x, y) for x, y in ((0.11, 0.038), (0.11, -0.05), (-0.047, -0.05), (-0.047, 0.038))]
    assert almath.avoidFootCollision(corners, right, True, move) is True
    assert -0.5 < move.theta <= 0.0 and (move.x, move.y) == (0.0, -0.09)
    with pytest.raises(RuntimeError, match="four almath.Pose2D"):
        almath.avoidFootCollision(corners[:3], right, True, move)
    with pytest.raises(RuntimeError, match="almath.Pose2D"):
        almath.clipFootWithEllipse(0.08, 0.07, [0.2, 0.1, 0.0])


def test_pose2d_composes_as_almath_does():
    a, b = almath.Pose2D(0.1, 0.2, math.pi / 2), almath.Pose2D([0.3, 0.0, 0.1])
    assert (a * b).toVector() == pytest.approx([0.1, 0.5, math.pi / 2 + 0.1])
    assert (a * a.inverse()).isNear(almath.Pose2D())
    assert a.diff(a * b).isNear(b)
    assert (a + b).toVector() == pytest.approx([0.4, 0.2, math.pi / 2 + 0.1])
    assert a.distance(b) == pytest.approx(math.hypot(0.2, 0.2))
    assert almath.Pose2D(1, 2, 3) == almath.Pose2D(1.0, 2.0, 3.0) != almath.Pose2D(1, 2, 3.1)
    with pytest.raises(RuntimeError, match=r"\[x, y, theta\]"):
        almath.Pose2D([1.0, 2.0])
    assert almath.TO_RAD * 180.0 == pytest.approx(math.pi) and almath.TO_DEG == pytest.approx(1 / almath.TO_RAD)


def test_motion_constants_are_naoqis():
    assert (motion.FRAME_TORSO, motion.FRAME_WORLD, motion.FRAME_ROBOT) == (FRAME_TORSO, FRAME_WORLD, FRAME_ROBOT)
    assert (motion.FRAME_TORSO, motion.FRAME_WORLD, motion.FRAME_ROBOT) == (0, 1, 2)
    translation = motion.AXIS_MASK_X | motion.AXIS_MASK_Y | motion.AXIS_MASK_Z
    rotation = motion.AXIS_MASK_WX | motion.AXIS_MASK_WY | motion.AXIS_MASK_WZ
    assert (motion.AXIS_MASK_VEL, motion.AXIS_MASK_ROT, motion.AXIS_MASK_ALL) == (translation, rotation, 63)
    assert motion.AXIS_MASK_XY == 3 and motion.AXIS_MASK_WYWZ == 48 and motion.AXIS_MASK_NONE == 0
    assert 90 * motion.TO_RAD == pytest.approx(math.pi / 2)


@pytest.mark.parametrize("url, address", [("tcp://127.0.0.1:9559", ("127.0.0.1", 9559)),
                                          ("tcp://nao.local:9600", ("nao.local", 9600)),
                                          ("10.0.0.5", ("10.0.0.5", 9559))])
def test_qi_reads_a_url_as_qi_does(url, address):
    assert qi.parse_url(url) == address


@pytest.mark.parametrize("url", ["", "http://127.0.0.1:9559", "tcp://127.0.0.1:99999", "tcp://:9559", 9559])
def test_qi_refuses_a_bad_url_before_it_connects(url):
    with pytest.raises(RuntimeError, match="invalid"):
        qi.Session().connect(url)


def test_a_session_gives_no_service_before_it_connects():
    session = qi.Session()
    assert not session.isConnected()
    with pytest.raises(RuntimeError, match="not connected"):
        session.service("ALMotion")


@pytest.mark.parametrize("args, message", [(("ALMemory", "127.0.0.1", 9559), "Can't find service: 'ALMemory'"),
                                           (("ALMotion", "127.0.0.1", 0), "invalid port"),
                                           (("ALMotion", "127.0.0.1", "9559"), "invalid port"),
                                           (("ALMotion", "", 9559), "invalid robot address")])
def test_alproxy_refuses_what_naoqi_refuses_before_it_connects(args, message):
    with pytest.raises(RuntimeError, match=message):
        ALProxy(*args)


def test_an_application_takes_its_url_from_the_command_line():
    assert qi.Application(["script", "--qi-url=tcp://10.0.0.7:9559"]).url == "tcp://10.0.0.7:9559"
    assert qi.Application(["script", "--qi-url", "tcp://10.0.0.8:9559"]).url == "tcp://10.0.0.8:9559"
    assert qi.Application(["script"]).url == qi.DEFAULT_URL


def test_a_served_client_is_what_every_proxy_and_session_gives_until_the_block_ends():
    from nao_motion.almotion.posture import ALRobotPosture
    from nao_motion.naoqi import broker

    client = object()  # a program's own client (an ALMotion)
    with broker.serving(client):
        assert ALProxy("ALMotion", "127.0.0.1", 9559) is client
        posture = ALProxy("ALRobotPosture")
        assert isinstance(posture, ALRobotPosture) and posture.motion is client
        session = qi.Session()
        session.connect("tcp://127.0.0.1:9559")
        assert session.isConnected() and session.service("ALMotion") is client
        with pytest.raises(RuntimeError, match="already have their client"):
            with broker.serving(object()):
                pass
    with broker.serving(object()):  # nothing left: the next program serves its own
        pass
