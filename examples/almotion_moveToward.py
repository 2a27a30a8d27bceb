#!/usr/bin/env python3
"""moveToward (NAOqi's locomotion documentation, "moveToward" example, ported).

Full speed forward at the maximum step frequency; after 10 s shorter steps while turning; after
5 s more a lower frequency; 10 s later a clean stop. The pauses are wall-clock sleeps, as in
NAOqi (the simulator runs at real time by default). Run it against the simulated suite:

    nao-motion sim &
    python examples/almotion_moveToward.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

PAUSES_S = (10.0, 5.0, 10.0)  # NAOqi's; a test may pass shorter ones


def main(motionProxy=None, pauses_s=PAUSES_S):
    with ALMotion.connect(motionProxy) as proxy:
        proxy.wakeUp()
        ALRobotPosture(proxy).goToPosture("StandInit", 0.5)
        proxy.moveInit()

        # Example showing the use of moveToward
        # The parameters are fractions of the maximum Step parameters
        # Here we are asking for full speed forwards
        # with maximum step frequency
        x = 1.0
        y = 0.0
        theta = 0.0
        moveConfig = [["Frequency", 1.0]]
        proxy.moveToward(x, y, theta, moveConfig)

        # If we don't send another command, he will walk forever
        # Lets make him slow down (step length) and turn after 10 seconds
        time.sleep(pauses_s[0])
        x = 0.5
        theta = 0.6
        proxy.moveToward(x, y, theta, moveConfig)

        # Lets make him slow down(frequency) after 5 seconds
        time.sleep(pauses_s[1])
        moveConfig = [["Frequency", 0.5]]
        proxy.moveToward(x, y, theta, moveConfig)

        # After another 10 seconds, we'll make him stop
        time.sleep(pauses_s[2])
        proxy.moveToward(0.0, 0.0, 0.0)
        proxy.waitUntilMoveIsFinished()


if __name__ == "__main__":
    main()
