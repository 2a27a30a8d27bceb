"""ZMP reference from planned footsteps: inside the support foot in single support, moving in
double support, at rest between the feet before and after the walk."""

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner, Leg, Pose2D
from nao_motion.footsteps.footstep import FeetState
from nao_motion.footsteps.foot_boxes import LEFT_FOOT_BOX, RIGHT_FOOT_BOX, place_box, point_strictly_inside
from nao_motion.walk import StepPhases, ZmpReference, ZmpReferenceConfig

DT_S = 0.01
N_PREVIEW = 80
CONFIG = ZmpReferenceConfig(forward_m=0.015, inward_m=0.01)
PHASES = StepPhases(0.25)


def reference_at(planner: FootstepPlanner, t_s: float) -> np.ndarray:
    out = np.zeros((N_PREVIEW + 1, 2))
    ZmpReference(CONFIG, PHASES, DT_S, N_PREVIEW).fill(t_s, planner.steps(), planner.feet, out)
    return out


@pytest.mark.parametrize("command", [("move_to", (0.6, 0.2, 0.8)), ("move", (0.0, 0.08, 0.0)),
                                     ("move", (-0.05, 0.0, -0.3))])
def test_single_support_zmp_is_inside_the_support_foot(command):
    planner = FootstepPlanner()
    getattr(planner, command[0])(*command[1])
    checked = 0
    for k in range(400):
        t = k * DT_S
        planner.advance_to(t)
        step = planner.current_step()
        if step is None or PHASES.in_double_support(step, t):
            continue
        zmp = reference_at(planner, t)[0]
        box = LEFT_FOOT_BOX if step.support_leg is Leg.LEFT else RIGHT_FOOT_BOX
        assert point_strictly_inside(place_box(box, step.support), *zmp)
        # and not merely inside: at the chosen point of the sole
        assert zmp == pytest.approx(CONFIG.point(step.support, step.support_leg), abs=1e-12)
        checked += 1
    assert checked > 100


def test_at_rest_between_the_feet_without_steps():
    planner = FootstepPlanner(Pose2D(0.1, 0.3, 0.5), Pose2D(0.15, 0.2, 0.5))
    ref = reference_at(planner, 0.0)
    assert np.ptp(ref, axis=0) == pytest.approx([0.0, 0.0])
    assert ref[0] == pytest.approx(CONFIG.rest_point(planner.feet.left, planner.feet.right))


def test_double_support_moves_linearly_from_rest_onto_the_first_support_foot():
    planner = FootstepPlanner()
    planner.move_to(0.2, 0.0, 0.0)
    first = planner.steps()[0]
    rest = np.array(CONFIG.rest_point(planner.feet.left, planner.feet.right))
    support = np.array(CONFIG.point(first.support, first.support_leg))
    # from standing the first step starts one preview after the command: at the window's end
    assert first.start_s == pytest.approx(N_PREVIEW * DT_S)
    assert reference_at(planner, 0.0) == pytest.approx(np.tile(rest, (N_PREVIEW + 1, 1)))
    planner.advance_to(first.start_s)
    ref = reference_at(planner, first.start_s)
    lift_off = PHASES.swing_start_s(first) - first.start_s
    k_mid = int(round(0.5 * lift_off / DT_S))
    assert ref[0] == pytest.approx(rest)
    assert ref[k_mid] == pytest.approx(rest + (k_mid * DT_S / lift_off) * (support - rest))
    assert ref[int(np.ceil(lift_off / DT_S)) + 1] == pytest.approx(support)


def test_after_the_last_step_back_to_rest_between_the_final_feet():
    planner = FootstepPlanner()
    planner.move_to(0.1, 0.0, 0.0)
    last = planner.steps()[-1]
    final = planner.planned_feet()
    ref = reference_at(planner, last.end_s)
    assert ref[0] == pytest.approx(CONFIG.point(last.support, last.support_leg))
    assert ref[-1] == pytest.approx(CONFIG.rest_point(final.left, final.right))


def test_reference_is_continuous_over_a_whole_walk_and_its_end():
    """No jump when a step starts, lands, or the queue drains (the last transfer completes)."""
    planner = FootstepPlanner()
    planner.move_to(0.3, 0.0, 0.3)
    reference = ZmpReference(CONFIG, PHASES, DT_S, N_PREVIEW)
    out = np.zeros((N_PREVIEW + 1, 2))
    end_s = planner.steps()[-1].end_s
    path = []
    for k in range(int(end_s / DT_S) + 50):
        planner.advance_to(k * DT_S)
        reference.fill(k * DT_S, planner.steps(), planner.feet, out)
        path.append(out[0].copy())
    path = np.array(path)
    # the fastest planned motion: about FootSeparation in one double support (0.105 s)
    assert np.abs(np.diff(path, axis=0)).max() < 0.1 * DT_S / 0.105 + 1e-9
    final = planner.feet
    assert path[-1] == pytest.approx(CONFIG.rest_point(final.left, final.right))


def test_inward_offset_points_toward_the_other_foot():
    left = CONFIG.point(Pose2D(0.0, 0.05, 0.0), Leg.LEFT)
    right = CONFIG.point(Pose2D(0.0, -0.05, 0.0), Leg.RIGHT)
    assert left == pytest.approx((0.015, 0.04)) and right == pytest.approx((0.015, -0.04))


def test_a_step_added_after_the_walk_ran_out_of_steps_starts_from_rest():
    """setFootStepsWithSpeed step by step (the cha-cha example): the next step comes once the
    last one ended. The ZMP completes its return to rest and waits there until the new step's
    double support, as from standing; it went straight back onto the former support foot for the
    whole wait, and the robot, rocked over that foot, fell."""
    planner = FootstepPlanner()
    zmp = ZmpReference(CONFIG, PHASES, DT_S, N_PREVIEW)
    out = np.zeros((N_PREVIEW + 1, 2))
    planner.set_foot_steps_with_speed(["LLeg"], [[0.06, 0.1, 0.0]], [0.8], False)
    first = planner.steps()[0]
    t = 0.0

    def fill():
        # the walk remembers the leg that moved last (WalkController), the planner does not
        last = Leg.LEFT if t >= first.end_s else planner.feet.last_moved
        feet = FeetState(planner.feet.left, planner.feet.right, last, t)
        zmp.fill(t, planner.steps(), feet, out)

    while t < first.end_s + 0.05:  # mid-way back to rest when the next step comes
        planner.advance_to(t)
        fill()
        t += DT_S
    planner.set_foot_steps_with_speed(["LLeg"], [[0.0, 0.16, 0.0]], [0.8], False)
    second = planner.steps()[0]
    rest = np.array(CONFIG.rest_point(planner.feet.left, planner.feet.right))
    former_support = np.array(CONFIG.point(first.support, first.support_leg))
    assert np.linalg.norm(rest - former_support) > 0.04
    back_s = first.end_s + PHASES.double_support_share(first) * first.duration_s
    while t < second.start_s:
        planner.advance_to(t)
        fill()
        if t >= back_s:
            assert out[0] == pytest.approx(rest, abs=1e-9), t
        else:  # still on its way back, from the former support foot
            s = (t - first.end_s) / (back_s - first.end_s)
            assert out[0] == pytest.approx(former_support + s * (rest - former_support), abs=1e-9), t
        t += DT_S
    support = np.array(CONFIG.point(second.support, second.support_leg))
    ds_end_s = PHASES.swing_start_s(second)
    planner.advance_to(ds_end_s)
    t = ds_end_s
    fill()
    assert out[0] == pytest.approx(support, abs=1e-9)
