"""Gait parameters and NAOqi move configs (per foot or common).

The table below is NAOqi's "Gait parameters" table (seed 003): each parameter has
a default, an allowed range and a flag saying whether users may set it through a
move config. Units: metres, radians, seconds; MaxStepFrequency and Frequency are
normalised in [0, 1].

Two cells are empty in NAOqi's table; the values chosen here are judgement calls:

* MaxStepFrequency: default 1.0, range [0, 1] (it scales the normalised step
  frequency, so 1 leaves Frequency untouched and 0 pins the period at
  MaxStepPeriod);
* the non-settable rows (MinStepX, MinStepPeriod, MaxStepPeriod, FootSeparation,
  MinFootSeparation) have minimum = maximum = default;
* TorsoWx / TorsoWy: the table's +-0.122 rad is 7 degrees rounded, and the
  seed's own example sets -7 degrees, so the bound is +-7 degrees exactly.

Parsing is all-or-nothing: a list with any bad entry raises ``MoveConfigError``
naming every bad entry, and no value of that list is used.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from .errors import MoveConfigError

__all__ = [
    "GaitParameter",
    "GAIT_PARAMETERS",
    "GaitConfig",
    "MoveConfig",
    "DEFAULT_GAIT_CONFIG",
    "DEFAULT_MOVE_CONFIG",
    "FREQUENCY_KEY",
    "parse_move_config",
    "get_move_config",
]


@dataclass(frozen=True)
class GaitParameter:
    """One row of NAOqi's gait-parameter table."""

    name: str  # NAOqi key, e.g. "MaxStepX"
    field: str  # GaitConfig attribute, unit-suffixed
    default: float
    minimum: float
    maximum: float
    settable: bool
    unit: str
    description: str


# The table prints 0.122 rad, which is 7 degrees rounded; the seed's own
# example passes -7 degrees (-0.12217 rad), so the bound is 7 degrees exactly.
_TORSO_W_MAX = math.radians(7.0)


def _fixed(name: str, fld: str, value: float, unit: str, description: str) -> GaitParameter:
    return GaitParameter(name, fld, value, value, value, False, unit, description)


GAIT_PARAMETERS: dict[str, GaitParameter] = {
    p.name: p
    for p in (
        GaitParameter("MaxStepX", "max_step_x_m", 0.040, 0.001, 0.080, True, "m",
                      "maximum forward translation along X"),
        _fixed("MinStepX", "min_step_x_m", -0.040, "m", "maximum backward translation along X"),
        GaitParameter("MaxStepY", "max_step_y_m", 0.140, 0.101, 0.160, True, "m",
                      "absolute maximum lateral translation along Y"),
        GaitParameter("MaxStepTheta", "max_step_theta_rad", 0.349, 0.001, 0.524, True, "rad",
                      "absolute maximum rotation around Z"),
        GaitParameter("MaxStepFrequency", "max_step_frequency", 1.0, 0.0, 1.0, True, "",
                      "maximum step frequency (normalised)"),
        _fixed("MinStepPeriod", "min_step_period_s", 0.42, "s", "minimum step duration"),
        _fixed("MaxStepPeriod", "max_step_period_s", 0.6, "s", "maximum step duration"),
        GaitParameter("StepHeight", "step_height_m", 0.020, 0.005, 0.040, True, "m",
                      "peak foot elevation along Z"),
        GaitParameter("TorsoWx", "torso_wx_rad", 0.0, -_TORSO_W_MAX, _TORSO_W_MAX, True, "rad",
                      "peak torso rotation around X"),
        GaitParameter("TorsoWy", "torso_wy_rad", 0.0, -_TORSO_W_MAX, _TORSO_W_MAX, True, "rad",
                      "peak torso rotation around Y"),
        _fixed("FootSeparation", "foot_separation_m", 0.1, "m",
               "distance between both feet along Y when standing"),
        _fixed("MinFootSeparation", "min_foot_separation_m", 0.088, "m",
               "minimum distance between both feet along Y"),
    )
}

#: Move-config key for the preferred normalised step frequency (move/moveToward only).
FREQUENCY_KEY = "Frequency"
_FOOT_PREFIXES = ("Left", "Right")


def _is_real(value: Any) -> bool:
    # bool is an int subclass; a True/False gait value is a caller bug, not 1.0/0.0.
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class GaitConfig:
    """Gait parameters for one foot (metres, radians, seconds).

    Construction checks every value against ``GAIT_PARAMETERS``; non-settable
    parameters must keep their default.
    """

    max_step_x_m: float = 0.040
    min_step_x_m: float = -0.040
    max_step_y_m: float = 0.140
    max_step_theta_rad: float = 0.349
    max_step_frequency: float = 1.0
    min_step_period_s: float = 0.42
    max_step_period_s: float = 0.6
    step_height_m: float = 0.020
    torso_wx_rad: float = 0.0
    torso_wy_rad: float = 0.0
    foot_separation_m: float = 0.1
    min_foot_separation_m: float = 0.088

    def __post_init__(self) -> None:
        problems = []
        for p in GAIT_PARAMETERS.values():
            v = getattr(self, p.field)
            if not _is_real(v) or not math.isfinite(v):
                problems.append(f"{p.name}={v!r} is not a finite number")
            elif not p.minimum <= v <= p.maximum:
                problems.append(_range_reason(p, v))
        if problems:
            raise MoveConfigError("invalid gait config: " + "; ".join(problems))

    def value(self, name: str) -> float:
        """Value of a parameter by its NAOqi name (e.g. ``"MaxStepX"``)."""
        try:
            return getattr(self, GAIT_PARAMETERS[name].field)
        except KeyError:
            raise MoveConfigError(f"unknown gait parameter {name!r}") from None

    def step_period_s(self, frequency: float) -> float:
        """Step duration (s) for a normalised Frequency in [0, 1].

        NAOqi interpolates the *period* linearly (seed: f_si = 1 / (MaxStepPeriod +
        f * MaxStepFrequency * (MinStepPeriod - MaxStepPeriod))): Frequency 0 gives
        MaxStepPeriod (0.6 s), Frequency 1 with MaxStepFrequency 1 gives
        MinStepPeriod (0.42 s). A step is one double-support plus one
        single-support phase.
        """
        f = min(1.0, max(0.0, frequency))
        return self.max_step_period_s + f * self.max_step_frequency * (
            self.min_step_period_s - self.max_step_period_s
        )

    def to_move_config(self) -> list[list[Any]]:
        """Settable parameters as a NAOqi key-value list."""
        return [[p.name, getattr(self, p.field)] for p in GAIT_PARAMETERS.values() if p.settable]


DEFAULT_GAIT_CONFIG = GaitConfig()


@dataclass(frozen=True)
class MoveConfig:
    """A move config: one ``GaitConfig`` per foot plus the preferred Frequency in [0, 1]."""

    left: GaitConfig = field(default_factory=GaitConfig)
    right: GaitConfig = field(default_factory=GaitConfig)
    frequency: float = 1.0

    def __post_init__(self) -> None:
        if not _is_real(self.frequency) or not 0.0 <= self.frequency <= 1.0:
            raise MoveConfigError(f"Frequency={self.frequency!r} is outside [0, 1]")

    def for_leg(self, is_left: bool) -> GaitConfig:
        return self.left if is_left else self.right

    @classmethod
    def common(cls, gait: GaitConfig, frequency: float = 1.0) -> "MoveConfig":
        return cls(gait, gait, frequency)


DEFAULT_MOVE_CONFIG = MoveConfig()


def _range_reason(p: GaitParameter, value: float) -> str:
    if not p.settable:
        return f"{p.name} is not user-settable (fixed at {p.default} {p.unit})".rstrip()
    return f"{p.name}={value!r} is outside [{p.minimum}, {p.maximum}] {p.unit}".rstrip()


def _settable_names() -> str:
    return ", ".join(p.name for p in GAIT_PARAMETERS.values() if p.settable)


def _iter_entries(entries: Any) -> list[tuple[int, Any, Any]]:
    if isinstance(entries, Mapping):
        return [(i, k, v) for i, (k, v) in enumerate(entries.items())]
    if isinstance(entries, (str, bytes)) or not isinstance(entries, Sequence):
        raise MoveConfigError(
            "a move config is a list of [key, value] pairs, e.g. [['MaxStepX', 0.06]]"
        )
    out = []
    for i, entry in enumerate(entries):
        if (
            isinstance(entry, (str, bytes))
            or not isinstance(entry, Sequence)
            or len(entry) != 2
        ):
            raise MoveConfigError(f"entry {i} ({entry!r}) is not a [key, value] pair")
        out.append((i, entry[0], entry[1]))
    return out


def parse_move_config(
    entries: Any = None,
    *,
    allow_per_foot: bool = True,
    allow_frequency: bool = True,
) -> MoveConfig:
    """Parse a NAOqi move-config list (``[["MaxStepX", 0.06], ...]``) into a MoveConfig.

    Keys: any user-settable gait parameter (applied to both feet), the same key
    prefixed with ``Left``/``Right`` (one foot; overrides the common key for that
    foot whatever the order), and ``Frequency`` in [0, 1]. Unset values take
    their defaults (NAOqi: each call's config replaces the previous one).

    ``allow_per_foot`` / ``allow_frequency`` are False for moveTo, which NAOqi
    documents as taking one config for both feet and no Frequency.

    Raises ``MoveConfigError`` listing every unknown, non-settable, duplicated,
    malformed or out-of-range entry; nothing is applied in that case.
    """
    if entries is None:
        return DEFAULT_MOVE_CONFIG
    parsed = _iter_entries(entries)
    problems: list[str] = []
    seen: set[str] = set()
    common: dict[str, float] = {}
    per_foot: dict[str, dict[str, float]] = {"Left": {}, "Right": {}}
    frequency = DEFAULT_MOVE_CONFIG.frequency
    for i, key, value in parsed:
        if not isinstance(key, str):
            problems.append(f"entry {i}: key {key!r} is not a string")
            continue
        if key in seen:
            problems.append(f"{key} is given more than once")
            continue
        seen.add(key)
        if not _is_real(value) or not math.isfinite(value):
            problems.append(f"{key}={value!r} is not a finite number")
            continue
        value = float(value)
        if key == FREQUENCY_KEY:
            if not allow_frequency:
                problems.append("Frequency is only accepted by move and moveToward")
            elif not 0.0 <= value <= 1.0:
                problems.append(f"Frequency={value!r} is outside [0, 1]")
            else:
                frequency = value
            continue
        prefix, name = "", key
        for pre in _FOOT_PREFIXES:
            if key.startswith(pre) and key[len(pre):] in GAIT_PARAMETERS:
                prefix, name = pre, key[len(pre):]
                break
        p = GAIT_PARAMETERS.get(name)
        if p is None:
            problems.append(f"unknown key {key!r} (settable keys: {_settable_names()}, Frequency)")
            continue
        if prefix and not allow_per_foot:
            problems.append(
                f"{key}: per-foot keys are only accepted by move and moveToward "
                "(moveTo applies one config to both feet)"
            )
            continue
        if not p.settable or not p.minimum <= value <= p.maximum:
            problems.append(_range_reason(p, value))
            continue
        (per_foot[prefix] if prefix else common)[p.field] = value
    if problems:
        raise MoveConfigError("move config refused: " + "; ".join(problems))
    left = replace(DEFAULT_GAIT_CONFIG, **{**common, **per_foot["Left"]})
    right = replace(DEFAULT_GAIT_CONFIG, **{**common, **per_foot["Right"]})
    return MoveConfig(left, right, frequency)


_MOVE_CONFIG_KINDS = {"Max": "maximum", "Min": "minimum", "Default": "default"}


def get_move_config(kind: str) -> list[list[Any]]:
    """NAOqi ``getMoveConfig("Max" | "Min" | "Default")``: settable parameters, key-value list."""
    attr = _MOVE_CONFIG_KINDS.get(kind)
    if attr is None:
        raise MoveConfigError(f"unknown move config kind {kind!r}; use 'Max', 'Min' or 'Default'")
    return [[p.name, getattr(p, attr)] for p in GAIT_PARAMETERS.values() if p.settable]


assert [f.name for f in fields(GaitConfig)] == [p.field for p in GAIT_PARAMETERS.values()]
