"""nao_motion.ros.rclpy_compat: each distribution's path, run where this machine can run it.

Runs here: the wait set, takes and the time-source paths (one path on Humble, Jazzy and Kilted),
the timer call without info (Humble's and Jazzy's; Kilted keeps it, so it runs on Kilted too),
the timer call with info (Kilted only: skipped on Jazzy), forgetting a clock in a list (Humble's
time source) and in a set (Jazzy's, Kilted's). Read only, not run: the import of Humble's
``rclpy.qos_event.QoSEventHandler`` (Jazzy's qos_event module re-exports EventHandler, so the
import path is taken only where ``rclpy.event_handler`` does not exist).

Real rclpy over real DDS (loopback, the test's own domain), nodes in this process."""

from __future__ import annotations

import time

import pytest

rclpy = pytest.importorskip("rclpy")

from rclpy.clock import Clock, ClockType  # noqa: E402
from rclpy.node import Node  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rosgraph_msgs.msg import Clock as ClockMsg  # noqa: E402
from std_msgs.msg import Int32  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

from nao_motion.ros import rclpy_compat as compat  # noqa: E402


def wait_ready(context, kind: str, add, timeout_s: float = 5.0) -> list:
    """The ready entities' pointers of one kind, waiting until there are some."""
    wait_set = compat.new_wait_set(context, **{f"{kind}s": 1})
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        wait_set.clear_entities()
        add(wait_set)
        wait_set.wait(int(0.1 * 1e9))
        ready = wait_set.get_ready_entities(kind)
        if ready:
            return ready
    return []


def test_a_wait_set_wakes_for_a_message_which_is_then_taken_with_its_info(context):
    node = Node("compat_take", context=context)
    try:
        sub = node.create_subscription(Int32, "compat_numbers", lambda msg: None, 10)
        pub = node.create_publisher(Int32, "compat_numbers", 10)
        assert compat.take_message(sub) is None
        pub.publish(Int32(data=7))
        assert wait_ready(context, "subscription", lambda ws: ws.add_subscription(sub.handle)) == [sub.handle.pointer]
        message, info = compat.take_message(sub)
        assert message.data == 7 and info["source_timestamp"] > 0
        assert compat.take_message(sub) is None
    finally:
        node.destroy_node()


def test_a_request_and_its_response_are_taken(context):
    server, client_node = Node("compat_server", context=context), Node("compat_client", context=context)
    try:
        service = server.create_service(Trigger, "compat_trigger", lambda request, response: response)
        client = client_node.create_client(Trigger, "compat_trigger")
        assert client.wait_for_service(timeout_sec=5.0)
        future = client.call_async(Trigger.Request())
        assert wait_ready(context, "service", lambda ws: ws.add_service(service.handle))
        request, header = compat.take_request(service)
        assert isinstance(request, Trigger.Request) and header is not None
        service.send_response(Trigger.Response(success=True, message="taken"), header)
        assert wait_ready(context, "client", lambda ws: ws.add_client(client.handle))
        header, response = compat.take_response(client)
        assert header is not None and response.message == "taken"
        assert not future.done()  # the executor completes it, from the response it took
    finally:
        server.destroy_node()
        client_node.destroy_node()


def test_callbacks_that_take_the_message_info_are_told_apart():
    def message_only(msg): ...

    def with_info(msg, info): ...

    def defaulted(msg, info=None): ...

    assert not compat.takes_message_info(message_only)
    assert compat.takes_message_info(with_info)
    assert not compat.takes_message_info(defaulted)  # callable with one: rclpy gives it the message only
    assert compat.takes_message_info(lambda *args: None) is False


@pytest.mark.parametrize("path", ["without_info", "with_info"])
def test_a_due_timer_is_called_and_a_cancelled_one_is_not(context, path):
    if path == "with_info" and not compat.HAS_TIMER_INFO:
        pytest.skip("call_timer_with_info is Kilted's (rclpy 9); this rclpy has call_timer only")
    call = compat.call_timer_with_info if path == "with_info" else compat.call_timer_without_info
    node = Node(f"compat_timer_{path}", context=context)
    try:
        timer = node.create_timer(0.01, lambda: None)
        assert wait_ready(context, "timer", lambda ws: ws.add_timer(timer.handle))
        info = call(timer.handle)
        assert info is not None
        if path == "with_info":
            assert info["actual_call_time"] >= info["expected_call_time"] > 0
            assert compat.timer_info(info, ClockType.ROS_TIME).expected_call_time.nanoseconds > 0
        timer.cancel()
        assert call(timer.handle) is None  # cancelled since the wait: not called, no error
    finally:
        node.destroy_node()


def test_a_timer_callback_asking_for_timer_info_is_found_where_timer_info_exists():
    def plain(): ...

    TimerInfo = compat.TimerInfo  # (annotations are strings here: rclpy's rule matches the name)

    def asking(info: TimerInfo): ...

    assert compat.timer_info_argument(plain) is None
    assert compat.timer_info_argument(None) is None
    assert compat.timer_info_argument(asking) == ("info" if compat.TimerInfo is not None else None)


@pytest.mark.parametrize("clocks", [list, set], ids=["humble_list", "jazzy_kilted_set"])
def test_a_clock_is_forgotten_by_either_kind_of_time_source(clocks):
    first, second = Clock(clock_type=ClockType.ROS_TIME), Clock(clock_type=ClockType.ROS_TIME)
    associated = clocks([first, second])
    compat.forget_clock(associated, first)
    compat.forget_clock(associated, first)  # already gone: nothing to do
    assert list(associated) == [second]


def test_nodes_share_one_time_source_and_its_clock_subscription_can_be_replaced(context):
    sim = [Parameter("use_sim_time", value=True)]
    first = Node("compat_time_first", context=context, parameter_overrides=sim)
    second = Node("compat_time_second", context=context, parameter_overrides=sim)
    try:
        source = compat.time_source_of(first)
        own = compat.clock_subscription(source)
        assert own is not None and compat.time_source_node(source) is first
        assert compat.clock_subscription(compat.time_source_of(second)) is not None
        compat.share_time_source([first, second])
        assert compat.clock_subscription(compat.time_source_of(second)) is None  # detached
        source.clock_callback(ClockMsg(clock=rclpy.time.Time(seconds=42).to_msg()))
        assert second.get_clock().now().nanoseconds == first.get_clock().now().nanoseconds == 42 * 10**9
        replacement = first.create_subscription(ClockMsg, "/clock", lambda msg: None, 1)
        first.destroy_subscription(own)
        compat.set_clock_subscription(source, replacement)
        assert compat.clock_subscription(source) is replacement
        first.set_parameters([Parameter("use_sim_time", value=False)])  # the time source lets it go
        assert compat.clock_subscription(source) is None and replacement not in list(first.subscriptions)
    finally:
        first.destroy_node()
        second.destroy_node()


def test_the_qos_event_handler_type_is_the_one_rclpy_gives_subscriptions(context):
    node = Node("compat_events", context=context)
    try:
        sub = node.create_subscription(Int32, "compat_events", lambda msg: None, 10)
        assert sub.event_handlers and all(isinstance(h, compat.EventHandler) for h in sub.event_handlers)
    finally:
        node.destroy_node()
