"""NAOqi's Whole Body Balancer (numpy + OSQP, no ROS): see balancer.py for the formulation.

    from nao_motion.wholebody import WholeBodyBalancer, WholeBodySettings
    balancer = WholeBodyBalancer(NaoModel())
    balancer.reset(q_measured)                       # pass-through from the measured pose
    balancer.apply(WholeBodySettings(balance_enabled=True))
    balancer.set_enabled(True)
    q_command = balancer.step(q_wish).q              # every cycle

The whole-body node's cycle (the balancer, then the walk's ankle damping) is ``WholeBodyCycle``
(``cycle.py``).
"""

from .balancer import (BalancerConfig, BalancerResult, Mode, Outcome, WalkReference, WholeBodyBalancer,
                       WholeBodySettings)
from .cycle import WholeBodyCycle
from .modes import EFFECTORS, SUPPORT_LEGS, FootState, balance_refusal
from .support_polygon import SupportPolygon

__all__ = ["BalancerConfig", "BalancerResult", "Mode", "Outcome", "WalkReference", "WholeBodyBalancer",
           "WholeBodySettings", "WholeBodyCycle", "EFFECTORS", "SUPPORT_LEGS", "FootState", "balance_refusal",
           "SupportPolygon"]
