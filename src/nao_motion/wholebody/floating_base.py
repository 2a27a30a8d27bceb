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
from ..spatial import SKEW_BASIS
from ..model import motor_fold

N_BASE = 6
LINEAR, ANGULAR = slice(0, 3), slice(3, 6)
_MINUS_SKEW_BASIS = -SKEW_BASIS


class FloatingBaseJacobians:
    """Per-cycle world-frame Jacobians (N_VARIABLES columns) of named frames and of the COM.

    `frames`: frame names (anything ForwardKinematics.pose accepts); each gets a 6 x N block
    (linear; angular) of its origin. Call :meth:`update` once per cycle, then read
    ``frame_jacobian[k]``, ``frame_pose_world[k]``, ``com_world_m`` and ``com_jacobian``.

    How (a handful of matrix products for everything): in the torso frame, joint j (unit axis
    a_j through o_j) moves a point p at a_j x (p - o_j) and turns a frame at a_j, and moves the
    COM at a_j x (sum over its subtree of m_l c_l - m_j o_j) / M; with S_j = skew(a_j), one
    product S [o, w, p, c] gives every a_j x o_j, a_j x w_j, a_j x p_k; the frames' columns are
    folded onto the motors by the fold masked with "joint j moves frame k" (one batched product
    for all frames, prepared once), the COM's by the fold, and turned into the world frame with
    one product each.
    """

    def __init__(self, fk: ForwardKinematics, frames: tuple[str, ...]):
        self.fk = fk
        self.frames = tuple(frames)
        nk, nf = len(fk.joint_names), len(frames)
        self.motor_joint_names = fk.motor_joint_names
        self.n_motors = nm = len(self.motor_joint_names)
        self.n_variables = N_BASE + nm
        self._fold = motor_fold(fk.joint_names, self.motor_joint_names)
        # A frame is its parent link's pose times a fixed offset (identity for a link).
        zero = fk.compute(fk.model.zero_configuration())
        self._frame_link = np.array([fk.link_names.index(fk.parent_link_of(f)) for f in frames])
        self._frame_offset = np.stack([np.linalg.inv(zero.link_poses[link]) @ fk.pose(zero, f)
                                       for link, f in zip(self._frame_link, frames)])
        # Per frame k, the fold of the joints that move it: fold[j, m] if j moves k, else 0.
        moves = fk.moves_link[:, self._frame_link].astype(float)  # (nk, nf)
        self._frame_fold = moves.T[:, :, None] * self._fold[None, :, :]  # (nf, nk, nm)
        self._moves_mass = fk.moves_link * (fk.link_mass_kg / fk.total_mass_kg)[None, :]  # (nk, nl)
        self._subtree_fraction = (fk.moves_link @ fk.link_mass_kg / fk.total_mass_kg)[:, None]
        self._axes_local = fk.axes_local[:, None, :].copy()  # (nk, 1, 3)

        self.frame_pose_world = np.zeros((nf, 4, 4))
        self.frame_jacobian = np.zeros((nf, 6, self.n_variables))
        self.com_world_m = np.zeros(3)
        self.com_jacobian = np.zeros((3, self.n_variables))
        # Torso twist columns that never change: v moves every point, w turns every frame.
        self.frame_jacobian[:, LINEAR, LINEAR] = np.eye(3)
        self.frame_jacobian[:, ANGULAR, ANGULAR] = np.eye(3)
        self.com_jacobian[:, LINEAR] = np.eye(3)
        self.torso_world = np.eye(4)
        self._frame_parents = np.zeros((nf, 4, 4))
        self._frame_torso = np.zeros((nf, 4, 4))
        self._axes = np.zeros((nk, 1, 3))  # torso frame
        self._skew = np.zeros((nk, 9))
        # Points the skews multiply, torso frame (3 rows): origins, subtree moments, frames, COM.
        self._points = np.zeros((3, 2 * nk + nf + 1))
        self._origins, self._moments = self._points[:, :nk], self._points[:, nk: 2 * nk]
        self._frame_points = self._points[:, 2 * nk:]  # the frames' origins, then the COM
        self._mass_moments = np.zeros((nk, 3))
        self._subtree_origins = np.zeros((nk, 3))
        self._crosses = np.zeros((3 * nk, 2 * nk + nf + 1))
        # a_j x o_j and a_j x w_j: the diagonal blocks of S [o, w].
        rows = np.arange(3 * nk)
        self._diagonal_blocks = np.concatenate([rows * (2 * nk + nf + 1) + rows // 3,
                                                rows * (2 * nk + nf + 1) + nk + rows // 3])
        self._axis_crosses = np.zeros(6 * nk)
        # Per frame k: a_j x (p_k - o_j) of every joint (nf, 3, nk) and the frame's linear
        # columns on the motors (nf, 3, nm); the joints' axes in the world; the COM's columns.
        self._frame_arms = np.zeros((nf, 3, nk))
        self._frame_linear = np.zeros((nf, 3, nm))
        self._world_axes = np.zeros((3, nk))
        self._com_folded = np.zeros((3, nm))
        self._arms = np.zeros((3, nf + 1))
        self._minus_skew = np.zeros((nf + 1, 9))
        # Read-only views, torso frame, of the last update: a_j (nk, 3) and a_j x o_j (nk, 3).
        self.axes = self._axes[:, 0, :]
        self.axis_origin_cross = self._axis_crosses[: 3 * nk].reshape(nk, 3)
        self.axes.flags.writeable = self.axis_origin_cross.flags.writeable = False
        # The views update() reads and writes, made once (a view costs about what a small numpy
        # call does, and update() takes two dozen of them).
        self._axes_row = self._axes[:, 0, :]
        self._moment_rows = self._moments.T
        self._skew_rows = self._skew.reshape(3 * nk, 3)
        self._frame_origins = self._frame_torso[:, :3, 3].T
        self._com_point = self._frame_points[:, nf]
        self._frame_origin_points = self._frame_points[:, :nf]
        self._axis_origin = self._axis_crosses[: 3 * nk].reshape(nk, 3).T  # (3, nk): a_j x o_j
        self._frame_crosses = self._crosses[:, 2 * nk: 2 * nk + nf].reshape(nk, 3, nf).transpose(2, 1, 0)
        self._com_crosses = self._axis_crosses[3 * nk:].reshape(nk, 3).T
        self._axes_by_joint = self._axes[:, 0, :].T
        self._torso_rotation = self.torso_world[:3, :3]
        self._torso_position = self.torso_world[:3, 3]
        self._jacobian_linear = self.frame_jacobian[:, LINEAR, N_BASE:]
        self._jacobian_angular = self.frame_jacobian[:, ANGULAR, N_BASE:]
        self._jacobian_rotation = self.frame_jacobian[:, LINEAR, ANGULAR]
        self._com_jacobian_joints = self.com_jacobian[:, N_BASE:]
        self._com_jacobian_rotation = self.com_jacobian[:, ANGULAR]
        self._arms_com = self._arms[:, nf]
        self._arms_rows = self._arms.T
        minus_skew = self._minus_skew.reshape(-1, 3, 3)
        self._minus_skew_frames, self._minus_skew_com = minus_skew[:nf], minus_skew[nf]
        self._state: KinematicState | None = None  # whose views are below (_state_views)
        self._link_rotations_t = self._link_origins = self._link_origin_rows = np.zeros(0)

    def _state_views(self, state: KinematicState) -> None:
        """The views of `state`'s buffers that update() reads (a caller passes the same state
        every cycle: made when it changes)."""
        links = state.link_poses
        self._link_rotations_t = links[1:, :3, :3].transpose(0, 2, 1)
        self._link_origin_rows = links[1:, :3, 3]
        self._link_origins = self._link_origin_rows.T
        self._state = state

    def update(self, state: KinematicState, torso_world: np.ndarray) -> None:
        """All Jacobians at `state` with the torso at pose `torso_world` (4x4, world frame)."""
        if state is not self._state:
            self._state_views(state)
        np.copyto(self.torso_world, torso_world)
        # Joint axes and their skews, torso frame.
        np.matmul(self._axes_local, self._link_rotations_t, out=self._axes)
        np.matmul(self._axes_row, SKEW_BASIS, out=self._skew)
        # The frames, torso and world frames.
        state.link_poses.take(self._frame_link, axis=0, out=self._frame_parents)
        np.matmul(self._frame_parents, self._frame_offset, out=self._frame_torso)
        np.matmul(self.torso_world, self._frame_torso, out=self.frame_pose_world)
        # The points: joint origins, subtree mass moments about them, frames, COM.
        np.copyto(self._origins, self._link_origins)
        np.matmul(self._moves_mass, state.link_com_torso_m, out=self._mass_moments)
        np.multiply(self._subtree_fraction, self._link_origin_rows, out=self._subtree_origins)
        np.subtract(self._mass_moments, self._subtree_origins, out=self._moment_rows)
        np.copyto(self._frame_origin_points, self._frame_origins)
        np.copyto(self._com_point, state.com_torso_m)
        np.matmul(self._skew_rows, self._points, out=self._crosses)
        self._crosses.take(self._diagonal_blocks, out=self._axis_crosses)
        # Per frame k, the columns a_j x (p_k - o_j) and a_j of the joints j that move it, onto
        # the motors (one product with the fold masked per frame) and into the world frame.
        np.subtract(self._frame_crosses, self._axis_origin, out=self._frame_arms)
        np.matmul(self._frame_arms, self._frame_fold, out=self._frame_linear)
        np.matmul(self._torso_rotation, self._frame_linear, out=self._jacobian_linear)
        np.matmul(self._torso_rotation, self._axes_by_joint, out=self._world_axes)
        np.matmul(self._world_axes, self._frame_fold, out=self._jacobian_angular)
        # The COM's: a_j x (subtree moment about o_j), onto the motors, into the world frame.
        np.matmul(self._com_crosses, self._fold, out=self._com_folded)
        np.matmul(self._torso_rotation, self._com_folded, out=self._com_jacobian_joints)
        # The torso's rotation moves a point at r from its origin by w x r: columns -skew(r).
        np.matmul(self._torso_rotation, self._frame_points, out=self._arms)
        np.add(self._arms_com, self._torso_position, out=self.com_world_m)
        np.matmul(self._arms_rows, _MINUS_SKEW_BASIS, out=self._minus_skew)
        np.copyto(self._jacobian_rotation, self._minus_skew_frames)
        np.copyto(self._com_jacobian_rotation, self._minus_skew_com)
