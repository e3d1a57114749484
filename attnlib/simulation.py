"""Monte-Carlo draws of the model: pooled vectors, the spectrum of S and the top eigenvector's overlaps.

The fast path: pool through a sparse token-weight matrix (:func:`attnlib.model.pool`, row blocks in parallel
threads), centre the pooled rows in place, form S = C^T C / N once with BLAS (numpy uses the symmetric rank-k
update ``syrk`` for C^T C), and use Lanczos (``eigsh``) when only the top eigenpairs are needed; when the full
spectrum is needed, compute all eigenvalues of the smaller of S (d x d) and the Gram matrix C C^T / N (N x N)
without eigenvectors, and the top eigenvectors by Lanczos.

Precision: when only the top eigenpairs are needed, :func:`simulate` pools and diagonalises in single
precision (``LANCZOS_DTYPE``, float32) from the same double-precision random draws: this halves the memory
traffic and the cost of forming S, and changes eigenvalues by about 1e-6 relative (overlaps by about 1e-6
absolute), far below the Monte-Carlo spread. The full spectrum, :func:`top_eigenpairs`, :func:`spectrum` and
:func:`sample_covariance` stay in double precision.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import eigsh
from threadpoolctl import ThreadpoolController

from . import _validate as _v
from .model import Vocabulary, _check_rng, _draw_tokens, _pool_table, _workers, draw_vocabulary
from .progress import progress
from .setting import Setting

__all__ = ["Draw", "simulate", "Sweep", "sweep", "sample_covariance", "top_eigenpairs", "spectrum", "squared_cosine",
           "one_blas_thread"]

#: Floating-point type of the pooled vectors and of S in :func:`simulate` when only top eigenpairs are needed.
LANCZOS_DTYPE = np.float32


def _centered(C: np.ndarray, centered: bool) -> np.ndarray:
    return C - C.mean(axis=0) if centered else C


def sample_covariance(C, *, centered: bool = True) -> np.ndarray:
    """S = (1/N) sum_n (c_n - c_bar)(c_n - c_bar)^T (or without centering), from pooled rows C (N, d)."""
    C = _centered(np.asarray(C, dtype=float), centered)
    return C.T @ C / C.shape[0]


_BLAS = ThreadpoolController()
_THREAD = threading.local()  # .serial is True in sweep's worker threads, where BLAS is already on one thread


def one_blas_thread():
    """Context in which BLAS runs on one thread (threadpoolctl), used around Lanczos.

    Lanczos is a chain of matrix-vector products, each memory-bound and short: a second BLAS thread gains
    little, and on a machine with more runnable threads than cores every product waits for a descheduled
    helper thread (measured: eigsh on a 1000 x 1000 S 10-20x slower with 2 threads on a loaded 2-core
    machine).
    """
    if getattr(_THREAD, "serial", False):
        return nullcontext()
    return _BLAS.limit(limits=1, user_api="blas")


def _start_vector(n: int) -> np.ndarray:
    # A fixed start vector keeps Lanczos deterministic without touching the caller's random stream.
    return np.random.default_rng(20260530).standard_normal(n)


def _second_moment(C: np.ndarray) -> tuple[np.ndarray, bool]:
    """The smaller of S = C^T C / N (d x d) and the Gram matrix C C^T / N (N x N); True if it is the Gram."""
    N, d = C.shape
    M = C.T @ C if d <= N else C @ C.T  # numpy computes X^T X and X X^T with syrk (half the flops of a product)
    M /= N
    return M, d > N


def _eigen(C: np.ndarray, k: int, full: bool):
    """Top-k eigenpairs of S (and, if ``full``, all d eigenvalues) from one product C^T C or C C^T.

    Computed in the dtype of C; returned in double precision.
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
            vals, vecs = eigsh(M, k=k, which="LA", v0=_start_vector(n).astype(M.dtype))
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
    vals, vecs, _ = _eigen(_centered(np.asarray(C, dtype=float), centered), k, full=False)
    return vals, vecs


def spectrum(C, *, centered: bool = True) -> np.ndarray:
    """All d eigenvalues of S, descending (zeros padded when N < d)."""
    C = _centered(np.asarray(C, dtype=float), centered)
    M, gram = _second_moment(C)
    vals = np.clip(np.linalg.eigvalsh(M)[::-1], 0.0, None)
    return np.concatenate([vals, np.zeros(C.shape[1] - C.shape[0])]) if gram else vals


def squared_cosine(a, b) -> float:
    """cos^2 of the angle between two vectors."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float((a @ b) ** 2 / ((a @ a) * (b @ b)))


@dataclass(frozen=True, eq=False)
class Draw:
    """One simulated draw: eigenvalues of S (descending) and the top eigenvector's squared overlaps.

    ``eigenvalues`` holds all d eigenvalues if the spectrum was requested, else the top ``k``.
    ``overlap_u``, ``overlap_h``, ``overlap_g``: cos^2 of the top eigenvector with u = mu/||mu||,
    h = mu + Zs/V (class centroid) and g = Z1/V (vocabulary mean).
    """

    setting: Setting
    eigenvalues: np.ndarray
    overlap_u: float
    overlap_h: float
    overlap_g: float
    centered: bool

    @property
    def top(self) -> float:
        return float(self.eigenvalues[0])


def simulate(setting: Setting, rng: np.random.Generator, *, centered: bool = True, full_spectrum: bool = False,
             k: int = 1, vocabulary: Vocabulary | None = None) -> Draw:
    """Draw a vocabulary (unless one is given) and N pooled sequences for ``setting``; analyse S.

    Parameters
    ----------
    setting : Setting
    rng : numpy.random.Generator
        The only source of randomness (vocabulary, signs, tokens).
    centered : bool
        Centre the pooled vectors before forming S (default). The uncentered S has an extra spike along g.
    full_spectrum : bool
        Return all d eigenvalues (dense diagonalisation) instead of the top ``k`` (Lanczos).
    vocabulary : Vocabulary, optional
        Reuse a drawn vocabulary (must match d, V and ||mu||^2 of the setting).
    """
    if not isinstance(setting, Setting):
        raise ValueError(f"setting must be an attnlib.Setting, got {setting!r}")
    rng = _check_rng(rng)
    if vocabulary is None:
        vocabulary = draw_vocabulary(setting.d, setting.V, setting.mu_norm2, rng)
    elif (vocabulary.d, vocabulary.V) != (setting.d, setting.V) or not np.isclose(vocabulary.mu_norm2, setting.mu_norm2):
        raise ValueError(
            f"vocabulary (d={vocabulary.d}, V={vocabulary.V}, mu_norm2={vocabulary.mu_norm2:g}) does not match the "
            f"setting (d={setting.d}, V={setting.V}, mu_norm2={setting.mu_norm2:g})"
        )
    k = _v.positive_int("k", k)
    return _simulate(setting, rng, vocabulary, centered, full_spectrum, k)


def _simulate(setting: Setting, rng: np.random.Generator, vocabulary: Vocabulary, centered: bool,
              full_spectrum: bool, k: int, pool_workers: int | None = None) -> Draw:
    """:func:`simulate` on validated arguments; ``pool_workers`` threads for the pooling product."""
    # Same draws as model.draw_pooled (signs, then tokens), pooled in single precision when Lanczos will run.
    dtype = np.float64 if full_spectrum or k >= min(setting.N, setting.d) - 1 else LANCZOS_DTYPE
    _, tokens = _draw_tokens(setting.process, setting.V, setting.N, rng)
    C = _pool_table(vocabulary.table.astype(dtype, copy=False), tokens, setting.weights, pool_workers)
    if centered:  # in place: C is ours
        C -= C.mean(axis=0, dtype=np.float64).astype(dtype)
    vals, vecs, spec = _eigen(C, k, full=full_spectrum)
    del C
    if full_spectrum:
        vals = spec
    top = vecs[:, 0]
    with one_blas_thread():  # h = E^T s / V and g = E^T 1 / V: two short matrix-vector products
        h = vocabulary.signs.astype(float) @ vocabulary.table / vocabulary.V
        g = np.ones(vocabulary.V) @ vocabulary.table / vocabulary.V
    return Draw(
        setting=setting,
        eigenvalues=vals,
        overlap_u=squared_cosine(top, vocabulary.u),
        overlap_h=squared_cosine(top, h),
        overlap_g=squared_cosine(top, g),
        centered=centered,
    )


@dataclass(frozen=True, eq=False)
class Sweep:
    """Results of :func:`sweep`: arrays of shape (n_settings, trials) and the settings they belong to.

    ``top`` and ``second``: the two largest eigenvalues of S; ``overlap_u``, ``overlap_h``, ``overlap_g``: squared
    overlaps of the top eigenvector. Use :meth:`mean` and :meth:`sem` (standard error) along the trials.
    """

    settings: tuple
    top: np.ndarray
    second: np.ndarray
    overlap_u: np.ndarray
    overlap_h: np.ndarray
    overlap_g: np.ndarray
    centered: bool

    def mean(self, name: str) -> np.ndarray:
        return getattr(self, name).mean(axis=1)

    def sem(self, name: str) -> np.ndarray:
        values = getattr(self, name)
        if values.shape[1] < 2:
            raise ValueError(f"the standard error needs at least 2 trials, got {values.shape[1]}")
        return values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])


def sweep(settings, seed: int, trials: int, *, centered: bool = True, desc: str | None = None) -> Sweep:
    """Simulate every setting ``trials`` times, each trial with a fresh vocabulary and fresh sequences.

    Trial ``j`` of setting ``i`` draws from its own stream ``SeedSequence(seed).spawn(...)[i * trials + j]``, so
    results do not depend on the order of evaluation and adding settings does not change earlier ones' draws
    of the same index. Draws run in parallel threads, one per usable core, each on one core (BLAS on one thread):
    every draw computes exactly what it computes alone with one BLAS thread, whatever the number of cores. A
    progress bar is shown unless ``ATTNLIB_PROGRESS=0`` (see :mod:`attnlib.progress`).
    """
    settings = tuple(settings)
    if not settings or not all(isinstance(s, Setting) for s in settings):
        raise ValueError("settings must be a non-empty sequence of attnlib.Setting")
    trials = _v.positive_int("trials", trials)
    seed = _v.positive_int("seed", seed, minimum=0)
    streams = np.random.SeedSequence(seed).spawn(len(settings) * trials)
    out = np.empty((5, len(settings), trials))
    jobs = [(i, j) for i in range(len(settings)) for j in range(trials)]
    workers = min(_workers(), len(jobs))

    def one(job, parallel: bool):
        i, j = job
        _THREAD.serial = parallel
        rng = np.random.default_rng(streams[i * trials + j])
        vocabulary = draw_vocabulary(settings[i].d, settings[i].V, settings[i].mu_norm2, rng)
        draw = _simulate(settings[i], rng, vocabulary, centered, False, 2, pool_workers=1 if parallel else None)
        return job, (draw.eigenvalues[0], draw.eigenvalues[1], draw.overlap_u, draw.overlap_h, draw.overlap_g)

    if workers == 1:
        for job in progress(jobs, total=len(jobs), desc=desc):
            (i, j), values = one(job, False)
            out[:, i, j] = values
        return Sweep(settings, *out, centered=centered)
    # Independent draws run in parallel threads, each on one core (BLAS on one thread, serial pooling): the heavy
    # steps release the GIL, and no draw waits inside BLAS for a helper thread. Each draw's arithmetic is that of
    # a serial draw with one BLAS thread, whatever the number of threads or the order in which draws finish.
    pool = ThreadPoolExecutor(workers)
    try:
        with _BLAS.limit(limits=1, user_api="blas"):
            for (i, j), values in progress(pool.map(lambda job: one(job, True), jobs), total=len(jobs), desc=desc):
                out[:, i, j] = values
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return Sweep(settings, *out, centered=centered)
