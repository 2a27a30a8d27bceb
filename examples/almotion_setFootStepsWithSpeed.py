#!/usr/bin/env python3
"""setFootStep: NAO executes the Cha Cha basic steps for men (NAOqi's example, ported).

Eight steps, twice, each sent with setFootStepsWithSpeed (blocking, clearExisting False); the
planner clips each one as NAOqi's does. Run it against the simulated suite:

    nao-motion sim &
    python examples/almotion_setFootStepsWithSpeed.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

from nao_motion.almotion import ALMotion
from nao_motion.almotion.posture import ALRobotPosture

# http://www.dancing4beginners.com/cha-cha-steps.htm
footStepsList = [
    [["LLeg"], [[0.06, 0.1, 0.0]]],  # 1) Step forward with your left foot
    [["LLeg"], [[0.00, 0.16, 0.0]]],  # 2) Sidestep to the left with your left foot
    [["RLeg"], [[0.00, -0.1, 0.0]]],  # 3) Move your right foot to your left foot
    [["LLeg"], [[0.00, 0.16, 0.0]]],  # 4) Sidestep to the left with your left foot
    [["RLeg"], [[-0.04, -0.1, 0.0]]],  # 5) Step backward & left with your right foot
    [["RLeg"], [[0.00, -0.16, 0.0]]],  # 6) Step forward & right with your right foot
    [["LLeg"], [[0.00, 0.1, 0.0]]],  # 7) Move your left foot to your right foot
    [["RLeg"], [[0.00, -0.16, 0.0]]],  # 8) Sidestep to the right with your right foot
]


def main(motionProxy=None):
    with ALMotion.connect(motionProxy) as motionProxy:
        motionProxy.wakeUp()
        ALRobotPosture(motionProxy).goToPosture("StandInit", 0.5)

        stepFrequency = 0.8
        clearExisting = False
        nbStepDance = 2  # defined the number of cycle to make
        for j in range(nbStepDance):
            for i in range(len(footStepsList)):
                motionProxy.setFootStepsWithSpeed(
                    footStepsList[i][0],
                    footStepsList[i][1],
                    [stepFrequency],
                    clearExisting)
        motionProxy.waitUntilMoveIsFinished()
        # NAOqi's example ends with motionProxy.rest(); left out so that the simulated robot
        # keeps standing for whatever runs next.


if __name__ == "__main__":
    main()
