"""Walks on a simulated robot that differs from the controller's model, judged by ground truth.

Each case is one moveTo in process (``SimulatedWalk``: the suite's walk chain, the objects its
nodes call) on a ``NaoSimulator`` the controller is not told about: sole friction halved, the
commands acting a cycle late, servos at 70 % of the model's gain and torque, a torso 10 %
heavier, noisy joint encoders and IMU. Judged by the simulator's ground truth (REP-120
base_footprint: the true soles' midpoint, the true torso's yaw): no fall, the goal reached
within GOAL_TOLERANCE_M / GOAL_TOLERANCE_DEG, and the sensed odometry (``odom``,
getRobotPosition(True)) within ODOMETRY_TOLERANCE_M of the truth.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from nao_motion.footsteps import MoveToCorrectionConfig, Pose2D
from nao_motion.model import NaoModel
from nao_motion.sim.mjcf import ContactParams
from nao_motion.sim.simulator import NaoSimulator, SensorNoise
from nao_motion.sim.walking import SimulatedWalk
from nao_motion.walk.controller import WalkControllerConfig, WalkState

GOAL_TOLERANCE_M = 0.05
GOAL_TOLERANCE_DEG = 5.0
ODOMETRY_TOLERANCE_M = 0.02
TIMEOUT_S = 20.0
SETTLE_S = 0.5  # standing after the walk has ended, before it is judged

ROBOTS = {
    "friction 0.5x": dict(contact=ContactParams(sole_friction=(0.5, 0.005, 0.00005))),
    "commands 1 cycle late": dict(actuation_delay_cycles=1),
    "servos 70%": dict(servo_strength=0.7),
    "torso mass +10%": dict(mass_scale={"torso": 1.1}),
    "sensor noise": dict(sensor_noise=SensorNoise(joint_position_rad=math.radians(0.1),
                                                  imu_attitude_rad=math.radians(0.3), seed=1)),
}
GOALS = {"0.4 m forward": Pose2D(0.4, 0.0, 0.0), "turn 0.8 rad": Pose2D(0.0, 0.0, 0.8)}
# Known misses (not hidden by a looser bound), marked strict: none now. 70 % servos drifted ~5 cm
# sideways on moveTo's closing steps while every step had 0.15 of double support: its swinging
# foot was off the floor for only part of its swing (walk.step_phase).
KNOWN_MISSES: dict[tuple[str, str], str] = {}
PLAN_ALONE = MoveToCorrectionConfig(max_corrections=0)
CASES = [pytest.param(robot, goal, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[(robot, goal)])]
                      if (robot, goal) in KNOWN_MISSES else [])
         for robot in ROBOTS for goal in GOALS]


def walk_to(robot: dict, goal: Pose2D, config: WalkControllerConfig | None = None,
            closing: MoveToCorrectionConfig | None = None) -> tuple[SimulatedWalk, Pose2D, Pose2D]:
    """moveTo(goal) on that robot (`closing`: its closing steps, None: the default): the walk,
    how far it truly moved and the odometry's move."""
    model = NaoModel("V5")
    walk = SimulatedWalk(model, NaoSimulator(model, **robot))
    if config is not None:
        walk.controller.configure(config)
    if closing is not None:
        walk.planner_cycle.set_correction(closing)
    walk.cycle()
    start_true, start_odom = walk.true_footprint(), walk.odometry()
    walk.move_to(goal.x, goal.y, goal.theta)  # as the planner node takes it: closed on through odom
    while walk.time_s < TIMEOUT_S and not walk.state.fallen:
        walk.cycle()
        if (not walk.planner.move_is_active() and walk.controller.state is WalkState.IDLE
                and not walk.planner_cycle.closing):
            break
    for _ in range(round(SETTLE_S / model.cycle_time_s)):
        if walk.state.fallen:
            break
        walk.cycle()
    return walk, walk.true_footprint().relative_to(start_true), walk.odometry().relative_to(start_odom)


@pytest.mark.parametrize("robot_name,goal_name", CASES)
def test_move_to_reaches_the_goal_on_a_robot_unlike_the_model(robot_name, goal_name):
    goal = GOALS[goal_name]
    walk, moved, odometry = walk_to(ROBOTS[robot_name], goal)
    assert not walk.state.fallen, f"fell at {walk.time_s:.2f} s"
    assert walk.controller.state is WalkState.IDLE, "the walk did not end"
    miss_m = math.hypot(moved.x - goal.x, moved.y - goal.y)
    heading_deg = math.degrees(abs(math.remainder(moved.theta - goal.theta, math.tau)))
    assert miss_m <= GOAL_TOLERANCE_M, f"ended {miss_m * 100:.1f} cm from the goal (true {moved})"
    assert heading_deg <= GOAL_TOLERANCE_DEG, f"heading {heading_deg:.1f} deg off the goal's (true {moved})"
    odometry_error_m = math.hypot(odometry.x - moved.x, odometry.y - moved.y)
    assert odometry_error_m <= ODOMETRY_TOLERANCE_M, \
        f"odometry {odometry} is {odometry_error_m * 100:.1f} cm from the truth {moved}"


def test_the_simulator_differs_from_the_model_as_asked():
    """The options act: a weaker servo sags more under the same load, a heavier torso weighs
    more, noise moves the measured joints, not the truth."""
    model = NaoModel("V5")
    nominal, weak = NaoSimulator(model), NaoSimulator(model, servo_strength=0.7)
    sag = [np.max(np.abs(sim.step(50).position - sim.state.command)) for sim in (nominal, weak)]
    assert sag[1] > sag[0]
    heavy = NaoSimulator(model, mass_scale={"torso": 1.1})
    torso = mujoco.mj_name2id(heavy.mj_model, mujoco.mjtObj.mjOBJ_BODY, "torso")
    assert heavy.mj_model.body_mass[torso] == pytest.approx(1.1 * nominal.mj_model.body_mass[torso])
    noisy = NaoSimulator(model, sensor_noise=SensorNoise(joint_position_rad=0.01, seed=3))
    exact = NaoSimulator(model)
    assert np.max(np.abs(noisy.step().position - exact.step().position)) > 1e-3
    with pytest.raises(ValueError):
        NaoSimulator(model, mass_scale={"no such body": 1.1})


def test_odometry_measures_what_weak_servos_walked():
    """70 % servos walk 0.4 m ~9 cm short (the plan alone, no closing steps): the sensed odometry
    says so (to 2 cm); the balancer's torso pose (the plan) said the goal was reached."""
    goal = Pose2D(0.4, 0.0, 0.0)
    walk, moved, odometry = walk_to(ROBOTS["servos 70%"], goal, closing=PLAN_ALONE)
    assert not walk.state.fallen
    assert math.hypot(moved.x - goal.x, moved.y - goal.y) > 0.05  # the robot did fall short
    assert math.hypot(odometry.x - moved.x, odometry.y - moved.y) <= ODOMETRY_TOLERANCE_M, (odometry, moved)
    planned = walk.planned_moved()  # getRobotPosition(False): the command, the goal
    assert math.hypot(planned.x - goal.x, planned.y - goal.y) < 0.01
    # walk/com_measured is drawn in odom where the sensed odometry has the robot (over its feet),
    # not where the plan put it (~9 cm ahead).
    footprint, com = walk.odometry(), walk.walk_outputs.com_measured_odom_m
    assert math.hypot(com[0] - footprint.x, com[1] - footprint.y) < 0.02, (com, footprint)


def test_position_correction_closes_the_gap_of_late_servos():
    """Commands acting a cycle late: with the position correction on, moveTo(0.5, 0.3, 0.8)
    ends closer to the goal (ground truth) than without, within 1.5 cm (without closing steps)."""
    goal = Pose2D(0.5, 0.3, 0.8)
    misses = {}
    for gain in (0.0, 1.0):
        walk, moved, _ = walk_to(ROBOTS["commands 1 cycle late"], goal, WalkControllerConfig(position_correction_gain=gain),
                                 PLAN_ALONE)
        assert not walk.state.fallen
        misses[gain] = math.hypot(moved.x - goal.x, moved.y - goal.y)
    assert misses[1.0] <= 0.015 and misses[1.0] < misses[0.0], misses


def test_closing_steps_bring_a_move_to_onto_its_goal():
    """Nominal robot, moveTo(0.5, 0.5, 1.0): the plan alone ends ~5 cm short (ground truth);
    with the closing steps (the default) the planner walks what odom says is left and the robot
    ends within 2 cm."""
    goal = Pose2D(0.5, 0.5, 1.0)
    misses = {}
    for name, closing in (("plan alone", PLAN_ALONE), ("closing", None)):
        walk, moved, _ = walk_to({}, goal, closing=closing)
        assert not walk.state.fallen, name
        misses[name] = math.hypot(moved.x - goal.x, moved.y - goal.y)
        assert (walk.planner_cycle.correction.corrections >= 1) == (closing is None), name
    assert misses["closing"] <= 0.02 < misses["plan alone"], misses
