#!/usr/bin/env python3
"""Arm motions during a move (NAOqi's locomotion documentation, "Arm motion" examples, ported).

While NAO walks forward, the left arm stops swinging; 10 s later the right one too; then the
enabled flags are read back. The walk around the snippet (moveToward forward, then a clean stop)
is this port's, as the snippet runs "during a move". Run it against the simulated suite:

    nao-motion sim &
    python examples/almotion_setMoveArmsEnabled.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

PAUSE_S = 10.0  # NAOqi's; a test may pass a shorter one


def main(proxy=None, pause_s=PAUSE_S):
    with ALMotion.connect(proxy) as proxy:
        proxy.wakeUp()
        ALRobotPosture(proxy).goToPosture("StandInit", 0.5)
        proxy.moveToward(0.6, 0.0, 0.0)  # a move, for the arms to swing in

        # Example showing how to disable left arm motions during a move
        leftArmEnable = False
        rightArmEnable = True
        proxy.setMoveArmsEnabled(leftArmEnable, rightArmEnable)

        # disable right arm motion after 10 seconds
        time.sleep(pause_s)
        rightArmEnable = False
        proxy.setMoveArmsEnabled(leftArmEnable, rightArmEnable)
        time.sleep(pause_s / 2)

        # Example showing how to get the enabled flags for the arms
        enabled = [proxy.getMoveArmsEnabled("LArm"), proxy.getMoveArmsEnabled("RArm"),
                   proxy.getMoveArmsEnabled("Arms")]
        print('LeftArmEnabled: ', enabled[0])
        print('RightArmEnabled: ', enabled[1])
        print('ArmsEnabled: ', enabled[2])

        proxy.moveToward(0.0, 0.0, 0.0)
        proxy.waitUntilMoveIsFinished()
        return enabled


if __name__ == "__main__":
    main()
