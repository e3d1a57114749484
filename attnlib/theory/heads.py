r"""Many heads: the spikes and the bulk of H concatenated attention heads, and the span bound.

H heads with fixed weights W = [w^(1) ... w^(H)] (T x H) pool a sequence into c = vec(X W) in R^{dH} (the H
pooled vectors stacked). Given the vocabulary its covariance is exactly (WᵀRW) ⊗ hhᵀ + (WᵀW) ⊗ W', with the
H x H matrices A = WᵀRW and B = WᵀW of :func:`head_matrices`. In the limit, with G the Stieltjes transform
of MP_delta (through psi = zeta G - 1, :func:`mp_psi`) and B = U diag(b) Uᵀ:

* the noise (population) law is that of b_i x, b_i an eigenvalue of B and x ~ MP_delta, with upper edge
  max(b) (1 + sqrt(delta))^2 (:func:`population_edge`);
* an outlier ell solves ||h||^2 lambda_k(K(ell)) = 1, where K(ell) = A^{1/2} Phi(ell) A^{1/2} and
  Phi(ell) = U diag(G(ell / b_i) / b_i) Uᵀ (1/ell where b_i = 0): :func:`signal_matrix`. Each ordered
  eigenvalue of K decreases in ell, so spike k exists iff ||h||^2 lambda_k(K(edge)) > 1;
* the sample covariance of N = d/gamma vectors has the law of that population seen through dH/N = H gamma,
  whose inverse Stieltjes map is z(y) = y (1 + gamma sum_i psi(y / b_i)), psi(z) = z G(z) - 1
  (:func:`sample_map`); the upper edge is z(y*) at its critical point y* (:func:`critical_point`), an outlier
  ell > y* is seen at z(ell), and the squared overlap of the two eigenvectors is ell z'(ell) / z(ell).

With orthonormal heads (WᵀW = I, :func:`whiten`) every spike is a single head's: the eigenvalues of the
pencil (WᵀRW, WᵀW) (:func:`pencil`) play alpha/kappa, and H gamma plays gamma. :func:`span_bound` bounds the
top one by lambda_max(R).The bulk law is :class:`attnlib.theory.HeadsBulk`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from attnlib.numerics import checks as _v

__all__ = ["check_heads", "head_matrices", "pencil", "SpanBound", "span_bound", "whiten", "noise_scales",
           "population_edge", "mp_psi", "resolvent_matrix", "signal_matrix", "sample_map", "critical_point",
           "HeadSpikes", "spikes", "signal_spikes", "head_thresholds", "spike_curves"]

_ZERO = 1e-12  # an eigenvalue of B at most this times the largest counts as 0 (a head in the span of others)
#: An eigenvalue of K at most this times the largest counts as 0: its spike would need a signal a million times
#: stronger than the top one's, and double precision determines it only to about 1e-16 / RELATIVE_K of itself.
RELATIVE_K = 1e-6


def check_heads(W, T: int | None = None) -> np.ndarray:
    """W as a (T, H) float array: finite, no all-zero column, T rows if given (a 1-D array is one head)."""
    arr = _v.finite_array("W", W)
    arr = arr[:, None] if arr.ndim == 1 else arr
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"W must be a (T, H) array of head weights (one column per head), got shape {arr.shape}")
    if T is not None and arr.shape[0] != T:
        raise ValueError(f"W must have T = {T} rows (one weight per position), got {arr.shape[0]}")
    if np.any(~np.any(arr != 0, axis=0)):
        raise ValueError("W must not have an all-zero column (that head's kappa would vanish)")
    return arr


def head_matrices(R, W) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) = (WᵀRW, WᵀW), the H x H matrices of the signal and of the noise."""
    R = _v.correlation_matrix("R", R)
    W = check_heads(W, R.shape[0])
    return W.T @ R @ W, W.T @ W


def _basis(W: np.ndarray) -> np.ndarray:
    """An orthonormal basis of span W (T x rank)."""
    U, s, _ = np.linalg.svd(W, full_matrices=False)
    return U[:, s > _ZERO**0.5 * s[0]]


def pencil(R, W) -> np.ndarray:
    """The eigenvalues of the pencil (WᵀRW, WᵀW), descending: those of QᵀRQ, Q an orthonormal basis of span W.

    The first is max over w in span W of wᵀRw / ||w||^2, the best alpha/kappa of a linear combination of the
    heads; there are rank(W) of them.
    """
    R = _v.correlation_matrix("R", R)
    Q = _basis(check_heads(W, R.shape[0]))
    return np.linalg.eigvalsh(Q.T @ R @ Q)[::-1]


@dataclass(frozen=True)
class SpanBound:
    """The top pencil eigenvalue ``top`` against ``lambda_max`` (R); ``sin2`` = sin^2 of the angle between the
    top eigenvector of R and span W; the gap lambda_max - top lies in [``lower``, ``upper``] =
    [(lambda_1 - lambda_2) sin2, (lambda_1 - lambda_T) sin2]."""

    top: float
    lambda_max: float
    sin2: float
    lower: float
    upper: float


def span_bound(R, W) -> SpanBound:
    """The span bound: max over span W of wᵀRw/||w||^2 <= lambda_max(R), equal iff the top eigenvector of R
    lies in span W (when lambda_max is simple; the gap is bracketed by sin^2 of that angle)."""
    R = _v.correlation_matrix("R", R)
    Q = _basis(check_heads(W, R.shape[0]))
    lam, vec = np.linalg.eigh(R)
    sin2 = float(max(0.0, 1.0 - np.sum((Q.T @ vec[:, -1]) ** 2)))
    top = float(np.linalg.eigvalsh(Q.T @ R @ Q)[-1])
    return SpanBound(top, float(lam[-1]), sin2, float(lam[-1] - lam[-2]) * sin2 if lam.size > 1 else 0.0,
                     float(lam[-1] - lam[0]) * sin2)


def whiten(W) -> np.ndarray:
    """W (WᵀW)^{-1/2}: orthonormal heads with the same span (W of full column rank)."""
    W = check_heads(W)
    b, U = np.linalg.eigh(W.T @ W)
    if b[0] <= _ZERO * b[-1]:
        raise ValueError("W must have full column rank to be whitened (a head is a combination of others)")
    return W @ (U / np.sqrt(b)) @ U.T


def _spectral(B: np.ndarray):
    b, U = np.linalg.eigh(B)
    b = np.clip(b, 0.0, None)
    return np.where(b <= _ZERO * b[-1], 0.0, b), U


def noise_scales(B) -> np.ndarray:
    """The eigenvalues b_i of B = WᵀW (ascending, clipped at 0; those at most 1e-12 max(b) set to 0)."""
    return _spectral(_v.finite_array("B", B))[0]


def population_edge(delta, B) -> float:
    """Upper edge max(b) (1 + sqrt(delta))^2 of the noise part B ⊗ W' of the population covariance."""
    return float(noise_scales(B)[-1] * (1.0 + np.sqrt(_v.positive("delta", delta))) ** 2)


def mp_psi(zeta, delta, *, derivative: bool = False):
    """psi(zeta) = zeta G(zeta) - 1 of MP_delta (or psi' = -psi/r), real zeta at or above the edge, vectorised:
    psi = 2/(a + r), a = zeta - 1 - delta, r = sqrt(a^2 - 4 delta), the root of delta psi^2 - a psi + 1 = 0.
    It is :func:`attnlib.theory.mp_stieltjes`'s zeta G - 1 without its cancellation at large zeta = y/b."""
    delta = _v.positive("delta", delta)
    zeta = np.asarray(_v.finite_array("zeta", zeta), dtype=float)
    edge = (1.0 + np.sqrt(delta)) ** 2
    if np.any(zeta < edge * (1.0 - 1e-13)):
        raise ValueError(f"zeta must be at least the edge (1 + sqrt(delta))^2 = {edge:.6g}")
    at_edge = np.abs(zeta / edge - 1.0) < 1e-14  # the edge up to rounding: r = 0 exactly
    a = np.where(at_edge, 2.0 * np.sqrt(delta), zeta - 1.0 - delta)
    r = np.where(at_edge, 0.0, np.sqrt(np.maximum(a * a - 4.0 * delta, 0.0)))
    psi = 2.0 / (a + r)
    if not derivative:
        return psi
    if np.any(r == 0):
        raise ValueError("psi' is infinite at the edge of MP_delta")
    return -psi / r


def _phi(ell: float, b: np.ndarray, delta: float, derivative: bool = False) -> np.ndarray:
    """int dMP_delta(x) / (ell - b x) = (1 + psi(ell/b)) / ell for each b (1/ell at b = 0), or its derivative."""
    out = np.full(b.shape, -1.0 / ell**2 if derivative else 1.0 / ell)
    pos = b > 0
    if np.any(pos):
        zeta = ell / b[pos]
        psi = mp_psi(zeta, delta)
        out[pos] = (zeta * mp_psi(zeta, delta, derivative=True) - 1.0 - psi) / ell**2 if derivative else (
            1.0 + psi) / ell
    return out


def _root(A: np.ndarray) -> np.ndarray:
    lam, U = np.linalg.eigh(A)
    return (U * np.sqrt(np.clip(lam, 0.0, None))) @ U.T


def resolvent_matrix(delta, ell, B, *, derivative: bool = False) -> np.ndarray:
    """Phi(ell) = U diag(int dMP_delta(x)/(ell - b_i x)) Uᵀ (or its derivative in ell), ell >= the edge.

    The limit of (I ⊗ h)ᵀ (ell - B ⊗ W')^{-1} (I ⊗ h) / ||h||^2.
    """
    delta = _v.positive("delta", delta)
    b, U = _spectral(_v.finite_array("B", B))
    ell = _v.positive("ell", ell)
    if ell < population_edge(delta, B) * (1.0 - 1e-13):
        raise ValueError(f"ell must be at least the population edge {population_edge(delta, B):.6g}, got {ell:.6g}")
    return (U * _phi(ell, b, delta, derivative)) @ U.T


def signal_matrix(delta, ell, A, B) -> np.ndarray:
    """K(ell) = A^{1/2} Phi(ell) A^{1/2}: spike k sits where ||h||^2 lambda_k(K) = 1."""
    S = _root(_v.finite_array("A", A))
    return S @ resolvent_matrix(delta, ell, B) @ S


def _k_values(ell: float, A, B, delta) -> np.ndarray:
    """The eigenvalues of K(ell), descending, those at most RELATIVE_K times the largest set to 0."""
    lam = np.linalg.eigvalsh(signal_matrix(delta, ell, A, B))[::-1]
    return np.where(lam > RELATIVE_K * max(lam[0], 0.0), lam, 0.0)


def _z(y: np.ndarray, b: np.ndarray, delta: float, gamma: float, derivative: bool) -> np.ndarray:
    """z(y) or z'(y) for an array of y and the positive b_i (validated); z' = 1 + gamma sum_i psi_i (r_i - zeta_i)
    / r_i, with r - zeta = -((1 + delta)(2 zeta - 1 - delta) + 4 delta) / (r + zeta) (no cancellation)."""
    zeta = y[..., None] / b
    psi = mp_psi(zeta, delta)
    if not derivative:
        return y * (1.0 + gamma * np.sum(psi, axis=-1))
    a = zeta - 1.0 - delta
    r = np.sqrt(np.maximum(a * a - 4.0 * delta, 0.0))
    if np.any(r == 0):
        raise ValueError("z' is infinite at the population edge")
    gap = -((1.0 + delta) * (2.0 * zeta - 1.0 - delta) + 4.0 * delta) / (r + zeta)
    return 1.0 + gamma * np.sum(psi * gap / r, axis=-1)


def sample_map(y, B, delta, gamma, *, derivative: bool = False):
    """z(y) = y (1 + gamma sum_i psi(y/b_i)) over the b_i > 0 (or z'(y)), y above the population edge;
    vectorised over y."""
    delta, gamma = _v.positive("delta", delta), _v.nonnegative("gamma", gamma)
    b = noise_scales(B)
    y = np.asarray(_v.positive("y", y, allow_array=True), dtype=float)
    out = _z(y, b[b > 0], delta, gamma, derivative)
    return float(out) if out.ndim == 0 else out


def critical_point(B, delta, gamma) -> float:
    """y*: the population edge when gamma = 0, else the root of z'(y) above it (z' < 0 just above the edge)."""
    edge = population_edge(delta, B)
    if _v.nonnegative("gamma", gamma) == 0:
        return edge
    b = noise_scales(B)
    b = b[b > 0]
    dz = lambda y: float(_z(np.asarray(y), b, delta, gamma, True))  # noqa: E731
    ys = edge * (1.0 + np.geomspace(1e-12, 1e4, 400))
    i = int(np.flatnonzero(_z(ys, b, delta, gamma, True) > 0)[0])
    if i == 0:
        raise ValueError("z'(y) is positive at the population edge: no critical point")
    return float(brentq(dz, ys[i - 1], ys[i], xtol=1e-15 * edge, rtol=1e-15))


@dataclass(frozen=True)
class HeadSpikes:
    """The spikes of concatenated heads, one entry per pencil direction k (descending): outliers (nan below
    their threshold) and squared overlaps (0 below) of the eigenvectors with the signal subspace R^H ⊗ h
    (``direction`` "h") or R^H ⊗ mu ("u": times ||mu||^2/(||mu||^2 + delta))."""

    population_eigenvalue: np.ndarray
    sample_eigenvalue: np.ndarray
    population_overlap: np.ndarray
    sample_overlap: np.ndarray
    direction: str = "h"

    @property
    def count(self) -> int:
        """The number of sample outliers."""
        return int(np.sum(np.isfinite(self.sample_eigenvalue)))


def _population_roots(h_norm2: float, A, B, delta):
    """Roots ell > edge of h2 lambda_k(K(ell)) = 1, k = 0..H-1 (nan where there is none)."""
    edge = population_edge(delta, B)
    top = _k_values(edge, A, B, delta) * h_norm2
    roots = np.full(top.size, np.nan)
    for k in np.flatnonzero(top > 1.0):
        f = lambda ell: h_norm2 * np.linalg.eigvalsh(signal_matrix(delta, ell, A, B))[-1 - k] - 1.0  # noqa: E731
        hi = 2.0 * edge
        while f(hi) > 0:
            hi *= 2.0
        roots[k] = brentq(f, edge, hi, xtol=1e-15 * edge, rtol=1e-15)
    return roots


def _overlap(ell: float, A, B, delta, k: int) -> float:
    """a' Phi^2 a / a' (-Phi') a with a = A^{1/2} y_k: cos^2 of the population eigenvector with R^H ⊗ h
    (0 at the edge, where Phi' is infinite)."""
    if ell <= population_edge(delta, B) * (1.0 + 1e-14):
        return 0.0
    S = _root(A)
    Phi = resolvent_matrix(delta, ell, B)
    y = np.linalg.eigh(S @ Phi @ S)[1][:, ::-1][:, k]
    a = S @ y
    return float(a @ Phi @ Phi @ a / (a @ -resolvent_matrix(delta, ell, B, derivative=True) @ a))


def spikes(delta, gamma, h_norm2, A, B) -> HeadSpikes:
    """The spikes of (A ⊗ hhᵀ + B ⊗ W') for ||h||^2 = ``h_norm2``, and of its sample covariance from
    N = d/gamma vectors (ratio H gamma): overlaps with R^H ⊗ h."""
    h2 = _v.nonnegative("h_norm2", h_norm2)
    A, B = _v.finite_array("A", A), _v.finite_array("B", B)
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    roots = _population_roots(h2, A, B, delta)
    y_star = critical_point(B, delta, gamma)
    pop_ov, smp_eig, smp_ov = np.zeros(roots.size), np.full(roots.size, np.nan), np.zeros(roots.size)
    for k in np.flatnonzero(np.isfinite(roots)):
        ell = roots[k]
        pop_ov[k] = _overlap(ell, A, B, delta, int(k))
        if ell > y_star:
            z = sample_map(ell, B, delta, gamma)
            smp_eig[k] = z
            smp_ov[k] = pop_ov[k] * ell * sample_map(ell, B, delta, gamma, derivative=True) / z
    return HeadSpikes(roots, smp_eig, pop_ov, smp_ov)


def signal_spikes(delta, gamma, R, W, mu_norm2, *, direction: str = "u") -> HeadSpikes:
    """The signal's spikes for heads ``W`` on signs of correlation ``R``: ||h||^2 = ||mu||^2 + delta;
    overlaps with R^H ⊗ mu (``direction="u"``) or R^H ⊗ h ("h")."""
    A, B = head_matrices(R, W)
    mu2 = _v.nonnegative("mu_norm2", mu_norm2)
    delta = _v.positive("delta", delta)
    out = spikes(delta, gamma, mu2 + delta, A, B)
    if _v.choice("direction", direction, ("u", "h")) == "h":
        return out
    f = mu2 / (mu2 + delta)
    return HeadSpikes(out.population_eigenvalue, out.sample_eigenvalue, out.population_overlap * f,
                      out.sample_overlap * f, "u")


def head_thresholds(delta, gamma, R, W) -> tuple[np.ndarray, np.ndarray]:
    """(population, sample) thresholds on ||mu||^2 of each spike k: 1/lambda_k(K(y)) - delta at y = the
    population edge and y = y* (0 where the class split q alone is enough, inf where lambda_k = 0, or below
    RELATIVE_K times lambda_1)."""
    A, B = head_matrices(R, W)
    out = []
    for g in (0.0, _v.positive("gamma", gamma)):
        lam = _k_values(critical_point(B, delta, g), A, B, delta)
        with np.errstate(divide="ignore"):
            out.append(np.where(lam > 0, np.maximum(1.0 / np.where(lam > 0, lam, 1.0) - delta, 0.0), np.inf))
    return out[0], out[1]


def spike_curves(delta, gamma, R, W, ells) -> dict:
    """Spike k along its branch, parametrised by the population outlier ell (no root finding): at ell the
    spike needs ||mu||^2 = 1/lambda_k(K(ell)) - delta and is seen at z(ell) when ell > y*.

    Returns ``{"mu2": (H, n), "sample": (H, n) (nan where ell <= y*), "population": ells}``.
    """
    A, B = head_matrices(R, W)
    ells = np.atleast_1d(_v.finite_array("ells", ells)).astype(float)
    y_star = critical_point(B, delta, gamma)
    lam = np.array([_k_values(e, A, B, delta) for e in ells]).T
    with np.errstate(divide="ignore"):
        mu2 = np.where(lam > 0, 1.0 / np.where(lam > 0, lam, 1.0) - delta, np.inf)
    z = np.array([sample_map(e, B, delta, gamma) if e > y_star else np.nan for e in ells])
    return {"mu2": mu2, "sample": np.broadcast_to(z, mu2.shape).copy(), "population": ells}
