#!/usr/bin/env python3
"""move with a per-foot move config (NAOqi's locomotion documentation, "Move config", ported).

NAO walks forward at 0.05 m/s lifting the left foot higher than the right, the torso pitched
5 degrees and rolled on the right steps only, then stops cleanly. Run it against the simulated
suite:

    nao-motion sim &
    python examples/almotion_move.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import math
import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

TO_RAD = math.pi / 180.0  # almath.TO_RAD
WALK_S = 8.0


def main(motionProxy=None, walk_s=WALK_S):
    with ALMotion.connect(motionProxy) as motionProxy:
        motionProxy.wakeUp()
        ALRobotPosture(motionProxy).goToPosture("StandInit", 0.5)
        motionProxy.moveInit()

        X, Y, Theta = 0.05, 0.0, 0.0  # m/s, m/s, rad/s
        motionProxy.move(X, Y, Theta,
                         [
                             ["LeftStepHeight", 0.02],
                             ["RightStepHeight", 0.005],
                             ["RightTorsoWx", -7.0 * TO_RAD],
                             ["TorsoWy", 5.0 * TO_RAD]])
        time.sleep(walk_s)
        # End the walk cleanly
        motionProxy.moveToward(0.0, 0.0, 0.0)
        motionProxy.waitUntilMoveIsFinished()
        print("robot position (x, y, theta):", motionProxy.getRobotPosition(False))


if __name__ == "__main__":
    main()
