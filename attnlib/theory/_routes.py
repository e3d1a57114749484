r"""Independent numerical routes to the spike formulas, used to check the closed forms.

* the Stieltjes transform of :math:`\mathrm{MP}_\delta` (:func:`mp_stieltjes`);
* the population outlier as the root of :math:`G(\ell) = 1/\theta` (:func:`population_outlier_numeric`);
* the Baik–Silverstein map :math:`\psi(\ell) = \ell\,(1 + \gamma\int t\,dH(t)/(\ell - t))` with its overlap
  factor :math:`\ell\psi'(\ell)/\psi(\ell)`, by quadrature over :math:`H = \kappa\,\mathrm{MP}_\delta`
  (:func:`baik_silverstein`).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq

from .. import _validate as _v
from ._law import mp_edges

__all__ = ["mp_stieltjes", "population_outlier_numeric", "baik_silverstein"]


def mp_stieltjes(z, ratio, *, derivative: bool = False):
    r"""Stieltjes transform :math:`G(z) = \int d\mathrm{MP}_\text{ratio}(t)/(z - t)` for real z above the support.

    Closed form :math:`G(z) = \big(z + c - 1 - \sqrt{(z - 1 - c)^2 - 4c}\big)/(2cz)` (c = ratio, mean-1 law,
    atom at 0 included when c > 1). With ``derivative=True`` returns :math:`G'(z)` instead (negative).
    """
    c = _v.positive("ratio", ratio)
    z = np.asarray(z, dtype=float)
    upper = (1.0 + np.sqrt(c)) ** 2
    if not np.all(np.isfinite(z)) or np.any(z <= upper):
        raise ValueError(f"z must be finite and above the upper edge (1 + sqrt(ratio))^2 = {upper:.6g}, got {z!r}")
    root = np.sqrt((z - 1.0 - c) ** 2 - 4.0 * c)
    G = (z + c - 1.0 - root) / (2.0 * c * z)
    if not derivative:
        return G if G.ndim else float(G)
    # differentiate 2 c z G = z + c - 1 - root
    droot = (z - 1.0 - c) / root
    dG = ((1.0 - droot) - 2.0 * c * G) / (2.0 * c * z)
    return dG if dG.ndim else float(dG)


def population_outlier_numeric(theta, delta) -> tuple[float, float]:
    r"""Outlier of :math:`W' + \theta\,\hat h\hat h^\top` with :math:`W'\sim\mathrm{MP}_\delta`, by root finding.

    Solves the secular equation :math:`G(\ell) = 1/\theta` with Brent's method and returns
    ``(ell, overlap)`` with overlap :math:`1/(\theta^2\,(-G'(\ell)))`, the squared cosine between the outlier's
    eigenvector and :math:`\hat h`. Raises ValueError below the threshold, where no root exists
    (:math:`1/\theta \ge G(\text{edge})`). An independent check of :func:`attnlib.theory.spike`.
    """
    theta = _v.positive("theta", theta)
    delta = _v.positive("delta", delta)
    edge = (1.0 + np.sqrt(delta)) ** 2
    g_edge = 1.0 / (np.sqrt(delta) * (1.0 + np.sqrt(delta)))  # G at the upper edge
    if 1.0 / theta >= g_edge:
        raise ValueError(
            f"theta must exceed the population threshold delta + sqrt(delta) = {delta + np.sqrt(delta):.6g}, "
            f"got {theta:.6g}: G(l) = 1/theta has no root above the bulk"
        )
    f = lambda ell: mp_stieltjes(ell, delta) - 1.0 / theta  # noqa: E731
    hi = edge + 1.0
    while f(hi) > 0:
        hi = edge + 2.0 * (hi - edge)
    ell = brentq(f, edge * (1.0 + 1e-12) + 1e-12, hi, xtol=1e-14, rtol=1e-13)
    overlap = 1.0 / (theta**2 * -mp_stieltjes(ell, delta, derivative=True))
    return float(ell), float(overlap)


def _mp_integral(fn, delta, kappa):
    """Integral of fn(t) against kappa MP_delta, atom at 0 included (mass max(0, 1 - 1/delta), where fn(0) counts).

    The continuous part has density sqrt((b - t)(t - a)) / (2 pi delta kappa t) on [a, b]; the square-root end
    points are handled exactly by QUADPACK's algebraic weight (t - a)^(1/2) (b - t)^(1/2) (and t^(-1/2) (b - t)^(1/2)
    when delta = 1, where a = 0).
    """
    a, b = mp_edges(delta, kappa)
    c = 2.0 * np.pi * delta * kappa
    if a > 1e-12 * b:
        val, _ = quad(lambda t: fn(t) / (c * t), a, b, weight="alg", wvar=(0.5, 0.5), epsabs=1e-13, epsrel=1e-12,
                      limit=200)
    else:  # delta = 1: the lower edge is 0 and the density behaves like t^(-1/2) there
        val, _ = quad(lambda t: fn(t) / c, 0.0, b, weight="alg", wvar=(-0.5, 0.5), epsabs=1e-13, epsrel=1e-12,
                      limit=200)
    atom = max(0.0, 1.0 - 1.0 / delta)
    return val + atom * fn(0.0)


def baik_silverstein(ell, delta, gamma, kappa=1.0, *, step: float = 1e-5) -> tuple[float, float]:
    r"""Sample outlier and overlap factor of a population spike at ``ell`` on the bulk :math:`H = \kappa\,\mathrm{MP}_\delta`.

    By quadrature over H (independent of the closed forms):
    :math:`\psi(\ell) = \ell\,\big(1 + \gamma\int t\,dH(t)/(\ell - t)\big)` and, by a central difference,
    the factor :math:`\ell\,\psi'(\ell)/\psi(\ell)`, the squared cosine between the sample outlier's
    eigenvector and the population spike's eigenvector. Returns ``(psi, factor)``. The sample outlier exists
    when ``factor > 0`` (psi increasing); ``ell`` must lie above the bulk of H.
    """
    delta, gamma, kappa = (_v.positive("delta", delta), _v.positive("gamma", gamma), _v.positive("kappa", kappa))
    ell = _v.positive("ell", ell)
    edge = mp_edges(delta, kappa)[1]
    if ell <= edge * (1.0 + 10 * step):
        raise ValueError(f"ell must lie above the bulk edge kappa (1 + sqrt(delta))^2 = {edge:.6g}, got {ell:.6g}")

    def psi(e):
        return e * (1.0 + gamma * _mp_integral(lambda t: t / (e - t), delta, kappa))

    h = step * ell
    value = psi(ell)
    slope = (psi(ell + h) - psi(ell - h)) / (2.0 * h)
    return float(value), float(ell * slope / value)
