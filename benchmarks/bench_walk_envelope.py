#!/usr/bin/env python3
"""NAOqi's gait envelope, pushes and odometry drift of the walk on the simulated NAO (in process).

The figures issue 15 asks for, judged by the simulator's ground truth. Each trial is a fresh
``SimulatedWalk`` (the suite's walk chain in process: footstep planner -> walk controller ->
collision filter -> whole-body balancer -> one MuJoCo cycle), standing at StandInit first.

1. Envelope (``--envelope``): per corner (forward, backward, lateral left, turning, combined),
   moveToward at full normalised speed (Frequency 1) for ``--corner-s`` of simulated time, with
   the default gait and with the settable gait parameters at NAOqi's maxima (MaxStepX,
   MaxStepY, MaxStepTheta, MaxStepFrequency; MinStepPeriod is fixed at 0.42 s). Prints the
   planner's nominal velocity, the true velocity reached (mean over the last ``--window-s`` of
   the ground-truth torso's twist over one gait cycle, so the sway cancels), the fall and its
   time, the worst tilt. V5 (100 Hz); ``--v6`` adds the V6 (83 Hz).
2. Pushes (``--pushes``): a 0.1 s push at the torso's centre of mass (torso frame) while a
   moveTo(``--goal-m``, 0, 0) at the default gait is running, at 4 phases of a step of the left
   foot (fractions of its planned period; 0 is the start of its double support, the planned
   swing of the default gait's full step starts at 0.2; the simulated foot leaves the floor
   some 60 ms later; the moveTo closes on its goal through the odometry, as the planner node's
   does: its closing steps) toward the swing
   side (+y), toward the support side (-y) and forward; and standing, sideways and forward.
   Survived or fell; survived, the goal miss by ground truth. Each trial twice: without and with
   balance recovery by stepping (``step_recovery``, ``walk.step_recovery``). Per walking cell also
   the ground truth's DCM at the push's end, the loaded ankle's yield after it, and how far that DCM
   is beyond what any steps within NAOqi's limits catch on the LIPM (``walk.capturability``);
   standing, the same bound for a recovery step of either foot lifted at once. The other sections
   run the walk's defaults.
3. Odometry drift (``--drift``): moveTo(1, 0, 0) and moveTo(0.5, 0.5, 1.0) on the nominal
   simulated robot, ones whose servos have 70 % of the model's position gain and torque (and
   velocity gain, or the damping as built), and one whose commands act one cycle late;
   |odometry - truth| per metre walked, for the walk's odometry (``odom``,
   getRobotPosition(True)) and the planner's (getRobotPosition(False)).

Ground truth of the robot position: REP-120 base_footprint as the odometry defines it, the
midpoint of the true soles (MuJoCo sites) with the true torso's yaw. A fall is the simulator's:
torso tilt over 60 deg (or the torso down near the floor).

Run: PYTHONPATH=src python3 benchmarks/bench_walk_envelope.py [--envelope] [--pushes] [--drift]
[--v6] [--forces 10 15 20 25] (no section flag: all three; no assertions).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import mujoco
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from nao_motion import spatial  # noqa: E402
from nao_motion.footsteps import Pose2D  # noqa: E402
from nao_motion.footsteps.footstep import Leg, delayed  # noqa: E402
from nao_motion.footsteps.gait_config import GAIT_PARAMETERS, GaitConfig  # noqa: E402
from nao_motion.model import NaoModel  # noqa: E402
from nao_motion.sim.mjcf import sole_frame_name  # noqa: E402
from nao_motion.sim.simulator import NaoSimulator, SimulationDiverged  # noqa: E402
from nao_motion.sim.walking import SimulatedWalk  # noqa: E402
from nao_motion.walk.capturability import CaptureLimits, StepInProgress, dcm_shortfall_m  # noqa: E402
from nao_motion.walk.controller import WalkState  # noqa: E402
from nao_motion.walk.measured_dcm import dcm_of  # noqa: E402
from nao_motion.walk.preview_control import GRAVITY_MPS2  # noqa: E402
from nao_motion.walk.step_phase import LARGEST_SWING_X_M, StepPhases, landed_early  # noqa: E402

# The settable parameters that bound speed, at NAOqi's maxima; Frequency 1 (with MaxStepFrequency
# 1) is the shortest step, MinStepPeriod. StepHeight and TorsoWx/Wy are not speed limits.
ENVELOPE_KEYS = ("MaxStepX", "MaxStepY", "MaxStepTheta", "MaxStepFrequency")
MAX_CONFIG = [[k, GAIT_PARAMETERS[k].maximum] for k in ENVELOPE_KEYS] + [["Frequency", 1.0]]
DEFAULT_CONFIG = [["Frequency", 1.0]]
GAITS = (("default", DEFAULT_CONFIG), ("max", MAX_CONFIG))
CORNERS = (("forward", (1.0, 0.0, 0.0)), ("backward", (-1.0, 0.0, 0.0)), ("lateral left", (0.0, 1.0, 0.0)),
           ("turning", (0.0, 0.0, 1.0)), ("combined", (1.0, 1.0, 1.0)))
PUSH_DURATION_S = 0.1
PUSH_PHASES = (0.0, 0.25, 0.5, 0.75)  # of a step period of the left foot
PUSH_AFTER_WALK_START_S = 2.0  # the walk is steady by then (a few strides)
STANDING_BEFORE_PUSH_S = 0.5
STANDING_AFTER_PUSH_S = 3.0
ANKLE_YIELD_WINDOW_S = 0.3  # the swing in progress lands within it at the default gait
SETTLE_S = 1.0  # standing after a moveTo's last step before it is judged
DRIFT_GOALS = (Pose2D(1.0, 0.0, 0.0), Pose2D(0.5, 0.5, 1.0))
WEAK_SERVO_FRACTION = 0.7


# ------------------------------------------------------------------------------- ground truth
def true_torso_pose(walk: SimulatedWalk) -> Pose2D:
    """The true torso on the floor plane: (x, y) and yaw in the world."""
    s = walk.state
    yaw = spatial.yaw_of(spatial.rotation_from_quaternion_xyzw(s.torso_orientation_xyzw))
    return Pose2D(float(s.torso_position[0]), float(s.torso_position[1]), yaw)


def left_sole_loaded(walk: SimulatedWalk) -> bool:
    """Whether the left sole carries more of the FSRs' weight than the right one."""
    return float(np.sum(walk.state.fsr_left)) >= float(np.sum(walk.state.fsr_right))


def true_dcm(walk: SimulatedWalk) -> tuple[np.ndarray, float]:
    """The ground truth's DCM on the floor plane (the whole-body CoM + its velocity / omega), and
    omega (from the CoM's height)."""
    m, d = walk.sim.mj_model, walk.sim.mj_data
    mujoco.mj_subtreeVel(m, d)
    com, velocity = d.subtree_com[1], d.subtree_linvel[1]
    omega = math.sqrt(GRAVITY_MPS2 / com[2])
    return dcm_of(com[:2], velocity[:2], omega, out=np.zeros(2)), omega


def true_sole_site(walk: SimulatedWalk, side: str) -> int:
    """The MuJoCo site of a sole frame ("left", "right"): under the ankle, on the floor."""
    return mujoco.mj_name2id(walk.sim.mj_model, mujoco.mjtObj.mjOBJ_SITE, sole_frame_name(side))


def true_dcm_from_loaded_sole(walk: SimulatedWalk) -> tuple[str, float, float]:
    """The ground truth's DCM in the frame of the sole carrying more of the FSRs' weight: (that
    foot, x ahead m, y toward the other foot m)."""
    dcm, _ = true_dcm(walk)
    left = left_sole_loaded(walk)
    side = "left" if left else "right"
    site, d = true_sole_site(walk, side), walk.sim.mj_data
    r = d.site_xmat[site].reshape(3, 3)
    x, y = r[:2, :2].T @ (dcm - d.site_xpos[site][:2])
    return side, float(x), float(-y if left else y)


def step_in_progress(walk: SimulatedWalk, limits: CaptureLimits) -> StepInProgress | None:
    """The step in progress or the next one, on the walk's clock (the plan's, later by its holds);
    None if the walk has no step left. A swinging foot that has landed early (``landed_early``, as
    the walk's step recovery judges it, here by the FSRs of the ground truth) has landed, whatever
    the clock says: the step in progress is then the other foot's, lifted at once."""
    delay_s = walk.controller.plan_delay_s
    step = next((s for s in walk.planner.steps() if s.end_s + delay_s > walk.time_s), None)
    if step is None:
        return None
    step = delayed((step,), delay_s)[0]
    phases, left_moving, now_s = walk.controller.walk_config.phases, step.leg is Leg.LEFT, walk.time_s
    if landed_early(phases.swing_phase(step, now_s), left_sole_loaded(walk) == left_moving):
        return StepInProgress(not left_moving, now_s, now_s, now_s + limits.min_step_period_s)
    return StepInProgress(left_moving, step.start_s, phases.swing_start_s(step), step.end_s)


def true_dcm_shortfall_m(walk: SimulatedWalk, limits: CaptureLimits, push_torso: tuple,
                         step: StepInProgress) -> float:
    """The ground truth's DCM beyond what ``step`` and the steps after it within NAOqi's limits
    catch on the LIPM (``walk.capturability``; > 0: none do), along the push (forward, or
    sideways: the robot's heading frame)."""
    dcm, omega = true_dcm(walk)
    heading = true_torso_pose(walk).theta
    forward = push_torso[0] != 0.0
    axis = (np.array([math.cos(heading), math.sin(heading)]) if forward
            else np.array([-math.sin(heading), math.cos(heading)]))
    ankles = [float(axis @ walk.sim.mj_data.site_xpos[true_sole_site(walk, side)][:2]) for side in ("left", "right")]
    return dcm_shortfall_m(limits, omega, float(axis @ dcm), *ankles, step, walk.time_s, forward, push_torso[1] > 0.0)


def loaded_ankle_yield_deg(walk: SimulatedWalk) -> tuple[float, float]:
    """The ankle of the sole carrying more of the FSRs' weight: its command minus its measured
    angle (deg), pitch (> 0: the leg pitched forward over the foot further than commanded, the
    servo yielding) and roll (> 0: toward the other foot)."""
    left = left_sole_loaded(walk)
    side = "L" if left else "R"
    model, command, measured = walk.model, walk.inputs.q_commanded, walk.state.position
    pitch, roll = model.joint_index(side + "AnklePitch"), model.joint_index(side + "AnkleRoll")
    # The leg turning about +y (pitching forward) or +x (leaning left) over a flat foot turns
    # the foot the other way relative to the leg: the joint's measured angle falls below its command.
    toward_other = -1.0 if left else 1.0
    return (math.degrees(float(command[pitch] - measured[pitch])),
            toward_other * math.degrees(float(command[roll] - measured[roll])))


def wrapped(angle_rad: float) -> float:
    return math.atan2(math.sin(angle_rad), math.cos(angle_rad))


def se2_log_twist(delta: Pose2D, dt_s: float) -> np.ndarray:
    """The constant body twist (vx, vy, wz) that moves by `delta` (in the start frame) in dt_s."""
    th = wrapped(delta.theta)
    if abs(th) < 1e-9:
        a, b = 1.0, 0.0
    else:
        a, b = math.sin(th) / th, (1.0 - math.cos(th)) / th
    # delta.xy = V(th) v with V = [[a, -b], [b, a]]; V^-1 = [[a, b], [-b, a]] / (a^2 + b^2)
    det = a * a + b * b
    vx = (a * delta.x + b * delta.y) / det
    vy = (-b * delta.x + a * delta.y) / det
    return np.array([vx, vy, th]) / dt_s


def mean_cycle_twist(poses: Sequence[Pose2D], dt_s: float, window_cycles: int, last_cycles: int) -> np.ndarray:
    """Mean over the last `last_cycles` samples of the twist over `window_cycles` (one gait cycle:
    the sway of the torso within a gait cycle cancels)."""
    first = max(0, len(poses) - last_cycles)
    twists = [se2_log_twist(poses[i + window_cycles].relative_to(poses[i]), window_cycles * dt_s)
              for i in range(first, len(poses) - window_cycles)]
    return np.mean(twists, axis=0) if twists else np.full(3, np.nan)


# ------------------------------------------------------------------------------- a trial
class Trial:
    """A fresh simulated walk, stepped until it falls (or the simulation diverges)."""

    def __init__(self, model: NaoModel, sim: NaoSimulator | None = None, step_recovery: bool | None = None):
        self.walk = SimulatedWalk(model, sim)
        controller = self.walk.controller
        if step_recovery is not None:  # else the walk's default
            controller.configure(replace(controller.config, step_recovery=step_recovery))
        self.dt_s = model.cycle_time_s
        self.fall_s: float | None = None
        self.diverged = False
        self.walk_start_s: float | None = None  # when the controller first walked

    @property
    def fell(self) -> bool:
        return self.fall_s is not None

    def cycle(self) -> bool:
        """One cycle; False once the robot has fallen."""
        if self.fell:
            return False
        w = self.walk
        try:
            w.cycle()
        except SimulationDiverged:
            self.diverged, self.fall_s = True, w.time_s
            return False
        if self.walk_start_s is None and w.controller.state is WalkState.WALKING:
            self.walk_start_s = w.time_s
        if w.state.fallen:
            self.fall_s = w.time_s
            return False
        return True

    def run_for(self, duration_s: float) -> bool:
        end_s = self.walk.time_s + duration_s - 0.5 * self.dt_s
        while self.walk.time_s < end_s:
            if not self.cycle():
                return False
        return True

    def run_until(self, done: Callable[[], bool], timeout_s: float) -> bool:
        """Cycles until done() (True) or the timeout / a fall (False)."""
        while not done():
            if self.walk.time_s >= timeout_s or not self.cycle():
                return False
        return True

    def walk_ended(self) -> bool:
        w = self.walk
        return not (w.planner_cycle.closing or w.planner.move_is_active()) and w.controller.state is WalkState.IDLE

    def fall_text(self) -> str:
        if not self.fell:
            return "-"
        return f"{'diverged' if self.diverged else 'fell'} at {self.fall_s:.2f} s"


# ------------------------------------------------------------------------------- 1. envelope
@dataclass
class CornerResult:
    corner: str
    gait: str
    step_period_s: float
    nominal: np.ndarray  # vx, vy, wz the planner realises (after its clipping)
    true: np.ndarray
    fall: str
    worst_tilt_deg: float


def run_corner(model: NaoModel, corner: str, command: tuple, gait: str, config: list,
               walk_s: float, window_s: float) -> CornerResult:
    trial = Trial(model)
    w = trial.walk
    w.planner.move_toward(*command, config)
    stride = w.planner.velocity_stride
    cycle_s = stride.left_period_s + stride.right_period_s
    poses = [true_torso_pose(w)]
    while w.time_s < walk_s - 0.5 * trial.dt_s and trial.cycle():
        poses.append(true_torso_pose(w))
    true = (mean_cycle_twist(poses, trial.dt_s, round(cycle_s / trial.dt_s), round(window_s / trial.dt_s))
            if not trial.fell else np.full(3, np.nan))
    return CornerResult(corner, gait, stride.left_period_s, np.array(stride.achieved_velocity), true,
                        trial.fall_text(), w.worst_tilt_deg)


def percent_of_nominal(true: np.ndarray, nominal: np.ndarray) -> str:
    parts = [f"{axis} {100.0 * t / n:.0f}%" for axis, t, n in zip(("x", "y", "th"), true, nominal)
             if abs(n) > 1e-6 and np.isfinite(t)]
    return ", ".join(parts) or "-"


def print_envelope(model: NaoModel, walk_s: float, window_s: float) -> None:
    print(f"\n== 1. Envelope, {model.version} ({model.cycle_time_s * 1e3:.0f} ms cycle): moveToward at full "
          f"speed for {walk_s:.0f} s from standing; true = ground-truth torso twist over one gait cycle, "
          f"mean of the last {window_s:.0f} s")
    print("   default gait: MaxStepX 0.04, MaxStepY 0.14, MaxStepTheta 0.349; max: "
          + ", ".join(f"{k} {v:g}" for k, v in MAX_CONFIG))
    header = (f"{'corner':<13} {'gait':<8} {'period':>6}  {'nominal vx, vy, wz':>19}  {'true vx, vy, wz':>19}  "
              f"{'true/nominal':<22} {'fall':<16} {'tilt':>6}")
    print(header)
    print("-" * len(header))
    for corner, command in CORNERS:
        for gait, config in GAITS:
            r = run_corner(model, corner, command, gait, config, walk_s, window_s)
            true = ("fell" if r.fall != "-" else f"{r.true[0]:+.3f} {r.true[1]:+.3f} {r.true[2]:+.2f}")
            print(f"{r.corner:<13} {r.gait:<8} {r.step_period_s:5.2f}s  "
                  f"{r.nominal[0]:+.3f} {r.nominal[1]:+.3f} {r.nominal[2]:+.2f}  {true:>19}  "
                  f"{percent_of_nominal(r.true, r.nominal):<22} {r.fall:<16} {r.worst_tilt_deg:5.1f}d",
                  flush=True)
    print("(m/s, m/s, rad/s; period: step period; tilt: worst torso tilt, deg)")


# ------------------------------------------------------------------------------- 2. pushes
@dataclass
class PushResult:
    fall: str
    goal_miss_m: float
    heading_miss_deg: float
    worst_tilt_deg: float  # after the push
    finished: bool
    duration_s: float  # of the moveTo, from the command to its end
    dcm_at_push_end: tuple[str, float, float] | None = None  # true_dcm_from_loaded_sole then
    # The loaded sole's ankle, commanded minus measured (deg; pitch > 0: the leg pitched forward
    # over its foot beyond the command, roll > 0: toward the other foot), the largest over
    # ANKLE_YIELD_WINDOW_S from the push's end
    ankle_yield_deg: tuple[float, float] | None = None
    dcm_shortfall_m: float | None = None  # true_dcm_shortfall_m at the push's end


def push_vector(direction: str, force_n: float) -> tuple[float, float, float]:
    """Torso-frame force; the walking pushes come during a left-foot step (the right foot supports)."""
    return {"swing side": (0.0, force_n, 0.0), "support side": (0.0, -force_n, 0.0),
            "left": (0.0, force_n, 0.0), "forward": (force_n, 0.0, 0.0)}[direction]


def next_left_step_start(trial: Trial) -> tuple[float, float] | None:
    """(start_s, period_s) of the next planned step of the left foot not started yet."""
    w = trial.walk
    for step in w.planner.steps():
        if step.leg is Leg.LEFT and step.start_s > w.time_s + trial.dt_s:
            return step.start_s, step.end_s - step.start_s
    return None


def run_walking_push(model: NaoModel, goal_m: float, force_n: float, direction: str, phase: float,
                     timeout_s: float, step_recovery: bool | None = None) -> PushResult:
    trial = Trial(model, step_recovery=step_recovery)
    w = trial.walk
    start = w.true_footprint()
    dcm_at_push_end = ankle_yield = shortfall = None
    w.move_to(goal_m, 0.0, 0.0)  # as the planner node's: closed on its goal through the odometry
    if force_n > 0.0:
        trial.run_until(lambda: trial.walk_start_s is not None
                        and w.time_s >= trial.walk_start_s + PUSH_AFTER_WALK_START_S, timeout_s)
        step = next_left_step_start(trial)
        if step is not None and not trial.fell:
            push_s = step[0] + phase * step[1]
            trial.run_until(lambda: w.time_s >= push_s - 0.5 * trial.dt_s, timeout_s)
            w.worst_tilt_deg = 0.0  # from the push on (unpushed: the whole walk)
            w.sim.push(push_vector(direction, force_n), PUSH_DURATION_S, frame="torso")
            trial.run_for(PUSH_DURATION_S)
            dcm_at_push_end = true_dcm_from_loaded_sole(w)
            limits = CaptureLimits.for_model(model)
            step = step_in_progress(w, limits)
            if step is not None:
                shortfall = true_dcm_shortfall_m(w, limits, push_vector(direction, force_n), step)
            worst = [0.0, 0.0]
            window_end_s = w.time_s + ANKLE_YIELD_WINDOW_S - 0.5 * trial.dt_s
            while w.time_s < window_end_s and trial.cycle():
                for i, value in enumerate(loaded_ankle_yield_deg(w)):
                    worst[i] = max(worst[i], value, key=abs)
            ankle_yield = (worst[0], worst[1])
    finished = trial.run_until(trial.walk_ended, timeout_s)
    duration_s = w.time_s
    if finished:
        trial.run_for(SETTLE_S)
    moved = w.true_footprint().relative_to(start)
    return PushResult(trial.fall_text(), math.hypot(moved.x - goal_m, moved.y),
                      math.degrees(wrapped(moved.theta)), w.worst_tilt_deg, finished and not trial.fell, duration_s,
                      dcm_at_push_end, ankle_yield, shortfall)


def run_standing_push(model: NaoModel, force_n: float, direction: str, step_recovery: bool | None = None) -> PushResult:
    trial = Trial(model, step_recovery=step_recovery)
    w = trial.walk
    start = w.true_footprint()
    trial.run_for(STANDING_BEFORE_PUSH_S)
    w.worst_tilt_deg = 0.0
    push = push_vector(direction, force_n)
    w.sim.push(push, PUSH_DURATION_S, frame="torso")
    trial.run_for(PUSH_DURATION_S)
    # What a recovery step could catch: one of either foot lifted at once (no weight shift; a step
    # lasts MinStepPeriod at least) and the steps after it, the better foot's.
    limits, now_s = CaptureLimits.for_model(model), w.time_s
    shortfall = min(true_dcm_shortfall_m(w, limits, push, StepInProgress(left, now_s, now_s,
                                                                         now_s + limits.min_step_period_s))
                    for left in (True, False))
    trial.run_for(STANDING_AFTER_PUSH_S - PUSH_DURATION_S)
    moved = w.true_footprint().relative_to(start)
    return PushResult(trial.fall_text(), math.hypot(moved.x, moved.y), math.degrees(wrapped(moved.theta)),
                      w.worst_tilt_deg, not trial.fell, w.time_s, dcm_shortfall_m=shortfall)


def push_cell(r: PushResult) -> str:
    if r.fall != "-":
        return "FELL"
    text = f"{r.goal_miss_m * 100:.0f}cm {r.worst_tilt_deg:.0f}d"
    return text if r.finished else text + " (not done)"


def print_pushes(model: NaoModel, forces_n: Sequence[float], goal_m: float, timeout_s: float) -> None:
    print(f"\n== 2. Pushes, {model.version}: {PUSH_DURATION_S:.1f} s at the torso (torso frame), "
          f"moveTo({goal_m:g}, 0, 0) at the default gait running, pushed {PUSH_AFTER_WALK_START_S:.0f} s "
          f"after the walk started")
    # The default gait's full step forward: its foot swings from MaxStepX behind to MaxStepX ahead.
    swing_from = StepPhases().double_support_for(2 * GaitConfig().max_step_x_m / LARGEST_SWING_X_M)
    print(f"   phase: fraction of the planned period of a left-foot step (0 = its double support begins, "
          f"planned swing from {swing_from:.2f}); swing side = +y, support side = -y")
    print("   each cell: without step recovery (step_recovery false) > with it (the default); "
          "goal miss by ground truth, worst tilt after the push; FELL")
    for recovery in (False, True):
        base = run_walking_push(model, goal_m, 0.0, "forward", 0.0, timeout_s, recovery)
        print(f"   no push, step recovery {'on' if recovery else 'off'}: {push_cell(base)}, heading "
              f"{base.heading_miss_deg:+.0f} deg, moveTo ended at {base.duration_s:.1f} s")
    phases = "".join(f"{'phase ' + format(p, 'g'):>26}" for p in PUSH_PHASES)
    header = f"{'walking, push':<19}{'force':>6}{phases}"
    print(header)
    print("-" * len(header))
    heading_misses: dict[bool, list[float]] = {False: [], True: []}
    falls = {False: 0, True: 0}
    dcm_rows = []
    for direction in ("swing side", "support side", "forward"):
        for force_n in forces_n:
            cells, dcm_cells = [], []
            for phase in PUSH_PHASES:
                pair = []
                for recovery in (False, True):
                    r = run_walking_push(model, goal_m, force_n, direction, phase, timeout_s, recovery)
                    pair.append(push_cell(r))
                    if not recovery and r.dcm_at_push_end is not None:
                        side, x, y = r.dcm_at_push_end
                        pitch, roll = r.ankle_yield_deg
                        bound = "" if r.dcm_shortfall_m is None else f" {100 * r.dcm_shortfall_m:+5.1f}"
                        dcm_cells.append(f"{side[0].upper()} {100 * x:+5.1f} {100 * y:+5.1f} {pitch:+3.0f}p{roll:+3.0f}r"
                                         + bound)
                    if r.fall == "-":
                        heading_misses[recovery].append(abs(r.heading_miss_deg))
                    else:
                        falls[recovery] += 1
                cells.append(" > ".join(pair))
            print(f"{direction:<19}{force_n:5.0f}N" + "".join(f"{c:>26}" for c in cells), flush=True)
            dcm_rows.append(f"{direction:<19}{force_n:5.0f}N" + "".join(f"{c:>32}" for c in dcm_cells))
    for recovery in (False, True):
        misses = heading_misses[recovery]
        heading = (f"heading at the end off the goal's by up to {max(misses):.0f} deg (median "
                   f"{float(np.median(misses)):.0f} deg)" if misses else "")
        print(f"   step recovery {'on ' if recovery else 'off'}: {falls[recovery]} falls; survived walks: {heading}")
    print("\n   the true DCM at the push's end (step recovery off), cm from the loaded sole's ankle (L/R): x ahead, "
          "y toward the other foot; one ankle holds the ZMP within x -5.1..+5.8 (AnklePitch's torque), "
          "y -5.0..+3.9 (the sole);\n   then the loaded ankle's command minus its measured angle, the largest in the "
          f"{ANKLE_YIELD_WINDOW_S:g} s after the push (deg; p: pitch, > 0 the leg over its foot further forward than "
          "commanded, the servo at its torque; r: roll, > 0 toward the other foot);\n   then the LIPM's bound "
          "(walk.capturability): how far that DCM is beyond what any steps within NAOqi's limits catch (cm, along "
          "the push; > 0: none does; a swinging foot carrying the robot after mid-swing has landed; the simulated "
          "robot beats it by up to ~2 cm, and falls as far within it)")
    print(f"{'walking, push':<19}{'force':>6}" + "".join(f"{'phase ' + format(p, 'g'):>32}" for p in PUSH_PHASES))
    print("\n".join(dcm_rows))
    print("\n   standing: the last column is the LIPM's bound for a recovery step (walk.capturability): how far the DCM "
          "at the push's end is beyond what a step of either foot lifted at once and the steps after it catch (cm; "
          "> 0: none do)")
    print(f"{'standing, push':<19}{'force':>6}{'recovery':>10}{'result':>22}{'feet/torso moved':>20}{'heading':>10}"
          f"{'step bound':>12}")
    for direction in ("left", "forward"):
        for force_n in forces_n:
            for recovery in (False, True):
                r = run_standing_push(model, force_n, direction, recovery)
                result = "FELL" if r.fall != "-" else f"stood, tilt {r.worst_tilt_deg:.1f}d"
                print(f"{direction:<19}{force_n:5.0f}N{'on' if recovery else 'off':>10}{result:>22}"
                      f"{r.goal_miss_m * 100:17.1f} cm{r.heading_miss_deg:+8.1f}d{100 * r.dcm_shortfall_m:+9.1f} cm",
                      flush=True)


# ------------------------------------------------------------------------------- 3. drift
def weak_servo_simulator(model: NaoModel, fraction: float, damping_too: bool) -> NaoSimulator:
    """A simulated NAO whose servos have `fraction` of the model's position gain and torque, unknown
    to the controller; `damping_too`: the velocity gain as well (the same as a stiffness of
    `fraction` in this servo model, but reported as 1), else the damping stays as built."""
    sim = NaoSimulator(model)
    servos = sim.servos
    servos.kp = servos.kp * fraction
    if damping_too:
        servos.kv = servos.kv * fraction
    servos.max_effort = servos.max_effort * fraction
    sim.reset()  # puts the gains into MuJoCo (set_stiffness); the torque bound applies per physics step
    return sim


ROBOTS: tuple[tuple[str, Callable[[NaoModel], NaoSimulator]], ...] = (
    ("nominal", lambda m: NaoSimulator(m)),
    (f"servos {WEAK_SERVO_FRACTION:.0%} kp+kv+torque",
     lambda m: weak_servo_simulator(m, WEAK_SERVO_FRACTION, damping_too=True)),
    (f"servos {WEAK_SERVO_FRACTION:.0%} kp+torque",
     lambda m: weak_servo_simulator(m, WEAK_SERVO_FRACTION, damping_too=False)),
    ("commands 1 cycle late", lambda m: NaoSimulator(m, actuation_delay_cycles=1)),
)


@dataclass
class DriftResult:
    walked_m: float
    true: Pose2D
    odom: Pose2D | None
    planned: Pose2D
    fall: str
    finished: bool


def run_drift(model: NaoModel, make_sim: Callable[[NaoModel], NaoSimulator], goal: Pose2D,
              timeout_s: float) -> DriftResult:
    trial = Trial(model, make_sim(model))
    w = trial.walk
    trial.cycle()  # the controller's first odometry
    start_true, start_odom, start_plan = w.true_footprint(), w.odometry(), w.planned_moved()
    w.planner.move_to(goal.x, goal.y, goal.theta)
    walked_m, last = 0.0, start_plan

    def ended() -> bool:
        nonlocal walked_m, last
        now = w.planned_moved()
        walked_m += math.hypot(now.x - last.x, now.y - last.y)
        last = now
        return trial.walk_ended()

    finished = trial.run_until(ended, timeout_s) and trial.run_for(SETTLE_S)
    odom = w.odometry()
    return DriftResult(walked_m, w.true_footprint().relative_to(start_true),
                       odom.relative_to(start_odom) if odom is not None and start_odom is not None else None,
                       w.planned_moved().relative_to(start_plan), trial.fall_text(), finished)


def pose_text(p: Pose2D | None) -> str:
    return "-" if p is None else f"{p.x:+.3f} {p.y:+.3f} {math.degrees(wrapped(p.theta)):+5.1f}d"


def error_text(p: Pose2D | None, truth: Pose2D, walked_m: float) -> str:
    if p is None:
        return "-"
    error_m = math.hypot(p.x - truth.x, p.y - truth.y)
    heading_deg = math.degrees(wrapped(p.theta - truth.theta))
    return f"{error_m * 100:4.1f}cm {error_m / max(walked_m, 1e-6) * 100:4.1f}%/m {heading_deg:+5.1f}d"


def print_drift(model: NaoModel, timeout_s: float) -> None:
    print(f"\n== 3. Odometry drift, {model.version}: moveTo at the default gait, judged standing {SETTLE_S:.0f} s "
          f"after it; walked = the planner's path; error = |estimate - truth| (xy), per metre walked, heading")
    header = (f"{'robot':<26}{'goal':<15}{'walked':>7}  {'true x, y, th':>22}  {'odom (True) error':>25}  "
              f"{'plan (False) error':>25}  {'true goal miss':>14}  fall")
    print(header)
    print("-" * len(header))
    for name, make_sim in ROBOTS:
        for goal in DRIFT_GOALS:
            r = run_drift(model, make_sim, goal, timeout_s)
            goal_text = f"({goal.x:g}, {goal.y:g}, {goal.theta:g})"
            miss = f"{math.hypot(r.true.x - goal.x, r.true.y - goal.y) * 100:.1f}cm"
            print(f"{name:<26}{goal_text:<15}{r.walked_m:6.2f}m  {pose_text(r.true):>22}  "
                  f"{error_text(r.odom, r.true, r.walked_m):>25}  {error_text(r.planned, r.true, r.walked_m):>25}  "
                  f"{miss:>14}  {r.fall if r.finished or r.fall != '-' else 'not done'}", flush=True)


# ------------------------------------------------------------------------------- main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envelope", action="store_true", help="run the envelope section")
    parser.add_argument("--pushes", action="store_true", help="run the push section")
    parser.add_argument("--drift", action="store_true", help="run the odometry drift section")
    parser.add_argument("--v6", action="store_true", help="also the V6 (83 Hz) in every section run")
    parser.add_argument("--corner-s", type=float, default=8.0, help="simulated walk per envelope corner (s)")
    parser.add_argument("--window-s", type=float, default=4.0, help="the last seconds the true speed is over")
    parser.add_argument("--forces", type=float, nargs="+", default=[10.0, 15.0, 20.0, 25.0], help="push forces (N)")
    parser.add_argument("--goal-m", type=float, default=1.0, help="the moveTo's distance in the push section")
    parser.add_argument("--timeout-s", type=float, default=30.0, help="simulated time a moveTo may take")
    args = parser.parse_args()
    everything = not (args.envelope or args.pushes or args.drift)
    models = [NaoModel("V5")] + ([NaoModel("V6")] if args.v6 else [])
    wall = time.perf_counter()
    for model in models:
        if everything or args.envelope:
            print_envelope(model, args.corner_s, min(args.window_s, args.corner_s))
        if everything or args.pushes:
            print_pushes(model, args.forces, args.goal_m, args.timeout_s)
        if everything or args.drift:
            print_drift(model, args.timeout_s)
    print(f"\nwall time {time.perf_counter() - wall:.0f} s")


if __name__ == "__main__":
    main()
