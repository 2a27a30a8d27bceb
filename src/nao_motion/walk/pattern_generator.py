"""The walk pattern generator: planned footsteps -> CoM, ZMP, feet, torso and arm references.

Each cycle (``step(t_s, steps, feet)``, t_s on the footstep planner's clock, after the planner
was advanced to t_s):

1. the ZMP reference p_ref(t_s .. t_s + preview) is built from the steps (``zmp_reference``);
2. the preview controller (cart-table, ``preview_control``) takes one sample: its state is now
   the CoM at t_s + dt;
3. the feet, the support, the torso rotation and the arm swing are evaluated at t_s + dt too, so
   that everything in the output is the reference for the end of this cycle, when the command
   sent now is reached.

Frames: x, y in the odometry plane of the footstep planner (its Pose2D), z above the floor; the
CoM height is constant (the cart-table's z_c). ``walk.balancer_reference`` maps the output onto
the whole-body balancer's ``WalkReference``.

Starting from standing: the preview controller needs to see a step coming one preview ahead,
so the footstep planner starts a plan from standing one preview (0.8 s) after the command, as
NAOqi does ("the walk will take this time to react"). A first step starting at once would meet
the controller with no preview: the cart-table's ZMP then leaves its reference by up to 0.23 m
during the first double support (RMS over a 22-step walk 12.7 mm instead of 1.3 mm).

Torso rotation: NAOqi's per-foot TorsoWx / TorsoWy are peak values; here the torso turns by the
step's values with the swing foot's lift profile (0 in double support, peak at mid-swing), so it
is continuous from step to step and upright when standing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import spatial
from ..footsteps.footstep import FeetState, Footstep, Leg
from ..kinematics import ForwardKinematics
from ..model import NaoModel
from ..postures import posture
from .arm_swing import ArmSwing, ArmSwingConfig
from .com_feedback import ComFeedback, ComFeedbackConfig
from .preview_control import PreviewConfig, PreviewController, preview_gains
from .step_phase import StepPhases
from .swing_foot import lift_profile, swing_foot_pose
from .zmp_reference import ZmpReference, ZmpReferenceConfig

__all__ = ["WalkConfig", "WalkOutput", "WalkPatternGenerator", "stand_com_in_feet_frame"]

SUPPORT_BOTH = "Legs"


def stand_com_in_feet_frame(model: NaoModel, posture_name: str = "StandInit") -> tuple[float, float]:
    """(forward_m, height_m) of the CoM over the feet's midpoint in a posture (feet flat).

    StandInit on the V5 model: 0.0147 m ahead of the ankles, 0.2725 m high (V6: 0.2748 m),
    close to the ~0.26 m NAOqi's walk is usually quoted with.
    """
    fk = ForwardKinematics(model)
    state = fk.compute(posture(model, posture_name))
    com = spatial.inverse(fk.ground_frame(state)) @ np.append(fk.com(state), 1.0)
    return float(com[0]), float(com[2])


@dataclass(frozen=True)
class WalkConfig:
    """Walk generator settings: the preview controller's (cycle, CoM height, preview, weights)
    and the step phases, ZMP reference, arm swing and CoM feedback."""

    preview: PreviewConfig
    phases: StepPhases = field(default_factory=StepPhases)
    zmp: ZmpReferenceConfig = field(default_factory=ZmpReferenceConfig)
    arms: ArmSwingConfig = field(default_factory=ArmSwingConfig)
    com_feedback: ComFeedbackConfig = field(default_factory=ComFeedbackConfig)

    @property
    def dt_s(self) -> float:
        return self.preview.dt_s

    @property
    def com_height_m(self) -> float:
        return self.preview.com_height_m

    @classmethod
    def for_model(cls, model: NaoModel, posture_name: str = "StandInit", **overrides) -> "WalkConfig":
        """The model's cycle time; CoM height and the soles' ZMP point from the posture's CoM.

        The ZMP point sits under the posture's CoM (forward of the ankles), so a walk starting
        from that posture needs no CoM shift before its first step.
        """
        forward_m, height_m = stand_com_in_feet_frame(model, posture_name)
        values = {"preview": PreviewConfig(model.cycle_time_s, height_m), "zmp": ZmpReferenceConfig(forward_m=forward_m)}
        values.update(overrides)
        return cls(**values)


@dataclass
class WalkOutput:
    """One cycle's references at ``time_s``. The arrays are the generator's buffers: copy to keep.

    Soles: (x_m, y_m, z_m, yaw_rad), odometry plane, z of the sole above the floor.
    support: "Legs" (double support), "LLeg" or "RLeg" (single support on that leg).
    arm_offsets_rad: added to (LShoulderPitch, RShoulderPitch), see ``arm_swing``.
    """

    time_s: float = 0.0
    com_m: np.ndarray = field(default_factory=lambda: np.zeros(3))
    com_velocity_mps: np.ndarray = field(default_factory=lambda: np.zeros(3))
    zmp_m: np.ndarray = field(default_factory=lambda: np.zeros(2))  # the cart-table's ZMP
    zmp_ref_m: np.ndarray = field(default_factory=lambda: np.zeros(2))
    left_sole: np.ndarray = field(default_factory=lambda: np.zeros(4))
    right_sole: np.ndarray = field(default_factory=lambda: np.zeros(4))
    support: str = SUPPORT_BOTH
    torso_wx_rad: float = 0.0
    torso_wy_rad: float = 0.0
    arm_offsets_rad: np.ndarray = field(default_factory=lambda: np.zeros(2))
    step: Footstep | None = None  # the step in progress at time_s


class WalkPatternGenerator:
    """LIPM walk with ZMP preview control. ``reset`` once (or let the first ``step`` do it)."""

    def __init__(self, config: WalkConfig):
        self.config = config
        self.gains = preview_gains(config.preview)
        self.controller = PreviewController(self.gains)
        n = self.controller.n_preview
        self.zmp_reference = ZmpReference(config.zmp, config.phases, config.dt_s, n)
        self.arms = ArmSwing(config.arms, config.dt_s)
        self.com_feedback = ComFeedback(config.com_feedback)
        self.zmp_ref_window_m = np.zeros((n + 1, 2))  # p_ref(k..k+N) of the last cycle
        self.output = WalkOutput()
        self.output.com_m[2] = config.com_height_m
        self._started = False

    @classmethod
    def for_model(cls, model: NaoModel, **overrides) -> "WalkPatternGenerator":
        return cls(WalkConfig.for_model(model, **overrides))

    def reset(self, feet: FeetState, com_xy_m=None) -> None:
        """Start at rest: the CoM over ``com_xy_m`` (default: the rest point between the feet)."""
        if com_xy_m is None:
            com_xy_m = self.config.zmp.rest_point(feet.left, feet.right)
        self.controller.reset(com_xy_m)
        self.arms.offsets_rad[:] = 0.0
        self._started = True

    def feed_back_com(self, measured_com_xy_m) -> None:
        """Blend a measured CoM (odometry plane) into the state; call before ``step``."""
        self.com_feedback.apply(self.controller, measured_com_xy_m)

    def step(self, t_s: float, steps: Sequence[Footstep], feet: FeetState) -> WalkOutput:
        """The references at t_s + dt, for the planner's ``steps()`` and ``feet`` at ``t_s``."""
        if not self._started:
            self.reset(feet)
        cfg, out, ctrl = self.config, self.output, self.controller
        window = self.zmp_ref_window_m
        self.zmp_reference.fill(t_s, steps, feet, window)
        ctrl.step(window)
        t = t_s + cfg.dt_s
        out.time_s = t
        out.com_m[:2] = ctrl.state[0]
        out.com_velocity_mps[:2] = ctrl.state[1]
        ctrl.zmp_m(out=out.zmp_m)
        out.zmp_ref_m[:] = window[1]
        step, phase = self._feet_at(t, steps, feet)
        out.step = step
        if step is None or cfg.phases.in_double_support(step, t):
            out.support = SUPPORT_BOTH
            out.torso_wx_rad = out.torso_wy_rad = 0.0
        else:
            out.support = step.support_leg.value
            lift = lift_profile(phase)
            out.torso_wx_rad = step.torso_wx_rad * lift
            out.torso_wy_rad = step.torso_wy_rad * lift
        out.arm_offsets_rad[:] = self.arms.update(step, phase)
        return out

    def _feet_at(
        self, t_s: float, steps: Sequence[Footstep], feet: FeetState
    ) -> tuple[Footstep | None, float]:
        """Write both soles at ``t_s`` into the output; return the step in progress and its phase."""
        left, right = feet.left, feet.right
        current, phase = None, 0.0
        for step in steps:
            if step.start_s > t_s:
                break
            if step.end_s <= t_s:  # landed between the planner's time and t_s
                if step.leg is Leg.LEFT:
                    left = step.target
                else:
                    right = step.target
                continue
            current = step
            phase = self.config.phases.swing_phase(step, t_s)
            break
        out = self.output
        for leg, planted, sole in ((Leg.LEFT, left, out.left_sole), (Leg.RIGHT, right, out.right_sole)):
            if current is not None and current.leg is leg:
                sole[:] = swing_foot_pose(current.origin, current.target, current.step_height_m, phase)
            else:
                sole[0], sole[1], sole[2], sole[3] = planted.x, planted.y, 0.0, planted.theta
        return current, phase
