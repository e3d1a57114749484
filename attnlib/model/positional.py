r"""Positional correlation R = E[xi xi^T] of the class signs, each paired with a sampler that realizes it.

A :class:`SignProcess` carries the target matrix ``R`` (T x T) and draws ``(n, T)`` arrays of +-1 signs whose
correlation is exactly ``R`` in expectation, with every sign marginally +-1 with probability 1/2 (so that
E[xi_t] = 0, which the population covariance of the model needs).

Not every correlation matrix is realizable by +-1 variables. The general constructor :func:`gaussian_signs` uses
xi = sign(g), g ~ N(0, Sigma), for which R = (2/pi) arcsin(Sigma); :func:`from_correlation` inverts this and
raises a ValueError when sin(pi R / 2) is not positive semidefinite (R not realizable this way).

From data, :func:`estimate` takes observed sign sequences: R is their empirical correlation, and the sampler
redraws the observed sequences (each with a random overall sign, so that E[xi_t] = 0).

Most processes also know their exact law (:meth:`SignProcess.law`: every sequence with its probability), which
gives exact moments of the pooled sign w^T xi (``attnlib.model.kurtosis``); Gaussian signs have none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from math import comb
from typing import Callable

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["SignProcess", "independent", "markov", "prefix", "suffix", "blocks", "gaussian_signs",
           "from_correlation", "balanced", "squared_exponential", "Parameter", "Family", "FAMILY_RECORDS",
           "FAMILIES", "PARAMETERS", "family", "catalogue", "triangle_violation", "empirical_correlation",
           "estimate"]

#: Largest number of sequences :meth:`SignProcess.law` lists (2^20: T = 20 independent or Markov signs).
LAW_MAX_SEQUENCES = 2**20


@dataclass(frozen=True)
class SignProcess:
    """A law of +-1 sign sequences of length T with positional correlation ``R``.

    Call :meth:`sample` with an explicit ``numpy.random.Generator``. The sampler is a module-level function
    with its parameters bound (``functools.partial``), so a process (and a Setting holding it) can be pickled
    and sent to worker processes; so is ``_law`` (None when the law is not known in closed form).
    """

    name: str
    R: np.ndarray = field(repr=False)
    _sampler: Callable[[int, np.random.Generator], np.ndarray] = field(repr=False, compare=False)
    _law: Callable[[], tuple] | None = field(default=None, repr=False, compare=False)

    @property
    def T(self) -> int:
        return self.R.shape[0]

    @_v.validated(n=_v.positive_int, rng=np.random.Generator)
    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``(n, T)`` int8 array of signs in {-1, +1}. ``SignProcess.sample.__wrapped__(process, n, rng)`` is
        the engine's call, on arguments already checked."""
        return self._sampler(n, rng)

    def law(self, max_sequences: int = LAW_MAX_SEQUENCES):
        """The exact law as ``(sequences (m, T) int8, probabilities (m,))``, or None when it is not known in
        closed form (Gaussian signs) or would list more than ``max_sequences`` sequences."""
        max_sequences = _v.positive_int("max_sequences", max_sequences)
        if self._law is None or self._law.keywords.get("size", 0) > max_sequences:
            return None
        return self._law()


def _all_signs(m: int) -> np.ndarray:
    """The 2^m sequences of m signs, (2^m, m) int8, in binary order."""
    bits = (np.arange(2**m)[:, None] >> np.arange(m - 1, -1, -1)) & 1
    return (2 * bits - 1).astype(np.int8)


def _law_labelled(*, size, labels):
    """Independent signs copied to positions by ``labels`` (``size`` = 2^width sequences, equally likely)."""
    width = int(np.log2(size))
    return _all_signs(width)[:, labels], np.full(size, 1.0 / size)


def _law_markov(*, size, r):
    seqs = _all_signs(int(np.log2(size)))
    keep = (seqs[:, 1:] == seqs[:, :-1])
    return seqs, 0.5 * np.prod(np.where(keep, (1.0 + r) / 2.0, (1.0 - r) / 2.0), axis=1)


def _law_rows(*, size, rows):
    """The observed rows, each with probability 1/n (the overall sign flip leaves every even moment as is)."""
    return rows, np.full(size, 1.0 / size)


def _rademacher(rng: np.random.Generator, shape) -> np.ndarray:
    return (2 * rng.integers(0, 2, size=shape, dtype=np.int8) - 1).astype(np.int8)


def independent(T: int) -> SignProcess:
    """Independent signs: R = I."""
    T = _v.positive_int("T", T)
    return SignProcess(f"independent(T={T})", np.eye(T), partial(_sample_independent, T=T),
                       partial(_law_labelled, size=2**T, labels=np.arange(T)))


def _sample_independent(n, rng, *, T):
    return _rademacher(rng, (n, T))


def markov(T: int, r: float) -> SignProcess:
    """Markov sign chain with R_ts = r^|t-s|: keep the previous sign with probability (1+r)/2."""
    T = _v.positive_int("T", T)
    r = _v.probability_like("r", r, -1.0, 1.0)
    lags = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    R = np.power(r, lags, dtype=float)  # 0**0 = 1 keeps the unit diagonal at r = 0
    return SignProcess(f"markov(T={T}, r={r:g})", R, partial(_sample_markov, T=T, r=r),
                       partial(_law_markov, size=2**T, r=r))


def _sample_markov(n, rng, *, T, r):
    first = _rademacher(rng, (n, 1))
    if T == 1:
        return first
    flips = np.where(rng.random((n, T - 1)) < (1.0 + r) / 2.0, 1, -1).astype(np.int8)
    return (first * np.cumprod(np.concatenate([np.ones((n, 1), np.int8), flips], axis=1), axis=1)).astype(np.int8)


def blocks(sizes) -> SignProcess:
    """Consecutive blocks of the given sizes; positions in a block share one sign, blocks are independent."""
    sizes = [_v.positive_int("sizes[i]", s) for s in np.atleast_1d(sizes).tolist()]
    if not sizes:
        raise ValueError("sizes must be a non-empty list of block sizes (positive integers), got an empty one")
    labels = np.repeat(np.arange(len(sizes)), sizes)
    R = (labels[:, None] == labels[None, :]).astype(float)
    return SignProcess(f"blocks({sizes})", R, partial(_sample_labelled, width=len(sizes), labels=labels),
                       partial(_law_labelled, size=2 ** len(sizes), labels=labels))


def _sample_labelled(n, rng, *, width, labels):
    """``width`` independent signs per row, copied to the positions by ``labels``."""
    return _rademacher(rng, (n, width))[:, labels]


def _block_at(T: int, L: int, start: int, name: str) -> SignProcess:
    labels = np.arange(T)
    labels[start : start + L] = start
    R = (labels[:, None] == labels[None, :]).astype(float)
    compact = np.unique(labels, return_inverse=True)[1]  # labels 0..T-L, for the law
    return SignProcess(name, R, partial(_sample_labelled, width=T, labels=labels),
                       partial(_law_labelled, size=2 ** (T - L + 1), labels=compact))


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
    return SignProcess(f"balanced(T={T})", R, partial(_sample_balanced, T=T),
                       partial(_law_balanced, size=comb(T, T // 2), T=T))


def _law_balanced(*, size, T):
    seqs = np.full((size, T), -1, dtype=np.int8)
    plus = np.array(list(combinations(range(T), T // 2)))
    seqs[np.arange(size)[:, None], plus] = 1
    return seqs, np.full(size, 1.0 / size)


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


@dataclass(frozen=True)
class Parameter:
    """A parameter of named families: its explorer slider (``kind`` "float" or "int"; ``high`` may name another
    field, as "T"), its default (on the slider's grid), its label and its help text."""

    name: str
    kind: str
    low: float
    high: float | str
    step: float
    default: float
    label: str
    help: str


@dataclass(frozen=True)
class Family:
    """A named family of :func:`family` (the explorers' choices): its help text, its parameters and the
    constructor ``build(T, **parameters)`` of its process. The explorers' controls derive from these records."""

    name: str
    help: str
    params: tuple
    build: Callable[..., SignProcess] = field(repr=False)


def _block_length(T, L):
    L = _v.positive_int("L", L)
    if L > T:
        raise ValueError(f"L must be between 1 and T = {T}, got {L}")
    return L


def _blocks_of(T, L):
    return blocks([L] * (T // L) + ([T % L] if T % L else []))


_R = Parameter("r", "float", 0.0, 0.95, 0.05, 0.6, "r", "Markov correlation: R_ts = r^|t-s|")
_L = Parameter("L", "int", 1, "T", 1, 4, "L", "length of the prefix, suffix or blocks of shared signs")
#: The named families, in the explorers' order. A new family is one more record here (and its R in
#: ``_ext/web/attnlib-theory-families.js``, checked against this one by tests/browser/test_js_theory.py).
FAMILY_RECORDS = (
    Family("independent", "R = I", (), lambda T: independent(T)),
    Family("markov", "R_ts = r^|t-s|", (_R,), lambda T, r: markov(T, r)),
    Family("prefix", "first L positions share a sign", (_L,), lambda T, L: prefix(T, _block_length(T, L))),
    Family("suffix", "last L positions share a sign", (_L,), lambda T, L: suffix(T, _block_length(T, L))),
    Family("blocks", "blocks of L positions share a sign", (_L,), lambda T, L: _blocks_of(T, _block_length(T, L))),
)
#: The names of the families of :func:`family`, in the explorers' order.
FAMILIES = tuple(f.name for f in FAMILY_RECORDS)
#: The families' parameters by name (each declared once, shared by the families that take it).
PARAMETERS = {p.name: p for f in FAMILY_RECORDS for p in f.params}
if any(p is not PARAMETERS[p.name] for f in FAMILY_RECORDS for p in f.params):
    raise ValueError("two families declare different parameters of one name")


def family(name: str, T: int, **params) -> SignProcess:
    """The sign process of a named family (:data:`FAMILY_RECORDS`): independent, markov (parameter r in
    [-1, 1], as :func:`markov`), prefix / suffix (the first / last L positions share a sign) or blocks
    (consecutive blocks of L positions, the last one shorter if L does not divide T). A parameter not given
    takes its default; the parameters of other families are ignored."""
    record = FAMILY_RECORDS[FAMILIES.index(_v.choice("family", name, FAMILIES))]
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"family() has no parameter {', '.join(map(repr, unknown))}; allowed: {', '.join(PARAMETERS)}")
    T = _v.positive_int("T", T)
    return record.build(T, **{p.name: params.get(p.name, p.default) for p in record.params})


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


def estimate(xi) -> SignProcess:
    """The sign process of observed sequences ``xi``, an (n, T) array of signs -1 / +1 (n >= 2).

    R is their empirical correlation (1/n) xi^T xi (:func:`empirical_correlation`), a correlation matrix by
    construction; the sampler redraws observed rows uniformly, each times a random overall sign, so that
    E[xi_t] = 0 as the model needs (the flip leaves R and every even moment unchanged), and the exact law is
    the n rows. R carries the sampling error of n sequences (entries off by about 1/sqrt(n)).
    """
    arr = np.asarray(xi)
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ValueError(f"xi must be an (n, T) array of signs with n >= 2 sequences, got shape {arr.shape}")
    ok = np.isin(arr, (-1, 1)) & (arr.dtype != bool)
    if not np.all(ok):
        raise ValueError(f"xi must hold only the signs -1 and +1, got also {np.unique(arr[~ok])[:5].tolist()}")
    rows = arr.astype(np.int8)
    n, T = rows.shape
    return SignProcess(f"estimate(n={n}, T={T})", empirical_correlation(rows), partial(_sample_rows, rows=rows),
                       partial(_law_rows, size=n, rows=rows))


def _sample_rows(n, rng, *, rows):
    picked = rows[rng.integers(0, rows.shape[0], size=n)]
    return (picked * _rademacher(rng, (n, 1))).astype(np.int8)
