"""World-frame Jacobians of the floating-base NAO: the torso's twist plus the motor joints.

Variables (``N_VARIABLES`` = 29), in this order:

* the torso's linear velocity v (m/s) of the torso frame origin, world frame (3);
* the torso's angular velocity w (rad/s), world frame (3);
* the velocities of the 23 kinematic motor joints (rad/s), ``ForwardKinematics.motor_joint_names``
  order: hands excluded, LHipYawPitch and RHipYawPitch one variable (one motor).

The world frame is the balancer's (see ``balancer.py``): z up, fixed on the floor. A point p
fixed on a link moves at p_dot = v + w x (p - p_torso) + R J_p(q) q_dot, R the torso's
orientation and J_p the torso-frame Jacobian of the point; a link turns at w + R J_w(q) q_dot.

All Jacobians of one cycle come from one pass over the joints' world axes and origins (the
per-call Jacobians of ForwardKinematics would recompute them each time): the links are moved
into the world frame with one product, and every frame's and the COM's columns are a few
batched products; buffers are allocated once.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import ForwardKinematics, KinematicState
from ..model import motor_fold

N_BASE = 6
LINEAR, ANGULAR = slice(0, 3), slice(3, 6)
# skew(r) = r . SKEW_BASIS (3 x 9): the cross-product matrix of r, flattened.
SKEW_BASIS = np.array([[0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0],
                       [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0],
                       [0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]])
_MINUS_SKEW_BASIS = -SKEW_BASIS


class FloatingBaseJacobians:
    """Per-cycle world-frame Jacobians (N_VARIABLES columns) of named frames and of the COM.

    `frames`: frame names (anything ForwardKinematics.pose accepts); each gets a 6 x N block
    (linear; angular) of its origin. Call :meth:`update` once per cycle, then read
    ``frame_jacobian[k]``, ``frame_pose_world[k]``, ``com_world_m`` and ``com_jacobian``.
    """

    def __init__(self, fk: ForwardKinematics, frames: tuple[str, ...]):
        self.fk = fk
        self.frames = tuple(frames)
        nk, nl, nf = len(fk.joint_names), len(fk.link_names), len(frames)
        self.motor_joint_names = fk.motor_joint_names
        self.n_motors = len(self.motor_joint_names)
        self.n_variables = N_BASE + self.n_motors
        fold = motor_fold(fk.joint_names, self.motor_joint_names)
        # A frame is its parent link's pose times a fixed offset (identity for a link).
        zero = fk.compute(fk.model.zero_configuration())
        self._frame_link = np.array([fk.link_names.index(fk.parent_link_of(f)) for f in frames])
        self._frame_offset = np.stack([np.linalg.inv(zero.link_poses[link]) @ fk.pose(zero, f)
                                       for link, f in zip(self._frame_link, frames)])
        # moves[k, j]: joint j moves frame k; with the fold, joint columns land on motor columns.
        moves = fk.moves_link[:, self._frame_link].T.astype(float)
        self._moves_fold = moves[:, :, None] * fold[None, :, :]  # (nf, nk, motors)
        self._fold = fold
        # Centre of mass: joint j moves its subtree's mass fraction about its axis.
        self._moves_mass = fk.moves_link * (fk.link_mass_kg / fk.total_mass_kg)[None, :]  # (nk, nl)
        self._subtree_fraction = (fk.moves_link @ fk.link_mass_kg / fk.total_mass_kg)[:, None]
        self._mass_fraction = fk.link_mass_kg / fk.total_mass_kg
        self._com_local_h = np.concatenate([fk.link_com_local_m, np.ones((nl, 1))], axis=1)[:, :, None]
        self._axes_local = fk.axes_local[:, :, None].copy()
        self._skew_local = np.einsum("ni,ijk->njk", fk.axes_local, SKEW_BASIS.reshape(3, 3, 3))

        self.frame_pose_world = np.zeros((nf, 4, 4))
        self.frame_jacobian = np.zeros((nf, 6, self.n_variables))
        self.com_world_m = np.zeros(3)
        self.com_jacobian = np.zeros((3, self.n_variables))
        # Torso twist columns that never change: v moves every point, w turns every frame.
        self.frame_jacobian[:, LINEAR, LINEAR] = np.eye(3)
        self.frame_jacobian[:, ANGULAR, ANGULAR] = np.eye(3)
        self.com_jacobian[:, LINEAR] = np.eye(3)
        self.torso_world = np.eye(4)
        self._links = np.zeros((nl, 4, 4))
        self._frame_parents = np.zeros((nf, 4, 4))
        self._axes = np.zeros((nk, 3, 1))
        self._rotated = np.zeros((nk, 3, 3))
        self._skew = np.zeros((nk, 3, 3))
        self._cross = np.zeros((nk, 3, nf))
        self._axis_origin = np.zeros((nk, 3, 1))
        self._link_com_h = np.zeros((nl, 4, 1))
        self._weighted = np.zeros((nk, 3, 1))
        self._subtree_origin = np.zeros((nk, 3, 1))
        self._com_kin = np.zeros((nk, 3, 1))
        self._points = np.zeros((nf + 1, 3))  # the frames' origins, then the COM
        self._arms = np.zeros((nf + 1, 3))
        self._minus_skew = np.zeros((nf + 1, 1, 9))

    def update(self, state: KinematicState, torso_world: np.ndarray) -> None:
        """All Jacobians at `state` with the torso at pose `torso_world` (4x4, world frame)."""
        np.copyto(self.torso_world, torso_world)
        links = self._links
        np.matmul(self.torso_world, state.link_poses, out=links)  # every link in the world frame
        rotations, origins = links[1:, :3, :3], links[1:, :3, 3:]
        np.matmul(rotations, self._axes_local, out=self._axes)
        np.matmul(rotations, self._skew_local, out=self._rotated)  # skew(R a) = R skew(a) R'
        np.matmul(self._rotated, rotations.transpose(0, 2, 1), out=self._skew)
        s = self._skew

        # Frames: a_j x (p_k - o_j) = a_j x p_k - a_j x o_j, then masked and folded onto motors.
        links.take(self._frame_link, axis=0, out=self._frame_parents)
        np.matmul(self._frame_parents, self._frame_offset, out=self.frame_pose_world)
        points = self._points
        np.copyto(points[:-1], self.frame_pose_world[:, :3, 3])
        np.matmul(s, points[:-1].T, out=self._cross)
        np.matmul(s, origins, out=self._axis_origin)
        self._cross -= self._axis_origin
        jac = self.frame_jacobian
        np.matmul(self._cross.transpose(2, 1, 0), self._moves_fold, out=jac[:, LINEAR, N_BASE:])
        np.matmul(self._axes[:, :, 0].T, self._moves_fold, out=jac[:, ANGULAR, N_BASE:])

        # Centre of mass: joint j turns its subtree's mass fraction about o_j: a_j x (sum m c / M - m_j o_j / M).
        np.matmul(links, self._com_local_h, out=self._link_com_h)
        link_com = self._link_com_h[:, :3, 0]
        np.matmul(self._mass_fraction, link_com, out=self.com_world_m)
        np.matmul(self._moves_mass, link_com, out=self._weighted[:, :, 0])
        np.multiply(self._subtree_fraction[:, :, None], origins, out=self._subtree_origin)
        self._weighted -= self._subtree_origin
        np.matmul(s, self._weighted, out=self._com_kin)
        np.matmul(self._com_kin[:, :, 0].T, self._fold, out=self.com_jacobian[:, N_BASE:])

        # The torso's rotation moves a point at r from its origin by w x r: columns -skew(r).
        points[-1] = self.com_world_m
        np.subtract(points, self.torso_world[:3, 3], out=self._arms)
        np.matmul(self._arms[:, None, :], _MINUS_SKEW_BASIS, out=self._minus_skew)
        minus_skew = self._minus_skew.reshape(-1, 3, 3)
        np.copyto(jac[:, LINEAR, ANGULAR], minus_skew[:-1])
        np.copyto(self.com_jacobian[:, ANGULAR], minus_skew[-1])
