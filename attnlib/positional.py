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
from typing import Callable

import numpy as np

from . import _validate as _v

__all__ = [
    "SignProcess",
    "independent",
    "markov",
    "prefix",
    "suffix",
    "blocks",
    "gaussian_signs",
    "from_correlation",
    "empirical_correlation",
]


@dataclass(frozen=True)
class SignProcess:
    """A law of +-1 sign sequences of length T with positional correlation ``R``.

    Call :meth:`sample` with an explicit ``numpy.random.Generator``.
    """

    name: str
    R: np.ndarray = field(repr=False)
    _sampler: Callable[[int, np.random.Generator], np.ndarray] = field(repr=False, compare=False)

    @property
    def T(self) -> int:
        return self.R.shape[0]

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, T)`` int8 array of signs in {-1, +1}."""
        n = _v.positive_int("n", n)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), got {rng!r}")
        return self._sampler(n, rng)


def _rademacher(rng: np.random.Generator, shape) -> np.ndarray:
    return (2 * rng.integers(0, 2, size=shape, dtype=np.int8) - 1).astype(np.int8)


def independent(T: int) -> SignProcess:
    """Independent signs: R = I."""
    T = _v.positive_int("T", T)
    return SignProcess(f"independent(T={T})", np.eye(T), lambda n, rng: _rademacher(rng, (n, T)))


def markov(T: int, r: float) -> SignProcess:
    """Markov sign chain with R_ts = r^|t-s|: keep the previous sign with probability (1+r)/2."""
    T = _v.positive_int("T", T)
    r = _v.probability_like("r", r, -1.0, 1.0)
    lags = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    R = np.power(r, lags, dtype=float)  # 0**0 = 1 keeps the unit diagonal at r = 0

    def sampler(n, rng):
        first = _rademacher(rng, (n, 1))
        if T == 1:
            return first
        flips = np.where(rng.random((n, T - 1)) < (1.0 + r) / 2.0, 1, -1).astype(np.int8)
        return (first * np.cumprod(np.concatenate([np.ones((n, 1), np.int8), flips], axis=1), axis=1)).astype(
            np.int8
        )

    return SignProcess(f"markov(T={T}, r={r:g})", R, sampler)


def blocks(sizes) -> SignProcess:
    """Consecutive blocks of the given sizes; positions in a block share one sign, blocks are independent."""
    sizes = [_v.positive_int("sizes[i]", s) for s in np.atleast_1d(sizes).tolist()]
    T = int(sum(sizes))
    labels = np.repeat(np.arange(len(sizes)), sizes)
    R = (labels[:, None] == labels[None, :]).astype(float)

    def sampler(n, rng):
        return _rademacher(rng, (n, len(sizes)))[:, labels]

    return SignProcess(f"blocks({sizes})", R, sampler)


def _block_at(T: int, L: int, start: int, name: str) -> SignProcess:
    labels = np.arange(T)
    labels[start : start + L] = start
    R = (labels[:, None] == labels[None, :]).astype(float)

    def sampler(n, rng):
        return _rademacher(rng, (n, T))[:, labels]

    return SignProcess(name, R, sampler)


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

    def sampler(n, rng):
        g = rng.standard_normal((n, T)) @ factor.T
        return np.where(g >= 0, 1, -1).astype(np.int8)

    return SignProcess(f"gaussian_signs(T={T})", R, sampler)


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


def empirical_correlation(xi) -> np.ndarray:
    """(1/n) xi^T xi for an (n, T) array of signs: the Monte-Carlo estimate of R."""
    xi = np.asarray(xi)
    if xi.ndim != 2 or xi.shape[0] == 0:
        raise ValueError(f"xi must be a non-empty (n, T) array, got shape {xi.shape}")
    xf = xi.astype(float)
    return xf.T @ xf / xf.shape[0]
