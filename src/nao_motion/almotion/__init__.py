"""`ALMotion`: NAOqi's motion API over the nao_motion ROS 2 suite, for porting NAOqi scripts.

    from nao_motion.almotion import ALMotion
    motion = ALMotion()                       # joins the ROS graph
    motion.getPosition("CameraTop", 1, True)  # same arguments and meaning as NAOqi

Each group of methods lives in its own module; the client holds no algorithm of its own.
"""

from .client_base import ALMotionError, ClientBase
from .collision import CollisionMethods
from .kinematics import KinematicsMethods
from .locomotion import LocomotionMethods
from .motion_commands import MotionCommandMethods
from .obstacles import ObstacleMethods
from .walk import WalkMethods
from .whole_body import WholeBodyMethods
from .world_frame import WorldFrameMethods

FRAME_TORSO, FRAME_WORLD, FRAME_ROBOT = 0, 1, 2


class ALMotion(KinematicsMethods, MotionCommandMethods, CollisionMethods, ObstacleMethods, WholeBodyMethods,
              WalkMethods, LocomotionMethods, WorldFrameMethods, ClientBase):
    """NAOqi ALMotion methods backed by the suite's topics, services and parameters."""


__all__ = ["ALMotion", "ALMotionError", "FRAME_TORSO", "FRAME_WORLD", "FRAME_ROBOT"]
