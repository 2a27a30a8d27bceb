#!/usr/bin/env python3
"""Ending a walk: killMove, then a clean stop (NAOqi's locomotion documentation, "Move control"
examples, ported).

NAO walks forward and the walk is ended suddenly with killMove (NAOqi: ~20 ms; here no further
step, a foot in the air set straight down, no settling); then it walks again and is stopped
cleanly by a zero velocity (~0.8 s). The walks around the snippets are this port's. Run it
against the simulated suite:

    nao-motion sim &
    python examples/almotion_killMove.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

WALK_S = 4.0


def main(proxy=None, walk_s=WALK_S):
    with ALMotion.connect(proxy) as proxy:
        proxy.wakeUp()
        ALRobotPosture(proxy).goToPosture("StandInit", 0.5)
        proxy.moveInit()

        proxy.moveToward(1.0, 0.0, 0.0)
        time.sleep(walk_s)
        # End the walk suddenly (~20ms)
        proxy.killMove()

        proxy.moveToward(1.0, 0.0, 0.0)
        time.sleep(walk_s)
        # End the walk cleanly (~0.8s)
        proxy.moveToward(0.0, 0.0, 0.0)
        proxy.waitUntilMoveIsFinished()


if __name__ == "__main__":
    main()
