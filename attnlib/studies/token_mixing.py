r"""Token mixing: the bulk of S at a finite number of tokens per pooled vector.

The pooled vectors are c_n = E a_n with a_n the token-weight vector of sequence n, so the bulk of S depends on
the tokens only through the spectrum of the token-mixing matrix A Aᵀ (:func:`token_mixing_spectrum`,
:func:`token_mixing_moments`). It is Marchenko-Pastur only as the effective number of tokens
T_eff = kappa^2 / sum_t w_t^4 grows: at fixed weights its first three moments are those of MP and its fourth
exceeds them by the crossing pairing (the closed forms of that excess are in :mod:`attnlib.theory.tokens`), and
:func:`t_departure` simulates S for several numbers of tokens. :func:`token_edges` gives the upper edge of the
law of S given the tokens of a draw, which moves from draw to draw at a fixed number of tokens.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

from attnlib.numerics import checks as _v
from attnlib.numerics.statistics import standard_error
from attnlib.model import positional
from attnlib import theory
from attnlib.theory import population
from attnlib.theory.tokens import m4_shift
from attnlib.theory.laws import Bulk, SpectralLaw
from attnlib.engine.compare import (distance_floor, extreme_eigenvalues,
    finite_size_parameters, spectrum_moments)
from attnlib.model.generative import sample_tokens
from attnlib.model.pooling import token_matrix
from attnlib.engine.montecarlo import sweep
from attnlib.model.setting import Setting, sizes_for

__all__ = ["token_mixing_spectrum", "token_mixing_moments", "token_edges", "TDeparture", "t_departure"]


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
    N (T^2 N/V)^2). If A were Gaussian these would tend to the moments of MP_{V/N}
    (:class:`attnlib.theory.laws.MarchenkoPastur`); with T
    tokens per sequence the 4th exceeds it by (V/N)^2 (sum w^4/kappa^2)^2 (see :func:`attnlib.theory.tokens.m4_shift`).
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
    law = population.PopulationBulk(d / ev.size, 0.0, pop)
    ys = ev[-1] * (1.0 + np.geomspace(1e-6, 10.0, 80))
    up = np.flatnonzero(law.law_map(ys)[1] > 0)
    if not up.size or up[0] == 0:  # z decreases just above the largest atom and increases far from it
        raise ValueError("no critical point of the law's map found above the largest eigenvalue of M")
    slope = lambda y: float(law.law_map(y)[1])  # noqa: E731
    y_star = brentq(slope, ys[up[0] - 1], ys[up[0]], xtol=1e-13 * ev[-1])
    return float(law.law_map(y_star)[0]) * ev.size / V


@dataclass(frozen=True, eq=False)
class TDeparture:
    """S at several numbers of tokens T per sequence (mean pooling, independent signs, mu = 0: no outlier).

    Units: kappa' and the law ``law`` (unit scale) at :func:`attnlib.engine.compare.finite_size_parameters`. ``spectra``: dict T ->
    eigenvalues of S/kappa', shape (draws, d). ``moments``: (len(T), draws, 4), moments of S/kappa'.
    ``m4`` / ``m4_se``: mean and standard error of the 4th; ``m4_law``: the law's; ``m4_predicted``: plus
    :func:`attnlib.theory.tokens.m4_shift` (the limiting excess, which is also that of the free cumulant k_4). ``lowest`` /
    ``highest`` (``*_se``): mean smallest non-zero and largest eigenvalue. ``ks``: one :class:`attnlib.engine.compare.Floor` (KS) per
    T. ``delta``, ``gamma``, ``edges``: the realised ratios d/V, d/N and the bulk edges there.
    """

    delta: float
    gamma: float
    T: np.ndarray
    law: SpectralLaw
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
        law = Bulk(dl, gm)
        moments.append(spectrum_moments(ev, 4))
        extremes.append(extreme_eigenvalues(ev))
        floors.append(distance_floor(ev, law, metric="ks"))
    moments, extremes = np.array(moments), np.array(extremes)  # (T, draws, 4), (T, 2, draws)
    m4_law = float(law.moments(4)[3])
    return TDeparture(
        delta=d / V, gamma=d / N, T=np.array(Ts), law=law, moments=moments, m4=moments[:, :, 3].mean(axis=1),
        m4_se=standard_error(moments[:, :, 3]), m4_law=m4_law,
        m4_predicted=np.array([m4_law + m4_shift(dl, gm, np.full(T, 1.0 / T)) for T in Ts]),
        lowest=extremes[:, 0].mean(axis=1), lowest_se=standard_error(extremes[:, 0]),
        highest=extremes[:, 1].mean(axis=1), highest_se=standard_error(extremes[:, 1]), ks=tuple(floors),
        edges=Bulk(d / V, d / N).support, spectra=spectra,
    )
