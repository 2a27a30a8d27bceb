"""NAO-like position servos (numpy only): stiffness, torque and speed limits, reference slewing.

A NAO joint is a DC motor behind a high-ratio gearbox with a position loop on its motor board;
the DCM sends it a position and a "stiffness" each cycle, the stiffness being the fraction of
the motor's torque that the loop may use. Modelled per joint (all values per joint, in the
model's joint order restricted to :func:`actuated_joint_names`):

* position loop: tau = s (kp (r - q) - kv dq), with r the slewed reference and s the stiffness;
  kp is chosen so a stiffness-1 servo reaches its maximum torque at a position error of
  ``saturation_error_rad`` (kp = max_effort / saturation_error); kv from ``damping_ratio``
  (MuJoCo computes it from each joint's effective inertia when the MJCF is compiled), so both
  scale with the stiffness as NAO's do;
* torque limit: |tau| <= s max_effort, further bounded by the motor's torque-speed line
  (DC motor: torque available in the direction of motion falls linearly to 0 at the no-load
  speed ``model.max_velocity``; braking torque is always available);
* reference slewing: the reference moves toward the command at most at max_velocity, the way
  the motor itself cannot go faster (and without it a large step would wind the loop up);
* passive: reflected rotor inertia (armature), viscous damping and Coulomb friction that remain
  at stiffness 0, so a limp NAO collapses but does not flail. The friction the joint shows falls
  from ``limp_friction_per_effort`` at stiffness 0 to ``friction_per_effort`` at 1
  (``friction_at_stiffness``): limp, a NAO joint is held by its gearbox alone, which keeps a limp
  NAO in Crouch where NAOqi's rest() leaves it; stiff, NAO's motor board runs its position loop
  far faster than this model's, whose gain is set for NAO's compliance, and works through it.

The figures here are simulation tuning, not NAO data: the NAO data (limits, torques, speeds)
come from :class:`~nao_motion.model.NaoModel`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import NaoModel


@dataclass(frozen=True)
class ServoParams:
    """Simulation tuning of the joint servos (see the module docstring)."""

    saturation_error_rad: float = float(np.deg2rad(1.5))
    damping_ratio: float = 0.9
    # Reflected rotor + gearbox inertia per N m of max torque (kg m^2 / N m): a 3 N m leg motor
    # gets 3e-3 kg m^2, a 0.4 N m wrist motor 4e-4 kg m^2.
    armature_per_effort: float = 1.0e-3
    passive_damping_nms: float = 0.03
    # Gear friction as a fraction of the joint's maximum torque, stiff and limp. Limp in Crouch,
    # the simulated NAO fell on its back within a second at 0.01 (the hips folding under the
    # torso's weight), and held from 0.15 on.
    friction_per_effort: float = 0.01
    limp_friction_per_effort: float = 0.2
    slew_reference: bool = True
    torque_speed_limit: bool = True


def actuated_joint_names(model: NaoModel) -> tuple[str, ...]:
    """Joints that carry a simulated motor: the kinematic joints, RHipYawPitch excluded.

    RHipYawPitch is driven by the LHipYawPitch motor through the MJCF's equality constraint; the
    hands (LHand, RHand) have no bodies in the simulation and are handled as virtual joints.
    """
    return tuple(n for n in model.kinematic_joint_names if n != "RHipYawPitch")


class ServoBank:
    """The servos of the actuated joints: holds commands, references and stiffness.

    Per physics step, :meth:`update` slews the reference and returns the control input and the
    torque bounds for the simulator to apply (MuJoCo position actuators with gain s kp, bias
    -s kp q - s kv dq, and force range [lo, hi]).
    """

    def __init__(self, model: NaoModel, params: ServoParams | None = None, joint_names: tuple | None = None):
        self.model = model
        self.params = params or ServoParams()
        self.joint_names = tuple(joint_names or actuated_joint_names(model))
        idx = np.array([model.joint_index(n) for n in self.joint_names])
        self.model_index = idx
        self.lower, self.upper = model.lower[idx].copy(), model.upper[idx].copy()
        self.max_velocity = model.max_velocity[idx].copy()
        self.max_effort = model.max_effort[idx].copy()
        p = self.params
        self.kp = self.max_effort / p.saturation_error_rad
        self.kv = np.zeros_like(self.kp)  # set by the simulator from the compiled model
        self.armature = p.armature_per_effort * self.max_effort
        self.damping = np.full_like(self.kp, p.passive_damping_nms)
        self.friction = p.friction_per_effort * self.max_effort
        self.limp_friction = p.limp_friction_per_effort * self.max_effort
        n = len(self.joint_names)
        self.command = np.zeros(n)
        self.command_velocity = np.zeros(n)
        self.reference = np.zeros(n)
        self.stiffness = np.ones(n)

    def reset(self, q: np.ndarray, stiffness) -> None:
        """Hold position q (actuated-joint order) with the given stiffness (scalar or per joint)."""
        self.command = np.clip(np.asarray(q, dtype=float), self.lower, self.upper)
        self.reference = self.command.copy()
        self.command_velocity = np.zeros_like(self.command)
        self.set_stiffness(stiffness)

    def set_command(self, q: np.ndarray, dq: np.ndarray | None = None) -> None:
        self.command = np.clip(np.asarray(q, dtype=float), self.lower, self.upper)
        if dq is None:
            self.command_velocity = np.zeros_like(self.command)
        else:
            self.command_velocity = np.clip(np.asarray(dq, dtype=float), -self.max_velocity, self.max_velocity)

    def set_stiffness(self, stiffness) -> None:
        s = np.broadcast_to(np.asarray(stiffness, dtype=float), self.command.shape)
        self.stiffness = np.clip(s, 0.0, 1.0).copy()

    def friction_at_stiffness(self) -> np.ndarray:
        """The joints' Coulomb friction (N m) at their current stiffness."""
        return self.limp_friction + (self.friction - self.limp_friction) * self.stiffness

    def gains(self) -> tuple[np.ndarray, np.ndarray]:
        """(s kp, s kv) for the current stiffness."""
        return self.stiffness * self.kp, self.stiffness * self.kv

    def update(self, dq: np.ndarray, dt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance the reference by dt; return (control input, torque lower, torque upper bounds).

        The control input is the position the loop servoes to; a commanded velocity v becomes
        the velocity feed-forward r + (kv / kp) v, so tau = s (kp (r - q) + kv (v - dq)).
        Called every physics step: plain ufuncs, no np.clip (its wrapper costs more than the math).
        """
        if self.params.slew_reference:
            step = self.max_velocity * dt
            delta = np.minimum(np.maximum(self.command - self.reference, -step), step)
            self.reference += delta
        else:
            self.reference = self.command.copy()
        ctrl = self.reference + (self.kv / self.kp) * self.command_velocity
        limit = self.stiffness * self.max_effort
        if self.params.torque_speed_limit:
            ratio = dq / self.max_velocity
            upper = limit * np.minimum(np.maximum(1.0 - ratio, 0.0), 1.0)
            lower = limit * np.maximum(np.minimum(-1.0 - ratio, 0.0), -1.0)
        else:
            upper, lower = limit, -limit
        return ctrl, lower, upper
