"""The embedded-default demo: a scripted scenario on the simulated NAO with the whole suite.

Starts the simulator and every node of the suite (as `nao-motion sim` does). The default
scenario walks the robot to a goal through the ALMotion client (moveInit, then a non-blocking
moveTo); the others play a built-in motion through the suite's `joint_targets` ("wave": stand,
look around, raise and wave the right arm; "squat"); "obstacle" declares a sphere where the raised
left hand would be (ALMotion setObstacle), raises the left arm into it (it stops at the margin),
then moves the sphere beside the way (the arm goes on to its target). It prints the live status once a second and
writes, in the output directory: `summary.json` (falls, tilt, tracking error, rates, real-time
factor, each node's cycle time; for a walk the goal, where the true torso ended, the errors and
the path), `nao_sim.gif` and `nao_sim_*.png` (the simulated robot rendered from the published
joint states and ground truth), for a walk `nao_walk.png` (footsteps, planned ZMP, planned and
measured centre of mass, true path), else `nao_stick_figure.png` (the robot drawn from the
kinematics node's /tf); the obstacle scenario draws its sphere in both and reports the arm's
ground-truth distance to it (measured joints, shape by shape).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from .cpu_quota import CpuQuota
from .host_steal import HostSteal
from .processes import CLEAN_EXIT_CODES, local_ros_env
from .ros.distribution import ros_distribution
from .sim.simulator import DEFAULT_FALL_TILT_RAD
from .spatial import rotation_from_quaternion_xyzw, yaw_of
from .suite import PLAYER

SKELETON_SKIP = ("Camera", "gaze", "base_link", "_optical")
DEFAULT_GOAL = (1.0, 0.5, 1.57)  # x m, y m, theta rad: NAOqi moveTo, relative to the robot
# A walk demo succeeds when the true torso ends this close to the goal.
GOAL_TOLERANCE_M, GOAL_TOLERANCE_DEG = 0.05, 5.0


def _skeleton(listener, root: str = "torso") -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Segments (parent origin, child origin) of the link tree, in the root frame."""
    segments = {}
    for child, parent in listener.parent_of.items():
        if any(s in child for s in SKELETON_SKIP) or parent == "base_footprint":
            continue
        try:
            segments[child] = (listener.lookup(parent, root)[:3, 3], listener.lookup(child, root)[:3, 3])
        except KeyError:
            continue
    return segments


def draw_stick_figures(snapshots: list[dict], path: Path, title: str) -> None:
    """Front (y-z) and side (x-z) views of each snapshot, one column per snapshot."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(snapshots), figsize=(3.2 * len(snapshots), 6.4), squeeze=False)
    for col, snap in enumerate(snapshots):
        for row, (ix, label) in enumerate(((1, "y (m)"), (0, "x (m)"))):
            ax = axes[row][col]
            for a, b in snap["segments"].values():
                ax.plot([a[ix], b[ix]], [a[2], b[2]], "-o", color="tab:blue", markersize=2.5, linewidth=2)
            obstacle = snap.get("obstacle")  # the obstacle scenario's sphere, torso frame
            if obstacle is not None:
                ax.add_patch(plt.Circle((obstacle[ix], obstacle[2]), OBSTACLE_RADIUS_M, color="tab:red", alpha=0.5))
            com = snap["com"]
            if com is not None:
                ax.plot(com[ix], com[2], "x", color="tab:red", markersize=8, label="centre of mass")
            ax.set_xlim(-0.3, 0.3)
            ax.set_ylim(-0.38, 0.3)
            ax.set_aspect("equal")
            ax.grid(alpha=0.3)
            ax.set_xlabel(label)
            if row == 0:
                ax.set_title(f"t = {snap['t']:.1f} s (front)")
            else:
                ax.set_title("side")
    axes[0][0].set_ylabel("z (m), torso frame")
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _record(monitor, model) -> dict | None:
    """One sample of what the suite publishes: joints, commands, torso pose, TF skeleton."""
    states, truth = monitor.joint_states, monitor.torso_pose
    if states is None or truth is None:
        return None
    q = model.zero_configuration()
    for name, value in zip(states.name, states.position):
        if model.has_joint(name):
            q[model.joint_index(name)] = value
    error = None
    if monitor.joint_commands is not None:
        commands = dict(zip(monitor.joint_commands.name, monitor.joint_commands.position))
        error = max(abs(commands[n] - q[model.joint_index(n)]) for n in commands
                    if n in model.kinematic_joint_names and n != "RHipYawPitch")
    p, o = truth.pose.pose.position, truth.pose.pose.orientation
    return {"t": monitor.sim_time_s, "q": q, "position": (p.x, p.y, p.z), "orientation": (o.x, o.y, o.z, o.w),
            "tilt_rad": monitor.tilt_rad(), "tracking_error_rad": error}


OBSTACLE_RADIUS_M = 0.03


class ArmToSphere:
    """The left arm's distance to a sphere of OBSTACLE_RADIUS_M (torso frame) at given joints,
    by the obstacle distances the whole body keeps (``collision.obstacles``): the ground truth."""

    def __init__(self, model, fk):
        from .collision.obstacles import ObstacleDistances, ObstacleSlots, obstacle_shapes

        self.fk = fk
        self.distances = ObstacleDistances(fk, obstacle_shapes(model, ("l_arm",)), capacity=1)
        self.slots = ObstacleSlots(1)
        self.slots.radius_m[0], self.slots.used[0] = OBSTACLE_RADIUS_M, 1.0

    def distance_m(self, q: np.ndarray, centre_torso: np.ndarray) -> float:
        self.slots.p_m[0] = self.slots.q_m[0] = centre_torso
        return float(self.distances.compute(self.fk.compute(q), self.slots).distance_m.min())


def _in_world(sample: dict, point_torso: np.ndarray) -> np.ndarray:
    return rotation_from_quaternion_xyzw(sample["orientation"]) @ point_torso + np.asarray(sample["position"])


def _render(samples: list[dict], model, out_dir: Path) -> list[str]:
    """GIF and stills of the simulated robot, posed from the recorded states (offscreen)."""
    from .sim.render import SimRenderer, save_gif, save_png
    from .sim.simulator import NaoSimulator

    sim = NaoSimulator(model)
    frames, stills = [], []
    still_at = {int(i) for i in np.linspace(0, len(samples) - 1, 4)}
    with SimRenderer(sim, width=400, height=320) as renderer:
        for i, sample in enumerate(samples):
            sim.show(sample["q"], sample["position"], sample["orientation"])
            obstacle = sample.get("obstacle_torso")
            frames.append(renderer.frame([] if obstacle is None else [(_in_world(sample, obstacle),
                                                                        OBSTACLE_RADIUS_M)]))
            if i in still_at:
                stills.append(str(save_png(frames[-1], out_dir / f"nao_sim_{len(stills)}_{sample['t']:.1f}s.png")))
    return [str(save_gif(frames, out_dir / "nao_sim.gif", fps=10.0))] + stills


def _node_cycle_times_ms(monitor) -> dict[str, dict[str, float]]:
    """Each node's cycle time (median, p99, ms) from its last /diagnostics status."""
    times = {}
    for name, values in monitor.diagnostics.items():
        if "cycle_time_median_ms" in values:
            times[name.removeprefix("nao_motion: ")] = {
                "median": float(values["cycle_time_median_ms"]), "p99": float(values["cycle_time_p99_ms"])}
    return times


def _walk_result(samples: list[dict], goal: tuple[float, float, float]) -> dict:
    """Where the true torso ended, relative to where it started (its yaw in the floor plane)."""
    def pose(sample):
        return np.array(sample["position"][:2]), yaw_of(rotation_from_quaternion_xyzw(sample["orientation"]))

    (p0, yaw0), (p1, yaw1) = pose(samples[0]), pose(samples[-1])
    c, s = np.cos(yaw0), np.sin(yaw0)
    moved = np.array([[c, s], [-s, c]]) @ (p1 - p0)
    turned = float(np.arctan2(np.sin(yaw1 - yaw0), np.cos(yaw1 - yaw0)))
    return {"goal": list(goal), "reached": [float(moved[0]), float(moved[1]), turned],
            "position_error_m": float(np.hypot(moved[0] - goal[0], moved[1] - goal[1])),
            "heading_error_deg": float(np.rad2deg(abs(np.arctan2(np.sin(turned - goal[2]), np.cos(turned - goal[2])))))}


WALK_DIAGNOSTICS = "nao_motion: walk"


def _walk_ready(monitor) -> bool:
    """The walk node says it has fresh sensors and no protection blocks a walk (diagnostics OK)."""
    return monitor.diagnostics.get(WALK_DIAGNOSTICS, {}).get("_level") == "0"


def run_demo(duration_s: float = 60.0, out_dir: Path = Path("out/demo"), version: str = "V5",
             scenario: str = "walk", real_time_factor: float = 1.0,
             goal: tuple[float, float, float] = DEFAULT_GOAL, composed: bool = True,
             cpu_quota_percent: float | None = None) -> dict:
    """Run `scenario` ("walk" to `goal` with moveTo, a player motion: "wave", "squat", or
    "obstacle") for at most `duration_s` of sim time (a walk ends earlier when it is over) and
    write the report. `cpu_quota_percent`: the suite's processes (not the simulator) capped at
    that share of one core per motion cycle (``nao_motion.cpu_quota``), as on the robot's CPU."""
    if "ROS_AUTOMATIC_DISCOVERY_RANGE" not in os.environ:  # the demo is self-contained: stay on loopback
        os.environ.update(local_ros_env())
    import rclpy

    from .almotion import ALMotion
    from .bringup import Suite
    from .model import NaoModel
    from .ros.monitor import SuiteMonitor
    from .ros.walk_recorder import WalkRecorder
    from .walk_report import plot_walk

    model = NaoModel(version)
    quota = None if cpu_quota_percent is None else CpuQuota(cpu_quota_percent, model.cycle_time_s)
    suite = Suite(dict(os.environ), version, real_time_factor, log_dir=out_dir / "logs", composed=composed,
                  cpu_quota=quota)
    from .kinematics import ForwardKinematics

    fk = ForwardKinematics(model)
    arm_to_sphere = ArmToSphere(model, fk)
    what = f"moveTo{tuple(goal)}" if scenario == "walk" else f"'{scenario}'"
    obstacle = obstacle_torso = None  # the obstacle scenario: its sphere (torso frame) and where it goes next
    ros = ros_distribution()
    print(f"nao_motion demo: simulated NAO {version}, {what}, at most {duration_s:.0f} s of sim time "
          f"(ROS 2 {ros['ros_distro']}, rclpy {ros['rclpy_version']}; ROS_DOMAIN_ID={os.environ.get('ROS_DOMAIN_ID', '0')}, "
          f"discovery {os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE')})"
          + (f"; the suite's CPU capped at {quota.describe()}" if quota is not None else ""))
    host = HostSteal().start()  # from the suite's start: its missed cycles are counted from there
    suite.start()
    rclpy.init()
    node = rclpy.create_node("nao_motion_demo")
    monitor = SuiteMonitor(node)
    recorder = WalkRecorder(node) if scenario == "walk" else None
    motion = task = None
    samples, snapshots = [], []
    snapshot_times = list(np.linspace(1.0, duration_s - 1.0, 4)) if scenario != "walk" else []
    try:
        if not monitor.spin_for(60.0, until=lambda: monitor.joint_commands is not None):
            raise RuntimeError(f"no joint_commands from the suite within 60 s; see {out_dir / 'logs'}")
        # The walk takes a move once it has its sensors (its diagnostics OK): a move sent before its
        # foot sensors arrived was refused by the foot contact protection, as it should be.
        if scenario == "walk" and not monitor.spin_for(30.0, until=lambda: _walk_ready(monitor)):
            raise RuntimeError(f"the walk did not report ready within 30 s: "
                               f"{monitor.diagnostics.get(WALK_DIAGNOSTICS, {}).get('_message')}; see {out_dir / 'logs'}")
        # The robot's start, where the walk is measured from, is known before it moves: a first
        # sample taken when the simulator's ground truth arrived after the walk had begun put
        # the start 8 cm and 6 degrees along the walk (a demo "6 degrees short" that was not).
        if not monitor.spin_for(30.0, until=lambda: _record(monitor, model) is not None):
            raise RuntimeError(f"no joint_states and ground truth from the simulator within 30 s; see {out_dir / 'logs'}")
        first = _record(monitor, model)
        # The motion starts once the chain to the robot is up, so it is not played to nobody.
        if scenario == "walk":
            motion = ALMotion(version)
            motion.moveInit()
            task = motion.post.moveTo(*goal)
        elif scenario == "obstacle":
            motion = ALMotion(version)
            raised = np.array(motion.getAngles("Body", True))
            raised[model.joint_index("LShoulderPitch")] = 0.0
            obstacle_torso = fk.pose(fk.compute(raised), "l_gripper")[:3, 3]  # where the raised hand would be
            motion.setObstacle("ball", "Sphere", obstacle_torso.tolist(), [OBSTACLE_RADIUS_M], frame="torso")
            motion.setAngles(["LShoulderPitch"], [0.0], 0.3)
            obstacle = {"beside_at_s": 0.5 * duration_s, "beside": obstacle_torso + (0.0, 0.15, 0.0), "moved": False}
        else:
            suite.add(PLAYER, {"motion": scenario, "topic": "joint_targets", "loop": False})
        start_t = monitor.sim_time_s
        first["t"] = 0.0
        samples.append(first)
        last_sample, last_print = 0.0, -1.0
        wall_deadline = time.monotonic() + 20.0 + duration_s / max(real_time_factor, 0.05)
        while monitor.sim_time_s - start_t < duration_s and time.monotonic() < wall_deadline:
            monitor.spin_for(0.01)
            if recorder is not None:
                recorder.poll()
            t = monitor.sim_time_s - start_t
            if obstacle is not None and t >= obstacle["beside_at_s"] and not obstacle["moved"]:
                obstacle_torso, obstacle["moved"] = obstacle["beside"], True  # the sphere moved beside the way: the arm goes on
                motion.setObstacle("ball", "Sphere", obstacle_torso.tolist(), [OBSTACLE_RADIUS_M], frame="torso")
            if t - last_sample >= 0.1 and (sample := _record(monitor, model)) is not None:
                last_sample, sample["t"] = t, t
                if obstacle_torso is not None:
                    sample["obstacle_torso"] = obstacle_torso
                    sample["obstacle_distance_m"] = arm_to_sphere.distance_m(sample["q"], obstacle_torso)
                samples.append(sample)
            if snapshot_times and t >= snapshot_times[0]:
                snapshot_times.pop(0)
                snapshots.append({"t": t, "segments": _skeleton(monitor.tf), "com": None, "obstacle": obstacle_torso})
            if t - last_print >= 1.0:
                last_print = t
                print("  " + monitor.status_line(len(suite.running()), len(suite.processes)), flush=True)
            if task is not None and not motion.isRunning(task) and monitor.falls() == 0:
                monitor.spin_for(1.0)  # the robot settles; then the report
                break
    finally:
        rates = {k: round(m.rate_hz(), 1) for k, m in monitor.rates.items()}
        rtf, falls, cycle_times = monitor.real_time_factor(), monitor.falls(), _node_cycle_times_ms(monitor)
        tf_frames = len(monitor.tf.frames())
        if recorder is not None:
            recorder.poll()
        sim_diagnostics = monitor.diagnostics.get("nao_motion: simulator", {})
        host.stop()
        missed = f"{sim_diagnostics.get('missed_cycles', '?')} of {sim_diagnostics.get('cycles', '?')}"
        if host.watching:
            halted = sum(map(host.halted_near, monitor.missed_cycles_at_s))
            missed += (f" ({halted} while a vCPU was halted {1e3 * HostSteal.HALT_MIN_S:.0f} ms or more; "
                       f"the longest halt {1e3 * host.longest_s:.0f} ms)")
        walk_finished = task is not None and not motion.isRunning(task)
        walk_error = motion.post.errors.get(task) if task is not None else None
        if motion is not None:
            motion.close()
        monitor.close()
        node.destroy_node()
        rclpy.try_shutdown()
        codes = suite.stop()
        if quota is not None:
            throttled = quota.usage()
            quota.close()

    out_dir.mkdir(parents=True, exist_ok=True)
    pictures = _render(samples, model, out_dir) if samples else []
    if snapshots:
        stick = out_dir / "nao_stick_figure.png"
        draw_stick_figures(snapshots, stick, f"NAO {version} '{scenario}' from /tf (kinematics node)")
        pictures.append(str(stick))
    errors = [s["tracking_error_rad"] for s in samples if s["tracking_error_rad"] is not None]
    summary = {
        "nao_version": version, "scenario": scenario, "sim_duration_s": samples[-1]["t"] if samples else 0.0,
        "falls": falls, "max_tilt_deg": float(np.rad2deg(max((s["tilt_rad"] for s in samples), default=0.0))),
        "tracking_error_deg": {"median": float(np.rad2deg(np.median(errors))) if errors else None,
                               "max": float(np.rad2deg(np.max(errors))) if errors else None},
        "rates_hz": rates, "real_time_factor": round(rtf, 2), "missed_cycles": missed, "cycle_time_ms": cycle_times,
        "tf_frames": tf_frames, "exit_codes": codes, **ros,
    }
    if quota is not None:
        summary["cpu_quota"] = {"percent_of_one_core": quota.percent, "period_ms": quota.period_us / 1e3,
                                "periods": throttled.periods, "throttled_periods": throttled.throttled_periods,
                                "throttled_s": round(throttled.throttled_s, 3)}
    # The verdict follows the figures: a tilt past the simulator's fall threshold is a fall, even
    # when the simulator's own count (published twice a second) has not said so yet.
    fell = bool(falls > 0 or summary["max_tilt_deg"] >= np.rad2deg(DEFAULT_FALL_TILT_RAD))
    summary["fell"] = fell
    ok = (bool(samples) and not fell and summary["tf_frames"] > 30
          and all(c in CLEAN_EXIT_CODES for c in codes.values()))
    if recorder is not None and samples:
        summary["walk"] = _walk_result(samples, goal)
        summary["walk"]["path_xy_m"] = [[round(s["position"][0], 4), round(s["position"][1], 4)] for s in samples]
        summary["walk"]["steps"] = len(recorder.steps)
        plot = out_dir / "nao_walk.png"
        plot_walk(*(recorder.array(t) for t in ("walk/zmp", "walk/com", "walk/com_measured")),
                  recorder.planned_steps(), np.array(summary["walk"]["path_xy_m"]), goal, plot,
                  f"NAO {version} moveTo{tuple(goal)}: footsteps, ZMP and centre of mass")
        pictures.append(str(plot))
        summary["walk"]["finished"] = walk_finished and walk_error is None
        summary["walk"]["error"] = None if walk_error is None else str(walk_error)
        summary["walk"]["reached_goal"] = bool(summary["walk"]["position_error_m"] <= GOAL_TOLERANCE_M
                                           and summary["walk"]["heading_error_deg"] <= GOAL_TOLERANCE_DEG)
        ok = ok and summary["walk"]["steps"] > 0 and summary["walk"]["finished"] and summary["walk"]["reached_goal"]
    if obstacle is not None and samples:
        pitch = model.joint_index("LShoulderPitch")
        before = [s for s in samples if s["t"] < obstacle["beside_at_s"] and "obstacle_distance_m" in s]
        after = [s for s in samples if s["t"] >= obstacle["beside_at_s"] and "obstacle_distance_m" in s]
        summary["obstacle"] = {
            "radius_m": OBSTACLE_RADIUS_M, "moved_beside_at_s": obstacle["beside_at_s"],
            "min_distance_m": min(s["obstacle_distance_m"] for s in samples if "obstacle_distance_m" in s),
            "stopped_at": {"distance_m": before[-1]["obstacle_distance_m"], "LShoulderPitch": float(before[-1]["q"][pitch])}
            if before else None,
            "ended_at": {"distance_m": after[-1]["obstacle_distance_m"], "LShoulderPitch": float(after[-1]["q"][pitch])}
            if after else None,
        }
        ok = ok and summary["obstacle"]["min_distance_m"] > 0.0
    summary["pictures"], summary["ok"] = pictures, ok
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    walked = (f"; walked to {np.round(summary['walk']['reached'], 3).tolist()} (goal {list(goal)}, error "
              f"{summary['walk']['position_error_m']:.3f} m, {summary['walk']['heading_error_deg']:.1f} deg)"
              if "walk" in summary else "")
    print(f"nao_motion demo {'done' if ok else 'FAILED'}: {summary['sim_duration_s']:.1f} s simulated, "
          f"falls {falls}{' (fell)' if fell else ''}, max tilt {summary['max_tilt_deg']:.1f} deg, RTF {rtf:.2f}, joint_commands {rates['joint_commands']:.0f} Hz, missed cycles {missed}{walked}; wrote "
          f"{out_dir}/summary.json, {len(pictures)} pictures (logs in {out_dir / 'logs'})")
    return summary
