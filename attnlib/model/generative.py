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

from dataclasses import dataclass, field

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.model.variants import ModelOptions, check_frequencies
from attnlib.model.positional import SignProcess

__all__ = [
    "ModelOptions",
    "Vocabulary",
    "draw_rows",
    "draw_vocabulary",
    "make_vocabulary",
    "sample_tokens",
    "class_tokens",
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
        """The signal direction mu/||mu|| (e_1 when mu = 0)."""
        n = np.linalg.norm(self.mu)
        return self.mu / n if n > 0 else np.eye(self.d)[0]

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


#: Size of the double-precision row blocks a float32 table is drawn in (and summed by).
_BLOCK_BYTES = 2**20


def _block_rows(d: int) -> int:
    return max(1, _BLOCK_BYTES // (8 * d))


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


def draw_vocabulary(d: int, V: int, mu_norm2: float, rng: np.random.Generator, *,
                    dtype=np.float64, options: ModelOptions | None = None) -> Vocabulary:
    """Draw the table e_v = s_v mu + z_v, v = 1..V, with V/2 tokens per class.

    Parameters
    ----------
    d, V : int
        Dimension and vocabulary size (V even).
    mu_norm2 : float
        ||mu||^2 (mu is along the first axis).
    rng : numpy.random.Generator
    dtype : {numpy.float64, numpy.float32}
        Precision of the table. The noise is always ``rng.standard_normal`` in double precision, filled row
        after row, so the numbers (rounded to ``dtype``) and the state ``rng`` is left in do not depend on
        ``dtype``. A float64 table is filled in place; a float32 one by row blocks, each drawn in double
        precision, given the mean, summed into E^T s and E^T 1 (kept as ``centroids``) and rounded into the
        preallocated table: no (V, d) double-precision array ever exists.
    options : ModelOptions, optional
        Noise law, noise covariance and token frequencies (see :class:`ModelOptions`). None or the defaults:
        the book's model, drawn as above. Otherwise the table is drawn by row blocks (:func:`draw_rows`) in
        either precision, h and g weighted by the token frequencies; a Gaussian law draws the same numbers.

    Returns
    -------
    Vocabulary
    """
    d = _v.positive_int("d", d)
    V = _v.positive_int("V", V, even=True, minimum=2)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    rng = _v.rng(rng)
    if np.dtype(dtype) not in (np.float64, np.float32):
        raise ValueError(f"dtype must be numpy.float64 or numpy.float32, got {dtype!r}")
    if options is not None and not isinstance(options, ModelOptions):
        raise ValueError(f"options must be an attnlib.model.generative.ModelOptions or None, got {options!r}")
    return make_vocabulary(d, V, mu_norm2, rng, dtype=dtype, options=options)


def make_vocabulary(d: int, V: int, mu_norm2: float, rng: np.random.Generator, *,
                    dtype=np.float64, options: ModelOptions | None = None) -> Vocabulary:
    """:func:`draw_vocabulary` on trusted arguments (the engine's call, after a Setting was validated)."""
    half = V // 2
    signs = np.concatenate([np.ones(half, np.int8), -np.ones(half, np.int8)])
    mu = np.zeros(d)
    mu[0] = np.sqrt(mu_norm2)
    if options is not None and not options.is_default:
        freq = options.check(d, V).token_frequencies()
        omega = np.ones(V) if freq is None else V * freq
        s = signs.astype(float)
        table, sums = draw_rows(V, d, rng, options, (s * mu[0])[:, None], np.stack([s * omega, omega], axis=1),
                                dtype)
        return Vocabulary(table=table, mu=mu, signs=signs, centroids=(sums[0], sums[1]), frequencies=freq)
    table = np.empty((V, d), dtype)
    if table.dtype == np.float64:
        rng.standard_normal(out=table)
        table[:half, 0] += mu[0]
        table[half:, 0] -= mu[0]
        return Vocabulary(table=table, mu=mu, signs=signs)
    step = _block_rows(d)
    buf = np.empty((min(step, V), d))
    hs, gs = np.zeros(d), np.zeros(d)
    for a in range(0, V, step):
        block = buf[: min(step, V - a)]
        rng.standard_normal(out=block)
        s = signs[a : a + block.shape[0]].astype(float)
        block[:, 0] += s * mu[0]
        hs += s @ block
        gs += block.sum(axis=0)
        table[a : a + block.shape[0]] = block
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
        return class_tokens(xi, V, rng, frequencies)
    K = _v.positive_int("classes", classes, minimum=2)
    V = _v.positive_int("V", V, minimum=K)
    if V % K:
        raise ValueError(f"V must be a multiple of the number of classes K = {K} (V/K tokens each), got {V}")
    if xi.ndim != 2 or not np.issubdtype(xi.dtype, np.integer) or xi.size and (xi.min() < 0 or xi.max() >= K):
        raise ValueError(f"xi must be an (N, T) integer array of labels 0..{K - 1}, got shape {xi.shape}")
    n = V // K
    index = rng.integers(0, n, size=xi.shape) if frequencies is None else _by_frequency(frequencies, n, xi.shape, rng)
    return index + xi * n


def class_tokens(xi: np.ndarray, V: int, rng: np.random.Generator, frequencies=None) -> np.ndarray:
    """:func:`sample_tokens` of two classes on trusted arguments: ``xi`` an (N, T) array of +-1, ``V`` even."""
    half = V // 2
    if frequencies is None:
        return rng.integers(0, half, size=xi.shape) + np.where(xi < 0, half, 0)
    return _by_frequency(frequencies, half, xi.shape, rng) + np.where(xi < 0, half, 0)


def _by_frequency(frequencies, n: int, shape, rng: np.random.Generator) -> np.ndarray:
    """Indices 0..n-1 drawn with probabilities ``frequencies`` (validated) by inverting their CDF."""
    cdf = np.cumsum(check_frequencies(frequencies, n))
    return np.minimum(np.searchsorted(cdf, rng.random(shape), side="right"), n - 1)


def draw_tokens(process: SignProcess, V: int, N: int, rng: np.random.Generator, frequencies=None):
    """Signs xi (N, T) from ``process`` and then token ids (N, T): the two random draws of the sequences.

    Arguments are trusted (validated by the caller)."""
    xi = process.draw(N, rng)
    return xi, class_tokens(xi, V, rng, frequencies)


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
