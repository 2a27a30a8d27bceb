"""Errors raised by the footstep-planning core.

All are ``ValueError`` subclasses so callers that only know "bad input" can catch
one type, while the ROS adapter can map the message straight into a service
response. The message always states the reason; the planner guarantees that a
refused command leaves the current plan untouched.
"""

from __future__ import annotations

import math
import numbers

__all__ = ["FootstepError", "InvalidCommandError", "MoveConfigError", "finite_number", "plausible_number"]


class FootstepError(ValueError):
    """Base class of every refusal by the footstep core."""


class InvalidCommandError(FootstepError):
    """A locomotion command (moveTo, move, setFootSteps, ...) was refused."""


class MoveConfigError(FootstepError):
    """A move-config entry was unknown, not user-settable, malformed or out of range."""


def finite_number(value: object, what: str) -> float:
    """`value` as a float; InvalidCommandError naming `what` unless it is a finite real (not bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidCommandError(f"{what} {value!r} is not a number")
    v = float(value)
    if not math.isfinite(v):
        raise InvalidCommandError(f"{what} {value!r} is not finite")
    return v


def plausible_number(value: object, what: str, limit: float) -> float:
    """finite_number, and within +-`limit`: a value far beyond anything a NAO can do (1e308 m/s)
    is a bug in the caller, refused rather than clipped to the gait's limits and walked."""
    v = finite_number(value, what)
    if abs(v) > limit:
        raise InvalidCommandError(f"{what} {v!r} is beyond +-{limit:g}: refused, not clipped")
    return v
