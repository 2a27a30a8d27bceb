"""moveToward's normalised command to SI step lengths and velocity (seed 003).

The seed's Python has variable slips, fixed here:

* ``x``, ``y`` used instead of the arguments ``x_n``, ``y_n``;
* ``theta_si = x * MaxStepTheta`` uses x instead of ``theta_n``;
* bare ``MinFootSeparation`` instead of the move config's ``mc.MinFootSeparation``;
* ``gc_l`` / ``gc_r`` instead of the parameters ``mc_l`` / ``mc_r``.

Everything else follows the seed: lengths relative to the other foot, the
period interpolated linearly between MaxStepPeriod and MinStepPeriod, and the
velocity taken over a full cycle (a left step then a right step).
"""

from __future__ import annotations

from .gait_config import GaitConfig

__all__ = ["normalized_length_to_si_length", "normalized_length_to_si_velocity"]


def normalized_length_to_si_length(
    x_n: float,
    y_n: float,
    theta_n: float,
    f_n: float,
    mc: GaitConfig,
    is_left_support: bool,
) -> tuple[float, float, float, float]:
    """Normalised step (each in [-1, 1], f_n in [0, 1]) to (x_m, y_m, theta_rad, frequency_hz).

    The lengths are the moving foot's pose relative to the support foot; the
    right foot moves when ``is_left_support``.
    """
    max_abs_step_x = mc.max_step_x_m if x_n >= 0 else -mc.min_step_x_m
    x_si = x_n * max_abs_step_x
    lateral = mc.max_step_y_m - mc.foot_separation_m
    if is_left_support:
        y_si = min(y_n * lateral - mc.foot_separation_m, -mc.min_foot_separation_m)
    else:
        y_si = max(y_n * lateral + mc.foot_separation_m, mc.min_foot_separation_m)
    theta_si = theta_n * mc.max_step_theta_rad
    f_si = 1.0 / (
        mc.max_step_period_s
        + f_n * mc.max_step_frequency * (mc.min_step_period_s - mc.max_step_period_s)
    )
    return (x_si, y_si, theta_si, f_si)


def normalized_length_to_si_velocity(
    x_n: float,
    y_n: float,
    theta_n: float,
    f_n: float,
    mc_l: GaitConfig,
    mc_r: GaitConfig,
) -> tuple[float, float, float]:
    """Normalised command to (vx_mps, vy_mps, wz_radps) over a left-then-right cycle."""
    x_l, y_l, theta_l, f_l = normalized_length_to_si_length(x_n, y_n, theta_n, f_n, mc_l, False)
    x_r, y_r, theta_r, f_r = normalized_length_to_si_length(x_n, y_n, theta_n, f_n, mc_r, True)
    period = 1.0 / f_l + 1.0 / f_r
    return ((x_l + x_r) / period, (y_l + y_r) / period, (theta_l + theta_r) / period)
