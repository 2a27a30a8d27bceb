#!/usr/bin/env python3
"""The robot model: getRobotPosition, getTransform, getPosition (NAOqi's kinematic model
documentation, "Model" examples, ported).

The robot's simplified position in the world, the end of the right arm as a transform in torso
space, and the top camera's position in the world frame. Run it against the simulated suite:

    nao-motion sim &
    python examples/almotion_getPosition.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

from nao_motion.almotion import ALMotion


def main(proxy=None):
    with ALMotion.connect(proxy) as proxy:
        # Example showing how to get a simplified robot position in world.
        useSensors = False
        result = proxy.getRobotPosition(useSensors)
        print("Robot Position", result)

        # Example showing how to get the end of the right arm as a transform
        # represented in torso space. The result is a 4 by 4 matrix composed
        # of a 3*3 rotation matrix and a column vector of positions.
        name = 'RArm'
        space = 0
        useSensorValues = True
        transform = proxy.getTransform(name, space, useSensorValues)
        print("RArm in FRAME_TORSO", transform)

        # Example showing how to get the position of the top camera
        # The position is a representation containing
        # The x,y and z coordinates in meters
        # The wx, wy, wz euler angles in radians
        name = 'CameraTop'
        space = 1
        useSensorValues = True
        position = proxy.getPosition(name, space, useSensorValues)
        print("CameraTop in FRAME_WORLD", position)
        return result, transform, position


if __name__ == "__main__":
    main()
