#!/usr/bin/env python3
"""The walk's protections (NAOqi's locomotion documentation, "Foot contact protection" and
"Stiffness protection" examples, ported).

Deactivates the foot contact protection (the walk is then allowed with no weight on the FSRs:
the robot held in the air) and the stiffness protection (allowed with a leg joint at stiffness
0.6 or less). This suite has them as the walk node's ``foot_contact_protection`` and
``stiffness_protection`` parameters, their defaults in config/walk.yaml (NAOqi: ALMotion.xml).
Run it against the simulated suite:

    nao-motion sim &
    python examples/almotion_setMotionConfig.py

with ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST and one ROS_DOMAIN_ID for every process.
"""

from nao_motion.almotion import ALMotion


def main(proxy=None):
    with ALMotion.connect(proxy) as proxy:
        # Deactivate the foot contact protection
        proxy.setMotionConfig([["ENABLE_FOOT_CONTACT_PROTECTION", False]])
        # Or for change the default value,
        # define the new value of the key ENABLE_FOOT_CONTACT_PROTECTION
        # in ALMotion.xml preference file (here: foot_contact_protection in config/walk.yaml)

        # Deactivate the stiffness protection
        proxy.setMotionConfig([["ENABLE_STIFFNESS_PROTECTION", False]])
        # Or for change the default value,
        # define the new value of the key ENABLE_STIFFNESS_PROTECTION
        # in ALMotion.xml preference file (here: stiffness_protection in config/walk.yaml)


if __name__ == "__main__":
    main()
