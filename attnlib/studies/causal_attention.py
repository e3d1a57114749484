r"""Finite-d parameter-free causal self-attention, to compare with its high-dimensional limit.

For a sequence x_1..x_T in R^d, query t scores key s <= t by tau x_t^T x_s / d, takes a softmax over its keys,
and the pooled vector is the mean over queries of the attended values. The pooling weight of key s is therefore
the mean over queries of the attention each puts on s. :func:`attnlib.model.weights.causal` is its d -> infinity limit.

Besides the empirical weights this module draws the token embeddings of sequences of the model at any d (only
the vocabulary rows the sequences use are drawn, so d = 10^4 costs n T d numbers, not V d), and predicts how far
the empirical weights stray from the limit at finite d and V (the closed forms of
:mod:`attnlib.theory.finite_attention`). :func:`deviation_scan` measures that distance over a range of d in
independent replicates, so that rates come with standard errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.engine.montecarlo import replicate
from attnlib.model import weights as _w
from attnlib.model.generative import sample_tokens
from attnlib.model.positional import SignProcess

__all__ = ["causal_attention_weights", "sample_embeddings", "DeviationScan", "deviation_scan"]


def causal_attention_weights(X, tau: float = 0.0, *, strict: bool = False) -> np.ndarray:
    """Empirical pooling weights on keys of causal self-attention with scores tau x_t^T x_s / d.

    Parameters
    ----------
    X : array_like
        (T, d) or (n, T, d) array of token embeddings (one or n sequences).
    tau : float
        Score scale.
    strict : bool
        Queries attend to earlier keys only (s < t); the first query, having no key, is dropped from the mean
        over queries.

    Returns
    -------
    numpy.ndarray
        (T,) or (n, T) weights, each row summing to 1.
    """
    X = np.asarray(X, dtype=float)
    single = X.ndim == 2
    if single:
        X = X[None]
    if X.ndim != 3 or min(X.shape) == 0:
        raise ValueError(f"X must have shape (T, d) or (n, T, d), got {np.shape(X)}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite numbers")
    tau = _v.finite_scalar("tau", tau)
    _, T, d = X.shape
    if strict and T < 2:
        raise ValueError(f"T must be >= 2 for strictly causal attention, got {T}")
    scores = tau * np.matmul(X, X.transpose(0, 2, 1)) / d  # batched BLAS, (n, T, T)
    allowed = np.tril(np.ones((T, T), bool), k=-1 if strict else 0)
    scores = np.where(allowed, scores, -np.inf)
    first = 1 if strict else 0  # strict: query 0 has no key
    scores = scores[:, first:, :]
    scores -= scores.max(axis=2, keepdims=True)
    att = np.exp(scores)
    att /= att.sum(axis=2, keepdims=True)
    w = att.mean(axis=1)
    return w[0] if single else w


def sample_embeddings(process: SignProcess, n: int, d: int, V: int, mu_norm2: float, rng: np.random.Generator):
    """Token embeddings of ``n`` sequences of the model, drawing only the vocabulary rows they use.

    Signs xi ~ ``process``, tokens uniform in the class of their sign among V (V/2 per class), embeddings
    e_v = s_v mu + z_v with mu = sqrt(mu_norm2) e_1 and z_v ~ N(0, I_d). The rows of the table are i.i.d., so
    drawing just the distinct tokens that occur gives exactly the model's law of (X, xi), including repeated
    tokens, at memory n T d instead of V d.

    Returns ``(X, xi, tokens)``: X (n, T, d) float, xi (n, T) signs, tokens (n, T) ids in 0..V-1.
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    n = _v.positive_int("n", n)
    d = _v.positive_int("d", d)
    V = _v.positive_int("V", V, even=True, minimum=2)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    rng = _v.rng(rng)
    xi = process.sample(n, rng)
    tokens = sample_tokens(xi, V, rng)
    used, inverse = np.unique(tokens, return_inverse=True)
    rows = rng.standard_normal((used.size, d))
    rows[:, 0] += np.where(used < V // 2, 1.0, -1.0) * np.sqrt(mu_norm2)  # class +1 is 0..V/2-1
    return rows[inverse.reshape(tokens.shape)], xi, tokens


@dataclass(frozen=True)
class DeviationScan:
    """Empirical causal-attention pooling weights against their limit, over dimensions d (:func:`deviation_scan`).

    Shapes: D dimensions, B replicates (independent batches of ``n`` sequences), K values of tau, M masks
    (``strict`` flags), T positions. "Repeat-free" sequences are those whose T tokens are all distinct.

    Attributes
    ----------
    dims, taus : numpy.ndarray
        The dimensions and score scales scanned.
    strict : tuple of bool
        The masks scanned (False: s <= t; True: strictly causal).
    n : int
        Sequences per replicate.
    rms : numpy.ndarray
        Shape (D, B, K, M): root-mean-square of w - w_inf over positions and the repeat-free sequences of each
        replicate (w_inf = :func:`attnlib.model.weights.causal`).
    rms_all : numpy.ndarray
        Shape (D, B, K, M): the same over all sequences of each replicate (repeated tokens included).
    mean_weights : numpy.ndarray
        Shape (D, K, M, T): mean empirical weights over the repeat-free sequences of all replicates.
    sem_weights : numpy.ndarray
        Shape (D, K, M, T): their standard errors.
    repeat_free : numpy.ndarray
        Shape (D, B): number of repeat-free sequences in each replicate.
    """

    dims: np.ndarray
    taus: np.ndarray
    strict: tuple
    n: int
    rms: np.ndarray
    rms_all: np.ndarray
    mean_weights: np.ndarray
    sem_weights: np.ndarray
    repeat_free: np.ndarray

    def slopes(self, strict: bool = False, *, max_scale: float | None = None) -> np.ndarray:
        """(B, K) least-squares slopes of log rms against log d, one per replicate and tau (about -1/2).

        With ``max_scale``, only the dimensions with tau / sqrt(d) <= max_scale enter the fit of each tau (the
        expansion behind the 1/sqrt(d) rate is in powers of tau / sqrt(d)); a tau with fewer than two such d
        gets NaN.
        """
        if strict not in self.strict:
            raise ValueError(f"strict must be one of the scanned masks {self.strict}, got {strict!r}")
        max_scale = np.inf if max_scale is None else _v.positive("max_scale", max_scale)
        out = np.full((self.rms.shape[1], self.taus.size), np.nan)
        for k, tau in enumerate(self.taus):
            use = abs(tau) / np.sqrt(self.dims) <= max_scale
            if use.sum() < 2:
                continue
            x = np.log(self.dims[use]) - np.log(self.dims[use]).mean()
            y = np.log(self.rms[use, :, k, self.strict.index(strict)])  # (D_used, B)
            out[:, k] = x @ y / (x @ x)
        return out


def deviation_scan(process: SignProcess, dims, taus, *, n: int, replicates: int, seed: int, mu_norm2: float = 1.0,
                   vocab_ratio: float = 2.0, strict=(False, True)) -> DeviationScan:
    """Finite-d causal-attention weights of sequences of the model against their d -> infinity limit.

    For each d of ``dims`` and each of ``replicates`` independent batches (stream ``i * replicates + b`` of
    ``SeedSequence(seed)``), ``n`` sequences are drawn by :func:`sample_embeddings` with V = vocab_ratio * d
    (rounded to an even number), and their pooling weights (:func:`causal_attention_weights`) are compared with
    :func:`attnlib.model.weights.causal` for every tau and mask. Independent replicates give each statistic, e.g. a
    log-log slope over d (:meth:`DeviationScan.slopes`), a standard error from their spread.

    Parameters
    ----------
    process : attnlib.model.positional.SignProcess
        The sign process of the sequences (T = process.T).
    dims : array_like of int
        Dimensions d.
    taus : array_like of float
        Score scales tau.
    n : int
        Sequences per replicate.
    replicates : int
        Independent batches per dimension.
    seed : int
        Seed of the streams.
    mu_norm2 : float
        Signal strength ||mu||^2 of the embeddings.
    vocab_ratio : float
        V / d.
    strict : sequence of bool
        Masks to compute: False for s <= t, True for the strictly causal s < t.

    Returns
    -------
    DeviationScan
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    dims = np.array([_v.positive_int("dims", d) for d in np.atleast_1d(dims)])
    taus = np.array([_v.finite_scalar("taus", t) for t in np.atleast_1d(taus)])
    n = _v.positive_int("n", n)
    replicates = _v.positive_int("replicates", replicates)
    seed = _v.positive_int("seed", seed, minimum=0)
    vocab_ratio = _v.positive("vocab_ratio", vocab_ratio)
    strict = tuple(bool(s) for s in np.atleast_1d(strict))
    if not strict:
        raise ValueError("strict must list at least one mask (False: s <= t, True: s < t)")
    T, D, K, M = process.T, dims.size, taus.size, len(strict)
    limits = np.array([[_w.causal(T, tau, strict=s) for s in strict] for tau in taus])  # (K, M, T)
    def one(rng, j):
        d = int(dims[j // replicates])
        X, _, tokens = sample_embeddings(process, n, d, max(2, 2 * int(round(vocab_ratio * d / 2))), mu_norm2, rng)
        distinct = np.sort(tokens, axis=1)
        distinct = np.all(distinct[:, 1:] != distinct[:, :-1], axis=1)
        devs = [[causal_attention_weights(X, tau, strict=s) - limits[k, m] for m, s in enumerate(strict)]
                for k, tau in enumerate(taus)]
        return distinct, devs

    rms, rms_all = np.empty((D, replicates, K, M)), np.empty((D, replicates, K, M))
    total, square = np.zeros((D, K, M, T)), np.zeros((D, K, M, T))
    counts = np.zeros((D, replicates), dtype=int)
    for j, (distinct, devs) in enumerate(replicate(one, seed, D * replicates)):
        i, b = divmod(j, replicates)
        counts[i, b] = distinct.sum()
        for k in range(K):
            for m in range(M):
                dev = devs[k][m]
                rms[i, b, k, m] = np.sqrt(np.mean(dev[distinct] ** 2)) if counts[i, b] else np.nan
                rms_all[i, b, k, m] = np.sqrt(np.mean(dev**2))
                total[i, k, m] += dev[distinct].sum(axis=0)  # deviations: no cancellation in the variance
                square[i, k, m] += (dev[distinct] ** 2).sum(axis=0)
    count = counts.sum(axis=1)[:, None, None, None]
    mean_dev = total / np.maximum(count, 1)
    var = (square - count * mean_dev**2) / np.maximum(count - 1, 1)
    sem = np.sqrt(np.clip(var, 0.0, None) / np.maximum(count, 1))
    return DeviationScan(dims, taus, strict, n, rms, rms_all, limits[None] + mean_dev, sem, counts)
