"""A single-threaded executor whose wait set is made once, for nodes that wake 100 times a second.

rclpy's ``SingleThreadedExecutor`` rebuilds everything at every wake-up: it walks every node's
entities through their callback groups, enters each handle in a context stack, allocates a new
wait set, and wraps each ready callback in a coroutine, a handler and a ``Task``. With the suite's
nodes at the motion cycle rate that was about a third of the composed process's CPU, more than
the motion cycle's own work (py-spy, issue 10).

``CycleExecutor`` makes the plan of what it waits on once: the entities, their handles (held
entered, so another thread cannot destroy one under the wait), the wait set, and for each entity
the call that serves it. The plan is remade only when the executor's own guard condition fires,
which ``wake()`` triggers: rclpy calls it whenever a node gains or loses an entity, and when the
context shuts down; adding or removing a node and a new task do too. A wake-up refills the wait
set, waits, and calls each ready callback directly. Coroutine callbacks and other waitables (a
service that awaits, an action) go through rclpy's ``Task`` as usual, kept by this executor.
What it needs of rclpy that rclpy does not publish (the wait set, taking from an entity's handle,
calling a timer) is in ``nao_motion.ros.rclpy_compat``, a path per distribution; the rest is
public rclpy API.

Why not rclpy's own: measured with the composed suite (``bench_suite.py``, README "Running the
suite"), its ``SingleThreadedExecutor`` (the only public one on Humble) costs 1.6-1.8 times as
much as this one standing, at or beyond the suite's CPU budget; ``rclpy.experimental.
EventsExecutor`` (Jazzy and Kilted) is no better than this one (within the noise, or worse),
and cannot run the suite as the wheels have it (Jazzy 7.1.6, Kilted 9.1.2): a subscription
callback that takes the message info ends the process (SystemError), callback groups are not
honoured (every sampled subscription is executed), and on Jazzy a service that awaits (the
walk's moveInit) ends it too (its coroutine is sent as the response) and ``spin_once()``
without a timeout never returns (it spins half a core, deaf to SIGTERM).

QoS event handlers (one per subscription, reporting an incompatible publisher) are polled in a
wait set of their own about once a second instead of at every wake-up: such a report is a
configuration problem that does not need the motion cycle's latency. Likewise the services every
rclpy node makes for ROS itself (its six parameter services and get_type_description: 35 of the
composed suite's 45 services, 35 of the 82 entities a wake-up entered) are polled after a
wake-up's work once SERVICE_POLL_PERIOD_S has passed since the last poll, and the executor wakes
for them itself when nothing else woke it for another period: ``ros2 param`` is answered within
50 ms while the robot's cycles run and within 100 ms when nothing else happens. The nodes' own
services stay in the wake-up.

A cancelled timer is not waited on (from the wake-up after its cancel to the one after its reset):
rcl wakes a wait set at every forward jump of a timer's clock once the timer's next call is
due, and a cancelled timer's stays due, so with sim time each /clock woke the process once more
for nothing (the footstep planner's cycle timer, cancelled while it has nothing to plan; in the
composed suite, which reads /clock with the joint_states: 80 of 215 wake-ups a second standing).

Served in a fixed order, which rclpy's set of nodes does not give: subscriptions, then timers,
services, clients; within each kind, the nodes in the order they were added. A process that runs
several nodes adds first the one whose answer is most urgent (the suite: the whole body, which
answers the robot's joint_states with its command), so it is served first when a message that
several of them take arrives.

Garbage collection between wake-ups (``collect_garbage_when_idle``, which the node processes
use): Python's collector otherwise runs whenever allocations cross its threshold, inside whatever
callback is running; measured in the suite's processes over 45 s, collections of 3-13 ms (young
generations) and 25-48 ms (a full one) came in the middle of a motion cycle, one cycle's command
late or the simulator's tick late. Here the objects made at start-up are frozen out of the
collector's work, automatic collection is off, and the executor collects the young generations
itself, with the interpreter's own thresholds, after it has served a wake-up: when the cycle's
command is out and the process would only wait.

Semantics kept from rclpy: every ready entity is served once per wake-up; a
callback's exception ends ``spin`` (the node's process fails, as with rclpy's executors);
``ExternalShutdownException`` when the context is shut down; entities in a callback group that
refuses them (``nao_motion.ros.sampled.NeverExecuted``) are not waited on. Not kept: callback
groups do not order anything (one thread runs everything; nothing runs concurrently).
"""

from __future__ import annotations

import gc
import inspect
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Optional, Union

from rclpy.exceptions import InvalidHandle
from rclpy.executors import Executor, ExternalShutdownException, TimeoutObject
from rclpy.guard_condition import GuardCondition
from rclpy.subscription import Subscription
from rclpy.task import Future, Task

from . import rclpy_compat as compat

# How often the QoS event handlers and ROS's own services are looked at (see the module docstring).
EVENT_POLL_PERIOD_S = 1.0
SERVICE_POLL_PERIOD_S = 0.05
# The services rclpy makes in every node (parameters, type description), by their types' packages.
POLLED_SERVICE_PACKAGES = frozenset({"rcl_interfaces", "type_description_interfaces"})

Timeout = Union[float, TimeoutObject, None]


@dataclass
class _WaitPlan:
    """What one wake-up waits on and how each ready entity is served, made once per change."""

    stack: ExitStack
    wait_set: Any
    subscriptions: list = field(default_factory=list)  # handles, in wait-set order
    timers: list = field(default_factory=list)  # the Timer entities (their handles are waited on)
    clients: list = field(default_factory=list)
    services: list = field(default_factory=list)
    guards: list = field(default_factory=list)
    waitables: list = field(default_factory=list)
    serve: dict = field(default_factory=dict)  # (kind, handle pointer) -> callable
    events: list = field(default_factory=list)  # QoS event handlers, polled
    event_wait_set: Any = None
    polled_services: list = field(default_factory=list)  # ROS's own services' handles, polled
    service_wait_set: Any = None


def _is_ros_own_service(service) -> bool:
    """Whether rclpy made this service for ROS itself (parameters, type description), not the node."""
    return service.srv_type.__module__.split(".", 1)[0] in POLLED_SERVICE_PACKAGES


def _live_and_running(timer) -> bool:
    """Not cancelled, and not destroyed since the plan was made (a node's callback may destroy a
    timer: its destruction waits for the plan's hold on the handle, but rclpy's public calls
    already refuse it; the destruction triggers the executor's guard, and the plan is remade)."""
    try:
        return not timer.is_canceled()
    except InvalidHandle:
        return False


class CycleExecutor(Executor):
    """Single-threaded; the wait set is made once and refilled (see the module docstring)."""

    def __init__(self, *, context=None) -> None:
        super().__init__(context=context)
        # Its own wake-up call (entities, nodes or tasks changed; the context shut down: rclpy
        # calls wake() for each), and its own tasks: rclpy's executor keeps both private.
        self._wake_guard: Optional[GuardCondition] = GuardCondition(None, None, context=self.context)
        self._tasks_in_progress: list[Task] = []
        self._tasks_guard = threading.Lock()
        self._stopped = False
        self._plan: Optional[_WaitPlan] = None
        self._next_event_poll_s = self._next_service_poll_s = 0.0
        self._node_order: list = []  # the order nodes were added in: the order they are served in
        # Held while a wake-up uses the plan: shutdown() from another thread waits for it before
        # it lets the handles go (re-entrant: a callback may shut its executor down).
        self._plan_lock = threading.RLock()
        self._gc_thresholds: Optional[tuple[int, int, int]] = None  # set: collected when idle

    def collect_garbage_when_idle(self) -> None:
        """From now on the process's garbage is collected after each wake-up (see the module
        docstring); what exists now is frozen (never collected: the start-up's objects)."""
        gc.collect()
        gc.freeze()
        self._gc_thresholds = gc.get_threshold()
        gc.disable()

    def add_node(self, node) -> bool:
        added = super().add_node(node)
        if added:
            self._node_order.append(node)
            self.wake()
        return added

    def remove_node(self, node) -> None:
        super().remove_node(node)
        if node in self._node_order:
            self._node_order.remove(node)
        self.wake()

    def wake(self) -> None:
        super().wake()
        guard = self._wake_guard
        if guard is not None:
            guard.trigger()

    def create_task(self, callback, *args, **kwargs) -> Task:
        task = Task(callback, args, kwargs, executor=self)
        with self._tasks_guard:
            self._tasks_in_progress.append(task)
        self.wake()
        return task

    # --- rclpy's Executor interface -----------------------------------------------------------
    def spin(self) -> None:
        try:
            while self.context.ok() and not self._stopped:
                self._spin_once(None)
        finally:
            self._drop_plan()

    def spin_once(self, timeout_sec: Optional[float] = None) -> None:
        self._spin_once(timeout_sec)

    def spin_once_until_future_complete(self, future: Future, timeout_sec: Timeout = None) -> None:
        future.add_done_callback(lambda _: self.wake())
        self._spin_once(timeout_sec)

    def spin_until_future_complete(self, future: Future, timeout_sec: Optional[float] = None) -> None:
        future.add_done_callback(lambda _: self.wake())
        end_s = None if timeout_sec is None or timeout_sec < 0 else time.monotonic() + timeout_sec
        while self.context.ok() and not self._stopped and not future.done():
            left_s = None if end_s is None else end_s - time.monotonic()
            if left_s is not None and left_s <= 0:
                return
            self._spin_once(left_s)

    def shutdown(self, timeout_sec: Optional[float] = None) -> bool:
        self._stopped = True
        self.wake()
        done = super().shutdown(timeout_sec)
        self._drop_plan()
        with self._plan_lock:
            if self._wake_guard is not None:
                self._wake_guard.destroy()
                self._wake_guard = None
        return done

    # --- one wake-up --------------------------------------------------------------------------
    def _spin_once(self, timeout_sec: Timeout) -> None:
        with self._plan_lock:
            self._wake_up(timeout_sec)

    def _wake_up(self, timeout_sec: Timeout) -> None:
        if self._stopped:
            return
        self._run_tasks()
        if self._plan is None:
            self._plan = self._make_plan()
        plan = self._plan
        ws = plan.wait_set
        ws.clear_entities()
        for handle in plan.subscriptions:
            ws.add_subscription(handle)
        for timer in plan.timers:
            if _live_and_running(timer):  # see the module docstring
                ws.add_timer(timer.handle)
        for handle in plan.clients:
            ws.add_client(handle)
        for handle in plan.services:
            ws.add_service(handle)
        for handle in plan.guards:
            ws.add_guard_condition(handle)
        for waitable in plan.waitables:
            waitable.add_to_wait_set(ws)
        if isinstance(timeout_sec, TimeoutObject):
            timeout_sec = timeout_sec.timeout
        if timeout_sec is None or timeout_sec < 0:
            timeout_sec = -1.0
        if plan.polled_services:  # wake for them (a wake-up with nothing ready is allowed)
            until_poll_s = max(0.0, self._next_service_poll_s + SERVICE_POLL_PERIOD_S - time.monotonic())
            timeout_sec = until_poll_s if timeout_sec < 0 else min(timeout_sec, until_poll_s)
        ws.wait(-1 if timeout_sec < 0 else int(timeout_sec * 1e9))
        if self._stopped:
            return
        if not self.context.ok():
            raise ExternalShutdownException()

        serve, stale = plan.serve, False
        for pointer in ws.get_ready_entities("guard_condition"):
            if ("guard_condition", pointer) in serve:
                serve["guard_condition", pointer]()
            else:  # the executor's own guard: entities, nodes or tasks changed
                stale = True
        for pointer in ws.get_ready_entities("subscription"):
            serve["subscription", pointer]()
        for pointer in ws.get_ready_entities("timer"):
            serve["timer", pointer]()
        for pointer in ws.get_ready_entities("service"):
            serve["service", pointer]()
        for pointer in ws.get_ready_entities("client"):
            serve["client", pointer]()
        for waitable in plan.waitables:
            if waitable.is_ready(ws):
                self._start_task(self._waitable_execution(waitable, waitable.take_data()))
        if plan.events and time.monotonic() >= self._next_event_poll_s:
            self._poll_events(plan)
        if plan.polled_services and time.monotonic() >= self._next_service_poll_s:
            self._poll_services(plan)
        if stale:  # after serving: the handles stay entered until then
            self._drop_plan()
        self._run_tasks()
        if self._gc_thresholds is not None:
            self._collect_garbage(self._gc_thresholds)

    @staticmethod
    def _collect_garbage(thresholds: tuple[int, int, int]) -> None:
        """What the interpreter's automatic collection would do now: the oldest generation whose
        count has passed its threshold, with the younger ones."""
        counts = gc.get_count()
        if counts[0] < thresholds[0]:
            return
        generation = 0
        while generation < 2 and counts[generation + 1] >= thresholds[generation + 1]:
            generation += 1
        gc.collect(generation)

    def _run_tasks(self) -> None:
        """Resume the coroutines in progress (awaiting services, futures' callbacks)."""
        if not self._tasks_in_progress:
            return
        with self._tasks_guard:
            tasks = list(self._tasks_in_progress)
        for task in tasks:
            if not task.executing() and not task.done():
                task()
                if task.done() and task.exception() is not None:
                    raise task.exception()
        with self._tasks_guard:
            self._tasks_in_progress = [t for t in self._tasks_in_progress if not t.done() and not t.cancelled()]

    def _start_task(self, coroutine_function: Callable[[], Any]) -> None:
        task = Task(coroutine_function, (), executor=self)
        with self._tasks_guard:
            self._tasks_in_progress.append(task)
        task()
        if task.done() and task.exception() is not None:
            raise task.exception()

    def _poll_events(self, plan: _WaitPlan) -> None:
        self._next_event_poll_s = time.monotonic() + EVENT_POLL_PERIOD_S
        ws = plan.event_wait_set
        ws.clear_entities()
        for handler in plan.events:
            handler.add_to_wait_set(ws)
        ws.wait(0)
        for handler in plan.events:
            if handler.is_ready(ws):
                self._start_task(self._waitable_execution(handler, handler.take_data()))

    def _poll_services(self, plan: _WaitPlan) -> None:
        self._next_service_poll_s = time.monotonic() + SERVICE_POLL_PERIOD_S
        ws = plan.service_wait_set
        ws.clear_entities()
        for handle in plan.polled_services:
            ws.add_service(handle)
        ws.wait(0)
        for pointer in ws.get_ready_entities("service"):
            plan.serve["service", pointer]()

    @staticmethod
    def _waitable_execution(waitable, data) -> Callable[[], Any]:
        # (rclpy's executors also hand the waitable's futures to the executor, privately: here
        # their done callbacks run at once, and the tasks awaiting them resume after the wake-up)
        async def execute() -> None:
            await waitable.execute(data)
        return execute

    # --- the plan -----------------------------------------------------------------------------
    def _drop_plan(self) -> None:
        with self._plan_lock:
            if self._plan is not None:
                self._plan.stack.close()
                self._plan = None

    def _make_plan(self) -> _WaitPlan:
        stack = ExitStack()
        try:
            return self._fill_plan(stack)
        except BaseException:
            stack.close()
            raise

    def _fill_plan(self, stack: ExitStack) -> _WaitPlan:
        def enter(entity, handle) -> bool:
            if entity.callback_group is not None and not entity.callback_group.can_execute(entity):
                return False
            try:
                stack.enter_context(handle)
            except InvalidHandle:  # destroyed since the node listed it
                return False
            return True

        subscriptions, timers, clients, services, guards, waitables, events = [], [], [], [], [], [], []
        polled_services = []
        serve: dict = {}
        nodes = self.get_nodes()
        for node in sorted(nodes, key=lambda n: self._node_order.index(n) if n in self._node_order else len(nodes)):
            for kind, entities, handles, server in (
                    ("subscription", node.subscriptions, subscriptions, self._subscription_server),
                    ("timer", node.timers, timers, self._timer_server),
                    ("client", node.clients, clients, self._client_server),
                    ("service", node.services, services, self._service_server),
                    ("guard_condition", node.guards, guards, self._guard_server)):
                for entity in entities:
                    if enter(entity, entity.handle):
                        polled = kind == "service" and _is_ros_own_service(entity)
                        (polled_services if polled else handles).append(entity if kind == "timer" else entity.handle)
                        serve[kind, entity.handle.pointer] = server(entity)
            for waitable in node.waitables:
                if waitable.callback_group is not None and not waitable.callback_group.can_execute(waitable):
                    continue
                try:
                    stack.enter_context(waitable)
                except InvalidHandle:
                    continue
                (events if isinstance(waitable, compat.EventHandler) else waitables).append(waitable)
        # The executor's own guard (rebuild, shutdown) serves nothing. Ctrl-C: rclpy's handler
        # shuts the context down in C, which wakes only rclpy's private guards; the wait lasts at
        # most SERVICE_POLL_PERIOD_S (every node has ROS's own services), then spin sees it.
        if self._wake_guard is not None:
            stack.enter_context(self._wake_guard.handle)
            guards.append(self._wake_guard.handle)
        context = self.context
        stack.enter_context(context.handle)

        events_count = sum(w.get_num_entities().num_events for w in waitables)
        counts = [len(subscriptions), len(guards), len(timers), len(clients), len(services)]
        for waitable in waitables:
            n = waitable.get_num_entities()
            counts = [counts[0] + n.num_subscriptions, counts[1] + n.num_guard_conditions,
                      counts[2] + n.num_timers, counts[3] + n.num_clients, counts[4] + n.num_services]
        wait_set = compat.new_wait_set(context, *counts, events_count)
        event_wait_set = compat.new_wait_set(context, events=len(events)) if events else None
        service_wait_set = compat.new_wait_set(context, services=len(polled_services)) if polled_services else None
        return _WaitPlan(stack, wait_set, subscriptions, timers, clients, services, guards, waitables,
                         serve, events, event_wait_set, polled_services, service_wait_set)

    # --- how each kind of entity is served ----------------------------------------------------
    def _call(self, callback: Callable, *args) -> Any:
        """A plain callback is called; a coroutine function becomes a task (it may await)."""
        if inspect.iscoroutinefunction(callback):
            async def run() -> None:
                await callback(*args)
            self._start_task(run)
            return None
        return callback(*args)

    def _subscription_server(self, sub: Subscription) -> Callable[[], None]:
        with_info = compat.takes_message_info(sub.callback)
        is_coroutine = inspect.iscoroutinefunction(sub.callback)

        def serve() -> None:
            taken = compat.take_message(sub)
            if taken is None:
                return
            if is_coroutine:
                self._call(sub.callback, *(taken if with_info else taken[:1]))
            elif with_info:
                sub.callback(*taken)
            else:
                sub.callback(taken[0])
        return serve

    def _timer_server(self, tmr) -> Callable[[], None]:
        handle = tmr.handle
        info_arg = compat.timer_info_argument(tmr.callback)

        def serve() -> None:
            try:
                if not tmr.is_ready():  # rcl reports cancelled timers ready
                    return
            except InvalidHandle:  # destroyed in a callback of this wake-up (the plan is remade)
                return
            info = compat.call_timer(handle)
            if info is None or tmr.callback is None:  # cancelled since the wait
                return
            if info_arg is None:
                self._call(tmr.callback)
            else:
                self._call(partial(tmr.callback, **{info_arg: compat.timer_info(info, tmr.clock.clock_type)}))
        return serve

    def _client_server(self, cli) -> Callable[[], None]:
        def serve() -> None:
            header, response = compat.take_response(cli)
            if header is None:
                return
            try:
                future = cli.get_pending_request(header.request_id.sequence_number)
            except KeyError:  # the request was cancelled
                return
            future.set_result(response)  # (its done callbacks run now; awaiting tasks resume after)
        return serve

    def _service_server(self, srv) -> Callable[[], None]:
        if inspect.iscoroutinefunction(srv.callback):
            def serve() -> None:
                request, header = compat.take_request(srv)
                if header is None:
                    return

                async def answer() -> None:
                    srv.send_response(await srv.callback(request, srv.srv_type.Response()), header)
                self._start_task(answer)
            return serve

        def serve_plain() -> None:
            request, header = compat.take_request(srv)
            if header is not None:
                srv.send_response(srv.callback(request, srv.srv_type.Response()), header)
        return serve_plain

    def _guard_server(self, gc) -> Callable[[], None]:
        def serve() -> None:
            if gc.callback is not None:
                self._call(gc.callback)
        return serve

