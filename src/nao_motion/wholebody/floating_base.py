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
per-call Jacobians of ForwardKinematics would recompute them each time); buffers are allocated
once.
"""

from __future__ import annotations

import numpy as np

from ..kinematics import ForwardKinematics, KinematicState

N_BASE = 6
LINEAR, ANGULAR = slice(0, 3), slice(3, 6)


class FloatingBaseJacobians:
    """Per-cycle world-frame Jacobians (N_VARIABLES columns) of named frames and of the COM.

    `frames`: frame names (anything ForwardKinematics.pose accepts); each gets a 6 x N block
    (linear; angular) of its origin. Call :meth:`update` once per cycle, then read
    ``frame_jacobian[k]``, ``frame_pose_world[k]``, ``com_world_m`` and ``com_jacobian``.
    """

    def __init__(self, fk: ForwardKinematics, frames: tuple[str, ...]):
        self.fk = fk
        self.frames = tuple(frames)
        nk = len(fk.joint_names)
        self.motor_joint_names = fk.motor_joint_names
        self.n_motors = len(self.motor_joint_names)
        self.n_variables = N_BASE + self.n_motors
        # Folding kinematic columns into motor columns (RHipYawPitch adds to LHipYawPitch).
        self._fold = np.zeros((nk, self.n_motors))
        for k, name in enumerate(fk.joint_names):
            self._fold[k, self.motor_joint_names.index("LHipYawPitch" if name == "RHipYawPitch" else name)] = 1.0
        # Frame poses come from the state's link poses (links) or fixed-frame poses (the rest).
        self._is_link = np.array([f in fk.link_names for f in frames])
        self._frame_link_index = np.array([fk.link_names.index(f) for f in frames if f in fk.link_names], dtype=int)
        self._frame_fixed_index = np.array(
            [fk.fixed_frame_names.index(f) for f in frames if f not in fk.link_names], dtype=int)
        self._link_of_frame = np.array([fk.link_names.index(fk.parent_link_of(f)) for f in frames])
        # mask[k, j]: joint j moves frame k.
        self._mask = fk.moves_link[:, self._link_of_frame].T.astype(float)
        self._subtree_mass = fk.moves_link @ fk.link_mass_kg
        self._moves_link_f = fk.moves_link.astype(float)
        self._link_mass = fk.link_mass_kg[:, None]
        self._total_mass = fk.total_mass_kg

        nf = len(frames)
        self.frame_pose_world = np.zeros((nf, 4, 4))
        self.frame_jacobian = np.zeros((nf, 6, self.n_variables))
        self.com_world_m = np.zeros(3)
        self.com_jacobian = np.zeros((3, self.n_variables))
        # Torso twist columns that never change: v moves every point, w turns every frame.
        self.frame_jacobian[:, LINEAR, LINEAR] = np.eye(3)
        self.frame_jacobian[:, ANGULAR, ANGULAR] = np.eye(3)
        self.com_jacobian[:, LINEAR] = np.eye(3)
        self._arms = np.empty((nf, 3))
        self.torso_world = np.eye(4)
        self._axes = np.empty((nk, 3))
        self._axes_local_col = fk.axes_local[:, :, None].copy()
        self._axes_torso = np.empty((nk, 3, 1))
        self._origins = np.empty((nk, 3))
        self._axes_skew = np.zeros((nk, 3, 3))
        self._a_cross_o = np.empty((nk, 3))
        self._kin_lin = np.empty((nf, 3, nk))
        self._kin_ang = np.empty((nf, 3, nk))
        self._link_com = np.empty((len(fk.link_names), 3))
        self._weighted = np.empty((nk, 3))
        self._com_kin = np.empty((3, nk))
        self._points = np.empty((nf, 3))
        self._poses_torso = np.empty((nf, 4, 4))
        self._cross = np.empty((nk, 3, nf))

    def update(self, state: KinematicState, torso_world: np.ndarray) -> None:
        """All Jacobians at `state` with the torso at pose `torso_world` (4x4, world frame)."""
        self.torso_world[:] = torso_world
        r, p = torso_world[:3, :3], torso_world[:3, 3]
        children = state.link_poses[1:]
        # Joint axes and origins in the world frame.
        np.matmul(children[:, :3, :3], self._axes_local_col, out=self._axes_torso)
        np.matmul(self._axes_torso[:, :, 0], r.T, out=self._axes)
        np.matmul(children[:, :3, 3], r.T, out=self._origins)
        self._origins += p
        a, o, s = self._axes, self._origins, self._axes_skew
        s[:, 0, 1], s[:, 0, 2], s[:, 1, 2] = -a[:, 2], a[:, 1], -a[:, 0]
        s[:, 1, 0], s[:, 2, 0], s[:, 2, 1] = a[:, 2], -a[:, 1], a[:, 0]
        np.einsum("nij,nj->ni", s, o, out=self._a_cross_o)

        # Frames: a_j x (p_k - o_j) = a_j x p_k - a_j x o_j, masked by "joint j moves frame k".
        poses = self.frame_pose_world
        self._poses_torso[self._is_link] = state.link_poses[self._frame_link_index]
        self._poses_torso[~self._is_link] = state.frame_poses[self._frame_fixed_index]
        np.matmul(torso_world, self._poses_torso, out=poses)
        np.copyto(self._points, poses[:, :3, 3])
        np.matmul(s, self._points.T, out=self._cross)  # (nk, 3, nf): a_j x p_k
        self._cross -= self._a_cross_o[:, :, None]
        np.multiply(self._cross.transpose(2, 1, 0), self._mask[:, None, :], out=self._kin_lin)
        np.multiply(a.T[None, :, :], self._mask[:, None, :], out=self._kin_ang)
        jac = self.frame_jacobian
        np.matmul(self._kin_lin, self._fold, out=jac[:, LINEAR, N_BASE:])
        np.matmul(self._kin_ang, self._fold, out=jac[:, ANGULAR, N_BASE:])
        np.subtract(self._points, p, out=self._arms)
        _minus_skew_columns(jac, self._arms)

        # Centre of mass: joint j moves its subtree's mass m_j about o_j: a_j x (sum m c - m_j o_j) / M.
        np.matmul(state.link_com_torso_m, r.T, out=self._link_com)
        self._link_com += p
        np.matmul(self._link_mass.T, self._link_com, out=self.com_world_m[None, :])
        self.com_world_m /= self._total_mass
        np.matmul(self._moves_link_f, self._link_mass * self._link_com, out=self._weighted)
        self._weighted -= self._subtree_mass[:, None] * o
        np.einsum("nij,nj->in", s, self._weighted, out=self._com_kin)
        self._com_kin /= self._total_mass
        np.matmul(self._com_kin, self._fold, out=self.com_jacobian[:, N_BASE:])
        np.subtract(self.com_world_m, p, out=self._arms[:1])
        _minus_skew_columns(self.com_jacobian[None], self._arms[:1])


def _minus_skew_columns(jac: np.ndarray, r: np.ndarray) -> None:
    """Linear rows' angular-velocity columns -[r]x (w x r = -r x w) for (k, >=3, N) blocks."""
    jac[:, 0, 4], jac[:, 0, 5] = r[:, 2], -r[:, 1]
    jac[:, 1, 3], jac[:, 1, 5] = -r[:, 2], r[:, 0]
    jac[:, 2, 3], jac[:, 2, 4] = r[:, 1], -r[:, 0]
