"""A script strings features together: the transitions NAOqi scripts make, end to end on the
simulated NAO (the simulator and the whole suite composed in one process, as ``nao-motion sim``
runs it, V5 and V6), each driven through the ALMotion client as a ported script would, and judged
by the simulator's ground truth (its true torso: no fall) and by the task's own figure.

Each of these failed before: wbEnable as a walk ended dropped the robot; an arm trajectory during
a walk blocked until the walk ended; rest() left the robot to tip over; a fresh client's first
getRobotPosition raised; a fall went unreported, the suite and the client carrying on."""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from conftest import LOCKSTEP, load_benchmark, simulated_suite_client  # noqa: E402

from nao_motion.almotion.posture import ALRobotPosture  # noqa: E402

FRAME_ROBOT = 2
HAND_TOLERANCE_M = 0.01
MATRIX = load_benchmark("bench_transitions")
CROUCH_TORSO_Z_M = 0.228  # the simulated NAO's torso height in Crouch (both versions)


@pytest.fixture(scope="module", params=["V5", "V6"])
def suite(request, tmp_path_factory):
    version = request.param
    started_s = time.monotonic()
    with simulated_suite_client(tmp_path_factory.mktemp(f"transitions_{version}_logs"),
                                {**LOCKSTEP, "nao_version": version}, {"nao_version": version}) as motion:
        truth = MATRIX.Truth(motion.node)
        first_call_s = time.monotonic()
        position = motion.getRobotPosition(True)  # a script's first call answers, as its tenth
        answered_s = time.monotonic()
        assert motion.model.version == version  # the client's version: the suite's
        while not truth.position.any():
            assert time.monotonic() - started_s < 60.0, "no ground truth from the simulator"
            time.sleep(0.05)
        time.sleep(4.0)  # every node up and cycling, the robot settled on the floor
        yield motion, truth, (position, answered_s - first_call_s)


@pytest.fixture(autouse=True)
def standing(suite):
    """Each transition starts from a robot standing in StandInit with the balancer off; one that
    fell in an earlier test is put back on its feet with the simulator's reset."""
    motion, truth, _ = suite
    if truth.tilt_deg > MATRIX.WALK_TILT_DEG:
        MATRIX.stand_up(motion, truth)
    motion.wbEnable(False)
    motion.wakeUp()
    ALRobotPosture(motion).goToPosture("StandInit", 0.5)
    truth.mark()
    yield


def test_a_fresh_client_answers_its_first_call_about_the_robot_it_talks_to(suite):
    """The first getRobotPosition answers (it raised "no odom received" before the client had
    heard the graph) with the robot where it stands; how long it waited is a figure, bounded by
    the client's documented DISCOVERY_S (past it the call raises with the reason), not asserted:
    it is the machine's discovery time (about 0.06 s here idle, 2.8 s with both cores busy)."""
    motion, _, (position, answered_s) = suite
    assert np.all(np.isfinite(position)) and len(position) == 3
    assert np.hypot(position[0], position[1]) < 0.05  # a fresh robot's odometry: where it started
    print(f"\n{motion.model.version}: a fresh client's first getRobotPosition answered in {answered_s:.3f} s")


def test_wb_enable_as_a_walk_ends_keeps_the_robot_up_and_effector_control_reaches(suite):
    """NAOqi's order: moveTo, then wbEnable, wbFootState("Fixed", "Legs"),
    wbEnableBalanceConstraint(True, "Legs"), and a hand target (the robot fell within 2 s)."""
    motion, truth, _ = suite
    motion.moveTo(0.2, 0.0, 0.0)
    motion.wbEnable(True)
    motion.wbFootState("Fixed", "Legs")
    motion.wbEnableBalanceConstraint(True, "Legs")
    time.sleep(2.0)
    com = motion.getCOM("Body", FRAME_ROBOT, True)
    assert abs(com[0]) < 0.05 and com[2] > 0.25, com
    motion.wbEnableEffectorControl("RArm", True)
    hand = motion.getPosition("RArm", FRAME_ROBOT, True)
    target = [hand[0] + 0.05, hand[1], hand[2] + 0.05]
    motion.wbSetEffectorControl("RArm", target)
    time.sleep(3.0)
    reached = motion.getPosition("RArm", FRAME_ROBOT, True)
    motion.wbEnableEffectorControl("RArm", False)
    motion.wbEnable(False)
    assert np.linalg.norm(np.subtract(reached[:3], target)) < HAND_TOLERANCE_M, (reached[:3], target)
    assert truth.worst_tilt_deg < MATRIX.WALK_TILT_DEG


def test_an_arm_trajectory_during_a_walk_runs_and_returns_when_it_ends(suite):
    """NAOqi lets a script move the arms while walking (the swing resumes after): the call
    blocked until the walk ended, and the arm was back in its swing by then."""
    motion, truth, _ = suite
    motion.post.moveTo(0.6, 0.0, 0.0)
    time.sleep(1.0)
    names = ["RShoulderPitch", "RShoulderRoll"]
    start = time.monotonic()
    motion.angleInterpolation(names, [[-0.5, 1.4, -0.5], [-0.3, -0.3, -0.3]], [[1, 2, 3], [1, 2, 3]], True)
    took_s = time.monotonic() - start
    pitch, roll = motion.getAngles(names, True)
    walking = motion.moveIsActive()
    motion.waitUntilMoveIsFinished()
    assert walking, "the walk ended before the arm's trajectory: nothing tested"
    assert 3.0 <= took_s < 4.5, took_s
    assert pitch == pytest.approx(-0.5, abs=0.05) and roll == pytest.approx(-0.3, abs=0.05)
    assert truth.worst_tilt_deg < MATRIX.WALK_TILT_DEG


def test_rest_leaves_the_robot_crouched_and_wake_up_stands_it_again(suite):
    motion, truth, _ = suite
    motion.rest()
    time.sleep(3.0)  # limp: the robot fell on its back within a second
    assert truth.worst_tilt_deg < MATRIX.WALK_TILT_DEG
    assert truth.position[2] == pytest.approx(CROUCH_TORSO_Z_M, abs=0.02)
    assert not motion._fallen
    motion.wakeUp()
    ALRobotPosture(motion).goToPosture("StandInit", 0.5)
    assert truth.worst_tilt_deg < MATRIX.WALK_TILT_DEG
    assert truth.position[2] > CROUCH_TORSO_Z_M + 0.07


def test_features_strung_in_every_order_never_drop_the_robot(suite):
    """The transition matrix (``benchmarks/bench_transitions.py``, which runs all its features
    on both paths) over a few of its features, every ordered pair once, on this suite."""
    motion, _, _ = suite
    names = ["move_to", "wb_fixed_balance", "joint_motions", "rest_then_wake_up"]
    order = [names[i] for i in MATRIX.de_bruijn_pairs(len(names))]
    verdicts = MATRIX.run_matrix(motion, MATRIX.Truth(motion.node), order, verbose=True)
    assert len(verdicts) == len(names) ** 2
    bad = {pair: verdict for pair, verdict in verdicts.items() if verdict in ("FELL", "FAILED")}
    assert not bad, bad


def test_a_fall_is_reported_and_motions_that_need_a_standing_robot_are_refused(suite):
    from nao_motion.almotion import ALMotionError

    motion, truth, _ = suite
    motion.setStiffnesses("Body", 0.0)  # limp while standing: the robot collapses
    deadline = time.monotonic() + 10.0
    while not motion._fallen:
        assert time.monotonic() < deadline, "the fall was not reported on robot_has_fallen"
        time.sleep(0.05)
    assert truth.tilt_deg > 45.0  # the ground truth agrees
    for call, refused in ((lambda: motion.moveTo(0.2, 0.0, 0.0), "moveTo refused: the robot has fallen"),
                          (lambda: motion.move(0.1, 0.0, 0.0), "move refused: the robot has fallen"),
                          (lambda: motion.wbEnable(True), r"wbEnable\(True\) refused: the robot has fallen")):
        with pytest.raises(ALMotionError, match=refused):
            call()
    # (Up again: ``test_fall_detector``; the simulator's reset puts a limp robot back on its
    # feet under the suite's last, collapsed, command, and it falls again.)
