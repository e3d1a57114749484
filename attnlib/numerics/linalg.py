"""Eigen-solvers and the numerical conventions every spectrum of the book shares.

* One Lanczos start vector (:func:`start_vector`), fixed, so that Lanczos is deterministic without touching
  the caller's random stream.
* One rule for which eigenvalues count as zeros (:data:`ZERO_TOL`, :func:`zero_mask`).
* BLAS on one thread around Lanczos (:func:`one_blas_thread`), or on every usable core
  (:func:`blas_threads`, :func:`usable_cores`) when each product is long.
* Top eigenpairs and full spectra of S = C^T C / N from pooled rows C (:func:`covariance_eigenpairs`,
  :func:`covariance_spectrum`), through the smaller of S (d x d) and the Gram matrix C C^T / N (N x N).
* Lanczos with full reorthogonalisation on an operator (:func:`lanczos_top`), for the matrix-free path, and
  its block form for a family of operators that differ by low-rank terms (:func:`lanczos_family`).
"""

from __future__ import annotations

import os
import threading
from contextlib import nullcontext

import numpy as np
from scipy.linalg import eigh_tridiagonal
from scipy.sparse.linalg import eigsh
from threadpoolctl import ThreadpoolController

from attnlib.numerics import checks as _v
from attnlib.numerics import randomness

__all__ = [
    "ZERO_TOL",
    "MAX_STEPS",
    "zero_mask",
    "start_vector",
    "one_blas_thread",
    "blas_threads",
    "usable_cores",
    "covariance_eigenpairs",
    "lanczos_top",
    "lanczos_family",
    "covariance_spectrum",
    "largest_eigenvalue",
    "squared_cosine",
    "squared_cosines",
]

ZERO_TOL = 1e-10
"""Eigenvalues at most ``ZERO_TOL`` times the largest one are counted in the atom at 0 (numerical zeros of a
rank-deficient S are ~1e-15 relative; the smallest genuine eigenvalue at a hard edge is ~1/d^2 relative)."""

_START_SEED = 20260530
BLAS = ThreadpoolController()
BLAS_THREAD = threading.local()  # .serial is True in worker threads that already run BLAS on one thread


def zero_mask(eigenvalues) -> np.ndarray:
    """Boolean mask of the eigenvalues counted as zeros: at most ``ZERO_TOL`` times the largest one."""
    ev = np.asarray(eigenvalues, dtype=float)
    return ev <= ZERO_TOL * ev.max() if ev.size and ev.max() > 0 else np.ones(ev.shape, bool)


def start_vector(n: int) -> np.ndarray:
    """The Lanczos start vector of length ``n`` used everywhere (a fixed Gaussian vector)."""
    return randomness.fixed_normal(_START_SEED, n)


def usable_cores() -> int:
    """The default thread count: ``ATTNLIB_THREADS`` if set (a positive integer; 1 in processes that already
    run side by side), else the cores this process may run on (``os.sched_getaffinity``), at most 8."""
    raw = os.environ.get("ATTNLIB_THREADS", "")
    if raw:
        if not raw.strip().isdigit() or int(raw) < 1:
            raise ValueError(f"ATTNLIB_THREADS must be a positive integer, got {raw!r}")
        return int(raw)
    try:
        return max(1, min(len(os.sched_getaffinity(0)), 8))
    except AttributeError:  # not available on every platform
        return max(1, min(os.cpu_count() or 1, 8))


def blas_threads(n: int):
    """Context in which BLAS runs on ``n`` threads; inside the Monte-Carlo engine's workers, which already run
    BLAS on one thread, it does nothing (their draws run side by side instead)."""
    if getattr(BLAS_THREAD, "serial", False):
        return nullcontext()
    return BLAS.limit(limits=n, user_api="blas")


def one_blas_thread():
    """Context in which BLAS runs on one thread (threadpoolctl), used around Lanczos.

    Lanczos is a chain of matrix-vector products, each memory-bound and short: a second BLAS thread gains
    little, and on a machine with more runnable threads than cores every product waits for a descheduled
    helper thread (measured: eigsh on a 1000 x 1000 S 10-20x slower with 2 threads on a loaded 2-core
    machine). Inside the Monte-Carlo engine's workers, which already run on one BLAS thread, it does nothing.
    """
    return blas_threads(1)


def _centered(C: np.ndarray, centered: bool) -> np.ndarray:
    return C - C.mean(axis=0) if centered else C


def _second_moment(C: np.ndarray) -> tuple[np.ndarray, bool]:
    """The smaller of S = C^T C / N (d x d) and the Gram matrix C C^T / N (N x N); True if it is the Gram."""
    N, d = C.shape
    M = C.T @ C if d <= N else C @ C.T  # numpy computes X^T X and X X^T with syrk (half the flops of a product)
    M /= N
    return M, d > N


def eigen(C: np.ndarray, k: int, full: bool):
    """Top-k eigenpairs of S = C^T C / N (and, if ``full``, all d eigenvalues) from one product.

    ``C`` is used as given (centre it first). Computed in the dtype of C; returned in double precision as
    ``(values (k,), vectors (d, k), spectrum (d,) or None)``, descending. Inputs are assumed validated.
    """
    N, d = C.shape
    M, gram = _second_moment(C)
    n = M.shape[0]
    all_vals = None
    if k >= n - 1:  # Lanczos cannot run (it needs k < n - 1): dense solver
        all_vals, all_vecs = np.linalg.eigh(M)
        vals, vecs = all_vals[::-1][:k], all_vecs[:, ::-1][:, :k]
    else:
        if full:  # all eigenvalues without eigenvectors (about a third of the cost of eigh with vectors)
            all_vals = np.linalg.eigvalsh(M)
        with one_blas_thread():
            vals, vecs = eigsh(M, k=k, which="LA", v0=start_vector(n).astype(M.dtype))
        order = np.argsort(vals)[::-1]
        vals, vecs = vals[order], vecs[:, order]
    if gram:  # eigenvectors of C C^T map to those of C^T C through C^T
        with one_blas_thread():
            vecs = C.T @ vecs
    vals, vecs = vals.astype(float), vecs.astype(float)
    if gram:
        vecs /= np.linalg.norm(vecs, axis=0)
    spec = None
    if full:
        spec = np.clip(all_vals[::-1].astype(float), 0.0, None)
        if gram:
            spec = np.concatenate([spec, np.zeros(d - N)])
    return vals, vecs, spec


def covariance_eigenpairs(C, k: int = 1, *, centered: bool = True):
    """Top ``k`` eigenvalues (descending) and unit eigenvectors (d, k) of S, by Lanczos (``eigsh``).

    Works on S (d x d) when N >= d and on the Gram matrix C C^T / N (N x N) otherwise.
    """
    k = _v.positive_int("k", k)
    vals, vecs, _ = eigen(_centered(np.asarray(C, dtype=float), centered), k, full=False)
    return vals, vecs


def covariance_spectrum(C, *, centered: bool = True) -> np.ndarray:
    """All d eigenvalues of S, descending (zeros padded when N < d), without eigenvectors."""
    C = _centered(np.asarray(C, dtype=float), centered)
    M, gram = _second_moment(C)
    vals = np.clip(np.linalg.eigvalsh(M)[::-1], 0.0, None)
    return np.concatenate([vals, np.zeros(C.shape[1] - C.shape[0])]) if gram else vals


def largest_eigenvalue(M) -> float:
    """The largest eigenvalue of a symmetric matrix ``M`` (``numpy.linalg.eigvalsh``); for a correlation matrix R,
    lambda_max(R), the largest alpha/kappa of any weighting (Theorem 5)."""
    M = _v.finite_array("M", M)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.size == 0:
        raise ValueError(f"M must be a non-empty square matrix, got shape {M.shape}")
    if not np.allclose(M, M.T, rtol=0.0, atol=1e-10 * max(1.0, float(np.abs(M).max()))):
        raise ValueError(f"M must be symmetric, got {_v.short(M)}")
    return float(np.linalg.eigvalsh(M)[-1])


def squared_cosine(a, b) -> float:
    """cos^2 of the angle between two vectors."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float((a @ b) ** 2 / ((a @ a) * (b @ b)))


def squared_cosines(vecs, ref) -> np.ndarray:
    """cos^2 between each column of ``vecs`` (shape (d, k)) and ``ref`` (d,)."""
    vecs, ref = np.asarray(vecs, dtype=float), np.asarray(ref, dtype=float)
    return (ref @ vecs) ** 2 / ((ref @ ref) * np.einsum("ij,ij->j", vecs, vecs))


#: Lanczos steps after which :func:`lanczos_top` gives up (the basis then holds 400 vectors of length d).
MAX_STEPS = 400


def lanczos_top(matvec, d: int, k: int, tol: float, v0: np.ndarray):
    """Top ``k`` eigenpairs of a symmetric operator by Lanczos with full reorthogonalisation, from ``v0``.

    ``matvec`` maps a (d,) double-precision vector to its image. After each step the Ritz pairs of the
    tridiagonal matrix are formed, and the iteration stops once each of the top ``k`` has residual
    ``beta_m |y_m|`` at most ``tol`` times its Ritz value (ARPACK's test), or once the Krylov space is
    invariant. Every basis vector is kept and orthogonalised twice against all earlier ones: no restarts, so
    no product is wasted, which is what costs when each product streams a large table. Returns ``(values (k,),
    vectors (d, k), steps)``, descending. Raises ValueError after ``MAX_STEPS`` steps without convergence.
    Inputs are assumed validated (``k < d``).
    """
    steps = min(d, MAX_STEPS)
    Q = np.empty((steps, d))
    Q[0] = v0 / np.linalg.norm(v0)
    alphas, betas = np.zeros(steps), np.zeros(steps)
    for j in range(steps):
        w = np.asarray(matvec(Q[j]), dtype=float).ravel()
        alphas[j] = Q[j] @ w
        for _ in range(2):  # classical Gram-Schmidt, twice: orthogonal to working precision
            w -= Q[: j + 1].T @ (Q[: j + 1] @ w)
        betas[j] = np.linalg.norm(w)
        m = j + 1
        if m >= k:
            theta, U = eigh_tridiagonal(alphas[:m], betas[: m - 1])
            top = np.argsort(theta)[::-1][:k]
            invariant = betas[j] <= 1e-12 * np.abs(theta).max() or m == d
            if invariant or np.all(betas[j] * np.abs(U[-1, top]) <= tol * np.abs(theta[top])):
                return theta[top], Q[:m].T @ U[:, top], m
        if m < steps:
            Q[m] = w / betas[j]
    raise ValueError(f"Lanczos did not reach relative residual {tol:g} in {steps} steps (d = {d}, k = {k})")


def lanczos_family(matmat, start: np.ndarray, couplings, tol: float):
    """Top eigenpair of each operator A + X C_i X^T of a family, from one block Krylov space of A.

    ``matmat`` maps a (d, b) block to A times it; ``start`` is X (d, b), of full column rank; ``couplings``
    are the symmetric (b, b) matrices C_i. Because every member differs from A inside the span of X, the block
    Krylov space of A from X is that of every member from X: block Lanczos on A (full reorthogonalisation)
    builds it once, and member i is its block tridiagonal matrix with X's coupling added to the first block.
    Each product serves the whole family. The iteration stops once every member's top Ritz pair has residual
    at most ``tol`` times its value (the test of :func:`lanczos_top`), or once the space is invariant.
    Returns ``(values (n,), vectors (d, n), steps)``: steps counts block products. Raises ValueError after
    ``MAX_STEPS`` products without convergence, or if the block loses rank. Inputs are assumed validated.
    """
    d, b = start.shape
    Q1, R = np.linalg.qr(start)
    corrections = [R @ C @ R.T for C in couplings]
    steps = min(d // b, MAX_STEPS // b)
    Q = np.empty((d, steps * b))
    Q[:, :b] = Q1
    T = np.zeros((steps * b, steps * b))
    for j in range(steps):
        cols = slice(j * b, (j + 1) * b)
        W = np.asarray(matmat(Q[:, cols]), dtype=float)
        T[cols, cols] = Q[:, cols].T @ W
        for _ in range(2):  # orthogonal to every earlier block
            W -= Q[:, : (j + 1) * b] @ (Q[:, : (j + 1) * b].T @ W)
        Qn, Bj = np.linalg.qr(W)
        m = (j + 1) * b
        scale = np.abs(np.diag(T)[:m]).max()
        invariant = np.linalg.norm(Bj) <= 1e-12 * scale or m + b > d
        if not invariant and np.abs(np.diag(Bj)).min() <= 1e-10 * scale:
            raise ValueError(f"block Lanczos lost rank at step {j + 1} (d = {d}, block {b})")
        values, vectors, done = [], [], True
        for D in corrections:
            Tm = (T[:m, :m] + T[:m, :m].T) / 2
            Tm[:b, :b] += D
            theta, Y = np.linalg.eigh(Tm)
            values.append(theta[-1])
            vectors.append(Y[:, -1])
            done &= bool(np.linalg.norm(Bj @ Y[m - b :, -1]) <= tol * abs(theta[-1]))
        if done or invariant:
            return np.array(values), Q[:, :m] @ np.array(vectors).T, j + 1
        if j + 1 < steps:
            Q[:, m : m + b] = Qn
            T[m : m + b, cols] = Bj
            T[cols, m : m + b] = Bj.T
    raise ValueError(f"block Lanczos did not reach relative residual {tol:g} in {steps} steps (d = {d})")
