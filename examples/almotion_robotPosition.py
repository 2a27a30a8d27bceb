#!/usr/bin/env python3
"""Robot position (NAOqi's locomotion documentation, "Move control" examples, ported).

A non-blocking moveTo through ``post``; while the walk runs, the current robot position and the
one after the unchangeable steps (getNextRobotPosition); then waitUntilMoveIsFinished. Run it
against the simulated suite:

    nao-motion sim &
    python examples/almotion_robotPosition.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture


def main(motionProxy=None):
    with ALMotion.connect(motionProxy) as motionProxy:
        motionProxy.wakeUp()
        ALRobotPosture(motionProxy).goToPosture("StandInit", 0.5)

        # created a walk task
        motionProxy.moveInit()
        motionProxy.post.moveTo(0.2, 0.0, 0.1)
        # wait that the move process start running
        time.sleep(0.1)
        # get robotPosition and nextRobotPosition
        robotPosition = motionProxy.getRobotPosition(False)
        nextRobotPosition = motionProxy.getNextRobotPosition(False)
        print("robot position:", robotPosition, "after the unchangeable steps:", nextRobotPosition)

        while motionProxy.moveIsActive():
            time.sleep(0.5)
        motionProxy.waitUntilMoveIsFinished()
        print("robot position at the end:", motionProxy.getRobotPosition(False))
        return robotPosition, nextRobotPosition


if __name__ == "__main__":
    main()
