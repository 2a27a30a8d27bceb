"""NAOqi's ``post``: any ALMotion method run in the background, and its task id.

    task = motion.post.moveTo(0.2, 0.0, 0.1)   # returns at once
    motion.isRunning(task)                      # True while it runs
    motion.wait(task, 0)                        # blocks until it ends (timeout in ms; 0: none)

An error of the background call is logged at error level when it happens, kept in
``post.errors[task]`` and raised again by ``wait(task)`` (as a NAOqi future's value raises it),
so a script learns that its posted call failed. Posted locomotion calls (``MOVE_CALLS``) are the move until they end: ``moveIsActive``
is True while one runs, and ``waitUntilMoveIsFinished`` waits for them and raises the error of
one that failed (once), since the seed's own example waits that way:
``post.moveTo(1.0, 0.0, 0.0, 1.0)`` then ``waitUntilMoveIsFinished()``.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass

# The posted calls that start or make a move.
MOVE_CALLS = frozenset({"moveInit", "moveTo", "move", "moveToward", "setFootSteps", "setFootStepsWithSpeed"})


@dataclass
class PostTask:
    name: str
    thread: threading.Thread
    error: Exception | None = None
    waited: bool = False  # by waitUntilMoveIsFinished, which raised its error if any


class PostCalls:
    """``motion.post.<method>(...)``: starts ``motion.<method>(...)`` in a thread, returns a task id."""

    def __init__(self, motion):
        self._motion = motion
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self.tasks: dict[int, PostTask] = {}

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
                except Exception as err:
                    task.error = err
                    self._motion.node.get_logger().error(f"post.{name} (task {task_id}) failed: {err}")

            task = PostTask(name, threading.Thread(target=run, name=f"almotion.post.{name}.{task_id}", daemon=True))
            with self._lock:
                self.tasks[task_id] = task
            task.thread.start()
            return task_id

        return post

    @property
    def errors(self) -> dict[int, Exception]:
        """The error of each posted task that failed, by task id."""
        with self._lock:
            return {task_id: t.error for task_id, t in self.tasks.items() if t.error is not None}

    def moving(self) -> bool:
        """Whether a posted locomotion call is still running."""
        with self._lock:
            tasks = list(self.tasks.values())
        return any(t.name in MOVE_CALLS and t.thread.is_alive() for t in tasks)

    def wait_moves(self) -> None:
        """Wait for the posted locomotion calls not waited for yet; raise the first one's error."""
        with self._lock:
            tasks = [t for t in self.tasks.values() if t.name in MOVE_CALLS and not t.waited]
        for task in tasks:
            task.thread.join()
            task.waited = True
        errors = [t.error for t in tasks if t.error is not None]
        if errors:
            raise errors[0]


class PostMethods:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.post = PostCalls(self)

    def isRunning(self, id: int) -> bool:
        """True while the posted task ``id`` runs."""
        task = self.post.tasks.get(id)
        return task is not None and task.thread.is_alive()

    def wait(self, id: int, timeoutPeriod: int = 0) -> bool:
        """Block until the posted task ``id`` ends or ``timeoutPeriod`` ms (0: no timeout) pass;
        True if it ended (an unknown id has nothing to wait for). A task that failed raises its
        error here."""
        task = self.post.tasks.get(id)
        if task is None:
            return True
        task.thread.join(timeoutPeriod / 1000.0 if timeoutPeriod > 0 else None)
        if task.thread.is_alive():
            return False
        if task.error is not None:
            raise task.error
        return True
