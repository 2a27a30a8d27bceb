#!/usr/bin/env python3
"""moveTo (NAOqi's locomotion documentation, "moveTo" example, ported).

NAO walks to (0.2 m, 0.2 m) and turns a quarter turn anticlockwise, along NAOqi's interpolated
path; moveTo blocks until the walk is over. Run it against the simulated suite:

    nao-motion sim &
    python examples/almotion_moveTo.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture


def main(motionProxy=None):
    with ALMotion.connect(motionProxy) as proxy:
        proxy.wakeUp()
        ALRobotPosture(proxy).goToPosture("StandInit", 0.5)
        proxy.moveInit()

        # Example showing the moveTo command.
        # The units for this command are meters and radians
        x = 0.2
        y = 0.2
        # pi/2 anti-clockwise (90 degrees)
        theta = 1.5709
        proxy.moveTo(x, y, theta)
        print("robot position (x, y, theta):", proxy.getRobotPosition(False))


if __name__ == "__main__":
    main()
