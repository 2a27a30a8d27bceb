"""Small pieces every nao_motion node uses: throttled logging, cycle statistics and
diagnostics, validated parameters, and the TF publishing back-end.
"""

from __future__ import annotations

import faulthandler
import math
import os
import signal
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Callable

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node

from ..processes import STACK_DUMP_SIGNAL
from .parameters import ParameterSpec, refusal_of
from .qos import TF_QOS, TF_STATIC_QOS


# Lines a family of keys (one topic's refusals, each reason its own key) logs per period at most:
# a flood of input that is bad each time differently must not flood the log.
FAMILY_LINES = 5
THROTTLE_KEYS = 200  # keys remembered; beyond, the oldest are forgotten (bounded memory)
DIAGNOSTICS_PERIOD_S = 1.0
# A followed node's own timer speaks when the cycles that publish it have stopped this long.
FOLLOWED_SILENCE_S = 2.0


def throttled_warning(node: Node, key: str, message: str, period_s: float = 2.0, family: str | None = None) -> None:
    """Log `message` at most once per `period_s` per `key` (bad input can arrive at 100 Hz), and
    at most FAMILY_LINES per `period_s` per `family` when given."""
    last = node.__dict__.setdefault("_nao_throttle", {})
    now = time.monotonic()
    if now - last.get(key, -np.inf) < period_s:
        return
    if family is not None:
        window = node.__dict__.setdefault("_nao_throttle_families", {}).setdefault(family, deque())
        while window and now - window[0] >= period_s:
            window.popleft()
        if len(window) >= FAMILY_LINES:
            return
        window.append(now)
    if len(last) >= THROTTLE_KEYS:
        for old in sorted(last, key=last.get)[:THROTTLE_KEYS // 2]:
            del last[old]
    last[key] = now
    node.get_logger().warning(message)


def merge_joint_state(node: Node, topic: str, reader, data: bytes, values: np.ndarray, received: np.ndarray,
                      diagnostics: "CycleDiagnostics | None" = None):
    """Write a serialized JointState's positions into `values` (model joint order) and mark them
    `received` (``nao_motion.ros.cdr.JointStateReader``); names that are not NAO joints are
    ignored; a malformed or implausible message is dropped whole with a throttled warning (and
    reported on `diagnostics`). Returns the message's stamp (builtin_interfaces/Time), or None
    when it was dropped."""
    from ..joint_input import JointInputError

    try:
        return reader.merge(data, values, received)
    except JointInputError as err:
        throttled_warning(node, topic, f"{topic} message dropped: {err}")
        if diagnostics is not None:
            diagnostics.refused(topic, str(err))
        return None


class ClockWatch:
    """Notices the cycle's clock going back (a simulator's reset_simulation, a bag replayed from its
    start): every time a node keeps (a stamp, a deadline, a last publication) is then in the
    future, and the node must start its cycle state afresh instead of waiting for the clock to
    catch up. ``went_back(now_s)`` says so (and logs it) once per jump."""

    def __init__(self, node: Node, what: str):
        self._node, self._what = node, what
        self.last_s = -np.inf

    def went_back(self, now_s: float) -> bool:
        back = now_s < self.last_s
        if back:
            # (throttled: stamps from two clocks mixed on one topic would jump at every message)
            throttled_warning(self._node, "clock went back", f"the clock went back from {self.last_s:.3f} s to "
                                                             f"{now_s:.3f} s: {self._what}", 1.0)
        self.last_s = now_s
        return back


@dataclass
class CycleDiagnostics:
    """Cycle-time statistics of one node, published on /diagnostics about once per second.

    ``fill``, if given, is called just before each publication to bring ``values`` and the
    status up to date: a node formats its figures once a second, not at every cycle.

    On its own timer, or ``followed``: the process publishes it after a robot cycle
    (``publish_most_overdue``), and the timer only speaks for a node whose cycles stopped."""

    node: Node
    name: str
    period_s: float
    fill: Callable[[], None] | None = None
    window: int = 500
    durations_s: deque = field(default_factory=lambda: deque(maxlen=500))
    values: dict = field(default_factory=dict)
    level: bytes = DiagnosticStatus.OK
    message: str = "ok"
    busy_s: float = 0.0  # all recorded cycles' wall time since start: a share of a core over a window
    # ... and their CPU time (the thread's): what the node costs the machine, without the time it
    # waited preempted while another process ran (a node's CPU share in a composed process)
    busy_cpu_s: float = 0.0
    holding: str = "the robot keeps its last command"  # what the node does with refused input
    refusals: int = 0  # inputs refused since start
    last_refusal: str = ""  # since the last publication

    def __post_init__(self):
        self._pub = self.node.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.followed = False
        self.published_s = -math.inf  # time.monotonic() of the last publication
        # Its own timer: a node that stops cycling (stale input) still reports why.
        self.node.create_timer(DIAGNOSTICS_PERIOD_S, self._on_timer)

    def _on_timer(self) -> None:
        if not self.followed or time.monotonic() - self.published_s >= FOLLOWED_SILENCE_S:
            self.publish()

    @staticmethod
    def start() -> tuple[float, float]:
        """A cycle's start, for :meth:`record`: (wall, thread CPU) clocks."""
        return time.perf_counter(), time.thread_time()

    def record(self, start: tuple[float, float]) -> None:
        """The cycle begun at ``start`` (:meth:`start`) ends now."""
        duration_s = time.perf_counter() - start[0]
        self.durations_s.append(duration_s)
        self.busy_s += duration_s
        self.busy_cpu_s += time.thread_time() - start[1]

    def set_status(self, level: bytes, message: str) -> None:
        self.level, self.message = level, message

    def refused(self, what: str, reason: str) -> None:
        """An input refused (malformed, implausible): the next publication says so, WARN at least,
        with what the node does meanwhile (``holding``)."""
        self.refusals += 1
        self.last_refusal = f"{what} refused ({reason[:200]})"

    def publish(self) -> None:
        if self.fill is not None:
            self.fill()
        d = np.asarray(self.durations_s) * 1e3 if self.durations_s else np.zeros(1)
        level, message = self.level, self.message
        if self.refusals:
            self.values["refused_inputs"] = self.refusals
            if self.last_refusal:
                if level == DiagnosticStatus.OK:
                    level = DiagnosticStatus.WARN
                message = f"{self.last_refusal}: {self.holding}; {message}"
                self.last_refusal = ""
        status = DiagnosticStatus(level=level, name=f"nao_motion: {self.name}", message=message,
                                  hardware_id="nao")
        stats = {
            "cycle_period_ms": f"{self.period_s * 1e3:.1f}",
            "cycle_time_median_ms": f"{np.median(d):.3f}",
            "cycle_time_p99_ms": f"{np.percentile(d, 99):.3f}",
            "cycle_time_max_ms": f"{d.max():.3f}",
            "overruns": str(int(np.sum(d > self.period_s * 1e3))),
            "busy_s": f"{self.busy_s:.4f}",
            "busy_cpu_s": f"{self.busy_cpu_s:.4f}",
        }
        stats.update({k: str(v) for k, v in self.values.items()})
        status.values = [KeyValue(key=k, value=v) for k, v in stats.items()]
        msg = DiagnosticArray()
        msg.header.stamp = self.node.get_clock().now().to_msg()
        msg.status = [status]
        self._pub.publish(msg)
        self.published_s = time.monotonic()


_LAST_PUBLICATION = attrgetter("published_s")  # publish_most_overdue's key: made once, it runs every cycle


def publish_most_overdue(diagnostics: list[CycleDiagnostics]) -> None:
    """After a robot cycle, the one publication most overdue (a period or more since its last),
    if any. The composed nodes' reports, each about once a second, then come after different
    cycles: on their own timers they all fell due in one wake-up, and the five publications
    (4-5 ms) ran before the joint_states that arrived meanwhile, whose answer then came too late
    (about a third of the missed cycles no vCPU halt explained, traced in the composed suite)."""
    due = min(diagnostics, key=_LAST_PUBLICATION, default=None)
    if due is not None and time.monotonic() - due.published_s >= DIAGNOSTICS_PERIOD_S:
        due.publish()


class ValidatedParameters:
    """Declares parameters from their specs (``nao_motion.ros.parameters``) and refuses a change
    unless each value passes its spec and the whole new set passes `validate`.

    `validate(values) -> str | None` (optional) returns the reason for refusing a combination, and
    `apply(values)` is called only after every parameter of a request passed, so nothing is
    half-applied. Start-up specs are declared read-only: ROS refuses their change at run time.
    """

    def __init__(self, node: Node, specs: dict[str, ParameterSpec],
                 validate: Callable[[dict], str | None] | None, apply: Callable[[dict], None]):
        self._node, self._specs, self._apply = node, specs, apply
        self._validate = validate or (lambda values: None)
        for name, spec in specs.items():
            node.declare_parameter(name, spec.default, spec.descriptor())
        self.values = {name: node.get_parameter(name).value for name in specs}
        reason = self.refusal(dict(self.values))
        if reason:
            raise ValueError(f"invalid start-up parameters: {reason}")
        apply(dict(self.values))
        node.add_on_set_parameters_callback(self._on_set)

    def refusal(self, values: dict) -> str | None:
        return refusal_of(self._specs, values) or self._validate(values)

    def _on_set(self, params) -> SetParametersResult:
        candidate = dict(self.values)
        for p in params:
            if p.name in candidate:  # (start-up ones are read-only: ROS refuses them before asking)
                candidate[p.name] = p.value
        reason = self.refusal(candidate)
        if reason:
            throttled_warning(self._node, "parameters", f"parameter change refused: {reason}", 1.0)
            return SetParametersResult(successful=False, reason=reason)
        self.values = candidate
        self._apply(dict(candidate))
        return SetParametersResult(successful=True)


class TfPublisher:
    """Publishes /tf and /tf_static (tf2_msgs/TFMessage with tf2's QoS, as tf2_ros's broadcasters
    do: tf2 listeners and rviz see the same stream).

    A node that sends the same frames every cycle prepares them once with ``image`` and publishes
    the image refilled (``nao_motion.ros.cdr``): the per-cycle cost does not grow with Python
    message conversion."""

    def __init__(self, node: Node):
        from tf2_msgs.msg import TFMessage

        self._message_type = TFMessage
        self._pub = node.create_publisher(TFMessage, "/tf", TF_QOS)
        self._pub_static = node.create_publisher(TFMessage, "/tf_static", TF_STATIC_QOS)

    def image(self, transforms: list) -> "TransformsImage":
        return TransformsImage(self._message_type(transforms=list(transforms)))

    def send(self, image: "TransformsImage") -> None:
        image.publish(self._pub)

    def send_static(self, transforms) -> None:
        self._pub_static.publish(self._message_type(transforms=list(transforms)))


class TransformsImage:
    """A TFMessage's frames fixed, its numbers refilled: ``values`` holds one row per transform,
    translation (m) then rotation quaternion x, y, z, w; ``publish`` stamps nothing itself."""

    def __init__(self, message):
        from .cdr import MessageImage

        n = len(message.transforms)
        paths = []
        for i in range(n):
            paths += [f"transforms[{i}].transform.translation.{a}" for a in "xyz"]
            paths += [f"transforms[{i}].transform.rotation.{a}" for a in "xyzw"]
        self._image = MessageImage(message, paths, [f"transforms[{i}].header.stamp" for i in range(n)])
        self.values = np.zeros((n, 7))
        self.values[:, 6] = 1.0

    def set_stamp(self, stamp) -> None:
        self._image.set_stamp(stamp.sec, stamp.nanosec)

    def publish(self, publisher) -> None:
        self._image.set_floats(self.values.ravel())
        self._image.publish(publisher)


# The motion cycle's processes ask for real-time scheduling, as ros2_control's controller
# manager does (same parameter name and default): on a machine that is busy with something
# else (vision, a build, a load process), a cycle that waits for a time slice misses the robot's
# next cycle. 0: normal scheduling.
THREAD_PRIORITY = "thread_priority"
DEFAULT_CYCLE_THREAD_PRIORITY = 50
THREAD_PRIORITY_DESCRIPTION = ("SCHED_FIFO priority of the node's process (1-99; 0: normal scheduling); "
                               "needs CAP_SYS_NICE or an rtprio limit, else a warning and normal scheduling")


def declare_thread_priority(node: Node, default: int = DEFAULT_CYCLE_THREAD_PRIORITY) -> None:
    node.declare_parameter(THREAD_PRIORITY, default,
                           ParameterDescriptor(read_only=True, description=THREAD_PRIORITY_DESCRIPTION))


def apply_thread_priority(nodes: list[Node]) -> None:
    """Real-time scheduling (SCHED_FIFO) for every thread of this process, at the highest
    ``thread_priority`` its nodes ask for; threads made later inherit it. Refused (out of range,
    or no permission): a warning, and the process runs with normal scheduling."""
    asking = [(node.get_parameter(THREAD_PRIORITY).value, node) for node in nodes if node.has_parameter(THREAD_PRIORITY)]
    if not asking:
        return
    priority, node = max(asking, key=lambda pair: pair[0] if isinstance(pair[0], int) else -1)
    logger = node.get_logger()
    bad = [value for value, _ in asking if not (isinstance(value, int) and 0 <= value <= 99)]
    if bad:
        logger.warning(f"{THREAD_PRIORITY} must be an integer in 0..99, got {bad}: normal scheduling")
        return
    if priority == 0:
        return
    try:
        for tid in os.listdir("/proc/self/task"):
            os.sched_setscheduler(int(tid), os.SCHED_FIFO, os.sched_param(priority))
    except (PermissionError, OSError) as err:
        logger.warning(f"{THREAD_PRIORITY} {priority} refused ({err.strerror or err}): normal scheduling; "
                       "the motion cycle may miss the robot's when the machine is busy (grant CAP_SYS_NICE "
                       "or an rtprio limit, e.g. '@realtime - rtprio 99' in /etc/security/limits.conf)")
        return
    logger.info(f"real-time scheduling: SCHED_FIFO priority {priority}")


INTERRUPTED_TAKE = "Unable to convert call argument"
TEARDOWN_TIMEOUT_S = 4  # whole seconds (signal.alarm); within NodeProcess.stop's first wait


def run_node(node_class: type[Node], args=None) -> None:
    """Entry point shared by the nodes: init, spin until Ctrl-C or shutdown, clean up."""
    run_nodes([node_class], args, wind_down=hasattr(node_class, "wind_down"))


@contextmanager
def recorded_stop_signals() -> Iterator[list[int]]:
    """Ctrl-C (SIGINT) and SIGTERM appended to the list it yields, not raised, while in the block: a
    loop of bounded waits checks it (Python runs the handlers between waits). Raised as
    KeyboardInterrupt, a Ctrl-C that lands while rclpy converts a message it takes surfaces as
    pybind11's conversion error instead (``INTERRUPTED_TAKE``). rclpy's own handler must be off
    (``SignalHandlerOptions.NO``): it would end the context first."""
    signals: list[int] = []
    handlers = {s: signal.signal(s, lambda signum, frame: signals.append(signum)) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield signals
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)


def _spin_winding_down(executor, nodes: list[Node]) -> None:
    """Spin; the first Ctrl-C or SIGTERM winds the nodes down, the second stops (run_nodes)."""
    winding = [node for node in nodes if hasattr(node, "wind_down")]
    with recorded_stop_signals() as signals:
        asked = False
        while len(signals) < 2:
            if signals and not asked:
                asked = True
                for node in winding:
                    node.wind_down()
            if asked and all(node.wound_down for node in winding):
                return
            executor.spin_once(timeout_sec=0.05)  # a signal is seen within 50 ms


def drop_publisher_events(node: Node) -> None:
    """Take the publishers' QoS event handlers out of the executor's wait set.

    rclpy gives every publisher and subscription a default "incompatible QoS" handler, and the
    executor puts every handler in the wait set it rebuilds at each wake-up: in the suite that was
    about a tenth of a core at 100 Hz. A subscriber reports an incompatible publisher itself
    (ours keep their handlers; rviz and other tools theirs), so the publisher side's report only
    repeats it."""
    from .sampled import NeverExecuted

    never = NeverExecuted()
    for publisher in node.publishers:
        for handler in publisher.event_handlers:
            handler.callback_group = never


def run_nodes(makers: list[Callable[[], Node]], args=None,
              prepare: Callable[[list[Node]], None] | None = None, wind_down: bool = False) -> None:
    """Init, make the nodes, spin them in one executor until Ctrl-C or shutdown, clean up.

    One node per process is the usual ROS 2 way; several nodes in one process share an executor
    (``nao_motion.nodes.suite_node``), served in the order they are made. ``prepare(nodes)``, if
    given, runs once all the nodes exist, before they spin. ``wind_down``: the first Ctrl-C (or
    SIGTERM) calls ``wind_down()`` of the nodes that have one, and spinning goes on until their
    ``wound_down`` is true (a robot adapter sends its sit-down); a second one stops at once.
    """
    import rclpy
    from rclpy.executors import ExternalShutdownException
    from rclpy.signals import SignalHandlerOptions

    from .executor import CycleExecutor

    # `kill -USR1 <pid>` prints every thread's stack, even when the main thread is stuck in C:
    # how a node that hangs (at shutdown, in DDS) tells where.
    faulthandler.register(STACK_DUMP_SIGNAL, all_threads=True)
    # Winding down, the context must outlive the first Ctrl-C, which rclpy's handler would end.
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO if wind_down else None)
    nodes = []
    try:
        executor = CycleExecutor()
        for make in makers:
            nodes.append(make())
            drop_publisher_events(nodes[-1])
            executor.add_node(nodes[-1])
        if prepare is not None:
            prepare(nodes)
        apply_thread_priority(nodes)
        executor.collect_garbage_when_idle()
        if wind_down:
            _spin_winding_down(executor, nodes)
        else:
            executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception as err:
        # Ctrl-C shuts the context down while a callback may still be publishing: that
        # callback's "context is invalid" error is part of a clean stop. A Ctrl-C that lands
        # while rclpy converts a message it takes surfaces as pybind11's conversion error, its
        # KeyboardInterrupt swallowed: a clean stop too. Anything else is not.
        if rclpy.ok() and not str(err).startswith(INTERRUPTED_TAKE):
            raise
    finally:
        # The rmw's teardown now and then hangs in C, deaf to Ctrl-C (seen with Fast DDS, in
        # destroy_node). Bounded: the stacks go to stderr, then SIGALRM's default action ends
        # the process (exit code TEARDOWN_CUT_SHORT). Both act from C.
        faulthandler.dump_traceback_later(TEARDOWN_TIMEOUT_S - 0.5)
        signal.alarm(TEARDOWN_TIMEOUT_S)
        try:
            for node in nodes:
                node.destroy_node()
            if rclpy.ok():
                rclpy.shutdown()
        finally:
            signal.alarm(0)
            faulthandler.cancel_dump_traceback_later()
