#!/usr/bin/env python3
"""Reflexes: LArm collision avoidance (NAOqi's almotion_reflexesCollisionAvoidance.py, ported).

NAO bumps his chest with his left arm with collision protection disabled; with it enabled the
same motion stops at the nearest pose that keeps the arm off the chest.

The NAOqi proxy becomes the nao_motion ALMotion client, which joins the ROS graph instead of
connecting to a robot IP. Run it against the simulator and the collision filter alone (the
filter then publishes joint_commands itself):

    ros2 run nao_motion simulator &
    ros2 run nao_motion collision_filter --ros-args -p use_sim_time:=true &
    python examples/almotion_reflexesCollisionAvoidance.py

or against the whole suite (`nao-motion sim`), with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and
one ROS_DOMAIN_ID for every process.
"""

import math
import sys
import time

from nao_motion.almotion import ALMotion

TO_RAD = math.pi / 180.0  # NAOqi's motion.TO_RAD


def main(motionProxy=None):
    """Example showing the effect of collision detection: Nao bumps his chest with his left arm
    with collision detection enabled or disabled."""
    with ALMotion.connect(motionProxy) as motionProxy:
        run(motionProxy)


def run(motionProxy):
    # Get the robot configuration.
    robotConfig = motionProxy.getRobotConfig()
    robotName = ""
    for i in range(len(robotConfig[0])):
        if robotConfig[0][i] == "Model Type":
            robotName = robotConfig[1][i]

    ##################
    # Initialization #
    ##################
    pChainName = "LArm"

    # Send robot to Pose Init.
    moveLArm(motionProxy, robotName, "Init")

    # Disable collision detection on LArm chain.
    pEnable = False
    success = motionProxy.setCollisionProtectionEnabled(pChainName, pEnable)
    if not success:
        print("Failed to disable collision protection")
    time.sleep(1.0)

    # Make NAO's arm move so that it bumps its torso.
    moveLArm(motionProxy, robotName, "Final")
    time.sleep(1.0)

    # Go back to pose init.
    moveLArm(motionProxy, robotName, "Init")

    # Enable collision detection on chainName.
    pEnable = True
    success = motionProxy.setCollisionProtectionEnabled(pChainName, pEnable)
    if not success:
        print("Failed to enable collision protection")

    # Make NAO's arm move and see that it does not bump on the torso.
    moveLArm(motionProxy, robotName, "Final")
    time.sleep(1.0)

    # Go back to pose init.
    moveLArm(motionProxy, robotName, "Init")


def moveLArm(motionProxy, pRobotName, pPose):
    """Function to make NAO bump on his Torso with his left arm."""
    # Define the name of the chain controlled
    pChainName = "LArm"

    # Define the final position.
    if pPose == "Init":
        pTargetAngles = [
            80,  # LShoulderPitch
            20,  # LShoulderRoll
            -80,  # LElbowYaw
            -60]  # LElbowRoll
    elif pPose == "Final":
        pTargetAngles = [
            50,  # LShoulderPitch
            6,  # LShoulderRoll
            0,  # LElbowYaw
            -150]  # LElbowRoll (beyond the joint's -88.5 deg limit: clipped to it)
    else:
        print("ERROR: Your pose is unknown")
        print("---------------------")
        sys.exit(1)

    # Set the target angles according to the robot version.
    if pRobotName in ("naoH25", "naoAcademics", "naoT14"):
        pTargetAngles += [0.0, 0.0]  # LWristYaw, LHand
    elif pRobotName == "naoH21":
        pass
    elif pRobotName == "naoT2":
        pTargetAngles = []
    else:
        print("ERROR: Your robot is unknown")
        print("This test is not available for your Robot")
        print("---------------------")
        sys.exit(1)

    # Convert to radians.
    pTargetAngles = [x * TO_RAD for x in pTargetAngles]

    # Set the fraction of max speed for the arm movement.
    pMaxSpeedFraction = 0.5

    # Set NAO in stiffness On.
    motionProxy.setStiffnesses("LArm", 1.0)

    # Move the arm to the final position.
    motionProxy.angleInterpolationWithSpeed(pChainName, pTargetAngles, pMaxSpeedFraction)


if __name__ == "__main__":
    main()
