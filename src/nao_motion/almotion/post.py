"""NAOqi's ``post``: any ALMotion method run in the background, and its task id.

    task = motion.post.moveTo(0.2, 0.0, 0.1)   # returns at once
    motion.isRunning(task)                      # True while it runs
    motion.wait(task, 0)                        # blocks until it ends (timeout in ms; 0: none)

As in NAOqi, an error of the background call is not raised to the caller (``wait`` returns when
the call ended, whatever its outcome); it is logged and kept in ``post.errors[task]``.
"""

from __future__ import annotations

import itertools
import threading


class PostCalls:
    """``motion.post.<method>(...)``: starts ``motion.<method>(...)`` in a thread, returns a task id."""

    def __init__(self, motion):
        self._motion = motion
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.tasks: dict[int, threading.Thread] = {}
        self.errors: dict[int, Exception] = {}

    def __getattr__(self, name: str):
        method = getattr(self._motion, name)  # AttributeError for a method ALMotion does not have
        if not callable(method) or name.startswith("_"):
            raise AttributeError(f"ALMotion.{name} cannot be posted")

        def post(*args, **kwargs) -> int:
            with self._lock:
                task_id = next(self._ids)

            def run() -> None:
                try:
                    method(*args, **kwargs)
                except Exception as err:  # NAOqi: a posted call's error stays in the background
                    self.errors[task_id] = err
                    self._motion.node.get_logger().error(f"post.{name} (task {task_id}) failed: {err}")

            thread = threading.Thread(target=run, name=f"almotion.post.{name}.{task_id}", daemon=True)
            with self._lock:
                self.tasks[task_id] = thread
            thread.start()
            return task_id

        return post


class PostMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.post = PostCalls(self)

    def isRunning(self, id: int) -> bool:
        """True while the posted task ``id`` runs."""
        thread = self.post.tasks.get(id)
        return thread is not None and thread.is_alive()

    def wait(self, id: int, timeoutPeriod: int = 0) -> bool:
        """Block until the posted task ``id`` ends or ``timeoutPeriod`` ms (0: no timeout) pass;
        True if it ended (an unknown id has nothing to wait for)."""
        thread = self.post.tasks.get(id)
        if thread is None:
            return True
        thread.join(timeoutPeriod / 1000.0 if timeoutPeriod > 0 else None)
        return not thread.is_alive()
