"""ZMP preview control: gains against Kajita's check values, ZMP tracking on the cart-table
driven by the controller over a planned walk, and the preview term's sign."""

import dataclasses
import functools

import numpy as np
import pytest

from nao_motion.footsteps import FootstepPlanner
from nao_motion.model import NaoModel
from nao_motion.walk import PreviewConfig, PreviewController, WalkPatternGenerator, preview_gains

KAJITA = PreviewConfig(dt_s=0.005, com_height_m=0.814, preview_s=1.6, qe=1.0, qx=0.0, r=1e-6)


def test_gains_match_kajitas_check_values():
    g = preview_gains(KAJITA)
    assert g.ks == pytest.approx(618.70, rel=1e-3)
    assert g.kx == pytest.approx([72719.0, 21550.0, 177.0], rel=1e-3)
    # Kajita's indexing Gp(1..N): Gp(1) = -Ks, then algorithms.md's G_1, G_2, ... (negative).
    assert len(g.preview) == 320
    assert g.preview[0] == pytest.approx(-g.ks)
    assert g.preview[1:4] == pytest.approx([-777.5, -952.3, -1082.3], rel=1e-3)
    assert g.preview[319] == pytest.approx(-5.03, rel=1e-3)  # Gp(320)
    assert np.all(g.preview < 0.0)


def test_gains_are_computed_once_per_config_and_read_only():
    assert preview_gains(KAJITA) is preview_gains(dataclasses.replace(KAJITA))
    with pytest.raises(ValueError):
        preview_gains(KAJITA).preview[0] = 0.0


def test_invalid_config_is_refused():
    with pytest.raises(ValueError, match="dt_s"):
        preview_gains(dataclasses.replace(KAJITA, dt_s=0.0))


def test_controller_settles_on_a_constant_reference():
    ctrl = PreviewController(preview_gains(KAJITA))
    ctrl.reset((0.0, 0.0))
    ref = np.tile([0.05, -0.02], (ctrl.n_preview + 1, 1))
    for _ in range(1000):
        ctrl.step(ref)
    assert ctrl.com_m == pytest.approx([0.05, -0.02], abs=1e-5)
    assert ctrl.zmp_m() == pytest.approx([0.05, -0.02], abs=1e-5)


def _zmp_rms_m(version: str, controller_factory=None) -> tuple[float, int]:
    """RMS of the cart-table's ZMP minus its reference over a walk from standing (+1 s standing).

    The plan is made at t = 0, when the generator starts: the planner starts the first step one
    preview later, so the controller sees it coming a whole preview ahead.
    """
    gen = WalkPatternGenerator.for_model(NaoModel(version))
    if controller_factory is not None:
        gen.controller = controller_factory(gen.gains)
    planner = FootstepPlanner()
    planner.move_to(0.8, 0.1, 0.4)
    n_steps = len(planner.steps())
    t_end = planner.steps()[-1].end_s + 1.0
    dt = gen.config.dt_s
    errors = []
    for k in range(int(t_end / dt)):
        t = k * dt
        planner.advance_to(t)
        out = gen.step(t, planner.steps(), planner.feet)
        errors.append(out.zmp_m - out.zmp_ref_m)
    e = np.array(errors)
    return float(np.sqrt((e**2).sum(axis=1).mean())), n_steps


@functools.lru_cache(maxsize=None)
def zmp_rms_m(version: str) -> tuple[float, int]:
    return _zmp_rms_m(version)


@pytest.mark.parametrize("version", ["V5", "V6"])
def test_zmp_tracks_the_reference_over_a_planned_walk(version):
    rms, n_steps = zmp_rms_m(version)
    assert n_steps >= 20
    assert rms <= 0.01


def test_a_sign_error_in_the_preview_term_is_caught():
    def flipped(gains):
        return PreviewController(dataclasses.replace(gains, preview=-gains.preview))

    rms, _ = _zmp_rms_m("V5", flipped)
    assert rms > 10 * 0.01  # about 0.13 m: the tracking test above would fail
    assert rms > 10 * zmp_rms_m("V5")[0]
