"""The test's own rclpy node, spun on a background thread, for the tests that drive a node
process over DDS: what the callbacks record is guarded by `cond`, which `wait` watches."""

from __future__ import annotations

import threading
import time

import rclpy
from rcl_interfaces.msg import Log
from rclpy.exceptions import InvalidHandle
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor


class SpinningProbe:
    """Subclasses make their publishers, subscriptions and timers on `self.node`, then `start()`."""

    def __init__(self, name: str, **node_options):
        self.node = rclpy.create_node(name, **node_options)
        self.cond = threading.Condition()
        self.executor: SingleThreadedExecutor | None = None
        self._closed = threading.Event()

    def start(self) -> None:
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        threading.Thread(target=self._spin, daemon=True).start()

    def _spin(self) -> None:
        """rclpy's spin, except that an entity the test's thread destroys while the executor waits
        on it costs only that wait: rclpy's executor raises InvalidHandle when it adds a destroyed
        entity's QoS event handler to its wait set, which ended the spinning thread, and every
        later wait of the test then failed (a CI run: "no answer from reset_simulation")."""
        executor = self.executor
        while not self._closed.is_set() and executor.context.ok():
            try:
                executor.spin_once(timeout_sec=0.1)
            except InvalidHandle:
                continue
            except ExternalShutdownException:
                return

    def close(self) -> None:
        self._closed.set()
        if self.executor is not None:
            self.executor.shutdown()
        self.node.destroy_node()

    def add(self, store: list, item) -> None:
        with self.cond:
            store.append(item)
            self.cond.notify_all()

    def record_logs(self, node_name: str, store: list) -> None:
        """Append to `store` the text of every /rosout message of the node `node_name`."""
        def on_log(msg: Log):
            if msg.name == node_name:
                self.add(store, msg.msg)
        self.node.create_subscription(Log, "/rosout", on_log, 100)

    def wait(self, condition, timeout_s: float = 10.0) -> bool:
        """Whether `condition()` (checked under `cond`) came true within `timeout_s`."""
        end = time.monotonic() + timeout_s
        with self.cond:
            while not condition():
                remaining = end - time.monotonic()
                if remaining <= 0.0:
                    return False
                self.cond.wait(min(remaining, 0.01))  # also polls what no callback records
            return True

    def call(self, srv_type, name: str, request, timeout_s: float = 10.0):
        client = self.node.create_client(srv_type, name)
        try:
            assert client.wait_for_service(timeout_sec=timeout_s), f"no service {name}"
            future = client.call_async(request)
            assert self.wait(future.done, timeout_s), f"no answer from {name}"
            return future.result()
        finally:
            self.node.destroy_client(client)
