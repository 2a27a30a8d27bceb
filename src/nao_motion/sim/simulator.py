"""The simulated NAO (MuJoCo; no rclpy): commands and stiffness in, NAO-like sensors out.

One call to :meth:`NaoSimulator.step` advances one control cycle (``model.cycle_time_s``:
10 ms on V5, 12 ms on V6, or ``control_period_s``) made of fixed physics steps (2 ms by
default). Commands and stiffness set before a step hold during it, like the DCM's.

Joint vectors are full vectors in ``model.joint_names`` order (26 joints with the hands):

* RHipYawPitch follows LHipYawPitch (one motor; its command and stiffness are ignored, as
  NAOqi does); its reported effort is the shared motor's torque.
* LHand and RHand have no bodies: they are virtual joints moving toward their command at
  their maximum speed while their stiffness is above 0 (effort reported 0).

Sensors (:class:`SimState`): joint positions, velocities and motor torques; IMU at the torso
frame origin (orientation in the world frame, angular velocity and proper linear acceleration,
gravity included as an accelerometer reads it, in the torso frame); FSR forces, 4 per foot in
newtons, order FL, FR, RL, RR (the foot's contact normal forces spread over the sensors by the
contact points' positions, :func:`~nao_motion.sim.fsr.distribute_to_fsrs`); the true torso pose
and twist (world frame, plus the twist in the torso frame).

A robot that differs from the controller's model (for robustness tests; the controller is not
told): ``servo_strength`` scales every servo's position gain and torque (0.7: 70 %); the
velocity gain (damping) stays as built; ``mass_scale`` multiplies named bodies' masses and
inertias (``{"torso": 1.1}``); ``contact`` sets the sole friction (``ContactParams``);
``actuation_delay_cycles`` delays the commands; ``sensor_noise`` adds Gaussian noise (seeded)
to the measured joint positions and to the IMU's attitude (the ground truth stays exact).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import mujoco
import numpy as np

from .. import spatial
from ..kinematics import ForwardKinematics
from ..model import NaoModel
from ..postures import posture as named_posture
from .fsr import FOOT_SIDES, distribute_to_fsrs, fsr_positions_in_sole
from .mjcf import FREE_JOINT, ContactParams, build_mjcf, sole_frame_name
from .servo import ServoBank, ServoParams, actuated_joint_names

DEFAULT_PHYSICS_STEP_S = 0.002
DEFAULT_FALL_TILT_RAD = float(np.deg2rad(60.0))
# Fallen when the torso is lower than this fraction of its height over the soles at q = 0.
DEFAULT_FALL_HEIGHT_FRACTION = 0.45


@dataclass(frozen=True)
class SensorNoise:
    """Standard deviations of the measurement noise (white, per cycle) and its seed."""

    joint_position_rad: float = 0.0
    imu_attitude_rad: float = 0.0  # about each axis
    seed: int = 0


@dataclass
class SimState:
    """Everything the simulator measures at the end of a cycle (SI units, see the module doc)."""

    time_s: float
    cycle: int
    position: np.ndarray  # (26,) rad, model.joint_names order
    velocity: np.ndarray  # (26,) rad/s
    effort: np.ndarray  # (26,) N m (motor torque)
    command: np.ndarray  # (26,) rad, the position each servo is commanded to
    stiffness: np.ndarray  # (26,) 0..1
    imu_orientation_xyzw: np.ndarray  # torso orientation in the world frame
    imu_angular_velocity: np.ndarray  # rad/s, torso frame, at the end of the cycle
    # rad/s, torso frame: the mean over the cycle's physics steps, what an IMU's output filter gives
    # at the packet rate (the nao_lola interface's); a sample a cycle apart aliases the footfalls' jolts
    imu_angular_velocity_mean: np.ndarray
    imu_linear_acceleration: np.ndarray  # m/s^2, torso frame, reads +9.81 up at rest
    fsr_left: np.ndarray  # (4,) N, FL FR RL RR
    fsr_right: np.ndarray  # (4,) N, FL FR RL RR
    torso_position: np.ndarray  # m, world
    torso_orientation_xyzw: np.ndarray  # world
    torso_linear_velocity: np.ndarray  # m/s, world
    torso_angular_velocity: np.ndarray  # rad/s, world
    torso_linear_velocity_local: np.ndarray  # m/s, torso frame
    torso_angular_velocity_local: np.ndarray  # rad/s, torso frame
    torso_tilt_rad: float  # angle between the torso z axis and the vertical
    fallen: bool
    pushing: bool = False

    @property
    def fsr_total_n(self) -> float:
        return float(self.fsr_left.sum() + self.fsr_right.sum())


class SimulationDiverged(RuntimeError):
    """The physics produced non-finite values (the simulator must be reset)."""


class NaoSimulator:
    """A NAO in MuJoCo with NAO-like position servos, stepped one control cycle at a time."""

    def __init__(
        self,
        model: NaoModel | None = None,
        physics_step_s: float = DEFAULT_PHYSICS_STEP_S,
        control_period_s: float | None = None,
        servo: ServoParams | None = None,
        contact: ContactParams | None = None,
        initial_posture: str | np.ndarray = "StandInit",
        initial_stiffness: float = 1.0,
        self_collision: bool = False,
        actuation_delay_cycles: int = 0,
        fall_tilt_rad: float = DEFAULT_FALL_TILT_RAD,
        fall_height_m: float | None = None,
        servo_strength: float = 1.0,
        mass_scale: dict[str, float] | None = None,
        sensor_noise: SensorNoise | None = None,
    ):
        self.model = model or NaoModel()
        self.fk = ForwardKinematics(self.model)
        self.control_period_s = float(control_period_s or self.model.cycle_time_s)
        self.substeps = int(round(self.control_period_s / physics_step_s))
        if self.substeps < 1 or abs(self.substeps * physics_step_s - self.control_period_s) > 1e-9:
            raise ValueError(
                f"control period {self.control_period_s} s is not a whole number of physics steps of {physics_step_s} s"
            )
        self.physics_step_s = float(physics_step_s)
        self.mjcf = build_mjcf(self.model, physics_step_s, servo, contact, self_collision)
        self.mj_model = mujoco.MjModel.from_xml_string(self.mjcf)
        for body, factor in (mass_scale or {}).items():
            b = mujoco.mj_name2id(self.mj_model, mujoco.mjtObj.mjOBJ_BODY, body)
            if b < 0 or not (np.isfinite(factor) and factor > 0.0):
                raise ValueError(f"mass_scale: no body {body!r} or factor {factor!r} not > 0")
            self.mj_model.body_mass[b] *= factor
            self.mj_model.body_inertia[b] *= factor
        self.mj_data = mujoco.MjData(self.mj_model)
        m = self.mj_model

        self.joint_names = self.model.joint_names
        self.servos = ServoBank(self.model, servo)
        self._act_model_index = self.servos.model_index
        self.servos.kv = -m.actuator_biasprm[:, 2].copy()  # MuJoCo's dampratio -> kv at compile
        if not (np.isfinite(servo_strength) and 0.0 < servo_strength <= 1.0):
            raise ValueError(f"servo_strength must be in (0, 1], got {servo_strength!r}")
        # After kv (the damping as built); the gains reach MuJoCo through set_stiffness in reset.
        self.servos.kp = self.servos.kp * servo_strength
        self.servos.max_effort = self.servos.max_effort * servo_strength
        self.sensor_noise = sensor_noise or SensorNoise()
        self._noise_rng = np.random.default_rng(self.sensor_noise.seed)

        # qpos / dof addresses of every kinematic joint, in model.joint_names order.
        def jid(name: str) -> int:
            return mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)

        kin = [n for n in self.joint_names if n in self.model.kinematic_joint_names]
        self._kin_model_index = np.array([self.model.joint_index(n) for n in kin])
        self._kin_qpos = np.array([m.jnt_qposadr[jid(n)] for n in kin])
        self._kin_dof = np.array([m.jnt_dofadr[jid(n)] for n in kin])
        self._act_dof = np.array([m.jnt_dofadr[jid(n)] for n in self.servos.joint_names])
        self._free_qpos = m.jnt_qposadr[jid(FREE_JOINT)]
        self._free_dof = m.jnt_dofadr[jid(FREE_JOINT)]
        self._hands = np.array([
            self.model.joint_index(n) for n in self.joint_names if n not in self.model.kinematic_joint_names])
        self._lhyp = self.model.joint_index("LHipYawPitch")
        self._rhyp = self.model.joint_index("RHipYawPitch")
        self._lhyp_act = self.servos.joint_names.index("LHipYawPitch")
        self._torso_body = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "torso")
        self._sensor = {
            name: (m.sensor_adr[i], m.sensor_dim[i])
            for name in ("imu_orientation", "imu_gyro", "imu_accelerometer")
            for i in [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, name)]
        }
        gyro_adr, gyro_dim = self._sensor["imu_gyro"]
        self._gyro_slice = slice(gyro_adr, gyro_adr + gyro_dim)
        self._gyro_sum = np.zeros(gyro_dim)  # the cycle's gyro samples, summed
        # Feet: every geom of the ankle-roll bodies counts for the FSRs, sole frames from sites.
        self._foot_body = {}
        self._sole_site = {}
        self._fsr_xy = {}
        for side in FOOT_SIDES:
            site = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SITE, sole_frame_name(side))
            self._sole_site[side] = site
            self._foot_body[side] = m.site_bodyid[site]
            self._fsr_xy[side] = fsr_positions_in_sole(self.model, side)[:, :2]
        self._geom_body = m.geom_bodyid.copy()
        self._pyramidal = m.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL

        zero = self.fk.compute(self.model.zero_configuration())
        self.standing_height_m = float(-self.fk.pose(zero, "l_sole")[2, 3])
        self.fall_tilt_rad = float(fall_tilt_rad)
        if fall_height_m is None:
            fall_height_m = DEFAULT_FALL_HEIGHT_FRACTION * self.standing_height_m
        self.fall_height_m = float(fall_height_m)
        self.actuation_delay_cycles = int(actuation_delay_cycles)

        self._push_force = np.zeros(3)
        self._push_steps_left = 0
        self._hand_position = np.zeros(len(self._hands))
        self._command = np.zeros(self.model.n_joints)
        self._command_velocity = np.zeros(self.model.n_joints)
        self._requested = np.zeros(self.model.n_joints)
        self._requested_velocity = np.zeros(self.model.n_joints)
        self._stiffness = np.zeros(self.model.n_joints)
        self._delayed: deque = deque()
        self._fsr = {side: np.zeros(4) for side in FOOT_SIDES}
        self._accelerometer = np.zeros(3)
        self._effort = np.zeros(len(self.servos.joint_names))
        self.cycle = 0
        self.falls = 0
        self._was_fallen = False
        self._last_state: SimState | None = None
        self.initial_posture = initial_posture
        self.reset(initial_posture, initial_stiffness)

    # --- setup ----------------------------------------------------------------------------------
    def posture(self, posture: str | np.ndarray) -> np.ndarray:
        """A full configuration (rad) from a posture name or vector, mimicked and within limits."""
        if isinstance(posture, str):
            return self.model.mimic_hip_yaw_pitch(named_posture(self.model, posture))
        q = np.asarray(posture, dtype=float)
        if q.shape != (self.model.n_joints,):
            raise ValueError(f"posture must have {self.model.n_joints} joint values, got shape {q.shape}")
        return self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q))

    def reset(
        self, posture: str | np.ndarray | None = None, stiffness: float | np.ndarray = 1.0, keep_time: bool = False,
    ) -> SimState:
        """Put the robot in a posture (default: the initial one), lower sole flat on the floor, at rest.

        keep_time: simulated time and the cycle count go on from where they were instead of
        restarting at 0 (a ROS clock driven by the simulator must not jump back).
        """
        q = self.posture(self.initial_posture if posture is None else posture)
        m, d = self.mj_model, self.mj_data
        time_s, cycle = (d.time, self.cycle) if keep_time else (0.0, 0)
        mujoco.mj_resetData(m, d)
        d.time = time_s
        d.qpos[self._kin_qpos] = q[self._kin_model_index]
        state = self.fk.compute(q)
        ground_in_torso = self.fk.ground_frame(state, yaw_from="torso")
        torso_in_world = spatial.inverse(ground_in_torso)
        quat_xyzw = spatial.quaternion_xyzw_from_rotation(torso_in_world[:3, :3])
        d.qpos[self._free_qpos:self._free_qpos + 3] = torso_in_world[:3, 3]
        d.qpos[self._free_qpos + 3:self._free_qpos + 7] = np.roll(quat_xyzw, 1)
        self._hand_position = q[self._hands].copy()
        self._command = q.copy()
        self._command_velocity = np.zeros_like(q)
        self._requested, self._requested_velocity = q.copy(), np.zeros_like(q)
        self.servos.reset(q[self._act_model_index], 1.0)
        self._delayed.clear()
        self._push_force[:] = 0.0
        self._push_steps_left = 0
        d.xfrc_applied[:] = 0.0
        self.set_stiffness(stiffness)
        self.cycle = cycle
        self._was_fallen = False
        mujoco.mj_forward(m, d)
        self._apply_servos()
        self._read_contacts()
        self._accelerometer = self._sensor_value("imu_accelerometer")
        self._gyro_sum[:] = d.sensordata[self._gyro_slice] * self.substeps  # a reset: the mean is the sample until a cycle ran
        self._effort = d.actuator_force.copy()
        self._last_state = self._make_state()
        return self._last_state

    def show(self, q: np.ndarray, torso_position_m, torso_orientation_xyzw) -> None:
        """Pose the model for rendering only (no physics): joints and the torso's world pose.

        Lets a process that only receives joint_states and ground truth draw the robot.
        """
        d = self.mj_data
        q = self.model.mimic_hip_yaw_pitch(q)
        d.qpos[self._kin_qpos] = q[self._kin_model_index]
        d.qpos[self._free_qpos:self._free_qpos + 3] = torso_position_m
        d.qpos[self._free_qpos + 3:self._free_qpos + 7] = np.roll(np.asarray(torso_orientation_xyzw, float), 1)
        mujoco.mj_kinematics(self.mj_model, d)

    # --- commands -------------------------------------------------------------------------------
    def set_command(self, positions: np.ndarray, velocities: np.ndarray | None = None) -> None:
        """Target positions (26, rad; clipped to the limits) and optional velocities (rad/s).

        RHipYawPitch's entry is ignored (it follows LHipYawPitch).
        """
        q = np.asarray(positions, dtype=float)
        if q.shape != (self.model.n_joints,):
            raise ValueError(f"expected {self.model.n_joints} positions, got shape {q.shape}")
        if not np.all(np.isfinite(q)):
            raise ValueError("positions must be finite")
        dq = np.zeros_like(q) if velocities is None else np.asarray(velocities, dtype=float)
        if dq.shape != q.shape or not np.all(np.isfinite(dq)):
            raise ValueError("velocities must be finite and match the positions")
        q = self.model.clip_to_limits(self.model.mimic_hip_yaw_pitch(q))
        self._requested, self._requested_velocity = q, dq
        if self.actuation_delay_cycles > 0:
            # Applied at the start of the cycle `actuation_delay_cycles` after the current one.
            self._delayed.append((self.cycle + self.actuation_delay_cycles, q, dq))
            return
        self._set_command_now(q, dq)

    def set_joint_commands(self, names, positions, velocities=None) -> None:
        """Command a subset of joints by name; the others keep their command."""
        q, dq = self._requested.copy(), self._requested_velocity.copy()
        for k, name in enumerate(names):
            i = self.model.joint_index(name)
            q[i] = positions[k]
            dq[i] = 0.0 if velocities is None else velocities[k]
        if "LHipYawPitch" not in names and "RHipYawPitch" in names:
            q[self._lhyp] = q[self._rhyp]  # a lone RHipYawPitch command drives the shared motor
        self.set_command(q, dq)

    def _set_command_now(self, q: np.ndarray, dq: np.ndarray) -> None:
        self._command, self._command_velocity = q, dq
        self.servos.set_command(q[self._act_model_index], dq[self._act_model_index])

    def set_stiffness(self, stiffness: float | np.ndarray) -> None:
        """Stiffness 0..1, a scalar for all joints or 26 values (RHipYawPitch follows LHipYawPitch)."""
        s = np.broadcast_to(np.asarray(stiffness, dtype=float), (self.model.n_joints,)).copy()
        if not np.all(np.isfinite(s)):
            raise ValueError("stiffness must be finite")
        s = np.clip(s, 0.0, 1.0)
        s[self._rhyp] = s[self._lhyp]
        self._stiffness = s
        self.servos.set_stiffness(s[self._act_model_index])
        kp, kv = self.servos.gains()
        m = self.mj_model
        m.actuator_gainprm[:, 0] = kp
        m.actuator_biasprm[:, 1] = -kp
        m.actuator_biasprm[:, 2] = -kv
        m.dof_frictionloss[self._act_dof] = self.servos.friction_at_stiffness()

    def set_joint_stiffness(self, names, values) -> None:
        s = self._stiffness.copy()
        for name, value in zip(names, values):
            s[self.model.joint_index(name)] = value
        if "LHipYawPitch" not in names and "RHipYawPitch" in names:
            s[self._lhyp] = s[self._rhyp]
        self.set_stiffness(s)

    def push(self, force_xyz_n, duration_s: float, frame: str = "world") -> None:
        """Apply a constant force (N) at the torso's centre of mass for duration_s seconds.

        frame "world" or "torso" (a torso-frame force is turned into the world frame once, now).
        """
        f = np.asarray(force_xyz_n, dtype=float).reshape(3)
        if not np.all(np.isfinite(f)) or not np.isfinite(duration_s) or duration_s < 0:
            raise ValueError("push force and duration must be finite, duration >= 0")
        if frame == "torso":
            f = self.mj_data.xmat[self._torso_body].reshape(3, 3) @ f
        elif frame != "world":
            raise ValueError(f"unknown frame {frame!r}: expected 'world' or 'torso'")
        self._push_force = f
        self._push_steps_left = int(round(duration_s / self.physics_step_s))

    # --- stepping -------------------------------------------------------------------------------
    @property
    def time_s(self) -> float:
        return float(self.mj_data.time)

    def step(self, cycles: int = 1) -> SimState:
        """Advance `cycles` control cycles; return the state at the end of the last one."""
        m, d = self.mj_model, self.mj_data
        bad_accelerations = d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number
        for _ in range(int(cycles)):
            time_s = d.time
            while self._delayed and self._delayed[0][0] <= self.cycle:
                self._set_command_now(*self._delayed.popleft()[1:])
            gyro_sum = self._gyro_sum
            gyro_sum[:] = 0.0
            for k in range(self.substeps):
                self._apply_servos()
                if self._push_steps_left > 0:
                    d.xfrc_applied[self._torso_body, :3] = self._push_force
                    self._push_steps_left -= 1
                else:
                    d.xfrc_applied[self._torso_body, :3] = 0.0
                mujoco.mj_step2(m, d)
                if k == self.substeps - 1:
                    # Contact forces and accelerations belong with the contacts found for this step.
                    self._read_contacts()
                    self._accelerometer = self._sensor_value("imu_accelerometer")
                    self._effort = d.actuator_force.copy()
                mujoco.mj_step1(m, d)
                gyro_sum += d.sensordata[self._gyro_slice]
            self._move_hands()
            self.cycle += 1
            if d.time < time_s or d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number != bad_accelerations:
                # MuJoCo reset the data itself (time back to 0): sim time must not jump back.
                d.time = time_s + self.control_period_s
                raise SimulationDiverged(f"unstable physics (huge acceleration) at t = {d.time:.3f} s")
        if not (np.all(np.isfinite(d.qpos)) and np.all(np.isfinite(d.qvel))):
            raise SimulationDiverged(f"non-finite physics state at t = {d.time:.3f} s")
        self._last_state = self._make_state()
        return self._last_state

    def run(self, duration_s: float) -> SimState:
        """Step whole cycles for (at least) duration_s seconds."""
        return self.step(int(np.ceil(duration_s / self.control_period_s - 1e-9)))

    def _apply_servos(self) -> None:
        m, d = self.mj_model, self.mj_data
        ctrl, lo, hi = self.servos.update(d.qvel[self._act_dof], self.physics_step_s)
        d.ctrl[:] = ctrl
        m.actuator_forcerange[:, 0] = lo
        m.actuator_forcerange[:, 1] = hi

    def _move_hands(self) -> None:
        if self._hands.size == 0:
            return
        step = self.model.max_velocity[self._hands] * self.control_period_s
        active = self._stiffness[self._hands] > 0.0
        delta = np.clip(self._command[self._hands] - self._hand_position, -step, step)
        self._hand_position = self._hand_position + np.where(active, delta, 0.0)

    # --- sensors ------------------------------------------------------------------------------
    def _sensor_value(self, name: str) -> np.ndarray:
        adr, dim = self._sensor[name]
        return self.mj_data.sensordata[adr:adr + dim].copy()

    def _read_contacts(self) -> None:
        """FSR forces from the current contacts: each foot contact's force along its sole's z axis.

        Reads the constraint forces straight from ``efc_force`` (elliptic cones: normal force,
        then the two friction forces, in the contact frame), vectorised over the contacts.
        """
        d = self.mj_data
        for side in FOOT_SIDES:
            self._fsr[side] = np.zeros(4)
        n = d.ncon
        if n == 0:
            return
        contact = d.contact
        adr = contact.efc_address
        bodies = self._geom_body[contact.geom]  # (n, 2)
        active = adr >= 0
        if self._pyramidal:
            wrench = np.zeros(6)
            forces = np.zeros((n, 3))
            for i in np.flatnonzero(active):
                mujoco.mj_contactForce(self.mj_model, d, int(i), wrench)
                forces[i] = wrench[:3]
        else:
            dim = contact.dim
            forces = np.zeros((n, 3))
            safe = np.where(active, adr, 0)
            forces[:, 0] = d.efc_force[safe]
            tangential = active & (dim >= 3)
            forces[tangential, 1] = d.efc_force[safe[tangential] + 1]
            forces[tangential, 2] = d.efc_force[safe[tangential] + 2]
            forces[~active] = 0.0
        frames = contact.frame.reshape(n, 3, 3)  # rows: normal, tangent 1, tangent 2 (world)
        force_world = np.einsum("nij,ni->nj", frames, forces)
        for side in FOOT_SIDES:
            on_foot = active & np.any(bodies == self._foot_body[side], axis=1)
            if not np.any(on_foot):
                continue
            site = self._sole_site[side]
            r = d.site_xmat[site].reshape(3, 3)
            normal = np.abs(force_world[on_foot] @ r[:, 2])
            points = (contact.pos[on_foot] - d.site_xpos[site]) @ r
            self._fsr[side] = distribute_to_fsrs(self._fsr_xy[side], points[:, :2], normal)

    def _make_state(self) -> SimState:
        d = self.mj_data
        n = self.model.n_joints
        q, dq, tau = np.zeros(n), np.zeros(n), np.zeros(n)
        q[self._kin_model_index] = d.qpos[self._kin_qpos]
        dq[self._kin_model_index] = d.qvel[self._kin_dof]
        tau[self._act_model_index] = self._effort
        tau[self._rhyp] = self._effort[self._lhyp_act]
        q[self._hands] = self._hand_position
        fq = self._free_qpos
        pos = d.qpos[fq:fq + 3].copy()
        quat_wxyz = d.qpos[fq + 3:fq + 7]
        quat_xyzw = np.roll(quat_wxyz, -1) / np.linalg.norm(quat_wxyz)
        r = spatial.rotation_from_quaternion_xyzw(quat_xyzw)
        fd = self._free_dof
        lin_world = d.qvel[fd:fd + 3].copy()
        ang_local = d.qvel[fd + 3:fd + 6].copy()  # MuJoCo: free-joint angular velocity in the body frame
        imu_quat = np.roll(self._sensor_value("imu_orientation"), -1)
        noise = self.sensor_noise
        if noise.joint_position_rad > 0.0:
            q = q + self._noise_rng.normal(0.0, noise.joint_position_rad, n)
        if noise.imu_attitude_rad > 0.0:
            tilt = self._noise_rng.normal(0.0, noise.imu_attitude_rad, 3)
            noisy = spatial.rotation_from_quaternion_xyzw(imu_quat / np.linalg.norm(imu_quat)) \
                @ spatial.rot_x(tilt[0]) @ spatial.rot_y(tilt[1]) @ spatial.rot_z(tilt[2])
            imu_quat = spatial.quaternion_xyzw_from_rotation(noisy)
        tilt = float(np.arccos(np.clip(r[2, 2], -1.0, 1.0)))
        fallen = tilt > self.fall_tilt_rad or pos[2] < self.fall_height_m
        if fallen and not self._was_fallen:
            self.falls += 1
        self._was_fallen = fallen
        return SimState(
            time_s=float(d.time),
            cycle=self.cycle,
            position=q,
            velocity=dq,
            effort=tau,
            command=self._command.copy(),
            stiffness=self._stiffness.copy(),
            imu_orientation_xyzw=imu_quat / np.linalg.norm(imu_quat),
            imu_angular_velocity=self._sensor_value("imu_gyro"),
            imu_angular_velocity_mean=self._gyro_sum / self.substeps,
            imu_linear_acceleration=self._accelerometer.copy(),
            fsr_left=self._fsr["left"].copy(),
            fsr_right=self._fsr["right"].copy(),
            torso_position=pos,
            torso_orientation_xyzw=quat_xyzw,
            torso_linear_velocity=lin_world,
            torso_angular_velocity=r @ ang_local,
            torso_linear_velocity_local=r.T @ lin_world,
            torso_angular_velocity_local=ang_local,
            torso_tilt_rad=tilt,
            fallen=bool(fallen),
            pushing=self._push_steps_left > 0,
        )

    @property
    def state(self) -> SimState:
        return self._last_state

    @property
    def fallen(self) -> bool:
        return bool(self._last_state.fallen)

    @property
    def actuated_joint_names(self) -> tuple[str, ...]:
        return actuated_joint_names(self.model)
