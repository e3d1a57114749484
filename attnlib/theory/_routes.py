r"""Independent numerical routes to the spike formulas, used to check the closed forms.

* the Stieltjes transform of :math:`\mathrm{MP}_\delta` (:func:`mp_stieltjes`), and on the whole complex plane,
  with its boundary values on the support, whose imaginary part is the density (:func:`mp_stieltjes_complex`);
* the population outlier as the root of :math:`G(\ell) = 1/\theta` (:func:`population_outlier_numeric`);
* the Baik–Silverstein map :math:`\psi(\ell) = \ell\,(1 + \gamma\int t\,dH(t)/(\ell - t))` with its overlap
  factor :math:`\ell\psi'(\ell)/\psi(\ell)`, by quadrature over :math:`H = \kappa\,\mathrm{MP}_\delta`
  (:func:`baik_silverstein`);
* the sample outlier and its overlap with the spike direction from the deterministic equivalent of the
  resolvent of S, without the product of a population and a sampling stage (:func:`sample_spike_resolvent`),
  and, below the sample threshold, the overlap level of the eigenvectors at the bulk edge
  (:func:`edge_overlap_ratio`).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq

from attnlib.numerics import checks as _v
from attnlib.theory._law import mp_edges

__all__ = ["mp_stieltjes", "population_outlier_numeric", "baik_silverstein", "sample_spike_resolvent",
           "edge_overlap_ratio", "mp_stieltjes_complex"]


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


def population_outlier_numeric(delta, theta) -> tuple[float, float]:
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


def baik_silverstein(delta, gamma, ell, kappa=1.0, *, step: float = 1e-5) -> tuple[float, float]:
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


# --- The sample spike from the resolvent of S, without the two-stage product ---------------------------------------

def _companion(m, delta, gamma):
    r"""``(b, b', z, z')`` at the companion Stieltjes transform ``m`` (unit scale), by quadrature over MP_delta.

    :math:`b(m) = \int dH(t)/(1 + tm)`, :math:`z(m) = -1/m + \gamma\int t\,dH(t)/(1 + tm)` (the inverse of the
    companion transform :math:`\tilde m(z)` of S) and their derivatives in ``m``; H = MP_delta.
    """
    b = _mp_integral(lambda t: 1.0 / (1.0 + t * m), delta, 1.0)
    db = -_mp_integral(lambda t: t / (1.0 + t * m) ** 2, delta, 1.0)
    z = -1.0 / m + gamma * _mp_integral(lambda t: t / (1.0 + t * m), delta, 1.0)
    dz = 1.0 / m**2 - gamma * _mp_integral(lambda t: (t / (1.0 + t * m)) ** 2, delta, 1.0)
    return b, db, z, dz


def _companion_edge(delta, gamma):
    """The companion transform at the upper bulk edge: the root of z'(m) in (-1/t_max, 0)."""
    t_max = (1.0 + np.sqrt(delta)) ** 2
    hi = -1e-3 / t_max  # z'(m) ~ 1/m^2 > 0 here
    for k in range(1, 13):  # z'(m) -> -infinity as m -> -1/t_max: step towards it until z' < 0
        lo = -(1.0 - 10.0**-k) / t_max
        if _companion(lo, delta, gamma)[3] < 0:
            break
    else:  # pragma: no cover - the edge is always reached for gamma > 0
        raise ValueError(f"could not bracket the bulk edge for delta={delta!r}, gamma={gamma!r}")
    return brentq(lambda m: _companion(m, delta, gamma)[3], lo, hi, xtol=1e-15, rtol=1e-14)


def sample_spike_resolvent(delta, gamma, theta, kappa=1.0) -> tuple[float, float]:
    r"""Sample outlier and its squared overlap with :math:`\hat h`, from the resolvent of S as a whole.

    A route that never passes through the population eigenvector: no population outlier, no population
    overlap, no product of two stages. In units of :math:`\kappa` the population covariance is
    :math:`\Sigma = W' + \theta\,\hat h\hat h^\top`, and the resolvent of :math:`S = \Sigma^{1/2}XX^\top
    \Sigma^{1/2}/N` has the deterministic equivalent :math:`\bar Q(z) = -z^{-1}(I + \tilde m(z)\Sigma)^{-1}`,
    where the companion transform :math:`\tilde m` solves :math:`z = -1/\tilde m + \gamma\int t\,dH(t)/(1 +
    t\tilde m)` with :math:`H = \mathrm{MP}_\delta`. By Sherman-Morrison, with :math:`b(m) = \int dH(t)/(1 +
    tm)` (the limit of :math:`\hat h^\top(I + mW')^{-1}\hat h`),

    .. math:: \hat h^\top \bar Q(z)\,\hat h = -\frac{1}{z}\,\frac{b(\tilde m)}{1 + \theta\,\tilde m\, b(\tilde m)} .

    The outlier is the pole, :math:`1 + \theta\,m\,b(m) = 0` on the branch above the bulk edge (where
    :math:`z'(m) > 0`), and the squared overlap is its residue,

    .. math:: |\langle \hat v_S, \hat h\rangle|^2 = \frac{-z'(m)}{\theta^2\, z(m)\, m\, D'(m)}, \qquad
              D(m) = m\,b(m).

    Every integral is computed by quadrature over :math:`\mathrm{MP}_\delta` and the pole by root finding.
    Returns ``(eigenvalue, overlap)``: ``(nan, 0.0)`` when the pole lies at or below the bulk edge (no sample
    outlier). An independent check of :func:`attnlib.theory.spike`.

    Parameters
    ----------
    delta, gamma : float
        Ratios d/V and d/N (> 0).
    theta : float
        Spike strength (>= 0), in units of kappa.
    kappa : float
        The scale ||w||^2 (> 0).
    """
    theta = _v.nonnegative("theta", theta)
    delta, gamma, kappa = (_v.positive("delta", delta), _v.positive("gamma", gamma), _v.positive("kappa", kappa))
    m_edge = _companion_edge(delta, gamma)
    pole = lambda m: 1.0 + theta * m * _companion(m, delta, gamma)[0]  # noqa: E731  increasing in m
    if pole(m_edge) >= 0.0:
        return float("nan"), 0.0
    m = brentq(pole, m_edge, -1e-9, xtol=1e-15, rtol=1e-14)
    b, db, z, dz = _companion(m, delta, gamma)
    overlap = -dz / (theta**2 * z * m * (b + m * db))
    return float(kappa * z), float(overlap)


def edge_overlap_ratio(delta, gamma, theta) -> float:
    r"""Below the sample threshold: how much more of :math:`\hat h` the eigenvectors at the bulk edge carry than a
    random direction does.

    The spectral measure of S at :math:`\hat h`, :math:`\nu = \sum_i \langle \hat v_i, \hat h\rangle^2
    \delta_{\lambda_i}`, and the eigenvalue distribution both vanish like a square root at the upper edge E; the
    ratio of their densities there is

    .. math:: r(\theta) = \frac{1 - \theta\, b(m_e)^2 / b'(m_e)}{\big(1 + \theta\, m_e\, b(m_e)\big)^2},

    with :math:`m_e` the companion transform at the edge (:math:`z'(m_e) = 0`) and ``b`` as in
    :func:`sample_spike_resolvent`: along the cut :math:`\tilde m = m_e + i\eta`, both imaginary parts are
    linear in :math:`\eta`, because :math:`z'(m_e) = 0`. So an eigenvector at the edge has squared overlap
    about :math:`r(\theta)/d` with :math:`\hat h`: ``r = 1`` without a spike (a random direction), and ``r``
    grows without bound as theta approaches the sample threshold, where the outlier is born.

    Parameters
    ----------
    delta, gamma : float
        Ratios d/V and d/N (> 0).
    theta : float
        Spike strength (>= 0), below the sample threshold.
    """
    theta = _v.nonnegative("theta", theta)
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    m_e = _companion_edge(delta, gamma)
    b, db, _, _ = _companion(m_e, delta, gamma)
    denominator = 1.0 + theta * m_e * b
    if denominator <= 0.0:
        raise ValueError(f"theta must lie below the sample threshold, where the edge has no outlier; got {theta:.6g}")
    return float((1.0 - theta * b * b / db) / denominator**2)


def mp_stieltjes_complex(zeta, ratio):
    r"""Stieltjes transform :math:`G(\zeta) = \int d\mathrm{MP}_\text{ratio}(t)/(\zeta - t)` at any point of the plane.

    ``zeta`` complex (broadcast; 0 excluded), or real: a real point :math:`\lambda` gives the boundary value
    :math:`G(\lambda + i0)` from above, which is real outside the support and has
    :math:`-\operatorname{Im} G(\lambda + i0)/\pi` equal to the density
    :class:`~attnlib.theory.laws.MarchenkoPastur` density inside it. With the
    edges :math:`a, b = (1 \mp \sqrt c)^2` (c = ratio), :math:`G = (\zeta + c - 1 - \sqrt{\zeta - a}\,
    \sqrt{\zeta - b})/(2c\zeta)`, the root of :math:`c\zeta G^2 - (\zeta + c - 1)G + 1 = 0` that behaves
    like :math:`1/\zeta` at infinity: the product of the two principal square roots is analytic off the support
    (its cut) and :math:`\approx \zeta` at infinity. The atom at 0 (mass 1 - 1/c when c > 1) is included.
    Above the upper edge it is :func:`mp_stieltjes`. Returns a complex (or a complex array).
    """
    c = _v.positive("ratio", ratio)
    z = np.asarray(zeta, dtype=complex)  # a real point lambda becomes lambda + 0j: the value from above
    if not np.all(np.isfinite(z)) or np.any(z == 0):
        raise ValueError(f"zeta must be finite and non-zero (G has a pole or a branch point at 0), got {zeta!r}")
    lo, hi = mp_edges(c)
    root = np.sqrt(z - lo) * np.sqrt(z - hi)  # ~ zeta at infinity; its cut is the support [lo, hi]
    G = (z + c - 1.0 - root) / (2.0 * c * z)
    return G if G.ndim else complex(G)
