"""The footstep planner's cmd_vel timeout counts on the node's clock: under ``use_sim_time`` the
simulator's, here a /clock the test runs at a quarter of the wall's pace. A walk by one cmd_vel
goes on for several timeouts of wall time and stops once 0.5 s of sim time has passed."""

import time

import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402
from ros_probe import SpinningProbe  # noqa: E402

from geometry_msgs.msg import Twist  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

from nao_motion.ros.footstep_messages import decode_plan  # noqa: E402
from nao_motion.ros.qos import LATCHED_QOS  # noqa: E402
from nao_motion.suite import NODES  # noqa: E402

PLANNER = next(spec for spec in NODES if spec.executable == "footstep_planner")
TICK_S = 0.01  # wall time between /clock messages
SIM_PER_TICK_S = 0.0025  # a quarter of the wall's pace
START_SIM_S = 100.0


class SimClock(SpinningProbe):
    """Publishes /clock (a quarter of the wall's pace), sends cmd_vel, records plans and logs."""

    def __init__(self):
        super().__init__("footstep_planner_sim_clock")
        self.sim_s = START_SIM_S
        self.plans, self.logs = [], []
        self.clock_pub = self.node.create_publisher(Clock, "/clock", 10)
        self.cmd_vel_pub = self.node.create_publisher(Twist, "cmd_vel", 10)
        self.node.create_subscription(Float64MultiArray, "footsteps/plan",
                                      lambda msg: self.add(self.plans, decode_plan(msg)), LATCHED_QOS)
        self.record_logs("footstep_planner", self.logs)
        self.node.create_timer(TICK_S, self._tick)
        self.start()

    def _tick(self) -> None:
        self.sim_s += SIM_PER_TICK_S
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = int(self.sim_s), int(round((self.sim_s % 1.0) * 1e9)) % 1_000_000_000
        self.clock_pub.publish(msg)


@pytest.fixture
def planner(tmp_path):
    nodes = NodeGroup(tmp_path)
    nodes.start(PLANNER, use_sim_time=True)
    rclpy.init()
    clock = SimClock()
    try:
        assert clock.wait(lambda: clock.plans and clock.plans[-1].time_s > START_SIM_S, 20.0), \
            "no footsteps/plan on the sim clock"
        yield clock
    finally:
        clock.close()
        rclpy.shutdown()
        nodes.stop()


def test_cmd_vel_times_out_on_the_nodes_clock(planner):
    clock = planner
    end = time.monotonic() + 10.0
    while clock.cmd_vel_pub.get_subscription_count() == 0:
        assert time.monotonic() < end, "the planner does not subscribe cmd_vel"
        time.sleep(0.01)
    before = clock.plans[-1]
    msg = Twist()
    msg.linear.x = 0.06
    clock.cmd_vel_pub.publish(msg)
    assert clock.wait(lambda: clock.plans[-1].accepted_commands > before.accepted_commands, 5.0)
    time.sleep(1.2)  # more than twice the timeout of wall time: 0.3 s of sim time
    with clock.cond:
        assert not any("no cmd_vel for" in line for line in clock.logs), "timed out on the wall clock"
        assert clock.plans[-1].steps
    assert clock.wait(lambda: any("no cmd_vel for" in line for line in clock.logs), 10.0), "no timeout"
    assert clock.wait(lambda: not clock.plans[-1].steps, 20.0), "the walk did not stop"
