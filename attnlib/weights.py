r"""Pooling weights w in R^T and the one number recovery depends on, alpha/kappa = w^T R w / ||w||^2.

Only the direction of ``w`` matters for recovery (alpha/kappa is scale invariant; kappa sets the bulk's scale).
Constructors return attention-like weights that sum to 1 where that makes sense.
"""

from __future__ import annotations

import numpy as np

from . import _validate as _v

__all__ = ["mean", "optimal", "causal", "snr", "alpha", "kappa", "as_weights", "mix_to_snr"]


def as_weights(w, T: int | None = None) -> np.ndarray:
    """Validate pooling weights (finite, 1-D, not all zero, length T if given) and return them as floats."""
    return _v.weights_vector("w", w, T)


def mean(T: int) -> np.ndarray:
    """Mean pooling: w_t = 1/T."""
    T = _v.positive_int("T", T)
    return np.full(T, 1.0 / T)


def optimal(R, *, normalize: str = "sum", tol: float = 1e-10) -> np.ndarray:
    """Weights maximising alpha/kappa: the top eigenvector of R (Theorem 5), with alpha/kappa = lambda_max(R).

    If lambda_max(R) is degenerate every vector of its eigenspace is optimal; the one returned is the projection
    of the uniform vector onto that eigenspace (so R = I gives mean pooling). If that projection vanishes (the
    eigenspace is orthogonal to the uniform vector), the projection of the first basis vector e_0 (then e_1,
    ...) is used instead, so the choice never depends on how LAPACK orders a degenerate eigenbasis.

    normalize : "sum" (default; weights sum to 1, an attention distribution) or "norm" (unit Euclidean norm,
        sign chosen so that the weights sum to a positive number, or, if they sum to ~0, so that the first
        non-negligible weight is positive). "sum" raises ValueError when the optimal weights sum to ~0
        (e.g. anti-correlated R), where only "norm" makes sense.
    """
    R = _v.correlation_matrix("R", R)
    if normalize not in ("sum", "norm"):
        raise ValueError(f"normalize must be 'sum' or 'norm', got {normalize!r}")
    T = R.shape[0]
    lam, vec = np.linalg.eigh(R)
    top = vec[:, lam >= lam[-1] - tol * max(1.0, abs(lam[-1]))]
    for start in [np.ones(T)] + list(np.eye(T)):
        w = top @ (top.T @ start)
        if np.linalg.norm(w) > 1e-8 * np.linalg.norm(start):
            break
    w = w / np.linalg.norm(w)
    total = w.sum()
    if abs(total) > 1e-10:
        w = w if total > 0 else -w
    else:
        w = w if w[np.argmax(np.abs(w) > 1e-8)] > 0 else -w
    total = w.sum()
    if normalize == "norm":
        return w
    if total < 1e-8:
        raise ValueError(
            "the optimal weights of this R sum to ~0 and cannot be normalised to sum 1; use normalize='norm'"
        )
    return w / total


def causal(T: int, tau: float = 0.0, *, strict: bool = False) -> np.ndarray:
    r"""High-dimensional limit of parameter-free causal self-attention pooling (weights on keys, sum 1).

    Scores tau x_t^T x_s / d over keys s <= t, softmax per query, mean over the T queries. With unit-variance
    noise x_t^T x_t / d -> 1 and x_t^T x_s / d -> 0, so query t puts e^tau/(e^tau + t) on itself and
    1/(e^tau + t) on each earlier key (0-indexed). Key s therefore gets

        w_s = (1/T) [ e^tau/(e^tau + s) + sum_{t=s+1}^{T-1} 1/(e^tau + t) ],

    which at tau = 0 is the harmonic profile (H_T - H_s)/T.

    strict=True: strictly causal variant (a query attends only to earlier keys, the first query to nothing),
    w_s proportional to H_{T-1} - H_s (0-indexed; the summary's H_{T-1} - H_{t-1} 1-indexed), normalised to sum
    1; tau plays no role there because all off-diagonal scores vanish. Needs T >= 2.
    """
    T = _v.positive_int("T", T)
    tau_arr = np.asarray(tau, dtype=float)
    if tau_arr.ndim or not np.isfinite(tau_arr):
        raise ValueError(f"tau must be a finite real number, got {tau!r}")
    tau = float(tau_arr)
    t = np.arange(T, dtype=float)
    if strict:
        if T < 2:
            raise ValueError(f"T must be >= 2 for strictly causal attention (the first query has no key), got {T}")
        inv = np.zeros(T)
        inv[1:] = 1.0 / t[1:]  # query t (>= 1) spreads 1/t over keys 0..t-1
        # key s receives sum_{t=s+1}^{T-1} 1/t
        w = np.concatenate([np.cumsum(inv[::-1])[::-1][1:], [0.0]])
        return w / w.sum()
    # work with e^{-tau} to stay finite for large tau: e^tau/(e^tau+t) = 1/(1 + t e^{-tau})
    et = np.exp(-tau)
    self_term = 1.0 / (1.0 + t * et)
    other = et / (1.0 + t * et)  # 1/(e^tau + t)
    tail = np.concatenate([np.cumsum(other[::-1])[::-1][1:], [0.0]])  # sum_{t>s} other[t]
    return (self_term + tail) / T


def alpha(w, R) -> float:
    """alpha = w^T R w, the pooled signal strength."""
    R = _v.correlation_matrix("R", R)
    w = _v.weights_vector("w", w, R.shape[0])
    return float(w @ R @ w)


def kappa(w) -> float:
    """kappa = ||w||^2, the pooled noise scale."""
    w = _v.weights_vector("w", w)
    return float(w @ w)


def snr(w, R):
    """alpha/kappa = w^T R w / ||w||^2, a Rayleigh quotient of R (at most lambda_max(R)).

    ``w`` of shape (T,) gives a float; a (k, T) array of k weightings (one per row) gives a (k,) array.
    """
    R = _v.correlation_matrix("R", R)
    arr = np.asarray(w, dtype=float) if np.ndim(w) == 2 else None
    if arr is None:
        w = _v.weights_vector("w", w, R.shape[0])
        return float(w @ R @ w / (w @ w))
    if arr.shape[1] != R.shape[0] or arr.shape[0] == 0:
        raise ValueError(f"w must have shape (k, T) with T = {R.shape[0]}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("w must contain only finite numbers")
    norms = np.einsum("kt,kt->k", arr, arr)
    if np.any(norms == 0):
        raise ValueError(f"w must not have an all-zero row (kappa would vanish), rows {np.flatnonzero(norms == 0)}")
    return np.einsum("kt,ts,ks->k", arr, R, arr) / norms


def mix_to_snr(a, b, R, target: float) -> np.ndarray:
    """The point w = (1 - lam) a + lam b of the segment [a, b] (lam in [0, 1]) with alpha/kappa(w) = ``target``.

    a, b are scaled to sum 1 first when their sums are positive (so that the mix is again an attention-like
    distribution). Used to build weightings of different shapes and norms but the same alpha/kappa. Raises
    ValueError if ``target`` is not between alpha/kappa(a) and alpha/kappa(b), or if the segment passes
    through 0.
    """
    from scipy.optimize import brentq

    R = _v.correlation_matrix("R", R)
    a = _v.weights_vector("a", a, R.shape[0])
    b = _v.weights_vector("b", b, R.shape[0])
    a = a / a.sum() if a.sum() > 0 else a
    b = b / b.sum() if b.sum() > 0 else b
    target = float(_v.finite_vector("target", [target])[0])
    lo, hi = snr(a, R), snr(b, R)
    if not min(lo, hi) - 1e-12 <= target <= max(lo, hi) + 1e-12:
        raise ValueError(f"target must lie between alpha/kappa(a) = {lo:.6g} and alpha/kappa(b) = {hi:.6g}, got {target:.6g}")
    if np.isclose(lo, target, rtol=0, atol=1e-12):
        return a
    if np.isclose(hi, target, rtol=0, atol=1e-12):
        return b

    def gap(lam):
        w = (1.0 - lam) * a + lam * b
        if not np.any(w != 0):
            raise ValueError("the segment from a to b passes through w = 0; choose other endpoints")
        return snr(w, R) - target

    lam = brentq(gap, 0.0, 1.0, xtol=1e-14, rtol=1e-14)
    return (1.0 - lam) * a + lam * b
