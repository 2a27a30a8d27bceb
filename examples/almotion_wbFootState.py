#!/usr/bin/env python3
"""Example: Whole Body Motion - Foot State (NAOqi's almotion_wbFootState.py, ported).

The feet are kept flat on the ground (Plane) while LHipYawPitch, the only joint that turns the
feet, goes to -45 deg and back: the rest of the legs keep the soles flat.

The NAOqi session becomes the nao_motion ALMotion client, which joins the ROS graph instead of
connecting to a robot IP. Run it against the simulator and the suite:

    nao-motion sim &          # simulator, collision filter, whole body, kinematics (sim time)
    python examples/almotion_wbFootState.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

import math
import sys

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture


def main(motion_service=None):
    """Example of a whole body FootState.
    Warning: Needs a PoseInit before executing.
        Whole body balancer must be inactivated at the end of the script.
    This example is only compatible with NAO.
    """
    with ALMotion.connect(motion_service) as motion_service:
        run(motion_service)


def run(motion_service):
    # Wake up robot
    motion_service.wakeUp()

    # Send robot to Stand Init
    ALRobotPosture(motion_service).goToPosture("StandInit", 0.5)

    # Activate Whole Body Balancer.
    isEnabled = True
    motion_service.wbEnable(isEnabled)

    # Legs are constrained in a plane
    stateName = "Plane"
    supportLeg = "Legs"
    motion_service.wbFootState(stateName, supportLeg)

    # HipYawPitch angleInterpolation
    # Without Whole Body balancer, foot will not be keeped plane.
    names = "LHipYawPitch"
    angleLists = [-45.0, 10.0, 0.0]
    timeLists = [3.0, 6.0, 9.0]
    isAbsolute = True
    angleLists = [angle * math.pi / 180.0 for angle in angleLists]
    try:
        motion_service.angleInterpolation(names, angleLists, timeLists, isAbsolute)
    except Exception as errorMsg:
        print(str(errorMsg))
        print("This example is not allowed on this robot.")
        sys.exit()

    # Deactivate Whole Body Balancer.
    isEnabled = False
    motion_service.wbEnable(isEnabled)

    # NAOqi's example ends with motion_service.rest() (crouch, then limp); left out so that the
    # simulated robot keeps standing for whatever runs next.


if __name__ == "__main__":
    main()
