"""NAOqi's whole-body vocabulary: foot states, support legs, effectors, and which combinations of
foot states and balance constraint are allowed (the seed's "Balance Constraint" list).

Plain data and checks, shared by the balancer, the node's parameter validation and the
ALMotion client, so a combination is refused with the same reason everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from enum import Enum

import numpy as np

# NAOqi (wbEnableBalanceConstraint): "if COM is not inside the desired support polygon, this
# constraint is not activated". The refusal's reason starts with this, so that the ALMotion
# client reports it as NAOqi does (not activated) rather than as an error.
BALANCE_NOT_ACTIVATED = "balance constraint not activated"

FEET = ("left", "right")
SUPPORT_LEGS = ("Legs", "LLeg", "RLeg")
EFFECTORS = ("Head", "LArm", "RArm")
SUPPORT_FEET = {"Legs": ("left", "right"), "LLeg": ("left",), "RLeg": ("right",)}

# Effector targets the QP is given at all: an unreachable one is leant towards (the QP's
# compromise), but one a metre away from a 0.57 m robot, or an orientation beyond a half turn,
# only drives the solver to its iteration limit.
MAX_ARM_TARGET_M = 1.0
MAX_HEAD_TARGET_RAD = np.pi


class FootState(str, Enum):
    """wbFootState: FIXED holds all 6 DoF; PLANE holds z, wx, wy (slides in x, y, wz); FREE none."""

    FIXED = "Fixed"
    PLANE = "Plane"
    FREE = "Free"


def parse_foot_state(name: str) -> FootState:
    try:
        return FootState(name)
    except ValueError:
        raise ValueError(f"unknown foot state {name!r}: expected one of {[s.value for s in FootState]}") from None


def check_support_leg(name: str) -> None:
    if name not in SUPPORT_LEGS:
        raise ValueError(f"unknown support leg {name!r}: expected one of {list(SUPPORT_LEGS)}")


def foot_states_for(state_name: str, support_leg: str, current: dict[str, FootState]) -> dict[str, FootState]:
    """NAOqi wbFootState(stateName, supportLeg): the new per-foot states (ValueError if malformed)."""
    state = parse_foot_state(state_name)
    check_support_leg(support_leg)
    out = dict(current)
    for foot in SUPPORT_FEET[support_leg]:
        out[foot] = state
    return out


def balance_refusal(enabled: bool, support_leg: str, feet: dict[str, FootState]) -> str | None:
    """Why this balance constraint cannot go with these foot states, or None when it can.

    The seed's allowed combinations reduce to: "Legs" needs both feet on the ground (Fixed or
    Plane) with at least one Fixed; "LLeg" / "RLeg" need that foot Fixed (the other is free to
    be anything). A disabled constraint goes with any foot states.
    """
    check_support_leg(support_leg)
    if not enabled:
        return None
    left, right = feet["left"], feet["right"]
    if support_leg == "Legs":
        if FootState.FREE in (left, right):
            return (f"balance on Legs needs both feet on the ground (Fixed or Plane), "
                    f"but left is {left.value} and right is {right.value}")
        if FootState.FIXED not in (left, right):
            return "balance on Legs needs at least one foot Fixed, but both are Plane"
        return None
    foot = "left" if support_leg == "LLeg" else "right"
    if feet[foot] is not FootState.FIXED:
        return f"balance on {support_leg} needs the {foot} foot Fixed, but it is {feet[foot].value}"
    return None


def com_outside_refusal(support_leg: str, distance_m: float) -> str:
    """The reason a balance constraint on ``support_leg`` is not activated: the COM is
    ``distance_m`` outside its polygon."""
    return (f"{BALANCE_NOT_ACTIVATED}: the centre of mass is {distance_m * 1e3:.1f} mm outside the "
            f"{support_leg} support polygon: move it there first (wbGoToBalance)")


def check_effector(name: str) -> None:
    if name not in EFFECTORS:
        raise ValueError(f"unknown effector {name!r}: expected one of {list(EFFECTORS)}")


def check_effector_enabled(name: str, enabled: Collection[str]) -> None:
    """wbSetEffectorControl needs the effector under control (ValueError otherwise)."""
    if name not in enabled:
        raise ValueError(f"effector control of {name} is not enabled (wbEnableEffectorControl)")


def check_effector_target(name: str, target: Sequence[float] | np.ndarray) -> np.ndarray:
    """wbSetEffectorControl's target in FRAME_ROBOT as a float array: Head (wx, wy, wz) rad,
    LArm / RArm (x, y, z) m. ValueError with the reason for an unknown effector, a target that is
    not 3 finite numbers or one beyond MAX_HEAD_TARGET_RAD / MAX_ARM_TARGET_M. The balancer and
    the ALMotion client both call it, so the client refuses what the node would, with its reason."""
    check_effector(name)
    target = np.asarray(target, dtype=float)
    if target.shape != (3,) or not np.all(np.isfinite(target)):
        raise ValueError(f"{name} target must be 3 finite numbers, got {target.tolist()}")
    limit = MAX_HEAD_TARGET_RAD if name == "Head" else MAX_ARM_TARGET_M
    if np.any(np.abs(target) > limit):
        unit = "rad" if name == "Head" else "m"
        raise ValueError(f"{name} target {target.tolist()} is beyond +-{limit:g} {unit} in FRAME_ROBOT: "
                         "no pose of the robot comes near it")
    return target


def resized_to_arm_reach(target_m: np.ndarray, shoulder_m: np.ndarray, reach_m: float) -> np.ndarray:
    """An arm target (FRAME_ROBOT, m) brought within `reach_m` of the shoulder: NAOqi resizes an
    unfeasible target to the nearest feasible one. Below the shoulder only the distance in the
    floor plane counts (the legs bend to reach down)."""
    dx, dy, dz = (np.asarray(target_m, dtype=float) - shoulder_m).tolist()
    up = max(dz, 0.0)
    distance_m = math.sqrt(dx * dx + dy * dy + up * up)
    if distance_m <= reach_m:
        return np.asarray(target_m, dtype=float)
    scale = reach_m / distance_m
    return shoulder_m + [scale * dx, scale * dy, scale * up + min(dz, 0.0)]
