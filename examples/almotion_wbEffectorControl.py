#!/usr/bin/env python3
"""Whole Body Motion - safe Cartesian control of the head (NAOqi's whole body documentation,
"Safe Cartesian Control" examples, ported).

Head tracking under whole body control: the head's orientation target (0.1 rad about x, in
FRAME_ROBOT) is reached as far as the whole body can while the feet stay fixed and the robot
balanced ("resized to the nearest feasible motion"); then effector control is disabled. Run it
against the simulated suite:

    nao-motion sim &
    python examples/almotion_wbEffectorControl.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import time

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

TRACK_S = 3.0


def main(proxy=None, track_s=TRACK_S, on_tracking=None):
    """``on_tracking()``, if given, is called while the target is held (before disabling)."""
    with ALMotion.connect(proxy) as proxy:
        proxy.wakeUp()
        # Do an init posture before using this api.
        ALRobotPosture(proxy).goToPosture("StandInit", 0.5)

        # Example showing how to active Head tracking.
        effectorName = 'Head'
        isEnabled = True
        proxy.wbEnableEffectorControl(effectorName, isEnabled)

        # Example showing how to set orientation target for Head tracking.
        effectorName = "Head"
        targetCoordinate = [0.1, 0.0, 0.0]
        proxy.wbSetEffectorControl(effectorName, targetCoordinate)
        time.sleep(track_s)
        if on_tracking:
            on_tracking()

        # Example showing how to deactivate Head tracking.
        effectorName = 'Head'
        isEnabled = False
        proxy.wbEnableEffectorControl(effectorName, isEnabled)
        # Take care to deactivate Whole Body Balancer at the end of your behavior.
        proxy.wbEnable(False)


if __name__ == "__main__":
    main()
