"""The lift-off check: a foot is lifted only if its step can catch the robot.

Why. Measured on the simulated NAO (``bench_walk_envelope.py --pushes``), pushed walks fell
mostly by rolling onto the foot the plan was about to swing: pushed toward the left foot just
before its step (25 N for 0.1 s), the robot stood on that foot with the right one in the air,
the plan lifted the left foot all the same, and the robot rolled over its outer edge. A robot
whose servos are weaker than the model's does the same at every step, less: the foot about to
swing still carries most of the weight when the plan lifts it. The plan's timing is
feed-forward; this is where the walk's own measurement decides when a step begins.

What, at the cycle where a step's swing would begin (its double support ending), from the
measured DCM xi (``walk.measured_dcm``) in the frame of the stance foot (the step's support):

* after lift-off the ZMP stays inside the stance sole, where the ankle can hold it: the sole's
  outline, each way at most the ankle motor's torque over the robot's weight from the ankle
  (pitch: 3.0 N m / 52 N = 5.8 cm ahead, short of the toe at 9.9 cm; beyond it the stance
  ankle yields and the robot pitches). The best the walk can do is keep the ZMP at the point of
  that box nearest xi; xi runs away from it as exp(omega tau) until the swing foot lands (tau:
  the step's swing);
* the step catches the robot if xi then lies within the support of both feet (their soles'
  convex hull, ``margin_m`` inside): the swing foot landing where planned, or, with step
  recovery on, wherever NAOqi's clipping lets a step go (MinStepX..MaxStepX, out to MaxStepY).
  Walking fast (NAOqi's largest steps), the plan's own DCM lands beyond that, and the steps
  after this one catch it: the measured one may land as far, ``margin_m`` farther at most;
* if it does not, but both feet on the floor hold xi now (inside their hull), the lift-off
  waits a cycle: the step and every later one start a cycle later (the walk executes the plan
  a cycle behind, and tells the planner to hold its steps too, ``walk/hold_step``);
* if neither, the step goes on: waiting would not catch the robot either.

Checking the DCM forward too matters: sideways only, a push toward the foot about to swing at
the start of its double support (25 N) fell again. Setting a swing back down in its first 60 ms
(a push at the lift-off itself) saved one more pushed walk but felled the V5 walking forward at
NAOqi's maxima, where the measured DCM runs up to 9 cm ahead of the plan's: not done.

No rclpy; frames: the walk generator's plane, m, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..body_shapes import sole_boxes
from ..footsteps.clipping import ClipLimits
from ..footsteps.footstep import Footstep, Leg
from ..model import NaoModel
from ..wholebody.support_polygon import SupportPolygon
from .capturability import CaptureLimits

__all__ = ["LiftOffCheck", "LiftOffConfig"]


@dataclass(frozen=True)
class LiftOffConfig:
    """A lift-off waits while its step could not catch the robot and both feet hold it (module
    docstring), at most ``max_hold_s`` in one double support; off unless ``enabled``."""

    enabled: bool = True
    max_hold_s: float = 1.0
    # The DCM this far inside a support counts as held: at its very edge the ZMP would have to
    # sit on the sole's edge, where the foot starts to roll.
    margin_m: float = 0.01

    def __post_init__(self) -> None:
        for name in ("max_hold_s", "margin_m"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"lift-off {name} must be > 0, got {value!r}")


class LiftOffCheck:
    """Whether a step about to lift its foot should wait (module docstring). Built once from the
    model; ``config`` is the walk's, set when a walk starts."""

    def __init__(self, model: NaoModel, config: LiftOffConfig, omega: float):
        self.config = config
        self.omega = omega
        ankles = CaptureLimits.for_model(model)
        pitch_m, roll_m = ankles.ankle_reach_m(forward=True), ankles.ankle_reach_m(forward=False)
        self.corners = {}  # per leg: (4, 2) sole outline in its sole frame
        self.ankle_box = {}  # per leg: (x_min, x_max, y_min, y_max), where one ankle holds the ZMP
        outer_m = {}  # per leg: its sole's edge away from the other foot
        for box in sole_boxes(model):
            leg = Leg.LEFT if box.sole_frame == "l_sole" else Leg.RIGHT
            (x0, x1), (y0, y1) = box.x_range_m, box.y_range_m
            self.corners[leg] = np.array([[x1, y1], [x0, y1], [x0, y0], [x1, y0]])
            self.ankle_box[leg] = (max(x0, -pitch_m), min(x1, pitch_m), max(y0, -roll_m), min(y1, roll_m))
            outer_m[leg] = max(abs(y0), abs(y1))
            heel_m, toe_m = x0, x1  # the soles are mirrored: the same along x
        # What a swing foot landing where NAOqi's clipping lets it go can hold, in the stance
        # sole's frame: x from the farthest landing's heel behind to its toe ahead; sideways (toward
        # the swing side) from the stance sole's outer edge to the farthest landing's outer edge.
        limits = ClipLimits.extremal()
        self._reach_x_m = (limits.min_step_x_m + heel_m, limits.max_step_x_m + toe_m)
        self._reach_side_m = {leg: (-outer_m[leg.other], limits.max_step_y_m + outer_m[leg]) for leg in outer_m}

    def should_hold(self, dcm_xy_m: np.ndarray, planned_dcm_xy_m: np.ndarray, step: Footstep, swing_s: float,
                    landing_free: bool) -> bool:
        """Whether ``step`` (its double support ending now, its swing lasting ``swing_s``) should
        wait a cycle, for the measured DCM ``dcm_xy_m`` and the plan's ``planned_dcm_xy_m`` (the
        generator's plane); ``landing_free``: the landing may move anywhere NAOqi's clipping
        allows (step recovery on), else as planned."""
        stance = step.support
        xi = stance.point_in_frame(float(dcm_xy_m[0]), float(dcm_xy_m[1]))
        landed = self._at_touchdown(xi, step.support_leg, swing_s)
        planned = self._at_touchdown(stance.point_in_frame(float(planned_dcm_xy_m[0]), float(planned_dcm_xy_m[1])),
                                     step.support_leg, swing_s)
        if landing_free:
            def support(point) -> float:
                return self._reach_margin(point, step.leg)
        else:
            support = self._both_feet(step.target.relative_to(stance), step.leg, step.support_leg).margin
        # Walking fast, the plan's own DCM lands beyond this step's support, caught by the steps
        # after it: the measured one may go as far, not farther.
        margin = self.config.margin_m
        if support(landed) >= min(margin, support(planned) - margin):
            return False
        return self._both_feet(step.origin.relative_to(stance), step.leg, step.support_leg).margin(xi) >= 0.0

    def stance_holds_sideways(self, dcm_xy_m: np.ndarray, step: Footstep) -> bool:
        """Whether the stance ankle of ``step`` (its foot swinging) holds the DCM ``dcm_xy_m`` (the
        generator's plane) sideways: over its sole, within the ankle roll's reach."""
        _, _, y0, y1 = self.ankle_box[step.support_leg]
        return y0 <= step.support.point_in_frame(float(dcm_xy_m[0]), float(dcm_xy_m[1]))[1] <= y1

    def _at_touchdown(self, xi: tuple[float, float], stance_leg: Leg, swing_s: float) -> tuple[float, float]:
        """Where the DCM ``xi`` (stance frame) is when the swing foot lands, the ZMP held at the
        point of the stance ankle's box nearest it meanwhile."""
        x0, x1, y0, y1 = self.ankle_box[stance_leg]
        zmp = (min(x1, max(x0, xi[0])), min(y1, max(y0, xi[1])))
        grow = math.exp(self.omega * max(swing_s, 0.0))
        return zmp[0] + (xi[0] - zmp[0]) * grow, zmp[1] + (xi[1] - zmp[1]) * grow

    def _both_feet(self, swing_in_stance, swing_leg: Leg, stance_leg: Leg) -> SupportPolygon:
        """The convex hull of the stance sole and the swing sole at ``swing_in_stance`` (stance frame)."""
        c, s = math.cos(swing_in_stance.theta), math.sin(swing_in_stance.theta)
        swing = self.corners[swing_leg] @ np.array([[c, s], [-s, c]]) + (swing_in_stance.x, swing_in_stance.y)
        return SupportPolygon.from_points(np.concatenate([self.corners[stance_leg], swing]))

    def _reach_margin(self, point, swing_leg: Leg) -> float:
        """How far ``point`` (stance frame) lies inside what a sole landing where NAOqi's clipping
        lets the swing foot go can hold (< 0: outside): the box from the stance sole's outer edge
        to the farthest landing's soles."""
        (x0, x1), (s0, s1) = self._reach_x_m, self._reach_side_m[swing_leg]
        lateral = swing_leg.side * point[1]  # toward the swing side
        return min(point[0] - x0, x1 - point[0], lateral - s0, s1 - lateral)

