r"""Pooling a single token: the token counts become the population of a generalised Marchenko-Pastur law.

When the weights keep one position only (:math:`w = w_b e_b`, so :math:`T_\text{eff} = \kappa^2/\sum_t w_t^4 = 1`),
each pooled vector is one row of the table times :math:`w_b`, and the uncentred sample covariance is

.. math:: S = w_b^2 \sum_v \frac{n_v}{N}\, e_v e_v^\top ,

with :math:`n_v` the number of sequences whose token at position b is v. Every token is uniform over the
vocabulary, so the counts are multinomial(N; 1/V, ..., 1/V), independent of the table. With
:math:`D = \mathrm{diag}(n_v V/N)` the noise part is :math:`\kappa\, \tfrac1V Z D Z^\top`, a sample covariance
with a random diagonal "population" D; the empirical law of D tends to :math:`H_\lambda`, the law of
:math:`P/\lambda` with :math:`P \sim \mathrm{Poisson}(\lambda)`, :math:`\lambda = N/V = \delta/\gamma`. By
Silverstein and Bai (1995) the spectrum of :math:`\tfrac1V Z D Z^\top` (d x d, :math:`d/V \to \delta`) tends to
the law whose Stieltjes transform :math:`m(z) = \int dF(x)/(x - z)` solves

.. math:: z = -\frac1m + \int \frac{\tau\, dH_\lambda(\tau)}{1 + \delta\tau m}
   \qquad (\operatorname{Im} z > 0,\ \operatorname{Im} m > 0),

an explicit inverse :math:`z(m)` (Silverstein and Choi 1995). Centring S and the signal :math:`\mu s^\top` are
finite-rank changes and leave this bulk unchanged. The book's law :math:`\kappa(\mathrm{MP}_\delta \boxtimes
\mathrm{MP}_\gamma)` is the same equation with :math:`H = \mathrm{MP}_{\gamma/\delta}`: both populations have
mean 1, variance :math:`\gamma/\delta` and the same third moment, and the fourth moments differ by
:math:`(\gamma/\delta)^2`, which is the :math:`T_\text{eff} = 1` case of :func:`attnlib.theory.tokens.m4_shift`.

* :func:`count_population`: the atoms and masses of :math:`H_\lambda` (Poisson tail cut at ``tail``);
* :class:`OneToken`: the law (an :class:`attnlib.theory.laws.SpectralLaw`): its Stieltjes transform
  :math:`m(z)`, the inverse of the explicit :math:`z(m)`, by Newton's method, continued from far above the real
  axis down to it, vectorised over z; the density; the lower edge, the largest value of :math:`z(m)` over
  :math:`m > 0`; exact moments; the CDF (for ``ks_distance``, ``histogram_l1``).

All of them take the ratios ``delta = d/V`` and ``gamma = d/N`` and the scale ``kappa = w_b^2``, and need
``delta < 1 - exp(-delta/gamma)``: more distinct tokens are drawn than there are dimensions, so S has full rank
and the law no atom at 0.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
from scipy.optimize import brentq
from scipy.stats import poisson

from attnlib.numerics import checks as _v
from attnlib.theory.laws import SpectralLaw

__all__ = ["count_population", "OneToken"]

#: The Poisson tail beyond the last atom kept by :func:`count_population`.
TAIL = 1e-15
#: Mass of the law above ``OneToken.upper`` (the support is unbounded, see there).
UPPER_TAIL = 1e-7


def _full_rank_ratios(delta, gamma, kappa=1.0) -> tuple[float, float, float]:
    """The checked ratios (:func:`attnlib.numerics.checks.ratios`), and S of full rank (the law needs it)."""
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa)
    lam = delta / gamma
    if delta >= 1.0 - np.exp(-lam):
        raise ValueError(
            f"the one-token law needs delta < 1 - exp(-delta/gamma) (more distinct tokens drawn than dimensions, "
            f"S of full rank), got delta = {delta:g}, gamma = {gamma:g}: "
            f"1 - exp(-delta/gamma) = {1 - np.exp(-lam):.4g}")
    return delta, gamma, kappa


def count_population(delta, gamma, tail: float = TAIL) -> tuple[np.ndarray, np.ndarray]:
    r"""Atoms ``tau`` and masses ``p`` of :math:`H_\lambda`, the law of Poisson(lambda)/lambda, lambda = delta/gamma.

    Atoms k/lambda for k = 0..K, K the smallest count with P(Poisson > K) < ``tail``; the masses are the Poisson
    probabilities, renormalised to sum 1 (a relative change below ``tail``).
    """
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    tail = _v.positive("tail", tail)
    if tail >= 0.5:
        raise ValueError(f"tail must be < 0.5, got {tail:g}")
    lam = delta / gamma
    k = np.arange(int(poisson.isf(tail, lam)) + 2)
    p = poisson.pmf(k, lam)
    return k / lam, p / p.sum()


def _z(m, delta, tau, p):
    """z(m) and z'(m) for arrays m (population atoms tau with masses p)."""
    m = np.asarray(m)[..., None]
    den = 1.0 + delta * tau * m
    z = -1.0 / m[..., 0] + np.sum(p * tau / den, axis=-1)
    dz = 1.0 / m[..., 0] ** 2 - np.sum(p * delta * tau**2 / den**2, axis=-1)
    return z, dz


def _solve(z, delta, tau, p, *, steps: int = 12, newton: int = 15):
    """m(z) for complex z (Im z > 0), scale 1: Newton's method continued along z_j = Re z + i eta_j.

    eta_j falls geometrically from max(4, 2 abs(z)) to Im z in ``steps`` stages; at each stage Newton steps from the
    previous solution until they stop moving it, each step halved while it would leave the upper half plane
    (where the solution is unique).
    """
    z = np.asarray(z, dtype=complex)
    x, eta_end = z.real, z.imag
    eta0 = np.maximum(4.0, 2.0 * np.abs(z))
    m = -1.0 / (x + 1j * eta0)
    for j in range(steps + 1):
        zj = x + 1j * eta0 * (eta_end / eta0) ** (j / steps)
        for _ in range(newton):
            f, df = _z(m, delta, tau, p)
            step = (f - zj) / df
            for _ in range(40):
                bad = (m - step).imag <= 0
                if not bad.any():
                    break
                step = np.where(bad, step / 2, step)
            m = m - step
            if np.all(np.abs(step) <= 1e-13 * np.abs(m)):
                break
    return m


def _transform(z, delta, gamma, kappa=1.0):
    r"""Stieltjes transform :math:`m(z) = \int dF(x)/(x - z)` of the one-token law of scale ``kappa``.

    ``z`` complex with Im z > 0 (any shape). Raises ValueError if a point did not converge (residual of the
    explicit map :math:`z(m) = -1/m + \kappa \int \tau\,dH_\lambda(\tau)/(1 + \delta\kappa\tau m)` above 1e-8
    relative).
    """
    delta, gamma, kappa = _full_rank_ratios(delta, gamma, kappa)
    z = np.asarray(z, dtype=complex)
    if not np.all(np.isfinite(z)) or not np.all(z.imag > 0):
        raise ValueError("z must be finite with Im z > 0")
    tau, p = count_population(delta, gamma)
    m = _solve(z / kappa, delta, tau, p)
    residual = np.abs(_z(m, delta, tau, p)[0] - z / kappa) / np.maximum(1.0, np.abs(z / kappa))
    if np.any(residual > 1e-8):
        raise ValueError(f"Stieltjes transform did not converge (largest residual {residual.max():.2g})")
    out = m / kappa
    return out if out.ndim else complex(out)


def _law_density(x, delta, gamma, kappa=1.0):
    """Density of the one-token law at real ``x`` (vectorised): Im m(x + i eta) / pi with eta = 1e-10 (1 + abs(x))."""
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError("x must contain only finite numbers")
    m = _transform(x + 1e-10j * (kappa + np.abs(x)), delta, gamma, kappa)
    out = np.where(x > 0, np.imag(m) / np.pi, 0.0)
    return out if out.ndim else float(out)


def _lower_edge(delta, gamma, kappa=1.0) -> float:
    """Lower edge of the support: kappa times the maximum of z(m) over m > 0, where z'(m) = 0.

    z'(m) = 1/m^2 - sum_k p_k delta tau_k^2 / (1 + delta tau_k m)^2; m^2 z'(m) decreases from 1 (m -> 0) to
    1 - (1 - p_0)/delta < 0 (m -> infinity, the full-rank condition), so the root is unique.
    """
    delta, gamma, kappa = _full_rank_ratios(delta, gamma, kappa)
    tau, p = count_population(delta, gamma)
    g = lambda m: m * m * _z(m, delta, tau, p)[1]  # noqa: E731
    hi = 1.0
    while g(hi) > 0:
        hi *= 2.0
    m_star = brentq(g, hi / 2 if hi > 1 else 1e-12, hi, xtol=1e-15, rtol=1e-14)
    return float(kappa * _z(m_star, delta, tau, p)[0])


def _exact_moments(k: int, delta, gamma, kappa=1.0) -> np.ndarray:
    r"""Exact moments :math:`m_1, \dots, m_k` of the one-token law of scale ``kappa``.

    With :math:`G(z) = -m(z) = \sum_j m_j z^{-j-1}` the equation reads
    :math:`G = w / (1 - w \sum_{j \ge 0} (\delta G)^j h_{j+1})` in :math:`w = 1/z`, with :math:`h_j` the moments
    of :math:`H_\lambda`; iterating it on power series in w fixes one more coefficient per pass.
    """
    k = _v.positive_int("k", k)
    delta, gamma, kappa = _full_rank_ratios(delta, gamma, kappa)
    tau, p = count_population(delta, gamma)
    h = np.array([np.sum(p * tau ** (j + 1)) for j in range(k + 1)])  # h_1 .. h_{k+1}
    size = k + 2
    G = np.zeros(size)
    for _ in range(k + 1):
        inner, power = np.zeros(size), np.zeros(size)
        power[0] = 1.0
        for j in range(k + 1):  # sum_j delta^j h_{j+1} G^j, truncated
            inner += delta**j * h[j] * power
            power = np.convolve(power, G)[:size]
        denom = -np.concatenate(([0.0], inner[:-1]))  # 1 - w * inner
        denom[0] += 1.0
        inv = np.zeros(size)  # 1 / denom as a power series
        inv[0] = 1.0
        for n in range(1, size):
            inv[n] = -np.dot(denom[1:n + 1], inv[n - 1::-1][:n])
        G = np.concatenate(([0.0], inv[:-1]))  # w * inv
    return G[2:k + 2] * kappa ** np.arange(1, k + 1)


class OneToken(SpectralLaw):
    """The one-token law of scale ``kappa`` (lower edge, density, CDF, Stieltjes transform, exact moments; no atom).

    The CDF integrates the density on ``points`` abscissae from the lower edge to kappa tau_K (1 + sqrt(delta))^2
    (an upper bound of the support of the population cut at its last atom tau_K), packed near the lower edge,
    by the trapezoid rule; ``upper`` is where the CDF reaches 1 - ``UPPER_TAIL``. H_lambda has unbounded
    support, so the law has tiny clusters arbitrarily far out; the mass above ``upper`` is below
    ``UPPER_TAIL``. Raises ValueError if the computed density does not integrate to 1 within 1e-3.
    """

    _MASS_TOLERANCE = 1e-3

    def __init__(self, delta, gamma, kappa=1.0, *, points: int = 4001):
        self.delta, self.gamma, self.kappa = _full_rank_ratios(delta, gamma, kappa)
        self.points = _v.positive_int("points", points, minimum=101)
        self.name = f"one token, kappa MP_{self.delta:g} with Poisson({self.delta / self.gamma:g}) counts"

    @cached_property
    def _lower(self) -> float:
        return _lower_edge(self.delta, self.gamma, self.kappa)

    def _support(self):
        return self._lower, float(self._table[0][-1])

    def _lower_end(self):  # without the CDF table that the upper end needs
        return self._lower

    def _density(self, x):
        return _law_density(x, self.delta, self.gamma, self.kappa)

    def _stieltjes(self, z):
        return _transform(z, self.delta, self.gamma, self.kappa)

    def _moments(self, k):
        return _exact_moments(k, self.delta, self.gamma, self.kappa)

    def _nodes(self):
        lo = self._lower
        tau, _ = count_population(self.delta, self.gamma)
        far = self.kappa * tau[-1] * (1 + np.sqrt(self.delta)) ** 2
        s = np.linspace(0.0, 1.0, self.points)
        x = lo + (far - lo) * s**3  # dense near the lower edge and the main part of the bulk
        return x, self._density(x), np.diff(x)

    @cached_property
    def _table(self):
        x, F = SpectralLaw._table.func(self)
        upper = float(np.interp(1.0 - UPPER_TAIL, F, x))
        keep = x <= upper
        return np.append(x[keep], upper), np.append(F[keep], 1.0 - UPPER_TAIL)
