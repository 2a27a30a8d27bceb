"""nao_motion: an ALMotion-like ROS 2 motion stack for the NAO humanoid (V5, V6).

The algorithm modules (model, kinematics, collision, footsteps, ...) are plain
Python on numpy/osqp; only ``nao_motion.nodes``, ``nao_motion.ros`` and
``nao_motion.almotion`` import rclpy.
"""

__version__ = "0.1.0"
