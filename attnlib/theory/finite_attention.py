r"""Closed forms of finite-d causal self-attention: how far its empirical pooling weights stray from their
d -> infinity limit (``attnlib.model.weights.causal``) at finite d and V, to leading order in 1/d.

:func:`deviation_second_moment` (and its root-mean-square :func:`deviation_rms`) and :func:`deviation_mean` expand
each query's softmax in its score perturbations; :func:`repeated_pairs` counts the positions that hold the same
token. The simulations they are compared with are in :mod:`attnlib.studies.causal_attention`.

With scores tau x^T x / sqrt(d) (the usual scaling) the weights stay random as d grows: :func:`score_tilt` is
the mean tilt of the weights away from mean pooling, and :func:`random_row_moments` (through
:func:`softmax_row_second_moment`) the mean and second moment of weights whose attention rows are softmaxes of
i.i.d. Gaussian scores; the layer they describe is simulated in :mod:`attnlib.studies.real_layer`.
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["deviation_second_moment", "deviation_rms", "repeated_pairs", "deviation_mean", "score_tilt",
           "softmax_row_second_moment", "random_row_moments"]


def _rows(T: int, tau: float, strict: bool):
    """Limit attention rows: for each query, (query index, keys, limit probabilities, index of self or None)."""
    e = np.exp(min(tau, 700.0))
    out = []
    for t in range(1 if strict else 0, T):
        if strict:
            keys = np.arange(t)
            p = np.full(t, 1.0 / t)
            out.append((t, keys, p, None))
        else:
            keys = np.arange(t + 1)
            p = np.ones(t + 1)
            p[t] = e
            out.append((t, keys, p / p.sum(), t))
    return out


def deviation_second_moment(T: int, tau: float, d: int, *, V: int | None = None, R=None,
                            strict: bool = False) -> np.ndarray:
    r"""Leading-order E[(w - w_inf)(w - w_inf)^T] of the empirical attention weights of one sequence (T x T).

    w_inf = ``attnlib.model.weights.causal``. Two finite-size effects, both of order 1/d when V is proportional
    to d:

    * Gaussian fluctuation of the scores. Query t's scores are tau (1{s=t} + eps_ts) with
      eps_tt = ||x_t||^2/d - 1 of variance 2/d and eps_ts = x_t^T x_s/d of variance 1/d, all uncorrelated
      (to leading order; the signal adds O(1/d) to the mean only). Each pair (t, s) enters one query's row
      only, so rows are independent, and the softmax Jacobian J_t = diag(p_t) - p_t p_t^T gives
      Cov(w) ~ (tau^2 / Q^2) sum_t J_t D_t J_t with D_t = diag(eps variances) and Q the number of queries.
    * Repeated tokens (only if V is given). Positions t > s hold the same token with probability
      (1 + R_ts)/V (same sign with probability (1 + R_ts)/2, then 1 of V/2 tokens); then x_t^T x_s/d -> 1 and
      key s gets the self score tau in query t's row. Each such event moves w by a finite Delta_ts / Q and
      contributes (1 + R_ts)/V Delta_ts Delta_ts^T. R defaults to the identity.

    Valid for tau / sqrt(d) small (the expansion is in the score perturbations, the next order is
    O(tau^4/d^2)).
    """
    T = _v.positive_int("T", T, minimum=2 if strict else 1)
    tau = _v.finite_scalar("tau", tau)
    d = _v.positive_int("d", d)
    if V is not None:
        V = _v.positive_int("V", V, even=True, minimum=2)
    R = np.eye(T) if R is None else _v.correlation_matrix("R", R)
    if R.shape != (T, T):
        raise ValueError(f"R must be T x T = {T} x {T}, got shape {R.shape}")
    rows = _rows(T, tau, strict)
    Q = len(rows)
    e = np.exp(min(tau, 700.0))
    M = np.zeros((T, T))
    for t, keys, p, self_idx in rows:
        var = np.full(keys.size, 1.0 / d)
        if self_idx is not None:
            var[self_idx] = 2.0 / d
        J = np.diag(p) - np.outer(p, p)
        M[np.ix_(keys, keys)] += tau**2 * (J * var) @ J
        if V is None:
            continue
        for j, s in enumerate(keys):
            if s == t:
                continue
            scores = np.ones(keys.size)
            if self_idx is not None:
                scores[self_idx] = e
            scores[j] = e
            delta = scores / scores.sum() - p
            M[np.ix_(keys, keys)] += (1.0 + R[t, s]) / V * np.outer(delta, delta)
    return M / Q**2


def deviation_rms(T: int, tau: float, d: int, *, V: int | None = None, R=None, strict: bool = False) -> float:
    """Predicted root-mean-square of w_s - w_inf,s over positions s for one sequence: sqrt(trace(M) / T)."""
    M = deviation_second_moment(T, tau, d, V=V, R=R, strict=strict)
    return float(np.sqrt(np.trace(M) / M.shape[0]))


def repeated_pairs(R, V: int) -> float:
    r"""Expected number of position pairs s < t of one sequence holding the same token: sum_{s<t} (1 + R_ts) / V.

    Positions t and s carry the same sign with probability (1 + R_ts)/2, and then the same one of the V/2
    tokens of that class with probability 2/V. The pairs are nearly independent events of probability O(1/V),
    so a sequence repeats some token with probability about 1 - exp(-repeated_pairs), and among N sequences
    about N T^2 / (2V) do when R = I.
    """
    R = _v.correlation_matrix("R", R)
    V = _v.positive_int("V", V, even=True, minimum=2)
    return float(np.sum(1.0 + R[np.triu_indices(R.shape[0], 1)]) / V)


def deviation_mean(T: int, tau: float, d: int, *, mu_norm2: float = 0.0, R=None, strict: bool = False) -> np.ndarray:
    r"""Leading-order bias E[w - w_inf] (length T, order 1/d) of the empirical weights, for distinct tokens.

    Second-order expansion of each query's softmax in its score perturbations tau eps: the mean of eps
    (E[||x_t||^2/d - 1] = ||mu||^2/d, E[x_t^T x_s/d] = R_ts ||mu||^2/d) enters through the Jacobian,
    and the variances (2/d on the self score, 1/d on the others) through the second derivatives
    d^2 p_s / d a_u^2 = p_s (1{s=u} - p_u)^2 - p_s p_u (1 - p_u). Terms of order 1/d^2 are dropped. Sequences
    with a repeated token are excluded (their contribution is of order 1/V, see
    :func:`deviation_second_moment`). R defaults to the identity.
    """
    T = _v.positive_int("T", T, minimum=2 if strict else 1)
    tau = _v.finite_scalar("tau", tau)
    d = _v.positive_int("d", d)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    R = np.eye(T) if R is None else _v.correlation_matrix("R", R)
    if R.shape != (T, T):
        raise ValueError(f"R must be T x T = {T} x {T}, got shape {R.shape}")
    rows = _rows(T, tau, strict)
    bias = np.zeros(T)
    for t, keys, p, self_idx in rows:
        mean_eps = R[t, keys] * mu_norm2 / d  # R_tt = 1 gives the self term ||mu||^2/d
        var = np.full(keys.size, 1.0 / d)
        if self_idx is not None:
            var[self_idx] = 2.0 / d
        J = np.diag(p) - np.outer(p, p)
        # second derivatives: rows s (output), columns u (perturbed logit)
        D2 = p[:, None] * (np.eye(keys.size) - p[None, :]) ** 2 - p[:, None] * (p * (1.0 - p))[None, :]
        bias[keys] += tau * J @ mean_eps + 0.5 * tau**2 * D2 @ var
    return bias / len(rows)


def score_tilt(tau: float, d: int) -> float:
    r"""E[a_ts / a_tt] for keys s < t with scores tau x^T x / sqrt(d) and x_t, x_s i.i.d. N(0, I_d), exactly:
    :math:`(1 + 2\tau/\sqrt d - \tau^2/d)^{-d/2} = \exp(-\tau\sqrt d + 3\tau^2/2 + O(d^{-1/2}))`, the tilt of the
    mean weights away from mean pooling, E[w_s] - 1/T = tilt (T + 1 - 2s)/T to first order (tau > 0)."""
    tau, d = _v.finite_scalar("tau", tau), _v.positive_int("d", d)
    return float((1.0 + 2.0 * tau / np.sqrt(d) - tau**2 / d) ** (-d / 2.0))


def softmax_row_second_moment(k: int, sigma: float, *, nodes: int = 96) -> float:
    r"""E[a_1^2] for a = softmax(sigma g) over k keys, g_1..g_k i.i.d. N(0, 1).

    With Y_j = exp(sigma g_j) and 1/S^2 = int_0^inf u exp(-u S) du (S = sum_j Y_j),

    .. math:: E[a_1^2] = \int_0^\infty u\, E[Y^2 e^{-uY}]\, E[e^{-uY}]^{k-1} du ,

    computed with Gauss-Hermite nodes for the expectations over g and the trapezoid rule in log u. Equals
    1/k^2 at sigma = 0 and 1 at k = 1; by symmetry of g it depends on abs(sigma) only.
    """
    k = _v.positive_int("k", k)
    sigma = abs(_v.finite_scalar("sigma", sigma))
    nodes = _v.positive_int("nodes", nodes, minimum=8)
    if k == 1:
        return 1.0
    if sigma < 1e-12:
        return 1.0 / k**2
    x, wts = np.polynomial.hermite_e.hermegauss(nodes)
    wts = wts / wts.sum()
    Y = np.exp(sigma * x)  # (nodes,)
    s = np.linspace(-12 - 6 * sigma, 8 + 6 * sigma, 4001)  # log u; the integrand is negligible outside
    u = np.exp(s)
    decay = np.exp(-np.outer(u, Y))  # (grid, nodes)
    phi = decay @ wts
    inner = (decay * Y**2) @ wts
    integrand = u * u * inner * phi ** (k - 1)  # du = u ds
    return float(np.sum((integrand[1:] + integrand[:-1]) / 2) * (s[1] - s[0]))


def random_row_moments(T: int, sigma: float, *, self_key: bool = True):
    r"""Mean and second moment of pooling weights whose attention rows are softmaxes of i.i.d. Gaussian scores.

    Query t (1-indexed) attends to keys K_t = {1..t} (``self_key=True``), or K_1 = {1} and K_t = {1..t-1} for
    t >= 2 (``self_key=False``: the self key suppressed, the first query keeping its only key); its row is
    softmax(sigma g) over K_t with independent standard Gaussian g, rows independent; w = (1/T) sum_t a_t.
    This is the large-d law of the layer's weights in two regimes: scores tau x^T x / sqrt(d) with tau < 0
    (``self_key=False``, sigma = tau), and random projections with scores tau q^T k / sqrt(d) (``self_key=True``,
    sigma = tau).

    Returns
    -------
    mean : numpy.ndarray
        E[w] (T,): the harmonic weights :func:`attnlib.model.weights.causal` (T, 0) for ``self_key=True``, and its
        tau -> -infinity limit e_1/T + (T-1)/T times the strictly causal weights otherwise.
    second : numpy.ndarray
        E[w w^T] (T, T) = E[w] E[w]^T + (1/T^2) sum_t Cov(a_t), with Cov(a_t) on its k keys equal to
        (m2 - c) I + (c - 1/k^2) 1 1^T, m2 = :func:`softmax_row_second_moment` (k, sigma), c = (1/k - m2)/(k-1).
    """
    T = _v.positive_int("T", T)
    sigma = _v.finite_scalar("sigma", sigma)
    mean, cov = np.zeros(T), np.zeros((T, T))
    for t in range(1, T + 1):
        k = t if self_key or t == 1 else t - 1
        mean[:k] += 1.0 / k
        if k > 1:
            m2 = softmax_row_second_moment(k, sigma)
            c = (1.0 / k - m2) / (k - 1)
            cov[:k, :k] += (m2 - c) * np.eye(k) + (c - 1.0 / k**2)
    mean /= T
    return mean, np.outer(mean, mean) + cov / T**2
