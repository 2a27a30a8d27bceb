"""The robot adapter's core: the suite's joint commands and stiffnesses as LoLA motor commands.

Plain Python (no rclpy); ``nao_motion.nodes.lola_adapter_node`` decodes messages into it and
publishes what it returns. What it guarantees, whatever arrives:

* Positions go out for all 25 motors at once, in LoLA's order, each within the model's joint
  limits (the coupled head and ankle limits included): out-of-range values are clamped and
  counted; a command with a non-finite value is refused whole (nothing sent, the reason in
  ``LolaCommand.refused``). The shutdown's sit-down is clamped the same way: the straight path
  between two allowed poses can leave the coupled limits, which are not convex. Nothing is sent
  before every motor has been commanded once, and nothing without a new command (LoLA keeps the
  last one): a command stream that stops leaves the robot on its last command, and
  ``command_age_s`` says how long ago that was.
* One HipYawPitch motor: LHipYawPitch's value drives it; RHipYawPitch's only when a command
  names it without LHipYawPitch (the simulator's rule).
* Stiffness: ramped at start-up from what the robot measures to ``startup_stiffness`` over
  ``stiffness_ramp_s``, starting with the first position command (never before: LoLA would
  stiffen the motors towards a stale target), and only once the measured stiffness is known
  (a robot that is already stiff is not dropped to 0). Requests (``set_stiffness``) change the
  target; while ramping the ramp heads for it. Stiffness goes out only when it changes.
* Shutdown (``begin_shutdown``), by ``shutdown``: "sit" moves from the last command to NAOqi's
  Crouch in ``sit_duration_s`` then ramps the stiffness to 0 in ``limp_duration_s`` (ALMotion's
  rest()); "limp" only ramps the stiffness to 0 (a robot that is held or already sitting);
  "hold" sends nothing more (LoLA keeps the last command and stiffness). An adapter that never
  sent anything sends nothing at shutdown either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ..model import NaoModel, project_coupled_limits
from ..postures import posture
from .joint_indexes import LOLA_JOINT_COUNT, LolaJointMap

SHUTDOWN_ACTIONS = ("sit", "limp", "hold")
SIT_POSTURE = "Crouch"
# A command this far outside a limit (rad) counts as clamped: rounding at the limit is not news.
CLAMP_TOLERANCE_RAD = 1e-6


@dataclass(frozen=True)
class LolaAdapterConfig:
    startup_stiffness: float = 1.0  # stiffness the start-up ramp ends at, every motor (0..1)
    stiffness_ramp_s: float = 1.0  # duration of the start-up ramp (s; 0: at once)
    command_timeout_s: float = 0.1  # joint_commands older than this: no fresh command (diagnostics)
    shutdown: str = "sit"  # "sit", "limp" or "hold" (see the module docstring)
    sit_duration_s: float = 2.0  # shutdown "sit": from the last command to Crouch (s)
    limp_duration_s: float = 0.5  # shutdown "sit"/"limp": stiffness to 0 (s)

    def validate(self) -> str | None:
        """The reason this configuration is refused, or None."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "float" and (not isinstance(value, float) or not math.isfinite(value)):
                return f"{f.name} must be a finite float, got {value!r}"
        if not 0.0 <= self.startup_stiffness <= 1.0:
            return f"startup_stiffness must be in [0, 1], got {self.startup_stiffness}"
        if not 0.0 <= self.stiffness_ramp_s <= 10.0:
            return f"stiffness_ramp_s must be in [0, 10] s, got {self.stiffness_ramp_s}"
        if not 0.0 < self.command_timeout_s <= 10.0:
            return f"command_timeout_s must be in (0, 10] s, got {self.command_timeout_s}"
        if self.shutdown not in SHUTDOWN_ACTIONS:
            return f"shutdown must be one of {SHUTDOWN_ACTIONS}, got {self.shutdown!r}"
        # Both shutdown phases must fit in the 5 s a launch file or NodeProcess waits after Ctrl-C.
        if not (0.0 <= self.sit_duration_s <= 4.0 and 0.0 <= self.limp_duration_s <= 4.0
                and self.sit_duration_s + self.limp_duration_s <= 4.0):
            return (f"sit_duration_s and limp_duration_s must be >= 0 and sum to at most 4 s, got "
                    f"{self.sit_duration_s} and {self.limp_duration_s}")
        return None


@dataclass
class LolaCommand:
    """What to send this cycle: LoLA-order arrays (the adapter's own buffers) or None."""

    positions: np.ndarray | None = None  # (25,) rad
    stiffnesses: np.ndarray | None = None  # (25,) 0..1
    refused: str | None = None  # why the command was refused (nothing sent), for the node to log


class LolaAdapter:
    """See the module docstring. Times are seconds of a monotonic clock."""

    def __init__(self, model: NaoModel, config: LolaAdapterConfig = LolaAdapterConfig()):
        reason = config.validate()
        if reason:
            raise ValueError(reason)
        self.model, self.config = model, config
        self.joints = LolaJointMap(model)
        n = model.n_joints
        self._l_hyp, self._r_hyp = model.joint_index("LHipYawPitch"), model.joint_index("RHipYawPitch")
        self._wish = np.zeros(n)  # model order, the latest commanded value of each joint
        self._clamped = np.zeros(n)
        self._sit_model = np.zeros(n)  # model order, the shutdown's pose this cycle
        self.commanded = np.zeros(LOLA_JOINT_COUNT, dtype=bool)  # motors commanded at least once
        self.positions = np.zeros(LOLA_JOINT_COUNT)  # the last positions sent
        self.target_stiffness = np.full(LOLA_JOINT_COUNT, config.startup_stiffness)
        self.measured_stiffness: np.ndarray | None = None
        self.stiffnesses = np.zeros(LOLA_JOINT_COUNT)  # the last stiffnesses sent (valid if sent)
        self._ramp_from = np.zeros(LOLA_JOINT_COUNT)
        self._ramp_start_s: float | None = None
        self._ramp_finished = False  # the ramp's last value (the target) was sent
        self._stiffness_changed = False
        self.sit_positions = self.joints.to_lola(posture(model, SIT_POSTURE), np.zeros(LOLA_JOINT_COUNT))
        self._shutdown_from = np.zeros(LOLA_JOINT_COUNT)
        self._shutdown_start_s: float | None = None
        self._limp_from = np.zeros(LOLA_JOINT_COUNT)
        self._limp_started = False
        self._out = LolaCommand()
        # Counters and the latest news, for the diagnostics.
        self.last_command_s: float | None = None
        self.sent_positions = self.sent_stiffnesses = self.clamped_commands = 0
        self.last_clamped: list[str] = []
        self.done = False  # shutdown finished: nothing more will be sent

    @property
    def positions_sent(self) -> bool:
        return self.sent_positions > 0

    @property
    def stiffness_sent(self) -> bool:
        return self.sent_stiffnesses > 0

    # --- inputs -----------------------------------------------------------------------------
    def set_measured_stiffness(self, lola_stiffnesses: np.ndarray) -> bool:
        """The robot's stiffness (LoLA order) as measured; refused (False) if not 25 finite values."""
        values = np.asarray(lola_stiffnesses, dtype=float)
        if values.shape != (LOLA_JOINT_COUNT,) or not np.all(np.isfinite(values)):
            return False
        self.measured_stiffness = np.clip(values, 0.0, 1.0)
        return True

    @property
    def needs_measured_stiffness(self) -> bool:
        """True until the start-up ramp has what it starts from."""
        return self._ramp_start_s is None and not self.done

    def set_stiffness(self, model_indices: np.ndarray, values: np.ndarray) -> bool:
        """Target stiffness of the named joints (model indices, values 0..1, finite: the node has
        validated names and numbers). Values outside 0..1 are clamped; returns True if any was."""
        values = np.asarray(values, dtype=float)
        clamped = bool(np.any((values < 0.0) | (values > 1.0)))
        lola = self.joints.lola_of_model[np.asarray(model_indices, dtype=np.intp)]
        # RHipYawPitch's value stands for the shared motor only when LHipYawPitch is not given.
        keep = ~((np.asarray(model_indices) == self._r_hyp) & np.isin(self._l_hyp, model_indices))
        self.target_stiffness[lola[keep]] = np.clip(values[keep], 0.0, 1.0)
        self._stiffness_changed = True
        return clamped

    def set_all_stiffness(self, value: float) -> bool:
        """Every motor's target stiffness; returns True if `value` was clamped into 0..1."""
        n = len(self.joints.lola_of_model)
        return self.set_stiffness(np.arange(n), np.full(n, float(value)))

    def command(self, values: np.ndarray, named: np.ndarray, now_s: float) -> LolaCommand:
        """One joint_commands message: `values` (model order) for the joints `named` (bool mask).
        Returns what to send now (nothing before every motor was commanded once, nothing once
        shutting down, nothing for a command with a non-finite named value: refused, with the
        reason, and not counted as a command)."""
        out = self._out
        out.positions = out.stiffnesses = out.refused = None
        if self._shutdown_start_s is not None or self.done:
            return out
        # Here and not only in the node's reader: the core's guarantee must not depend on its caller.
        finite = np.isfinite(values[named])
        if not finite.all():
            bad = [self.model.joint_names[i] for i in np.flatnonzero(named)[~finite]]
            out.refused = f"non-finite position for {bad}"
            return out
        self.last_command_s = now_s
        if named[self._r_hyp] and not named[self._l_hyp]:
            values[self._l_hyp] = values[self._r_hyp]
            named[self._l_hyp] = True
        np.copyto(self._wish, values, where=named)
        if not self.positions_sent:  # (after that every motor has been commanded)
            self.commanded |= named[self.joints.model_of_lola]
            if not self.commanded.all():
                return out
        self._clamp(self._wish)
        self.joints.to_lola(self._clamped, self.positions)
        out.positions = self.positions
        self.sent_positions += 1
        out.stiffnesses = self._startup_stiffness(now_s)
        return out

    # --- shutdown ---------------------------------------------------------------------------
    def begin_shutdown(self, now_s: float) -> None:
        if self._shutdown_start_s is not None:
            return
        self._shutdown_start_s = now_s
        np.copyto(self._shutdown_from, self.positions)
        if not self.positions_sent or self.config.shutdown == "hold":
            self.done = True
        elif not self.stiffness_sent:  # the robot's own stiffness: where going limp starts
            self.stiffnesses[:] = self.measured_stiffness if self.measured_stiffness is not None else 1.0

    def shutdown_step(self, now_s: float) -> LolaCommand:
        """The shutdown sequence's command at `now_s`; ``done`` once it is over."""
        out = self._out
        out.positions = out.stiffnesses = out.refused = None
        if self.done or self._shutdown_start_s is None:
            return out
        t = now_s - self._shutdown_start_s
        sit_s = self.config.sit_duration_s if self.config.shutdown == "sit" else 0.0
        if self.config.shutdown == "sit" and not self._limp_started:
            f = _smooth(t / sit_s if sit_s > 0.0 else 1.0)
            np.subtract(self.sit_positions, self._shutdown_from, out=self.positions)
            self.positions *= f
            self.positions += self._shutdown_from
            self._limit_lola(self.positions)
            out.positions = self.positions
            self.sent_positions += 1
        if t >= sit_s:
            if not self._limp_started:
                self._limp_started = True
                np.copyto(self._limp_from, self.stiffnesses)
            limp_s = self.config.limp_duration_s
            f = min(1.0, (t - sit_s) / limp_s) if limp_s > 0.0 else 1.0
            np.multiply(self._limp_from, 1.0 - f, out=self.stiffnesses)
            out.stiffnesses = self.stiffnesses
            self.sent_stiffnesses += 1
            self.done = f >= 1.0
        return out

    # --- state --------------------------------------------------------------------------------
    def command_age_s(self, now_s: float) -> float | None:
        """Seconds since the last joint_commands message, or None if none came yet."""
        return None if self.last_command_s is None else now_s - self.last_command_s

    def fresh(self, now_s: float) -> bool:
        age = self.command_age_s(now_s)
        return age is not None and age <= self.config.command_timeout_s

    def ramp_progress(self, now_s: float) -> float | None:
        """0..1 along the start-up stiffness ramp, or None before it started."""
        if self._ramp_start_s is None:
            return None
        ramp_s = self.config.stiffness_ramp_s
        return 1.0 if ramp_s <= 0.0 else min(1.0, (now_s - self._ramp_start_s) / ramp_s)

    @property
    def missing_motors(self) -> list[str]:
        """Motors no command has named yet (nothing is sent until this is empty)."""
        return [self.model.joint_names[i] for i in self.joints.model_of_lola[~self.commanded]]

    # --- internals ----------------------------------------------------------------------------
    def _limit(self, q: np.ndarray, out: np.ndarray) -> None:
        """q (model order) within the box and coupled limits, RHipYawPitch = LHipYawPitch, into `out`."""
        # (maximum/minimum: a seventh of np.clip's time on 26 values)
        np.maximum(q, self.model.lower, out=out)
        np.minimum(out, self.model.upper, out=out)
        out[:] = project_coupled_limits(self.model, out)
        self.model.mimic_hip_yaw_pitch(out, out=out)

    def _limit_lola(self, lola_positions: np.ndarray) -> None:
        """LoLA-order positions within the model's limits, in place (not counted as clamped)."""
        self.joints.to_model(lola_positions, self._sit_model)
        self._limit(self._sit_model, self._sit_model)
        self.joints.to_lola(self._sit_model, lola_positions)

    def _clamp(self, wish: np.ndarray) -> None:
        clamped = self._clamped
        self._limit(wish, clamped)
        self.model.mimic_hip_yaw_pitch(wish, out=wish)
        if np.array_equal(clamped, wish):  # the usual case, checked cheaply
            return
        moved = np.abs(clamped - wish) > CLAMP_TOLERANCE_RAD
        if moved.any():
            self.clamped_commands += 1
            self.last_clamped = [self.model.joint_names[i] for i in np.flatnonzero(moved)]

    def _startup_stiffness(self, now_s: float) -> np.ndarray | None:
        """The stiffness to send with this cycle's positions, or None when it has not changed."""
        if self._ramp_start_s is None:
            if self.measured_stiffness is None:
                return None  # wait: ramping from an assumed 0 would drop a stiff robot
            self._ramp_start_s = now_s
            np.copyto(self._ramp_from, self.measured_stiffness)
        progress = self.ramp_progress(now_s)
        if self._ramp_finished and not self._stiffness_changed:
            return None
        self._ramp_finished = progress >= 1.0
        self._stiffness_changed = False
        np.subtract(self.target_stiffness, self._ramp_from, out=self.stiffnesses)
        self.stiffnesses *= progress
        self.stiffnesses += self._ramp_from
        self.sent_stiffnesses += 1
        return self.stiffnesses


def _smooth(x: float) -> float:
    """0 -> 1 with zero speed at both ends (smoothstep), x clamped to [0, 1]."""
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)
