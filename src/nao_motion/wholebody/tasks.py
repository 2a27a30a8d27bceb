"""The whole-body QP's tasks: Cartesian wishes (head orientation, arm positions, the centre of
mass, the swing feet, the torso's orientation) and the articular wish.

A Cartesian task asks for a velocity from a clamped proportional error, ``v = clamp(gain * error
/ dt)``, with a weight per row; it is off (zero weight) while it has no target. The balancer
sets the targets (world frame W) each cycle from NAOqi's settings and the walk's references.
"""

from __future__ import annotations

import math

import numpy as np

from .. import spatial
from ..qp import DiagonalTask, Task
from .context import ARM, HEAD, SOLE, WholeBodyContext
from .floating_base import ANGULAR, LINEAR, N_BASE


def clamp_norm(v: tuple[float, float, float], limit: float) -> tuple[float, float, float]:
    """Three Python floats scaled down to norm `limit` when longer (the tasks' velocities: a few
    floats cost less in Python than in numpy calls)."""
    x, y, z = v
    n = math.sqrt(x * x + y * y + z * z)
    if n > limit:
        scale = limit / n
        return x * scale, y * scale, z * scale
    return v


def _chain_columns(ctx: WholeBodyContext, chain: str | None, base: slice) -> np.ndarray:
    """The variables a frame's rows involve: these torso-twist columns and its chain's motors."""
    columns = np.zeros(ctx.n, dtype=bool)
    columns[base] = True
    if chain is not None:
        for joint in ctx.model.chains[chain].joints:
            columns[ctx.column(joint)] = True
    return columns


class _TargetTask(Task):
    """A task that is on while it has a target; it zeroes its weights once when switched off."""

    def __init__(self, ctx: WholeBodyContext, n_rows: int, columns: np.ndarray):
        super().__init__(n_rows, columns)
        self.ctx = ctx
        self.target_world = None
        self._on = False

    def fill(self) -> None:
        if self.target_world is None:
            if self._on:
                self.weight.fill(0.0)
                self._on = False
            return
        self._on = True
        self.fill_on()

    def fill_on(self) -> None:
        raise NotImplementedError


class HeadOrientationTask(_TargetTask):
    """wbSetEffectorControl("Head"): the head's orientation (target: 3x3 rotation in W)."""

    def __init__(self, ctx: WholeBodyContext):
        super().__init__(ctx, 3, _chain_columns(ctx, "Head", ANGULAR))

    def fill_on(self) -> None:
        ctx, cfg = self.ctx, self.ctx.config
        gain = cfg.task_gain / ctx.dt_s
        np.copyto(self.jacobian, ctx.jac.frame_jacobian[HEAD, ANGULAR])
        ex, ey, ez = spatial.rotation_error_floats(self.target_world, ctx.jac.frame_pose_world[HEAD, :3, :3])
        self.target[:] = clamp_norm((ex * gain, ey * gain, ez * gain), cfg.head_max_rate_radps)
        self.weight.fill(cfg.head_orientation_weight)


class ArmPositionTask(_TargetTask):
    """wbSetEffectorControl("LArm" / "RArm"): the gripper's position (target: (3,) m in W)."""

    def __init__(self, ctx: WholeBodyContext, arm: str):
        super().__init__(ctx, 3, _chain_columns(ctx, arm, slice(0, N_BASE)))
        self.frame = ARM[arm]

    def fill_on(self) -> None:
        ctx, cfg = self.ctx, self.ctx.config
        gain = cfg.task_gain / ctx.dt_s
        np.copyto(self.jacobian, ctx.jac.frame_jacobian[self.frame, LINEAR])
        (tx, ty, tz), (px, py, pz) = self.target_world.tolist(), ctx.jac.frame_pose_world[self.frame, :3, 3].tolist()
        self.target[:] = clamp_norm(((tx - px) * gain, (ty - py) * gain, (tz - pz) * gain), cfg.arm_max_speed_mps)
        self.weight.fill(cfg.arm_position_weight)


class ComTask(_TargetTask):
    """The centre of mass: wbGoToBalance (in the floor plane) or the walk's reference (3D).

    The balancer sets ``target_world`` (m, W), ``axes`` (2 or 3), ``gain`` (fraction of the error
    per cycle) and ``max_speed_mps``.
    """

    def __init__(self, ctx: WholeBodyContext):
        super().__init__(ctx, 3, np.ones(ctx.n, dtype=bool))
        self.axes, self.gain, self.max_speed_mps = 3, 1.0, 0.1

    def fill_on(self) -> None:
        ctx, gain, weight = self.ctx, self.gain / self.ctx.dt_s, self.ctx.config.com_weight
        np.copyto(self.jacobian, ctx.jac.com_jacobian)
        # Three numbers: in Python floats (numpy's calls on them cost more than the arithmetic).
        (tx, ty, tz), (cx, cy, cz) = self.target_world.tolist(), ctx.jac.com_world_m.tolist()
        vz = (tz - cz) * gain if self.axes == 3 else 0.0
        self.target[:] = clamp_norm(((tx - cx) * gain, (ty - cy) * gain, vz), self.max_speed_mps)
        self.weight[:] = (weight, weight, weight if self.axes == 3 else 0.0)


class SwingFootTask(_TargetTask):
    """A walking foot that is not held: its sole's pose (target: 4x4 in W)."""

    def __init__(self, ctx: WholeBodyContext, foot: str):
        chain = "LLeg" if foot == "left" else "RLeg"
        super().__init__(ctx, 6, _chain_columns(ctx, chain, slice(0, N_BASE)))
        self.frame = SOLE[foot]
        # Views fill_on() reads, made once: the sole's Jacobian and pose (world frame).
        self._frame_jacobian = ctx.jac.frame_jacobian[self.frame]
        pose = ctx.jac.frame_pose_world[self.frame]
        self._position, self._rotation = pose[:3, 3], pose[:3, :3]

    def fill_on(self) -> None:
        ctx, cfg = self.ctx, self.ctx.config
        gain = cfg.walk_task_gain / ctx.dt_s
        target = self.target_world
        np.copyto(self.jacobian, self._frame_jacobian)
        (tx, ty, tz), (px, py, pz) = target[:3, 3].tolist(), self._position.tolist()
        vx, vy, vz = clamp_norm(((tx - px) * gain, (ty - py) * gain, (tz - pz) * gain), cfg.foot_max_speed_mps)
        wx, wy, wz = spatial.rotation_error_floats(target[:3, :3], self._rotation)
        self.target[:] = (vx, vy, vz, wx * gain, wy * gain, wz * gain)
        self.weight.fill(cfg.foot_weight)


class TorsoOrientationTask(Task):
    """The torso's orientation (its angular velocity's rows).

    Walking (``heading_world`` set: the yaw between the feet, rad): that heading, tilted about x
    then y by ``tilt_rad`` (the walk's TorsoWx / TorsoWy).
    Otherwise a weak wish for an upright torso (roll and pitch; yaw free): left to the articular
    wishes alone, a leg motion (HipYawPitch, the knees) would tilt the whole torso.
    """

    def __init__(self, ctx: WholeBodyContext):
        columns = np.zeros(ctx.n, dtype=bool)
        columns[ANGULAR] = True
        super().__init__(3, columns)
        self.ctx = ctx
        self.heading_world: float | None = None
        self.tilt_rad: tuple[float, float] = (0.0, 0.0)
        self._torso_rotation = ctx.jac.torso_world[:3, :3]

    def prepare(self) -> None:
        self.jacobian[:, ANGULAR] = np.eye(3)

    def fill(self) -> None:
        ctx, cfg = self.ctx, self.ctx.config
        torso = ctx.jac.torso_world
        if self.heading_world is not None:  # in floats, as below
            gain = cfg.walk_task_gain / ctx.dt_s
            target = spatial.rotation_rows_from_rpy(self.tilt_rad[0], self.tilt_rad[1], self.heading_world)
            ex, ey, ez = spatial.rotation_error_of_rows(target, self._torso_rotation.tolist())
            self.target[:] = (gain * ex, gain * ey, gain * ez)
            self.weight.fill(cfg.torso_orientation_weight)
            return
        # z_torso x z_world turns the torso's z upright, within the torso's rate (in floats: two
        # numbers cost less in Python than in numpy).
        gain, limit = cfg.task_gain / ctx.dt_s, cfg.torso_max_rate_radps
        zx, zy = torso[:2, 2].tolist()
        wx, wy = gain * zy, -gain * zx
        rate = math.hypot(wx, wy)
        if rate > limit:
            wx, wy = wx * (limit / rate), wy * (limit / rate)
        self.target[:] = (wx, wy, 0.0)
        self.weight[:] = (cfg.torso_upright_weight, cfg.torso_upright_weight, 0.0)


class ArticularWish(DiagonalTask):
    """The collision filter's command, per motor joint.

    A joint whose wish moves (a commanded motion, or within ``moving_wish_hold_s`` of its end)
    follows it: q_dot_wish = (q_wish - q) / dt within the speed limit, weight
    ``moving_wish_weight``. A joint whose wish holds wishes to keep still (``articular_weight``),
    so the joints that were not commanded are the ones that compensate, and their compensation is
    not pulled back later (NAOqi's wbFootState example: HipYawPitch turns to -45 deg and stays
    there, the rest of the legs keep the feet flat).

    A motion asking its joints for more than the balancer's speed limit is paced, not clipped
    joint by joint: ``paced`` goes toward the wish with every joint of a chain (Head, each arm,
    the two legs together) slowed by the one factor its fastest joint needs, and the joints follow
    ``paced``. Clipped per joint, a posture change at 0.6 of the motors' speed kept its slow joints
    on time and its knees late: standing up from Crouch, the legs' shape broke and the robot fell.
    A joint held back by something else (a balance compensation, the tracking bound) slows no other.
    A joint whose wish starts to move after holding is paced from the command, where it is.

    While walking, the joints of `walk_held` (the head and each arm without an effector target)
    follow their wish with ``walk_upper_body_weight``: NAOqi's walk moves the legs only, an arm
    is the arm swing's or the user's. With the articular weights alone the walk's COM and torso
    tasks recruited them: the head nodded 0.3 rad and a still arm moved 0.4 rad at every step.
    """

    def __init__(self, ctx: WholeBodyContext):
        super().__init__(slice(N_BASE, ctx.n))
        self.ctx = ctx
        n_joints = ctx.model.n_joints
        self.wish = np.zeros(n_joints)
        self.paced = np.zeros(n_joints)  # the wish as pursued: within the speed limit, per chain
        self._moving_until_s = np.full(n_joints, -np.inf)
        self.changed = np.zeros(n_joints, dtype=bool)
        self._delta = np.zeros(n_joints)
        chain_of = ["Legs" if joint.chain.endswith("Leg") else joint.chain for joint in ctx.model.joints]
        names = list(dict.fromkeys(chain_of))
        self._chain_of = np.array([names.index(chain) for chain in chain_of])
        self._chains = self._chain_of[None, :] == np.arange(len(names))[:, None]  # (chain, joint) masks
        self._step_max = ctx.vmax_joint * ctx.dt_s
        self._need = np.zeros(self._chains.shape)  # per chain, each joint's step over its limit
        self._chain_need = np.zeros(len(self._chains))
        self._factor = np.zeros(n_joints)
        self._lagging = np.zeros(n_joints, dtype=bool)
        self._starting = np.zeros(n_joints, dtype=bool)
        self._catching_up = False
        self._within_limits = np.zeros(n_joints)
        self._lower, self._upper = ctx.model.lower, ctx.model.upper
        self._moving = np.zeros(len(ctx.motor), dtype=bool)
        self._follows = np.zeros(len(ctx.motor), dtype=bool)  # moving or walk_held
        self.walk_held = np.zeros(len(ctx.motor), dtype=bool)  # set by the balancer each cycle

    def reset(self, q_wish: np.ndarray) -> None:
        np.copyto(self.wish, q_wish)
        np.clip(q_wish, self._lower, self._upper, out=self.paced)
        self._catching_up = False

    def set_wish(self, q_wish: np.ndarray, time_s: float) -> None:
        """This cycle's wish (26 joints, rad); a joint whose wish changed, or whose paced wish
        has not caught up with it, is moving until ``moving_wish_hold_s`` after `time_s`."""
        delta = self._delta
        np.subtract(q_wish, self.wish, out=delta)
        np.abs(delta, out=delta)
        np.greater(delta, 1e-9, out=self.changed)
        changed = bool(self.changed.any())
        if not (changed or self._catching_up):  # (most cycles standing: nothing to pace)
            return
        # A joint that held (maybe compensating, away from its old wish) starts from where it is:
        # paced from its old wish, it first went there at the speed limit. After reaches at the
        # arm's bound (legs straightened), Crouch bent the knees 0.4 rad in 0.15 s while the hips
        # turned back, then went down: the trunk's jolt tipped the robot over its toes.
        np.less(self._moving_until_s, time_s, out=self._starting)
        self._starting &= self.changed
        np.copyto(self.paced, self.ctx.q, where=self._starting)
        np.copyto(self.wish, q_wish)
        within = self._within_limits  # a wish beyond a joint's range is paced to the range's end
        np.minimum(q_wish, self._upper, out=within)
        np.maximum(within, self._lower, out=within)
        np.subtract(within, self.paced, out=delta)
        np.abs(delta, out=self._factor)
        self._factor /= self._step_max
        np.multiply(self._chains, self._factor, out=self._need)
        self._need.max(axis=1, out=self._chain_need)
        np.maximum(self._chain_need, 1.0, out=self._chain_need)
        self._chain_need.take(self._chain_of, out=self._factor)
        delta /= self._factor
        self.paced += delta
        np.subtract(within, self.paced, out=delta)
        np.abs(delta, out=delta)
        np.greater(delta, 1e-9, out=self._lagging)
        self._catching_up = bool(self._lagging.any())
        self._lagging |= self.changed
        np.copyto(self._moving_until_s, time_s + self.ctx.config.moving_wish_hold_s, where=self._lagging)

    def fill(self) -> None:
        ctx, cfg = self.ctx, self.ctx.config
        self._moving_until_s.take(ctx.motor, out=self.target)  # scratch: the motors' hold times
        np.less(ctx.time_s, self.target, out=self._moving)
        self.weight.fill(cfg.articular_weight)
        np.copyto(self.weight, cfg.moving_wish_weight, where=self._moving)
        dq = self.target
        self.paced.take(ctx.motor, out=dq)
        dq -= ctx.q_motor
        dq /= ctx.dt_s
        np.minimum(dq, ctx.vmax_motor, out=dq)
        np.maximum(dq, -ctx.vmax_motor, out=dq)
        # Held wishes (neither moving nor walk_held): keep still, compensations stay.
        np.logical_or(self._moving, self.walk_held, out=self._follows)
        dq *= self._follows
        np.copyto(self.weight, cfg.walk_upper_body_weight, where=self.walk_held)
