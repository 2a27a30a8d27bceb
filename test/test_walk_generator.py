"""The walk pattern generator: defaults from the model, standing still, supports over a walk,
the balancer's WalkReference and the CoM feedback."""

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner
from nao_motion.model import NaoModel
from nao_motion.walk import (
    ComFeedbackConfig,
    WalkConfig,
    WalkPatternGenerator,
    balancer_reference,
    stand_com_in_feet_frame,
)
from nao_motion.wholebody.balancer import WalkReference


@pytest.mark.parametrize("version, dt_s", [("V5", 0.010), ("V6", 0.012)])
def test_config_from_the_model(version, dt_s):
    model = NaoModel(version)
    config = WalkConfig.for_model(model)
    forward_m, height_m = stand_com_in_feet_frame(model)
    assert config.dt_s == dt_s
    assert 0.25 < config.com_height_m == height_m < 0.29
    assert config.zmp.forward_m == forward_m and 0.0 < forward_m < 0.03
    assert WalkPatternGenerator(config).controller.n_preview == round(0.8 / dt_s)


def test_standing_still_keeps_the_com_over_the_rest_point():
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    for k in range(100):
        out = gen.step(k * 0.01, planner.steps(), planner.feet)
    rest = gen.config.zmp.rest_point(planner.feet.left, planner.feet.right)
    assert out.com_m == pytest.approx([rest[0], rest[1], gen.config.com_height_m], abs=1e-9)
    assert out.support == "Legs" and out.step is None
    assert out.left_sole == pytest.approx([0.0, 0.05, 0.0, 0.0])
    assert out.right_sole == pytest.approx([0.0, -0.05, 0.0, 0.0])
    assert np.all(out.arm_offsets_rad == 0.0) and out.torso_wx_rad == 0.0


def test_supports_follow_the_steps_and_the_torso_leans_only_in_single_support():
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    planner.move_to(0.3, 0.0, 0.0, [["TorsoWy", 0.1]])
    supports = []
    for k in range(int(planner.steps()[-1].end_s / 0.01) + 50):
        t = k * 0.01
        planner.advance_to(t)
        out = gen.step(t, planner.steps(), planner.feet)
        if not supports or supports[-1] != out.support:
            supports.append(out.support)
        if out.support == "Legs":
            assert out.torso_wy_rad == 0.0
        else:
            assert out.step.support_leg.value == out.support
            assert 0.0 <= out.torso_wy_rad <= 0.1
    single = [s for s in supports if s != "Legs"]
    assert len(single) >= 6
    assert all(a != b for a, b in zip(single, single[1:]))  # alternating legs
    assert supports[-1] == "Legs"


def test_balancer_reference_maps_the_output():
    gen = WalkPatternGenerator.for_model(NaoModel("V5"))
    planner = FootstepPlanner()
    planner.move(0.05, 0.0, 0.3)
    for k in range(30):
        planner.advance_to(k * 0.01)
        out = gen.step(k * 0.01, planner.steps(), planner.feet)
    shift = np.eye(4)
    shift[:3, 3] = [1.0, 2.0, 0.0]
    ref = balancer_reference(out, shift)
    assert isinstance(ref, WalkReference) and ref.support == out.support
    assert ref.com_world_m == pytest.approx(out.com_m + [1.0, 2.0, 0.0])
    for sole, pose in ((out.left_sole, ref.left_sole_world), (out.right_sole, ref.right_sole_world)):
        assert pose[:3, 3] == pytest.approx(sole[:3] + [1.0, 2.0, 0.0])
        assert np.arctan2(pose[1, 0], pose[0, 0]) == pytest.approx(sole[3])
        assert pose[2, 2] == pytest.approx(1.0)  # flat


def test_com_feedback_blends_the_measured_com_with_a_clamp():
    config = WalkConfig.for_model(NaoModel("V5"), com_feedback=ComFeedbackConfig(gain=0.2, max_error_m=0.03))
    gen = WalkPatternGenerator(config)
    planner = FootstepPlanner()
    gen.reset(planner.feet, (0.0, 0.0))
    gen.feed_back_com((0.01, -0.1))
    assert gen.controller.com_m == pytest.approx([0.002, -0.006])  # y clamped to 0.03 m
    assert gen.com_feedback.error_m == pytest.approx([0.01, -0.1])


def test_com_feedback_pulls_the_pattern_toward_a_displaced_robot():
    """A robot pushed 2 cm sideways: with feedback the commanded CoM follows it, then the
    controller brings the ZMP back onto the reference; without feedback nothing happens."""
    def commanded_after_push(gain):
        gen = WalkPatternGenerator(WalkConfig.for_model(NaoModel("V5"),
                                                        com_feedback=ComFeedbackConfig(gain=gain)))
        planner = FootstepPlanner()
        robot_offset = np.array([0.0, 0.02])
        shifts = []
        for k in range(100):
            out = gen.step(k * 0.01, planner.steps(), planner.feet)
            gen.feed_back_com(out.com_m[:2] + robot_offset)  # the robot stays pushed
            shifts.append(out.com_m[1])
        return np.array(shifts), out

    closed, out = commanded_after_push(0.1)
    open_loop, _ = commanded_after_push(0.0)
    assert np.abs(open_loop).max() < 1e-9
    assert closed[5] > 0.005  # the pattern moved toward the robot at once
    assert abs(out.zmp_m[1] - out.zmp_ref_m[1]) < 0.05
