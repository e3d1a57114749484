r"""The generative model: vocabulary table and token sampling (the pooling is :mod:`attnlib.model.pooling`).

* Vocabulary: V embeddings e_v = s_v mu + z_v in R^d, balanced classes s_v = +1 (first V/2 tokens) and
  s_v = -1 (last V/2), z_v ~ N(0, I_d), mu = sqrt(||mu||^2) e_1 (the direction is irrelevant by rotation
  invariance of the noise). The table is stored row-wise, shape (V, d), as an embedding table is.
* Sequences: class signs xi_n in {+-1}^T from a :class:`~attnlib.model.positional.SignProcess`; the token at position
  t is uniform in the class of sign xi_{n,t}.
* Departures from that model, one place each (:class:`ModelOptions`): the law of the noise entries and a noise
  covariance Sigma (z_v = Sigma^{1/2} x_v, :mod:`attnlib.model.noise`), used by :func:`draw_vocabulary`, and
  within-class token frequencies, used by :func:`sample_tokens` (which also draws K > 2 classes from labels,
  see :mod:`attnlib.model.k_classes`). Without options every function draws exactly what it always drew.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.numerics import randomness
from attnlib.numerics.linalg import usable_cores
from attnlib.model.variants import ModelOptions, check_frequencies
from attnlib.model.positional import SignProcess

__all__ = [
    "ModelOptions",
    "Vocabulary",
    "draw_rows",
    "fill_rows",
    "fill_table",
    "draw_vocabulary",
    "sample_tokens",
    "draw_tokens",
    "population_covariance",
]


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """A drawn embedding table ``table`` (V, d) with signal ``mu`` (d,) and class signs ``signs`` (V,).

    ``table`` is float64 or float32. ``centroids``, when given, holds ``(E^T s, E^T 1)`` (weighted by V times
    the token frequencies, if any) accumulated in double precision from the double-precision draws
    (:func:`draw_vocabulary` fills it for a float32 table), so that h and g do not depend on the precision of
    the table. ``frequencies``: the probability of each token at a position (V,), or None (uniform, 1/V).
    """

    table: np.ndarray = field(repr=False)
    mu: np.ndarray = field(repr=False)
    signs: np.ndarray = field(repr=False)
    centroids: tuple | None = field(default=None, repr=False)
    frequencies: np.ndarray | None = field(default=None, repr=False)

    @property
    def V(self) -> int:
        return self.table.shape[0]

    @property
    def d(self) -> int:
        return self.table.shape[1]

    @property
    def mu_norm2(self) -> float:
        return float(self.mu @ self.mu)

    @property
    def u(self) -> np.ndarray:
        """The signal direction mu/||mu||; all ``nan`` when mu = 0, where there is no signal direction (so every
        overlap with u is ``nan`` there, never the overlap with an arbitrary direction)."""
        n = np.linalg.norm(self.mu)
        return self.mu / n if n > 0 else np.full(self.d, np.nan)

    @property
    def noise(self) -> np.ndarray:
        """Z^T, the (V, d) noise rows z_v = e_v - s_v mu (a new double-precision array)."""
        return self.table - np.outer(self.signs, self.mu)

    def _sums(self) -> tuple[np.ndarray, np.ndarray]:
        """(E^T s, E^T 1) in double precision: cached, one BLAS product each (float64 table), or by row blocks.

        With token frequencies pi, (E^T (V pi s), E^T (V pi)).
        """
        if self.centroids is not None:
            return self.centroids
        s = self.signs.astype(float)
        if self.frequencies is not None:
            omega = self.V * self.frequencies
            return _row_sums(self.table, s * omega, omega)
        if self.table.dtype == np.float64:
            return s @ self.table, np.ones(self.V) @ self.table
        return _row_sums(self.table, s)

    @property
    def h(self) -> np.ndarray:
        """Class centroid h = E s / V = mu + Z s / V (the recoverable direction), ||h||^2 ~ ||mu||^2 + delta.

        With token frequencies pi: h = sum_v pi_v s_v e_v = mu + q, q = sum_v pi_v s_v z_v.
        """
        return self._sums()[0] / self.V

    @property
    def q(self) -> np.ndarray:
        """Class-centroid shift q = Z s / V, ||q||^2 ~ delta (with frequencies pi, ||q||^2 ~ d sum_v pi_v^2)."""
        return self.h - self.mu

    @property
    def g(self) -> np.ndarray:
        """Vocabulary mean g = E 1 / V = Z 1 / V (balanced classes), ||g||^2 ~ delta (with frequencies, E pi)."""
        if self.centroids is None and self.table.dtype == np.float64 and self.frequencies is None:
            return self.table.mean(axis=0)
        return self._sums()[1] / self.V

    def directions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(u, h, g), the directions top eigenvectors are compared with; h and g as E^T s / V and E^T 1 / V."""
        hs, gs = self._sums()
        return self.u, hs / self.V, gs / self.V


#: Size of the double-precision row blocks of :func:`draw_rows` (and of the sums over a table's rows).
_BLOCK_BYTES = 2**20
#: Entries of one row block of the book's table (64 MiB in single precision): block j is drawn from stream j
#: of :func:`attnlib.numerics.randomness.spawned`, so the table does not depend on the threads that fill it.
FILL_ENTRIES = 2**24
_SUB_ENTRIES = 2**20  # a block is filled and summed by sub-blocks of 4 MiB, while they sit in the cache


def _block_rows(d: int) -> int:
    return max(1, _BLOCK_BYTES // (8 * d))


def fill_rows(d: int) -> int:
    """Rows per block of the book's table at dimension ``d`` (a function of d only)."""
    return max(1, FILL_ENTRIES // d)


def _fill_block(table: np.ndarray, rows: slice, stream, half: int, mu0: float) -> tuple[np.ndarray, np.ndarray]:
    """Fill ``table[rows]`` with float32 standard normals from ``stream``, add s_v mu to the first column, and
    return the double-precision sums of its rows of class +1 and of class -1 (the first ``half`` rows are +1)."""
    gen = randomness.generator(stream)
    d = table.shape[1]
    step = max(1, _SUB_ENTRIES // d)
    temp = None if table.dtype == np.float32 else np.empty((min(step, rows.stop - rows.start), d), np.float32)
    plus, minus = np.zeros(d), np.zeros(d)
    for a in range(rows.start, rows.stop, step):
        b = min(rows.stop, a + step)
        block = table[a:b]
        if temp is None:
            gen.standard_normal(out=block, dtype=np.float32)
        else:
            block[...] = gen.standard_normal(out=temp[: b - a], dtype=np.float32)
        signs = np.where(np.arange(a, b) < half, 1.0, -1.0)
        block[:, 0] = block[:, 0].astype(np.float64) + signs * mu0  # rounded once into a float32 table
        cut = min(max(half, a), b) - a
        plus += block[:cut].sum(axis=0, dtype=np.float64)
        minus += block[cut:].sum(axis=0, dtype=np.float64)
    return plus, minus


def fill_table(table: np.ndarray, rng: np.random.Generator, mu0: float, workers: int = 1):
    """Fill the (V, d) ``table`` with e_v = s_v mu + z_v (mu = mu0 e_1) and return (E^T s, E^T 1).

    The noise is float32 normals drawn by row blocks of :func:`fill_rows` rows, block j from stream j of
    ``spawned(rng, blocks)`` (``rng`` advances by one draw), on ``workers`` threads (numpy releases the GIL
    while it fills an array). The first column adds s_v mu0 in double precision; a float32 table is the float64
    one rounded. The sums run by block, in double precision, and add up in block order: table and sums are
    the same for any number of threads. Arguments are assumed validated.
    """
    V, d = table.shape
    step = fill_rows(d)
    starts = range(0, V, step)
    streams = randomness.spawned(rng, len(starts))

    def job(j):
        return _fill_block(table, slice(starts[j], min(V, starts[j] + step)), streams[j], V // 2, mu0)

    hs, gs = np.zeros(d), np.zeros(d)
    threads = min(workers, len(starts))
    with ThreadPoolExecutor(threads) if threads > 1 else nullcontext() as pool:
        for plus, minus in (pool.map if threads > 1 else map)(job, range(len(starts))):
            hs += plus - minus
            gs += plus + minus
    return hs, gs


def _row_sums(table: np.ndarray, s: np.ndarray, ones: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(table^T s, table^T 1) accumulated in double precision by row blocks (no full float64 copy).

    ``ones``: a vector to use in place of 1 (token weights).
    """
    hs, gs = np.zeros(table.shape[1]), np.zeros(table.shape[1])
    step = _block_rows(table.shape[1])
    for a in range(0, table.shape[0], step):
        block = table[a : a + step].astype(np.float64)
        hs += s[a : a + step] @ block
        gs += block.sum(axis=0) if ones is None else ones[a : a + step] @ block
    return hs, gs


def draw_rows(V: int, d: int, rng: np.random.Generator, options: "ModelOptions", offset: np.ndarray,
              weights: np.ndarray, dtype=np.float64) -> tuple[np.ndarray, np.ndarray]:
    """A (V, d) table drawn by double-precision row blocks: noise rows ``options.noise`` times Sigma^{1/2},
    plus the rows of ``offset`` (V, m) in the first m columns; returns it (in ``dtype``) and
    ``weights^T table`` (weights (V, r)), accumulated in double precision from the double-precision rows.

    The noise is drawn row after row, so the numbers do not depend on ``dtype`` or on the block size.
    Arguments are assumed validated (the caller's).
    """
    table = np.empty((V, d), dtype)
    step = _block_rows(d)
    buf = np.empty((min(step, V), d))
    sums = np.zeros((weights.shape[1], d))
    m = offset.shape[1]
    for a in range(0, V, step):
        block = options.noise.fill(buf[: min(step, V - a)], rng)
        if options.root is not None:
            block = block * options.root if options.root.ndim == 1 else block @ options.root
        rows = slice(a, a + block.shape[0])
        block[:, :m] += offset[rows]
        sums += weights[rows].T @ block
        table[rows] = block
    return table, sums


def _dtype(name: str, value):
    if np.dtype(value) not in (np.float64, np.float32):
        raise ValueError(f"{name} must be numpy.float64 or numpy.float32, got {value!r}")
    return value


def _check_options(arguments) -> None:
    if arguments["options"] is not None:
        arguments["options"].check(arguments["d"], arguments["V"])


@_v.validated(_check_options, d=_v.positive_int, V=partial(_v.positive_int, even=True, minimum=2),
              mu_norm2=_v.nonnegative, rng=np.random.Generator, dtype=_dtype, options=_v.optional(ModelOptions),
              workers=_v.optional(_v.positive_int))
def draw_vocabulary(d: int, V: int, mu_norm2: float, rng: np.random.Generator, *,
                    dtype=np.float64, options: ModelOptions | None = None, workers: int | None = None) -> Vocabulary:
    """Draw the table e_v = s_v mu + z_v, v = 1..V, with V/2 tokens per class.

    ``draw_vocabulary.__wrapped__`` is the engine's call, on the sizes of a checked Setting.

    Parameters
    ----------
    d, V : int
        Dimension and vocabulary size (V even).
    mu_norm2 : float
        ||mu||^2 (mu is along the first axis).
    rng : numpy.random.Generator
    dtype : {numpy.float64, numpy.float32}
        Precision of the table. The noise is float32 standard normals drawn by row blocks, each from its own
        stream spawned from one seed taken from ``rng`` (:func:`fill_table`), so the numbers do not depend
        on ``dtype`` (a float32 table is the float64 one rounded) nor on ``workers``; ``rng`` advances by
        that one draw. E^T s and E^T 1 are summed in double precision as the blocks are filled (kept as
        ``centroids``): no (V, d) double-precision array exists beside a float32 table.
    options : ModelOptions, optional
        Noise law, noise covariance and token frequencies (see :class:`ModelOptions`). None or the defaults:
        the book's model, drawn as above. Otherwise the table is drawn from ``rng`` by double-precision row
        blocks (:func:`draw_rows`) in either precision, h and g weighted by the token frequencies.
    workers : int, optional
        Threads that fill the book's table (default: the usable cores).

    Returns
    -------
    Vocabulary
    """
    half = V // 2
    signs = np.concatenate([np.ones(half, np.int8), -np.ones(half, np.int8)])
    mu = np.zeros(d)
    mu[0] = np.sqrt(mu_norm2)
    if options is not None and not options.is_default:
        freq = options.token_frequencies()
        omega = np.ones(V) if freq is None else V * freq
        s = signs.astype(float)
        if options.noise.is_gaussian and options.root is None:  # frequencies alone: the book's table
            table = np.empty((V, d), dtype)
            fill_table(table, rng, float(mu[0]), usable_cores() if workers is None else workers)
            hs, gs = _row_sums(table, s * omega, omega)
            return Vocabulary(table=table, mu=mu, signs=signs, centroids=(hs, gs), frequencies=freq)
        table, sums = draw_rows(V, d, rng, options, (s * mu[0])[:, None], np.stack([s * omega, omega], axis=1),
                                dtype)
        return Vocabulary(table=table, mu=mu, signs=signs, centroids=(sums[0], sums[1]), frequencies=freq)
    table = np.empty((V, d), dtype)
    hs, gs = fill_table(table, rng, float(mu[0]), usable_cores() if workers is None else workers)
    return Vocabulary(table=table, mu=mu, signs=signs, centroids=(hs, gs))


def sample_tokens(xi, V: int, rng: np.random.Generator, *, frequencies=None, classes: int | None = None) -> np.ndarray:
    """Token ids (N, T): position t uniform in the class of sign xi[n, t] (+1: 0..V/2-1, -1: V/2..V-1).

    Parameters
    ----------
    xi : array_like
        (N, T) class signs +-1, or with ``classes`` = K the class labels 0..K-1.
    V : int
        Vocabulary size (a multiple of the number of classes).
    rng : numpy.random.Generator
    frequencies : array_like, optional
        Within-class token frequencies (V / classes entries summing to 1): token k of a class is drawn with
        probability ``frequencies[k]`` (one uniform number per position). None: uniform (``rng.integers``).
    classes : int, optional
        K >= 2: ``xi`` holds labels; class k owns the tokens k V/K .. (k+1) V/K - 1 (labels 0, 1 = signs +-1).
    """
    rng = _v.rng(rng)
    xi = np.asarray(xi)
    if classes is None:
        V = _v.positive_int("V", V, even=True, minimum=2)
        if xi.ndim != 2 or not np.all(np.abs(xi) == 1):
            raise ValueError(f"xi must be an (N, T) array of +-1 signs, got shape {xi.shape}")
        return _class_tokens(xi, V, rng, None if frequencies is None else check_frequencies(frequencies, V // 2))
    K = _v.positive_int("classes", classes, minimum=2)
    V = _v.positive_int("V", V, minimum=K)
    if V % K:
        raise ValueError(f"V must be a multiple of the number of classes K = {K} (V/K tokens each), got {V}")
    if xi.ndim != 2 or not np.issubdtype(xi.dtype, np.integer) or xi.size and (xi.min() < 0 or xi.max() >= K):
        raise ValueError(f"xi must be an (N, T) integer array of labels 0..{K - 1}, got shape {xi.shape}")
    n = V // K
    if frequencies is None:
        return rng.integers(0, n, size=xi.shape) + xi * n
    return _by_frequency(check_frequencies(frequencies, n), n, xi.shape, rng) + xi * n


def _class_tokens(xi: np.ndarray, V: int, rng: np.random.Generator, frequencies=None) -> np.ndarray:
    """Tokens of two classes: ``xi`` an (N, T) array of +-1, ``V`` even (checked by the caller)."""
    half = V // 2
    if frequencies is None:
        return rng.integers(0, half, size=xi.shape) + np.where(xi < 0, half, 0)
    return _by_frequency(frequencies, half, xi.shape, rng) + np.where(xi < 0, half, 0)


def _by_frequency(frequencies, n: int, shape, rng: np.random.Generator) -> np.ndarray:
    """Indices 0..n-1 drawn with probabilities ``frequencies`` (checked by the caller) by inverting their CDF."""
    cdf = np.cumsum(frequencies)
    return np.minimum(np.searchsorted(cdf, rng.random(shape), side="right"), n - 1)


def draw_tokens(process: SignProcess, V: int, N: int, rng: np.random.Generator, frequencies=None):
    """Signs xi (N, T) from ``process`` and then token ids (N, T): the two random draws of the sequences.

    Arguments are trusted (a checked Setting's, :func:`attnlib.simulate`)."""
    xi = SignProcess.sample.__wrapped__(process, N, rng)
    return xi, _class_tokens(xi, V, rng, frequencies)


def population_covariance(vocab: Vocabulary, w, R, *, centered: bool = True, parts: bool = False):
    """Covariance of a pooled vector given the vocabulary, E[c c^T | E] (or Cov[c | E] if ``centered``).

    Exactly  kappa W' + alpha h h^T + (sum w)^2 g g^T  (uncentered) and  kappa W' + alpha h h^T  (centered),
    where W' = Z P Z^T / V and P projects out s/sqrt(V) and 1/sqrt(V). With token frequencies pi (the
    vocabulary's), W' = Z diag(pi) Z^T - q q^T - g g^T with q = Z (pi s) and g = Z pi. With ``parts=True`` returns
    a dict with the matrix ``"total"`` and its pieces ``"W_prime"``, ``"h"``, ``"g"``, and the scalars.
    """
    R = _v.correlation_matrix("R", R)
    w = _v.weights_vector("w", w, R.shape[0])
    alpha, kappa, wsum = float(w @ R @ w), float(w @ w), float(w.sum())
    Z = vocab.noise  # (V, d)
    V = vocab.V
    s = vocab.signs.astype(float)
    if vocab.frequencies is None:
        q, g = s @ Z / V, Z.mean(axis=0)
        W_prime = Z.T @ Z / V - np.outer(q, q) - np.outer(g, g)
    else:
        pi = vocab.frequencies
        q, g = (pi * s) @ Z, pi @ Z
        W_prime = (Z.T * pi) @ Z - np.outer(q, q) - np.outer(g, g)
    h = vocab.mu + q
    total = kappa * W_prime + alpha * np.outer(h, h)
    if not centered:
        total = total + wsum**2 * np.outer(g, g)
    if parts:
        return {"total": total, "W_prime": W_prime, "h": h, "g": g, "alpha": alpha, "kappa": kappa, "weight_sum": wsum}
    return total
