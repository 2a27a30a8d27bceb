"""Offscreen rendering of the simulator: a PNG still and a GIF (OSMesa on headless machines)."""

import numpy as np
import pytest

from nao_motion.sim.simulator import NaoSimulator

render = pytest.importorskip("nao_motion.sim.render")
Image = pytest.importorskip("PIL.Image")


@pytest.fixture(scope="module")
def sim():
    return NaoSimulator()


@pytest.fixture(scope="module")
def renderer(sim):
    try:
        r = render.SimRenderer(sim, width=160, height=120)
    except Exception as err:  # no OpenGL backend on this machine (e.g. libosmesa6 missing)
        pytest.skip(f"offscreen rendering unavailable: {err}")
    yield r
    r.close()


def test_still_shows_the_robot(renderer, tmp_path):
    image = renderer.frame()
    assert image.shape == (120, 160, 3) and image.dtype == np.uint8
    # The robot (light grey shell, blue soles) is in view: the centre differs from the floor edges.
    assert image.std() > 10
    centre = image[30:90, 60:100].astype(float)
    assert np.abs(centre.mean(axis=(0, 1)) - image[:10].mean(axis=(0, 1))).max() > 5 or centre.std() > 20
    path = render.save_png(image, tmp_path / "still.png")
    with Image.open(path) as png:
        assert png.size == (160, 120)


def test_gif_of_a_push(sim, renderer, tmp_path):
    sim.reset()

    def push(s):
        if s.cycle == 5:
            s.push((15.0, 0.0, 0.0), 0.1)

    n = render.record(sim, tmp_path / "push.gif", 0.4, fps=20, on_cycle=push, width=96, height=72)
    assert n == 9  # 0.0, 0.05, ..., 0.35 s and the last state
    with Image.open(tmp_path / "push.gif") as gif:
        assert gif.n_frames == n and gif.size == (96, 72)
    assert not sim.fallen
