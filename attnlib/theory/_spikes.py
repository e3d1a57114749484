r"""The spike (BBP) formulas: strengths, thresholds, outliers, overlaps and the regions of the phase diagram.

A population spike of strength theta (units of kappa) on kappa MP_delta, with ``x = theta - delta``, has
population outlier ``kappa (x+1)(x+delta)/x`` when ``x > sqrt(delta)``, and after N samples the sample outlier
``kappa (x+1)(x+delta)(x+gamma)/x^2`` when ``x > x*``, the positive root of ``x^3 - sigma_2 x - 2 sigma_3``.
Every function broadcasts over its arguments and returns floats for scalar input; arguments that do not
broadcast together raise a ValueError that names them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory._law import as_output, sigmas, critical_x, outlier_map, together
from attnlib.numerics.checks import ratios

__all__ = [
    "thresholds",
    "Spike",
    "spike",
    "signal",
    "signal_thresholds",
    "mean_spike",
    "class_spikes",
    "spike_strength",
    "mean_spike_strength",
    "paper_rho",
    "REGIONS",
    "regions",
]

#: Names of the regions of the phase diagram, indexed by the codes of :func:`regions`.
REGIONS = ("undetectable", "population only", "detectable")


def thresholds(delta, gamma):
    """``(theta_population, theta_sample)``: critical spike strengths (units of kappa).

    Population: theta > delta + sqrt(delta). Sample: theta > delta + x*, where x* is the positive root of
    x^3 - (gamma + delta + gamma delta) x - 2 gamma delta; there the sample outlier meets the bulk's upper edge.
    """
    delta = _v.positive("delta", delta, allow_array=True)
    gamma = _v.positive("gamma", gamma, allow_array=True)
    together(delta=delta, gamma=gamma)
    return as_output(delta + np.sqrt(delta)), as_output(delta + critical_x(delta, gamma)[0])


@dataclass(frozen=True)
class Spike:
    """Predicted outlier and squared overlaps of one spike (scalars, or arrays for array input).

    ``population_eigenvalue`` / ``sample_eigenvalue`` are ``nan`` below their threshold; the matching
    overlaps are then ``0.0``. Overlaps are squared cosines between the top eigenvector (of the population
    or sample covariance) and the reference direction (``direction``); against u = mu/||mu|| (``direction
    = "u"``, :func:`signal`) they are ``nan`` at ||mu||^2 = 0, where u does not exist.
    """

    theta: float | np.ndarray
    population_eigenvalue: float | np.ndarray
    sample_eigenvalue: float | np.ndarray
    population_overlap: float | np.ndarray
    sample_overlap: float | np.ndarray
    direction: str = "spike"

    @property
    def sample_detectable(self):
        return np.isfinite(self.sample_eigenvalue)


def spike(delta, gamma, theta, kappa=1.0, *, direction: str = "spike") -> Spike:
    """Spike of strength ``theta`` (units of kappa) on the bulk kappa MP_delta, seen through N = d/gamma samples.

    With x = theta - delta:

    * population eigenvalue kappa (x+1)(x+delta)/x and overlap 1 - delta/x^2, if x > sqrt(delta);
    * sample eigenvalue kappa (x+1)(x+delta)(x+gamma)/x^2 and overlap
      (x^3 - sigma_2 x - 2 sigma_3) / (x^2 (x+gamma)), if x > x*.

    Parameters
    ----------
    delta, gamma : float or array_like
        Ratios d/V and d/N (> 0).
    theta : float or array_like
        Spike strength (>= 0), in units of kappa.
    kappa : float or array_like
        The scale ||w||^2 (> 0); all arguments broadcast together.
    direction : str
        Name of the reference direction of the overlaps, stored in the result.
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    th = np.asarray(_v.nonnegative("theta", theta, allow_array=True), dtype=float)
    shape = together(theta=th, delta=delta, gamma=gamma, kappa=kappa)
    _, s2, s3 = sigmas(delta, gamma)
    x = th - delta
    theta_pop, theta_smp = thresholds(delta, gamma)
    pop = th > theta_pop  # the same comparisons as thresholds(), so that both agree to the last bit
    smp = th > theta_smp
    with np.errstate(divide="ignore", invalid="ignore"):
        pop_eig = np.where(pop, kappa * (x + 1.0) * (x + delta) / x, np.nan)
        pop_ov = np.where(pop, 1.0 - delta / x**2, 0.0)
        smp_eig = np.where(smp, outlier_map(np.where(smp, x, 1.0), delta, gamma, kappa), np.nan)
        smp_ov = np.where(smp, (x**3 - s2 * x - 2.0 * s3) / (x**2 * (x + gamma)), 0.0)
    return Spike(
        theta=as_output(np.broadcast_to(th, shape)),
        population_eigenvalue=as_output(np.broadcast_to(pop_eig, shape)),
        sample_eigenvalue=as_output(np.broadcast_to(smp_eig, shape)),
        population_overlap=as_output(np.broadcast_to(pop_ov, shape)),
        sample_overlap=as_output(np.broadcast_to(smp_ov, shape)),
        direction=direction,
    )


def spike_strength(delta, alpha, kappa, mu_norm2):
    """Effective signal spike strength theta = alpha (||mu||^2 + delta) / kappa (units of kappa).

    The recoverable direction is the vocabulary's class centroid h = mu + Zs/V with ||h||^2 -> ||mu||^2 + delta,
    so the paper's stated rho = alpha ||mu||^2 / kappa (:func:`paper_rho`) undercounts it by alpha delta / kappa.
    """
    alpha = _v.nonnegative("alpha", alpha, allow_array=True)
    kappa = _v.positive("kappa", kappa, allow_array=True)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2, allow_array=True)
    delta = _v.positive("delta", delta, allow_array=True)
    together(alpha=alpha, kappa=kappa, mu_norm2=mu_norm2, delta=delta)
    return as_output(alpha * (mu_norm2 + delta) / kappa)


def paper_rho(alpha, kappa, mu_norm2):
    """rho = alpha ||mu||^2 / kappa: the signal-to-noise ratio as the paper's statement writes it.

    It omits the vocabulary's own centroid shift; the spike strength is :func:`spike_strength`.
    """
    alpha = _v.nonnegative("alpha", alpha, allow_array=True)
    kappa = _v.positive("kappa", kappa, allow_array=True)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2, allow_array=True)
    together(alpha=alpha, kappa=kappa, mu_norm2=mu_norm2)
    return as_output(alpha * mu_norm2 / kappa)


def mean_spike_strength(delta, weight_sum, kappa):
    """theta_g = (sum w)^2 delta / kappa: strength of the vocabulary-mean spike of the uncentered S."""
    ws = np.asarray(weight_sum, dtype=float)
    if not np.all(np.isfinite(ws)):
        raise ValueError(f"weight_sum must be finite real numbers, got {weight_sum!r}")
    kappa = _v.positive("kappa", kappa, allow_array=True)
    delta = _v.positive("delta", delta, allow_array=True)
    together(weight_sum=ws, kappa=kappa, delta=delta)
    return as_output(ws**2 * delta / kappa)


def signal(delta, gamma, alpha, kappa, mu_norm2) -> Spike:
    """The signal spike: strength theta = alpha (||mu||^2 + delta)/kappa, overlaps measured against u = mu/||mu||.

    The top eigenvector aligns with h = mu + Zs/V; cos^2(h, u) -> ||mu||^2 / (||mu||^2 + delta), so both overlaps
    carry that factor. At ||mu||^2 = 0 there is no direction u (mu/||mu|| is 0/0): both overlaps are ``nan``
    there, while the eigenvalues are defined (the outlier, if any, carries the vocabulary's own class split
    Zs/V: use :meth:`attnlib.model.setting.Setting.signal_h` for its overlap with h). All arguments broadcast
    together; arguments that do not raise a ValueError naming them.
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    together(delta=delta, gamma=gamma, alpha=alpha, kappa=kappa, mu_norm2=mu_norm2)
    theta = spike_strength(delta, alpha=alpha, kappa=kappa, mu_norm2=mu_norm2)
    sp = spike(delta, gamma, theta=theta, kappa=kappa, direction="u")
    mu_norm2 = np.asarray(mu_norm2, dtype=float)
    factor = np.where(mu_norm2 > 0, mu_norm2 / (mu_norm2 + delta), np.nan)  # u = mu/||mu|| undefined at 0
    return Spike(
        theta=sp.theta,
        population_eigenvalue=sp.population_eigenvalue,
        sample_eigenvalue=sp.sample_eigenvalue,
        population_overlap=as_output(sp.population_overlap * factor),
        sample_overlap=as_output(sp.sample_overlap * factor),
        direction="u",
    )


def signal_thresholds(delta, gamma, alpha, kappa, *, clip: bool = True):
    """``(mu2_population, mu2_sample)``: the signal strengths ||mu||^2 above which the signal spike has an outlier.

    The signal's strength alpha (||mu||^2 + delta) / kappa passes a threshold theta_c (:func:`thresholds`) once
    ||mu||^2 > theta_c kappa / alpha - delta. Where that is negative the outlier exists at every ||mu||^2 (at 0
    it carries only the vocabulary's class split Zs/V, of strength (alpha/kappa) delta): the threshold is then
    0, or, with ``clip=False``, the negative value itself. With alpha = 0 it is inf (never). All arguments
    broadcast together. For one setting, :meth:`attnlib.model.setting.Setting.signal_thresholds` returns the same numbers as
    a record that says in words which case holds.
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    alpha = np.asarray(_v.nonnegative("alpha", alpha, allow_array=True), dtype=float)
    together(delta=delta, gamma=gamma, alpha=alpha, kappa=kappa)
    out = []
    for theta_c in thresholds(delta, gamma):
        ratio = np.where(alpha > 0, theta_c * kappa / np.where(alpha > 0, alpha, 1.0), np.inf)
        out.append(as_output(np.maximum(ratio - delta, 0.0) if clip else ratio - delta))
    return tuple(out)


def mean_spike(delta, gamma, weight_sum, kappa) -> Spike:
    """The second spike of the *uncentered* S: direction g = Z1/V, strength theta_g = (sum w)^2 delta / kappa.

    Overlaps are measured against g/||g||. Centering the pooled vectors removes this spike exactly.
    """
    delta, gamma, kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
    together(delta=delta, gamma=gamma, weight_sum=weight_sum, kappa=kappa)
    theta_g = mean_spike_strength(delta, weight_sum=weight_sum, kappa=kappa)
    return spike(delta, gamma, theta=theta_g, kappa=kappa, direction="g")


def class_spikes(delta, gamma, nu, snr, kappa=1.0) -> Spike:
    """The K - 1 between-class spikes of K class means: strengths theta_j = snr (nu_j + delta), and :func:`spike`.

    ``nu``: the eigenvalues of the scatter of the class means (``attnlib.model.k_classes.scatter_eigenvalues``);
    the centroid of each class adds its mean noise, of squared norm about K delta, so direction j has strength
    (alpha/kappa)(nu_j + delta) with ``snr`` = alpha/kappa. Overlaps are measured against the between-class
    directions.
    """
    snr = _v.positive("snr", snr)
    return spike(delta, gamma, theta=snr * (np.asarray(nu, dtype=float) + _v.positive("delta", delta)), kappa=kappa,
                 direction="between-class")


def regions(delta, gamma, theta):
    """Region code of each (theta, delta, gamma): 0 undetectable, 1 population outlier only, 2 sample outlier.

    0: theta <= delta + sqrt(delta) (no outlier even in the population covariance); 1: the population
    covariance has an outlier but S, from N = d/gamma samples, does not (theta <= delta + x*(delta, gamma));
    2: S has an outlier. Arguments broadcast together; the names are ``REGIONS``.
    """
    th = _v.nonnegative("theta", theta, allow_array=True)
    together(theta=th, delta=delta, gamma=gamma)
    pop, smp = thresholds(delta, gamma)
    out = (np.asarray(th) > pop).astype(int) + (np.asarray(th) > smp).astype(int)
    return out if out.ndim else int(out)
