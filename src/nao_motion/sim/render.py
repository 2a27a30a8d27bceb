"""Offscreen rendering of the simulated NAO: PNG stills and GIF animations.

Needs only PyPI packages (mujoco, pillow, which matplotlib already brings) and, on a headless
machine, OSMesa (``apt-get install libosmesa6``). MuJoCo picks its OpenGL backend when it is
first imported: with no ``DISPLAY`` and no ``MUJOCO_GL`` set, this module selects OSMesa, and
switches an already-imported mujoco to it too. Set ``MUJOCO_GL=egl`` (GPU) or ``glfw`` (a
display) to choose otherwise.

Command line: ``python -m nao_motion.sim.render --out DIR`` writes a still of StandInit and a
short GIF of a push.
"""

from __future__ import annotations

import os

if not os.environ.get("MUJOCO_GL") and not os.environ.get("DISPLAY"):
    os.environ["MUJOCO_GL"] = "osmesa"

import argparse  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from .simulator import NaoSimulator  # noqa: E402


def _use_selected_backend() -> None:
    """Make an already-imported mujoco use the backend MUJOCO_GL names now (OSMesa headless)."""
    if os.environ.get("MUJOCO_GL", "").lower() != "osmesa":
        return
    from mujoco.rendering.classic import gl_context

    if getattr(gl_context, "_MUJOCO_GL", "") != "osmesa":
        from mujoco.osmesa import GLContext

        gl_context.GLContext = GLContext


class SimRenderer:
    """Renders a :class:`NaoSimulator` from a camera that follows the torso (use as a context)."""

    def __init__(
        self,
        sim: NaoSimulator,
        width: int = 480,
        height: int = 360,
        distance_m: float = 1.1,
        azimuth_deg: float = 140.0,
        elevation_deg: float = -12.0,
        track: bool = True,
    ):
        _use_selected_backend()
        self.sim = sim
        self.renderer = mujoco.Renderer(sim.mj_model, height, width)
        self.camera = mujoco.MjvCamera()
        self.camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        self.camera.distance = distance_m
        self.camera.azimuth = azimuth_deg
        self.camera.elevation = elevation_deg
        self.track = track
        self._lookat_height = 0.5 * sim.standing_height_m
        self.camera.lookat[:] = (0.0, 0.0, self._lookat_height)

    def frame(self, spheres: list[tuple[np.ndarray, float]] = ()) -> np.ndarray:
        """The current view as an (height, width, 3) uint8 RGB image, with `spheres` (centre in the
        world, radius; drawn, not simulated: the declared obstacles) in translucent red."""
        if self.track:
            torso = self.sim.mj_data.qpos[:3]
            self.camera.lookat[:] = (torso[0], torso[1], self._lookat_height)
        self.renderer.update_scene(self.sim.mj_data, camera=self.camera)
        scene = self.renderer.scene
        for centre, radius in spheres:
            if scene.ngeom >= scene.maxgeom:
                break
            mujoco.mjv_initGeom(scene.geoms[scene.ngeom], mujoco.mjtGeom.mjGEOM_SPHERE, np.array([radius, 0.0, 0.0]),
                                np.asarray(centre, dtype=float), np.eye(3).reshape(-1),
                                np.array([0.9, 0.1, 0.1, 0.6], dtype=np.float32))
            scene.ngeom += 1
        return self.renderer.render().copy()

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()
            self.renderer = None

    def __enter__(self) -> "SimRenderer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def save_png(image: np.ndarray, path: str | Path) -> Path:
    from PIL import Image

    path = Path(path)
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(path)
    return path


def save_gif(frames: list[np.ndarray], path: str | Path, fps: float = 25.0) -> Path:
    """An endlessly looping GIF of RGB frames (Pillow)."""
    from PIL import Image

    if not frames:
        raise ValueError("no frames to save")
    path = Path(path)
    # Per-frame adaptive palette without dithering: no speckle on the floor's flat colours.
    images = [Image.fromarray(np.asarray(f, dtype=np.uint8)).quantize(256, dither=Image.Dither.NONE) for f in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(round(1000.0 / fps)), loop=0)
    return path


def render_still(sim: NaoSimulator, path: str | Path, **camera) -> Path:
    """A PNG of the simulator's current state."""
    with SimRenderer(sim, **camera) as r:
        return save_png(r.frame(), path)


def record(
    sim: NaoSimulator,
    path: str | Path,
    duration_s: float,
    fps: float = 25.0,
    on_cycle: Callable[[NaoSimulator], None] | None = None,
    **camera,
) -> int:
    """Step the simulator for duration_s, calling on_cycle(sim) before each cycle; save a GIF.

    Returns the number of frames written (one every 1/fps s of simulated time).
    """
    frames = []
    next_frame_s = sim.time_s
    end_s = sim.time_s + duration_s
    with SimRenderer(sim, **camera) as r:
        while sim.time_s < end_s - 1e-9:
            if sim.time_s >= next_frame_s - 1e-9:
                frames.append(r.frame())
                next_frame_s += 1.0 / fps
            if on_cycle is not None:
                on_cycle(sim)
            sim.step()
        frames.append(r.frame())
    save_gif(frames, path, fps)
    return len(frames)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Render the simulated NAO: a still and a push GIF.")
    parser.add_argument("--out", default=".", help="output directory")
    parser.add_argument("--version", default="V5", choices=("V5", "V6"))
    parser.add_argument("--push", type=float, default=15.0, help="forward push (N) for 0.1 s at t = 0.5 s")
    parser.add_argument("--duration", type=float, default=2.5)
    args = parser.parse_args(argv)
    from ..model import NaoModel

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sim = NaoSimulator(NaoModel(args.version))
    sim.run(0.2)
    print(render_still(sim, out / "nao_standinit.png"))

    def push_once(s: NaoSimulator) -> None:
        if s.cycle == int(round(0.5 / s.control_period_s)):
            s.push((args.push, 0.0, 0.0), 0.1)

    n = record(sim, out / "nao_push.gif", args.duration, on_cycle=push_once, width=320, height=240)
    print(out / "nao_push.gif", n, "frames", "fallen" if sim.fallen else "standing")


if __name__ == "__main__":
    main()
