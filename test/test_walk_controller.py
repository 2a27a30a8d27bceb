"""The walk's core cycle (nao_motion.walk.controller), without ROS: its state machine, the
protections asking for killMove, settling, arm ownership, odometry, its configuration; and the
in-process chain built on it (nao_motion.sim.walking) judged as the DDS walk tests judge the
nodes (goal reached by ground truth, walk/active true then false, odometry at the goal, tilt).

The unit tests drive the controller with a perfect robot: the joints hold StandInit, the FSRs
read the robot's weight, and the torso (in wb_world, turned 0.3 rad away from odom) puts the
centre of mass where the last reference asked.
"""

import math

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner, Pose2D
from nao_motion.footsteps.footstep import Leg
from nao_motion.footsteps.gait_config import DEFAULT_GAIT_CONFIG
from nao_motion.kinematics import ForwardKinematics
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.spatial import rot_x, rot_z, transform
from nao_motion.walk.controller import (
    HOLD_ECHO_TIMEOUT_S,
    MAX_SETTLE_S,
    PlanError,
    WalkController,
    WalkControllerConfig,
    WalkInputs,
    WalkState,
    footsteps_of,
    walk_plan,
)
from nao_motion.walk.preview_control import preview_gains

MODEL = NaoModel()
FK = ForwardKinematics(MODEL)
STAND_INIT = posture(MODEL, "StandInit")
STATE = FK.compute(STAND_INIT)
COM_TORSO = FK.com(STATE)
R = rot_z(0.3)  # the robot's heading in wb_world
SOLE_Z_TORSO = FK.pose(STATE, "l_sole")[2, 3]
WEIGHT_N = MODEL.total_mass_kg * 9.81
DT_S = MODEL.cycle_time_s
HALF_M = 0.5 * DEFAULT_GAIT_CONFIG.foot_separation_m


class PerfectRobot:
    """A controller fed by a perfect balancer and robot, and the planner whose plan it walks."""

    def __init__(self, config: WalkControllerConfig | None = None):
        self.controller = WalkController(MODEL, config)
        self.inputs = i = WalkInputs.for_model(MODEL)
        i.q_measured[:] = i.q_commanded[:] = STAND_INIT
        i.q_received[:] = i.commanded_received[:] = True
        i.torso_world[:] = transform(R, (0.5, 0.2, -SOLE_Z_TORSO))
        i.fsr_total_n[:] = 0.5 * WEIGHT_N
        self.planner = FootstepPlanner(Pose2D(0.0, HALF_M), Pose2D(0.0, -HALF_M))
        self.time_s = 0.0
        self.plan_key = None
        self.states, self.kills, self.move_inits = [], 0, 0
        self.hears_hold_step, self.hold_step = True, False

    def cycle(self):
        i, planner = self.inputs, self.planner
        if self.hold_step:  # the planner node hears walk/hold_step: its plan's time stands still
            planner.hold_steps(self.time_s - planner.now_s)
        planner.advance_to(self.time_s)
        steps, feet = planner.steps(), planner.feet
        key = (len(steps), steps[0].start_s if steps else None, feet.left, feet.right)
        if key != self.plan_key:  # the planner node publishes its plan when it changes
            self.plan_key = key
            i.plan = walk_plan(planner.now_s, feet.left, feet.right, steps)
        i.time_s = i.states_s = i.torso_s = i.imu_s = self.time_s
        i.fsr_s[:] = self.time_s
        out = self.controller.cycle(i)
        if out.kill_move:
            self.kills += 1
            planner.kill_move()
        if out.state.holds_start:  # the planner node hears walk/hold_start
            planner.hold_start()
        self.hold_step = out.hold_step and self.hears_hold_step
        if out.move_init:
            self.move_inits += 1
        if out.reference is not None:  # the perfect balancer: the CoM where it was asked
            i.torso_world[:3, 3] = out.reference.com_world_m - R @ COM_TORSO
        self.states.append(out.state)
        self.time_s += DT_S
        return out

    def run(self, duration_s: float):
        for _ in range(int(round(duration_s / DT_S))):
            out = self.cycle()
        return out

    def walk_to_the_end(self, timeout_s: float = 30.0):
        out = self.cycle()
        while out.state is not WalkState.IDLE or self.planner.move_is_active():
            assert self.time_s < timeout_s, "the walk did not end"
            out = self.cycle()
        return out


def test_a_walk_goes_idle_walking_settling_idle_and_the_odometry_reaches_the_goal():
    robot = PerfectRobot()
    robot.run(0.1)
    start = robot.controller.outputs.odometry
    assert start is not None and robot.states[-1] is WalkState.IDLE
    robot.planner.move_to(0.2, 0.0, 0.0)
    out = robot.cycle()
    assert out.started and out.active_changed and out.state is WalkState.WALKING
    assert out.reference is not None and out.reference.support == "Legs"
    out = robot.walk_to_the_end()
    assert out.ended and out.reason == "plan done"
    phases = [s for k, s in enumerate(robot.states) if k == 0 or robot.states[k - 1] is not s]
    assert phases == [WalkState.IDLE, WalkState.WALKING, WalkState.SETTLING, WalkState.IDLE]
    settling_s = robot.states.count(WalkState.SETTLING) * DT_S
    assert 0.0 < settling_s <= MAX_SETTLE_S + DT_S
    # This robot's joints never move (only the model's torso does): the plan reached the goal,
    # the sensed odometry (support-foot kinematics of the measured joints) says it stood still.
    end, planned = robot.controller.outputs.odometry, robot.planner.get_robot_position()
    assert planned.x == pytest.approx(0.2, abs=0.01)
    assert end.x == pytest.approx(start.x, abs=1e-3) and end.y == pytest.approx(start.y, abs=1e-3)
    assert robot.kills == 0
    out = robot.cycle()
    assert out.reference is None and not out.active_changed  # idle: nothing to send


def test_the_first_references_are_the_held_feet_in_wb_world():
    robot = PerfectRobot()
    robot.run(0.05)
    torso = robot.inputs.torso_world.copy()
    robot.planner.move_to(0.1, 0.0, 0.0)
    out = robot.cycle()
    for sole, name in ((out.reference.left_sole_world, "l_sole"), (out.reference.right_sole_world, "r_sole")):
        np.testing.assert_allclose(sole[:3, 3], (torso @ FK.pose(STATE, name))[:3, 3], atol=2e-3)


def test_the_preview_gains_are_solved_when_the_controller_is_made_not_when_a_walk_starts():
    """The DARE behind the preview gains takes milliseconds: solved in the first walk's first
    cycle, it cost the robot's command that cycle (a missed cycle through the suite)."""
    preview_gains.cache_clear()
    controller = WalkController(NaoModel("V5"))
    assert preview_gains.cache_info().currsize == 1
    preview_gains(controller.walk_config.preview)
    assert preview_gains.cache_info().hits == 1  # what every walk's generator will find


def test_a_walk_from_a_posture_that_is_not_walk_ready_first_performs_the_initialization_movement():
    """Seed 003: "If it is not the case, the robot first performs an initialization movement."
    Stand's centre of mass is 7 mm above the walk's: the walk sends moveInit's targets, the
    planner holds the plan meanwhile, and the walk starts once the posture is walk-ready."""
    robot = PerfectRobot()
    robot.inputs.q_measured[:] = posture(MODEL, "Stand")
    robot.run(0.1)
    robot.planner.move_to(0.2, 0.0, 0.0)
    out = robot.cycle()
    assert out.state is WalkState.INITIALIZING and out.move_init and out.active_changed and out.reference is None
    out = robot.run(1.5)  # longer than the preview: the plan waits
    assert out.state is WalkState.INITIALIZING and robot.move_inits == 1 and out.reference is None
    assert robot.planner.steps()[0].start_s - robot.time_s > 0.7
    robot.inputs.q_measured[:] = STAND_INIT  # the movement is done
    out = robot.cycle()
    assert out.started and out.state is WalkState.WALKING and out.reference is not None
    robot.walk_to_the_end()
    assert robot.planner.get_robot_position().x == pytest.approx(0.2, abs=0.01) and robot.kills == 0
    # from a walk-ready posture there is none
    robot.planner.move_to(0.1, 0.0, 0.0)
    out = robot.cycle()
    assert out.started and not out.move_init


def test_an_initialization_movement_that_does_not_reach_the_posture_refuses_the_walk():
    robot = PerfectRobot(WalkControllerConfig(move_init_timeout_s=0.5))
    robot.inputs.q_measured[:] = posture(MODEL, "Crouch")
    robot.planner.move_to(0.2, 0.0, 0.0)
    out = robot.cycle()
    while out.state is WalkState.INITIALIZING:
        assert robot.time_s < 1.0
        out = robot.cycle()
    assert out.kill_move and out.ended and out.state is WalkState.IDLE
    assert "did not reach StandInit within 0.5 s" in out.reason
    assert not robot.planner.move_is_active() and robot.kills == 1


def test_foot_contact_protection_refuses_a_walk_and_asks_for_kill_move():
    robot = PerfectRobot()
    robot.inputs.fsr_total_n[:] = 0.0
    robot.run(0.1)  # FOOT_CONTACT_LOSS_S (0.05 s) of no contact
    robot.planner.move_to(0.1, 0.0, 0.0)
    out = robot.cycle()
    assert out.kill_move and out.state is WalkState.IDLE and out.reference is None
    assert "no foot contact" in out.reason and "foot contact protection" in out.blocked
    assert robot.kills == 1 and not robot.planner.move_is_active()  # killMove emptied the plan
    robot.inputs.fsr_total_n[:] = 0.5 * WEIGHT_N
    robot.planner.move_to(0.1, 0.0, 0.0)
    assert robot.cycle().started  # with the weight back, a walk starts


def test_stiffness_protection_stops_a_walk_and_refuses_the_next():
    robot = PerfectRobot()
    robot.planner.move_to(0.3, 0.0, 0.0)
    robot.run(0.5)
    assert robot.states[-1] is WalkState.WALKING
    robot.inputs.stiffness[MODEL.joint_index("LKneePitch")] = 0.5
    out = robot.cycle()
    assert out.kill_move and out.ended and out.state is WalkState.IDLE
    assert "LKneePitch stiffness 0.50" in out.blocked and out.reason.startswith("stopped: ")
    robot.planner.move_to(0.1, 0.0, 0.0)
    out = robot.cycle()
    assert out.kill_move and not out.started and "walk refused, killMove" in out.reason
    robot.inputs.stiffness[:] = 1.0
    robot.planner.move_to(0.1, 0.0, 0.0)
    assert robot.cycle().started


def test_kill_move_stops_the_walk_at_once_and_sets_a_foot_in_the_air_down():
    """NAOqi's killMove is abrupt: no further step and no settling; here the foot in the air is
    set straight down (walk.landing) first, which ends the walk."""
    robot = PerfectRobot()
    robot.planner.move_to(0.3, 0.0, 0.0)
    robot.run(1.5)
    swing = robot.controller.step_in_progress
    assert robot.states[-1] is WalkState.WALKING and swing is not None
    last = robot.controller.outputs.reference
    swing_sole = last.left_sole_world if swing.leg is Leg.LEFT else last.right_sole_world
    floor_z = robot.controller.world_from_odom[2, 3]
    assert swing_sole[2, 3] > floor_z + 0.005 and last.support != "Legs"  # mid-swing
    robot.planner.kill_move()
    landing = []
    out = robot.cycle()
    while out.state is WalkState.LANDING:
        landing.append(out.reference)
        out = robot.cycle()
    assert out.ended and out.active_changed and out.state is WalkState.IDLE
    assert out.reason == "killMove: stopped at once" and not out.kill_move
    assert landing and len(landing) * DT_S <= 0.2  # down at 0.2 m/s
    lowered = [r.left_sole_world if swing.leg is Leg.LEFT else r.right_sole_world for r in landing + [out.reference]]
    heights = [sole[2, 3] for sole in lowered]
    assert np.all(np.diff(heights) < 0) and heights[-1] == pytest.approx(floor_z)
    for sole in lowered:  # straight down: x, y and yaw kept; the CoM and the other foot hold
        np.testing.assert_allclose(sole[:2, :], swing_sole[:2, :], atol=1e-12)
    for r in landing + [out.reference]:
        np.testing.assert_allclose(r.com_world_m, last.com_world_m, atol=1e-12)
    assert [r.support for r in landing] == [last.support] * len(landing) and out.reference.support == "Legs"
    assert robot.cycle().reference is None
    robot.planner.move_to(0.1, 0.0, 0.0)  # and the next walk starts as usual
    assert robot.cycle().started


def test_kill_move_in_double_support_ends_the_walk_on_that_cycle():
    robot = PerfectRobot()
    robot.planner.move_to(0.3, 0.0, 0.0)
    out = robot.run(0.5)  # before the first step (the planner starts it one preview after the command)
    assert out.state is WalkState.WALKING and out.reference.support == "Legs"
    robot.planner.kill_move()
    out = robot.cycle()
    assert out.ended and out.state is WalkState.IDLE and out.reference is None


def held_soles(robot: PerfectRobot) -> list[np.ndarray]:
    """Where the perfect balancer holds the soles now (wb_world positions)."""
    return [(robot.inputs.torso_world @ FK.pose(STATE, sole))[:3, 3] for sole in ("l_sole", "r_sole")]


@pytest.mark.parametrize("late_s", [0.5, 1.0])
def test_a_plan_that_reaches_the_walk_too_late_to_start_is_held_then_walked_without_a_jump(late_s):
    """The plan came 0.5 s (first step 0.3 s ahead) or 1 s (its first step has begun) after it
    was made: the walk waits, the planner moves the start a preview ahead, and the walk starts
    from the feet where they are."""
    robot = PerfectRobot()
    robot.run(0.1)
    robot.planner.move_to(0.2, 0.0, 0.0)
    robot.time_s += late_s  # the walk's cycles stalled meanwhile
    robot.planner.advance_to(robot.time_s)
    out = robot.cycle()
    assert out.state is WalkState.WAITING and out.active_changed and out.reference is None and not out.kill_move
    assert "waiting for the planner to postpone it" in out.reason
    assert robot.controller.state.holds_start
    first = robot.planner.steps()[0]
    assert first.start_s - robot.time_s == pytest.approx(robot.planner.preview_s - DT_S)  # held
    soles = held_soles(robot)
    out = robot.cycle()
    assert out.started and out.state is WalkState.WALKING
    for sole, held in zip((out.reference.left_sole_world, out.reference.right_sole_world), soles):
        np.testing.assert_allclose(sole[:3, 3], held, atol=2e-3)
    robot.walk_to_the_end()
    assert robot.planner.get_robot_position().x == pytest.approx(0.2, abs=0.01) and robot.kills == 0


def test_a_held_plan_the_planner_does_not_postpone_is_refused():
    robot = PerfectRobot()
    robot.planner.move_to(0.2, 0.0, 0.0)
    robot.time_s += 0.5
    robot.planner.advance_to(robot.time_s)
    robot.planner.hold_start = lambda: None  # a planner that does not hear walk/hold_start
    out = robot.cycle()
    while out.state is WalkState.WAITING:
        assert robot.time_s < 2.0
        out = robot.cycle()
    assert out.kill_move and out.ended and out.state is WalkState.IDLE and robot.kills == 1
    assert "did not postpone the plan's start within 1.0 s" in out.reason


def test_a_plan_that_moves_the_step_in_progress_stops_the_walk_and_sets_the_foot_down():
    """The planner keeps the step in progress in every plan; one that moves it (a hold heard
    after the walk started) must not make the swing foot jump back."""
    robot = PerfectRobot()
    robot.planner.move_to(0.3, 0.0, 0.0)
    robot.run(1.5)
    swing = robot.controller.step_in_progress
    assert swing is not None and robot.states[-1] is WalkState.WALKING
    last = robot.controller.outputs.reference
    swing_sole = (last.left_sole_world if swing.leg is Leg.LEFT else last.right_sole_world).copy()
    robot.planner.hold_start()  # the step in progress moved a preview ahead
    assert robot.planner.steps()[0].start_s > robot.time_s
    out = robot.cycle()
    assert out.kill_move and "moved the step in progress" in out.reason and out.state is WalkState.LANDING
    assert robot.kills == 1 and not robot.planner.steps()
    sole = out.reference.left_sole_world if swing.leg is Leg.LEFT else out.reference.right_sole_world
    np.testing.assert_allclose(sole[:2, 3], swing_sole[:2, 3], atol=1e-12)  # straight down, no jump
    while out.state is WalkState.LANDING:
        out = robot.cycle()
    assert out.ended and out.state is WalkState.IDLE


def leaning_at_the_first_lift_off(robot: PerfectRobot, roll_deg: float = -12.0):
    """Walks moveTo(0.3, 0, 0) up to 0.3 s before its first lift-off (the left foot's), then leans
    the robot (the IMU's roll; the model's torso stays upright) toward that foot: the measured DCM
    goes over it. Returns the first step as planned."""
    robot.run(0.1)
    robot.planner.move_to(0.3, 0.0, 0.0)
    robot.cycle()
    step = robot.planner.steps()[0]
    assert step.leg is Leg.LEFT
    robot.run(robot.controller.walk_config.phases.swing_start_s(step) - robot.time_s - 0.3)
    robot.inputs.imu_attitude[:] = rot_x(math.radians(roll_deg))
    return step


def hold_and_support(robot: PerfectRobot) -> tuple[bool, str]:
    """One cycle: whether the walk held a lift-off, and the references' support."""
    out = robot.cycle()
    return out.hold_step, out.reference.support


def test_a_step_whose_swing_could_not_catch_the_robot_waits_with_the_planner_then_walks_on():
    robot = PerfectRobot()
    first = leaning_at_the_first_lift_off(robot)
    lift_s = robot.controller.walk_config.phases.swing_start_s(first)
    held = [hold_and_support(robot) for _ in range(60)]  # 0.6 s
    assert not held[0][0] and all(hold for hold, _ in held[35:])
    assert all(support == "Legs" for _, support in held)  # both feet stay on the floor
    assert "holding the lift-off" in robot.controller.outputs.reason
    # The planner held its steps with the walk, within a cycle: its step starts ~0.3 s later.
    planned = robot.planner.steps()[0]
    assert planned.leg is first.leg and planned.target == first.target
    assert planned.start_s - first.start_s == pytest.approx(robot.controller.held_s, abs=DT_S + 1e-9)
    assert robot.controller.held_s > 0.25 and robot.controller.plan_delay_s <= DT_S + 1e-9
    robot.inputs.imu_attitude[:] = np.eye(3)  # upright again: the step goes on
    out = robot.run(0.05)
    assert not out.hold_step
    lifted = robot.run(0.1).reference
    assert lifted.support == "RLeg" and robot.time_s > lift_s + 0.25
    out = robot.walk_to_the_end()
    assert out.reason == "plan done" and robot.kills == 0
    assert robot.planner.get_robot_position().x == pytest.approx(0.3, abs=0.01)


def test_a_lift_off_is_held_at_most_lift_off_hold_max_s():
    robot = PerfectRobot(WalkControllerConfig(lift_off_hold_max_s=0.2))
    leaning_at_the_first_lift_off(robot)
    cycles = [hold_and_support(robot) for _ in range(80)]
    assert sum(hold for hold, _ in cycles) * DT_S == pytest.approx(0.2, abs=DT_S + 1e-9)
    assert any(support == "RLeg" for _, support in cycles)  # then the step goes on
    assert robot.kills == 0 and robot.controller.outputs.reason == "walking (the lift-off hold ended: held for lift_off_hold_max_s)"
    robot = PerfectRobot(WalkControllerConfig(lift_off_hold=False))
    leaning_at_the_first_lift_off(robot)
    assert not any(robot.cycle().hold_step for _ in range(80))


def test_step_recovery_moves_the_steps_only_once_the_foot_is_in_the_air():
    """Leaned toward the foot about to swing, the measured DCM is off the plan's beyond the
    threshold in the double support already; the steps move only after the lift-off (a landing
    moved in the double support would shorten it, and its lift-off would slip past the check)."""
    robot = PerfectRobot(WalkControllerConfig(step_recovery=True, lift_off_hold=False))  # lifts as planned
    first = leaning_at_the_first_lift_off(robot)
    lift_s = robot.controller.walk_config.phases.swing_start_s(first)
    recovery = robot.controller.recovery
    supports = []
    while robot.time_s < lift_s - DT_S:
        supports.append(robot.cycle().reference.support)
        assert np.all(recovery.applied_m == 0.0)
    assert recovery.recovering and set(supports) == {"Legs"}
    for _ in range(20):
        out = robot.cycle()
    # toward the lean, in the air: by its excess over the threshold (a lean held still does not grow)
    assert out.reference.support == "RLeg" and recovery.applied_m[1] > 0.01


def test_a_planner_that_does_not_hold_its_steps_with_the_walk_stops_it():
    """Its clock would end the step the walk still holds: the foot would jump to its target."""
    robot = PerfectRobot()
    robot.hears_hold_step = False
    leaning_at_the_first_lift_off(robot)
    out = robot.cycle()
    while not out.kill_move:
        assert robot.controller.held_s <= HOLD_ECHO_TIMEOUT_S + 2 * DT_S
        out = robot.cycle()
    assert out.ended and out.state is WalkState.IDLE and robot.kills == 1
    assert "did not hold its steps with the walk" in out.reason and "walk/hold_step" in out.reason


def test_the_protections_can_be_switched_off():
    robot = PerfectRobot(WalkControllerConfig(foot_contact_protection=False, stiffness_protection=False))
    robot.inputs.fsr_total_n[:] = 0.0
    robot.inputs.stiffness[:] = 0.0
    robot.run(0.1)
    robot.planner.move_to(0.1, 0.0, 0.0)
    assert robot.cycle().started


def test_a_user_arm_command_holds_that_arm_then_it_swings_again():
    robot = PerfectRobot()
    robot.planner.move_to(0.3, 0.0, 0.0)
    out = robot.run(0.3)
    assert out.arm_swing_arms == (0, 1)
    robot.controller.user_arm_command(["LShoulderPitch", "LElbowRoll"], 0.2, robot.time_s)  # +1 s hold
    held_until_s = robot.time_s + 1.2
    out = robot.run(1.0)
    assert out.arm_swing_arms == (1,)
    robot.run(held_until_s - robot.time_s + 2 * DT_S)
    out = robot.cycle()
    assert out.arm_swing_arms == (0, 1)


def test_a_disabled_arm_does_not_swing():
    robot = PerfectRobot(WalkControllerConfig(move_arms_enabled_larm=False))
    robot.planner.move_to(0.3, 0.0, 0.0)
    robot.run(0.2)
    swung = set()
    for _ in range(150):
        swung |= set(robot.cycle().arm_swing_arms)
    assert swung == {1}


def test_the_odometry_follows_the_measured_feet_during_a_walk():
    robot = PerfectRobot()
    robot.planner.move_to(0.1, 0.0, 0.0)
    robot.run(0.2)
    before = robot.controller.outputs.odometry
    # The balancer's torso 2 cm further along in wb_world, the measured joints as they were:
    # the feet on the floor did not move, nor did the robot (the old odometry, from the
    # balancer's torso, moved 2 cm with it).
    i = robot.inputs
    i.torso_world[:3, 3] += R[:3, 0] * 0.02
    robot.time_s += DT_S
    i.time_s = i.states_s = i.torso_s = i.imu_s = robot.time_s
    i.fsr_s[:] = robot.time_s
    out = robot.controller.cycle(i)
    assert out.odometry.x == pytest.approx(before.x, abs=1e-4) and out.odometry.y == pytest.approx(before.y, abs=1e-4)
    # The measured left hip pitched (the left foot supports, FSR forces): the torso moves
    # over the support foot, and base_footprint with it.
    i.fsr_total_n[:] = (0.9 * WEIGHT_N, 0.1 * WEIGHT_N)
    i.q_measured[MODEL.joint_index("LHipPitch")] += 0.02
    robot.time_s += DT_S
    i.time_s = i.states_s = i.torso_s = i.imu_s = i.fsr_s[0] = i.fsr_s[1] = robot.time_s
    out = robot.controller.cycle(i)
    assert abs(out.odometry.x - before.x) > 1e-3


def test_moveinit_error_and_the_configuration_checks():
    controller = WalkController(MODEL)
    assert controller.move_init_error_rad(STAND_INIT) == 0.0
    assert controller.move_init_error_rad(posture(MODEL, "Stand")) > 0.05
    assert "com_feedback_gain must be in [0, 1]" in WalkControllerConfig(com_feedback_gain=2.0).validate()
    assert "stale_timeout_s must be > 0" in WalkControllerConfig(stale_timeout_s=0.0).validate()
    assert "must be a bool" in WalkControllerConfig(stiffness_protection=1.0).validate()
    with pytest.raises(ValueError, match="user_arm_hold_s"):
        controller.configure(WalkControllerConfig(user_arm_hold_s=-1.0))


def test_a_plan_whose_times_go_back_is_refused():
    planner = FootstepPlanner(Pose2D(0.0, HALF_M), Pose2D(0.0, -HALF_M))
    planner.move_to(0.2, 0.0, 0.0)
    steps = planner.steps()
    assert [s.leg for s in footsteps_of(steps)] == [s.leg for s in steps]
    assert isinstance(steps[0].leg, Leg)
    with pytest.raises(PlanError, match="step 1"):
        footsteps_of([steps[1], steps[0]])


# --- the in-process chain -------------------------------------------------------------------
def test_the_in_process_chain_walks_move_to_as_the_suite_does():
    """What test_walk_node.py and test_walk_examples.py check over DDS, on SimulatedWalk (the
    planner -> WalkController -> WholeBodyCycle -> MuJoCo): moveTo(0.2, 0.2, 1.5709), the
    almotion_moveTo example."""
    pytest.importorskip("mujoco")
    from nao_motion.sim.walking import SimulatedWalk

    walk = SimulatedWalk(MODEL)
    for _ in range(10):
        walk.cycle()
    start = walk.odometry()
    goal = Pose2D(0.2, 0.2, 1.5709)
    walk.planner.move_to(goal.x, goal.y, goal.theta)
    active = []
    while walk.planner.move_is_active() or walk.walk_outputs.state is not WalkState.IDLE:
        assert walk.time_s < 60.0, "the walk did not end"
        walk.cycle()
        assert not walk.state.fallen, f"fell at t = {walk.time_s:.2f} s"
        active.append(walk.walk_outputs.state is not WalkState.IDLE)
    for _ in range(50):
        walk.cycle()
    true, odom = walk.true_moved(), walk.odometry()
    error_m = math.hypot(true.x - goal.x, true.y - goal.y)
    print(f"\nin-process moveTo(0.2, 0.2, 1.5709): true ({true.x:.3f}, {true.y:.3f}, "
          f"{math.degrees(true.theta):.1f} deg), error {error_m * 100:.1f} cm, odometry "
          f"({odom.x - start.x:.3f}, {odom.y - start.y:.3f}, {math.degrees(odom.theta - start.theta):.1f} deg), "
          f"worst tilt {walk.worst_tilt_deg:.1f} deg")
    # walk/active went true then false
    assert active[0] and not active[-1] and active.count(False) < 5
    # the ground truth reaches the goal (test_walk_examples' bounds) and the torso stays up
    assert error_m < 0.05 and abs(true.theta - goal.theta) < math.radians(5.0)
    assert walk.worst_tilt_deg < 6.0  # test_walk_sim's bound for the in-process chain
    # odometry (odom) at the goal (test_walk_node's bound, against the planner's own frame)
    planned = walk.planned_moved()
    assert odom.x == pytest.approx(planned.x, abs=0.01) and odom.y == pytest.approx(planned.y, abs=0.01)
    assert math.hypot(odom.x - start.x - goal.x, odom.y - start.y - goal.y) < 0.02
