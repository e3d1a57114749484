r"""Concatenated heads, matrix-free: the sample covariance S of c_n = vec(X_n W) in R^{dH} and the population
covariance (WᵀRW) ⊗ hhᵀ + (WᵀW) ⊗ W', applied without forming them, and one draw of the model with H heads.

Sample level. Head h pools the sequences through its own sparse token-weight matrix A_h (N x V), so the rows
of the (N, dH) matrix of pooled vectors are [A_1 E, ..., A_H E], and for x = (x_1; ...; x_H) in R^{dH}

.. math:: S x = \frac1N \big[E^\top A_{h'}^\top P u\big]_{h'}, \qquad u = \sum_h A_h E x_h,

with P the centring of R^N. One product is one pass over the table with H columns (E [x_1 ... x_H]), the
sparse products, and one pass back (Eᵀ[A_1ᵀPu ... A_HᵀPu]); each pass goes through
``attnlib.numerics.products`` (every sum in double precision). Neither the pooled vectors (N x dH) nor S
(dH x dH) exist.

Population level. With W' applied by :class:`attnlib.engine.operators.PopulationCovariance` (alpha = 0,
kappa = 1: W' = Zᵀ Z / V - qqᵀ - ggᵀ through the table), block h' of the product is
sum_h B_{h'h} W' x_h + A_{h'h} h (hᵀ x_h): one operator of the engine, composed.

A draw (:func:`simulate_heads`) records the top k eigenvalues and the squared overlaps of their eigenvectors
with the signal subspaces R^H ⊗ h and R^H ⊗ mu: sum_h (ĥᵀ v_h)^2 over the H blocks v_h of an eigenvector.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import LinearOperator

from attnlib.numerics import checks as _v
from attnlib.numerics import products
from attnlib.model.generative import Vocabulary, draw_tokens, draw_vocabulary
from attnlib.model.heads import HeadsSetting
from attnlib.model.pooling import sparse_times_dense, token_csr
from attnlib.engine.montecarlo import replicate
from attnlib.engine.operators import PopulationCovariance, product_threads, top_eigenpairs

__all__ = ["HeadsCovariance", "HeadsPopulation", "HeadsDraw", "simulate_heads", "heads_sweep",
           "subspace_overlaps"]

#: ``level`` of a draw with heads: the sample covariance, or the population covariance given the vocabulary.
LEVELS = ("sample", "population")


class HeadsCovariance(LinearOperator):
    """S of the concatenated heads, dH x dH, applied through the (V, d) ``table`` (float32 or float64), the
    sequences' ``tokens`` (N, T) and the heads ``W`` (T, H); centred unless ``centered=False``."""

    def __init__(self, table: np.ndarray, tokens: np.ndarray, W: np.ndarray, *, centered: bool = True,
                 workers: int | None = None):
        if not isinstance(table, np.ndarray) or table.ndim != 2 or table.dtype not in (np.float32, np.float64):
            raise ValueError("table must be a (V, d) float32 or float64 numpy array")
        tokens = np.asarray(tokens)
        if tokens.ndim != 2 or not np.issubdtype(tokens.dtype, np.integer) or tokens.size == 0:
            raise ValueError(f"tokens must be a non-empty (N, T) integer array, got shape {tokens.shape}")
        if tokens.min() < 0 or tokens.max() >= table.shape[0]:
            raise ValueError(f"tokens must lie in 0..V-1 = 0..{table.shape[0] - 1}")
        W = np.asarray(W, dtype=float)
        if W.ndim != 2 or W.shape[0] != tokens.shape[1]:
            raise ValueError(f"W must be (T, H) with T = {tokens.shape[1]}, got shape {W.shape}")
        self.table = np.ascontiguousarray(table)
        self.V, self.d = table.shape
        self.N, self.n_heads = tokens.shape[0], W.shape[1]
        self.A = [token_csr(tokens, W[:, h], self.V) for h in range(self.n_heads)]
        self.At = [A.T.tocsr() for A in self.A]
        self.centered = bool(centered)
        self.threads = product_threads(self.table, workers)
        self.products = 0
        super().__init__(dtype=np.float64, shape=(self.d * self.n_heads, self.d * self.n_heads))

    def _matmat(self, X):
        X = np.asarray(X, dtype=np.float64).reshape(self.n_heads, self.d, -1)  # block h: X[h] (d, k)
        k = X.shape[2]
        self.products += k
        Y = products.times(self.table, np.concatenate(list(X), axis=1), self.threads)  # (V, H k)
        u = sum(sparse_times_dense(self.A[h], Y[:, h * k:(h + 1) * k], self.threads) for h in range(self.n_heads))
        if self.centered:
            u -= u.mean(axis=0)
        back = np.concatenate([sparse_times_dense(At, u, self.threads) for At in self.At], axis=1) / self.N
        out = products.transpose_times(self.table, back, self.threads)  # (d, H k)
        return np.concatenate([out[:, h * k:(h + 1) * k] for h in range(self.n_heads)], axis=0)

    def _matvec(self, x):
        return self._matmat(np.reshape(x, (-1, 1))).ravel()

    def _adjoint(self):
        return self


class HeadsPopulation(LinearOperator):
    """(WᵀRW) ⊗ hhᵀ + (WᵀW) ⊗ W' given the vocabulary (dH x dH), through the engine's population operator."""

    def __init__(self, vocab: Vocabulary, A: np.ndarray, B: np.ndarray, *, workers: int | None = None):
        self.noise = PopulationCovariance(vocab, 0.0, 1.0, 0.0, workers=workers)  # W'
        self.A, self.B, self.h = np.asarray(A, float), np.asarray(B, float), vocab.h
        if self.A.ndim != 2 or self.A.shape[0] != self.A.shape[1] or self.A.shape != self.B.shape:
            raise ValueError(f"A and B must be two (H, H) matrices, got shapes {self.A.shape} and {self.B.shape}")
        self.n_heads, self.d = self.A.shape[0], vocab.d
        self.products = 0
        super().__init__(dtype=np.float64, shape=(self.d * self.n_heads, self.d * self.n_heads))

    def _matmat(self, X):
        X = np.asarray(X, dtype=np.float64).reshape(self.n_heads, self.d, -1)
        k = X.shape[2]
        self.products += k
        WX = self.noise.matmat(np.concatenate(list(X), axis=1)).reshape(self.d, self.n_heads, k)
        hx = np.einsum("d,hdk->hk", self.h, X)  # (H, k)
        out = np.einsum("gh,dhk->gdk", self.B, WX) + np.einsum("gh,hk,d->gdk", self.A, hx, self.h)
        return out.reshape(self.n_heads * self.d, k)

    def _matvec(self, x):
        return self._matmat(np.reshape(x, (-1, 1))).ravel()

    def _adjoint(self):
        return self


def subspace_overlaps(vecs: np.ndarray, direction: np.ndarray, H: int) -> np.ndarray:
    """sum_h (uᵀ v_h)^2 / ||u||^2 for each column v of ``vecs`` (dH, k): cos^2 with the subspace R^H ⊗ u."""
    vecs = np.asarray(vecs, dtype=float)
    u = np.asarray(direction, dtype=float)
    if vecs.ndim != 2 or vecs.shape[0] != H * u.size:
        raise ValueError(f"vecs must be (H d, k) = ({H * u.size}, k), got shape {vecs.shape}")
    projections = np.einsum("d,hdk->hk", u, vecs.reshape(H, u.size, -1))
    return np.sum(projections**2, axis=0) / (u @ u) / np.einsum("ij,ij->j", vecs, vecs)


@dataclass(frozen=True, eq=False)
class HeadsDraw:
    """One draw with heads: ``top`` (k,) eigenvalues, descending; ``overlap_h`` and ``overlap_u`` (k,) squared
    overlaps with R^H ⊗ h and R^H ⊗ mu; ``h_norm2`` = ||h||^2 of the vocabulary; ``products`` of Lanczos."""

    top: np.ndarray
    overlap_h: np.ndarray
    overlap_u: np.ndarray
    h_norm2: float
    products: int
    level: str


def _check_k(arguments) -> None:
    d = arguments["setting"].d
    if arguments["k"] >= d - 1:
        raise ValueError(f"k must be < d - 1 = {d - 1} for Lanczos, got {arguments['k']}")


@_v.validated(_check_k, setting=HeadsSetting, rng=np.random.Generator, k=_v.positive_int, level=LEVELS,
              vocabulary=_v.optional(Vocabulary), workers=_v.optional(_v.positive_int))
def simulate_heads(setting: HeadsSetting, rng: np.random.Generator, *, k: int = 2, level: str = "sample",
                   vocabulary: Vocabulary | None = None, workers: int | None = None) -> HeadsDraw:
    """Draw a vocabulary (unless given) and, at sample level, N sequences; top ``k`` eigenpairs by Lanczos.

    The random numbers are used in the engine's order (the table, then the signs, then the tokens); the
    table is float32 at sample level (sums in double precision), float64 at population level. Matrix-free:
    :class:`HeadsCovariance` or :class:`HeadsPopulation`.
    """
    base = setting.base
    if vocabulary is None:
        vocabulary = draw_vocabulary.__wrapped__(base.d, base.V, base.mu_norm2, rng, workers=workers,
                                                 dtype=np.float64 if level == "population" else np.float32)
    if level == "population":
        op = HeadsPopulation(vocabulary, *setting.matrices, workers=workers)
        vals, vecs = top_eigenpairs(op, k, tol=1e-10)
    else:
        _, tokens = draw_tokens(base.process, base.V, base.N, rng)
        op = HeadsCovariance(vocabulary.table, tokens, setting.heads, workers=workers)
        vals, vecs = top_eigenpairs(op, k)
    u, h, _ = vocabulary.directions()
    return HeadsDraw(vals, subspace_overlaps(vecs, h, setting.H), subspace_overlaps(vecs, u, setting.H),
                     float(h @ h), op.products, level)


def heads_sweep(settings, seed: int, trials: int, *, k: int = 2, level: str = "sample") -> list[list[HeadsDraw]]:
    """``trials`` draws of each setting: draw j of setting i uses stream i * trials + j of ``seed``
    (:func:`attnlib.engine.montecarlo.replicate`). Returns one list of draws per setting."""
    settings = list(settings)
    trials = _v.positive_int("trials", trials)
    runs = replicate(lambda rng, n: simulate_heads(settings[n // trials], rng, k=k, level=level), seed,
                     len(settings) * trials)
    return [runs[i * trials:(i + 1) * trials] for i in range(len(settings))]
