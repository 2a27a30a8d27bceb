"""The ALMotion client's wait for a move's end (moveTo, setFootStepsWithSpeed,
waitUntilMoveIsFinished) against a planner that lengthens the move on its own or whose move a
later command takes over: the test's node plays the footstep planner over DDS (its node name,
parameters, ``goal_pose``) with the planner's core (``FootstepPlanner``) on the wall clock,
publishing ``footsteps/plan`` as the planner node does, no node process needed."""

import time

import pytest

rclpy = pytest.importorskip("rclpy")

from ros_probe import SpinningProbe  # noqa: E402

from geometry_msgs.msg import PoseStamped  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

from nao_motion.almotion.errors import ALMotionError  # noqa: E402
from nao_motion.almotion.locomotion import PLANNER_NODE  # noqa: E402
from nao_motion.footsteps import FootstepPlanner, Pose2D  # noqa: E402
from nao_motion.ros.footstep_messages import encode_plan, plan_of  # noqa: E402
from nao_motion.ros.qos import LATCHED_QOS  # noqa: E402

CLIENT_TIMEOUT_S = 0.5  # what the client allows past the plan's last step, on the planner's clock
HOLD_S = 1.5  # the planner holds the plan's start this long: its end moves later by about as much
PERIOD_S = 0.05


class PlannerSide(SpinningProbe):
    """The planner's side: a moveTo(0.1, 0, 0) planned at once (``moving``) or on the client's
    goal_pose, then as asked: its start held for ``hold_s`` (the walk's initialization movement,
    ``walk/hold_start``); its clock running on with the steps frozen (``frozen``: a planner that
    never takes a step off its plan); ``take_over_after_s`` after it, a later command (another
    client's moveTo(0.2, 0, 0)) planned."""

    def __init__(self, moving: bool = True, hold_s: float = 0.0, frozen: bool = False,
                 take_over_after_s: float | None = None):
        super().__init__(PLANNER_NODE, allow_undeclared_parameters=True)  # the client sets its gait parameters
        self.t0 = time.monotonic()
        self.hold_s, self.frozen, self.take_over_after_s = hold_s, frozen, take_over_after_s
        self.planner = FootstepPlanner(Pose2D(0.0, 0.05, 0.0), Pose2D(0.0, -0.05, 0.0), now_s=0.0)
        self.accepted = 0
        self.moved_s: float | None = None  # when the first moveTo was planned
        self.taken_over_s: float | None = None
        self.first_end_s = self.last_end_s = 0.0
        if moving:
            self.move_to(0.1, 0.0)
        self.publisher = self.node.create_publisher(Float64MultiArray, "footsteps/plan", LATCHED_QOS)
        self.node.create_subscription(PoseStamped, "goal_pose", lambda msg: self.move_to(0.1, self.now_s()), 10)
        self.node.create_timer(PERIOD_S, self.publish)
        self.start()

    def now_s(self) -> float:
        return time.monotonic() - self.t0

    def move_to(self, x_m: float, now_s: float) -> None:
        self.planner.advance_to(now_s)
        self.planner.move_to(x_m, 0.0, 0.0)
        self.accepted += 1
        if self.moved_s is None:
            self.moved_s, self.first_end_s = now_s, self.planner.steps()[-1].end_s

    def publish(self) -> None:
        now_s = self.now_s()
        planner = self.planner
        if self.frozen:
            steps, time_s = planner.steps(), now_s
        else:
            planner.advance_to(now_s)
            if now_s < self.hold_s:
                planner.hold_start()
            if (self.take_over_after_s is not None and self.taken_over_s is None and self.moved_s is not None
                    and now_s >= self.moved_s + self.take_over_after_s):
                self.move_to(0.2, now_s)
                self.taken_over_s = now_s
            steps, time_s = planner.steps(), planner.now_s
        if steps:
            self.last_end_s = steps[-1].end_s
        feet = planner.feet
        self.publisher.publish(encode_plan(plan_of(time_s, self.accepted, 0, feet.left, feet.right, steps, 0)))


@pytest.fixture
def ros():
    rclpy.init()
    yield
    rclpy.shutdown()


def client():
    from nao_motion.almotion import ALMotion

    return ALMotion("V5", node_name="move_wait_client", timeout_s=CLIENT_TIMEOUT_S)


def wait_for_steps(motion) -> None:
    deadline = time.monotonic() + 5.0
    while not (motion.getFootSteps()[1] or motion.getFootSteps()[2]):
        assert time.monotonic() < deadline, "no plan with steps from the planner's side"
        time.sleep(0.02)


def has_steps(motion) -> bool:
    _, unchangeable, changeable = motion.getFootSteps()
    return bool(unchangeable or changeable)


def test_a_move_the_planner_holds_at_its_start_is_waited_for_to_its_end(ros):
    planner = PlannerSide(hold_s=HOLD_S)
    try:
        with client() as motion:
            wait_for_steps(motion)
            motion.waitUntilMoveIsFinished()
            # The hold moved the end past what the first plan allowed: the wait went on to it.
            assert planner.last_end_s > planner.first_end_s + CLIENT_TIMEOUT_S + 0.5
            assert planner.now_s() >= planner.last_end_s - 0.1
            assert not has_steps(motion)
    finally:
        planner.close()


def test_a_plan_whose_clock_runs_past_its_steps_is_given_up_after_the_timeout(ros):
    planner = PlannerSide(frozen=True)
    try:
        with client() as motion:
            wait_for_steps(motion)
            with pytest.raises(ALMotionError, match="did not finish"):
                motion.waitUntilMoveIsFinished()
            assert planner.now_s() >= planner.first_end_s + CLIENT_TIMEOUT_S - 0.1
    finally:
        planner.close()


def test_a_move_to_a_later_command_takes_over_returns_then(ros):
    planner = PlannerSide(moving=False, take_over_after_s=0.5)
    try:
        with client() as motion:
            motion.moveTo(0.1, 0.0, 0.0)
            returned_s = planner.now_s()
            assert planner.taken_over_s is not None and returned_s - planner.taken_over_s < 0.5
            assert returned_s < planner.first_end_s  # well before its own plan would have ended
            assert has_steps(motion)  # the later command's walk goes on
    finally:
        planner.close()


def test_waiting_for_the_move_follows_a_later_command_to_its_end(ros):
    planner = PlannerSide(take_over_after_s=0.5)
    try:
        with client() as motion:
            wait_for_steps(motion)
            motion.waitUntilMoveIsFinished()
            # The later moveTo(0.2) ends after the first plan's end plus the client's timeout.
            assert planner.last_end_s > planner.first_end_s + CLIENT_TIMEOUT_S
            assert planner.now_s() >= planner.last_end_s - 0.1
            assert not has_steps(motion)
    finally:
        planner.close()
