"""What the whole-body QP's tasks and constraints read each cycle, kept up to date by the balancer.

Variables (``floating_base``): x = [v, w, q_dot], the torso's twist (world frame, m/s and rad/s)
then the motor joints' velocities (rad/s, ``FloatingBaseJacobians.motor_joint_names`` order).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..collision.obstacles import ObstacleSlots
from ..model import NaoModel, motor_of
from .floating_base import N_BASE, FloatingBaseJacobians

if TYPE_CHECKING:
    from .balancer import BalancerConfig

# Frames the QP needs, in this order (rows of FloatingBaseJacobians.frame_jacobian).
FRAMES = ("l_sole", "r_sole", "l_gripper", "r_gripper", "Head")
SOLE = {"left": 0, "right": 1}
ARM = {"LArm": 2, "RArm": 3}
HEAD = 4
SOLE_FRAME = {"left": "l_sole", "right": "r_sole"}


class WholeBodyContext:
    """The model, the configuration, this cycle's Jacobians and the command the QP starts from.

    q: the command (26 joints, rad): the balancer integrates into this buffer; motor: the model
    indices of the QP's joint variables; com_drift_m: what the COM rows missed last cycle (m);
    state: the command's forward kinematics (set by the balancer each cycle); obstacles: the
    declared obstacles in the torso frame (written by the balancer's owner).
    """

    def __init__(self, model: NaoModel, config: BalancerConfig, dt_s: float, jac: FloatingBaseJacobians):
        self.model, self.config, self.dt_s, self.jac = model, config, dt_s, jac
        self.n = jac.n_variables
        self.motor = np.array([model.joint_index(j) for j in jac.motor_joint_names])
        self.vmax_joint = model.max_velocity * config.max_velocity_fraction  # rad/s, every joint
        # This cycle's limits of the QP's joints (walking, the swing leg's grow: ``swing_speed``).
        self.vmax_motor = self.vmax_joint[self.motor]
        # The fastest a joint may ever move (the swing leg's bound): what rows valid "for one step"
        # (coupled limits, obstacle reach) are built for.
        self.vmax_joint_fastest = model.max_velocity * max(config.max_velocity_fraction,
                                                           config.walk_max_velocity_fraction)
        self.q = model.zero_configuration()
        self.q_motor = np.zeros(len(self.motor))
        self.com_drift_m = np.zeros(3)
        self.state = jac.fk.new_state()
        self.obstacles = ObstacleSlots()
        self.time_s = 0.0

    def column(self, joint: str) -> int:
        """The variable of a joint's motor."""
        return N_BASE + self.jac.motor_joint_names.index(motor_of(joint))
