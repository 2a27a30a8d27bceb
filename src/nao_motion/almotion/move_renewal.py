"""move / moveToward kept alive: the client renews its velocity command while the move is the robot's.

Why. NAOqi's move walks until told otherwise; the footstep planner, as a ROS 2 mobile base does,
stops a walk whose ``cmd_vel`` (``cmd_vel_normalized``) has not come for ``cmd_vel_timeout_s``
(0.5 s by default). So every ``RENEW_PERIOD_S`` the client sends the planner's
``cmd_vel_keepalive`` with the number of its move's command (the plan's accepted count that took
it), until the move ends:

* the planner accepted another command, a plan's accepted count past the move's number: the
  client's next locomotion call (stopMove, killMove, moveTo, setFootSteps..., another move, a
  zero one included) or anyone's (a ROS user's ``goal_pose``, another client's call). NAOqi's
  "the last command wins"; a refused call changes nothing, the move goes on;
* the client closed: the robot stops after the timeout, as a ROS base does when its teleop goes.

Not the command itself again: a re-sent ``cmd_vel`` still on its way when another command
arrives would replace that command (two topics keep no order between them); a keep-alive naming
a command that is no longer the planner's is ignored by it. And nothing is replanned.

``RENEW_PERIOD_S`` is wall time (the client does not know whether a simulator runs): 0.1 s, five
times within the default timeout, and within it as long as the planner's clock runs less than
five times faster than the wall (a simulator's ``real_time_factor``) and its timeout is not set
below 0.2 s.

One timer on the client's node, run by the client's executor thread with its subscriptions:
made at the first move and kept (between moves it does nothing), since making and destroying one
at each call would rebuild the executor's wait set at the rate a script calls moveToward.
"""

from __future__ import annotations

import threading

from rclpy.node import Node
from std_msgs.msg import UInt64

from ..ros.footstep_messages import FootstepPlan

__all__ = ["MoveRenewal", "RENEW_PERIOD_S", "KEEPALIVE_TOPIC"]

RENEW_PERIOD_S = 0.1
KEEPALIVE_TOPIC = "cmd_vel_keepalive"


class MoveRenewal:
    """The velocity command kept alive (module docstring). ``hold`` and ``release`` are called
    from the script's thread, ``observe`` and the timer from the executor's."""

    def __init__(self, node: Node, period_s: float = RENEW_PERIOD_S):
        self._node = node
        self._period_s = period_s
        self._publisher = node.create_publisher(UInt64, KEEPALIVE_TOPIC, 10)
        self._lock = threading.Lock()
        self._command: int | None = None  # the planner's number of the move's command
        self._timer = None

    def hold(self, plan: FootstepPlan) -> None:
        """Keep the move alive; ``plan``: the planner's first plan with its command."""
        with self._lock:
            self._command = plan.accepted_commands
            if self._timer is None:
                self._timer = self._node.create_timer(self._period_s, self._renew)

    def release(self) -> None:
        """The move is over: renewed no more."""
        with self._lock:
            self._command = None

    def observe(self, plan: FootstepPlan) -> None:
        """A plan from the planner: one that accepted a later command ended the move."""
        with self._lock:
            if self._command is not None and plan.accepted_commands > self._command:
                self._command = None

    def _renew(self) -> None:
        with self._lock:
            command = self._command
        if command is not None:
            self._publisher.publish(UInt64(data=command))
