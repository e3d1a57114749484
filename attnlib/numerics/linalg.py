"""Eigen-solvers and the numerical conventions every spectrum of the book shares.

* One Lanczos start vector (:func:`start_vector`), fixed, so that Lanczos is deterministic without touching
  the caller's random stream.
* One rule for which eigenvalues count as zeros (:data:`ZERO_TOL`, :func:`zero_mask`).
* BLAS on one thread around Lanczos (:func:`one_blas_thread`).
* Top eigenpairs and full spectra of S = C^T C / N from pooled rows C, through the smaller of S (d x d) and
  the Gram matrix C C^T / N (N x N).
"""

from __future__ import annotations

import threading
from contextlib import nullcontext

import numpy as np
from scipy.sparse.linalg import eigsh
from threadpoolctl import ThreadpoolController

from attnlib.numerics import checks as _v
from attnlib.numerics import randomness

__all__ = [
    "ZERO_TOL",
    "zero_mask",
    "start_vector",
    "one_blas_thread",
    "sample_covariance",
    "top_eigenpairs",
    "spectrum",
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


def one_blas_thread():
    """Context in which BLAS runs on one thread (threadpoolctl), used around Lanczos.

    Lanczos is a chain of matrix-vector products, each memory-bound and short: a second BLAS thread gains
    little, and on a machine with more runnable threads than cores every product waits for a descheduled
    helper thread (measured: eigsh on a 1000 x 1000 S 10-20x slower with 2 threads on a loaded 2-core
    machine). Inside the Monte-Carlo engine's workers, which already run on one BLAS thread, it does nothing.
    """
    if getattr(BLAS_THREAD, "serial", False):
        return nullcontext()
    return BLAS.limit(limits=1, user_api="blas")


def _centered(C: np.ndarray, centered: bool) -> np.ndarray:
    return C - C.mean(axis=0) if centered else C


def sample_covariance(C, *, centered: bool = True) -> np.ndarray:
    """S = (1/N) sum_n (c_n - c_bar)(c_n - c_bar)^T (or without centering), from pooled rows C (N, d)."""
    C = _centered(np.asarray(C, dtype=float), centered)
    return C.T @ C / C.shape[0]


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


def top_eigenpairs(C, k: int = 1, *, centered: bool = True):
    """Top ``k`` eigenvalues (descending) and unit eigenvectors (d, k) of S, by Lanczos (``eigsh``).

    Works on S (d x d) when N >= d and on the Gram matrix C C^T / N (N x N) otherwise.
    """
    k = _v.positive_int("k", k)
    vals, vecs, _ = eigen(_centered(np.asarray(C, dtype=float), centered), k, full=False)
    return vals, vecs


def spectrum(C, *, centered: bool = True) -> np.ndarray:
    """All d eigenvalues of S, descending (zeros padded when N < d), without eigenvectors."""
    C = _centered(np.asarray(C, dtype=float), centered)
    M, gram = _second_moment(C)
    vals = np.clip(np.linalg.eigvalsh(M)[::-1], 0.0, None)
    return np.concatenate([vals, np.zeros(C.shape[1] - C.shape[0])]) if gram else vals


def squared_cosine(a, b) -> float:
    """cos^2 of the angle between two vectors."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float((a @ b) ** 2 / ((a @ a) * (b @ b)))


def squared_cosines(vecs, ref) -> np.ndarray:
    """cos^2 between each column of ``vecs`` (shape (d, k)) and ``ref`` (d,)."""
    vecs, ref = np.asarray(vecs, dtype=float), np.asarray(ref, dtype=float)
    return (ref @ vecs) ** 2 / ((ref @ ref) * np.einsum("ij,ij->j", vecs, vecs))
