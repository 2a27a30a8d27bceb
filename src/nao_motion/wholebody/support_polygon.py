"""The support polygon: convex hull of the supporting soles' outlines on the floor, and the
balance constraint's rows.

Soles are the real outlines of ``body_shapes.sole_boxes`` (not NAOqi's smaller footstep boxes):
4 corners per foot in the sole frame. The polygon is their convex hull in the floor plane
(x, y of the balancer's world frame, z up), counter-clockwise. The constraint is placo's
linearisation of "centre of mass inside the polygon, `margin_m` from every edge": with n_i the
inward unit normal of edge i through corner a_i,

    n_i . (c + c_dot dt - a_i) >= margin_m    i.e.    n_i . c_dot >= -(n_i . (c - a_i) - margin_m) / dt

Hulls of two 4-corner soles have at most 8 edges: the QP keeps MAX_EDGES rows and relaxes the
unused ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..body_shapes import sole_boxes
from ..model import NaoModel

MAX_EDGES = 8


def sole_corners_in_sole(model: NaoModel) -> dict[str, np.ndarray]:
    """{"left"|"right": (4, 3) corners of the sole outline in its sole frame, z = 0}, metres."""
    out = {}
    for box in sole_boxes(model):
        (x0, x1), (y0, y1) = box.x_range_m, box.y_range_m
        foot = "left" if box.sole_frame == "l_sole" else "right"
        out[foot] = np.array([[x1, y1, 0.0], [x0, y1, 0.0], [x0, y0, 0.0], [x1, y0, 0.0]])
    return out


def convex_hull_ccw(points_xy: np.ndarray) -> np.ndarray:
    """Convex hull (Andrew's monotone chain) of (n, 2) points, counter-clockwise, no repeats."""
    pts = sorted(set(map(tuple, np.round(np.asarray(points_xy, dtype=float), 12).tolist())))
    if len(pts) <= 2:
        return np.array(pts)

    def half(seq):
        chain: list = []
        for p in seq:
            while len(chain) >= 2:
                (ox, oy), (ax, ay) = chain[-2], chain[-1]
                if (ax - ox) * (p[1] - oy) - (ay - oy) * (p[0] - ox) > 1e-15:
                    break
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(pts), half(reversed(pts))
    return np.array(lower[:-1] + upper[:-1])


@dataclass
class SupportPolygon:
    """A convex polygon in the floor plane: ccw vertices, inward edge normals, edge offsets."""

    vertices_xy: np.ndarray  # (k, 2) counter-clockwise
    normals_xy: np.ndarray  # (k, 2) inward unit normal of edge i (vertex i -> i + 1)
    offsets_m: np.ndarray = field(init=False)  # (k,) n_i . a_i: edge i is n_i . p = offsets_m[i]

    def __post_init__(self):
        self.offsets_m = np.einsum("ij,ij->i", self.normals_xy, self.vertices_xy)

    @classmethod
    def from_points(cls, points_xy: np.ndarray) -> "SupportPolygon":
        v = convex_hull_ccw(points_xy)
        edges = np.roll(v, -1, axis=0) - v
        normals = np.column_stack([-edges[:, 1], edges[:, 0]])  # left of a ccw edge is inside
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        return cls(v, normals)

    @property
    def n_edges(self) -> int:
        return len(self.vertices_xy)

    def edge_distances(self, point_xy: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Signed distance of a point to each edge's line, positive inside (into `out`, (k,))."""
        out = np.matmul(self.normals_xy, np.asarray(point_xy)[:2], out=out)
        out -= self.offsets_m
        return out

    def margin(self, point_xy: np.ndarray) -> float:
        """Distance from the point to the nearest edge line (>= 0 inside, < 0 outside)."""
        return float(self.edge_distances(point_xy).min())

    def shrunk(self, margin_m: float) -> np.ndarray:
        """Vertices of the polygon moved `margin_m` inward (edges offset, adjacent ones intersected).

        For drawing the margin; empty when the margin swallows the polygon.
        """
        n, v = self.normals_xy, self.vertices_xy
        prev_n = np.roll(n, 1, axis=0)
        # Vertex i lies on edges i - 1 and i; the offset lines meet at v_i + t, with
        # n_{i-1} . t = margin and n_i . t = margin.
        det = prev_n[:, 0] * n[:, 1] - prev_n[:, 1] * n[:, 0]
        t = margin_m * np.column_stack([n[:, 1] - prev_n[:, 1], prev_n[:, 0] - n[:, 0]]) / det[:, None]
        inner = v + t
        if SupportPolygon.from_points(inner).n_edges < 3 or self.margin(inner.mean(axis=0)) < margin_m:
            return np.zeros((0, 2))
        return inner

    def centroid(self) -> np.ndarray:
        """Area centroid (x, y)."""
        v, w = self.vertices_xy, np.roll(self.vertices_xy, -1, axis=0)
        cross = v[:, 0] * w[:, 1] - w[:, 0] * v[:, 1]
        area = cross.sum() / 2.0
        return ((v + w) * cross[:, None]).sum(axis=0) / (6.0 * area)


def support_polygon(sole_poses_world: dict[str, np.ndarray], feet: tuple[str, ...],
                    corners_in_sole: dict[str, np.ndarray]) -> SupportPolygon:
    """Polygon of the given feet's soles (world poses 4x4), projected on the floor (x, y)."""
    pts = np.concatenate([
        corners_in_sole[f] @ sole_poses_world[f][:3, :3].T + sole_poses_world[f][:3, 3] for f in feet])
    return SupportPolygon.from_points(pts[:, :2])
