r"""A catalogue of positional-correlation families, realizability checks, and alpha/kappa across weightings.

Every family is a :class:`~attnlib.positional.SignProcess` (target R plus a sampler). Besides those of
:mod:`attnlib.positional` this module adds :func:`balanced` (exactly half the positions of each sign, a
negatively correlated law that Gaussian signs cannot realize), :func:`catalogue` (the families the book
compares), :func:`triangle_violation` (a certificate that *no* +-1 process has a given R), closed forms for
the prefix model, and :func:`snr_table` (alpha/kappa of mean / causal / optimal pooling for many families).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from . import _validate as _v
from . import positional as _p
from . import weights as _w
from .positional import SignProcess

__all__ = [
    "balanced",
    "squared_exponential",
    "catalogue",
    "triangle_violation",
    "prefix_snr_mean",
    "prefix_snr_optimal",
    "prefix_gain",
    "prefix_snr",
    "weightings",
    "snr_table",
    "prefix_crossover",
]


def balanced(T: int) -> SignProcess:
    """Exactly T/2 signs +1 and T/2 signs -1, in uniformly random order (T even).

    Every sign is +-1 with probability 1/2 and, because sum_t xi_t = 0 always, R_ts = -1/(T-1) for s != t:
    R = (T I - 1 1^T)/(T - 1). Its top eigenvalue T/(T-1) has the (T-1)-dimensional eigenspace of vectors
    summing to 0, and mean pooling sees no signal at all (alpha = 0). For T >= 4, sin(pi R/2) is not positive
    semidefinite, so this R is realizable by +-1 signs but not by Gaussian signs.
    """
    T = _v.positive_int("T", T, minimum=2)
    if T % 2:
        raise ValueError(f"T must be even (T/2 signs of each kind), got {T}")
    R = (T * np.eye(T) - np.ones((T, T))) / (T - 1)

    def sampler(n, rng):
        ranks = np.argsort(rng.random((n, T)), axis=1)  # a uniformly random permutation per row
        return np.where(ranks < T // 2, 1, -1).astype(np.int8)

    return SignProcess(f"balanced(T={T})", R, sampler)


def squared_exponential(T: int, length: float) -> SignProcess:
    """Gaussian signs with a smooth kernel Sigma_ts = exp(-(t-s)^2 / (2 length^2)); R = (2/pi) arcsin(Sigma)."""
    T = _v.positive_int("T", T)
    length = _v.positive("length", length)
    t = np.arange(T, dtype=float)
    Sigma = np.exp(-np.subtract.outer(t, t) ** 2 / (2.0 * length**2))
    proc = _p.gaussian_signs(Sigma)
    return SignProcess(f"squared_exponential(T={T}, length={length:g})", proc.R, proc._sampler)


def catalogue(T: int = 16) -> dict[str, SignProcess]:
    """The families the book compares, at length T (T >= 8, a multiple of 4), keyed by a short name.

    independent; Markov r = 0.6; prefix and suffix with L = T/4; three blocks (3/16, 1/2, 5/16 of T) with the
    largest in the middle; Gaussian signs with a squared-exponential kernel of length T/4.
    """
    T = _v.positive_int("T", T, minimum=8)
    if T % 4:
        raise ValueError(f"T must be a multiple of 4 (prefix/suffix of T/4, blocks of 3T/16, T/2, 5T/16), got {T}")
    L = T // 4
    sizes = [round(3 * T / 16), T // 2]
    sizes.append(T - sum(sizes))
    return {
        "independent": _p.independent(T),
        "Markov r=0.6": _p.markov(T, 0.6),
        f"prefix L={L}": _p.prefix(T, L),
        f"suffix L={L}": _p.suffix(T, L),
        f"blocks {sizes}": _p.blocks(sizes),
        f"Gaussian signs, SE length {T // 4}": squared_exponential(T, T / 4),
    }


def triangle_violation(R) -> float:
    r"""Largest violation of the triangle inequalities that every +-1 correlation matrix satisfies.

    For signs a, b, c in {+-1}, ab + bc + ca >= -1 (at least two of the three agree), and the same with any two
    of the three flipped. Taking expectations, every R realizable by a +-1 process satisfies, for all triples,

        R_ij + R_jk + R_ik >= -1,   R_ij - R_jk - R_ik >= -1,   -R_ij + R_jk - R_ik >= -1,   -R_ij - R_jk + R_ik >= -1.

    Returns max over triples and the four inequalities of (-1 - left side), clipped at 0: a positive value
    proves that no +-1 process has correlation R (0 does not prove the converse).
    """
    R = _v.correlation_matrix("R", R)
    T = R.shape[0]
    if T < 3:
        return 0.0
    i, j, k = np.array(list(combinations(range(T), 3))).T
    a, b, c = R[i, j], R[j, k], R[i, k]
    lhs = np.stack([a + b + c, a - b - c, -a + b - c, -a - b + c])
    return float(max(0.0, np.max(-1.0 - lhs)))


def prefix_snr_mean(T, L):
    """alpha/kappa of mean pooling in the prefix model: (L^2 + T - L)/T = 1 + L(L-1)/T (vectorised in L, T)."""
    T, L = np.asarray(T, dtype=float), np.asarray(L, dtype=float)
    if np.any(L < 1) or np.any(L > T):
        raise ValueError(f"L must satisfy 1 <= L <= T, got L = {L}, T = {T}")
    return 1.0 + L * (L - 1.0) / T


def prefix_snr_optimal(T, L):
    """alpha/kappa of the optimal weights in the prefix model: lambda_max(R) = max(L, 1) = L."""
    T, L = np.asarray(T, dtype=float), np.asarray(L, dtype=float)
    if np.any(L < 1) or np.any(L > T):
        raise ValueError(f"L must satisfy 1 <= L <= T, got L = {L}, T = {T}")
    return L + 0.0 * T


def prefix_gain(T, L):
    """Optimal over mean pooling in the prefix model: L / (1 + L(L-1)/T); tends to T/L for L, T large, L/T fixed."""
    return prefix_snr_optimal(T, L) / prefix_snr_mean(T, L)


def prefix_snr(w, L):
    """alpha/kappa of weights ``w`` in the prefix model of length T = len(w) with prefix length(s) ``L``.

    R is 1 on the first L x L block and the identity elsewhere, so alpha = (sum_{t<L} w_t)^2 + sum_{t>=L} w_t^2
    without building R; vectorised over an array of L.
    """
    w = _w.as_weights(w)
    L_arr = np.asarray(L)
    if not np.issubdtype(L_arr.dtype, np.integer) or np.any(L_arr < 1) or np.any(L_arr > w.size):
        raise ValueError(f"L must be integers with 1 <= L <= T = {w.size}, got {L!r}")
    head = np.concatenate([[0.0], np.cumsum(w)])[L_arr]
    tail = np.concatenate([np.cumsum((w * w)[::-1])[::-1], [0.0]])[L_arr]
    return (head**2 + tail) / (w @ w)


def weightings(R, taus=(0.0,), *, strict: bool = False) -> dict[str, np.ndarray]:
    """Mean, causal (one per tau) and optimal weights for R (optimal normalised to unit norm: alpha/kappa does
    not depend on the scale, and this also covers R whose optimal weights sum to 0)."""
    R = _v.correlation_matrix("R", R)
    T = R.shape[0]
    out = {"mean": _w.mean(T)}
    for tau in taus:
        out[f"causal tau={tau:g}" + (" strict" if strict else "")] = _w.causal(T, tau, strict=strict)
    out["optimal"] = _w.optimal(R, normalize="norm")
    return out


def snr_table(processes: dict, taus=(0.0,)) -> tuple[list[str], list[list]]:
    """alpha/kappa of mean, causal(tau) for each tau, and optimal weights, for each named process.

    Returns (headers, rows); each row is [name, lambda_max(R), alpha/kappa for each weighting...].
    """
    headers = None
    rows = []
    for name, proc in processes.items():
        if not isinstance(proc, SignProcess):
            raise ValueError(f"processes must map names to SignProcess, got {proc!r} for {name!r}")
        ws = weightings(proc.R, taus)
        if headers is None:
            headers = ["family", "λ_max(R)"] + list(ws)
        rows.append([name, float(np.linalg.eigvalsh(proc.R)[-1])] + [_w.snr(w, proc.R) for w in ws.values()])
    if headers is None:
        raise ValueError("processes must not be empty")
    return headers, rows


def prefix_crossover(T: int, tau: float = 0.0, *, strict: bool = False) -> int:
    """Largest prefix length L at which causal pooling (limit weights) has a larger alpha/kappa than mean pooling.

    Causal weights decrease along the sequence, so they favour a short correlated prefix; once the prefix
    covers most of the sequence, mean pooling (optimal for L = T) wins. Returns 1 if causal never wins.
    """
    T = _v.positive_int("T", T, minimum=2)
    w = _w.causal(T, tau, strict=strict)
    best = 1
    for L in range(2, T + 1):
        if _w.snr(w, _p.prefix(T, L).R) > prefix_snr_mean(T, L) + 1e-12:
            best = L
    return best
