"""Forward kinematics, centre of mass and Jacobians of the NAO (numpy only, no rclpy).

The tree is the model's link tree: torso-parallel link frames at q = 0, each
joint a fixed translation followed by a rotation about a fixed axis. Poses of
all links are computed together, one batched matrix product per tree depth,
so a full update costs a handful of numpy calls instead of one per frame.

Configurations are full vectors in ``model.joint_names`` order (NAOqi's Body
order, 26 joints with the hands); RHipYawPitch always follows LHipYawPitch, as
one motor drives both. Jacobian columns are in ``kinematic_joint_names`` order
(24 joints, RHipYawPitch a column of its own); :meth:`ForwardKinematics.fold_hip_yaw_pitch`
gives them in motor space (``model.motor_fold``).

NAOqi spaces: FRAME_TORSO (0), FRAME_WORLD (1), FRAME_ROBOT (2).
"""

from __future__ import annotations

import numpy as np

from . import spatial
from .model import CHAIN_NAMES, NaoModel, motor_fold, motor_of

FRAME_TORSO = 0
FRAME_WORLD = 1
FRAME_ROBOT = 2
SPACE_NAMES = {FRAME_TORSO: "FRAME_TORSO", FRAME_WORLD: "FRAME_WORLD", FRAME_ROBOT: "FRAME_ROBOT"}


class KinematicState:
    """Poses (torso frame) of every link and fixed frame for one configuration: the FK's data.

    Made by :meth:`ForwardKinematics.new_state` with all its buffers, then refilled in place by
    :meth:`ForwardKinematics.compute` (``out=``) as often as needed (the model / data split of
    Pinocchio): a motion cycle computes into a state prepared at start-up.
    """

    def __init__(self, n_joints: int, n_kinematic: int, n_links: int, n_fixed: int, n_slots: int, n_levels: int,
                 n_branches: int):
        self.q = np.zeros(n_joints)  # full configuration used (RHipYawPitch mimicked), rad
        self.joint_angles = np.zeros(n_kinematic)  # rad, in joint_names order
        self.link_poses = np.zeros((n_links, 4, 4))
        # Child link in parent link per joint, and an identity after them for the padding slots.
        self._local = np.tile(np.eye(4), (n_kinematic + 1, 1, 1))
        self.joint_local_poses = self._local[:n_kinematic]
        self._local_top = self._local[:n_kinematic, :3, :].reshape(n_kinematic, 1, 12)  # [R | t], a view
        self.frame_poses = np.zeros((n_fixed, 4, 4))
        self._link_com_h = np.zeros((n_links, 4, 1))
        self.link_com_torso_m = self._link_com_h[:, :3, 0]  # (n_links, 3) each link's centre of mass
        self.com_torso_m = np.zeros(3)  # whole-body centre of mass
        # Work buffers of the level-by-level product (see ForwardKinematics.compute).
        self._coefficients = np.zeros((n_kinematic, 1, 3))
        self._coefficients[:, 0, 0] = 1.0
        self._slot_local = np.zeros((n_levels, n_branches, 4, 4))
        self._levels = np.tile(np.eye(4), (n_levels + 1, n_branches, 1, 1))
        self._frame_parents = np.zeros((n_fixed, 4, 4))
        # Views compute() uses, made once (each costs about what a small numpy call does).
        self._sines, self._cosines = self._coefficients[:, 0, 1], self._coefficients[:, 0, 2]
        self._slot_local_flat = self._slot_local.reshape(-1, 4, 4)
        self._levels_flat = self._levels.reshape(-1, 4, 4)
        # Level d + 1 is level d times its joints' local transforms.
        self._level_products = [(self._levels[d], self._slot_local[d], self._levels[d + 1]) for d in range(n_levels)]

    def joint_local_quaternions(self, axes_local: np.ndarray) -> np.ndarray:
        """(n, 4) quaternions (x, y, z, w) of the joint rotations: axis sin(q/2), cos(q/2)."""
        half = 0.5 * self.joint_angles
        return np.column_stack([axes_local * np.sin(half)[:, None], np.cos(half)])


class ForwardKinematics:
    """FK, centre of mass and Jacobians for one :class:`NaoModel`: the prepared model of the FK.

    All links come from one batched product per tree depth: every branch from the torso (head,
    arms, legs) is a serial chain, so the links at depth d of all branches are one (branches, 4, 4)
    product of the links at depth d - 1 with their joints' local transforms.
    """

    def __init__(self, model: NaoModel):
        self.model = model
        self.joint_names = model.kinematic_joint_names
        n = len(self.joint_names)
        self.link_names: tuple[str, ...] = model.link_names  # torso, then joint i's child at i + 1
        self._link_index = {name: i for i, name in enumerate(self.link_names)}
        fixed = model.fixed_frames()
        self.fixed_frame_names: tuple[str, ...] = tuple(f.name for f in fixed)
        self._fixed_index = {f.name: i for i, f in enumerate(fixed)}
        self._fixed_parent = np.array([self._link_index[f.parent_link] for f in fixed])
        self._fixed_local = np.stack([f.transform for f in fixed])

        # Configuration gather: each joint reads its motor's entry (RHipYawPitch: LHipYawPitch's).
        self._q_gather = np.array([model.joint_index(motor_of(j)) for j in self.joint_names])

        # parent_index[i]: link index of joint i's parent link (0 = torso; joint i's child is i + 1).
        self.parent_index = np.array([self._link_index[model.parent_link(j)] for j in self.joint_names])
        origin = np.stack([model.joint_origin_in_parent(j) for j in self.joint_names])
        self.axes_local = np.stack([model.joint_axis_in_link(j) for j in self.joint_names])
        k = np.zeros((n, 3, 3))
        ax = self.axes_local
        k[:, 0, 1], k[:, 0, 2], k[:, 1, 2] = -ax[:, 2], ax[:, 1], -ax[:, 0]
        k[:, 1, 0], k[:, 2, 0], k[:, 2, 1] = ax[:, 2], -ax[:, 1], ax[:, 0]
        # A joint's local transform [R | origin] (3 x 4) is B0 + sin(q) B1 + (1 - cos(q)) B2
        # (Rodrigues: R = I + sin K + (1 - cos) K^2): one product with [1, sin, 1 - cos].
        self._local_basis = np.zeros((n, 3, 3, 4))
        self._local_basis[:, 0, :, :3] = np.eye(3)
        self._local_basis[:, 0, :, 3] = origin
        self._local_basis[:, 1, :, :3] = k
        self._local_basis[:, 2, :, :3] = k @ k
        self._local_basis = self._local_basis.reshape(n, 3, 12)

        # Slots: (depth - 1, branch) of every joint; a branch is a serial chain from the torso.
        depth, branch = np.zeros(n + 1, dtype=int), np.zeros(n + 1, dtype=int)
        roots = [i for i in range(n) if self.parent_index[i] == 0]
        for i in range(n):  # parents precede children in the chain order
            depth[i + 1] = depth[self.parent_index[i]] + 1
            branch[i + 1] = roots.index(i) if i in roots else branch[self.parent_index[i]]
        self._n_levels, self._n_branches = int(depth.max()), len(roots)
        slots = (depth[1:] - 1) * self._n_branches + branch[1:]
        if len(set(slots.tolist())) != n:
            raise ValueError("forward kinematics needs serial branches from the torso")
        self._slot_joint = np.full(self._n_levels * self._n_branches, n)  # n: the identity (padding)
        self._slot_joint[slots] = np.arange(n)
        # Link l in the (levels + 1, branches) product: the torso is level 0 (identity).
        self._link_slot = np.concatenate([[0], depth[1:] * self._n_branches + branch[1:]])

        inertials = model.inertials
        self.link_mass_kg = np.array([inertials[name].mass for name in self.link_names])
        self.link_com_local_m = np.array([inertials[name].com for name in self.link_names])
        self._link_com_local_h = np.concatenate([self.link_com_local_m, np.ones((n + 1, 1))], axis=1)[:, :, None]
        self.total_mass_kg = float(self.link_mass_kg.sum())
        self._mass_fraction = self.link_mass_kg / self.total_mass_kg

        # ancestors[j, l]: joint j moves link l (l in the subtree of j's child link).
        self.moves_link = np.zeros((n, n + 1), dtype=bool)
        for i in range(n):
            link = i + 1
            while link != 0:
                self.moves_link[link - 1, i + 1] = True
                link = self.parent_index[link - 1]
        self._subtree_mass = self.moves_link @ self.link_mass_kg

        self._chain_links = {
            chain: np.array([self._link_index[model.joint(j).child_link] for j in model.chains[chain].joints])
            for chain in CHAIN_NAMES
        }
        self.motor_joint_names: tuple[str, ...] = tuple(j for j in self.joint_names if motor_of(j) == j)
        self._fold = motor_fold(self.joint_names, self.motor_joint_names)

    # --- forward kinematics -----------------------------------------------------------------
    def new_state(self) -> KinematicState:
        """A state with its buffers, for :meth:`compute` to fill (``out=``)."""
        return KinematicState(self.model.n_joints, len(self.joint_names), len(self.link_names),
                              len(self.fixed_frame_names), len(self._slot_joint), self._n_levels, self._n_branches)

    def compute(self, q: np.ndarray, out: KinematicState | None = None, links_only: bool = False) -> KinematicState:
        """Poses of all links and fixed frames and the centre of mass at configuration q (rad).

        out: a state from :meth:`new_state`, refilled in place without allocating (None: a new
        state). links_only: the link poses alone, the fixed frames and the centre of mass left as
        they were (for a caller that reads nothing else: four numpy calls fewer). Returns the state.
        """
        state = out if out is not None else self.new_state()
        self.model.mimic_hip_yaw_pitch(q, out=state.q)
        state.q.take(self._q_gather, out=state.joint_angles)
        np.sin(state.joint_angles, out=state._sines)
        np.cos(state.joint_angles, out=state._cosines)
        np.subtract(1.0, state._cosines, out=state._cosines)
        np.matmul(state._coefficients, self._local_basis, out=state._local_top)
        state._local.take(self._slot_joint, axis=0, out=state._slot_local_flat)
        for parents, local, children in state._level_products:
            np.matmul(parents, local, out=children)
        state._levels_flat.take(self._link_slot, axis=0, out=state.link_poses)
        if links_only:
            return state
        state.link_poses.take(self._fixed_parent, axis=0, out=state._frame_parents)
        np.matmul(state._frame_parents, self._fixed_local, out=state.frame_poses)
        np.matmul(state.link_poses, self._link_com_local_h, out=state._link_com_h)
        np.matmul(self._mass_fraction, state.link_com_torso_m, out=state.com_torso_m)
        return state

    def frame_names(self) -> tuple[str, ...]:
        return self.link_names + self.fixed_frame_names

    def pose(self, state: KinematicState, name: str) -> np.ndarray:
        """Pose (torso frame) of a link, a fixed frame, a chain end, a joint, or "Torso"."""
        if name in ("Torso", "torso"):
            return state.link_poses[0]
        if name in self._link_index:
            return state.link_poses[self._link_index[name]]
        if name in self._fixed_index:
            return state.frame_poses[self._fixed_index[name]]
        if name in self.model.chains:
            return self.pose(state, self.model.chains[name].end_frame)
        if name in self.joint_names:
            return state.link_poses[self.joint_names.index(name) + 1]
        raise KeyError(f"unknown frame, chain or joint name {name!r}")

    def has_frame(self, name: str) -> bool:
        try:
            self.parent_link_of(name)
        except KeyError:
            return False
        return True

    def parent_link_of(self, name: str) -> str:
        """The link a frame is rigidly attached to (itself for a link)."""
        if name in ("Torso", "torso"):
            return "torso"
        if name in self._link_index:
            return name
        if name in self._fixed_index:
            return self.link_names[self._fixed_parent[self._fixed_index[name]]]
        if name in self.model.chains:
            return self.parent_link_of(self.model.chains[name].end_frame)
        if name in self.joint_names:
            return self.model.joint(name).child_link
        raise KeyError(f"unknown frame, chain or joint name {name!r}")

    # --- centre of mass --------------------------------------------------------------------
    def com(self, state: KinematicState, name: str = "Body") -> np.ndarray:
        """Centre of mass (torso frame, m) of the whole body or of one chain's links."""
        if name == "Body":
            return state.com_torso_m
        if name not in self._chain_links:
            raise KeyError(f"unknown chain {name!r}: expected 'Body' or one of {CHAIN_NAMES}")
        links = self._chain_links[name]
        m = self.link_mass_kg[links]
        return m @ state.link_com_torso_m[links] / m.sum()

    # --- Jacobians -------------------------------------------------------------------------
    def _axes_and_origins(self, state: KinematicState) -> tuple[np.ndarray, np.ndarray]:
        children = state.link_poses[1:]
        axes = np.einsum("nij,nj->ni", children[:, :3, :3], self.axes_local)
        return axes, children[:, :3, 3]

    def point_jacobian(self, state: KinematicState, link: str, point_torso_m: np.ndarray) -> np.ndarray:
        """6 x n Jacobian (linear; angular) of a point fixed on `link`, given in the torso frame.

        Columns follow ``joint_names`` (RHipYawPitch separate); zero for joints not moving the link.
        """
        link_i = self._link_index[self.parent_link_of(link)]
        mask = self.moves_link[:, link_i]
        axes, origins = self._axes_and_origins(state)
        jac = np.zeros((6, len(self.joint_names)))
        jac[:3, mask] = np.cross(axes[mask], np.asarray(point_torso_m) - origins[mask]).T
        jac[3:, mask] = axes[mask].T
        return jac

    def frame_jacobian(self, state: KinematicState, name: str) -> np.ndarray:
        """6 x n Jacobian of the origin and orientation of a named frame, torso frame."""
        return self.point_jacobian(state, self.parent_link_of(name), self.pose(state, name)[:3, 3])

    def com_jacobian(self, state: KinematicState) -> np.ndarray:
        """3 x n Jacobian of the whole-body centre of mass (torso frame)."""
        axes, origins = self._axes_and_origins(state)
        weighted = self.moves_link @ (self.link_mass_kg[:, None] * state.link_com_torso_m)
        return np.cross(axes, weighted - self._subtree_mass[:, None] * origins).T / self.total_mass_kg

    def fold_hip_yaw_pitch(self, jac: np.ndarray) -> np.ndarray:
        """Jacobian in motor space: the RHipYawPitch column added to LHipYawPitch's."""
        return jac @ self._fold

    # --- NAOqi spaces ----------------------------------------------------------------------
    def ground_frame(
        self,
        state: KinematicState,
        torso_attitude: np.ndarray | None = None,
        yaw_from: str = "feet",
    ) -> np.ndarray:
        """A frame on the floor under the feet, in the torso frame (REP-120 / FRAME_ROBOT).

        Origin: midpoint of the soles projected on the floor, at the height of the lower sole.
        z: vertical. With `torso_attitude` (3x3 torso rotation in a gravity-aligned frame, e.g.
        from the IMU) the vertical comes from it; otherwise the lower (supporting) sole is taken
        to be flat on the floor. Yaw: mean of the feet yaws ("feet": NAOqi's FRAME_ROBOT) or the
        torso yaw ("torso": REP-120 base_footprint).
        """
        lsole, rsole = self.pose(state, "l_sole"), self.pose(state, "r_sole")
        if torso_attitude is None:
            support = lsole if lsole[2, 3] <= rsole[2, 3] else rsole
            level = support[:3, :3]
        else:
            r = np.asarray(torso_attitude)
            level = (spatial.rot_z(np.arctan2(r[1, 0], r[0, 0])).T @ r).T
        lp, rp = level.T @ lsole[:3, 3], level.T @ rsole[:3, 3]
        if yaw_from == "feet":
            headings = level.T @ (lsole[:3, 0] + rsole[:3, 0])
            yaw = np.arctan2(headings[1], headings[0])
        else:
            yaw = np.arctan2(level[0, 1], level[0, 0])
        centre = np.array([(lp[0] + rp[0]) / 2, (lp[1] + rp[1]) / 2, min(lp[2], rp[2])])
        return spatial.transform(level) @ spatial.transform(spatial.rot_z(yaw), centre)

    def transform_in_space(
        self,
        state: KinematicState,
        name: str,
        space: int,
        world_from_robot: np.ndarray | None = None,
        torso_attitude: np.ndarray | None = None,
    ) -> np.ndarray:
        """NAOqi getTransform: 4x4 pose of `name` in FRAME_TORSO, FRAME_WORLD or FRAME_ROBOT.

        FRAME_WORLD is the robot frame composed with `world_from_robot` (the odometry; identity
        until the robot has walked).
        """
        pose = self.pose(state, name)
        if space == FRAME_TORSO:
            return pose.copy()
        if space not in (FRAME_WORLD, FRAME_ROBOT):
            raise ValueError(f"unknown space {space!r}: expected 0 (FRAME_TORSO), 1 (FRAME_WORLD) or 2 (FRAME_ROBOT)")
        robot_in_torso = self.ground_frame(state, torso_attitude, yaw_from="feet")
        in_robot = spatial.inverse(robot_in_torso) @ pose
        if space == FRAME_ROBOT or world_from_robot is None:
            return in_robot
        return np.asarray(world_from_robot) @ in_robot

    def position_in_space(self, state: KinematicState, name: str, space: int, **kwargs) -> np.ndarray:
        """NAOqi getPosition: (x, y, z, wx, wy, wz) in metres and radians."""
        return spatial.position6d_from_transform(self.transform_in_space(state, name, space, **kwargs))

    # --- mDH reference (kept for checking the tree, not for per-cycle use) ----------------
    def chain_end_by_mdh(self, q: np.ndarray, chain: str) -> np.ndarray:
        """Chain end pose by the seed's recipe: base . prod(mDH(q)) . end (torso frame)."""
        return self.joint_frames_by_mdh(q, chain)[-1] @ self.model.chains[chain].end

    def joint_frames_by_mdh(self, q: np.ndarray, chain: str) -> list[np.ndarray]:
        """Every joint's mDH frame of a chain (torso frame), straight from the table."""
        c = self.model.chains[chain]
        q = self.model.mimic_hip_yaw_pitch(q)
        t, out = c.base, []
        for name in c.joints:
            alpha, a, theta0, d = self.model.joint(name).mdh
            t = t @ spatial.modified_dh(alpha, a, theta0 + q[self.model.joint_index(name)], d)
            out.append(t)
        return out
