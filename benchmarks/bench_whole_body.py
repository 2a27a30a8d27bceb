"""Whole-body balancer benchmark: one cycle's time (median, p99) and placo on the same tasks.

Targets (issue 11): nao_motion within 3x of placo's median on balance, reach and stress (the
printed ratio placo / nao_motion >= 0.33), and a p99 no more than 3x its own median. A cycle is
everything WholeBodyBalancer.step does: forward kinematics, the floating-base Jacobians, the
tasks' and constraints' values, OSQP (warm-started, fixed sparsity) and the integration. Each
cycle is timed twice, wall time and the thread's CPU time (which leaves out the time the process
was preempted: on a busy machine the wall-time p99 shows the scheduler). Scenarios (feet Fixed,
10 ms cycle):

* balance: balance on Legs, random poses wished for the whole body, the wish moving there at
  half speed (as the collision filter's would), a new pose every 0.75 s;
* reach: balance on Legs, LArm under effector control following a 5 cm circle in front of the
  robot, the head's wish turning;
* stress: like balance, but the wish jumps straight to each new pose (speed limits and the
  balance rows all active at once; not a target, shown for the worst case);
* walk: the whole-body node's cycle (``WholeBodyCycle``: the balancer walking, the ankle
  damping) replayed on the inputs it had in the in-process simulated walk (``sim.walking``,
  V5, moveTo(0.6, 0.1, 0.5): the support switching, the walk's references, the swing foot
  task, the collision filter's wish and the measured joints), timed on its walking cycles; its
  accuracy: the COM's and the swing sole's distance from their references after each cycle.

placo (Rhoban, on pinocchio + its own dense QP solver) is given the same tasks on the same
URDF (urdf/nao.urdf): both soles hard frame tasks, the COM polygon constraint with the same
margin, joint and velocity limits, a gear task for the HipYawPitch pair, a soft joints task
(the wish) and, in reach, a soft position task for l_gripper. The figures are printed, not
asserted: run it a few times, the machine is shared and noisy.

    ./run bench whole_body       (or: python benchmarks/bench_whole_body.py [--cycles N])
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from nao_motion.kinematics import FRAME_ROBOT
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.wholebody.balancer import WholeBodyBalancer, WholeBodySettings
from nao_motion.wholebody.support_polygon import sole_corners_in_sole, support_polygon

URDF = Path(__file__).resolve().parents[1] / "urdf" / "nao.urdf"
SCENARIOS = ("balance", "reach", "stress")
WALK_GOAL = (0.6, 0.1, 0.5)  # moveTo (m, m, rad) of the walk scenario


def wishes(model: NaoModel, scenario: str, cycles: int, start: np.ndarray) -> np.ndarray:
    """(cycles, 26) articular wishes of a scenario (same seed for every solver)."""
    rng = np.random.default_rng(0)
    out = np.empty((cycles, model.n_joints))
    wish, target = start.copy(), start.copy()
    step = 0.5 * model.max_velocity * model.cycle_time_s
    head = model.joint_index("HeadYaw")
    for k in range(cycles):
        if scenario == "reach":
            wish[head] = 0.8 * np.sin(2 * np.pi * k / 400)
        else:
            if k % 75 == 0:
                target = model.mimic_hip_yaw_pitch(rng.uniform(model.lower, model.upper))
            wish = target.copy() if scenario == "stress" else wish + np.clip(target - wish, -step, step)
        out[k] = wish
    return out


def arm_targets(centre: np.ndarray, cycles: int) -> np.ndarray:
    """A 5 cm circle in the sagittal plane, one turn every 4 s (FRAME_ROBOT)."""
    phase = 2 * np.pi * np.arange(cycles) / 400
    return centre + 0.05 * np.column_stack([np.cos(phase), np.zeros(cycles), np.sin(phase)])


P99_OVER_MEDIAN = 3.0  # target: p99 <= 3 x median
PLACO_OVER_OURS = 1.0 / 3.0  # target: within 3 x placo's median


def report(name: str, samples_s: np.ndarray, cpu_s: np.ndarray | None = None) -> float:
    """Prints median, p99, max (ms) and p99 / median, of wall time and (given) CPU time; returns
    the wall-time median (ms)."""
    line = f"{name:34s}"
    for label, samples in (("wall", samples_s), ("cpu", cpu_s)):
        if samples is None:
            continue
        ms = samples * 1e3
        median, p99 = np.median(ms), np.percentile(ms, 99)
        line += (f"  {label} median {median:6.3f} p99 {p99:6.3f} max {ms.max():6.3f} ms"
                 f" (p99/median {p99 / median:4.1f})")
    print(line)
    return float(np.median(samples_s) * 1e3)


def bench_ours(model: NaoModel, scenario: str, cycles: int) -> tuple[float, np.ndarray]:
    b = WholeBodyBalancer(model)
    start = posture(model, "StandInit")
    b.reset(start)
    effectors = frozenset({"LArm"}) if scenario == "reach" else frozenset()
    b.apply(WholeBodySettings(balance_enabled=True, effectors=effectors))
    b.set_enabled(True)
    q_wish = wishes(model, scenario, cycles, start)
    targets = arm_targets(b.fk.position_in_space(b.fk.compute(b.q), "LArm", FRAME_ROBOT)[:3] + [0.05, 0.0, 0.0],
                          cycles)
    times, cpu, iterations = np.empty(cycles), np.empty(cycles), np.empty(cycles)
    for k in range(cycles):
        if effectors:
            b.set_effector_target("LArm", targets[k])
        c0, t0 = time.thread_time(), time.perf_counter()
        result = b.step(q_wish[k])
        times[k] = time.perf_counter() - t0
        cpu[k] = time.thread_time() - c0
        iterations[k] = result.iterations
    median = report(f"nao_motion whole body, {scenario}", times, cpu)
    print(f"{'':34s}  OSQP iterations median {np.median(iterations):.0f}, p99 {np.percentile(iterations, 99):.0f}, "
          f"mean {iterations.mean():.1f}")
    return median, times


def record_walk(model: NaoModel, cycles: int) -> tuple[np.ndarray, list[tuple]]:
    """The start pose and each cycle's inputs of the whole-body cycle in the simulated walk
    (the wish, the walk's reference or None, the measured joints, the gyro)."""
    from nao_motion.sim.walking import SimulatedWalk

    walk = SimulatedWalk(model)
    start, inputs = walk.state.position.copy(), []
    cycle = walk.whole_body.cycle

    def recorded(q_wish, reference=None, q_measured=None, gyro_radps=None):
        inputs.append((q_wish.copy(), reference, None if q_measured is None else q_measured.copy(),
                       None if gyro_radps is None else np.array(gyro_radps)))
        return cycle(q_wish, reference, q_measured, gyro_radps)

    walk.whole_body.cycle = recorded
    walk.move_to(*WALK_GOAL)
    for _ in range(cycles):
        walk.cycle()
    return start, inputs


def bench_walk(model: NaoModel, cycles: int) -> np.ndarray:
    """The walk scenario; returns the walking cycles' wall times."""
    from nao_motion.wholebody.balancer import Mode
    from nao_motion.wholebody.context import SOLE_FRAME
    from nao_motion.wholebody.cycle import WholeBodyCycle

    start, inputs = record_walk(model, cycles)
    core = WholeBodyCycle(model)
    core.start(start)
    fk = core.balancer.fk
    times, cpu, iterations, com_mm, swing_mm = [], [], [], [], []
    for q_wish, reference, q_measured, gyro in inputs:
        c0, t0 = time.thread_time(), time.perf_counter()
        core.cycle(q_wish, reference, q_measured, gyro)
        wall, thread = time.perf_counter() - t0, time.thread_time() - c0
        result = core.result
        if result.mode is not Mode.WALKING:
            continue
        times.append(wall)
        cpu.append(thread)
        iterations.append(result.iterations)
        com_mm.append(1e3 * np.linalg.norm(result.com_world_m - reference.com_world_m))
        if reference.support != "Legs":
            foot = "right" if reference.support == "LLeg" else "left"
            sole = result.torso_world @ fk.pose(fk.compute(result.q), SOLE_FRAME[foot])
            target = reference.left_sole_world if foot == "left" else reference.right_sole_world
            swing_mm.append(1e3 * np.linalg.norm(sole[:3, 3] - target[:3, 3]))
    times, iterations = np.array(times), np.array(iterations)
    report("nao_motion whole-body cycle, walk", times, np.array(cpu))
    print(f"{'':34s}  {len(times)} walking cycles of {len(inputs)}; OSQP iterations median "
          f"{np.median(iterations):.0f}, p99 {np.percentile(iterations, 99):.0f}, mean {iterations.mean():.1f}")
    print(f"{'':34s}  COM off its reference: median {np.median(com_mm):.3f} max {np.max(com_mm):.3f} mm; "
          f"swing sole off its reference: median {np.median(swing_mm):.3f} max {np.max(swing_mm):.3f} mm")
    return times


def bench_placo(placo, model: NaoModel, scenario: str, cycles: int) -> float:
    robot = placo.RobotWrapper(str(URDF), placo.Flags.ignore_collisions)
    start = posture(model, "StandInit")
    for name in model.kinematic_joint_names:
        robot.set_joint(name, float(start[model.joint_index(name)]))
    robot.update_kinematics()
    solver = placo.KinematicsSolver(robot)
    solver.dt = model.cycle_time_s
    solver.enable_joint_limits(True)
    solver.enable_velocity_limits(True)
    feet = {}
    for foot, frame in (("left", "l_sole"), ("right", "r_sole")):
        feet[foot] = pose = robot.get_T_world_frame(frame)
        solver.add_frame_task(frame, pose).configure(frame, "hard", 1.0, 1.0)
    polygon = support_polygon(feet, ("left", "right"), sole_corners_in_sole(model))
    solver.add_com_polygon_constraint([v for v in polygon.vertices_xy[::-1]], 0.01)  # placo: clockwise
    solver.add_gear_task().set_gear("RHipYawPitch", "LHipYawPitch", 1.0)
    joints = solver.add_joints_task()
    joints.configure("wish", "soft", 1e-3)
    arm = None
    if scenario == "reach":
        arm = solver.add_position_task("l_gripper", robot.get_T_world_frame("l_gripper")[:3, 3])
        arm.configure("l_gripper", "soft", 10.0)
    q_wish = wishes(model, scenario, cycles, start)
    centre = robot.get_T_world_frame("l_gripper")[:3, 3] + [0.05, 0.0, 0.0]
    targets = arm_targets(centre, cycles)
    times = np.empty(cycles)
    names = [n for n in model.kinematic_joint_names if n != "RHipYawPitch"]
    index = [model.joint_index(n) for n in names]
    for k in range(cycles):
        joints.set_joints({n: float(q_wish[k, i]) for n, i in zip(names, index)})
        if arm is not None:
            arm.target_world = targets[k]
        t0 = time.perf_counter()
        solver.solve(True)
        robot.update_kinematics()
        times[k] = time.perf_counter() - t0
    return report(f"placo {placo.__version__ if hasattr(placo, '__version__') else ''}, {scenario}".replace(" ,", ","),
                  times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2000)
    args = parser.parse_args()
    model = NaoModel()
    try:
        import placo
    except ImportError as err:
        placo = None
        print(f"placo is not installed here ({err}): `pip install placo` for the side-by-side figures\n")
    for scenario in SCENARIOS:
        ours, times = bench_ours(model, scenario, args.cycles)
        spread = np.percentile(times, 99) / np.median(times)
        verdict = f"p99 / median {spread:.1f} (target <= {P99_OVER_MEDIAN:.0f}: {'ok' if spread <= P99_OVER_MEDIAN else 'MISSED'})"
        if placo is not None:
            theirs = bench_placo(placo, model, scenario, args.cycles)
            ratio = theirs / ours
            verdict = (f"time ratio placo / nao_motion: {ratio:.2f} (target >= {PLACO_OVER_OURS:.2f}: "
                       f"{'ok' if ratio >= PLACO_OVER_OURS else 'MISSED'}); " + verdict)
        print(f"{'':34s}  {verdict}\n")
    times = bench_walk(model, min(args.cycles, 1500))
    print(f"{'':34s}  p99 / median {np.percentile(times, 99) / np.median(times):.1f}\n")


if __name__ == "__main__":
    main()
