r"""Closed forms of a finite number of tokens per pooled vector (the simulations are in
:mod:`attnlib.studies.token_mixing`).

A pooled vector mixes :func:`effective_tokens` tokens. At fixed pooling weights w the token-mixing matrix has the
moments of Marchenko-Pastur up to order 3 and an excess at order 4 (the crossing pairing), which gives S the excess
:func:`m4_shift`; :func:`free_cumulants` turns moments into free cumulants (the quieter statistic for that excess).
The most-used token of the vocabulary adds the term :func:`heavy_token_term` to the top eigenvalue, and leaves the
bulk at the dimensions of :func:`heavy_token_thresholds` (a :class:`HeavyToken`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory import _law

__all__ = ["effective_tokens", "free_cumulants", "m4_shift", "heavy_token_term", "HeavyToken",
           "heavy_token_thresholds"]


def free_cumulants(moments) -> np.ndarray:
    """Free cumulants k_1..k_4 from moments m_1..m_4 (last axis; non-crossing partitions).

    k_2 = m_2 - m_1^2, k_3 = m_3 - 3 m_1 m_2 + 2 m_1^3, k_4 = m_4 - 4 m_1 m_3 - 2 m_2^2 + 10 m_1^2 m_2 - 5 m_1^4.
    A change of m_4 alone moves k_4 by the same amount, while a fluctuation of the overall scale by 1 + eps moves
    m_4 by 4 eps m_4 but k_4 only by 4 eps k_4, several times less for the bulk law: k_4 is the quieter statistic
    for the finite-T excess of the 4th moment.
    """
    m = np.asarray(moments, dtype=float)
    if m.shape[-1] != 4 or not np.all(np.isfinite(m)):
        raise ValueError(f"moments must be finite with m_1..m_4 on the last axis, got shape {m.shape}")
    m1, m2, m3, m4 = np.moveaxis(m, -1, 0)
    return np.stack([m1, m2 - m1**2, m3 - 3 * m1 * m2 + 2 * m1**3,
                     m4 - 4 * m1 * m3 - 2 * m2**2 + 10 * m1**2 * m2 - 5 * m1**4], axis=-1)


def _w_ratio(w) -> float:
    """sum w^4 / (sum w^2)^2: 1/T for mean pooling, 1 for a single token."""
    w = _v.weights_vector("w", w)
    return float(np.sum(w**4) / np.sum(w**2) ** 2)


def effective_tokens(w) -> float:
    """T_eff = (sum w_t^2)^2 / sum w_t^4 = kappa^2 / sum w_t^4, the number of tokens a pooled vector mixes: T for
    mean pooling, 1 for a single token."""
    return 1.0 / _w_ratio(w)


def m4_shift(delta, gamma, w) -> float:
    r"""Limiting excess of the 4th moment of S/kappa over the bulk law, with T tokens per sequence.

    :math:`\delta\gamma^2 (\sum_t w_t^4/\kappa^2)^2` (:math:`\delta\gamma^2/T^2` for mean pooling). The token-mixing
    matrix of ratio c = gamma/delta has the moments of MP_c up to order 3 and an excess c^2 (sum w^4/kappa^2)^2
    at order 4 (the crossing pairing); S inherits it multiplied by delta^3. Moments 1 to 3 of S are exact for
    every T.
    """
    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    return float(delta * gamma**2 * _w_ratio(w) ** 2)


def heavy_token_term(delta, gamma, w, d: int) -> float:
    r"""Expected share of the most-used token in the top eigenvalue of S/kappa, at a fixed number of tokens.

    Along the noise direction :math:`\hat z_v = z_v/\|z_v\|` of token v the centred S has
    :math:`\hat z_v^\top S\hat z_v/\kappa \approx 1 + \gamma\sum_{(n,t):\,v_{n,t}=v} w_t^2/\kappa`, so
    :math:`\lambda_1(S)/\kappa \gtrsim 1 + \gamma\max_v\sum w_t^2/\kappa`; this returns the expected second term.
    For mean pooling the sum is :math:`k_v/T` with :math:`k_v \sim \mathrm{Poisson}(T/\eta)`, the number of
    uses of token v (:math:`\eta = V/N = \gamma/\delta`); for other weights it is compound Poisson, replaced by
    :math:`k/T_\mathrm{eff}` with :math:`k \sim \mathrm{Poisson}(T_\mathrm{eff}/\eta)` (the same mean and
    variance; exact for mean pooling). The expected maximum of V = d/delta independent counts is
    :math:`\sum_{k \ge 0}(1 - F(k)^V)`; it grows like :math:`\log V/\log\log V` at a fixed T, and the term
    stays near :math:`\gamma/\eta = \delta` only when :math:`T_\mathrm{eff}/\eta \gg \log V`.
    """
    from scipy import stats  # scipy.stats is slow to import; only this function needs it

    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    d = _v.positive_int("d", d)
    lam = delta / gamma / _w_ratio(w)  # (N/V) T_eff
    V = d / delta
    # beyond lam + 50 sqrt(lam) + 20 log V + 100 the terms V P(k > count) are below 1e-30
    counts = np.arange(int(lam + 50.0 * np.sqrt(lam) + 20.0 * np.log(V) + 100.0))
    expected_max = float(np.sum(-np.expm1(V * stats.poisson.logcdf(counts, lam))))
    return delta * expected_max / lam


@dataclass(frozen=True)
class HeavyToken:
    """When the most-used token reaches the top of the spectrum (:func:`heavy_token_thresholds`).

    ``outlier_uses``: the uses k of one token beyond which its noise direction is an outlier of S;
    ``edge_uses``: the uses at which the lower bound 1 + gamma k / T_eff reaches the upper edge; ``*_log10_d``:
    log10 of the dimension d = delta V at which the most-used of V tokens is expected to reach each.
    """

    outlier_uses: float
    edge_uses: float
    outlier_log10_d: float
    edge_log10_d: float


def heavy_token_thresholds(delta, gamma, w) -> HeavyToken:
    r"""The dimension at which the most-used token's noise direction leaves the bulk of S, at fixed weights.

    With the token-mixing matrix M (the sequences' token weights,
    :func:`attnlib.studies.token_mixing.token_mixing_spectrum`),
    :math:`S/\kappa = \delta\,(M/\kappa)^{1/2}(Z^\top Z/d)(M/\kappa)^{1/2}` up to its zero eigenvalues: a
    sample covariance of d Gaussian samples (ratio 1/delta) of a population :math:`M/\kappa`, whose bulk is
    :math:`\mathrm{MP}_\eta` (:math:`\eta = V/N = \gamma/\delta`) and in which a token used k times is an
    eigenvalue :math:`\ell = \eta k/T_\mathrm{eff}` (k ~ Poisson(T_eff/eta), the replacement of
    :func:`heavy_token_term`). By the sample transition (:func:`attnlib.theory.critical_x`) it becomes an outlier
    of S when :math:`\ell > (y+1)(y+\eta)/y` with y the positive root of
    :math:`y^3 - (\eta + 1/\delta + \eta/\delta)\,y - 2\eta/\delta` (at that point the outlier
    :math:`\delta\,(y+1)(y+\eta)(y+1/\delta)/y^2` meets the upper edge of the bulk law). The lower bound
    :math:`\hat z_v^\top S\hat z_v/\kappa \approx 1 + \gamma k/T_\mathrm{eff}` reaches that edge only at a
    larger k. The most-used of V tokens reaches k about when :math:`V\,\mathbb P(\mathrm{Poisson}(T_\mathrm{eff}/
    \eta) \ge k) = 1`, i.e. at d = delta V.

    ``delta``, ``gamma``: ratios d/V and d/N (> 0); ``w``: the pooling weights. Returns a :class:`HeavyToken`.
    """
    from scipy import stats  # scipy.stats is slow to import; only this function and heavy_token_term need it

    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    t_eff = effective_tokens(w)
    eta = gamma / delta
    y = _law.critical_x(eta, 1.0 / delta)[0]
    outlier_uses = t_eff / eta * (y + 1.0) * (y + eta) / y
    edge_uses = t_eff * (_law.bulk_edges(delta, gamma)[1] - 1.0) / gamma
    counts = stats.poisson(t_eff / eta)

    def log10_d(uses):
        return float((np.log(delta) - counts.logsf(uses)) / np.log(10.0))

    return HeavyToken(outlier_uses=float(outlier_uses), edge_uses=float(edge_uses),
                      outlier_log10_d=log10_d(outlier_uses), edge_log10_d=log10_d(edge_uses))
