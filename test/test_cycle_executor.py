"""CycleExecutor (nao_motion.ros.executor): the nodes' executor serves what rclpy's does.

Real rclpy over real DDS (loopback, the test's own domain), nodes in this process."""

from __future__ import annotations

import time
from contextlib import contextmanager

import pytest

rclpy = pytest.importorskip("rclpy")

from rclpy.node import Node  # noqa: E402
from rclpy.time import Time  # noqa: E402
from std_msgs.msg import Int32  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from nao_motion.ros import rclpy_compat as compat  # noqa: E402
from nao_motion.ros.executor import CycleExecutor  # noqa: E402
from nao_motion.ros.sampled import SampledSubscription, SampleView, SharedSample  # noqa: E402


def spin_until(executor: CycleExecutor, done, timeout_s: float = 5.0) -> bool:
    end = time.monotonic() + timeout_s
    while not done() and time.monotonic() < end:
        executor.spin_once(timeout_sec=0.05)
    return done()


@contextmanager
def spun(context, *nodes: Node):
    """An executor over the nodes; the executor shut down and the nodes destroyed at the end."""
    executor = CycleExecutor(context=context)
    for node in nodes:
        executor.add_node(node)
    try:
        yield executor
    finally:
        executor.shutdown()
        for node in nodes:
            node.destroy_node()


def test_subscriptions_timers_and_entities_made_while_spinning(context):
    talker = Node("talker", context=context)
    listener = Node("listener", context=context)
    received, ticks = [], []
    pub = talker.create_publisher(Int32, "numbers", 10)
    listener.create_subscription(Int32, "numbers", lambda m: received.append(m.data), 10)
    talker.create_timer(0.01, lambda: (ticks.append(1), pub.publish(Int32(data=len(ticks)))))
    with spun(context, talker, listener) as executor:
        assert spin_until(executor, lambda: len(received) >= 5), received
        assert received[:3] == sorted(received[:3]) and len(ticks) >= len(received)
        # an entity created after the plan was made is waited on too
        late = []
        listener.create_subscription(Int32, "numbers", lambda m: late.append(m.data), 10)
        assert spin_until(executor, lambda: len(late) >= 3)


def test_cancelled_timer_and_sampled_subscription_are_not_served(context):
    node = Node("quiet", context=context)
    ticks = []
    timer = node.create_timer(0.01, lambda: ticks.append(1))
    sampled = SampledSubscription(node, Int32, "sampled")
    pub = node.create_publisher(Int32, "sampled", 10)
    with spun(context, node) as executor:
        assert spin_until(executor, lambda: len(ticks) >= 2)
        timer.cancel()
        count = len(ticks)
        for i in range(5):
            pub.publish(Int32(data=i))
            executor.spin_once(timeout_sec=0.02)
        assert len(ticks) == count

        def published_and_taken() -> bool:
            pub.publish(Int32(data=7))
            return sampled.take_latest() is not None
        assert spin_until(executor, published_and_taken)  # in DDS all along, never served


def test_a_timer_a_callback_destroys_is_dropped_and_the_others_go_on(context):
    """A node's callback destroys a timer (the simulator's on a parameter change): the next
    wake-ups, before and after the plan is remade, serve the other entities and never the
    destroyed timer (its handle, held by the plan, refused rclpy's calls: the process ended)."""
    node = Node("destroys_a_timer", context=context)
    doomed_ticks, ticks = [], []
    doomed = node.create_timer(0.01, lambda: doomed_ticks.append(1))

    def tick() -> None:
        ticks.append(1)
        if len(ticks) == 2:
            node.destroy_timer(doomed)
    node.create_timer(0.01, tick)
    with spun(context, node) as executor:
        assert spin_until(executor, lambda: len(ticks) >= 2)
        count = len(doomed_ticks)
        assert spin_until(executor, lambda: len(ticks) >= 10)
        assert len(doomed_ticks) <= count + 1  # at most the call already due in the same wake-up


def test_a_cancelled_timer_on_sim_time_does_not_wake_the_executor_at_each_clock_update(context):
    """rcl wakes a wait set holding a timer whose next call is due at every forward jump of its
    clock, and a cancelled timer's stays due: each /clock would wake the executor once more."""
    from rclpy.clock import Clock, ClockType
    from rclpy.parameter import Parameter
    from rosgraph_msgs.msg import Clock as ClockMsg

    node = Node("sim_timed", context=context, parameter_overrides=[Parameter("use_sim_time", value=True)])
    source = compat.time_source_of(node)
    cancelled = node.create_timer(0.01, lambda: None)  # on the node's (sim) clock
    cancelled.cancel()
    updates = []

    def advance_sim_time() -> None:  # as a /clock subscription would, at 100 Hz wall time
        updates.append(1)
        source.clock_callback(ClockMsg(clock=Time(seconds=1.0 + 0.01 * len(updates)).to_msg()))
    node.create_timer(0.01, advance_sim_time, clock=Clock(clock_type=ClockType.STEADY_TIME))
    with spun(context, node) as executor:
        assert spin_until(executor, lambda: len(updates) >= 5)
        wake_ups, first = 0, len(updates)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.1)
            wake_ups += 1
        served = len(updates) - first
        # one wake-up per update, and the executor's own polls (ROS's services: 20 a second)
        assert served >= 50 and wake_ups < served + 30, (wake_ups, served)


def test_a_sampled_subscription_gives_the_newest_message_since_the_last_read(context):
    node = Node("sampler", context=context)
    newest, kept = SampledSubscription(node, Int32, "samples"), SampledSubscription(node, Int32, "samples", depth=5)
    pub = node.create_publisher(Int32, "samples", 10)
    with spun(context, node) as executor:
        assert spin_until(executor, lambda: pub.get_subscription_count() == 2)
        for i in range(3):
            pub.publish(Int32(data=i))
        time.sleep(0.2)
        assert newest.take_latest().data == 2  # depth 1: the older ones were replaced in DDS
        assert newest.take_latest() is None  # nothing since
        assert kept.take_latest().data == 2 and kept.take_latest() is None
        pub.publish(Int32(data=3))
        time.sleep(0.2)
        assert newest.take_latest().data == 3


def test_views_of_a_shared_sample_each_get_each_message_once(context):
    """Nodes sharing one subscription (the composed suite's IMU) read as with their own: the
    newest message each has not seen, once."""
    node = Node("sharer", context=context)
    shared = SharedSample(SampledSubscription(node, Int32, "shared"))
    first, second = SampleView(shared), SampleView(shared)
    pub = node.create_publisher(Int32, "shared", 10)
    with spun(context, node) as executor:
        assert spin_until(executor, lambda: pub.get_subscription_count() == 1)
        assert first.take_latest() is None and second.take_latest() is None
        pub.publish(Int32(data=1))
        time.sleep(0.2)
        assert first.take_latest().data == 1
        assert first.take_latest() is None  # seen
        assert second.take_latest().data == 1  # the same message, taken once from DDS
        pub.publish(Int32(data=2))
        time.sleep(0.2)
        assert second.take_latest().data == 2 and second.take_latest() is None
        assert first.take_latest().data == 2 and first.take_latest() is None
        late = SampleView(shared)  # a view made now has seen what came before it
        assert late.take_latest() is None


def test_plain_and_awaiting_services_answer_clients(context):
    server = Node("server", context=context)
    client_node = Node("client", context=context)

    def plain(request, response):
        response.success, response.message = True, "plain"
        return response

    inner = client_node.create_client(Trigger, "plain")

    async def awaiting(request, response):
        # a service that awaits another service, as the walk's moveInit awaits its posture
        answer = await inner.call_async(Trigger.Request())
        response.success, response.message = answer.success, "awaited " + answer.message
        return response

    server.create_service(Trigger, "plain", plain)
    server.create_service(Trigger, "awaiting", awaiting)
    outer = client_node.create_client(Trigger, "awaiting")
    with spun(context, server, client_node) as executor:
        assert spin_until(executor, lambda: outer.service_is_ready() and inner.service_is_ready())
        future = outer.call_async(Trigger.Request())
        executor.spin_until_future_complete(future, timeout_sec=5.0)
        assert future.done() and future.result().message == "awaited plain"


def test_a_callback_error_ends_spin(context):
    node = Node("failing", context=context)

    def fail():
        raise RuntimeError("callback failed")

    node.create_timer(0.01, fail)
    with spun(context, node) as executor, pytest.raises(RuntimeError, match="callback failed"):
        executor.spin()


def test_garbage_is_collected_between_wake_ups_not_inside_callbacks(context):
    """collect_garbage_when_idle: automatic collection off (it ran inside the motion cycle's
    callbacks); the executor collects after a wake-up instead, so reference cycles made in
    callbacks are still freed."""
    import gc
    import weakref

    class Cycle:
        pass

    node = Node("garbage", context=context)
    made, collected_in_callback = [], []

    def make_garbage():
        counts_before = gc.get_count()[0]
        for _ in range(1000):  # reference cycles, past the youngest generation's threshold
            a, b = Cycle(), Cycle()
            a.other, b.other = b, a
            made.append(weakref.ref(a))
        collected_in_callback.append(gc.get_count()[0] < counts_before)

    node.create_timer(0.01, make_garbage)
    was_enabled = gc.isenabled()
    try:
        with spun(context, node) as executor:
            executor.collect_garbage_when_idle()
            assert not gc.isenabled()
            assert spin_until(executor, lambda: len(collected_in_callback) >= 3)
            assert not any(collected_in_callback)  # no collection ran inside the callbacks
            assert sum(ref() is None for ref in made) >= 1000  # the cycles were freed after them
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def test_ros_own_services_answer_while_nothing_else_wakes_the_executor(context):
    """The parameter services are polled, not waited on: the executor must wake for them itself
    (spin() waits without a timeout, and nothing else here wakes it)."""
    import threading

    from rcl_interfaces.msg import Parameter as ParameterMsg
    from rcl_interfaces.msg import ParameterType, ParameterValue
    from rcl_interfaces.srv import GetParameters, SetParameters
    from rclpy.executors import SingleThreadedExecutor

    server = Node("polled", context=context)
    server.declare_parameter("gain", 1.0)
    client_node = Node("asker", context=context)
    set_client = client_node.create_client(SetParameters, "polled/set_parameters")
    get_client = client_node.create_client(GetParameters, "polled/get_parameters")
    asker = SingleThreadedExecutor(context=context)
    asker.add_node(client_node)
    with spun(context, server) as executor:
        thread = threading.Thread(target=executor.spin, daemon=True)
        thread.start()
        try:
            assert set_client.wait_for_service(timeout_sec=5.0) and get_client.wait_for_service(timeout_sec=5.0)
            value = ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=2.5)
            future = set_client.call_async(SetParameters.Request(parameters=[ParameterMsg(name="gain", value=value)]))
            asker.spin_until_future_complete(future, timeout_sec=5.0)
            assert future.done() and future.result().results[0].successful
            assert server.get_parameter("gain").value == 2.5
            future = get_client.call_async(GetParameters.Request(names=["gain"]))
            asker.spin_until_future_complete(future, timeout_sec=5.0)
            assert future.done() and future.result().values[0].double_value == 2.5
        finally:
            executor.shutdown()
            thread.join(timeout=5.0)
            asker.shutdown()
            client_node.destroy_node()


def test_message_info_callbacks_and_timer_info_are_served(context):
    """A subscription callback with two arguments gets the message info (the whole body times its
    answer from it); a timer callback asking for a TimerInfo gets one where rclpy has it (Kilted)."""
    node = Node("informed", context=context)
    infos, timer_infos = [], []
    node.create_subscription(Int32, "informed", lambda msg, info: infos.append((msg.data, info)), 10)
    pub = node.create_publisher(Int32, "informed", 10)

    TimerInfo = compat.TimerInfo  # (annotations are strings here: rclpy's rule matches the name)

    def on_timer(info: TimerInfo = None):
        timer_infos.append(info)
    node.create_timer(0.01, on_timer)
    with spun(context, node) as executor:
        assert spin_until(executor, lambda: (pub.publish(Int32(data=3)), bool(infos))[1])
        assert infos[0][0] == 3 and infos[0][1]["source_timestamp"] > 0
        assert spin_until(executor, lambda: len(timer_infos) >= 2)
        if compat.TimerInfo is None:
            assert timer_infos[0] is None
        else:
            assert timer_infos[-1].actual_call_time >= timer_infos[-1].expected_call_time
