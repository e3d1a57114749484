r"""The bulk law of many heads, :class:`HeadsBulk` (see :mod:`attnlib.theory.heads`): its formulas.

With B = WᵀW = U diag(b) Uᵀ, the sample covariance of N = d/gamma pooled vectors in R^{dH} has the law of the
population B ⊗ W' seen through dH/N = H gamma; the inverse of its subordination map is
z(y) = y (1 + gamma sum_i psi(y / b_i)), psi(z) = z G(z) - 1 of MP_delta (:func:`attnlib.theory.heads.sample_map`).
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory.heads import critical_point, noise_scales, sample_map
from attnlib.theory.laws import SpectralLaw

__all__ = ["HeadsBulk"]


def _psi_complex(zeta: np.ndarray, delta: float):
    """psi(zeta) = zeta G(zeta) - 1 of MP_delta and its derivative, for Im zeta > 0: the root of
    delta psi^2 + (1 + delta - zeta) psi + 1 = 0 with Im psi < 0."""
    a = zeta - 1.0 - delta
    r = np.sqrt(a * a - 4.0 * delta + 0j)
    p = (a - r) / (2.0 * delta)
    p = np.where(p.imag <= 0, p, (a + r) / (2.0 * delta))
    return p, p / (2.0 * delta * p + 1.0 + delta - zeta)


def moments(B, delta, gamma) -> tuple[float, float]:
    """(m1, m2) of the bulk law (per coordinate): tr B / H and (1 + delta) tr(B^2)/H + gamma (tr B)^2 / H."""
    H = B.shape[0]
    return float(np.trace(B) / H), float((1.0 + delta) * np.trace(B @ B) / H + gamma * np.trace(B) ** 2 / H)


def density(x, B, delta, gamma) -> np.ndarray:
    """Density of the bulk law of S (per coordinate of R^{dH}) at real x > 0, vectorised.

    Newton's method on z(y) = x + i0 for the subordination point y (Im y > 0), continued from x + i x as in
    :class:`attnlib.theory.population.PopulationBulk`; then psi_S = (1/H) sum_i psi(y/b_i) and the density is
    -Im((1 + psi_S)/x) / pi. A point where Newton stalls on the real axis (Im y -> 0) lies outside the support
    (density 0); raises ValueError if a point did not converge otherwise.
    """
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    B = _v.finite_array("B", B)
    b = noise_scales(B)
    b, H = b[b > 0], B.shape[0]
    x = np.atleast_1d(_v.finite_array("x", x)).astype(float)
    if np.any(x <= 0):
        raise ValueError("x must be positive")
    y = x + 1j * x
    for eta in np.geomspace(1.0, 1e-12, 25):
        z = x + 1j * eta * np.maximum(x, 1e-3)
        active = np.ones(x.size, bool)
        for _ in range(60):  # Newton on the points that still move
            ya = y[active]
            zeta = ya[:, None] / b
            p, dp = _psi_complex(zeta, delta)
            step = (ya * (1.0 + gamma * p.sum(axis=1)) - z[active]) / (1.0 + gamma * np.sum(p + zeta * dp, axis=1))
            for _ in range(60):  # stay in the upper half plane
                bad = (ya - step).imag <= 0
                if not bad.any():
                    break
                step = np.where(bad, step / 2, step)
            y[active] = ya - step
            active[active] = np.abs(step) > 1e-14 * np.abs(ya)
            if not active.any():
                break
    p, _ = _psi_complex(y[:, None] / b, delta)
    stuck = np.abs(y * (1.0 + gamma * p.sum(axis=1)) - x) / x > 1e-8
    if np.any(stuck & (y.imag > 1e-8 * np.abs(y))):
        raise ValueError("the subordination equation did not converge")
    out = np.maximum(-np.imag((1.0 + p.sum(axis=1) / H) / (x + 1e-300j)), 0.0) / np.pi
    return np.where(stuck, 0.0, out)  # stuck on the real axis: outside the support


class HeadsBulk(SpectralLaw):
    """The bulk law of S for heads with B = WᵀW (per coordinate of R^{dH}): its upper edge z(y*) (the
    population edge when gamma = 0), density and first two moments, tr B / H and (1 + delta) tr(B^2)/H +
    gamma (tr B)^2 / H. Its lower edge is not computed: ``lower`` is 0, a bound; it has no atom, CDF or
    Stieltjes transform."""

    def __init__(self, delta, gamma, B):
        self.delta, self.gamma = _v.positive("delta", delta), _v.nonnegative("gamma", gamma)
        self.B = _v.finite_array("B", B)
        self.name = f"bulk of {self.B.shape[0]} heads"

    def _support(self):
        edge = sample_map(y=critical_point(B=self.B, delta=self.delta, gamma=self.gamma), B=self.B,
                          delta=self.delta, gamma=self.gamma)
        return 0.0, edge

    def _density(self, x):
        return density(x, self.B, self.delta, self.gamma)

    def _moments(self, k):
        if k > 2:
            raise ValueError(f"k must be 1 or 2 (HeadsBulk knows its first two moments), got {k}")
        return np.array(moments(self.B, self.delta, self.gamma)[:k])

    def _atom(self):
        raise NotImplementedError("HeadsBulk has no atom: the lower part of its support is not computed")

    def _cdf(self, x):
        raise NotImplementedError("HeadsBulk has no CDF: the lower part of its support is not computed")
