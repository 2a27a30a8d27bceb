"""Validation of named joint values arriving from outside (messages, client calls).

Every node that takes joint names and values goes through :func:`parse_joint_values`,
so malformed input is refused the same way everywhere and nothing half-parsed
reaches the algorithms.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .model import NaoModel
# A commanded angle beyond a full turn is no joint angle of NAO's (its joints turn within +-2.1
# rad): a bug in the caller (1e6, 1e308), refused rather than clamped to the joint's limit.
MAX_COMMAND_POSITION_RAD = 2.0 * np.pi
# Names quoted in a refusal: a message of 10,000 bad names gets a reason, not a page.
QUOTED_NAMES = 5
# A message naming more than this many times the model's joints is no NAO's (a sensor stream's
# extra joints, another description's fingers, are a few): refused on its count, before any
# per-name work (10,000 duplicated names cost about 15 ms a message, more than a cycle).
MAX_NAMES_PER_MODEL_JOINT = 4


class JointInputError(ValueError):
    """Joint input refused; the message says why."""


@dataclass
class JointValues:
    """Validated values: model indices and the matching values, plus names that were ignored."""

    indices: np.ndarray
    values: np.ndarray
    ignored_names: list[str]


def parse_joint_values(
    model: NaoModel,
    names: Sequence[str],
    values: Sequence[float],
    *,
    unknown_names: str = "reject",
    require_finite: bool = True,
    what: str = "position",
    limit: float | None = None,
) -> JointValues:
    """Check names against the model and values for length and finiteness.

    unknown_names: "reject" refuses the whole input when a name is not a NAO joint (commands:
    a misspelt joint must not be silently dropped); "ignore" drops such entries and reports them
    (sensor streams may carry extra joints, e.g. finger joints of another description).
    limit: values beyond +-limit are refused (commands: MAX_COMMAND_POSITION_RAD).
    """
    check_name_count(model, len(names))
    names = list(names)
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or len(values) != len(names):
        raise JointInputError(f"{len(names)} joint names but {values.size} {what} values")
    if len(set(names)) != len(names):
        duplicates = sorted(n for n, count in Counter(names).items() if count > 1)
        raise JointInputError(f"duplicate joint names {quoted(duplicates)}")
    known = [model.has_joint(n) for n in names]
    ignored = [n for n, k in zip(names, known) if not k]
    if ignored and unknown_names == "reject":
        raise JointInputError(f"unknown joint names {quoted(ignored)}")
    keep = np.array(known, dtype=bool)
    kept_values = values[keep] if len(values) else values
    if require_finite and not np.all(np.isfinite(kept_values)):
        bad = [n for n, v, k in zip(names, values, known) if k and not np.isfinite(v)]
        raise JointInputError(f"non-finite {what} for {quoted(bad)}")
    if limit is not None and np.any(np.abs(kept_values) > limit):
        bad = [n for n, v, k in zip(names, values, known) if k and abs(v) > limit]
        raise JointInputError(f"{what} beyond +-{limit:.3g} for {quoted(bad)}: refused, not clamped")
    indices = np.array([model.joint_index(n) for n, k in zip(names, known) if k], dtype=int)
    return JointValues(indices, kept_values.copy(), ignored)


def max_joint_names(model: NaoModel) -> int:
    return MAX_NAMES_PER_MODEL_JOINT * model.n_joints


def check_name_count(model: NaoModel, count: int) -> None:
    """Refuse a message of more joint names than max_joint_names, before reading them."""
    limit = max_joint_names(model)
    if count > limit:
        raise JointInputError(f"{count} joint names, more than {limit} "
                              f"({MAX_NAMES_PER_MODEL_JOINT} x the model's {model.n_joints} joints)")


def parse_stiffness(model: NaoModel, names: Sequence[str], efforts: Sequence[float], *,
                    unknown_names: str = "reject") -> JointValues:
    """A joint_stiffness message's values (sensor_msgs/JointState ``effort``): named joints, or
    no names and one value for every joint (the suite's "Body" form)."""
    if not len(names) and len(efforts) == 1:
        value = float(efforts[0])
        if not np.isfinite(value):
            raise JointInputError("non-finite stiffness")
        return JointValues(np.arange(model.n_joints), np.full(model.n_joints, value), [])
    return parse_joint_values(model, names, efforts, unknown_names=unknown_names, what="stiffness (effort)")


def quoted(names: Sequence[str]) -> str:
    """The first few names, and how many there are in all when there are more."""
    shown = [name[:40] for name in names[:QUOTED_NAMES]]
    return f"{shown}" + (f" and {len(names) - QUOTED_NAMES} more" if len(names) > QUOTED_NAMES else "")

