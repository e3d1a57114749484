r"""Positional correlation R = E[xi xi^T] of the class signs, each paired with a sampler that realizes it.

A :class:`SignProcess` carries the target matrix ``R`` (T x T) and draws ``(n, T)`` arrays of +-1 signs whose
correlation is exactly ``R`` in expectation, with every sign marginally +-1 with probability 1/2 (so that
E[xi_t] = 0, which the population covariance of the model needs).

Not every correlation matrix is realizable by +-1 variables. The general constructor :func:`gaussian_signs` uses
xi = sign(g), g ~ N(0, Sigma), for which R = (2/pi) arcsin(Sigma); :func:`from_correlation` inverts this and
raises a ValueError when sin(pi R / 2) is not positive semidefinite (R not realizable this way).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import Callable

import numpy as np

from attnlib.numerics import checks as _v

__all__ = [
    "SignProcess",
    "independent",
    "markov",
    "prefix",
    "suffix",
    "blocks",
    "gaussian_signs",
    "from_correlation",
    "balanced",
    "squared_exponential",
    "FAMILIES",
    "family",
    "catalogue",
    "triangle_violation",
    "empirical_correlation",
]


@dataclass(frozen=True)
class SignProcess:
    """A law of +-1 sign sequences of length T with positional correlation ``R``.

    Call :meth:`sample` with an explicit ``numpy.random.Generator``. The sampler is a module-level function
    with its parameters bound (``functools.partial``), so a process (and a Setting holding it) can be pickled
    and sent to worker processes.
    """

    name: str
    R: np.ndarray = field(repr=False)
    _sampler: Callable[[int, np.random.Generator], np.ndarray] = field(repr=False, compare=False)

    @property
    def T(self) -> int:
        return self.R.shape[0]

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, T)`` int8 array of signs in {-1, +1}."""
        return self.draw(_v.positive_int("n", n), _v.rng(rng))

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """:meth:`sample` on trusted arguments (a positive int and a Generator): the engine's call."""
        return self._sampler(n, rng)


def _rademacher(rng: np.random.Generator, shape) -> np.ndarray:
    return (2 * rng.integers(0, 2, size=shape, dtype=np.int8) - 1).astype(np.int8)


def independent(T: int) -> SignProcess:
    """Independent signs: R = I."""
    T = _v.positive_int("T", T)
    return SignProcess(f"independent(T={T})", np.eye(T), partial(_sample_independent, T=T))


def _sample_independent(n, rng, *, T):
    return _rademacher(rng, (n, T))


def markov(T: int, r: float) -> SignProcess:
    """Markov sign chain with R_ts = r^|t-s|: keep the previous sign with probability (1+r)/2."""
    T = _v.positive_int("T", T)
    r = _v.probability_like("r", r, -1.0, 1.0)
    lags = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    R = np.power(r, lags, dtype=float)  # 0**0 = 1 keeps the unit diagonal at r = 0
    return SignProcess(f"markov(T={T}, r={r:g})", R, partial(_sample_markov, T=T, r=r))


def _sample_markov(n, rng, *, T, r):
    first = _rademacher(rng, (n, 1))
    if T == 1:
        return first
    flips = np.where(rng.random((n, T - 1)) < (1.0 + r) / 2.0, 1, -1).astype(np.int8)
    return (first * np.cumprod(np.concatenate([np.ones((n, 1), np.int8), flips], axis=1), axis=1)).astype(np.int8)


def blocks(sizes) -> SignProcess:
    """Consecutive blocks of the given sizes; positions in a block share one sign, blocks are independent."""
    sizes = [_v.positive_int("sizes[i]", s) for s in np.atleast_1d(sizes).tolist()]
    labels = np.repeat(np.arange(len(sizes)), sizes)
    R = (labels[:, None] == labels[None, :]).astype(float)
    return SignProcess(f"blocks({sizes})", R, partial(_sample_labelled, width=len(sizes), labels=labels))


def _sample_labelled(n, rng, *, width, labels):
    """``width`` independent signs per row, copied to the positions by ``labels``."""
    return _rademacher(rng, (n, width))[:, labels]


def _block_at(T: int, L: int, start: int, name: str) -> SignProcess:
    labels = np.arange(T)
    labels[start : start + L] = start
    R = (labels[:, None] == labels[None, :]).astype(float)
    return SignProcess(name, R, partial(_sample_labelled, width=T, labels=labels))


def prefix(T: int, L: int) -> SignProcess:
    """Prefix model: the first L positions share one sign, the other T - L are independent."""
    T = _v.positive_int("T", T)
    L = _v.positive_int("L", L)
    if L > T:
        raise ValueError(f"L must be between 1 and T = {T}, got {L}")
    return _block_at(T, L, 0, f"prefix(T={T}, L={L})")


def suffix(T: int, L: int) -> SignProcess:
    """Suffix model: the last L positions share one sign, the first T - L are independent."""
    T = _v.positive_int("T", T)
    L = _v.positive_int("L", L)
    if L > T:
        raise ValueError(f"L must be between 1 and T = {T}, got {L}")
    return _block_at(T, L, T - L, f"suffix(T={T}, L={L})")


def _psd_factor(name: str, Sigma: np.ndarray) -> np.ndarray:
    lam, vec = np.linalg.eigh(Sigma)
    if lam[0] < -1e-8 * Sigma.shape[0]:
        raise ValueError(f"{name} must be positive semidefinite, got smallest eigenvalue {lam[0]:.3g}")
    return vec * np.sqrt(np.clip(lam, 0.0, None))


def gaussian_signs(Sigma) -> SignProcess:
    """Signs of a centred Gaussian vector with correlation ``Sigma``: R = (2/pi) arcsin(Sigma)."""
    Sigma = _v.correlation_matrix("Sigma", Sigma)
    factor = _psd_factor("Sigma", Sigma)
    T = Sigma.shape[0]
    R = (2.0 / np.pi) * np.arcsin(np.clip(Sigma, -1.0, 1.0))
    return SignProcess(f"gaussian_signs(T={T})", R, partial(_sample_gaussian, factor=factor))


def _sample_gaussian(n, rng, *, factor):
    g = rng.standard_normal((n, factor.shape[0])) @ factor.T
    return np.where(g >= 0, 1, -1).astype(np.int8)


def from_correlation(R) -> SignProcess:
    """Sign process with correlation exactly ``R``, through Gaussian signs with Sigma = sin(pi R / 2).

    Raises ValueError if R is not a correlation matrix, or if sin(pi R/2) is not positive semidefinite
    (then no Gaussian-sign process realizes R; some such R are realizable by no +-1 process at all).
    """
    R = _v.correlation_matrix("R", R)
    Sigma = np.sin(np.pi * R / 2.0)
    lam_min = float(np.linalg.eigvalsh(Sigma)[0])
    if lam_min < -1e-8 * R.shape[0]:
        raise ValueError(
            "R is not realizable by Gaussian signs: sin(pi R / 2) must be positive semidefinite, "
            f"got smallest eigenvalue {lam_min:.3g}"
        )
    proc = gaussian_signs(Sigma)
    return SignProcess(f"from_correlation(T={R.shape[0]})", R, proc._sampler)


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
    return SignProcess(f"balanced(T={T})", R, partial(_sample_balanced, T=T))


def _sample_balanced(n, rng, *, T):
    ranks = np.argsort(rng.random((n, T)), axis=1)  # a uniformly random permutation per row
    return np.where(ranks < T // 2, 1, -1).astype(np.int8)


def squared_exponential(T: int, length: float) -> SignProcess:
    """Gaussian signs with a smooth kernel Sigma_ts = exp(-(t-s)^2 / (2 length^2)); R = (2/pi) arcsin(Sigma)."""
    T = _v.positive_int("T", T)
    length = _v.positive("length", length)
    t = np.arange(T, dtype=float)
    Sigma = np.exp(-np.subtract.outer(t, t) ** 2 / (2.0 * length**2))
    proc = gaussian_signs(Sigma)
    return SignProcess(f"squared_exponential(T={T}, length={length:g})", proc.R, proc._sampler)


#: The named families of :func:`family` (the explorers' choices).
FAMILIES = ("independent", "markov", "prefix", "suffix", "blocks")


def family(name: str, T: int, r: float = 0.6, L: int = 4) -> SignProcess:
    """The sign process of a named family: independent, markov (parameter r in [0, 0.99]), prefix / suffix
    (the first / last L positions share a sign) or blocks (consecutive blocks of L positions, the last one
    shorter if L does not divide T)."""
    name = _v.choice("family", name, FAMILIES)
    T = _v.positive_int("T", T)
    if name == "independent":
        return independent(T)
    if name == "markov":
        return markov(T, _v.probability_like("r", r, 0.0, 0.99))
    L = _v.positive_int("L", L)
    if L > T:
        raise ValueError(f"L must be between 1 and T = {T}, got {L}")
    if name == "prefix":
        return prefix(T, L)
    if name == "suffix":
        return suffix(T, L)
    return blocks([L] * (T // L) + ([T % L] if T % L else []))


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
        "independent": independent(T),
        "Markov r=0.6": markov(T, 0.6),
        f"prefix L={L}": prefix(T, L),
        f"suffix L={L}": suffix(T, L),
        f"blocks {sizes}": blocks(sizes),
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


def empirical_correlation(xi) -> np.ndarray:
    """(1/n) xi^T xi for an (n, T) array of signs: the Monte-Carlo estimate of R."""
    xi = np.asarray(xi)
    if xi.ndim != 2 or xi.shape[0] == 0:
        raise ValueError(f"xi must be a non-empty (n, T) array, got shape {xi.shape}")
    xf = xi.astype(float)
    return xf.T @ xf / xf.shape[0]
