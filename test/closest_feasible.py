"""The reference for "ends at the closest feasible point": the arm's pose, the rest of the body
held where it ended, whose effector comes closest to the target while every arm capsule keeps
the margin from the sphere (SLSQP from several starts, in the test, independent of the QPs)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from nao_motion.body_shapes import body_capsules
from nao_motion.collision.distance import capsule_capsule_distance
from nao_motion.kinematics import FRAME_TORSO, ForwardKinematics

ARM_JOINTS = {"LArm": ("LShoulderPitch", "LShoulderRoll", "LElbowYaw", "LElbowRoll", "LWristYaw")}


def arm_to_sphere_m(fk: ForwardKinematics, q: np.ndarray, centre: np.ndarray, radius_m: float,
                    group: str = "l_arm") -> float:
    """Ground truth: the closest capsule of the arm's group to the sphere (torso frame) at q."""
    state, best = fk.compute(q), np.inf
    for shape in body_capsules(fk.model):
        if shape.group != group:
            continue
        pose = fk.pose(state, shape.link)
        p, q_end = (pose[:3, :3] @ np.asarray(end) + pose[:3, 3] for end in (shape.p_m, shape.q_m))
        best = min(best, float(capsule_capsule_distance(p, q_end, shape.radius_m, centre, centre,
                                                        radius_m).distance_m))
    return best


def closest_feasible_gap_m(fk: ForwardKinematics, q_end: np.ndarray, target_torso: np.ndarray,
                           centre_torso: np.ndarray, radius_m: float, margin_m: float, arm: str = "LArm",
                           starts: int = 8, seed: int = 0) -> float:
    """The smallest distance (m) from the arm's effector to `target_torso` over the arm joints
    (within their limits) keeping `margin_m` from the sphere, the other joints at q_end."""
    model = fk.model
    index = [model.joint_index(n) for n in ARM_JOINTS[arm]]
    bounds = [(model.lower[i], model.upper[i]) for i in index]
    q = q_end.copy()

    def at(x):
        q[index] = x
        return q

    def gap_sq(x):
        p = fk.position_in_space(fk.compute(at(x)), arm, FRAME_TORSO)[:3]
        return float(np.sum((p - target_torso) ** 2))

    def clearance(x):
        return arm_to_sphere_m(fk, at(x), centre_torso, radius_m) - margin_m

    rng = np.random.default_rng(seed)
    best = np.inf
    for k in range(starts):
        x0 = q_end[index] if k == 0 else np.clip(q_end[index] + rng.normal(0.0, 0.3, len(index)),
                                                  *np.array(bounds).T)
        result = minimize(gap_sq, x0, method="SLSQP", bounds=bounds,
                          constraints=[{"type": "ineq", "fun": clearance}],
                          options={"ftol": 1e-12, "maxiter": 300})
        if clearance(result.x) >= -1e-5:
            best = min(best, float(np.sqrt(gap_sq(result.x))))
    return best
