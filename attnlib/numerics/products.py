r"""Products of a (V, d) table with double-precision blocks, accumulated in double precision, by fixed row
blocks: the same numbers on every x86-64 CPU and for any number of threads.

Why. A single-precision BLAS product also *accumulates* in single precision, and the rounding of its sums
(about 1e-7 relative) depends on the kernel that runs it: OpenBLAS picks one by the CPU's SIMD width
(AVX-512, AVX2, SSE), and so does numpy for its own loops. A number printed to four digits then flips on
another machine whenever it sits within 1e-7 of a rounding boundary, and a book prints thousands of them.
Here the table may be stored in single precision (half the memory and half the traffic), but every product
converts a few rows at a time to double precision, in the cache, and accumulates in double: converting a
float32 number to float64 is exact, so the inputs are the same on every machine, and the sums differ between
kernels by about 1e-16 relative, which no printed digit sees.

How. :func:`times` computes E X row block by row block; :func:`transpose_times` computes E^T W as partial
sums over chunks of :func:`chunk_rows` rows, added in chunk order. Chunks and blocks are functions of d
only, never of the number of threads, so that threads change how fast a product runs but not one bit of it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from attnlib.numerics.linalg import blas_threads

__all__ = ["CHUNK_ENTRIES", "BLOCK_ENTRIES", "chunk_rows", "times", "transpose_times"]

#: Entries of one chunk of rows: E^T W is summed chunk by chunk, and the chunks' sums are added in order.
CHUNK_ENTRIES = 2**23
#: Entries converted to double precision at once (4 MiB in double precision).
BLOCK_ENTRIES = 2**19


def chunk_rows(d: int) -> int:
    """Rows of one chunk at dimension ``d`` (a function of d only)."""
    return max(1, CHUNK_ENTRIES // d)


def _block_rows(d: int) -> int:
    return max(1, BLOCK_ENTRIES // d)


def _chunks(V: int, d: int) -> list[tuple[int, int]]:
    step = chunk_rows(d)
    return [(a, min(V, a + step)) for a in range(0, V, step)]


def _run(job, chunks, workers: int) -> list:
    """``job`` on every chunk, in order, on ``workers`` threads (numpy and BLAS release the GIL)."""
    workers = min(workers, len(chunks))
    with blas_threads(1):
        if workers <= 1:
            return [job(c) for c in chunks]
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(job, chunks))


def times(E: np.ndarray, X: np.ndarray, workers: int = 1) -> np.ndarray:
    """E X in double precision: ``E`` (V, d) float32 or float64, ``X`` (d, n) float64; returns (V, n).

    Every row of the result is one double-precision dot product per column, whichever thread computes it.
    Inputs are assumed validated (C-contiguous ``E``).
    """
    V, d = E.shape
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.empty((V, X.shape[1]))
    step = min(_block_rows(d), chunk_rows(d))

    def job(chunk):
        a0, b0 = chunk
        if E.dtype == np.float64:
            np.matmul(E[a0:b0], X, out=out[a0:b0])
            return
        buf = np.empty((min(step, b0 - a0), d))
        for a in range(a0, b0, step):
            b = min(b0, a + step)
            np.copyto(buf[: b - a], E[a:b])
            np.matmul(buf[: b - a], X, out=out[a:b])

    _run(job, _chunks(V, d), workers)
    return out


def transpose_times(E: np.ndarray, W: np.ndarray, workers: int = 1) -> np.ndarray:
    """E^T W in double precision: ``E`` (V, d) float32 or float64, ``W`` (V, n) float64; returns (d, n).

    The sum over the V rows runs chunk by chunk (:func:`chunk_rows`), and the chunks' sums are added in chunk
    order: the result does not depend on ``workers``. Inputs are assumed validated (C-contiguous ``E``).
    """
    V, d = E.shape
    W = np.ascontiguousarray(W, dtype=np.float64)
    step = min(_block_rows(d), chunk_rows(d))

    def job(chunk):
        a0, b0 = chunk
        if E.dtype == np.float64:
            return E[a0:b0].T @ W[a0:b0]
        acc = np.zeros((d, W.shape[1]))
        buf = np.empty((min(step, b0 - a0), d))
        for a in range(a0, b0, step):
            b = min(b0, a + step)
            np.copyto(buf[: b - a], E[a:b])
            acc += buf[: b - a].T @ W[a:b]
        return acc

    parts = _run(job, _chunks(V, d), workers)
    out = parts[0].copy()
    for p in parts[1:]:
        out += p
    return out
