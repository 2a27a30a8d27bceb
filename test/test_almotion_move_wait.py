"""The ALMotion client's wait for a move's end (moveTo, setFootStepsWithSpeed,
waitUntilMoveIsFinished) against a planner that lengthens the move on its own: the test's node
plays the footstep planner over DDS with the planner's core (``FootstepPlanner``) on the wall
clock, publishing ``footsteps/plan`` as the planner node does, no node process needed."""

import time

import pytest

rclpy = pytest.importorskip("rclpy")

from ros_probe import SpinningProbe  # noqa: E402

from std_msgs.msg import Float64MultiArray  # noqa: E402

from nao_motion.almotion.errors import ALMotionError  # noqa: E402
from nao_motion.footsteps import FootstepPlanner, Pose2D  # noqa: E402
from nao_motion.ros.footstep_messages import encode_plan, plan_of  # noqa: E402
from nao_motion.ros.qos import LATCHED_QOS  # noqa: E402

CLIENT_TIMEOUT_S = 0.5  # what the client allows past the plan's last step, on the planner's clock
HOLD_S = 1.5  # the planner holds the plan's start this long: its end moves later by about as much
PERIOD_S = 0.05


class PlannerSide(SpinningProbe):
    """A planner whose moveTo(0.1, 0, 0) is held at its start for ``hold_s`` (the walk's
    initialization movement, ``walk/hold_start``), or whose clock runs on with its steps frozen
    (``frozen``: a planner that never takes a step off its plan)."""

    def __init__(self, hold_s: float = 0.0, frozen: bool = False):
        super().__init__("planner_side")
        self.t0 = time.monotonic()
        self.hold_s, self.frozen = hold_s, frozen
        self.planner = FootstepPlanner(Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, -0.05, 0.0), now_s=0.0)
        self.planner.move_to(0.1, 0.0, 0.0)
        self.first_end_s = self.planner.steps()[-1].end_s
        self.last_end_s = self.first_end_s
        self.publisher = self.node.create_publisher(Float64MultiArray, "footsteps/plan", LATCHED_QOS)
        self.node.create_timer(PERIOD_S, self.publish)
        self.start()

    def publish(self) -> None:
        now_s = time.monotonic() - self.t0
        planner = self.planner
        if self.frozen:
            steps, time_s = planner.steps(), now_s
        else:
            planner.advance_to(now_s)
            if now_s < self.hold_s:
                planner.hold_start()
            steps, time_s = planner.steps(), planner.now_s
        if steps:
            self.last_end_s = steps[-1].end_s
        feet = planner.feet
        self.publisher.publish(encode_plan(plan_of(time_s, 1, 0, feet.left, feet.right, steps, 0)))


@pytest.fixture
def ros():
    rclpy.init()
    yield
    rclpy.shutdown()


def wait_for_steps(motion) -> None:
    deadline = time.monotonic() + 5.0
    while not motion.getFootSteps()[2] and not motion.getFootSteps()[1]:
        assert time.monotonic() < deadline, "no plan with steps from the planner's side"
        time.sleep(0.02)


def test_a_move_the_planner_holds_at_its_start_is_waited_for_to_its_end(ros):
    planner = PlannerSide(hold_s=HOLD_S)
    try:
        from nao_motion.almotion import ALMotion

        with ALMotion(node_name="move_wait_client", timeout_s=CLIENT_TIMEOUT_S) as motion:
            wait_for_steps(motion)
            motion.waitUntilMoveIsFinished()
            now_s = time.monotonic() - planner.t0
            # The hold moved the end past what the first plan allowed: the wait went on to it.
            assert planner.last_end_s > planner.first_end_s + CLIENT_TIMEOUT_S + 0.5
            assert now_s >= planner.last_end_s - 0.1
            assert not motion.getFootSteps()[1] and not motion.getFootSteps()[2]
    finally:
        planner.close()


def test_a_plan_whose_clock_runs_past_its_steps_is_given_up_after_the_timeout(ros):
    planner = PlannerSide(frozen=True)
    try:
        from nao_motion.almotion import ALMotion

        with ALMotion(node_name="move_wait_client", timeout_s=CLIENT_TIMEOUT_S) as motion:
            wait_for_steps(motion)
            with pytest.raises(ALMotionError, match="did not finish"):
                motion.waitUntilMoveIsFinished()
            assert time.monotonic() - planner.t0 >= planner.first_end_s + CLIENT_TIMEOUT_S - 0.1
    finally:
        planner.close()
