r"""Stacked causal self-attention, end to end: L parameter-free layers at the paper's tau/d scaling, the second
attending over the first's outputs, against their limit weights (:mod:`attnlib.theory.layers`).

Each sequence x_1..x_T goes through the layers y^(l) = P_l y^(l-1) (or y^(l-1) + P_l y^(l-1) with a residual
connection), where P_l holds the causal softmax rows of the scores tau_l y_tᵀ y_s / d computed from the
sequence's own data (:func:`attention_rows`); the read-out is the mean over positions of the last layer.
That read-out is a linear function of the tokens, c = sum_s w_s x_s, with per-sequence weights
w = Q_{L-1}ᵀ v, Q_{L-1} = P_{L-1} ... P_1 (or the products of I + P_l) and v the last layer's pooling weights
(:func:`attnlib.studies.real_layer.pooling_weights`, plus 1/T with a residual): :func:`stack_weights`.

:func:`stack_draw` draws one vocabulary and N sequences in the order of :func:`attnlib.studies.real_layer.layer_draw`
(so that one layer gives the same numbers), computes every sequence's weights for each mode (plain,
residual), and pools the same tokens with them and with the limit weights; the sample covariances are applied
through the table and a token matrix holding each sequence's own weights
(:class:`attnlib.engine.operators.SampleCovariance`), never formed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from attnlib.numerics import checks as _v
from attnlib.numerics.linalg import one_blas_thread, squared_cosines
from attnlib.theory import layers as _layers
from attnlib.model.generative import draw_vocabulary, sample_tokens
from attnlib.model.positional import SignProcess
from attnlib.model.setting import sizes_for
from attnlib.engine.montecarlo import replicate
from attnlib.engine.operators import SampleCovariance, top_eigenpairs
from attnlib.studies.real_layer import pooling_weights

__all__ = ["MODES", "attention_rows", "stack_weights", "StackDraw", "stack_draw", "stack_scan"]

#: The two stacks of a draw, plain layers and layers with a residual connection.
MODES = ("plain", "residual")


def attention_rows(Y, tau: float) -> np.ndarray:
    """The causal attention matrices (n, T, T) of sequences ``Y`` (n, T, d): row t is the softmax over the keys
    s <= t of tau y_tᵀ y_s / d, in double precision."""
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 3 or min(Y.shape) == 0 or not np.all(np.isfinite(Y)):
        raise ValueError(f"Y must be a finite (n, T, d) array, got shape {Y.shape}")
    tau = _v.finite_scalar("tau", tau)
    T, d = Y.shape[1:]
    S = np.where(np.tril(np.ones((T, T), bool)), np.matmul(Y, Y.transpose(0, 2, 1)) * (tau / d), -np.inf)
    S -= S.max(axis=2, keepdims=True)
    P = np.exp(S)
    return P / P.sum(axis=2, keepdims=True)


def stack_weights(X, taus, *, residual: bool = False) -> np.ndarray:
    """The per-sequence weights (n, T) on the tokens of L = len(taus) stacked layers: c_n = w_nᵀ X_n.

    Without residuals each row sums to 1; with residuals to 2^L. One layer gives
    :func:`attnlib.studies.real_layer.pooling_weights`.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 3:
        raise ValueError(f"X must be an (n, T, d) array, got shape {X.shape}")
    taus = [_v.finite_scalar("taus", t) for t in np.atleast_1d(taus)]
    n, T, _ = X.shape
    Q, Y = np.broadcast_to(np.eye(T), (n, T, T)), X
    for tau in taus[:-1]:
        P = attention_rows(Y, tau)
        if residual:
            P = P + np.eye(T)
        Q, Y = np.matmul(P, Q), np.matmul(P, Y)
    v = pooling_weights(Y, taus[-1]) + (1.0 / T if residual else 0.0)
    return np.einsum("nts,nt->ns", Q, v)


@dataclass(frozen=True)
class StackDraw:
    """One draw: for each mode of :data:`MODES` (index 0, 1) and for its limit weights, the top eigenvalue of
    the centred S and its eigenvector's squared overlaps with h and u (``top``, ``overlap_h``, ``overlap_u``:
    (2, 2) arrays, [mode, layer or limit]); over the N sequences, the means ``alpha`` of (w_nᵀ xi_n)^2 and
    ``kappa`` of ||w_n||^2 (2,), ``alpha_limit`` of (w_limᵀ xi_n)^2 (2,: the same signs, the limit weights)
    and ``deviation`` of ||w_n - w_lim||^2 / ||w_lim||^2 (2,)."""

    d: int
    top: np.ndarray
    overlap_h: np.ndarray
    overlap_u: np.ndarray
    alpha: np.ndarray
    kappa: np.ndarray
    alpha_limit: np.ndarray
    deviation: np.ndarray


def _token_matrix(tokens: np.ndarray, W: np.ndarray, V: int) -> sp.csr_matrix:
    """(N, V) matrix whose row n holds the weights W[n] at the tokens of sequence n."""
    N, T = tokens.shape
    return sp.csr_matrix((W.ravel(), tokens.ravel(), np.arange(0, N * T + 1, T)), shape=(N, V))


def stack_draw(process: SignProcess, d: int, V: int, N: int, mu_norm2: float, taus,
               rng: np.random.Generator) -> StackDraw:
    """One vocabulary and N sequences through the stack of layers ``taus``, plain and residual (module
    docstring); the random numbers in the order of :func:`attnlib.studies.real_layer.layer_draw`."""
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    d, N = _v.positive_int("d", d, minimum=3), _v.positive_int("N", N, minimum=2)
    V = _v.positive_int("V", V, even=True, minimum=2)
    rng, T = _v.rng(rng), process.T
    limits = [_layers.stacked_weights(T, taus, residual=r) for r in (False, True)]
    vocab = draw_vocabulary(d, V, _v.nonnegative("mu_norm2", mu_norm2), rng, dtype=np.float32)
    xi = process.sample(N, rng)
    tokens = sample_tokens(xi, V, rng)
    W = np.empty((2, N, T))
    step = max(1, 2**21 // (T * d))
    with one_blas_thread():
        for a in range(0, N, step):
            X = vocab.table[tokens[a:a + step]].astype(np.float64)
            for m, residual in enumerate((False, True)):
                W[m, a:a + step] = stack_weights(X, taus, residual=residual)
        u, h, _ = vocab.directions()
        top, ov_h, ov_u = np.empty((2, 2)), np.empty((2, 2)), np.empty((2, 2))
        for m in range(2):
            for j, weights in enumerate((W[m], np.broadcast_to(limits[m], (N, T)))):
                vals, vecs = top_eigenpairs(SampleCovariance(vocab.table, _token_matrix(tokens, weights, V)), 1)
                top[m, j], ov_h[m, j], ov_u[m, j] = vals[0], *squared_cosines(vecs, h), *squared_cosines(vecs, u)
    alpha = np.mean(np.einsum("mnt,nt->mn", W, xi) ** 2, axis=1)
    kappa = np.mean(np.einsum("mnt,mnt->mn", W, W), axis=1)
    alpha_limit = np.array([np.mean((xi @ lim) ** 2) for lim in limits])
    dev = np.array([np.mean(np.sum((W[m] - limits[m]) ** 2, axis=1)) / (limits[m] @ limits[m]) for m in range(2)])
    return StackDraw(d, top, ov_h, ov_u, alpha, kappa, alpha_limit, dev)


def stack_scan(process: SignProcess, dims, taus, *, draws: int, seed: int, delta: float = 0.5,
               gamma: float = 1.0, mu_norm2: float = 1.0) -> list[list[StackDraw]]:
    """:func:`stack_draw` ``draws`` times at each d of ``dims`` (sizes by :func:`attnlib.model.setting.sizes_for`);
    draw j of dimension i uses stream i * draws + j of ``seed``. Returns one list of draws per d."""
    dims = [_v.positive_int("dims", d, minimum=3) for d in np.atleast_1d(dims)]
    draws = _v.positive_int("draws", draws)

    def one(rng, n):
        d = dims[n // draws]
        return stack_draw(process, d, *sizes_for(d, delta, gamma), mu_norm2, taus, rng)

    runs = replicate(one, seed, len(dims) * draws)
    return [runs[i * draws:(i + 1) * draws] for i in range(len(dims))]
