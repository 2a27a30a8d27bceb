"""Validation of named joint values arriving from outside (messages, client calls).

Every node that takes joint names and values goes through :func:`parse_joint_values`,
so malformed input is refused the same way everywhere and nothing half-parsed
reaches the algorithms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .model import NaoModel


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
) -> JointValues:
    """Check names against the model and values for length and finiteness.

    unknown_names: "reject" refuses the whole input when a name is not a NAO joint (commands:
    a misspelt joint must not be silently dropped); "ignore" drops such entries and reports them
    (sensor streams may carry extra joints, e.g. finger joints of another description).
    """
    names = list(names)
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or len(values) != len(names):
        raise JointInputError(f"{len(names)} joint names but {values.size} {what} values")
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise JointInputError(f"duplicate joint names {duplicates}")
    known = [model.has_joint(n) for n in names]
    ignored = [n for n, k in zip(names, known) if not k]
    if ignored and unknown_names == "reject":
        raise JointInputError(f"unknown joint names {ignored}")
    keep = np.array(known, dtype=bool)
    kept_values = values[keep] if len(values) else values
    if require_finite and not np.all(np.isfinite(kept_values)):
        bad = [n for n, v, k in zip(names, values, known) if k and not np.isfinite(v)]
        raise JointInputError(f"non-finite {what} for {bad}")
    indices = np.array([model.joint_index(n) for n, k in zip(names, known) if k], dtype=int)
    return JointValues(indices, kept_values.copy(), ignored)
