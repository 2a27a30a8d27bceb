"""ZMP preview control of the cart-table model (Kajita et al. 2003, Katayama's integral form).

Per horizontal axis the state is x = (c, c', c'') (CoM position m, velocity m/s, acceleration
m/s^2), the input is the jerk u (m/s^3), the sample is T (s):

    x_{k+1} = A x_k + B u_k,   p_k = C x_k,   C = [1, 0, -z_c/g]   (p: the cart-table's ZMP)

Gains (``algorithms.md``): augmented A~ = [[1, C A], [0, A]], B~ = [C B; B], Q = diag(Qe, Qx I3),
P~ = DARE(A~, B~, Q, R), [Ks, Kx] = (R + B~' P~ B~)^-1 B~' P~ A~, Ac~ = A~ - B~ K~,
X_1 = -Ac~' P~ I~, G_j = (R + B~' P~ B~)^-1 B~' X_j, X_{j+1} = Ac~' X_j.

Preview indexing. The optimal law of the integral form (derived from the augmented system, whose
disturbance is the reference increment p_ref(k+1) - p_ref(k)) is Kajita's

    u_k = -Ks sum_{i<=k} e_i - Kx x_k - sum_{j=1..N} Gp(j) p_ref(k+j),   e_i = p_i - p_ref(i)

with Gp(1) = -Ks and Gp(j) = G_{j-1} of the recursion above: the next reference sample is
weighted by the integral gain, the recursion's G_1 applies to p_ref(k+2). ``PreviewGains.preview``
holds Gp(1..N), N = preview_s / T. Sign convention: every Gp is negative (Kajita's parameters:
Gp(1..4) = -618.7, -777.5, -952.3, -1082.3, Gp(320) = -5.03), so the preview term pulls the
control toward the future reference.

The gains depend only on (T, z_c, g, Qe, Qx, R, N); ``preview_gains`` computes them once per
``PreviewConfig`` (cached). ``PreviewController`` steps both axes together on preallocated
buffers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import scipy.linalg

from ..gravity import GRAVITY_MPS2

__all__ = ["GRAVITY_MPS2", "PreviewConfig", "PreviewGains", "preview_gains", "PreviewController"]


@dataclass(frozen=True)
class PreviewConfig:
    """What the gains depend on (s, m, m/s^2; weights: Qe on the ZMP error, Qx on the state
    increments, R on the jerk increments)."""

    dt_s: float
    com_height_m: float
    preview_s: float = 0.8  # NAOqi's preview
    qe: float = 1.0
    qx: float = 0.0
    r: float = 1e-6
    gravity_mps2: float = GRAVITY_MPS2

    @property
    def n_preview(self) -> int:
        """Number of future reference samples p_ref(k+1..k+N)."""
        return int(round(self.preview_s / self.dt_s))

    def validate(self) -> str | None:
        """The reason this configuration is refused, or None."""
        if not (0.0 < self.dt_s <= 0.05):
            return f"dt_s must be in (0, 0.05] s, got {self.dt_s!r}"
        if not (0.05 <= self.com_height_m <= 2.0):
            return f"com_height_m must be in [0.05, 2] m, got {self.com_height_m!r}"
        if self.n_preview < 2:
            return f"preview_s {self.preview_s!r} s must span at least two samples"
        if not (self.qe > 0.0 and self.qx >= 0.0 and self.r > 0.0 and self.gravity_mps2 > 0.0):
            return "weights must be qe > 0, qx >= 0, r > 0 and gravity > 0"
        return None


@dataclass(frozen=True, eq=False)
class PreviewGains:
    """The cart-table matrices and the controller's gains (read-only arrays)."""

    config: PreviewConfig
    a: np.ndarray  # 3 x 3
    b: np.ndarray  # 3
    c: np.ndarray  # 3
    ks: float  # integral gain on the summed ZMP error (1/(m s^3) per m)
    kx: np.ndarray  # 3, state gain
    preview: np.ndarray  # N, Gp(1..N) on p_ref(k+1..k+N)


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@lru_cache(maxsize=16)
def preview_gains(config: PreviewConfig) -> PreviewGains:
    """Solve the DARE and the preview recursion for ``config`` (cached: once per config)."""
    reason = config.validate()
    if reason:
        raise ValueError(reason)
    t = config.dt_s
    a = np.array([[1.0, t, t * t / 2.0], [0.0, 1.0, t], [0.0, 0.0, 1.0]])
    b = np.array([t**3 / 6.0, t * t / 2.0, t])
    c = np.array([1.0, 0.0, -config.com_height_m / config.gravity_mps2])
    a_aug = np.zeros((4, 4))
    a_aug[0, 0] = 1.0
    a_aug[0, 1:] = c @ a
    a_aug[1:, 1:] = a
    b_aug = np.concatenate([[c @ b], b])[:, None]
    q = np.diag([config.qe, config.qx, config.qx, config.qx])
    p = scipy.linalg.solve_discrete_are(a_aug, b_aug, q, np.array([[config.r]]))
    s = config.r + float(b_aug[:, 0] @ p @ b_aug[:, 0])
    k = (b_aug[:, 0] @ p @ a_aug) / s
    ac_t = (a_aug - b_aug @ k[None, :]).T
    n = config.n_preview
    preview = np.empty(n)
    preview[0] = -k[0]
    x = -ac_t @ p[:, 0]  # X_1 = -Ac~' P~ I~
    for j in range(1, n):
        preview[j] = (b_aug[:, 0] @ x) / s
        x = ac_t @ x
    return PreviewGains(config, _read_only(a), _read_only(b), _read_only(c), float(k[0]),
                        _read_only(k[1:].copy()), _read_only(preview))


class PreviewController:
    """Both horizontal axes of the cart-table under preview control.

    ``state`` is 3 x 2: rows (c, c', c''), columns (x, y) in the plane the references are in (the
    odometry plane). ``step`` takes p_ref(k..k+N) and advances the state by one sample; the
    integral of the ZMP error is kept across steps (and across ``reset_state``).
    """

    def __init__(self, gains: PreviewGains):
        self.gains = gains
        n = gains.config.n_preview
        self.n_preview = n
        self.state = np.zeros((3, 2))
        self.error_sum_m = np.zeros(2)
        self._zmp = np.zeros(2)
        self._u = np.zeros(2)
        self._u_preview = np.zeros(2)
        self._next = np.zeros((3, 2))
        self._input = np.zeros((3, 2))
        # The matrices as row/column vectors so each product is one BLAS call into a buffer.
        self._kx = np.ascontiguousarray(gains.kx)
        self._preview = np.ascontiguousarray(gains.preview)
        self._b_column = gains.b[:, None]

    @property
    def com_m(self) -> np.ndarray:
        return self.state[0]

    @property
    def com_velocity_mps(self) -> np.ndarray:
        return self.state[1]

    def zmp_m(self, out: np.ndarray | None = None) -> np.ndarray:
        """The cart-table's ZMP C x (x, y)."""
        return np.dot(self.gains.c, self.state, out=out)

    def reset(self, com_xy_m, velocity_xy_mps=(0.0, 0.0), acceleration_xy_mps2=(0.0, 0.0)) -> None:
        """Start from a CoM state, in equilibrium for a reference held at its ZMP.

        The truncated preview makes the law not quite translation invariant: Kx[0] + sum(Gp)
        is the missing tail of the gains (NAO, 0.8 s: 0.32 Ks), which the integral has to make
        up wherever the CoM rests. Starting the integral at that value (instead of 0) avoids a
        start-up transient; while walking the integral follows with a ZMP lag of 0.32 T times
        the CoM speed (0.3 mm at 0.1 m/s).
        """
        self.reset_state(com_xy_m, velocity_xy_mps, acceleration_xy_mps2)
        g = self.gains
        zmp = self.zmp_m()
        self.error_sum_m[:] = -(self._kx @ self.state + self._preview.sum() * zmp) / g.ks

    def reset_state(self, com_xy_m, velocity_xy_mps=None, acceleration_xy_mps2=None) -> None:
        """Overwrite the state (e.g. from a measured CoM); None keeps that row."""
        self.state[0] = com_xy_m
        if velocity_xy_mps is not None:
            self.state[1] = velocity_xy_mps
        if acceleration_xy_mps2 is not None:
            self.state[2] = acceleration_xy_mps2

    def step(self, zmp_ref_m: np.ndarray) -> None:
        """One sample: ``zmp_ref_m`` is (N + 1) x 2, p_ref(k), p_ref(k+1), ..., p_ref(k+N)."""
        g = self.gains
        np.dot(g.c, self.state, out=self._zmp)
        self._zmp -= zmp_ref_m[0]
        self.error_sum_m += self._zmp
        np.dot(self._kx, self.state, out=self._u)
        np.dot(self._preview, zmp_ref_m[1:], out=self._u_preview)
        self._u += self._u_preview
        self._u += g.ks * self.error_sum_m
        np.negative(self._u, out=self._u)
        np.dot(g.a, self.state, out=self._next)
        np.multiply(self._b_column, self._u, out=self._input)  # B u', without np.outer's Python wrapper
        np.add(self._next, self._input, out=self.state)
