"""Arm swing: zero when disabled, grows with step length, opposite left and right."""

import numpy as np

from nao_motion.footsteps import FootstepPlanner
from nao_motion.model import NaoModel
from nao_motion.walk import WalkPatternGenerator


def walk_offsets(max_step_x_m: float, left=True, right=True) -> np.ndarray:
    """Arm offsets (L, R) every cycle from a command at standing to 3 s of straight walking with
    MaxStepX = max_step_x_m (the first step starts one preview after the command)."""
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    gen.arms.set_enabled(left, right)
    planner = FootstepPlanner()
    planner.move_toward(1.0, 0.0, 0.0, [["MaxStepX", max_step_x_m]])
    offsets = []
    for k in range(int(round((planner.preview_s + 3.0) / gen.config.dt_s))):
        t = k * gen.config.dt_s
        planner.advance_to(t)
        offsets.append(gen.step(t, planner.steps(), planner.feet).arm_offsets_rad.copy())
    return np.array(offsets)


def test_zero_when_disabled():
    assert np.all(walk_offsets(0.04, False, False) == 0.0)
    one_side = walk_offsets(0.04, True, False)
    assert np.all(one_side[:, 1] == 0.0) and np.abs(one_side[:, 0]).max() > 0.05


def test_grows_with_step_length():
    short = np.abs(walk_offsets(0.02)).max()
    long = np.abs(walk_offsets(0.06)).max()
    assert short > 0.02
    assert long > 1.5 * short


def test_left_and_right_swing_opposite_and_opposite_to_the_legs():
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    planner.move_toward(1.0, 0.0, 0.0)
    prev = np.zeros(2)
    late_left_swings = 0
    for k in range(300):
        t = k * gen.config.dt_s
        planner.advance_to(t)
        out = gen.step(t, planner.steps(), planner.feet)
        left, right = out.arm_offsets_rad
        if abs(left) > 0.02:
            assert left * right < 0.0
        if k > 100 and out.support == "RLeg":
            # the left leg swings forward: the left arm goes back (ShoulderPitch grows), the
            # right one forward, ending with the left arm behind
            assert out.step.leg.value == "LLeg"
            assert left >= prev[0] and right <= prev[1]
            if gen.config.phases.swing_phase(out.step, out.time_s) > 0.75:
                assert left > 0.1 > -0.1 > right
                late_left_swings += 1
        prev = out.arm_offsets_rad.copy()
    assert late_left_swings > 5


def test_offsets_fade_without_jumps_when_enabled_mid_walk():
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    planner.move_toward(1.0, 0.0, 0.0)
    gen.arms.set_enabled(False, False)
    prev = np.zeros(2)
    limit = gen.config.arms.max_rate_radps * gen.config.dt_s + 1e-12
    for k in range(200):
        if k == 100:
            gen.arms.set_enabled(True, True)
        t = k * gen.config.dt_s
        planner.advance_to(t)
        offsets = gen.step(t, planner.steps(), planner.feet).arm_offsets_rad
        assert np.abs(offsets - prev).max() <= limit
        prev = offsets.copy()
    assert np.abs(prev).max() > 0.0
