r"""Finite-d parameter-free causal self-attention, to compare with its high-dimensional limit.

For a sequence x_1..x_T in R^d, query t scores key s <= t by tau x_t^T x_s / d, takes a softmax over its keys,
and the pooled vector is the mean over queries of the attended values. The pooling weight of key s is therefore
the mean over queries of the attention each puts on s. :func:`attnlib.weights.causal` is its d -> infinity limit.
"""

from __future__ import annotations

import numpy as np

from . import _validate as _v

__all__ = ["causal_attention_weights"]


def causal_attention_weights(X, tau: float = 0.0, *, strict: bool = False) -> np.ndarray:
    """Empirical pooling weights on keys of causal self-attention with scores tau x_t^T x_s / d.

    X : (T, d) or (n, T, d) array of token embeddings (one or n sequences).
    strict : queries attend to earlier keys only (s < t); the first query, having no key, is dropped from the
        mean over queries.
    Returns (T,) or (n, T) weights, each row summing to 1.
    """
    X = np.asarray(X, dtype=float)
    single = X.ndim == 2
    if single:
        X = X[None]
    if X.ndim != 3 or min(X.shape) == 0:
        raise ValueError(f"X must have shape (T, d) or (n, T, d), got {np.shape(X)}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X must contain only finite numbers")
    tau_arr = np.asarray(tau, dtype=float)
    if tau_arr.ndim or not np.isfinite(tau_arr):
        raise ValueError(f"tau must be a finite real number, got {tau!r}")
    _, T, d = X.shape
    if strict and T < 2:
        raise ValueError(f"T must be >= 2 for strictly causal attention, got {T}")
    scores = float(tau_arr) * np.einsum("ntd,nsd->nts", X, X) / d
    allowed = np.tril(np.ones((T, T), bool), k=-1 if strict else 0)
    scores = np.where(allowed, scores, -np.inf)
    first = 1 if strict else 0  # strict: query 0 has no key
    scores = scores[:, first:, :]
    scores -= scores.max(axis=2, keepdims=True)
    att = np.exp(scores)
    att /= att.sum(axis=2, keepdims=True)
    w = att.mean(axis=1)
    return w[0] if single else w
