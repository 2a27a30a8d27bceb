"""A walk's first step of each leg starts from where that foot actually is."""

from nao_motion.footsteps import FootstepPlanner, Leg, Pose2D
from nao_motion.walk.start_feet import start_from_actual_feet


def test_first_steps_start_from_the_actual_feet_and_later_ones_from_the_plan():
    planner = FootstepPlanner()
    planner.move_to(0.3, 0.0, 0.2)
    steps, feet = planner.steps(), planner.feet
    planned = {Leg.LEFT: feet.left, Leg.RIGHT: feet.right}
    actual = {Leg.LEFT: Pose2D(0.01, 0.06, 0.02), Leg.RIGHT: Pose2D(-0.005, -0.045, -0.01)}
    rebased, rebased_feet = start_from_actual_feet(steps, feet, planned, actual)

    assert (rebased_feet.left, rebased_feet.right) == (actual[Leg.LEFT], actual[Leg.RIGHT])
    first = {}
    for i, step in enumerate(steps):
        first.setdefault(step.leg, i)
    for leg, i in first.items():
        assert rebased[i].origin == actual[leg]  # the foot lifts off where it is
        assert rebased[i].target == steps[i].target  # and lands where planned
    assert rebased[0].support == actual[steps[0].leg.other]
    later = max(first.values()) + 1
    assert rebased[later:] == steps[later:]  # from the planned targets on: the plan itself


def test_a_plan_matching_the_actual_feet_is_returned_unchanged():
    planner = FootstepPlanner()
    planner.move_to(0.2, 0.0, 0.0)
    feet = planner.feet
    same = {Leg.LEFT: feet.left, Leg.RIGHT: feet.right}
    rebased, rebased_feet = start_from_actual_feet(planner.steps(), feet, same, same)
    assert all(a is b for a, b in zip(rebased, planner.steps()))
    assert (rebased_feet.left, rebased_feet.right) == (feet.left, feet.right)
