"""The collision filter's cycle (no ROS): resting once settled, and motions that start from the
robot's command where another node (the whole body's walk or balancer) moved a joint."""

import numpy as np
import pytest

from nao_motion.collision.filter_cycle import CollisionFilterCycle
from nao_motion.collision.reference import parse_targets
from nao_motion.model import NaoModel
from nao_motion.postures import posture

MODEL = NaoModel()
STIFF = np.ones(MODEL.n_joints)
KNEE, HEAD = MODEL.joint_index("LKneePitch"), MODEL.joint_index("HeadYaw")


def started() -> CollisionFilterCycle:
    cycle = CollisionFilterCycle(MODEL)
    cycle.start(posture(MODEL, "StandInit"))
    return cycle


def run(cycle: CollisionFilterCycle, t0_s: float, cycles: int) -> list:
    q = posture(MODEL, "StandInit")
    return [cycle.cycle(t0_s + k * MODEL.cycle_time_s, STIFF, q) for k in range(cycles)]


def test_it_rests_once_settled_and_a_target_wakes_it():
    cycle = started()
    results = run(cycle, 0.0, 3)
    assert results[0] is not None and results[-1] is None and cycle.settled
    cycle.move_to(parse_targets(MODEL, ["HeadYaw"], [0.2], [1.0], 0.3), 0.03)
    moving = run(cycle, 0.03, 30)
    assert moving[0] is not None and cycle.command[HEAD] == pytest.approx(0.2)


def test_a_joint_the_robot_has_elsewhere_starts_from_there_and_a_driven_one_does_not():
    cycle = started()
    run(cycle, 0.0, 3)
    stand = cycle.command.copy()
    robot = stand.copy()
    robot[KNEE] -= 0.2  # the walk left the knee here
    robot[HEAD] += 0.1  # and the head, which a motion of the filter drives
    cycle.move_to(parse_targets(MODEL, ["HeadYaw"], [stand[HEAD] - 0.5], [0.5], 0.3), 0.03)
    cycle.move_to(parse_targets(MODEL, ["LKneePitch", "HeadYaw"], [stand[KNEE] - 0.3, stand[HEAD] - 0.5],
                                [0.5, 0.5], 0.3), 0.03, robot)
    first = run(cycle, 0.04, 1)[0].q
    # All arrive together: the head's 0.5 rad at 0.5 rad/s sets 1 s, the knee goes 0.1 rad in it.
    assert first[KNEE] == pytest.approx(robot[KNEE] - 0.001, abs=1e-6)  # on from the robot's knee
    assert abs(first[HEAD] - stand[HEAD]) < 0.011  # the head's motion goes on from the filter's
    assert first[MODEL.joint_index("RKneePitch")] == stand[MODEL.joint_index("RKneePitch")]  # not in the motion


def test_without_the_robots_command_a_motion_starts_from_the_filters():
    cycle = started()
    run(cycle, 0.0, 3)
    stand = cycle.command.copy()
    cycle.move_to(parse_targets(MODEL, ["LKneePitch"], [stand[KNEE] - 0.3], [0.5], 0.3), 0.03, None)
    first = run(cycle, 0.04, 1)[0].q
    assert first[KNEE] == pytest.approx(stand[KNEE] - 0.005, abs=1e-6)


def test_a_joint_driven_a_moment_ago_goes_on_from_the_filters_command():
    """The walk's arm swing sends a target every cycle, each reached within the cycle; the robot's
    command is a cycle behind (over DDS, or the walk's QP near it): taken over at each target, the
    swing would be held back by a cycle's worth every cycle."""
    cycle = started()
    run(cycle, 0.0, 3)
    shoulder = MODEL.joint_index("LShoulderPitch")
    robot = cycle.command.copy()
    t, behind = 0.03, robot.copy()
    for k in range(20):  # the swing: 0.02 rad a cycle at 2 rad/s, the robot's command a cycle behind
        target = robot[shoulder] + 0.02 * (k + 1)
        cycle.move_to(parse_targets(MODEL, ["LShoulderPitch"], [target], [2.0], 0.3), t, behind)
        behind = cycle.command.copy()
        t += MODEL.cycle_time_s
        run(cycle, t, 1)
    assert cycle.command[shoulder] == pytest.approx(robot[shoulder] + 0.4, abs=1e-6)


def test_the_arm_swing_takes_no_joint_a_users_motion_still_moves():
    """A user's arm command can reach the filter just before the walk's arm swing of the same
    cycle (the walk leaves the arm to the user from its next cycle): the swing's target yields
    the joints the user's motion moves, keeps the others, and takes them once that motion is over."""
    cycle = started()
    run(cycle, 0.0, 3)
    left, right = MODEL.joint_index("LShoulderPitch"), MODEL.joint_index("RShoulderPitch")
    stand = cycle.command.copy()
    user = stand[left] - 0.4
    cycle.move_to(parse_targets(MODEL, ["LShoulderPitch"], [user], [1.0], 0.3), 0.03)
    swing = parse_targets(MODEL, ["LShoulderPitch", "RShoulderPitch"], [stand[left] + 0.05, stand[right] + 0.05],
                          [2.0, 2.0], 0.3)
    cycle.move_to(swing, 0.03, yields=True)
    run(cycle, 0.04, 60)  # 0.6 s: the user's 0.4 rad at 1 rad/s is over
    assert cycle.command[left] == pytest.approx(user, abs=1e-9)
    assert cycle.command[right] == pytest.approx(stand[right] + 0.05, abs=1e-9)
    cycle.move_to(swing, 0.64, yields=True)  # nothing else moves the left arm now
    run(cycle, 0.65, 60)
    assert cycle.command[left] == pytest.approx(stand[left] + 0.05, abs=1e-9)
    # A user's motion (not yielding) takes a joint the swing moves, as any new motion does.
    cycle.move_to(swing, 1.25, yields=True)
    cycle.move_to(parse_targets(MODEL, ["RShoulderPitch"], [stand[right] - 0.2], [1.0], 0.3), 1.25)
    run(cycle, 1.26, 60)
    assert cycle.command[right] == pytest.approx(stand[right] - 0.2, abs=1e-9)


def test_a_motion_taken_at_a_cycle_starts_at_the_last_one_at_most_a_tenth_of_a_second_back():
    cycle = started()
    assert cycle.taken_motion_start_s(5.0) == pytest.approx(4.9)  # no cycle yet
    run(cycle, 5.0, 3)  # the last at 5.02
    assert cycle.taken_motion_start_s(5.035) == pytest.approx(5.02)  # a late cycle: from the last
    assert cycle.taken_motion_start_s(7.0) == pytest.approx(6.9)  # after a stall: 0.1 s back
    cycle.restart_clock()
    assert cycle.taken_motion_start_s(1.0) == pytest.approx(0.9)
