"""One declaration per parameter: its default, the values it takes, its description, and whether it
is read at start-up only.

A node's parameters are a dict of :class:`ParameterSpec`; from each come the ROS declaration (the
default, a read-only descriptor for a start-up parameter, the description with the range and the
default appended: what ``ros2 param describe`` shows and the README says) and the check of one
value (:meth:`ParameterSpec.refusal`), so that a range is written once. What involves several
parameters (``influence_distance_m`` > ``margin_m``) stays the node's own check, run after every
single value passed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import ParameterDescriptor

from ..model import SUPPORTED_VERSIONS


@dataclass(frozen=True)
class ParameterSpec:
    """default: its type is the parameter's (bool, int, float, str, or a list of str);
    minimum/maximum: the closed range of a number (``exclusive_minimum``/``exclusive_maximum``
    open it at that end); a float must be finite unless ``nan_means`` says what NaN stands for;
    choices: the strings allowed (each element of a list); startup: read once at start-up,
    read-only at run time."""

    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] = ()
    nan_means: str = ""
    startup: bool = False
    choice_name: str = ""  # what a choice is, for the refusal of an unknown one ("collision protection chain")

    def refusal(self, name: str, value: Any) -> str | None:
        """Why `value` is refused for the parameter `name`, or None."""
        kind = type(self.default)
        if kind is list:
            if not (isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)):
                return f"{name} must be a list of strings, got {value!r}"
            items = list(value)
        elif kind is float:
            if not isinstance(value, float):
                return f"{name} must be a double, got {value!r}"
            if math.isnan(value) and self.nan_means:
                return None
            if not math.isfinite(value):
                return f"{name} must be finite, got {value!r}"
            items = []
        elif kind is int:
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{name} must be an integer, got {value!r}"
            items = []
        elif not isinstance(value, kind):
            return f"{name} must be a {kind.__name__}, got {value!r}"
        else:
            items = [value] if kind is str else []
        unknown = [item for item in items if item not in self.choices] if self.choices else []
        if unknown and self.choice_name:
            return f"unknown {self.choice_name} {unknown[0]!r}: expected one of {list(self.choices)}"
        if unknown:
            return f"{name} must be {self.range_text()}, got {value!r}"
        if kind in (int, float):
            low_ok = self.minimum is None or (value > self.minimum if self.exclusive_minimum else value >= self.minimum)
            high_ok = self.maximum is None or (value < self.maximum if self.exclusive_maximum else value <= self.maximum)
            if not (low_ok and high_ok):
                return f"{name} must be {self.range_text()}, got {value!r}"
        return None

    def range_text(self) -> str:
        """The values taken, as the refusals and the descriptions say it ("in (0, 10]")."""
        if self.choices:
            what = "each one of " if type(self.default) is list else "one of "
            return what + ", ".join(self.choices)
        if self.minimum is not None and self.maximum is not None:
            return (f"in {'(' if self.exclusive_minimum else '['}{self.minimum:g}, "
                    f"{self.maximum:g}{')' if self.exclusive_maximum else ']'}")
        if self.minimum is not None:
            return f"{'>' if self.exclusive_minimum else '>='} {self.minimum:g}"
        if self.maximum is not None:
            return f"{'<' if self.exclusive_maximum else '<='} {self.maximum:g}"
        return "any " + ("finite double" if type(self.default) is float else type(self.default).__name__)

    def summary(self) -> str:
        """The description, range, default and kind: the descriptor's text and the README's."""
        text = f"{self.description}; {self.range_text()}"
        if self.nan_means:
            text += f" or NaN ({self.nan_means})"
        text += f"; default {self.default!r}"
        return text + ("; start-up (read-only)" if self.startup else "")

    def descriptor(self) -> ParameterDescriptor:
        return ParameterDescriptor(description=self.summary(), read_only=self.startup)


# Every node's robot model, read at start-up.
NAO_VERSION = ParameterSpec("V5", "NAO version (cycle time, dimensions)", choices=SUPPORTED_VERSIONS,
                            startup=True)


def refusal_of(specs: dict[str, ParameterSpec], values: dict) -> str | None:
    """The first single value of `values` its spec refuses, or None."""
    for name, value in values.items():
        reason = specs[name].refusal(name, value)
        if reason:
            return reason
    return None


def declare_startup(node, specs: dict[str, ParameterSpec]) -> dict:
    """Declare start-up parameters (read-only) and return their values; ValueError with the
    reason when one is refused (the node does not start)."""
    for name, spec in specs.items():
        node.declare_parameter(name, spec.default, spec.descriptor())
    values = {name: node.get_parameter(name).value for name in specs}
    reason = refusal_of(specs, values)
    if reason:
        raise ValueError(f"invalid start-up parameters: {reason}")
    return values
