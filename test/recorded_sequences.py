"""Recorded input sequences of the whole-body balancer and the collision filter, and the commands
they gave: the reference that a rewrite of either QP must reproduce.

test/data/recorded_sequences.npz holds, per scenario, the inputs (wishes, the walk's references,
measured positions) and the commands (26 joints per cycle) that the code of the commit that
added it computed, solved to OSQP's tightest tolerances (``TIGHT_*``: the QP's exact solution,
not ADMM's stopping point), plus the largest distance of the default settings' commands from
those. Written by running this file (``.venv/bin/python test/recorded_sequences.py [scenario ...]``:
all, or only the scenarios named, when a change of their problem is deliberate); replayed
by test/test_recorded_sequences.py with today's code. The scenarios' events (settings, effector
targets, wbGoToBalance) are in ``replay_balancer`` / ``replay_avoidance`` below and must not
change, or the fixture no longer says anything.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from nao_motion.collision.avoidance import AvoidanceConfig, CollisionAvoidance
from nao_motion.kinematics import FRAME_ROBOT
from nao_motion.model import NaoModel
from nao_motion.postures import posture
from nao_motion.wholebody.balancer import BalancerConfig, WalkReference, WholeBodyBalancer, WholeBodySettings
from nao_motion.wholebody.modes import FootState
from nao_motion.wholebody.qp import SolverSettings

FIXTURE = Path(__file__).resolve().parent / "data" / "recorded_sequences.npz"
BALANCER_SCENARIOS = ("balance_legs", "effectors", "plane_feet", "lleg_free", "walk", "measured")
AVOIDANCE_SCENARIOS = ("pressing", "random")
SUPPORTS = ("Legs", "LLeg", "RLeg")
TIGHT_EPS = 1e-10
TIGHT_MAX_ITER = 200_000


def tight_balancer_config() -> BalancerConfig:
    return BalancerConfig(solver=SolverSettings(eps_abs=TIGHT_EPS, eps_rel=TIGHT_EPS, max_iter=TIGHT_MAX_ITER,
                                                polishing=True))


def tight_avoidance_config() -> AvoidanceConfig:
    return replace(AvoidanceConfig(), eps_abs=TIGHT_EPS, eps_rel=TIGHT_EPS, max_iter=TIGHT_MAX_ITER)


def _random_walk_wishes(model: NaoModel, start: np.ndarray, cycles: int, every: int, rng, jump_after: int) -> np.ndarray:
    """Random whole-body targets every `every` cycles, approached at half speed (jumped to after
    `jump_after` cycles: speed limits and balance rows at once)."""
    out = np.empty((cycles, model.n_joints))
    wish, target = start.copy(), start.copy()
    step = 0.5 * model.max_velocity * model.cycle_time_s
    for k in range(cycles):
        if k % every == 0:
            target = model.mimic_hip_yaw_pitch(rng.uniform(model.lower, model.upper))
        wish = target.copy() if k >= jump_after else wish + np.clip(target - wish, -step, step)
        out[k] = wish
    return out


def make_balancer_inputs(model: NaoModel, name: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(BALANCER_SCENARIOS.index(name) + 11)
    start = posture(model, "StandInit")
    if name == "balance_legs":
        return {"wish": _random_walk_wishes(model, start, 160, 40, rng, jump_after=100)}
    if name in ("effectors", "walk"):
        cycles = 120 if name == "effectors" else 160
        wish = np.repeat(start[None], cycles, axis=0)
        if name == "effectors":  # the legs' and the right arm's wishes move under the effector tasks
            wish[:, model.joint_index("RShoulderPitch")] += 0.4 * np.sin(np.arange(cycles) / 15.0)
            wish[:, model.joint_index("LKneePitch")] += 0.1 * np.sin(np.arange(cycles) / 20.0)
        return {"wish": wish}
    if name == "plane_feet":
        wish = np.repeat(start[None], 120, axis=0)
        wish[:, model.joint_index("LHipYawPitch")] = np.maximum(-np.deg2rad(45.0), -0.005 * np.arange(120))
        wish[:, model.joint_index("RHipYawPitch")] = wish[:, model.joint_index("LHipYawPitch")]
        return {"wish": wish}
    if name == "lleg_free":
        wish = np.repeat(start[None], 200, axis=0)
        wish[100:] = _random_walk_wishes(model, start, 100, 50, rng, jump_after=100)
        return {"wish": wish}
    if name == "measured":
        wish = _random_walk_wishes(model, start, 120, 40, rng, jump_after=120)
        # The measurement is the last command but for a blocked shoulder and a limp elbow, which
        # lag farther and farther behind it.
        offset = np.zeros_like(wish)
        for joint, lag in (("LShoulderPitch", 0.3), ("RElbowRoll", -0.4)):
            offset[:, model.joint_index(joint)] = -lag * np.minimum(np.arange(120) / 30.0, 1.0)
        return {"wish": wish, "measured_offset": offset}
    raise KeyError(name)


def walk_references(cycles: int, com0: np.ndarray, left: np.ndarray, right: np.ndarray):
    """The walk scenario's references: double support, the right foot lifted and put down forward
    while the COM is over the left foot, double support again (last 20 cycles: no reference)."""
    refs = []
    for k in range(cycles - 20):
        shift = min(k / 40.0, 1.0) if k < 100 else max(1.0 - (k - 100) / 40.0, 0.0)
        com = com0 + [0.01 * shift, 0.03 * shift, -0.004 * shift]
        swing = right.copy()
        phase = min(max((k - 40) / 50.0, 0.0), 1.0)
        swing[:3, 3] += [0.03 * phase, 0.0, 0.015 * np.sin(np.pi * phase)]
        support = "LLeg" if 40 <= k < 90 else "Legs"
        refs.append(WalkReference(com, left.copy(), swing, support))
    return refs


def replay_balancer(model: NaoModel, name: str, inputs: dict[str, np.ndarray],
                    config: BalancerConfig | None = None) -> dict[str, np.ndarray]:
    """Run a scenario; returns its commands (cycles, 26), outcomes (index in Outcome order),
    COM (cycles, 3) and OSQP iterations."""
    b = WholeBodyBalancer(model, config)
    b.reset(posture(model, "StandInit"))
    wish, offset = inputs["wish"], inputs.get("measured_offset")
    cycles = len(wish)
    refs = None
    if name == "balance_legs":
        b.apply(WholeBodySettings(balance_enabled=True))
        b.set_enabled(True)
    elif name == "effectors":
        b.apply(WholeBodySettings(effectors=frozenset({"LArm", "Head"})))
        b.set_enabled(True)
    elif name == "plane_feet":
        b.apply(WholeBodySettings(left_foot=FootState.PLANE, right_foot=FootState.PLANE))
        b.set_enabled(True)
    elif name == "lleg_free":
        b.apply(WholeBodySettings(right_foot=FootState.FREE))
        b.set_enabled(True)
    elif name == "walk":
        state = b.fk.compute(b.q)
        torso = np.linalg.inv(b.fk.ground_frame(state))
        left, right = (torso @ b.fk.pose(state, f) for f in ("l_sole", "r_sole"))
        com0 = torso[:3, :3] @ state.com_torso_m + torso[:3, 3]
        refs = walk_references(cycles, com0, left, right)
    elif name == "measured":
        b.apply(WholeBodySettings(balance_enabled=True))
    out = {"q": np.empty((cycles, model.n_joints)), "outcome": np.empty(cycles, dtype=np.int8),
           "com": np.empty((cycles, 3)), "iterations": np.empty(cycles, dtype=np.int32)}
    for k in range(cycles):
        if name == "effectors":
            if k == 0:
                b.set_effector_target("Head", np.array([0.0, 0.25, 0.6]))
                b.set_effector_target("LArm", _arm_start(b) + [0.05, 0.03, 0.06])
            elif k == 60:
                b.set_effector_target("LArm", _arm_start(b) + [-0.02, 0.0, -0.04])
        elif name == "lleg_free":
            if k == 0:
                b.go_to_balance("LLeg", 0.8)
            elif k == 100:
                b.apply(WholeBodySettings(right_foot=FootState.FREE, balance_enabled=True, balance_support="LLeg"))
        measured = None if offset is None else b.q + offset[k]
        if name == "measured" and k == 10:
            b.set_enabled(True, q_measured=measured)
        walk = refs[k] if refs is not None and k < len(refs) else None
        result = b.step(wish[k], walk, measured if k >= 10 else None)
        out["q"][k] = result.q
        out["outcome"][k] = list(type(result.outcome)).index(result.outcome)
        out["com"][k] = result.com_world_m
        out["iterations"][k] = result.iterations
    return out


def _arm_start(b: WholeBodyBalancer) -> np.ndarray:
    return b.fk.position_in_space(b.fk.compute(b.q), "LArm", FRAME_ROBOT)[:3]


def make_avoidance_inputs(model: NaoModel, name: str) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(AVOIDANCE_SCENARIOS.index(name) + 21)
    stand = posture(model, "StandInit")
    if name == "pressing":  # the seed example: the forearm driven through the chest, then held there
        start, final = stand.copy(), stand.copy()
        for joint, (a, b) in {"LShoulderPitch": (80, 50), "LShoulderRoll": (20, 6), "LElbowYaw": (-80, 0),
                              "LElbowRoll": (-60, -150)}.items():
            start[model.joint_index(joint)], final[model.joint_index(joint)] = np.deg2rad(a), np.deg2rad(b)
        start, final = model.clip_to_limits(start), model.clip_to_limits(final)
        s = np.minimum(np.arange(150) / 60.0, 1.0)[:, None]
        return {"start": start, "wish": start + s * (final - start)}
    arms = [model.joint_index(s + j) for s in "LR" for j in ("ShoulderPitch", "ShoulderRoll", "ElbowYaw", "ElbowRoll")]
    moving = arms + [model.joint_index(n) for n in ("HeadYaw", "HeadPitch")]
    wish = np.repeat(stand[None], 150, axis=0)
    for k in range(0, 150, 25):
        target = stand.copy()
        target[moving] = rng.uniform(model.lower[moving], model.upper[moving])
        wish[k:k + 25] = model.clip_to_limits(target)
    return {"start": stand, "wish": wish}


def replay_avoidance(model: NaoModel, name: str, inputs: dict[str, np.ndarray],
                     config: AvoidanceConfig | None = None) -> dict[str, np.ndarray]:
    avoidance = CollisionAvoidance(model, config)
    avoidance.reset(inputs["start"])
    wish = inputs["wish"]
    out = {"q": np.empty((len(wish), model.n_joints)), "outcome": np.empty(len(wish), dtype=np.int8),
           "iterations": np.empty(len(wish), dtype=np.int32)}
    for k, w in enumerate(wish):
        result = avoidance.step(w)
        out["q"][k] = result.q
        out["outcome"][k] = list(type(result.outcome)).index(result.outcome)
        out["iterations"][k] = result.iterations
    return out


def record(path: Path = FIXTURE, only: tuple[str, ...] = ()) -> None:
    """Write the fixture with this checkout's code (run on the commit the fixture names).

    `only`: re-record these scenarios and keep the others' recording (a deliberate change of
    one scenario's problem, which the others must still reproduce)."""
    model = NaoModel()
    arrays: dict[str, np.ndarray] = {}
    if only:
        with np.load(path) as data:
            arrays = {key: data[key] for key in data.files if key.split("/")[1] not in only}
    for kind, names, make, run, tight in (
            ("balancer", BALANCER_SCENARIOS, make_balancer_inputs, replay_balancer, tight_balancer_config()),
            ("avoidance", AVOIDANCE_SCENARIOS, make_avoidance_inputs, replay_avoidance, tight_avoidance_config())):
        for name in names:
            if only and name not in only:
                continue
            inputs = make(model, name)
            exact = run(model, name, inputs, tight)
            default = run(model, name, inputs)
            prefix = f"{kind}/{name}/"
            for key, value in inputs.items():
                arrays[prefix + "in/" + key] = value
            arrays[prefix + "q"] = exact["q"]
            arrays[prefix + "outcome"] = exact["outcome"]
            arrays[prefix + "default_error_rad"] = np.max(np.abs(default["q"] - exact["q"]), axis=1)
            print(f"{kind:9s} {name:13s} {len(exact['q']):4d} cycles, outcomes {np.bincount(exact['outcome'])}, "
                  f"default settings within {arrays[prefix + 'default_error_rad'].max():.2e} rad "
                  f"(iterations: tight median {np.median(exact['iterations']):.0f}, "
                  f"default median {np.median(default['iterations']):.0f})")
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    import sys

    unknown = set(sys.argv[1:]) - set(BALANCER_SCENARIOS + AVOIDANCE_SCENARIOS)
    if unknown:
        sys.exit(f"unknown scenarios {sorted(unknown)}; known: {BALANCER_SCENARIOS + AVOIDANCE_SCENARIOS}")
    record(only=tuple(sys.argv[1:]))
