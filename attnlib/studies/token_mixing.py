r"""Token mixing: the bulk of S at a finite number of tokens per pooled vector.

The pooled vectors are c_n = E a_n with a_n the token-weight vector of sequence n, so the bulk of S depends on
the tokens only through the spectrum of the token-mixing matrix A Aᵀ (:func:`token_mixing_spectrum`,
:func:`token_mixing_moments`). It is Marchenko-Pastur only as the effective number of tokens
T_eff = kappa^2 / sum_t w_t^4 grows: at fixed weights its first three moments are those of MP and its fourth
exceeds them by the crossing pairing, which gives S the excess :func:`m4_shift`. :func:`free_cumulants` turns
moments into free cumulants (the quieter statistic for that excess), and :func:`t_departure` simulates S for
several numbers of tokens. :func:`token_edges` gives the upper edge of the law of S given the tokens of a draw,
which moves from draw to draw at a fixed number of tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

from attnlib.numerics import checks as _v
from attnlib.model import positional
from attnlib import theory
from attnlib.theory import population
from attnlib.theory.spectral_laws import Law, bulk_law
from attnlib.engine.compare import (distance_floor, extreme_eigenvalues,
    finite_size_parameters, spectrum_moments)
from attnlib.model.generative import sample_tokens
from attnlib.model.pooling import token_matrix
from attnlib.engine.montecarlo import sweep
from attnlib.model.setting import Setting, sizes_for

__all__ = ["free_cumulants", "heavy_token_term", "HeavyToken", "heavy_token_thresholds", "m4_shift",
           "token_mixing_spectrum", "token_mixing_moments", "token_edges", "TDeparture", "t_departure"]


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

    With the token-mixing matrix M (the sequences' token weights, :func:`token_mixing_spectrum`),
    :math:`S/\kappa = \delta\,(M/\kappa)^{1/2}(Z^\top Z/d)(M/\kappa)^{1/2}` up to its zero eigenvalues: a
    sample covariance of d Gaussian samples (ratio 1/delta) of a population :math:`M/\kappa`, whose bulk is
    :math:`\mathrm{MP}_\eta` (:math:`\eta = V/N = \gamma/\delta`) and in which a token used k times is an
    eigenvalue :math:`\ell = \eta k/T_\mathrm{eff}` (k ~ Poisson(T_eff/eta), the replacement of
    :func:`heavy_token_term`). By the sample transition (``theory.critical_x``) it becomes an outlier of S when
    :math:`\ell > (y+1)(y+\eta)/y` with y the positive root of
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
    t_eff = 1.0 / _w_ratio(w)
    eta = gamma / delta
    y = theory.critical_x(eta, 1.0 / delta)[0]
    outlier_uses = t_eff / eta * (y + 1.0) * (y + eta) / y
    edge_uses = t_eff * (theory.bulk_edges(delta, gamma)[1] - 1.0) / gamma
    counts = stats.poisson(t_eff / eta)

    def log10_d(uses):
        return float((np.log(delta) - counts.logsf(uses)) / np.log(10.0))

    return HeavyToken(outlier_uses=float(outlier_uses), edge_uses=float(edge_uses),
                      outlier_log10_d=log10_d(outlier_uses), edge_log10_d=log10_d(edge_uses))


def _token_weights(V: int, N: int, w, rng: np.random.Generator):
    """Validated (V, N, w) and the sparse (N, V) token-weight matrix of N sequences with independent signs."""
    V = _v.positive_int("V", V, even=True, minimum=2)
    N = _v.positive_int("N", N)
    w = _v.weights_vector("w", w)
    rng = _v.rng(rng)
    xi = positional.independent(w.size).sample(N, rng)
    return V, N, w, token_matrix(sample_tokens(xi, V, rng), w, V)


def token_mixing_spectrum(V: int, N: int, w, rng: np.random.Generator) -> np.ndarray:
    r"""Eigenvalues (ascending) of the V x V token-mixing matrix :math:`\frac{V}{N\kappa} P A A^\top P`, one draw.

    A (V x N) holds each sequence's pooling weights on its tokens (column a_n, independent signs, so tokens are
    uniform over the vocabulary); P = I - 11^T/V removes the direction that centering the pooled vectors removes
    (1^T a_n = sum_t w_t for every n). The bulk of S depends on the tokens only through this spectrum; Theorem 1
    needs it to be MP_{V/N}. Dense eigendecomposition: keep V to a few thousand.
    """
    V, N, w, A = _token_weights(V, N, w, rng)
    G = (A.T @ A).toarray()  # V x V
    mean_row = G.mean(axis=0)
    PGP = G - mean_row[None, :] - mean_row[:, None] + mean_row.mean()
    return np.clip(np.linalg.eigvalsh(PGP), 0.0, None) * V / (N * float(w @ w))


def token_mixing_moments(V: int, N: int, w, rng: np.random.Generator) -> np.ndarray:
    r"""Moments m_1..m_4 of the spectrum of the token-mixing matrix (see :func:`token_mixing_spectrum`), one draw.

    Exact traces of sparse products, no eigendecomposition, so V and N can be large (the cost grows like
    N (T^2 N/V)^2). If A were Gaussian these would tend to the moments of MP_{V/N} (:func:`attnlib.theory.spectral_laws.mp_moments`); with T
    tokens per sequence the 4th exceeds it by (V/N)^2 (sum w^4/kappa^2)^2 (see :func:`m4_shift`).
    """
    V, N, w, A = _token_weights(V, N, w, rng)
    K = (A @ A.T).tocsr()  # N x N Gram of the a_n; (PA)^T (PA) = K - beta 11^T
    K2 = (K @ K).tocsr()
    K.sum_duplicates()
    K2.sum_duplicates()  # canonical: sum of squared stored values = squared Frobenius norm
    beta = w.sum() ** 2 / V
    one = np.ones(N)
    u = K @ one
    s = float(one @ u)
    traces = np.array([  # tr (K - beta 11^T)^k, k = 1..4, expanded in the rank-one term
        K.diagonal().sum() - beta * N,
        np.sum(K.data**2) - 2 * beta * s + beta**2 * N**2,
        K2.multiply(K).sum() - 3 * beta * (u @ u) + 3 * beta**2 * N * s - beta**3 * N**3,
        np.sum(K2.data**2) - 4 * beta * (u @ (K @ u)) + beta**2 * (4 * N * (u @ u) + 2 * s**2)
        - 4 * beta**3 * N**2 * s + beta**4 * N**4,
    ])
    scale = V / (N * float(w @ w))
    return traces * scale ** np.arange(1, 5) / V


def token_edges(d: int, V: int, N: int, w, rng: np.random.Generator, draws: int = 1) -> np.ndarray:
    r"""Upper edges, in units of kappa, of the law of S/kappa given the tokens, for ``draws`` independent draws of
    the tokens from ``rng`` (independent signs, mu = 0).

    Given the tokens, S = Z M Z^T / V exactly, with Z the d x V Gaussian noise and M = V A_c^T A_c / N, A_c the
    N x V token-weight matrix with its column means removed (the centring of S). Z is invariant under rotations
    of R^V, so the law of S/kappa given M is that of Z diag(spectrum of M/kappa) Z^T / V: the token-side
    population law of :mod:`attnlib.theory.population` at gamma = 0, evaluated at the draw's own spectrum. M has
    the eigenvalue 0 along 1 (each row of A sums to sum_t w_t), so the law is taken over its V - 1 others, at the
    ratio d/(V - 1) and the scale (V - 1)/V. Its upper edge is z(y*), y* the zero of z'(y) above the largest
    atom. Dense eigenvalues of a V x V matrix: keep V to a few thousand.
    """
    d = _v.positive_int("d", d)
    return np.array([_token_edge(d, *_token_weights(V, N, w, rng))
                     for _ in range(_v.positive_int("draws", draws))])


def _token_edge(d: int, V: int, N: int, w: np.ndarray, A) -> float:
    """The edge of :func:`token_edges` for one (N, V) token-weight matrix A."""
    G = (A.T @ A).toarray() - N * np.outer(A.mean(axis=0).A1, A.mean(axis=0).A1)  # A_c^T A_c
    ev = np.linalg.eigvalsh(G) * V / (N * float(w @ w))
    ev = ev[ev > 1e-9 * ev[-1]]
    pop = population.Population(ev, np.full(ev.size, 1.0 / ev.size), side="tokens")
    ratio = d / ev.size
    ys = ev[-1] * (1.0 + np.geomspace(1e-6, 10.0, 80))
    up = np.flatnonzero(population.law_map(ys, pop, ratio, 0.0)[1] > 0)
    if not up.size or up[0] == 0:  # z decreases just above the largest atom and increases far from it
        raise ValueError("no critical point of the law's map found above the largest eigenvalue of M")
    slope = lambda y: float(population.law_map(y, pop, ratio, 0.0)[1])  # noqa: E731
    y_star = brentq(slope, ys[up[0] - 1], ys[up[0]], xtol=1e-13 * ev[-1])
    return float(population.law_map(y_star, pop, ratio, 0.0)[0]) * ev.size / V


@dataclass(frozen=True, eq=False)
class TDeparture:
    """S at several numbers of tokens T per sequence (mean pooling, independent signs, mu = 0: no outlier).

    Units: kappa' and the law ``law`` (unit scale) at :func:`attnlib.engine.compare.finite_size_parameters`. ``spectra``: dict T ->
    eigenvalues of S/kappa', shape (draws, d). ``moments``: (len(T), draws, 4), moments of S/kappa'.
    ``m4`` / ``m4_se``: mean and standard error of the 4th; ``m4_law``: the law's; ``m4_predicted``: plus
    :func:`m4_shift` (the limiting excess, which is also that of the free cumulant k_4). ``lowest`` /
    ``highest`` (``*_se``): mean smallest non-zero and largest eigenvalue. ``ks``: one :class:`attnlib.engine.compare.Floor` (KS) per
    T. ``delta``, ``gamma``, ``edges``: the realised ratios d/V, d/N and the bulk edges there.
    """

    delta: float
    gamma: float
    T: np.ndarray
    law: Law
    moments: np.ndarray
    m4: np.ndarray
    m4_se: np.ndarray
    m4_law: float
    m4_predicted: np.ndarray
    lowest: np.ndarray
    lowest_se: np.ndarray
    highest: np.ndarray
    highest_se: np.ndarray
    ks: tuple
    edges: tuple
    spectra: dict = field(repr=False)


def t_departure(delta, gamma, d: int, Ts, seed: int, draws: int) -> TDeparture:
    """Simulate S for each number of tokens T in ``Ts`` (see :class:`TDeparture`).

    Sizes V = d/delta, N = d/gamma (rounded; V made even). Every T uses the same seed, so trial j of every T
    has the same vocabulary: differences between two T are paired, and the vocabulary's fluctuations cancel.
    """
    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    d = _v.positive_int("d", d)
    draws = _v.positive_int("draws", draws, minimum=2)
    Ts = [_v.positive_int("Ts[i]", t) for t in np.atleast_1d(Ts).tolist()]
    V, N = sizes_for(d, delta, gamma)
    spectra, moments, extremes, floors = {}, [], [], []
    for T in Ts:
        s = Setting(d=d, V=V, N=N, mu_norm2=0.0, process=positional.independent(T), weights="mean")
        dl, gm, kap = finite_size_parameters(s)
        ev = spectra[T] = sweep([s], seed, draws, k=1, spectrum="exact").spectra[0] / kap
        law = bulk_law(dl, gm)
        moments.append(spectrum_moments(ev, 4))
        extremes.append(extreme_eigenvalues(ev))
        floors.append(distance_floor(ev, law, metric="ks"))
    moments, extremes = np.array(moments), np.array(extremes)  # (T, draws, 4), (T, 2, draws)

    def se(x):
        return x.std(axis=-1, ddof=1) / np.sqrt(draws)

    m4_law = float(theory.bulk_moments(4, dl, gm)[3])
    return TDeparture(
        delta=d / V, gamma=d / N, T=np.array(Ts), law=law, moments=moments, m4=moments[:, :, 3].mean(axis=1),
        m4_se=se(moments[:, :, 3]), m4_law=m4_law,
        m4_predicted=np.array([m4_law + m4_shift(dl, gm, np.full(T, 1.0 / T)) for T in Ts]),
        lowest=extremes[:, 0].mean(axis=1), lowest_se=se(extremes[:, 0]), highest=extremes[:, 1].mean(axis=1),
        highest_se=se(extremes[:, 1]), ks=tuple(floors), edges=theory.bulk_edges(d / V, d / N), spectra=spectra,
    )
