r"""Attention pooling: c_n = sum_t w_t e_{v_{n,t}}, computed as C = A E with the sparse (N, V) token-weight
matrix A[n, v] = sum_{t : v_{n,t} = v} w_t (never a dense N x V matrix, never a loop over positions); the product
runs on row blocks in threads, with the same arithmetic whatever the number of threads.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from attnlib.model.generative import Vocabulary, draw_tokens
from attnlib.model.positional import SignProcess
from attnlib.numerics import checks as _v
from attnlib.numerics.linalg import usable_cores

__all__ = ["token_matrix", "pool", "draw_pooled", "token_csr", "pool_table", "pool_workers", "sparse_times_dense"]


def token_csr(tokens: np.ndarray, w: np.ndarray, V: int, dtype=np.float64) -> sp.csr_matrix:
    """The (N, V) token-weight matrix built directly in CSR form: row n holds the T entries (v_{n,t}, w_t).

    No COO -> CSR conversion and no summing of repeated token ids: a CSR matrix with repeated column indices in
    a row represents their sum, which is all products with it need. Inputs are assumed validated.
    """
    N, T = tokens.shape
    index = np.int32 if max(N * T, V) < 2**31 else np.int64
    data = np.tile(np.asarray(w, dtype=dtype), N)
    indptr = np.arange(0, N * T + 1, T, dtype=index)
    return sp.csr_matrix((data, tokens.ravel().astype(index, copy=False), indptr), shape=(N, V))


def pool_workers() -> int:
    """The default number of threads of a product: :func:`attnlib.numerics.linalg.usable_cores`."""
    return usable_cores()


def sparse_times_dense(A: sp.csr_matrix, E: np.ndarray, workers: int | None = None) -> np.ndarray:
    """A @ E for CSR ``A``, split into row blocks computed in parallel threads (scipy releases the GIL there).

    Each row of the result is computed by one thread with the same arithmetic as the serial product, so the
    result does not depend on the number of threads (``workers``, default: the usable cores, at most 8; one
    thread per 2^20 multiply-adds at least). Inputs are assumed validated.
    """
    N = A.shape[0]
    workers = min(pool_workers() if workers is None else workers, max(1, A.nnz * E.shape[1] // 2**20))
    if workers == 1:
        return np.asarray(A @ E)
    cuts = np.linspace(0, N, workers + 1).astype(int)
    out = np.empty((N, E.shape[1]), dtype=np.result_type(A.dtype, E.dtype))

    def block(i):
        a, b = cuts[i], cuts[i + 1]
        p, q = A.indptr[a], A.indptr[b]
        rows = sp.csr_matrix((A.data[p:q], A.indices[p:q], A.indptr[a : b + 1] - p), shape=(b - a, A.shape[1]))
        out[a:b] = rows @ E

    with ThreadPoolExecutor(workers) as pool_:
        list(pool_.map(block, range(workers)))
    return out


def token_matrix(tokens, w, V: int) -> sp.csr_matrix:
    """Sparse (N, V) token-weight matrix A with A[n, v] = sum of w_t over positions t holding token v."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2:
        raise ValueError(f"tokens must be an (N, T) integer array, got shape {tokens.shape}")
    N, T = tokens.shape
    w = _v.weights_vector("w", w, T)
    V = _v.positive_int("V", V)
    if tokens.size and (tokens.min() < 0 or tokens.max() >= V):
        raise ValueError(f"tokens must lie in 0..V-1 = 0..{V - 1}")
    A = token_csr(tokens, w, V)
    A.sum_duplicates()  # canonical form: one entry per (n, v), sorted
    return A


#: Entries of a float32 table converted to double precision at once by :func:`pool_table` (4 MiB).
COLUMN_BLOCK_ENTRIES = 2**19


def pool_table(table: np.ndarray, tokens: np.ndarray, w: np.ndarray, workers: int | None = None) -> np.ndarray:
    """C = A E in double precision, (N, d), for a (V, d) float32 or float64 table; inputs are assumed validated.

    A float32 table is converted to double precision by blocks of columns (exactly: every float32 number is a
    float64 number), so that C and everything computed from it are sums in double precision, the same on
    every CPU to about 1e-16 relative; no double-precision copy of the whole table is made.
    """
    A = token_csr(tokens, w, table.shape[0])
    if table.dtype == np.float64:
        return sparse_times_dense(A, table, workers)
    V, d = table.shape
    C = np.empty((A.shape[0], d))
    step = max(1, COLUMN_BLOCK_ENTRIES // V)
    for a in range(0, d, step):
        C[:, a : a + step] = sparse_times_dense(A, table[:, a : a + step].astype(np.float64), workers)
    return C


def pool(vocab: Vocabulary, tokens, w) -> np.ndarray:
    """Pooled vectors c_n = sum_t w_t e_{v_{n,t}}, as rows of an (N, d) array (C = A E, A sparse)."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2:
        raise ValueError(f"tokens must be an (N, T) integer array, got shape {tokens.shape}")
    w = _v.weights_vector("w", w, tokens.shape[1])
    if tokens.size and (tokens.min() < 0 or tokens.max() >= vocab.V):
        raise ValueError(f"tokens must lie in 0..V-1 = 0..{vocab.V - 1}")
    return pool_table(vocab.table, tokens, w)


def draw_pooled(vocab: Vocabulary, process: SignProcess, w, N: int, rng: np.random.Generator):
    """Draw N sequences from ``process`` over ``vocab`` and pool them: returns (C (N, d), xi (N, T)).

    Tokens follow the vocabulary's frequencies (``vocab.frequencies``), uniform in their class by default.
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    w = _v.weights_vector("w", w, process.T)
    N = _v.positive_int("N", N)
    rng = _v.rng(rng)
    freq = None if vocab.frequencies is None else 2 * vocab.frequencies[: vocab.V // 2]
    xi, tokens = draw_tokens(process, vocab.V, N, rng, freq)
    return pool_table(vocab.table, tokens, w), xi
