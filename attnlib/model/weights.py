r"""Pooling weights w in R^T and the one number recovery depends on, alpha/kappa = w^T R w / ||w||^2.

Only the direction of ``w`` matters for recovery (alpha/kappa is scale invariant; kappa sets the bulk's scale).

One scaling per name: named weightings ("mean", "causal", "optimal": :data:`NAMED`, ``Setting(weights=...)``,
the keys of :func:`weightings`) sum to 1, like attention weights; unit-norm weights are asked for explicitly
(``optimal(R, normalize="norm")``, or "optimal (unit norm)" in :func:`weightings`).

The weightings and their alpha/kappa (the prefix model's :func:`prefix_snr_mean`, :func:`prefix_snr_optimal`,
:func:`prefix_gain`, :func:`prefix_snr`, and the d -> infinity limit :func:`causal` of attention) are functions of
the model's parameters w and R that define what the model is run with, so they stay in the model: an exception to
"every closed form in theory", listed in tests/test_closed_forms.py.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.model import positional as _p

__all__ = ["mean", "optimal", "optimal_nonnegative", "causal", "snr", "alpha", "kappa", "as_weights", "NAMED",
           "named", "mix_to_snr", "weightings", "snr_table", "prefix_snr_mean", "prefix_snr_optimal", "prefix_gain",
           "prefix_snr", "prefix_crossover"]


def as_weights(w, T: int | None = None) -> np.ndarray:
    """Validate pooling weights (finite, 1-D, not all zero, length T if given) and return them as floats."""
    return _v.weights_vector("w", w, T)


@_v.validated(T=_v.positive_int)
def mean(T: int) -> np.ndarray:
    """Mean pooling: w_t = 1/T."""
    return np.full(T, 1.0 / T)


def optimal(R, *, normalize: str = "sum", tol: float = 1e-10) -> np.ndarray:
    """Weights maximising alpha/kappa: the top eigenvector of R (Theorem 5), with alpha/kappa = lambda_max(R).

    If lambda_max(R) is degenerate every vector of its eigenspace is optimal; the one returned is the projection
    of the uniform vector onto that eigenspace (so R = I gives mean pooling). If that projection vanishes (the
    eigenspace is orthogonal to the uniform vector), the projection of the first basis vector e_0 (then e_1,
    ...) is used instead, so the choice never depends on how LAPACK orders a degenerate eigenbasis.

    normalize : "sum" (default, the scaling of the name "optimal": weights sum to 1, an attention
        distribution) or "norm" (unit Euclidean norm, sign chosen so that the weights sum to a positive number,
        or, if they sum to ~0, so that the first non-negligible weight is positive). "sum" raises ValueError when the optimal weights sum to ~0
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

#: Largest T for which :func:`optimal_nonnegative` enumerates supports (2^T - 1 of them) when R has negative entries.
NONNEGATIVE_MAX_T = 20


def optimal_nonnegative(R, *, max_T: int = NONNEGATIVE_MAX_T, tol: float = 1e-10) -> tuple[np.ndarray, float]:
    r"""Best weights under the attention (softmax) constraint: maximise alpha/kappa over w >= 0, w != 0.

    Attention weights are non-negative, and a softmax over positional scores reaches every strictly positive
    distribution, so this maximum is the supremum of alpha/kappa over attention weightings. The top eigenvector
    of R (:func:`optimal`) may have mixed signs; then this maximum is below lambda_max(R).

    Method (exact):

    * R >= 0 entrywise: Perron-Frobenius gives a non-negative top eigenvector, so the maximum is lambda_max(R),
      attained by :func:`optimal` (the projection of the uniform vector onto the top eigenspace, non-negative
      here). Any T.
    * Otherwise, enumeration of supports. At a maximiser w with support S, w_S is a strictly positive
      eigenvector of R_SS for its top eigenvalue, which equals the maximum (KKT conditions: R w <= lambda w
      with equality on S); and some maximiser has a support on which that eigenvalue is simple. So the maximum
      is the largest lambda_max(R_SS) over the supports S whose top eigenvector is strictly positive. All
      2^T - 1 supports are scanned, one batched eigendecomposition per support size; T = 16 takes about a
      second. Ties (equal values within ``tol``) are broken towards the larger support, then the first in
      lexicographic order.

    Parameters
    ----------
    R : array_like
        T x T correlation matrix.
    max_T : int
        Largest T accepted when R has a negative entry (the enumeration costs 2^T small eigendecompositions).
    tol : float
        Entries of R above -tol count as non-negative; eigenvector entries above tol (unit norm) as positive.

    Returns
    -------
    w : numpy.ndarray
        Non-negative weights summing to 1 (a tuple ``(w, value)`` is returned).
    value : float
        Their alpha/kappa, :func:`snr` of w: lambda_max(R) if R >= 0, at most lambda_max(R) otherwise.
    """
    R = _v.correlation_matrix("R", R)
    max_T = _v.positive_int("max_T", max_T)
    tol = _v.positive("tol", tol)
    T = R.shape[0]
    lam_max = float(np.linalg.eigvalsh(R)[-1])
    if np.all(R >= -tol):
        w = np.clip(optimal(R), 0.0, None)
        w = w / w.sum()
        value = snr(w, R)
        if value >= lam_max - 1e-9 * max(1.0, lam_max):
            return w, value
    if T > max_T:
        raise ValueError(
            f"T must be <= max_T = {max_T} for this R (it has negative entries, and the exact search enumerates "
            f"2^T - 1 supports), got T = {T}; raise max_T to accept the cost"
        )
    support, vector = _search_supports(R.tobytes(), T, tol)
    w = np.zeros(T)
    w[list(support)] = vector
    w = w / w.sum()
    return w, snr(w, R)


@lru_cache(maxsize=64)
def _search_supports(R_bytes: bytes, T: int, tol: float) -> tuple[tuple, tuple]:
    """Support and positive top eigenvector of the best R_SS (see :func:`optimal_nonnegative`); cached by R."""
    R = np.frombuffer(R_bytes, dtype=float).reshape(T, T)
    best_value, best_support, best_vector = -np.inf, None, None
    for k in range(1, T + 1):
        for chunk in _support_chunks(T, k):
            lam, vec = np.linalg.eigh(R[chunk[:, :, None], chunk[:, None, :]])
            top = vec[:, :, -1] * np.where(vec[:, :, -1].sum(axis=1) >= 0, 1.0, -1.0)[:, None]
            value = np.where(top.min(axis=1) > tol, lam[:, -1], -np.inf)
            j = int(np.argmax(value))
            if not np.isfinite(value[j]):
                continue
            tie = tol * max(1.0, abs(best_value)) if best_support is not None else 0.0
            if best_support is None or value[j] > best_value + tie or (
                    value[j] >= best_value - tie and k > best_support.size):  # ties go to the larger support
                best_value, best_support, best_vector = float(value[j]), chunk[j], top[j]
    return tuple(int(i) for i in best_support), tuple(float(x) for x in best_vector)


def _support_chunks(T: int, k: int, size: int = 50_000):
    """The supports of size k of {0..T-1} as (m, k) integer arrays of at most ``size`` rows, in lexicographic order."""
    rows = []
    for support in combinations(range(T), k):
        rows.append(support)
        if len(rows) == size:
            yield np.array(rows)
            rows = []
    if rows:
        yield np.array(rows)


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
    tau = _v.finite_scalar("tau", tau)
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


#: The weightings that can be given by name (to :func:`named` and :class:`~attnlib.model.setting.Setting`).
NAMED = ("mean", "causal", "optimal")


def named(weights, process, tau: float = 0.0) -> tuple[np.ndarray, str]:
    """Resolve pooling weights for ``process``: a name of :data:`NAMED` or an explicit array of length T.

    "mean" gives 1/T, "causal" the causal-attention limit at ``tau``, "optimal" the top eigenvector of R
    (normalised to sum 1). Returns ``(weights, label)``; an array is validated and labelled "custom".
    """
    if not isinstance(process, _p.SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {_v.short(process)}")
    if isinstance(weights, str):
        if weights == "mean":
            return mean.__wrapped__(process.T), "mean"  # T of a SignProcess: an integer >= 1
        if weights == "causal":
            tau = _v.finite_scalar("tau", tau)
            return causal(process.T, tau), f"causal (tau={tau:g})"
        if weights == "optimal":
            if optimal(process.R, normalize="norm").sum() < 1e-8:
                raise ValueError(f"weights='optimal' sums to 1, which the optimal weights of {process.name} cannot "
                                 "(they sum to ~0): pass weights=attnlib.weights.optimal(R, normalize='norm')")
            return optimal(process.R), "optimal"
        raise ValueError(f"weights must be 'mean', 'causal', 'optimal' or an array of length T, got {weights!r}")
    return _v.weights_vector("weights", weights, process.T), "custom"


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


def prefix_snr_mean(T, L):
    """alpha/kappa of mean pooling in the prefix model: (L^2 + T - L)/T = 1 + L(L-1)/T (vectorised in L, T)."""
    T, L = np.asarray(T, dtype=float), np.asarray(L, dtype=float)
    if np.any(L < 1) or np.any(L > T):
        raise ValueError(f"L must satisfy 1 <= L <= T, got L = {L}, T = {T}")
    return 1.0 + L * (L - 1.0) / T


def prefix_snr_optimal(T, L):
    """alpha/kappa of the optimal weights in the prefix model: lambda_max(R) = max(L, 1) = L."""
    T, L = np.asarray(T, dtype=float), np.asarray(L, dtype=float)
    if np.any(L < 1) or np.any(L > T):
        raise ValueError(f"L must satisfy 1 <= L <= T, got L = {L}, T = {T}")
    return L + 0.0 * T


def prefix_gain(T, L):
    """Optimal over mean pooling in the prefix model: L / (1 + L(L-1)/T); tends to T/L for L, T large, L/T fixed."""
    return prefix_snr_optimal(T, L) / prefix_snr_mean(T, L)


def prefix_snr(w, L):
    """alpha/kappa of weights ``w`` in the prefix model of length T = len(w) with prefix length(s) ``L``.

    R is 1 on the first L x L block and the identity elsewhere, so alpha = (sum_{t<L} w_t)^2 + sum_{t>=L} w_t^2
    without building R; vectorised over an array of L.
    """
    w = as_weights(w)
    L_arr = np.asarray(L)
    if not np.issubdtype(L_arr.dtype, np.integer) or np.any(L_arr < 1) or np.any(L_arr > w.size):
        raise ValueError(f"L must be integers with 1 <= L <= T = {w.size}, got {L!r}")
    head = np.concatenate([[0.0], np.cumsum(w)])[L_arr]
    tail = np.concatenate([np.cumsum((w * w)[::-1])[::-1], [0.0]])[L_arr]
    return (head**2 + tail) / (w @ w)


def weightings(R, taus=(0.0,), *, strict: bool = False) -> dict[str, np.ndarray]:
    """Mean, causal (one per tau) and optimal weights for R, each summing to 1 (one scaling per name).

    An R whose optimal weights sum to 0 (e.g. anti-correlated signs) has no sum-1 optimum: its last entry is
    then named "optimal (unit norm)" and has unit norm (alpha/kappa does not depend on the scale).
    """
    R = _v.correlation_matrix("R", R)
    T = R.shape[0]
    out = {"mean": mean(T)}
    for tau in taus:
        out[f"causal tau={tau:g}" + (" strict" if strict else "")] = causal(T, tau, strict=strict)
    unit = optimal(R, normalize="norm")
    summed = unit.sum() > 1e-8
    out["optimal" if summed else "optimal (unit norm)"] = unit / unit.sum() if summed else unit
    return out


def snr_table(processes: dict, taus=(0.0,), *, nonnegative: bool = False) -> tuple[list[str], list[list]]:
    """alpha/kappa of mean, causal(tau) for each tau, and optimal weights, for each named process.

    Returns (headers, rows); each row is [name, lambda_max(R), alpha/kappa for each weighting of
    :func:`weightings`...] (the column "optimal" also holds the unit-norm optimum of an R without a sum-1 one),
    and, with ``nonnegative=True``, a last column "best w ≥ 0": the value of :func:`optimal_nonnegative`, the best
    alpha/kappa attention weights (non-negative) can reach.
    """
    headers = None
    rows = []
    for name, proc in processes.items():
        if not isinstance(proc, _p.SignProcess):
            raise ValueError(f"processes must map names to SignProcess, got {proc!r} for {name!r}")
        ws = weightings(proc.R, taus)
        if headers is None:
            headers = ["family", "λ_max(R)"] + list(ws)[:-1] + ["optimal"] + (["best w ≥ 0"] if nonnegative else [])
        row = [name, float(np.linalg.eigvalsh(proc.R)[-1])] + [snr(w, proc.R) for w in ws.values()]
        rows.append(row + ([optimal_nonnegative(proc.R)[1]] if nonnegative else []))
    if headers is None:
        raise ValueError("processes must not be empty")
    return headers, rows


def prefix_crossover(T: int, tau: float = 0.0, *, strict: bool = False) -> int:
    """Largest prefix length L at which causal pooling (limit weights) has a larger alpha/kappa than mean pooling.

    Causal weights decrease along the sequence, so they favour a short correlated prefix; once the prefix
    covers most of the sequence, mean pooling (optimal for L = T) wins. Returns 1 if causal never wins.
    """
    T = _v.positive_int("T", T, minimum=2)
    w = causal(T, tau, strict=strict)
    best = 1
    for L in range(2, T + 1):
        if snr(w, _p.prefix(T, L).R) > prefix_snr_mean(T, L) + 1e-12:
            best = L
    return best
