#!/usr/bin/env python3
"""Example: Whole Body Motion - Enable Balance Constraint (NAOqi's
almotion_wbEnableBalanceConstraint.py, ported).

Feet Fixed, centre of mass kept inside the support polygon of both feet: the knees straighten
and bend to 40 deg while the rest of the body keeps the robot balanced.

The NAOqi session becomes the nao_motion ALMotion client, which joins the ROS graph instead of
connecting to a robot IP. Run it against the simulator and the suite:

    nao-motion sim &          # simulator, collision filter, whole body, kinematics (sim time)
    python examples/almotion_wbEnableBalanceConstraint.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import math
import sys

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture


def main(motion_service=None):
    """Example of a whole body Enable Balance Constraint.
    Warning: Needs a PoseInit before executing.
        Whole body balancer must be deactivated at the end of the script.
    This example is only compatible with NAO.
    """
    with ALMotion.connect(motion_service) as motion_service:
        run(motion_service)


def run(motion_service):
    # Wake up robot
    motion_service.wakeUp()

    # Send robot to Stand Init
    ALRobotPosture(motion_service).goToPosture("StandInit", 0.5)

    # Activate Whole Body Balancer
    isEnabled = True
    motion_service.wbEnable(isEnabled)

    # Legs are constrained fixed
    stateName = "Fixed"
    supportLeg = "Legs"
    motion_service.wbFootState(stateName, supportLeg)

    # Constraint Balance Motion
    isEnable = True
    supportLeg = "Legs"
    motion_service.wbEnableBalanceConstraint(isEnable, supportLeg)

    # KneePitch angleInterpolation
    # Without Whole Body balancer, foot will fall down
    names = ["LKneePitch", "RKneePitch"]
    angleLists = [[0.0, 40.0 * math.pi / 180.0], [0.0, 40.0 * math.pi / 180.0]]
    timeLists = [[5.0, 10.0], [5.0, 10.0]]
    isAbsolute = True
    try:
        motion_service.angleInterpolation(names, angleLists, timeLists, isAbsolute)
    except Exception as errorMsg:
        print(str(errorMsg))
        print("This example is not allowed on this robot.")
        sys.exit()

    # Deactivate Whole Body Balancer
    isEnabled = False
    motion_service.wbEnable(isEnabled)

    # NAOqi's example ends with motion_service.rest() (crouch, then limp); left out so that the
    # simulated robot keeps standing for whatever runs next.


if __name__ == "__main__":
    main()
