"""The simulator node as its own process over real DDS: sensors, commands, bad input, stiffness,
push, reset, lockstep and diagnostics."""

import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy")

from conftest import NodeGroup  # noqa: E402

from diagnostic_msgs.msg import DiagnosticArray  # noqa: E402
from geometry_msgs.msg import WrenchStamped  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.parameter_client import AsyncParameterClient  # noqa: E402
from rosgraph_msgs.msg import Clock  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402
from std_msgs.msg import Float32MultiArray  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.nodes.simulator_node import (  # noqa: E402
    ANSWER_WINDOW_CYCLES, DUE_TOLERANCE_CYCLES, answer_pending, cycles_due)
from nao_motion.ros.qos import CYCLE_QOS  # noqa: E402
from nao_motion.suite import SIMULATOR  # noqa: E402

MODEL = NaoModel("V5")
STANDING_Z = 0.30  # torso height in StandInit is ~0.32 m
FALLEN_Z = 0.15  # lying on the floor (the simulator's fall criterion: < 0.15 m or tilt > 60 deg)


def stamp_s(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


class Probe:
    def __init__(self):
        self.node = rclpy.create_node("simulator_probe")
        self.last = {}
        self.count = {}
        self.clocks = []

        def keep(key):
            def cb(msg):
                self.last[key] = msg
                self.count[key] = self.count.get(key, 0) + 1
            return cb

        n = self.node
        n.create_subscription(JointState, "joint_states", keep("joint_states"), CYCLE_QOS)
        n.create_subscription(Imu, "imu", keep("imu"), CYCLE_QOS)
        n.create_subscription(Float32MultiArray, "fsr/left", keep("fsr_left"), CYCLE_QOS)
        n.create_subscription(Float32MultiArray, "fsr/right", keep("fsr_right"), CYCLE_QOS)
        n.create_subscription(Odometry, "ground_truth/odom", keep("odom"), CYCLE_QOS)
        n.create_subscription(Clock, "/clock", keep("clock"), 10)
        n.create_subscription(DiagnosticArray, "/diagnostics", keep("diagnostics"), 10)
        self.commands = n.create_publisher(JointState, "joint_commands", CYCLE_QOS)
        self.stiffness = n.create_publisher(JointState, "joint_stiffness", CYCLE_QOS)
        self.push = n.create_publisher(WrenchStamped, "push", 10)
        self.reset = n.create_client(Trigger, "reset")
        self.params = AsyncParameterClient(n, "simulator")

    def spin(self, seconds: float, until=None) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            rclpy.spin_once(self.node, timeout_sec=0.005)
            if until is not None and until():
                return True
        return bool(until()) if until is not None else True

    def joint(self, name: str) -> float:
        msg = self.last["joint_states"]
        return msg.position[list(msg.name).index(name)]

    def torso_z(self) -> float:
        return self.last["odom"].pose.pose.position.z

    def call_reset(self) -> Trigger.Response:
        assert self.reset.wait_for_service(timeout_sec=5.0)
        future = self.reset.call_async(Trigger.Request())
        assert self.spin(5.0, until=future.done)
        return future.result()

    def set_params(self, **values) -> None:
        future = self.params.set_parameters([Parameter(k, value=v) for k, v in values.items()])
        assert self.spin(5.0, until=future.done)
        assert all(r.successful for r in future.result().results), future.result()


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    nodes = NodeGroup(tmp_path_factory.mktemp("nodes"))
    proc = nodes.start(SIMULATOR, params={"real_time_factor": 2.0})
    rclpy.init()
    probe = Probe()
    try:
        topics = ("joint_states", "imu", "fsr_left", "fsr_right", "odom", "clock")
        assert probe.spin(30.0, until=lambda: all(k in probe.last for k in topics)), (
            f"the simulator did not publish everything: got {sorted(probe.last)}")
        yield proc, probe
    finally:
        probe.node.destroy_node()
        rclpy.shutdown()
        nodes.stop()


def test_sensors_are_published(running):
    _, probe = running
    probe.spin(0.5)
    js = probe.last["joint_states"]
    assert list(js.name) == list(MODEL.joint_names)
    assert len(js.position) == len(js.velocity) == len(js.effort) == MODEL.n_joints
    imu = probe.last["imu"]
    assert imu.header.frame_id == "torso"
    assert imu.linear_acceleration.z == pytest.approx(9.81, abs=0.2)
    fsr = np.array(probe.last["fsr_left"].data) + np.array(probe.last["fsr_right"].data)
    assert len(probe.last["fsr_left"].data) == 4 and probe.last["fsr_left"].layout.dim[0].label == "FL,FR,RL,RR"
    assert fsr.sum() == pytest.approx(MODEL.total_mass_kg * 9.81, rel=0.05)
    odom = probe.last["odom"]
    assert odom.header.frame_id == "world" and odom.child_frame_id == "torso"
    assert probe.torso_z() > STANDING_Z
    # Sim time: /clock moves, and the messages carry it.
    t0 = stamp_s(probe.last["clock"].clock)
    probe.spin(0.3)
    t1 = stamp_s(probe.last["clock"].clock)
    assert t1 > t0
    assert abs(stamp_s(probe.last["joint_states"].header.stamp) - t1) < 0.1


def test_joint_command_moves_the_joint(running):
    _, probe = running
    probe.commands.publish(JointState(name=["LShoulderRoll"], position=[0.8]))
    assert probe.spin(5.0, until=lambda: abs(probe.joint("LShoulderRoll") - 0.8) < 0.02)
    probe.commands.publish(JointState(name=["LShoulderRoll"], position=[5.0]))  # clamped to the limit
    upper = MODEL.upper[MODEL.joint_index("LShoulderRoll")]
    assert probe.spin(5.0, until=lambda: abs(probe.joint("LShoulderRoll") - upper) < 0.02)
    probe.commands.publish(JointState(name=["LShoulderRoll"], position=[0.3]))
    assert probe.spin(5.0, until=lambda: abs(probe.joint("LShoulderRoll") - 0.3) < 0.02)


@pytest.mark.parametrize("bad", [
    JointState(name=["NoSuchJoint"], position=[1.0]),
    JointState(name=["HeadYaw"], position=[float("nan")]),
    JointState(name=["HeadYaw", "HeadPitch"], position=[1.0]),
    JointState(name=["HeadYaw"], position=[1.0], velocity=[1.0, 2.0]),
    JointState(name=["HeadYaw", "HeadYaw"], position=[1.0, 1.0]),
])
def test_bad_commands_are_ignored(running, bad):
    proc, probe = running
    before = probe.joint("HeadYaw")
    for _ in range(3):
        probe.commands.publish(bad)
        probe.spin(0.1)
    probe.spin(0.3)
    assert probe.joint("HeadYaw") == pytest.approx(before, abs=0.01)
    assert proc.running()


def test_stiffness_zero_collapses_and_reset_stands_up(running):
    _, probe = running
    probe.stiffness.publish(JointState(name=[], effort=[0.0]))
    assert probe.spin(10.0, until=lambda: probe.torso_z() < FALLEN_Z), "limp robot did not collapse"
    before = stamp_s(probe.last["clock"].clock)
    response = probe.call_reset()
    assert response.success
    probe.spin(0.2)
    assert stamp_s(probe.last["clock"].clock) >= before  # sim time does not jump back on reset
    assert probe.spin(3.0, until=lambda: probe.torso_z() > STANDING_Z)
    probe.spin(1.0)
    assert probe.torso_z() > STANDING_Z  # stiffness back to initial_stiffness: it keeps standing


def test_push_topples_the_robot(running):
    _, probe = running
    probe.call_reset()
    msg = WrenchStamped()
    msg.header.frame_id = "torso"
    msg.wrench.force.x = 100.0  # 0.1 s (push_duration_s): 10 N s
    probe.push.publish(msg)
    assert probe.spin(10.0, until=lambda: probe.torso_z() < FALLEN_Z), "a 10 N s push did not topple the robot"
    probe.spin(0.3)
    bad = WrenchStamped()
    bad.header.frame_id = "mars"
    probe.push.publish(bad)
    probe.call_reset()
    assert probe.spin(3.0, until=lambda: probe.torso_z() > STANDING_Z)


def test_cycles_owed_after_a_late_tick_come_a_tick_apart():
    """Two ticks a cycle, one step a tick: on time, a cycle steps at its own tick and not at the
    tick between; after a tick 2.2 cycles late (the timer skips the ticks it missed) the owed
    cycles follow at the next ticks, half a cycle apart, until the schedule is met again."""
    cycle_s = 0.01
    assert cycles_due(0.5 * cycle_s, 0.0, cycle_s) == 0  # first tick: half a cycle in
    assert cycles_due(1.0 * cycle_s, 0.0, cycle_s) == 1
    assert cycles_due(1.5 * cycle_s, 1.0 * cycle_s, cycle_s) == 0
    assert cycles_due(1.5 * cycle_s + 0.002, 1.0 * cycle_s, cycle_s) == 0  # a tick's jitter
    assert cycles_due(2.0 * cycle_s - 0.002, 1.0 * cycle_s, cycle_s) == 1
    stepped_s, steps, owed = 1.0 * cycle_s, [], []
    for tick in (4.2, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5):  # the tick due at 2.0 came at 4.2
        due = cycles_due(tick * cycle_s, stepped_s, cycle_s)
        owed.append(due)
        steps.append(min(due, 1))
        stepped_s += min(due, 1) * cycle_s
    assert owed[:3] == [3, 2, 2]  # behind, catching up one cycle a tick
    assert steps == [1, 1, 1, 1, 1, 0, 1, 0]  # then on schedule: a cycle every other tick
    assert stepped_s == pytest.approx(7.0 * cycle_s)


def test_a_late_joint_states_still_gets_its_answer_window():
    """A state the simulator sent late (its own tick or step came late) leaves the controller
    ANSWER_WINDOW_CYCLES of a cycle before the next step counts it missed; an answered state, no
    controller yet, or a window used up do not hold the step."""
    cycle_s = 0.01
    window_s = ANSWER_WINDOW_CYCLES * cycle_s
    assert answer_pending(0.2 * window_s, 0, True, cycle_s)  # sent 8 ms late: wait for the next tick
    assert not answer_pending(1.01 * window_s, 0, True, cycle_s)  # it had its window: missed
    assert not answer_pending(0.2 * window_s, 1, True, cycle_s)  # answered: step on schedule
    assert not answer_pending(0.2 * window_s, 0, False, cycle_s)  # no controller yet: never wait
    assert 0.0 < ANSWER_WINDOW_CYCLES < 1.0 - DUE_TOLERANCE_CYCLES  # on schedule, never in the way


def test_lockstep_steps_once_per_command(running):
    _, probe = running
    probe.set_params(lockstep=True, lockstep_timeout_s=10.0)
    probe.spin(0.3)
    t0 = stamp_s(probe.last["clock"].clock)
    probe.spin(0.3)
    assert stamp_s(probe.last["clock"].clock) == t0  # no command, no step
    for _ in range(10):
        stamp = probe.last["clock"].clock
        probe.commands.publish(JointState(name=["HeadYaw"], position=[0.0]))
        assert probe.spin(2.0, until=lambda stamp=stamp: probe.last["clock"].clock != stamp)
    assert stamp_s(probe.last["clock"].clock) == pytest.approx(t0 + 10 * MODEL.cycle_time_s, abs=1e-6)
    # A controller gone quiet does not stop the world: the robot steps on its last command.
    probe.set_params(lockstep_timeout_s=0.05)
    assert probe.spin(2.0, until=lambda: stamp_s(probe.last["clock"].clock) >= t0 + 13 * MODEL.cycle_time_s - 1e-6)
    probe.set_params(lockstep=False, real_time_factor=2.0)
    assert probe.spin(2.0, until=lambda: stamp_s(probe.last["clock"].clock) > t0 + 0.2)


def test_bad_parameters_are_refused(running):
    _, probe = running
    future = probe.params.set_parameters([Parameter("real_time_factor", value=-1.0)])
    assert probe.spin(5.0, until=future.done)
    assert not future.result().results[0].successful


def test_diagnostics_report_rate_and_falls(running):
    _, probe = running
    assert probe.spin(5.0, until=lambda: "diagnostics" in probe.last and any(
        s.name == "nao_motion: simulator" for s in probe.last["diagnostics"].status))
    status = next(s for s in probe.last["diagnostics"].status if s.name == "nao_motion: simulator")
    values = {kv.key: kv.value for kv in status.values}
    for key in ("cycle_time_median_ms", "real_time_factor", "falls", "sim_time_s"):
        assert key in values
    assert int(values["falls"]) >= 1  # the earlier tests made it fall


def test_missed_cycles_are_reported_with_their_times(running):
    """A cycle stepped with no command since the previous one is missed; when it was (time.monotonic(),
    the machine's clock) is reported with the count, so a benchmark can tell a late controller from
    a host that halted every process (bench_suite.py)."""
    _, probe = running
    probe.commands.publish(JointState(name=["HeadYaw"], position=[0.0]))
    probe.spin(0.2)
    after_s = time.monotonic()  # from here on no command comes: every cycle is missed
    probe.spin(1.2)  # a publication after after_s: the times before it are reported and cleared
    probe.last.pop("diagnostics", None)

    def simulator_values() -> dict[str, str] | None:
        status = [s for s in probe.last.get("diagnostics", DiagnosticArray()).status
                  if s.name == "nao_motion: simulator"]
        return {kv.key: kv.value for kv in status[0].values} if status else None

    assert probe.spin(5.0, until=lambda: simulator_values() is not None)
    before_s = time.monotonic()
    values = simulator_values()
    times = [float(t) for t in values["missed_cycles_at_monotonic_s"].split()]
    assert 10 <= len(times) <= 100  # a second of cycles at twice real time, at most 100 reported
    assert times == sorted(times) and after_s <= times[0] and times[-1] <= before_s
