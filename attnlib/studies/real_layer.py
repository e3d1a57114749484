r"""A real causal attention layer, end to end: data-dependent pooling weights, the pooled vectors and S.

Each sequence x_1..x_T (the token embeddings of the model, :func:`attnlib.model.generative.draw_vocabulary`) is pooled
with its *own* weights, computed from its data: query t scores key s <= t by tau q_t^T k_s / scale, takes a
softmax over its keys, and the pooling weight of key s is the mean over queries of the attention it gets,
c_n = sum_t w_{n,t} x_{n,t}. Queries and keys are the embeddings themselves (q = k = x), or random projections
q = W_Q x, k = W_K x (:func:`random_projections`); the scale is d (the paper's scaling) or sqrt(d) (the usual
one). Without projections and with scale d the weights are exactly those of
:func:`attnlib.studies.causal_attention.causal_attention_weights`.

:func:`layer_draw` draws one vocabulary and N sequences, pools them with the layer and, on the same tokens,
with fixed reference weights, and returns the top eigenpair of both sample covariances (paired comparison)
and the size of their difference, split between the sequences with a repeated token and the rest
(:func:`difference_norms`).
:func:`attnlib.theory.finite_attention.random_row_moments` is the theory of the regimes in which the weights
stay random as d grows (scale sqrt(d) without projections and tau < 0, or with projections): every attention row
is a softmax of i.i.d. Gaussian scores, and the spike strength of the pooled vectors is E[w^T R w] / E[||w||^2]
times ||h||^2.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import LinearOperator

from attnlib.numerics import checks as _v
from attnlib.numerics import products
from attnlib.numerics.linalg import one_blas_thread, squared_cosines, start_vector
from attnlib.model.generative import draw_vocabulary, sample_tokens
from attnlib.engine.operators import top_eigenpairs
from attnlib.model.positional import SignProcess
from attnlib.engine.montecarlo import replicate
from attnlib.model.setting import sizes_for

__all__ = ["SCALINGS", "random_projections", "pooling_weights", "FIELDS", "LayerDraw", "difference_norms",
           "layer_draw", "LayerScan", "layer_scan"]

#: The score scalings, "d" dividing q^T k by d (the paper's) and "sqrt_d" by sqrt(d) (the usual one).
SCALINGS = ("d", "sqrt_d")


def random_projections(d: int, rng: np.random.Generator, *, d_k: int | None = None):
    """Query and key projections W_Q, W_K of shape (d_k, d), i.i.d. N(0, 1/d) entries (d_k = d by default):
    ||W x||^2 ~ (d_k/d) ||x||^2, so a projected token has about the norm of the token itself."""
    d = _v.positive_int("d", d)
    d_k = d if d_k is None else _v.positive_int("d_k", d_k)
    rng = _v.rng(rng)
    W = rng.standard_normal((2, d_k, d)) / np.sqrt(d)
    return W[0], W[1]


def _causal_softmax_mean(scores: np.ndarray) -> np.ndarray:
    """Mean over queries of the causal (s <= t) softmax rows of a batch of (n, T, T) scores (float64)."""
    T = scores.shape[-1]
    scores = np.where(np.tril(np.ones((T, T), bool)), scores.astype(float), -np.inf)
    scores -= scores.max(axis=2, keepdims=True)
    att = np.exp(scores)
    att /= att.sum(axis=2, keepdims=True)
    return att.mean(axis=1)


def _weights(Q: np.ndarray, K: np.ndarray, tau: float, scale: float) -> np.ndarray:
    """Pooling weights from queries and keys (n, T, d_k), in double precision."""
    return _causal_softmax_mean(np.matmul(Q, K.transpose(0, 2, 1)) * (tau / scale))


def pooling_weights(X, tau: float, *, scaling: str = "d", projections=None) -> np.ndarray:
    """Data-dependent pooling weights of causal attention, one row per sequence.

    Parameters
    ----------
    X : array_like
        (n, T, d) token embeddings of n sequences (or (T, d) for one); computed in double precision whatever
        the input's precision (so that the weights are the same on every CPU).
    tau : float
        Score scale: query t scores key s <= t by tau q_t^T k_s / scale.
    scaling : {"d", "sqrt_d"}
        scale = d or sqrt(d).
    projections : tuple of numpy.ndarray, optional
        (W_Q, W_K), each (d_k, d): q = W_Q x, k = W_K x. None: q = k = x, and then (float64 input, scaling
        "d") the weights are those of :func:`attnlib.studies.causal_attention.causal_attention_weights`.

    Returns
    -------
    numpy.ndarray
        (n, T) weights (or (T,)), non-negative, each row summing to 1.
    """
    tau = _v.finite_scalar("tau", tau)
    scaling = _v.choice("scaling", scaling, SCALINGS)
    X = np.asarray(X)
    X = X.astype(np.float64, copy=False)
    single = X.ndim == 2
    X = X[None] if single else X
    if X.ndim != 3 or min(X.shape) == 0 or not np.all(np.isfinite(X)):
        raise ValueError(f"X must be a finite array of shape (T, d) or (n, T, d), got shape {np.shape(X)}")
    d = X.shape[2]
    Q = K = X
    if projections is not None:
        try:
            WQ, WK = (np.asarray(W, dtype=np.float64) for W in projections)
        except (TypeError, ValueError):
            raise ValueError("projections must be a pair (W_Q, W_K) of (d_k, d) arrays") from None
        if WQ.ndim != 2 or WQ.shape != WK.shape or WQ.shape[1] != d:
            raise ValueError(f"projections must be two arrays of the same shape (d_k, d = {d}), got "
                             f"{WQ.shape} and {WK.shape}")
        Q, K = X @ WQ.T, X @ WK.T
    w = _weights(Q, K, tau, d if scaling == "d" else np.sqrt(d))
    return w[0] if single else w


# ------------------------------------------------------------------------------------------ end to end

#: Fields of :class:`LayerDraw` that :func:`layer_scan` stacks into (dims, draws) arrays.
FIELDS = ("top", "overlap_h", "overlap_u", "top_fixed", "overlap_h_fixed", "overlap_u_fixed", "trace",
          "trace_fixed", "alpha_bar", "alpha_fixed", "kappa_bar", "deviation2", "repeat_fraction",
          "norm_repeat", "norm_rest", "shift_repeat")


@dataclass(frozen=True)
class LayerDraw:
    """One end-to-end draw: the top eigenpair of S for the attention layer and for fixed reference weights.

    ``top``, ``overlap_h``, ``overlap_u``: top eigenvalue of the layer's centred S and the squared cosines of its
    eigenvector with h and u; ``*_fixed``: the same for the reference weights on the same tokens; ``trace*``:
    tr(S)/d. Over the N sequences: ``alpha_bar``, ``alpha_fixed`` the means of (w_n^T xi_n)^2, (w_ref^T xi_n)^2,
    ``kappa_bar`` of ||w_n||^2, ``deviation2`` of ||w_n - w_ref||^2, ``mean_weights`` of the w_n, and
    ``repeat_fraction`` the fraction of sequences with a repeated token.
    ``norm_repeat``, ``norm_rest`` and ``shift_repeat``: the operator norms of the two parts of S - S_fixed and
    the first-order move of the fixed weights' outlier by the repeat part (:func:`difference_norms`).
    """

    d: int
    top: float
    overlap_h: float
    overlap_u: float
    top_fixed: float
    overlap_h_fixed: float
    overlap_u_fixed: float
    trace: float
    trace_fixed: float
    alpha_bar: float
    alpha_fixed: float
    kappa_bar: float
    deviation2: float
    repeat_fraction: float
    mean_weights: np.ndarray
    norm_repeat: float = np.nan
    norm_rest: float = np.nan
    shift_repeat: float = np.nan


class _CenteredCovariance(LinearOperator):
    """S = (C - c_bar)^T (C - c_bar) / N applied through the pooled rows C (N, d), which stay in their dtype."""

    def __init__(self, C: np.ndarray):
        self.C, self.c_bar = C, C.mean(axis=0, dtype=np.float64)
        super().__init__(dtype=np.float64, shape=(C.shape[1], C.shape[1]))

    def _matvec(self, x):
        x = np.asarray(x, dtype=float).ravel()
        y = self.C @ x - self.c_bar @ x
        return self.C.T @ y / self.C.shape[0] - self.c_bar * (y.sum() / self.C.shape[0])

    def _adjoint(self):
        return self


class _DifferenceOperator(LinearOperator):
    """(A^T A - B^T B) / N - (a a^T - b b^T) for pooled rows A, B (n, d) and means a, b (d,)."""

    def __init__(self, A: np.ndarray, B: np.ndarray, N: int, means: np.ndarray):
        self.A, self.B, self.N, self.means = A, B, N, means
        super().__init__(dtype=np.float64, shape=(A.shape[1], A.shape[1]))

    def _matvec(self, x):
        x = np.asarray(x, dtype=float).ravel()
        out = (self.A.T @ (self.A @ x) - self.B.T @ (self.B @ x)) / self.N
        return out - self.means[0] * (self.means[0] @ x) + self.means[1] * (self.means[1] @ x)

    def _adjoint(self):
        return self


def difference_norms(C: np.ndarray, repeated: np.ndarray, u: np.ndarray) -> tuple[float, float, float]:
    r"""Size of S - S_ref (centred covariances of the same N sequences pooled two ways, ``C[0]`` and ``C[1]``,
    each (N, d)), split between the sequences with a repeated token (boolean mask ``repeated``) and the rest.

    Returns ``(norm_repeat, norm_rest, shift_repeat)``: the operator norm of the repeat part
    :math:`P = \frac1N\sum_{n\,\text{rep}}(c_nc_n^\top - c'_nc_n'^\top)` (exactly: rank <= 2M, its non-zero
    eigenvalues are those of J G G^T / N, G the 2M stacked rows, J = diag(1, -1)), that of the rest (the other
    sequences and the change of the centring, by Lanczos), and :math:`u^\top P u`, the first-order move by P
    of the eigenvalue of S_ref whose unit eigenvector is ``u``."""
    from scipy.sparse.linalg import eigsh

    C = np.asarray(C)
    repeated = np.asarray(repeated, dtype=bool)
    N = C.shape[1]
    G = np.concatenate([C[0, repeated], C[1, repeated]]).astype(float)
    signs = np.r_[np.ones(repeated.sum()), -np.ones(repeated.sum())]
    norm_repeat = float(np.abs(np.linalg.eigvals(signs[:, None] * (G @ G.T))).max() / N) if G.size else 0.0
    shift = float(signs @ (G @ np.asarray(u, dtype=float).ravel()) ** 2 / N)
    means = C.mean(axis=1, dtype=np.float64)
    rest, v0 = _DifferenceOperator(C[0, ~repeated], C[1, ~repeated], N, means), start_vector(C.shape[2])
    if not np.any(rest.matvec(v0)):  # identical poolings: Lanczos would stop on a zero vector
        return norm_repeat, 0.0, shift
    vals = eigsh(rest, k=1, which="LM", tol=1e-6, v0=v0, return_eigenvectors=False)
    return norm_repeat, float(np.abs(vals).max()), shift


def _batches(n: int, T: int, d: int, budget: int = 2**21):
    step = max(1, budget // (T * d))
    for a in range(0, n, step):
        yield slice(a, min(n, a + step))


def layer_draw(process: SignProcess, d: int, V: int, N: int, mu_norm2: float, tau: float,
               rng: np.random.Generator, *, reference, scaling: str = "d", projected: bool = False) -> LayerDraw:
    """Draw a vocabulary and N sequences, pool them with the attention layer and with ``reference`` weights.

    The random numbers are used in the order of the Monte-Carlo engine (:func:`attnlib.sweep`): the table
    (stored in single precision, as on the engine's matrix-free path), then the signs, then the tokens; then,
    if ``projected``, the projections (:func:`random_projections`), which are applied to the table once
    (queries and keys of a token are rows of E W^T). The layer's weights are computed in batches of
    sequences, both sets of pooled vectors are formed from the same gathered embeddings, every sum in double
    precision, and the top eigenpairs of their centred covariances found by Lanczos (:func:`attnlib.engine.operators.top_eigenpairs`).

    Parameters
    ----------
    process : SignProcess
        Sign process of the sequences (T = process.T).
    d, V, N : int
        Dimension, vocabulary size (even) and number of sequences.
    mu_norm2 : float
        ||mu||^2.
    tau : float
        Score scale of the layer.
    rng : numpy.random.Generator
    reference : array_like
        Fixed pooling weights (length T) applied to the same tokens (e.g. the limit weights).
    scaling : {"d", "sqrt_d"}
        Scores tau q^T k / d or tau q^T k / sqrt(d).
    projected : bool
        Random query and key projections (True) or q = k = x (False).

    Returns
    -------
    LayerDraw
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    d = _v.positive_int("d", d, minimum=3)
    V = _v.positive_int("V", V, even=True, minimum=2)
    N = _v.positive_int("N", N, minimum=2)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    tau = _v.finite_scalar("tau", tau)
    scaling = _v.choice("scaling", scaling, SCALINGS)
    rng = _v.rng(rng)
    T = process.T
    reference = _v.weights_vector("reference", reference, T)
    vocab = draw_vocabulary(d, V, mu_norm2, rng, dtype=np.float32)
    xi = process.sample(N, rng)
    tokens = sample_tokens(xi, V, rng)
    W = np.empty((N, T))
    C = np.empty((2, N, d))  # pooled by the layer, and by the reference weights
    with one_blas_thread():
        queries = keys = vocab.table
        if projected:
            WQ, WK = random_projections(d, rng)
            queries, keys = products.times(vocab.table, WQ.T), products.times(vocab.table, WK.T)
        for part in _batches(N, T, d):
            X = vocab.table[tokens[part]].astype(np.float64)
            K = X if not projected else keys[tokens[part]]
            W[part] = _weights(K if not projected else queries[tokens[part]], K, tau,
                               d if scaling == "d" else np.sqrt(d))
            C[0, part] = np.matmul(W[part, None, :], X)[:, 0]
            C[1, part] = reference @ X
        ordered = np.sort(tokens, axis=1)
        repeated = np.any(ordered[:, 1:] == ordered[:, :-1], axis=1)
        u, h, _ = vocab.directions()
        out = []
        for pooled in C:
            vals, vecs = top_eigenpairs(_CenteredCovariance(pooled), 1)
            out += [float(vals[0]), float(squared_cosines(vecs, h)[0]), float(squared_cosines(vecs, u)[0])]
        norms = difference_norms(C, repeated, vecs[:, 0])  # vecs: the reference weights' top eigenvector
        spread = [float(np.einsum("nd,nd->", pooled, pooled, dtype=np.float64)) / (N * d)
                  - float(pooled.mean(axis=0, dtype=np.float64) @ pooled.mean(axis=0, dtype=np.float64)) / d
                  for pooled in C]
    return LayerDraw(d, *out, trace=spread[0], trace_fixed=spread[1], alpha_bar=float(np.mean(np.einsum("nt,nt->n", W, xi) ** 2)),
                     alpha_fixed=float(np.mean((xi @ reference) ** 2)),
                     kappa_bar=float(np.mean(np.einsum("nt,nt->n", W, W))),
                     deviation2=float(np.mean(np.sum((W - reference) ** 2, axis=1))),
                     repeat_fraction=float(repeated.mean()), mean_weights=W.mean(axis=0),
                     norm_repeat=norms[0], norm_rest=norms[1], shift_repeat=norms[2])


@dataclass(frozen=True)
class LayerScan:
    """:func:`layer_scan` results: ``dims`` (D,), and for each name of :data:`FIELDS` a (D, draws) array in
    ``values``; ``mean_weights`` (D, draws, T). ``get(name)`` returns one field."""

    dims: np.ndarray
    values: dict
    mean_weights: np.ndarray

    def get(self, name: str) -> np.ndarray:
        return self.values[_v.choice("name", name, FIELDS)]

    def arrays(self, prefix: str = "") -> dict:
        """The scan as named arrays, for ``numpy.savez`` (read back by :meth:`from_arrays`)."""
        return {prefix + "dims": self.dims, prefix + "mean_weights": self.mean_weights,
                **{prefix + name: self.values[name] for name in FIELDS}}

    @classmethod
    def from_arrays(cls, arrays, prefix: str = "") -> LayerScan:
        """The scan that :meth:`arrays` wrote (e.g. a ``numpy.load`` of the file)."""
        return cls(np.asarray(arrays[prefix + "dims"]), {name: np.asarray(arrays[prefix + name]) for name in FIELDS},
                   np.asarray(arrays[prefix + "mean_weights"]))


def layer_scan(process: SignProcess, dims, tau: float, *, draws: int, seed: int, reference, delta: float = 0.5,
               gamma: float = 1.0, mu_norm2: float = 0.5, scaling: str = "d", projected: bool = False) -> LayerScan:
    """:func:`layer_draw` at each d of ``dims`` (V = d/delta, N = d/gamma by :func:`attnlib.model.setting.sizes_for`),
    ``draws`` times each; draw j of dimension i uses stream ``i * draws + j`` of ``SeedSequence(seed)``."""
    dims = np.array([_v.positive_int("dims", d, minimum=3) for d in np.atleast_1d(dims)])
    draws = _v.positive_int("draws", draws)

    def one(rng, n):
        d = int(dims[n // draws])
        return layer_draw(process, d, *sizes_for(d, delta, gamma), mu_norm2, tau, rng, reference=reference,
                          scaling=scaling, projected=projected)

    runs = replicate(one, seed, dims.size * draws)
    rows = [runs[i * draws:(i + 1) * draws] for i in range(dims.size)]
    values = {name: np.array([[getattr(r, name) for r in row] for row in rows]) for name in FIELDS}
    return LayerScan(dims, values, np.array([[r.mean_weights for r in row] for row in rows]))
