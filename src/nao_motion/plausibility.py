"""What the robot's sensors can physically report: a reading beyond it is refused like NaN.

A finite but absurd value (1e308 in a joint angle) passes a finiteness check and, taken as the
measured pose, makes the balancer command a jump of several radians. The bounds here are far
beyond any reading of a working robot and far below what breaks the algorithms.

The checks of a few values (a rate, a quaternion, a foot's forces) run on Python floats: every
node checks its IMU and FSRs every cycle, and numpy's reductions cost 5-20 us each on arrays
this small, Python's arithmetic under 1 us.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .joint_input import quoted
from .model import NaoModel

# A joint sensor reads a little beyond the range the joint is commanded in (the stops give, the
# encoders are calibrated to a few hundredths); this far beyond it, the reading is not a pose the
# robot can be in.
PLAUSIBLE_MARGIN_RAD = 0.2
# NAO's gyrometers saturate at 500 deg/s (V5) and 1000 deg/s (V6): twice the larger is no reading.
MAX_ANGULAR_VELOCITY_RADPS = math.radians(2000.0)
# A unit quaternion, as every IMU driver sends it, give or take rounding and a careless driver's
# unnormalised one; 1e308 is none of those (and its norm overflows).
QUATERNION_NORM_RANGE = (0.5, 2.0)
# One FSR under the whole robot's weight reads about its weight; landing from a step, a few
# times it. Beyond this many weights (or below -1 N: a force sensor pushes, never pulls) it is
# no reading.
MAX_FSR_WEIGHTS = 5.0
MIN_FSR_FORCE_N = -1.0
GRAVITY_MPS2 = 9.81


def implausible_positions(model: NaoModel, indices: np.ndarray, positions: np.ndarray) -> str | None:
    """Why measured positions (of the model joints `indices`) cannot be the robot's, or None: a
    joint beyond its range by more than PLAUSIBLE_MARGIN_RAD."""
    beyond = ((positions < model.lower[indices] - PLAUSIBLE_MARGIN_RAD)
              | (positions > model.upper[indices] + PLAUSIBLE_MARGIN_RAD))
    if not beyond.any():
        return None
    bad = [f"{model.joint_names[i]} {v:.3g}" for i, v in zip(indices[beyond], positions[beyond])]
    return f"implausible position (beyond the joint's range by more than {PLAUSIBLE_MARGIN_RAD} rad) for {quoted(bad)}"


def as_floats(values: Sequence[float] | np.ndarray) -> list[float]:
    """A few values as Python floats (one conversion for an array)."""
    return values.tolist() if isinstance(values, np.ndarray) else [float(v) for v in values]


def plausible_angular_velocity(radps: Sequence[float] | np.ndarray) -> bool:
    return all(math.isfinite(w) and abs(w) <= MAX_ANGULAR_VELOCITY_RADPS for w in as_floats(radps))


def plausible_quaternion(xyzw: Sequence[float] | np.ndarray) -> bool:
    q = as_floats(xyzw)
    low, high = QUATERNION_NORM_RANGE
    # Bounded before it is squared: the norm of 1e308 overflows.
    if not all(math.isfinite(v) and abs(v) <= high for v in q):
        return False
    return low <= math.sqrt(sum(v * v for v in q)) <= high


def max_fsr_force_n(model: NaoModel) -> float:
    return MAX_FSR_WEIGHTS * model.total_mass_kg * GRAVITY_MPS2


def plausible_fsr(forces_n: Sequence[float] | np.ndarray, max_force_n: float) -> bool:
    """Four forces of one foot, each a reading a force sensor under the robot can give."""
    forces = as_floats(forces_n)
    # (NaN fails both comparisons)
    return len(forces) == 4 and all(MIN_FSR_FORCE_N <= f <= max_force_n for f in forces)
