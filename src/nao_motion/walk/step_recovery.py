"""Balance recovery by stepping: the measured divergent component of motion (DCM) against the plan's.

Why. The walk's pattern is feed-forward: the balancer tracks the planned CoM with the feet where
the plan puts them, and a push shows as the whole robot rolling about a sole's edge, which joint
position control cannot undo. What the ZMP inside the support foot cannot absorb has to be
absorbed where the next foot lands: the LIPM's DCM xi = c + c_dot / omega (omega = sqrt(g / z_c))
runs away from the ZMP as exp(omega t), and the gait goes on only if the footholds move with it.

What, each walking cycle (``WalkController._recover``, then ``update``):

* the error e = xi_measured - xi_planned (``walk.measured_dcm``: the CoM of the measured joints
  with the IMU's tilt; the preview controller's CoM state), in the plane of the executed steps,
  across the robot's heading;
* beyond ``threshold_m`` (what the support absorbs: unpushed walks at the default gait stay within
  +-2.2 cm), the steps not yet taken are translated sideways by the excess as it will be at the
  next touchdown, at most ``max_shift_m`` for one disturbance: grown, (|e| - threshold)
  exp(omega T), or less where the error's own course says so (on the LIPM it goes on as
  e + (e_dot / omega)(exp(omega T) - 1), e_dot its rate filtered over 40 ms). One already
  shrinking moves none: released from a 0.4 s lift-off hold (a swing side push of 25 N as the
  left step's double support began), the robot rolling back, its 4.7 cm error asked for 7 cm
  outward, and the robot rocked from foot to foot, wider as the footholds followed each rock,
  and fell (it survives without recovery, rocking 20 deg). The shift goes through the heading
  correction's transform (``HeadingCorrection.shift``): every foothold not yet reached moves,
  the planted feet stay, the preview re-plans the CoM from the moved footholds, and from then on
  every executed step is clipped by NAOqi's clipping (extremal step limits, the feet's collision
  boxes), so an inward shift of the swinging foot stops at the support foot and the next step
  takes it. The shift reaches the executed steps at ``shift_rate_mps`` at most, so a foot in the
  air is retargeted smoothly;
* the shift reaches the executed steps only while the swinging foot is in the air. Not in the
  double support before it: moving the step's landing there shortens its double support (a larger
  swing has less, ``step_phase``), its lift-off moves back past the cycles the lift-off check
  (``walk.lift_off``) runs in, and a robot that the push had rolled onto the foot about to swing
  had it lifted all the same (a swing side push of 25 N as the left step's double support began:
  it fell at once). Nor once the swinging foot carries the robot before its touchdown on the
  walk's clock (it landed early): the landed foot was dragged 2.3 cm outward under the robot's
  weight, which rolled 14 deg over its edge and fell (swing side, 20 N at mid-swing). What the
  error asks meanwhile is asked again when a foot is in the air: a disturbance the robot absorbed
  on both feet (the lift-off check held the step) moves no foothold;
* an error toward the stance foot while its ankle holds the measured DCM (over the stance sole,
  within the ankle roll's reach: ``LiftOffCheck.stance_holds_sideways``) is that ankle's to
  absorb, and moves no foothold: the shift would only bring the swinging foot's landing in toward
  the stance foot, which catches nothing there. Single steps of 16 cm sideways (the cha-cha, one
  setFootStepsWithSpeed per step) leave the measured DCM 3.7-4.4 cm behind the plan's, toward the
  stance foot, over its sole: stepping for that tilted the robot 6.2 deg instead of 5.8;
* afterwards the position correction (sensed odometry against the plan, at most 1.5 cm a lift-off)
  runs at full gain for the rest of the walk: the steps go on from where the robot really stands,
  so the running moveTo still ends at its goal; the heading correction (IMU yaw) turns back what
  the push turned.

Not done, as measured on the simulated NAO (``bench_walk_envelope.py --pushes``): forward
footholds. Moving them forward (within MaxStepX) made forward pushes fall sooner and lateral ones
that survived fall: the preview then accelerates the planned CoM toward the moved footholds on
top of the push the robot already carries. Nor the plan's CoM reset to the measured one (the same
push counted twice: every pushed walk fell). Tried in process and not kept (of the 24 pushed walks
at 20 and 25 N, 9 fall with recovery as built): the step timing, the executed steps shifted on
the walk's own clock: the swing landed sooner when the DCM runs ahead, 8 fell, but moveTos ended
up to 57 cm off (the planner's clock no longer the walk's); the next lift-off held instead, 11
fell; the swing foot's reference turned by the IMU's tilt about the stance sole's lowest edge, 16
fell; corrected by the stance leg's yield (measured against commanded joints), 9 fell, other ones,
and the unpushed walk ended 6 cm off instead of 1 cm; the planned CoM turned by the IMU's tilt
about the stance sole (what the balancer's model does not have), filtered over 0.3-0.6 s, 14 to 21
fell: moving the body against a tilt rolls the robot further first. What falls is mostly the
robot rolling onto the foot it is about to swing, which the lift-off check (``walk.lift_off``) now
waits for, or pitching onto its toes so that the swing foot lands short.

Why forward pushes fall, and what did not help (in process, the forward cells): the stance
AnklePitch reaches its torque and ends 12-13 deg past its command (the cells that survive: 3-8
deg), the leg pitches over the flat foot, and the swing foot, commanded in the balancer's model
(the stance leg as commanded, to within 0.1 rad of the measured), lands short and up to 0.12 s
early. The swing foot's reference mapped through the torso's true pose (IMU attitude, measured
stance leg, the stance sole's lowest corner on the floor) lands it where planned, but the balancer
then holds it where it was commanded, turned in its model by the tilt, and bends the hips to their
limit: a forward cell that survived fell; with the landing lengthened by the DCM's excess
(MaxStepX at most) the DCM was caught 4.9 cm from the landed ankle and the robot folded at the
hips and fell 1.5 s later; the landed foot held flat instead, every forward cell fell. The landing
lengthened alone: every forward cell fell (probably as the lengthened foot's next swing starts
from its planned origin). A step ended at an early touchdown (the swing foot's FSRs past half the
weight after mid-swing, the walk's clock advanced): 14 of 24 fell; only when the DCM runs toward
the swing foot: no cell changed. An ankle term proportional to the IMU's tilt against the model
(0.3-1.5 rad/rad, on the damping): no cell changed. The torso pitched forward by the DCM's error
ahead (a hip strategy, 5-10 rad/m beyond 3 cm, 0.5 rad at most): none caught, and at 10 rad/m the
forward cells that survive fell. Going with the push (the swing foot 1.5 a farther and the CoM 0.5
a, a the measured CoM's or DCM's excess beyond 3-6 cm ahead of the feet, at 0.3-1 m/s, as
B-Human's walk on the real NAO does in its torso's frame): none caught. The landed foot held where
the measured joints put it (not the command): the unpushed walk tilted 7 deg instead of 2 and
ended 6 s late, 8 and 11 of 24 fell. Nor the balancer given the simulator's true torso pose every
walking cycle (an oracle; or only beyond 0.1 rad off its own): every forward cell fell, and a
sideways one that survives. With that oracle, the preview's CoM state pulled toward the measured
CoM and its velocity too (0.1-0.5 of the difference a cycle): every cell fell, as with the pull
alone. The LIPM's capturability bound (``walk.capturability``) puts the four forward pushes that
fall 0.5-3.2 cm beyond what any steps within NAOqi's limits catch, and the four that survive
within it: what falls forward is at the limit of stepping itself. Tried against the sideways
falls that bound leaves room for (swing side 25 N late in the swing: the DCM over the sole of the
foot just landed, the robot rolling out over its edge while the other foot swings): the balancer's
CoM reference moved against the measured DCM's error beyond a deadband (-k (e - deadband e/|e|), at
most 3-5 cm). k 0.5, deadband 2.5 cm, 5 cm: 5 of 24 fell (that one caught), but 7 with step
recovery on, and the robot with 70 % servos (velocity gain too) fell in a moveTo(1, 0, 0); k 0.3:
6 fell and the weak robots ended 1-5 cm farther off; sideways only: 7 fell; a 2 cm deadband: the
unpushed walk ended 4 cm off. Which cells it saves changes from one setting to the next. Against
the rocking after a lift-off hold (above), before the error's course: a smaller shift (the grown
excess halved, or not grown), a larger threshold (4.5, 5.5 cm), the lift-off check's landing kept
where planned, the shift asked only while the error grows (the largest over the disturbance still
kept): it fell with each. With the rules above, of the 24 pushed walks 6 fall with recovery and
7 without (V5 and V6), and none falls with it that survives without it.

No rclpy; frames: the walk generator's plane (``odom`` through the heading correction), m, s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from .measured_dcm import VELOCITY_FILTER_S, MeasuredDcm, dcm_of

__all__ = ["StepRecovery", "StepRecoveryConfig"]

# The position correction takes an executed plan back by at most 1.5 cm a lift-off
# (HeadingCorrectionConfig.max_step_shift_m), a step lasting ~0.5 s at the default gait.
RETURN_MPS = 0.03


@dataclass(frozen=True)
class StepRecoveryConfig:
    """Step adjustment from the measured DCM (module docstring); on unless ``enabled`` is false."""

    enabled: bool = True
    # What the ZMP inside the support foot and the balancer absorb across the heading: unpushed
    # walks at the default gait stay within (their DCM error swings +-2.2 cm sideways with the steps).
    threshold_m: float = 0.035
    max_shift_m: float = 0.1  # per disturbance
    shift_rate_mps: float = 0.8  # a foot in the air is retargeted at most this fast

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "enabled" and not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"step recovery {f.name} must be > 0, got {value!r}")


class StepRecovery:
    """The measured DCM's error against the plan's and the shift of the executed steps it asks for."""

    def __init__(self, config: StepRecoveryConfig, dt_s: float):
        self.config = config
        self.dt_s = dt_s
        self.error_m = np.zeros(2)  # xi_measured - xi_planned
        self.lateral_rate_mps = 0.0  # of the error across the heading, filtered over VELOCITY_FILTER_S
        self._lateral_m: float | None = None  # the previous cycle's
        self._rate_alpha = dt_s / (VELOCITY_FILTER_S + dt_s)
        self.wanted_m = np.zeros(2)  # the shift of the executed steps this disturbance asks for
        self.applied_m = np.zeros(2)  # the part of it in the executed steps
        self.step_m = np.zeros(2)  # this cycle's change of the applied shift
        self.recovering = False  # the error is beyond the threshold
        self._base_m = np.zeros(2)  # where the shift of this disturbance counts from
        self.recoveries = 0  # disturbances stepped for since the walk started

    def update(self, measured: MeasuredDcm, planned_com_m: np.ndarray, planned_velocity_mps: np.ndarray,
               heading_rad: float, touchdown_in_s: float, foot_in_air: bool, holding_side: float) -> bool:
        """Compare the measured DCM with the plan's CoM state (the robot heading ``heading_rad`` in
        the plane); the shift to add to the executed steps this cycle is then ``step_m``. True
        while the error is beyond what the support absorbs: the footholds move by it as it will
        be at the next touchdown (``touchdown_in_s`` from now), the largest over the
        disturbance. The shift reaches the steps only while the step in progress has its foot in
        the air (``foot_in_air``: lifted, and not yet carrying the robot); else ``step_m`` is
        zero, and what the error asks is asked again when a foot is in the air (module
        docstring). ``holding_side``: the side (+1 left, -1 right of the robot) of a stance foot
        whose ankle holds the measured DCM sideways (over its sole, within the ankle roll's
        reach), 0 if none: an error toward it is that ankle's to absorb, not the footholds'."""
        cfg = self.config
        e, omega = self.error_m, measured.omega
        np.subtract(measured.dcm_m, dcm_of(planned_com_m, planned_velocity_mps, omega, out=e), out=e)
        left_x, left_y = -math.sin(heading_rad), math.cos(heading_rad)  # the robot's left in the plane
        lateral_m = left_x * e[0] + left_y * e[1]
        if self._lateral_m is not None:
            rate_mps = (lateral_m - self._lateral_m) / self.dt_s
            self.lateral_rate_mps += self._rate_alpha * (rate_mps - self.lateral_rate_mps)
        self._lateral_m = lateral_m
        beyond = abs(lateral_m) > cfg.threshold_m and holding_side * lateral_m <= 0.0
        w, base = self.wanted_m, self._base_m
        if beyond:
            if not self.recovering:
                self.recoveries += 1
                # What a recovery the same way left in the steps counts toward this one (see
                # below); one the other way stays in the steps, this one counts from there.
                still_out_m = left_x * self.applied_m[0] + left_y * self.applied_m[1]
                base[:] = self.applied_m if still_out_m * lateral_m < 0.0 else 0.0
            # The support absorbs threshold_m; what is beyond grows as exp(omega t) until the
            # next foot is down. Unless the error's own course says less: on the LIPM it goes on
            # as e + (e_dot / omega)(exp(omega t) - 1), and one already shrinking (the robot
            # rolling back after a lift-off hold) has not grown at the touchdown. Moving the
            # footholds brings the plan's DCM toward the measured one, so the error shrinks before
            # the disturbance is caught: the largest shift over it is kept.
            growth = math.exp(omega * max(touchdown_in_s, 0.0))
            side = math.copysign(1.0, lateral_m)
            course_m = side * (lateral_m + self.lateral_rate_mps / omega * (growth - 1.0)) - cfg.threshold_m
            beyond_m = min(growth * (abs(lateral_m) - cfg.threshold_m), max(0.0, course_m))
            shift_m = side * min(cfg.max_shift_m, beyond_m)
            if abs(shift_m) > abs(left_x * (w[0] - base[0]) + left_y * (w[1] - base[1])):
                w[0], w[1] = base[0] + shift_m * left_x, base[1] + shift_m * left_y
        self.recovering = beyond
        if not foot_in_air:
            self.step_m[:] = 0.0
            w[:] = self.applied_m
            return beyond
        np.subtract(w, self.applied_m, out=self.step_m)
        _shorten(self.step_m, cfg.shift_rate_mps * self.dt_s)
        self.applied_m += self.step_m
        if not beyond and self.step_m[0] == 0.0 and self.step_m[1] == 0.0:
            # All applied: it stays in the executed steps, and the position correction takes them
            # back onto the plan from where the robot really stands, ``RETURN_MPS`` on average.
            # Until then an error in the same direction is the same disturbance, not yet caught:
            # stepping for it again only counts beyond what is still out (a robot still rocking
            # after a push otherwise walked off 10 cm sideways at every rock, and fell).
            _shorten(w, max(0.0, float(np.hypot(w[0], w[1])) - RETURN_MPS * self.dt_s))
            self.applied_m[:] = w
            self._base_m[:] = 0.0
        return beyond


def _shorten(v: np.ndarray, length: float) -> None:
    """Scale the 2-vector ``v`` in place to at most ``length`` long."""
    norm = float(np.hypot(v[0], v[1]))
    if norm > length:
        v *= length / norm
