"""Step durations (seconds) from Frequency, setFootSteps times or speeds.

Every step lasts between MinStepPeriod (0.42 s) and MaxStepPeriod (0.6 s):

* Frequency / a setFootStepsWithSpeed speed f in [0, 1] maps to
  ``MaxStepPeriod + f * MaxStepFrequency * (MinStepPeriod - MaxStepPeriod)``
  (``GaitConfig.step_period_s``, NAOqi's linear interpolation of the period);
* setFootSteps times are the cumulative times (s) at which each new step ends,
  counted from the start of the first new step; each difference is a step
  duration, clamped into [MinStepPeriod, MaxStepPeriod] the same way footstep
  poses are clipped (the walk cannot step faster, and a longer wait is not a
  step). Times must be finite, positive and strictly increasing.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InvalidCommandError, finite_number
from .gait_config import GaitConfig

__all__ = ["clamp_step_duration_s", "durations_from_times", "durations_from_speeds"]


def clamp_step_duration_s(duration_s: float, gait: GaitConfig) -> float:
    return min(gait.max_step_period_s, max(gait.min_step_period_s, duration_s))


# A step of a minute is no step NAO takes (about half a second): a bug in the caller's times.
MAX_STEP_DURATION_S = 60.0


def durations_from_times(times_s: Sequence[float], gait: GaitConfig) -> list[float]:
    """Step durations (s) from cumulative end times; raises on bad times."""
    out: list[float] = []
    previous = 0.0
    for i, t in enumerate(times_s):
        v = finite_number(t, f"time {i}")
        if v <= previous:
            if i == 0:
                raise InvalidCommandError(f"time 0 ({v} s) must be positive")
            raise InvalidCommandError(
                f"times must be strictly increasing: time {i} ({v} s) <= "
                f"time {i - 1} ({previous} s)"
            )
        if v - previous > MAX_STEP_DURATION_S:
            raise InvalidCommandError(f"time {i} ({v} s): a step of {v - previous:g} s is beyond "
                                      f"{MAX_STEP_DURATION_S:g} s: refused, not clipped")
        out.append(clamp_step_duration_s(v - previous, gait))
        previous = v
    return out


def durations_from_speeds(speeds: Sequence[float], gait: GaitConfig) -> list[float]:
    """Step durations (s) from normalised speeds in [0, 1]; raises on bad speeds."""
    out: list[float] = []
    for i, f in enumerate(speeds):
        v = finite_number(f, f"speed {i}")
        if not 0.0 <= v <= 1.0:
            raise InvalidCommandError(f"speed {i} ({v}) is outside [0, 1]")
        out.append(gait.step_period_s(v))
    return out
