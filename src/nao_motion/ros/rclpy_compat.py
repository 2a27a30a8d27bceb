"""The private rclpy API nao_motion uses, all of it, with a path per distribution.

rclpy's public executors cannot run the suite within its CPU budget, or cannot run it at all
(README, "Running the suite": SingleThreadedExecutor rebuilds everything at each wake-up;
rclpy.experimental.EventsExecutor of Jazzy 7.1.6 and Kilted 9.1.2 runs callbacks whatever their
group says, fails on message-info callbacks and on services that await), so
``nao_motion.ros.executor.CycleExecutor`` waits on the entities itself, and the composed suite
shares one /clock reader among its nodes (``nao_motion.nodes.suite_node``). What that takes and
rclpy does not publish is here, nowhere else:

- a wait set (``_rclpy.WaitSet``: the same on Humble 3.3, Jazzy 7.1 and Kilted 9.1);
- taking a message, request or response from an entity's handle (the same on all three);
- calling a timer: Kilted's ``call_timer_with_info`` (the expected and actual call times, for a
  callback that asks for a ``TimerInfo``; ``TimerCancelledError`` when the timer was cancelled
  since the wait), else ``call_timer`` (Humble, Jazzy: rcl's error when cancelled);
- a node's time source and its /clock subscription (``Node._time_source``, ``_clock_sub``,
  ``_get_node``, ``_associated_clocks``: a list on Humble, a set on Jazzy and Kilted).

Paths are chosen by what the installed rclpy has, never by its version. Public names that
differ between distributions are here too, so that the rest of the code has one spelling.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy

try:  # Jazzy, Kilted
    from rclpy.event_handler import EventHandler  # noqa: F401 (for the executor)
except ImportError:  # Humble: the same handler, under its older name
    from rclpy.qos_event import QoSEventHandler as EventHandler  # noqa: F401

try:  # Kilted
    from rclpy.exceptions import TimerCancelledError
    from rclpy.timer import TimerInfo
except ImportError:  # Humble, Jazzy
    TimerCancelledError, TimerInfo = None, None

# The error a timer cancelled since the wait raises when called, on this distribution.
_TIMER_CANCELLED = (_rclpy.RCLError,) + ((TimerCancelledError,) if TimerCancelledError is not None else ())
HAS_TIMER_INFO = TimerInfo is not None and hasattr(_rclpy.Timer, "call_timer_with_info")


# --- wait sets and handles ------------------------------------------------------------------------
def new_wait_set(context, subscriptions: int = 0, guard_conditions: int = 0, timers: int = 0, clients: int = 0,
                 services: int = 0, events: int = 0):
    """An rcl wait set with room for so many entities of each kind (``add_*``, ``wait(ns)``,
    ``get_ready_entities(kind)`` -> the ready entities' handle pointers)."""
    return _rclpy.WaitSet(subscriptions, guard_conditions, timers, clients, services, events, context.handle)


def take_message(subscription) -> Optional[tuple]:
    """(message, message info dict), or None if none is waiting."""
    return subscription.handle.take_message(subscription.msg_type, subscription.raw)


def take_request(service) -> tuple:
    """(request, header); header None if none was waiting."""
    return service.handle.service_take_request(service.srv_type.Request)


def take_response(client) -> tuple:
    """(header, response); header None if none was waiting."""
    return client.handle.take_response(client.srv_type.Response)


def takes_message_info(callback: Callable) -> bool:
    """Whether a subscription callback takes the message info too: rclpy's own rule (Jazzy and
    Kilted's ``Subscription.CallbackType``: callable with two arguments and not with one). Humble
    has no such callbacks; served by CycleExecutor they get the info there as well."""
    signature = inspect.signature(callback)
    try:
        signature.bind(object())
        return False
    except TypeError:
        pass
    try:
        signature.bind(object(), object())
        return True
    except TypeError:
        return False


# --- timers ---------------------------------------------------------------------------------------
def call_timer_with_info(handle) -> Optional[dict]:
    """Kilted: the call's expected and actual times (ns), or None if cancelled since the wait."""
    try:
        return handle.call_timer_with_info()
    except _TIMER_CANCELLED:
        return None


def call_timer_without_info(handle) -> Optional[dict]:
    """Humble, Jazzy (and Kilted, which keeps call_timer): {}, or None if cancelled since the wait."""
    try:
        handle.call_timer()
    except _TIMER_CANCELLED:
        return None
    return {}


call_timer = call_timer_with_info if HAS_TIMER_INFO else call_timer_without_info


def timer_info_argument(callback: Optional[Callable]) -> Optional[str]:
    """The name of the callback's argument annotated ``TimerInfo`` (Kilted's rule), if any."""
    if callback is None or TimerInfo is None:
        return None
    return next((p.name for p in inspect.signature(callback).parameters.values()
                 if p.annotation is TimerInfo or p.annotation == "TimerInfo"), None)


def timer_info(info: dict, clock_type) -> Any:
    return TimerInfo(expected_call_time=info["expected_call_time"], actual_call_time=info["actual_call_time"],
                     clock_type=clock_type)


# --- time sources ---------------------------------------------------------------------------------
def time_source_of(node):
    return node._time_source


def forget_clock(clocks, clock) -> None:
    """Take a clock out of a time source's associated clocks: a set (Jazzy, Kilted) or a list (Humble)."""
    if isinstance(clocks, (set, frozenset)):
        clocks.discard(clock)
    elif clock in clocks:
        clocks.remove(clock)


def share_time_source(nodes: list) -> None:
    """The first node's time source drives every node's clock; the others' are detached (their
    /clock subscriptions destroyed)."""
    shared = time_source_of(nodes[0])
    for node in nodes[1:]:
        clock = node.get_clock()
        own = time_source_of(node)
        forget_clock(own._associated_clocks, clock)
        own.detach_node()
        shared.attach_clock(clock)


def clock_subscription(time_source):
    """The time source's /clock subscription (None without sim time)."""
    return time_source._clock_sub


def time_source_node(time_source):
    """The node the time source is attached to (None if detached)."""
    return time_source._get_node()


def set_clock_subscription(time_source, subscription) -> None:
    """The subscription the time source takes for its own: destroyed when use_sim_time goes off."""
    time_source._clock_sub = subscription
