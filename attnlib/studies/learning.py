r"""Learned positional attention: pooling weights w = softmax(b) trained on a downstream loss, and the best
weights a softmax with bounded scores can reach.

Training. Sequence n is pooled as c_n = sum_t w_t e_{v_{n,t}} with w = softmax(b), and a linear read-out
f_n = beta^T c_n + beta_0 is fitted jointly with b by minimising the logistic loss
mean_n log(1 + exp(-y_n f_n)) + (lam/2) ||beta||^2 with L-BFGS and the analytic gradient. Because the tokens
are rows of the table E, f_n = sum_t w_t (E beta)_{v_{n,t}} + beta_0: one product E beta per evaluation and
O(N T) work for the sequences, and the gradient in beta is E^T a with a_v = sum_{n,t : v_{n,t}=v} r_n w_t.

Targets. :func:`label_snr_optimum` maximises the Fisher separation of :func:`attnlib.studies.downstream.label_snr`
over softmax weights (the best a trained layer can do on the task, in the limit); :func:`bounded_optimum`
maximises alpha/kappa over w = softmax(b) with 0 <= b_t <= B, which tends to lambda_+(R) of
:func:`attnlib.model.weights.optimal_nonnegative` as B grows, and :func:`bounded_gap` is the first-order size of
the shortfall, C e^{-B}, minimised over every maximiser of lambda_+ (:func:`nonnegative_maximisers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit, softmax

from attnlib.model.setting import check_setting
from attnlib.numerics import checks as _v
from attnlib.numerics import randomness
from attnlib.model import weights as _w
from attnlib.studies.downstream import label_signal, resolve_position
from attnlib.theory.classification import label_separation

__all__ = ["TrainedPooling", "train_pooling", "decision", "test_accuracy", "label_snr_optimum",
           "nonnegative_maximisers", "bounded_optimum", "bounded_gap", "shortfall_constant", "cosine_distance"]


@dataclass(frozen=True, eq=False)
class TrainedPooling:
    """A trained positional pooling and linear read-out: scores b (T,), weights w = softmax(b), coefficients
    beta (d,), intercept beta0, final loss, L-BFGS iterations and whether it reported convergence."""

    b: np.ndarray
    w: np.ndarray
    beta: np.ndarray
    beta0: float
    loss: float
    iterations: int
    converged: bool


def _inputs(table, tokens, y=None):
    table = np.asarray(table, dtype=float)
    if table.ndim != 2 or min(table.shape) == 0 or not np.all(np.isfinite(table)):
        raise ValueError(f"table must be a finite (V, d) array, got shape {np.shape(table)}")
    tokens = np.asarray(tokens)
    if tokens.ndim != 2 or not np.issubdtype(tokens.dtype, np.integer) or tokens.size == 0:
        raise ValueError(f"tokens must be a non-empty (N, T) integer array, got shape {tokens.shape}")
    if tokens.min() < 0 or tokens.max() >= table.shape[0]:
        raise ValueError(f"tokens must lie in 0..V-1 = 0..{table.shape[0] - 1}")
    if y is None:
        return table, tokens, None
    y = np.asarray(y)
    if y.shape != (tokens.shape[0],) or not np.all(np.isin(y, (-1, 1))):
        raise ValueError(f"y must be a length-N = {tokens.shape[0]} array of -1/+1 labels, got shape {y.shape}")
    return table, tokens, y.astype(float)


def _loss_and_gradient(params, table, tokens, y, lam):
    """Logistic loss + (lam/2)||beta||^2 and its gradient in (b, beta, beta0)."""
    N, T = tokens.shape
    V, d = table.shape
    b, beta, beta0 = params[:T], params[T:T + d], params[-1]
    w = softmax(b)
    P = (table @ beta)[tokens]  # (N, T): beta^T e of each token
    margin = y * (P @ w + beta0)
    loss = -np.mean(log_expit(margin)) + 0.5 * lam * beta @ beta
    r = -y * expit(-margin) / N  # d loss / d f_n
    g_w = P.T @ r
    g_b = w * (g_w - w @ g_w)
    a = np.bincount(tokens.ravel(), weights=(r[:, None] * w[None, :]).ravel(), minlength=V)
    g_beta = table.T @ a + lam * beta
    return loss, np.concatenate([g_b, g_beta, [r.sum()]])


def train_pooling(table, tokens, y, *, lam: float = 1e-3, max_iter: int = 500, b0=None) -> TrainedPooling:
    """Fit positional scores b and a linear read-out on labelled sequences (logistic loss, L-BFGS).

    Parameters
    ----------
    table : array_like
        The (V, d) embedding table E.
    tokens : array_like
        (N, T) token ids of the training sequences.
    y : array_like
        (N,) labels in {-1, +1}.
    lam : float
        Ridge penalty on beta (not on b or beta0).
    max_iter : int
        L-BFGS iterations at most.
    b0 : array_like, optional
        Starting scores (default 0: mean pooling); beta and beta0 start at 0.

    Returns
    -------
    TrainedPooling
    """
    table, tokens, y = _inputs(table, tokens, y)
    lam = _v.nonnegative("lam", lam)
    max_iter = _v.positive_int("max_iter", max_iter)
    T, d = tokens.shape[1], table.shape[1]
    b0 = np.zeros(T) if b0 is None else _v.finite_vector("b0", b0)
    if b0.size != T:
        raise ValueError(f"b0 must have length T = {T}, got {b0.size}")
    start = np.concatenate([b0, np.zeros(d + 1)])
    res = minimize(_loss_and_gradient, start, args=(table, tokens, y, lam), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, "gtol": 1e-9, "ftol": 1e-13})
    b = res.x[:T]
    return TrainedPooling(b, softmax(b), res.x[T:T + d], float(res.x[-1]), float(res.fun), int(res.nit),
                          bool(res.success))


def decision(fit: TrainedPooling, table, tokens) -> np.ndarray:
    """Scores f_n = beta^T c_n + beta0 of sequences ``tokens`` (N, T) pooled with the trained weights."""
    if not isinstance(fit, TrainedPooling):
        raise ValueError(f"fit must be a TrainedPooling, got {fit!r}")
    table, tokens, _ = _inputs(table, tokens)
    if tokens.shape[1] != fit.w.size or table.shape[1] != fit.beta.size:
        raise ValueError(f"tokens must have T = {fit.w.size} columns and table d = {fit.beta.size} columns")
    return (table @ fit.beta)[tokens] @ fit.w + fit.beta0


def test_accuracy(fit: TrainedPooling, table, tokens, y) -> float:
    """Fraction of sequences whose label sign(f_n) (0 counts as +1) equals y_n."""
    _, tokens, y = _inputs(table, tokens, y)
    return float(np.mean(np.where(decision(fit, table, tokens) >= 0, 1.0, -1.0) == y))


def cosine_distance(a, b) -> float:
    """1 - cos(a, b) of two weight vectors (0 when they point the same way)."""
    a, b = _v.weights_vector("a", a), _v.weights_vector("b", b)
    if a.size != b.size:
        raise ValueError(f"a and b must have the same length, got {a.size} and {b.size}")
    return float(1.0 - a @ b / np.sqrt((a @ a) * (b @ b)))


def label_snr_optimum(setting, position: int | None = None, *, starts: int = 1, seed: int = 0):
    """Softmax weights maximising the Fisher separation :func:`attnlib.studies.downstream.label_snr` of ``setting``'s
    task (its process, label position, ||mu||^2 and delta; its own weights are ignored).

    Maximised over the scores b of w = softmax(b) by BFGS (numerical gradient), from mean pooling and
    ``starts - 1`` random scores, clipped to 40 so that the optimum may send weights to 0. Returns
    ``(w, varsigma2)``.
    """

    check_setting(setting)
    starts = _v.positive_int("starts", starts)
    rng = randomness.generator(_v.positive_int("seed", seed, minimum=0))
    T, R = setting.T, setting.R
    label = resolve_position(setting.process, position)

    # label_snr of w = softmax(b), by the formulas without their entry checks (the setting is checked above):
    # nothing is built or checked again at each of the optimiser's thousands of steps. (getattr: a wrong formula
    # that the wrong-formula tests put in a formula's place has no entry check to skip.)
    signal, separation = (getattr(f, "__wrapped__", f) for f in (label_signal, label_separation))

    def objective(b):
        w = softmax(np.clip(b, -40.0, 40.0))
        return -separation(setting.delta, signal(w, R, label), setting.mu_norm2, float(w @ R @ w), float(w @ w))

    best = None
    for k in range(starts):
        res = minimize(objective, np.zeros(T) if k == 0 else rng.normal(0.0, 2.0, T), method="BFGS",
                       options={"gtol": 1e-10})
        if best is None or res.fun < best.fun:
            best = res
    return softmax(np.clip(best.x, -40.0, 40.0)), float(-best.fun)


def _snr_and_gradient(b, R):
    """-alpha/kappa of w = softmax(b) and its gradient in b."""
    w = softmax(b)
    kappa = w @ w
    q = w @ R @ w / kappa
    g_w = 2.0 * (R @ w - q * w) / kappa
    return -q, -(w * (g_w - w @ g_w))


@lru_cache(maxsize=32)
def _maximisers(R_bytes: bytes, T: int, tol: float) -> tuple[tuple[float, ...], ...]:
    """Every support whose R_SS has a strictly positive top eigenvector for an eigenvalue within ``tol``
    (relative) of the largest such eigenvalue; each as its weights (sum 1, zeros off the support)."""
    R = np.frombuffer(R_bytes, dtype=float).reshape(T, T)
    found = []
    for k in range(1, T + 1):
        supports = np.array(list(combinations(range(T), k)))
        for chunk in np.array_split(supports, max(1, supports.shape[0] // 20_000)):
            lam, vec = np.linalg.eigh(R[chunk[:, :, None], chunk[:, None, :]])
            top = vec[:, :, -1] * np.where(vec[:, :, -1].sum(axis=1) >= 0, 1.0, -1.0)[:, None]
            for j in np.flatnonzero(top.min(axis=1) > 1e-10):
                found.append((float(lam[j, -1]), chunk[j], top[j]))
    best = max(value for value, _, _ in found)
    out = []
    for value, support, vector in found:
        if value >= best - tol * max(1.0, abs(best)):
            w = np.zeros(T)
            w[support] = vector / vector.sum()
            out.append(tuple(w))
    return tuple(out)


def nonnegative_maximisers(R, *, tol: float = 1e-9, max_T: int = _w.NONNEGATIVE_MAX_T) -> list[np.ndarray]:
    r"""Every maximiser of alpha/kappa = w^T R w / ||w||^2 over w >= 0 (up to scale), each normalised to sum 1.

    The maximum is :math:`\lambda_+(R)` (:func:`attnlib.model.weights.optimal_nonnegative`), and it may be attained at
    several points: for a Toeplitz R with negative entries, translates of one support often tie (R = (-0.5)^|t-s|
    has two maximisers, on the odd and on the even positions). A point w >= 0 with support S is a maximiser iff
    w_S is a strictly positive top eigenvector of R_SS for the eigenvalue lambda_+ (KKT conditions); so the
    maximisers with a simple top eigenvalue on their support are found by scanning all 2^T - 1 supports, and a
    support counts when its eigenvalue is within ``tol`` (relative) of the largest. If R >= 0 entrywise with a
    simple top eigenvalue, the maximiser is the Perron vector, unique (any T). A maximum attained on a continuum
    (a degenerate top eigenvalue on one support) is represented by the supports' extreme points only.

    Parameters
    ----------
    R : array_like
        T x T correlation matrix.
    tol : float
        Relative tolerance for a tie with the largest value.
    max_T : int
        Largest T for the scan of supports (2^T small eigendecompositions; T = 16 takes about a second).

    Returns
    -------
    list of numpy.ndarray
        The maximisers (each non-negative, summing to 1), in lexicographic order of their supports.
    """
    R = _v.correlation_matrix("R", R)
    tol = _v.positive("tol", tol)
    max_T = _v.positive_int("max_T", max_T)
    T = R.shape[0]
    lam = np.linalg.eigvalsh(R)
    if np.all(R >= -1e-10) and (T == 1 or lam[-1] - lam[-2] > tol * max(1.0, lam[-1])):
        return [_w.optimal_nonnegative(R)[0]]
    if T > max_T:
        raise ValueError(f"T must be <= max_T = {max_T} to scan the 2^T - 1 supports for this R, got T = {T}; "
                         "raise max_T to accept the cost")
    return [np.array(w) for w in _maximisers(R.tobytes(), T, tol)]


def _first_order_scores(w: np.ndarray, B: float) -> np.ndarray:
    """Scores of the best bounded weighting near a maximiser w, to first order: B + log(w_t / max w) on the
    support (clipped to [0, B]) and 0 off it."""
    with np.errstate(divide="ignore"):
        b = np.where(w > 0, B + np.log(w / w.max()), 0.0)
    return np.clip(b, 0.0, B)


def shortfall_constant(R, w) -> float:
    """C_k of one maximiser ``w`` of :func:`nonnegative_maximisers`: 2 max_j w_j sum_{i off the support of w}
    abs((R w)_i) / ||w||^2, the first-order cost e^{-B} C_k of bounded scores near w (see :func:`bounded_gap`).

    It stays with the study of learned weights, an exception to "every closed form in theory" (listed in
    tests/test_closed_forms.py): it is a property of one maximiser found by that study's search.
    """
    R = _v.correlation_matrix("R", R)
    w = _v.weights_vector("w", w, R.shape[0])
    if np.any(w < 0):
        raise ValueError("w must be non-negative (a maximiser of alpha/kappa over w >= 0)")
    return float(2.0 * w.max() * np.sum(np.abs(R @ w)[w <= 0]) / (w @ w))


def bounded_optimum(R, B: float, *, random_starts: int = 0, seed: int = 0):
    r"""Best alpha/kappa of w = softmax(b) with every score in [0, B] (weight ratios at most e^B).

    The problem is not concave: every maximiser of :func:`nonnegative_maximisers` has its own local optimum
    near it for large B, and they differ at order e^{-B} (:func:`bounded_gap`); at small B the best scores
    are often B on a maximiser's support and 0 off it. L-BFGS-B is started from the uniform scores and, for
    each maximiser w, from its first-order scores (B + log(w_t / max w) on the support, 0 off it) and from
    B on its support, plus ``random_starts`` scores uniform in [0, B]^T (generator ``seed``); the best local
    optimum is returned as ``(w, value)``. The value increases to lambda_+(R) as B grows.
    """
    R = _v.correlation_matrix("R", R)
    B = _v.positive("B", B)
    random_starts = _v.positive_int("random_starts", random_starts, minimum=0)
    rng = randomness.generator(_v.positive_int("seed", seed, minimum=0))
    T = R.shape[0]
    starts = [np.full(T, B / 2)]
    for w in nonnegative_maximisers(R):
        starts += [_first_order_scores(w, B), B * (w > 0)]
    starts += list(rng.uniform(0.0, B, (random_starts, T)))
    best = None
    for b0 in starts:
        res = minimize(_snr_and_gradient, b0, args=(R,), jac=True, method="L-BFGS-B", bounds=[(0.0, B)] * T,
                       options={"gtol": 1e-14, "ftol": 1e-16, "maxiter": 5000})
        if best is None or res.fun < best.fun:
            best = res
    return softmax(best.x), float(-best.fun)


def bounded_gap(R) -> float:
    r"""The constant C of lambda_+(R) - max_{0 <= b <= B} alpha/kappa ~ C e^{-B} as B -> infinity.

    At a non-negative maximiser w (support S), the gradient of the Rayleigh quotient q off the support is
    2 (R w)_i / ||w||^2 <= 0 (the KKT conditions). Bounded scores force every weight off S up to at least
    e^{-B} max_j w_j, which to first order costs C_w e^{-B} with C_w = 2 max_j w_j sum_{i not in S} abs((R w)_i)
    / ||w||^2, and readjusting the weights on S gains only at second order. With several maximisers
    (:func:`nonnegative_maximisers`) the bounded optimum follows the cheapest: C = min_w C_w (0 when R >= 0 and
    the optimum has full support).

    It stays with the study of learned weights, an exception to "every closed form in theory" (listed in
    tests/test_closed_forms.py): it needs the maximisers that study's search finds.
    """
    R = _v.correlation_matrix("R", R)
    return min(shortfall_constant(R, w) for w in nonnegative_maximisers(R))
