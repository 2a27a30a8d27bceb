"""The walk on the simulated NAO (MuJoCo, in process, no ROS: nao_motion.sim.walking), judged by
the simulator's true torso. Gaits are the defaults unless a test says otherwise (moveTo at
MaxStepFrequency 1: 0.42 s steps of up to 4 cm, the fastest the default gait allows).
"""

import math
from dataclasses import replace

import numpy as np
import pytest

pytest.importorskip("mujoco")

from nao_motion.footsteps import Pose2D  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.sim.walking import SimulatedWalk  # noqa: E402
from nao_motion.walk.controller import WalkState  # noqa: E402
from nao_motion.wholebody.balancer import Outcome  # noqa: E402

MODEL = NaoModel()
# NAOqi's cha-cha (examples/almotion_setFootStepsWithSpeed.py): eight steps, frequency 0.8.
CHA_CHA = [("LLeg", [0.06, 0.1, 0.0]), ("LLeg", [0.00, 0.16, 0.0]), ("RLeg", [0.00, -0.1, 0.0]),
           ("LLeg", [0.00, 0.16, 0.0]), ("RLeg", [-0.04, -0.1, 0.0]), ("RLeg", [0.00, -0.16, 0.0]),
           ("LLeg", [0.00, 0.1, 0.0]), ("RLeg", [0.00, -0.16, 0.0])]
# Tilt (deg) a walk of the suite must stay under; a fall is 60 deg, standing still ~0.2 deg.
MAX_TILT_DEG = 6.0


class WalkRun(SimulatedWalk):
    """The simulated walk, failing the test at once on a fall or an unusable solve."""

    def __init__(self, model: NaoModel = MODEL):
        super().__init__(model)

    def cycle(self):
        result = super().cycle()
        usable = (Outcome.SOLVED, Outcome.RELAXED) + ((Outcome.PASSED,) if not self.balancer.enabled else ())
        assert result.outcome in usable, result.reason
        assert not self.state.fallen, f"fell at t = {self.time_s:.2f} s"
        return result

    def run(self, duration_s: float) -> None:
        for _ in range(int(round(duration_s / self.model.cycle_time_s))):
            self.cycle()

    def finish(self, settle_s: float = 1.0, timeout_s: float = 120.0) -> None:
        """Walk until the planner has no step left, then stand `settle_s`."""
        while self.planner.move_is_active():
            assert self.time_s < timeout_s, "the walk did not end"
            self.cycle()
        self.run(settle_s)


def _report(name: str, run: WalkRun, goal: Pose2D) -> Pose2D:
    true, plan = run.true_moved(), run.planned_moved()
    print(f"\n{name}: goal ({goal.x:.3f}, {goal.y:.3f}, {math.degrees(goal.theta):.1f} deg), "
          f"planned ({plan.x:.3f}, {plan.y:.3f}, {math.degrees(plan.theta):.1f} deg), "
          f"true ({true.x:.3f}, {true.y:.3f}, {math.degrees(true.theta):.1f} deg), "
          f"worst tilt {run.worst_tilt_deg:.1f} deg, {run.time_s:.1f} s")
    return true


def test_walks_two_metres_forward_at_the_fastest_default_gait():
    run = WalkRun()
    run.planner.move_to(2.0, 0.0, 0.0)
    run.finish()
    true = _report("moveTo(2, 0, 0)", run, Pose2D(2.0, 0.0, 0.0))
    plan = run.planned_moved()
    drift = math.hypot(true.x - plan.x, true.y - plan.y)
    print(f"odometry drift after 2 m: {drift * 100:.1f} cm ({drift / 2.0 * 100:.1f} %), "
          f"heading {math.degrees(true.theta - plan.theta):.1f} deg")
    assert run.worst_tilt_deg < MAX_TILT_DEG
    assert true.x > 1.8  # it walked, not just stepped


def test_walks_half_a_metre_sideways():
    run = WalkRun()
    run.planner.move_to(0.0, 0.5, 0.0)
    run.finish()
    true = _report("moveTo(0, 0.5, 0)", run, Pose2D(0.0, 0.5, 0.0))
    assert run.worst_tilt_deg < MAX_TILT_DEG
    assert true.y > 0.4


def test_turns_half_a_turn_in_place():
    run = WalkRun()
    run.planner.move_to(0.0, 0.0, math.pi)
    run.finish()
    true = _report("moveTo(0, 0, pi)", run, Pose2D(0.0, 0.0, math.pi))
    assert run.worst_tilt_deg < MAX_TILT_DEG
    assert abs(abs(true.theta) - math.pi) < math.radians(20.0)


# V6 (83 Hz) tilts less than V5 here (about 2 deg) but its steps come out about 4 % long.
@pytest.mark.parametrize("version, max_error_m", [("V5", 0.05), ("V6", 0.08)])
def test_move_to_a_pose_ends_near_it(version, max_error_m):
    run = WalkRun(NaoModel(version))
    goal = Pose2D(1.0, 0.5, 1.57)
    run.planner.move_to(goal.x, goal.y, goal.theta)
    run.finish()
    true = _report(f"{version} moveTo(1, 0.5, 1.57)", run, goal)
    assert run.worst_tilt_deg < MAX_TILT_DEG
    assert math.hypot(true.x - goal.x, true.y - goal.y) < max_error_m
    assert abs(true.theta - goal.theta) < math.radians(5.0)


def test_cha_cha_twice_at_frequency_0_8():
    run = WalkRun()
    for _ in range(2):
        for leg, pose in CHA_CHA:
            run.planner.set_foot_steps_with_speed([leg], [pose], [0.8], False)
    run.finish()
    _report("cha-cha x2", run, Pose2D(0.0, 0.0, 0.0))
    assert run.worst_tilt_deg < MAX_TILT_DEG


def test_cha_cha_one_blocking_call_per_step():
    """As ALMotion's example sends it: each step a setFootStepsWithSpeed that returns when the walk
    has ended, the next one half a second later. Between two walks the legs stay where the walk
    left them; taken back to the stance from before the dance (the feet planted 0.16 m apart
    now), they made the torso tilt 8.6 deg here and up to 19 deg through the suite."""
    run = WalkRun()
    for leg, pose in CHA_CHA * 2:
        run.planner.set_foot_steps_with_speed([leg], [pose], [0.8], False)
        while run.planner.move_is_active() or run.controller.state is not WalkState.IDLE:
            assert run.time_s < 120.0, "the walk did not end"
            run.cycle()
        run.run(0.5)
    _report("cha-cha x2, a call per step", run, Pose2D(0.0, 0.0, 0.0))
    assert run.worst_tilt_deg < MAX_TILT_DEG


def test_random_velocity_commands_for_a_minute_without_a_fall():
    """move() commands within the gait limits, a new one every 2-5 s (axes zeroed at random)."""
    rng = np.random.default_rng(7)
    run = WalkRun()
    next_command_s = 0.0
    while run.time_s < 60.0:
        if run.time_s >= next_command_s:
            velocity = rng.uniform(-1.0, 1.0, 3) * (rng.random(3) < 0.7) * [0.1, 0.08, 0.5]
            run.planner.move(*velocity)
            next_command_s = run.time_s + rng.uniform(2.0, 5.0)
        run.cycle()
    run.planner.stop_move()
    run.finish()
    _report("random move() session, 60 s", run, run.planned_moved())
    assert run.worst_tilt_deg < MAX_TILT_DEG


def test_kill_move_mid_swing_stops_at_once_on_both_feet():
    """killMove mid-swing: the walk ends within the foot's landing (no settling), and the robot
    stands balanced on both feet, with the whole body balancer on (as here) or off (the suite's
    default: pass-through back to the joint wish)."""
    for balancer_enabled in (True, False):
        run = WalkRun()
        if not balancer_enabled:
            run.balancer.set_enabled(False)
        run.planner.move(0.08, 0.0, 0.0)
        while not (run.walk_outputs.reference is not None and run.walk_outputs.reference.support != "Legs"
                   and run.time_s > 2.2):
            run.cycle()
        run.run(0.1)  # mid-swing
        run.planner.kill_move()
        killed_s = run.time_s
        while run.controller.state is not WalkState.IDLE:
            run.cycle()
        assert run.time_s - killed_s <= 0.15, run.time_s - killed_s
        run.worst_tilt_deg = 0.0
        run.run(2.0)
        assert run.worst_tilt_deg < 4.0, (balancer_enabled, run.worst_tilt_deg)
        # both feet on the floor (the CoM stays where the walk left it: over the former support foot)
        assert min(np.sum(run.state.fsr_left), np.sum(run.state.fsr_right)) > 1.0


def test_torso_wx_and_wy_lean_the_torso_in_single_support():
    """NAOqi's TorsoWx / TorsoWy are the torso's peak rotation (about x, about y) during single
    support: the balancer's torso peaks at them in each step, the true torso leans most of the
    way (the servos give under the load), and the robot is upright again standing."""
    from nao_motion import spatial

    wx, wy = math.radians(-5.0), math.radians(6.0)
    run = WalkRun()
    run.planner.move(0.05, 0.0, 0.0, [["TorsoWy", wy], ["RightTorsoWx", wx]])  # roll on the right steps only
    peaks = {}  # step start -> (swinging leg, [roll, pitch] of the commanded torso, of the true torso)

    def tilt(rotation):
        heading = spatial.rot_z(spatial.yaw_of(spatial.transform(rotation)))
        return spatial.rpy_from_rotation(heading.T @ rotation)[:2]

    while run.time_s < 6.0:
        result = run.cycle()
        step = run.controller.step_in_progress
        if step is None:
            continue
        leg, commanded, true = peaks.setdefault(step.start_s, (step.leg, np.zeros(2), np.zeros(2)))
        for peak, value in ((commanded, tilt(result.torso_world[:3, :3])),
                            (true, tilt(spatial.rotation_from_quaternion_xyzw(run.state.torso_orientation_xyzw)))):
            np.copyto(peak, np.where(np.abs(value) > np.abs(peak), value, peak))
    run.planner.stop_move()
    run.finish()
    steps = list(peaks.values())[1:-1]  # whole steps
    for leg, commanded, true in steps:
        roll = wx if leg.is_left is False else 0.0
        print(f"\n{leg.value} step: commanded torso (deg) {np.degrees(commanded)}, true {np.degrees(true)}")
        np.testing.assert_allclose(commanded, (roll, wy), atol=math.radians(1.0))
        # ~2/3 of it (upright: +-1 deg); the left steps roll 2.2 deg of themselves (1.4 deg when
        # every step had 0.15 of double support: these short steps have 0.22, walk.step_phase)
        assert true[1] / wy > 0.5 and (true[0] / roll > 0.5 if roll else abs(true[0]) < math.radians(2.5))
    true = spatial.rotation_from_quaternion_xyzw(run.state.torso_orientation_xyzw)
    assert math.acos(min(1.0, true[2, 2])) < math.radians(1.5)  # upright when standing again


def test_a_walk_from_stand_first_performs_the_initialization_movement():
    """From Stand (legs nearly straight), a moveTo performs the initialization movement (moveInit's
    targets, the plan held meanwhile), then walks to the goal."""
    from nao_motion.postures import posture

    run = WalkRun()
    run.send_joint_targets(MODEL.joint_names, posture(MODEL, "Stand"))  # the user's posture
    run.run(3.0)
    run.worst_tilt_deg = 0.0
    run.planner.move_to(0.3, 0.0, 0.0)
    states = []
    while run.planner.move_is_active() or run.controller.state is not WalkState.IDLE:
        assert run.time_s < 30.0
        run.cycle()
        states.append(run.controller.state)
    phases = [s for k, s in enumerate(states) if k == 0 or states[k - 1] is not s]
    assert phases[:2] == [WalkState.INITIALIZING, WalkState.WALKING], phases
    assert WalkState.INITIALIZING in states
    true = _report("moveTo(0.3, 0, 0) from Stand", run, Pose2D(0.3, 0.0, 0.0))
    assert math.hypot(true.x - 0.3, true.y) < 0.05 and run.worst_tilt_deg < MAX_TILT_DEG


def test_with_the_arm_swing_disabled_the_walk_moves_the_legs_only():
    """setMoveArmsEnabled(False, False): NAOqi's walk leaves the arms (and the head) to the user.
    The whole body walks with its legs: arms and head stay where their wish holds them (they
    moved 0.24-0.43 rad at every step when the balancer could recruit them)."""
    run = WalkRun()
    run.controller.configure(replace(run.controller.config, move_arms_enabled_larm=False,
                                     move_arms_enabled_rarm=False))
    upper_body = [i for i, j in enumerate(MODEL.joints) if j.chain in ("Head", "LArm", "RArm")]
    run.planner.move_to(0.6, 0.0, 0.0)
    start_q = run.state.position[upper_body].copy()
    moved = np.zeros(len(upper_body))
    while run.planner.move_is_active():
        run.cycle()
        np.maximum(moved, np.abs(run.state.position[upper_body] - start_q), out=moved)
    true = _report("moveTo(0.6, 0, 0), arms not swung", run, Pose2D(0.6, 0.0, 0.0))
    assert true.x > 0.5 and run.worst_tilt_deg < MAX_TILT_DEG
    worst = int(np.argmax(moved))
    assert moved[worst] < 0.1, f"{MODEL.joints[upper_body[worst]].name} moved {moved[worst]:.2f} rad"
