#!/usr/bin/env python3
"""waitUntilMoveIsFinished and moveIsActive (NAOqi's locomotion documentation, "Move control"
examples, ported).

A 1 m moveTo posted in the background (NAOqi's older form with a step frequency as fourth
argument), waited for with waitUntilMoveIsFinished; then another, polled with moveIsActive. Run
it against the simulated suite:

    nao-motion sim &
    python examples/almotion_waitUntilMoveIsFinished.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

DISTANCE_M = 1.0  # NAOqi's; a test may pass a shorter one


def main(proxy=None, distance_m=DISTANCE_M, on_finished=None):
    """``on_finished(name)``, if given, is called where each snippet goes on ("Then do something
    else")."""
    with ALMotion.connect(proxy) as proxy:
        proxy.wakeUp()
        ALRobotPosture(proxy).goToPosture("StandInit", 0.5)
        proxy.moveInit()

        # Start a move
        proxy.post.moveTo(distance_m, 0.0, 0.0, 1.0)
        # Wait for it to finish
        proxy.waitUntilMoveIsFinished()
        # Then do something else
        if on_finished:
            on_finished("waitUntilMoveIsFinished")

        # start a 1 meter move
        proxy.post.moveTo(distance_m, 0.0, 0.0, 1.0)
        while proxy.moveIsActive():
            # do something
            # sleep a little
            time.sleep(1)
        # when finished do something else
        if on_finished:
            on_finished("moveIsActive")


if __name__ == "__main__":
    main()
