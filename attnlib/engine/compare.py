r"""Comparing simulated spectra with a law (:class:`attnlib.theory.laws.SpectralLaw`), for instance the bulk law
:math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)`.

* Spectra of many draws come from the Monte-Carlo engine (``attnlib.sweep(..., spectrum="exact")``);
  zeros are counted by the one rule of :mod:`attnlib.numerics.linalg` (:data:`~attnlib.numerics.linalg.ZERO_TOL`).
* Distances between a spectrum and a law: :func:`histogram_l1` (binned, bin masses integrated exactly from the
  CDF, atom and out-of-support mass included) and :func:`ks_distance` (Kolmogorov-Smirnov, atom included);
  between two spectra: :func:`spectrum_l1`, :func:`ks_between`; :func:`distance_floor` compares the distance
  to a law with the distance between independent draws (by Jensen's inequality the first is the smaller on
  average when the law is the draws' mean); :func:`zero_fraction`, :func:`extreme_eigenvalues`,
  :func:`lower_edge_scale` and :func:`standardize_extremes` (Tracy-Widom units at both edges);
  :func:`finite_size_parameters` / :func:`finite_size_law` (the law matched to a finite centred S).
* Moments: :func:`spectrum_moments` (empirical; the law's: :meth:`attnlib.theory.laws.SpectralLaw.moments`).

The bulk at a finite number of tokens per pooled vector (token mixing, the fourth-moment excess) is
:mod:`attnlib.studies.token_mixing`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.model.setting import check_setting
from attnlib.numerics import checks as _v
from attnlib import theory
from attnlib.theory import fluctuations
from attnlib.theory.laws import Bulk, SpectralLaw
from attnlib.numerics.linalg import ZERO_TOL, zero_mask
from attnlib.numerics.statistics import standard_error

__all__ = ["finite_size_parameters", "finite_size_law",
           "histogram_l1", "ks_distance", "spectrum_l1", "ks_between", "Floor", "distance_floor", "zero_fraction",
           "extreme_eigenvalues", "lower_edge_scale", "standardize_extremes", "spectrum_moments", "as_spectrum"]

def finite_size_parameters(setting) -> tuple[float, float, float]:
    """``(d/(V-1), d/(N-1), kappa (V-1)(N-1)/(VN))``: the bulk law's parameters matched to a finite centred S.

    Centring leaves N - 1 degrees of freedom on the sample side; on the vocabulary side, with independent signs
    and mu = 0, the covariance of a pooled vector given the vocabulary is (kappa/V) Z (I - 11^T/V) Z^T, a Wishart
    matrix with V - 1 degrees of freedom, so that E tr S / d = kappa (V-1)(N-1)/(VN) exactly. The limits are
    (delta, gamma, kappa); the edges move by O(1/d), which is O(d^(-1/3)) on the Tracy-Widom scale.
    """
    s = check_setting(setting)
    return s.d / (s.V - 1), s.d / (s.N - 1), s.kappa * (s.V - 1) * (s.N - 1) / (s.V * s.N)


def finite_size_law(setting) -> Bulk:
    """:class:`~attnlib.theory.laws.Bulk` at :func:`finite_size_parameters` of ``setting``."""
    return Bulk(*finite_size_parameters(setting))


def as_spectrum(eigenvalues) -> np.ndarray:
    """All eigenvalues as one flat array (several draws are pooled); checked finite and non-empty."""
    ev = np.asarray(eigenvalues, dtype=float).ravel()
    if ev.size == 0 or not np.all(np.isfinite(ev)):
        raise ValueError("eigenvalues must be a non-empty array of finite numbers")
    if ev.min() < -ZERO_TOL * max(1.0, np.abs(ev).max()):
        raise ValueError(f"eigenvalues must be >= 0 (S is positive semidefinite), got min {ev.min():.3g}")
    return ev


def _check_law(law) -> SpectralLaw:
    if not isinstance(law, SpectralLaw):
        raise ValueError(f"law must be an attnlib.theory.SpectralLaw (theory.Bulk, theory.MarchenkoPastur, ...), "
                         f"got {law!r}")
    return law


def _masses(eigenvalues, law: SpectralLaw, bins: int) -> np.ndarray:
    """Empirical masses on the law's ``bins`` equal bins, then below the lower edge, above the upper, at 0."""
    if hasattr(eigenvalues, "masses"):  # an SLQ estimate (attnlib.engine.slq.SpectralDensity)
        zero = eigenvalues.zero_fraction()
        F = eigenvalues.cdf(np.linspace(law.lower, law.upper, bins + 1), zeros=False)
        return np.concatenate((np.diff(F), [F[0], 1.0 - zero - F[-1], zero]))
    ev = as_spectrum(eigenvalues)
    zero = zero_mask(ev)
    nz = ev[~zero]
    edges = np.linspace(law.lower, law.upper, bins + 1)
    counts, _ = np.histogram(nz[(nz >= law.lower) & (nz <= law.upper)], bins=edges)
    tails = [np.count_nonzero(nz < law.lower), np.count_nonzero(nz > law.upper)]
    return np.concatenate((counts / ev.size, np.array(tails) / ev.size, [zero.mean()]))


def histogram_l1(eigenvalues, law: SpectralLaw, bins: int = 50) -> float:
    """L1 distance between the empirical spectrum and ``law`` on ``bins`` equal bins of the law's support.

    Sum over the bins of ``|empirical mass - law mass|`` (law mass integrated exactly from the CDF, not the density
    at the bin centre), plus the empirical mass below the lower edge and above the upper edge (where the law has
    none), plus ``|empirical zero fraction - atom|``. Between 0 and 2; draws given as rows are pooled.

    ``eigenvalues`` may also be a ``attnlib.engine.slq.SpectralDensity`` (an estimate without the
    eigenvalues): its bin masses, out-of-support mass and zero fraction enter the same sum.
    """
    law = _check_law(law)
    bins = _v.positive_int("bins", bins)
    target = np.concatenate((law.bin_masses(np.linspace(law.lower, law.upper, bins + 1)), [0.0, 0.0, law.atom]))
    return float(np.abs(_masses(eigenvalues, law, bins) - target).sum())


def spectrum_l1(a, b, law: SpectralLaw, bins: int = 50) -> float:
    """L1 distance between two empirical spectra, on the same bins as :func:`histogram_l1` (``law`` fixes them)."""
    law = _check_law(law)
    bins = _v.positive_int("bins", bins)
    return float(np.abs(_masses(a, law, bins) - _masses(b, law, bins)).sum())


def ks_distance(eigenvalues, law: SpectralLaw) -> float:
    """Kolmogorov-Smirnov distance ``sup_x |F_emp(x) - F(x)|`` between the pooled spectrum and ``law``.

    Exact for a law with an atom: both one-sided limits are compared at every jump of the empirical CDF, and
    eigenvalues counted as zero (see ``ZERO_TOL``) sit in the atom.
    """
    ev = as_spectrum(eigenvalues)
    law = _check_law(law)
    x = np.sort(np.where(zero_mask(ev), 0.0, ev))
    n = x.size
    right = np.searchsorted(x, x, side="right") / n
    left = np.searchsorted(x, x, side="left") / n
    F_right = law.cdf(x)
    F_left = np.where(x <= 0, 0.0, F_right)  # the law's only jump is the atom at 0
    return float(max(np.max(np.abs(right - F_right)), np.max(np.abs(left - F_left))))


def ks_between(a, b) -> float:
    """Two-sample Kolmogorov-Smirnov distance ``sup_x |F_a(x) - F_b(x)|`` (eigenvalues counted as zero set to 0)."""
    a, b = (np.sort(np.where(zero_mask(x), 0.0, x)) for x in (as_spectrum(a), as_spectrum(b)))
    x = np.concatenate((a, b))
    return float(np.max(np.abs(np.searchsorted(a, x, side="right") / a.size
                                - np.searchsorted(b, x, side="right") / b.size)))


@dataclass(frozen=True, eq=False)
class Floor:
    """Distances of single draws to a law (``to_law``, one per draw) and between pairs of draws (``pairs``)."""

    metric: str
    to_law: np.ndarray
    pairs: np.ndarray

    @property
    def ratio(self) -> float:
        """Mean distance to the law over mean distance between draws (at most 1 on average if the law is right)."""
        return float(self.to_law.mean() / self.pairs.mean())

    @property
    def gap_se(self) -> float:
        """(mean pair distance - mean distance to the law) in standard errors of the latter."""
        return float((self.pairs.mean() - self.to_law.mean()) / standard_error(self.to_law.ravel()))


def distance_floor(spectra, law: SpectralLaw, metric: str = "l1", bins: int = 50, max_pairs_draws: int = 12) -> Floor:
    r"""Per-draw distance of ``spectra`` (rows = independent draws) to ``law``, and the same distance between draws.

    For a norm, Jensen's inequality gives :math:`\mathbb E\|X - \mathbb E Y\| \le \mathbb E\|X - Y\|` for
    independent draws X, Y; both L1 on bins (``metric="l1"``) and KS (``"ks"``) are norms of differences. So if
    ``law`` is the mean spectrum, the mean distance to it is below the mean distance between two draws (by about
    a factor 1/sqrt(2) when noise dominates); a law off by more than the draw-to-draw noise breaks the inequality.
    Pairs are formed among the first ``max_pairs_draws`` draws.
    """
    law = _check_law(law)
    metric = _v.choice("metric", metric, ("l1", "ks"))
    ev = np.atleast_2d(np.asarray(spectra, dtype=float))
    if ev.shape[0] < 2:
        raise ValueError(f"spectra must hold at least 2 draws (rows), got {ev.shape[0]}")
    m = min(ev.shape[0], _v.positive_int("max_pairs_draws", max_pairs_draws, minimum=2))
    if metric == "l1":
        to_law = [histogram_l1(e, law, bins) for e in ev]
        pairs = [spectrum_l1(ev[i], ev[j], law, bins) for i in range(m) for j in range(i + 1, m)]
    else:
        to_law = [ks_distance(e, law) for e in ev]
        pairs = [ks_between(ev[i], ev[j]) for i in range(m) for j in range(i + 1, m)]
    return Floor(metric=metric, to_law=np.array(to_law), pairs=np.array(pairs))


def zero_fraction(eigenvalues) -> float:
    """Fraction of eigenvalues that are zero (at most ``ZERO_TOL`` times the largest); draws pooled."""
    return float(zero_mask(as_spectrum(eigenvalues)).mean())


def extreme_eigenvalues(eigenvalues) -> tuple[np.ndarray, np.ndarray]:
    """Per draw (rows; a 1-D array is one draw): the smallest non-zero and the largest eigenvalue."""
    ev = np.atleast_2d(np.asarray(eigenvalues, dtype=float))
    as_spectrum(ev)
    small, large = [], []
    for row in ev:
        nz = row[~zero_mask(row)]
        small.append(nz.min() if nz.size else 0.0)
        large.append(row.max())
    return np.array(small), np.array(large)


def lower_edge_scale(delta, gamma, kappa, d) -> float:
    r"""Tracy-Widom scale :math:`(c_- d)^{-2/3}` of the smallest non-zero eigenvalue at a soft lower edge.

    At the lower critical point :math:`x_-` (the most negative root of :math:`x^3 - \sigma_2 x - 2\sigma_3`),
    :math:`z` has a local maximum, :math:`z''(x_-) = 2\kappa(\sigma_2 x_- + 3\sigma_3)/x_-^4 < 0`, and the
    derivation of ``attnlib.theory.fluctuations.edge_constant`` gives a density
    :math:`(c_-/\pi)\sqrt{\lambda - E_-}` above :math:`E_-` with
    :math:`c_- = 1/(E_-\sqrt{\kappa\,|\sigma_2 x_- + 3\sigma_3|})`. nan when the lower edge is hard (at 0).
    """
    delta, gamma, kappa = _v.positive("delta", delta), _v.positive("gamma", gamma), _v.positive("kappa", kappa)
    d = _v.positive_int("d", d)
    x_low = theory.critical_x(delta, gamma)[2]
    lower = float(theory.outlier_map(x_low, delta, gamma, kappa))
    if lower <= 0:
        return float("nan")
    s2, s3 = delta + gamma + delta * gamma, delta * gamma
    return float((d / (lower * np.sqrt(kappa * abs(s2 * x_low + 3 * s3)))) ** (-2.0 / 3.0))


def standardize_extremes(lowest, highest, delta, gamma, kappa, d) -> tuple[np.ndarray, np.ndarray]:
    """Smallest non-zero and largest eigenvalues in Tracy-Widom units, each approximately TW_1 distributed.

    ``((E_- - lowest) / lower_edge_scale, (highest - E_+) / fluctuations.edge_scale)`` with the edges
    ``theory.Bulk(delta, gamma, kappa).support``; the first is nan at a hard lower edge.
    """
    lower = theory.Bulk(delta, gamma, kappa).lower
    low = (lower - np.asarray(lowest, dtype=float)) / lower_edge_scale(delta, gamma, kappa, d)
    return low, np.asarray(fluctuations.standardize(delta, gamma, top=highest, kappa=kappa, d=d), dtype=float)


def spectrum_moments(eigenvalues, k: int = 4, scale=1.0) -> np.ndarray:
    """Empirical moments m_1..m_k of eigenvalues/scale (zeros included), per draw.

    A 1-D array gives shape (k,); an array of draws (rows) gives shape (draws, k).
    """
    k = _v.positive_int("k", k)
    scale = _v.positive("scale", scale)
    ev = np.asarray(eigenvalues, dtype=float)
    as_spectrum(ev)
    x = ev / scale
    return np.stack([np.mean(x**j, axis=-1) for j in range(1, k + 1)], axis=-1)
