r"""Covariance matrices applied without being formed: scipy ``LinearOperator`` s for the sample covariance S and
for the population covariance given the vocabulary, and their top eigenpairs by Lanczos.

Sample level. The pooled rows are C = A E, with E the (V, d) table and A the sparse (N, V) token-weight matrix
(row n holds the weights w_t at the tokens of sequence n, :func:`attnlib.model.pooling.token_matrix`). Hence

.. math:: S = \frac1N C^\top C - \bar c\bar c^\top = E^\top M E, \qquad
          M = \frac1N A^\top A - a a^\top,\quad a = \frac1N A^\top \mathbf 1,\quad \bar c = E^\top a,

and S v costs two passes over the table (E v, then E^T y: 4 V d flops) plus 4 N T flops for M, which is applied
through A and never formed; the uncentred S drops the a a^T term. Neither C (N x d) nor S (d x d) exists.
Precision: the table may be stored in single precision, but every sum runs in double precision: the two
passes convert it to double by blocks of rows and accumulate there (:mod:`attnlib.numerics.products`), and the
sparse products, the centring and the Lanczos vectors are double precision, so a product gives the same
numbers on every CPU (to about 1e-16 relative) and for any number of threads (bit for bit). Threads: a table
of at least ``THREADED_ENTRIES`` entries is multiplied on ``workers`` threads (default: the usable cores), by
chunks of rows whose partial sums are added in a fixed order, the sparse products by row blocks on as many;
smaller tables run on one thread, where a second one costs more than it saves.

Population level. kappa (Z^T Z / V - q q^T - g g^T) + alpha h h^T (+ (sum w)^2 g g^T uncentred), with the noise
applied as Z v = E v - s (mu . v): two passes over the table per product, against d^2 V flops to form it.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from attnlib.numerics import checks as _v
from attnlib.numerics import products
from attnlib.numerics.linalg import blas_threads, lanczos_top, start_vector, usable_cores
from attnlib.model.generative import Vocabulary
from attnlib.model.pooling import sparse_times_dense, token_csr

__all__ = ["TOL", "THREADED_ENTRIES", "SampleCovariance", "PopulationCovariance", "top_eigenpairs",
           "product_threads"]

#: Relative residual at which Lanczos stops. Measured at d = 4000 against a run to 1e-10: eigenvalues within
#: 1e-12 relative and eigenvectors within 1 - cos^2 = 2e-10 (an outlier; 2e-10 at the edge), below every digit
#: the book prints; 12 products for an outlier, against 14 at 1e-7.
TOL = 1e-6
#: The products with a table of at least this many entries, V times d, run on several threads; 2^24 is a
#: 64 MiB float32 table, two chunks of :data:`attnlib.numerics.products.CHUNK_ENTRIES`.
THREADED_ENTRIES = 2**24


def product_threads(table: np.ndarray, workers: int | None) -> int:
    """Threads for the products with ``table``: ``workers`` (None: the usable cores) if the table has at least
    ``THREADED_ENTRIES`` entries, else 1."""
    if table.size < THREADED_ENTRIES:
        return 1
    return usable_cores() if workers is None else workers


def _check_table(table) -> np.ndarray:
    if not isinstance(table, np.ndarray) or table.ndim != 2 or table.dtype not in (np.float32, np.float64):
        raise ValueError("table must be a (V, d) float32 or float64 numpy array, got "
                         f"{type(table).__name__} {getattr(table, 'shape', '')} {getattr(table, 'dtype', '')}")
    return np.ascontiguousarray(table)


class SampleCovariance(LinearOperator):
    """The sample covariance S = E^T M E of the pooled vectors C = A E, as a symmetric ``LinearOperator``.

    The constructor trusts its arguments (the simulation builds them); :meth:`SampleCovariance.from_tokens`
    checks them.

    Parameters
    ----------
    table : numpy.ndarray
        The (V, d) embedding table E, float32 or float64 (products with it accumulate in double precision).
    A : scipy.sparse matrix
        The (N, V) token-weight matrix; converted to double-precision CSR.
    centered : bool
        Centre the pooled vectors (default); ``False`` gives the uncentred second moment C^T C / N.
    workers : int, optional
        Threads of the products (see :func:`product_threads`; default: the usable cores).
    """

    def __init__(self, table, A, *, centered: bool = True, workers: int | None = None):
        self.table = np.ascontiguousarray(table)
        self.A = sp.csr_matrix(A, dtype=np.float64)
        self.At = self.A.T.tocsr()
        self.N = self.A.shape[0]
        self.centered = bool(centered)
        self.a = np.asarray(self.At.sum(axis=1)).ravel() / self.N
        self.products = 0  # columns multiplied so far (a count of matrix-vector products)
        self.threads = product_threads(self.table, workers)
        super().__init__(dtype=np.float64, shape=(self.table.shape[1], self.table.shape[1]))

    @classmethod
    def from_tokens(cls, table, tokens, w, *, centered: bool = True, workers: int | None = None
                    ) -> "SampleCovariance":
        """The operator of the sequences ``tokens`` (N, T) pooled with weights ``w`` over ``table``: the checked
        entry (the constructor trusts its table and token matrix)."""
        table = _check_table(table)
        workers = None if workers is None else _v.positive_int("workers", workers)
        tokens = np.asarray(tokens)
        if tokens.ndim != 2 or not np.issubdtype(tokens.dtype, np.integer):
            raise ValueError(f"tokens must be an (N, T) integer array, got shape {tokens.shape}")
        w = _v.weights_vector("w", w, tokens.shape[1])
        if tokens.size and (tokens.min() < 0 or tokens.max() >= table.shape[0]):
            raise ValueError(f"tokens must lie in 0..V-1 = 0..{table.shape[0] - 1}")
        return cls(table, token_csr(tokens, w, table.shape[0]), centered=centered, workers=workers)

    def _matmat(self, X):
        X = np.asarray(X, dtype=np.float64).reshape(self.shape[1], -1)
        self.products += X.shape[1]
        Y = products.times(self.table, X, self.threads)  # (V, n)
        return products.transpose_times(self.table, self.middle(Y), self.threads)

    def middle(self, Y: np.ndarray) -> np.ndarray:
        """M Y for a (V, n) double-precision block: M = A^T A / N - a a^T (centred) or A^T A / N."""
        W = sparse_times_dense(self.At, sparse_times_dense(self.A, Y, self.threads), self.threads)
        W /= self.N
        if self.centered:
            W -= np.outer(self.a, self.a @ Y)
        return W

    def _matvec(self, x):
        return self._matmat(np.reshape(x, (-1, 1))).ravel()

    def _adjoint(self):
        return self


class PopulationCovariance(LinearOperator):
    """The population covariance given the vocabulary, kappa W' + alpha h h^T (+ (sum w)^2 g g^T uncentred),
    W' = Z^T Z / V - q q^T - g g^T, as a symmetric ``LinearOperator`` (the matrix of
    :func:`attnlib.model.generative.population_covariance`, never formed).

    The arguments are trusted: the simulation passes a drawn vocabulary and the scalars of a checked Setting.

    Parameters
    ----------
    vocab : Vocabulary
    alpha, kappa, weight_sum : float
        w^T R w, ||w||^2 and sum w of the pooling weights.
    centered : bool
        Covariance (default) or second moment (adds (sum w)^2 g g^T).
    workers : int, optional
        Threads of the products (see :func:`product_threads`; default: the usable cores).
    """

    def __init__(self, vocab: Vocabulary, alpha: float, kappa: float, weight_sum: float, *, centered: bool = True,
                 workers: int | None = None):
        self.table = np.ascontiguousarray(vocab.table)
        self.alpha, self.kappa, self.weight_sum = float(alpha), float(kappa), float(weight_sum)
        self.centered = bool(centered)
        self.mu, self.s = vocab.mu, vocab.signs.astype(float)
        self.h, self.g = vocab.h, vocab.g
        self.q = self.h - self.mu
        self.products = 0
        self.threads = product_threads(self.table, workers)
        super().__init__(dtype=np.float64, shape=(vocab.d, vocab.d))

    def _matmat(self, X):
        X = np.asarray(X, dtype=np.float64).reshape(self.shape[1], -1)
        self.products += X.shape[1]
        Y = products.times(self.table, X, self.threads)
        Y -= np.outer(self.s, self.mu @ X)  # Z X
        out = products.transpose_times(self.table, Y, self.threads)
        out -= np.outer(self.mu, self.s @ Y)  # Z^T Z X
        out /= self.s.size
        out -= np.outer(self.q, self.q @ X) + np.outer(self.g, self.g @ X)
        out *= self.kappa
        out += self.alpha * np.outer(self.h, self.h @ X)
        if not self.centered:
            out += self.weight_sum**2 * np.outer(self.g, self.g @ X)
        return out

    def _matvec(self, x):
        return self._matmat(np.reshape(x, (-1, 1))).ravel()

    def _adjoint(self):
        return self


def top_eigenpairs(operator: LinearOperator, k: int = 1, *, tol: float = TOL):
    """Top ``k`` eigenvalues (descending) and unit eigenvectors (d, k) of a symmetric operator, by Lanczos.

    :func:`attnlib.numerics.linalg.lanczos_top` (full reorthogonalisation, convergence tested after every
    product) from the book's one start vector (:func:`attnlib.numerics.linalg.start_vector`), on one BLAS
    thread (an operator's products may use more: ``threads``), stopping at relative residual ``tol``.
    The arguments are trusted: a square operator, an integer ``1 <= k < d - 1`` (the caller's plan checks it,
    :func:`attnlib.engine.cost.plan`) and ``tol > 0``.
    """
    d = operator.shape[0]
    with blas_threads(1):
        vals, vecs, _ = lanczos_top(operator.matvec, d, k, tol, start_vector(d))
    return vals, vecs
