"""CycleClock, the node's time as the ALMotion client reads it from the stamps of its commands,
fed by hand (no DDS): the waits end on the stamps, not on the number of messages."""

import threading
import time

import pytest

pytest.importorskip("rclpy")

from builtin_interfaces.msg import Time  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from nao_motion.almotion.client_base import ALMotionError  # noqa: E402
from nao_motion.almotion.cycle_clock import CycleClock  # noqa: E402


class FakeNode:
    def create_subscription(self, msg_type, topic, callback, qos):
        self.callback = callback


def stamped(stamp_s: float) -> JointState:
    msg, sec = JointState(), int(stamp_s)
    msg.header.stamp = Time(sec=sec, nanosec=int(round((stamp_s - sec) * 1e9)))
    return msg


@pytest.fixture
def clock_and_feed():
    node = FakeNode()
    return CycleClock(node, JointState, "joint_commands"), node.callback


def later(send, *stamps_s: float) -> None:
    """Send messages stamped `stamps_s` from another thread, 50 ms apart."""
    def run():
        for stamp_s in stamps_s:
            time.sleep(0.05)
            send(stamped(stamp_s))
    threading.Thread(target=run, daemon=True).start()


def test_the_duration_is_read_in_the_stamps_however_few_messages_come(clock_and_feed):
    clock, send = clock_and_feed
    send(stamped(10.0))
    start = clock.latest()
    # Two messages for a second: a resting publisher; counted as 10 ms cycles they were 2 of 100.
    later(send, 10.5, 11.0)
    tick = clock.wait_elapsed(start, 1.0, 5.0, "collision filter")
    assert tick.stamp_s == pytest.approx(11.0) and tick.gap_s == pytest.approx(0.5)
    assert clock.wait_elapsed(start, 0.5, 5.0, "collision filter") is tick  # already past: at once


def test_without_a_message_yet_the_first_one_starts_the_duration(clock_and_feed):
    clock, send = clock_and_feed
    later(send, *(3.0 + 0.2 * i for i in range(8)))
    assert clock.wait_elapsed(None, 0.3, 5.0, "collision filter").stamp_s >= 3.3


def test_a_clock_that_goes_back_ends_the_wait(clock_and_feed):
    clock, send = clock_and_feed
    send(stamped(50.0))
    start = clock.latest()
    later(send, 0.01)  # a simulator reset: the time waited for will not come on this clock
    tick = clock.wait_elapsed(start, 1.0, 5.0, "whole body node")
    assert tick.restarts == start.restarts + 1 and tick.gap_s < 0.0


def test_wait_next_and_the_timeouts_name_the_publisher(clock_and_feed):
    clock, send = clock_and_feed
    with pytest.raises(ALMotionError, match=r"no joint_commands for 0.1 s: is the collision filter running\?"):
        clock.wait_elapsed(None, 0.0, 0.1, "collision filter")
    send(stamped(1.0))
    first = clock.latest()
    later(send, 1.01)
    assert clock.wait_next(first, 5.0, "collision filter").stamp_s == pytest.approx(1.01)
    with pytest.raises(ALMotionError, match=r"no joint_commands for 0.1 s: is the whole body node running\?"):
        clock.wait_next(clock.latest(), 0.1, "whole body node")
    send(stamped(1.02))
    with pytest.raises(ALMotionError, match=r"joint_commands: none stamped 2.000 s or later within 0.1 s \(the "
                                            r"last 1.020 s\): is the whole body node's clock \(sim time\) "
                                            r"running slow\?"):
        clock.wait_elapsed(first, 1.0, 0.1, "whole body node")
