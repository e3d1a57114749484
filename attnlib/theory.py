r"""Closed-form limits: the bulk law kappa (MP_delta ⊠ MP_gamma) and the spike (BBP) formulas.

Notation (see the book's model chapter): ``delta = d/V``, ``gamma = d/N``, ``kappa = ||w||^2``,
``alpha = w^T R w``. All formulas are for noise of unit variance per coordinate.

Bulk law
    With :math:`\psi(z) = z G(z) - 1` the law :math:`\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma` (scale 1)
    solves :math:`z\psi = (1+\psi)(1+\delta\psi)(1+\gamma\psi)`. Substituting :math:`\varphi = 1/\psi` gives the
    *monic* cubic :math:`\varphi^3 + (\sigma_1 - z)\varphi^2 + \sigma_2\varphi + \sigma_3 = 0` with
    :math:`\sigma_1 = 1+\delta+\gamma`, :math:`\sigma_2 = \delta+\gamma+\delta\gamma`, :math:`\sigma_3 = \delta\gamma`,
    which stays well conditioned as delta or gamma -> 0. Inside the support it has a complex pair
    :math:`a \pm ib` and the density is :math:`b / (\pi z (a^2+b^2))`.

Spikes
    A population spike of strength theta (units of kappa) on kappa MP_delta, with ``x = theta - delta``, has
    population outlier ``kappa (x+1)(x+delta)/x`` when ``x > sqrt(delta)``, and after N samples the sample
    outlier ``kappa (x+1)(x+delta)(x+gamma)/x^2`` when ``x > x*``, the positive root of
    ``x^3 - sigma_2 x - 2 sigma_3``. The same function ``z(x) = (x+1)(x+delta)(x+gamma)/x^2`` is the bulk's
    inverse Stieltjes map at ``psi = 1/x``; its critical points are the bulk edges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _validate as _v

__all__ = [
    "bulk_density",
    "bulk_edges",
    "mp_density",
    "mp_edges",
    "zero_atom",
    "bulk_moments",
    "critical_x",
    "thresholds",
    "Spike",
    "spike",
    "signal",
    "mean_spike",
    "spike_strength",
    "outlier_map",
]


def _sigmas(delta: float, gamma: float) -> tuple[float, float, float]:
    return 1.0 + delta + gamma, delta + gamma + delta * gamma, delta * gamma


def _check_ratios(delta, gamma, kappa=1.0):
    return _v.positive("delta", delta), _v.positive("gamma", gamma), _v.positive("kappa", kappa)


def _complex_pair(B: np.ndarray, C: float, D: float) -> tuple[np.ndarray, np.ndarray]:
    """Real and (non-negative) imaginary part of the complex pair of roots of phi^3 + B phi^2 + C phi + D.

    Vectorised Cardano on the depressed cubic y^3 + p y + q (phi = y - B/3), using the numerically stable
    pairing u v = -p/3. Where all three roots are real the imaginary part is 0 (and the real part is
    meaningless).
    """
    p = C - B * B / 3.0
    q = 2.0 * B**3 / 27.0 - B * C / 3.0 + D
    disc = (q / 2.0) ** 2 + (p / 3.0) ** 3
    has_pair = disc > 0
    sq = np.sqrt(np.where(has_pair, disc, 0.0))
    # u = -sign(q) cbrt(|q|/2 + sqrt(disc)) never suffers cancellation; v = -p / (3u).
    u = -np.copysign(np.cbrt(np.abs(q) / 2.0 + sq), q)
    safe_u = np.where(u == 0, 1.0, u)
    v = np.where(u == 0, 0.0, -p / (3.0 * safe_u))
    real = -(u + v) / 2.0 - B / 3.0
    imag = np.where(has_pair, (np.sqrt(3.0) / 2.0) * np.abs(u - v), 0.0)
    return real, imag


def bulk_density(x, delta, gamma, kappa=1.0):
    r"""Density of the continuous part of :math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)` at ``x``.

    Vectorised closed form (Cardano on the monic cubic in :math:`\varphi = 1/\psi`); no loop over ``x``.
    The result integrates to ``1 - zero_atom(delta, gamma)``.

    Parameters
    ----------
    x : array_like
        Points at which to evaluate (any shape; values <= 0 give 0).
    delta, gamma : float
        Aspect ratios d/V and d/N (> 0).
    kappa : float
        Scale ||w||^2 (> 0).
    """
    delta, gamma, kappa = _check_ratios(delta, gamma, kappa)
    x_arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x_arr)):
        raise ValueError("x must contain only finite numbers")
    t = x_arr / kappa
    s1, s2, s3 = _sigmas(delta, gamma)
    a, b = _complex_pair(s1 - t, s2, s3)
    with np.errstate(divide="ignore", invalid="ignore"):
        dens = b / (np.pi * t * (a * a + b * b))
    dens = np.where((t > 0) & (b > 0), dens, 0.0) / kappa
    return dens if dens.ndim else float(dens)


def mp_edges(ratio, scale=1.0):
    """``(lower, upper)`` = scale (1 -+ sqrt(ratio))^2, the support of scale * MP_ratio (continuous part)."""
    ratio = _v.positive("ratio", ratio)
    scale = _v.positive("scale", scale)
    return scale * (1.0 - np.sqrt(ratio)) ** 2, scale * (1.0 + np.sqrt(ratio)) ** 2


def mp_density(x, ratio, scale=1.0):
    """Density of the continuous part of scale * MP_ratio (Marchenko-Pastur law of mean ``scale``).

    The limit of both Wishart factors of the model: the vocabulary's (ratio delta = d/V) and, for a Gaussian
    population, the samples' (ratio gamma = d/N). Mass 1 - max(0, 1 - 1/ratio).
    """
    lo, hi = mp_edges(ratio, scale)
    x_arr = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x_arr)):
        raise ValueError("x must contain only finite numbers")
    inside = (x_arr > lo) & (x_arr < hi) & (x_arr > 0)
    safe = np.where(inside, x_arr, 1.0)
    dens = np.where(inside, np.sqrt(np.abs((hi - safe) * (safe - lo))) / (2.0 * np.pi * ratio * scale * safe), 0.0)
    return dens if dens.ndim else float(dens)


def critical_x(delta, gamma):
    """All three roots (descending) of x^3 - sigma_2 x - 2 sigma_3 = 0, the critical points of z(x).

    The largest, x*, is the sample-level threshold in the spike variable x = theta - delta; the smallest gives
    the lower bulk edge. The three roots are always real (sigma_2^3 >= 27 sigma_3^2 by AM-GM).
    """
    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    _, s2, s3 = _sigmas(delta, gamma)
    r = 2.0 * np.sqrt(s2 / 3.0)
    arg = np.clip((3.0 * s3 / s2) * np.sqrt(3.0 / s2), -1.0, 1.0)
    phase = np.arccos(arg) / 3.0
    return tuple(float(r * np.cos(phase - 2.0 * np.pi * k / 3.0)) for k in range(3))


def outlier_map(x, delta, gamma, kappa=1.0):
    """z(x) = kappa (x+1)(x+delta)(x+gamma)/x^2: sample outlier of a spike at x = theta - delta.

    It is also the inverse of the bulk's Stieltjes map at psi = 1/x, so its critical values are the edges.
    """
    x = np.asarray(x, dtype=float)
    return kappa * (x + 1.0) * (x + delta) * (x + gamma) / (x * x)


def bulk_edges(delta, gamma, kappa=1.0):
    """``(lower, upper)`` ends of the continuous support of kappa (MP_delta ⊠ MP_gamma)."""
    delta, gamma, kappa = _check_ratios(delta, gamma, kappa)
    x_top, _, x_low = critical_x(delta, gamma)
    lower = float(outlier_map(x_low, delta, gamma, kappa))
    upper = float(outlier_map(x_top, delta, gamma, kappa))
    return max(lower, 0.0), upper


def zero_atom(delta, gamma):
    """Mass of the atom at 0: the fraction of zero eigenvalues, max(0, 1 - 1/delta, 1 - 1/gamma)."""
    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    return max(0.0, 1.0 - 1.0 / delta, 1.0 - 1.0 / gamma)


def bulk_moments(k, delta, gamma, kappa=1.0):
    """Exact moments m_1..m_k of kappa (MP_delta ⊠ MP_gamma) (atom included), as a float array.

    From the power series of psi in w = 1/z: psi = w (1 + sigma_1 psi + sigma_2 psi^2 + sigma_3 psi^3), whose
    coefficients are the moments: m_1 = 1, m_2 = sigma_1 = 1 + delta + gamma, m_3 = sigma_1^2 + sigma_2, ...
    """
    k = _v.positive_int("k", k)
    delta, gamma, kappa = _check_ratios(delta, gamma, kappa)
    s1, s2, s3 = _sigmas(delta, gamma)
    coeffs = np.array([1.0, s1, s2, s3])
    psi = np.zeros(k + 1)  # psi[j] = coefficient of w^j, j = 0..k
    for _ in range(k):
        power = np.zeros(k + 1)
        power[0] = 1.0
        rhs = np.zeros(k + 1)
        for c in coeffs:  # rhs = 1 + s1 psi + s2 psi^2 + s3 psi^3, truncated at w^(k-1)
            rhs += c * power
            power = np.convolve(power, psi)[: k + 1]
        psi = np.concatenate(([0.0], rhs[:k]))
    return psi[1:] * kappa ** np.arange(1, k + 1)


def thresholds(delta, gamma):
    """``(theta_population, theta_sample)``: critical spike strengths (units of kappa).

    Population: theta > delta + sqrt(delta). Sample: theta > delta + x*, where x* is the positive root of
    x^3 - (gamma + delta + gamma delta) x - 2 gamma delta; there the sample outlier meets the bulk's upper edge.
    """
    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    return float(delta + np.sqrt(delta)), float(delta + critical_x(delta, gamma)[0])


@dataclass(frozen=True)
class Spike:
    """Predicted outlier and squared overlaps of one spike (scalars, or arrays for an array of theta).

    ``population_eigenvalue`` / ``sample_eigenvalue`` are ``nan`` below their threshold; the matching
    overlaps are then ``0.0``. Overlaps are squared cosines between the top eigenvector (of the population
    or sample covariance) and the reference direction (``direction``).
    """

    theta: float | np.ndarray
    population_eigenvalue: float | np.ndarray
    sample_eigenvalue: float | np.ndarray
    population_overlap: float | np.ndarray
    sample_overlap: float | np.ndarray
    direction: str = "spike"

    @property
    def population_detectable(self):
        return np.isfinite(self.population_eigenvalue)

    @property
    def sample_detectable(self):
        return np.isfinite(self.sample_eigenvalue)


def _scalarize(value, scalar: bool):
    return float(value) if scalar else value


def spike(theta, delta, gamma, kappa=1.0, *, direction: str = "spike"):
    """Spike of strength ``theta`` (units of kappa) on the bulk kappa MP_delta, seen through N = d/gamma samples.

    ``theta`` may be an array (vectorised). With x = theta - delta:

    * population eigenvalue kappa (x+1)(x+delta)/x and overlap 1 - delta/x^2, if x > sqrt(delta);
    * sample eigenvalue kappa (x+1)(x+delta)(x+gamma)/x^2 and overlap
      (x^3 - sigma_2 x - 2 sigma_3) / (x^2 (x+gamma)), if x > x*.
    """
    delta, gamma, kappa = _check_ratios(delta, gamma, kappa)
    th = _v.nonnegative("theta", theta, allow_array=True)
    scalar = np.ndim(th) == 0
    th = np.asarray(th, dtype=float)
    _, s2, s3 = _sigmas(delta, gamma)
    x = th - delta
    x_star = critical_x(delta, gamma)[0]
    pop = x > np.sqrt(delta)
    smp = x > x_star
    with np.errstate(divide="ignore", invalid="ignore"):
        pop_eig = np.where(pop, kappa * (x + 1.0) * (x + delta) / x, np.nan)
        pop_ov = np.where(pop, 1.0 - delta / x**2, 0.0)
        smp_eig = np.where(smp, outlier_map(x, delta, gamma, kappa), np.nan)
        smp_ov = np.where(smp, (x**3 - s2 * x - 2.0 * s3) / (x**2 * (x + gamma)), 0.0)
    return Spike(
        theta=_scalarize(th, scalar),
        population_eigenvalue=_scalarize(pop_eig, scalar),
        sample_eigenvalue=_scalarize(smp_eig, scalar),
        population_overlap=_scalarize(pop_ov, scalar),
        sample_overlap=_scalarize(smp_ov, scalar),
        direction=direction,
    )


def spike_strength(alpha, kappa, mu_norm2, delta):
    """Effective signal spike strength theta = alpha (||mu||^2 + delta) / kappa (units of kappa).

    The recoverable direction is the vocabulary's class centroid h = mu + Zs/V with ||h||^2 -> ||mu||^2 + delta,
    so the summary's rho = alpha ||mu||^2 / kappa undercounts it by alpha delta / kappa.
    """
    alpha = _v.nonnegative("alpha", alpha, allow_array=True)
    kappa = _v.positive("kappa", kappa)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2, allow_array=True)
    delta = _v.positive("delta", delta)
    return alpha * (mu_norm2 + delta) / kappa


def signal(delta, gamma, alpha, kappa, mu_norm2):
    """The signal spike: strength theta = alpha (||mu||^2 + delta)/kappa, overlaps measured against u = mu/||mu||.

    The top eigenvector aligns with h = mu + Zs/V; cos^2(h, u) -> ||mu||^2 / (||mu||^2 + delta), so both overlaps
    carry that factor. ``alpha`` and ``mu_norm2`` may be arrays (broadcast together).
    """
    delta, gamma, kappa = _check_ratios(delta, gamma, kappa)
    theta = spike_strength(alpha, kappa, mu_norm2, delta)
    sp = spike(theta, delta, gamma, kappa, direction="u")
    mu_norm2 = np.asarray(mu_norm2, dtype=float)
    factor = np.where(mu_norm2 > 0, mu_norm2 / (mu_norm2 + delta), 0.0)
    scalar = np.ndim(sp.theta) == 0
    return Spike(
        theta=sp.theta,
        population_eigenvalue=sp.population_eigenvalue,
        sample_eigenvalue=sp.sample_eigenvalue,
        population_overlap=_scalarize(sp.population_overlap * factor, scalar),
        sample_overlap=_scalarize(sp.sample_overlap * factor, scalar),
        direction="u",
    )


def mean_spike(delta, gamma, weight_sum, kappa):
    """The second spike of the *uncentered* S: direction g = Z1/V, strength theta_g = (sum w)^2 delta / kappa.

    Overlaps are measured against g/||g||. Centering the pooled vectors removes this spike exactly.
    """
    delta, gamma, kappa = _check_ratios(delta, gamma, kappa)
    ws = np.asarray(weight_sum, dtype=float)
    if ws.ndim or not np.isfinite(ws):
        raise ValueError(f"weight_sum must be a finite real number, got {weight_sum!r}")
    theta_g = float(ws) ** 2 * delta / kappa
    return spike(theta_g, delta, gamma, kappa, direction="g")
