"""One Monte-Carlo draw of the model: the spectrum of S (or of the population covariance) and its top
eigenvectors' overlaps with the directions that matter.

Sample level (the default), two paths to the top eigenpairs of S (``attnlib.engine.cost`` estimates both and
``method="auto"`` takes the cheaper; ``"dense"`` or ``"matrix-free"`` forces one):

* dense: pool N sequences through a sparse token-weight matrix (:func:`attnlib.model.pooling.pool`), centre the pooled
  rows in place, form S = C^T C / N once with BLAS and use Lanczos on it; with ``spectrum="exact"`` also all d
  eigenvalues (from the smaller of S and the Gram matrix C C^T / N), in double precision;
* matrix-free: Lanczos on S applied through the table and the token matrix
  (``attnlib.engine.operators.SampleCovariance``), never forming C or S; with ``spectrum="slq"`` (or an
  ``attnlib.engine.slq.SLQ``) also an estimate of the spectral density (``attnlib.engine.slq``).

Population level: the covariance of a pooled vector given the vocabulary, kappa W' + alpha h h^T
(+ (sum w)^2 g g^T uncentered), formed exactly, or applied through the table (matrix-free); no sequences.

Precision: the table's noise is single-precision Gaussians, drawn by row blocks from streams spawned from the
draw's generator, on every core (:func:`attnlib.model.generative.fill_table`; the numbers do not depend on
the number of threads). At sample level the table is stored in single precision (``TABLE_DTYPE``: half the
memory and half the traffic), and every sum over it runs in double precision: pooling converts it by
blocks of columns (:func:`attnlib.model.pooling.pool_table`) and the matrix-free products by blocks of rows
(:mod:`attnlib.numerics.products`). So the two paths see the same table and agree to the Lanczos tolerance
(eigenvalues to about 1e-12 relative), and a draw gives the same numbers on every CPU and for any number of
threads, to about 1e-13. All d eigenvalues and the population level use a double-precision table of the same
numbers; it differs from the single-precision one only by the rounding of its first column (2^-24 relative),
which moves S by a ||dS|| of order 1e-7 ||S||: eigenvalues by at most ||dS|| (Weyl) and squared overlaps by at
most 2 ||dS|| / g, g the gap between the eigenvalue and its nearest neighbour (Davis-Kahan), which is larger
near a threshold, where the top two eigenvalues nearly tie (``tests/test_matrix_free.py`` checks both bounds).

Memory: before allocating, a draw estimates its peak (``attnlib.engine.cost.plan``) and raises ValueError if it
would not fit in the available memory (``attnlib.engine.cost.require_memory``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import eigsh

from attnlib.numerics import checks as _v
from attnlib.engine import cost as _cost
from attnlib.engine.slq import SLQ, SpectralDensity
from attnlib.numerics.linalg import (eigen, one_blas_thread, squared_cosines,
    start_vector)
from attnlib.model.generative import Vocabulary, draw_tokens, draw_vocabulary
from attnlib.model.pooling import pool_table, token_csr
from attnlib.engine.operators import (PopulationCovariance, SampleCovariance,
    top_eigenpairs)
from attnlib.model.setting import Setting

__all__ = ["LEVELS", "SPECTRA", "METHODS", "Draw", "simulate", "population_top", "plan_draw", "spectrum_option",
           "compatible"]

#: Storage type of the table at sample level when not all eigenvalues are needed (sums over it run in double).
TABLE_DTYPE = np.float32
#: ``level`` of a draw: the sample covariance S, or the population covariance given the vocabulary.
LEVELS = ("sample", "population")
#: ``spectrum`` of a draw: none (top eigenpairs only), all d eigenvalues, or a density estimate (an
#: ``attnlib.engine.slq.SLQ`` instance sets its probes and degree; "slq" is ``SLQ()``).
SPECTRA = (None, "exact", "slq")
#: ``method`` of a draw: see ``attnlib.engine.cost``.
METHODS = _cost.METHODS
_DEFAULT_SLQ = SLQ()  # what spectrum="slq" means (an SLQ is immutable: one instance serves every draw)


@dataclass(frozen=True, eq=False)
class Draw:
    """One simulated draw: the top ``k`` eigenpairs' eigenvalues and squared overlaps, and optionally the
    whole spectrum or a density estimate.

    ``top_eigenvalues`` (k,), descending; ``overlaps`` (3, k): cos^2 of the j-th eigenvector with
    u = mu/||mu||, h = mu + Zs/V (class centroid) and g = Z1/V (vocabulary mean); ``spectrum``: all d
    eigenvalues (descending) or None; ``density``: a ``attnlib.engine.slq.SpectralDensity`` or None;
    ``method``: the path that ran. ``eigenvalues`` is the spectrum when there is one, else the top k.
    """

    setting: Setting
    top_eigenvalues: np.ndarray
    overlaps: np.ndarray
    spectrum: np.ndarray | None
    centered: bool
    level: str = "sample"
    method: str = "dense"
    density: SpectralDensity | None = None

    @property
    def eigenvalues(self) -> np.ndarray:
        return self.spectrum if self.spectrum is not None else self.top_eigenvalues

    @property
    def top(self) -> float:
        return float(self.top_eigenvalues[0])

    @property
    def overlap_u(self) -> float:
        """The squared cosine of the top eigenvector with u = mu/||mu|| (``nan`` at ||mu||^2 = 0, where u does
        not exist)."""
        return float(self.overlaps[0, 0])

    @property
    def overlap_h(self) -> float:
        return float(self.overlaps[1, 0])

    @property
    def overlap_g(self) -> float:
        return float(self.overlaps[2, 0])


def spectrum_option(spectrum, level: str = "sample"):
    """``(kind, estimator)`` of a ``spectrum`` argument: kind None, "exact" or "slq"; the SLQ sizes or None."""
    if isinstance(spectrum, SLQ):
        kind, estimator = "slq", spectrum
    elif spectrum is None or (isinstance(spectrum, str) and spectrum in SPECTRA):
        kind, estimator = spectrum, (_DEFAULT_SLQ if spectrum == "slq" else None)
    else:
        raise ValueError(f"spectrum must be None, 'exact', 'slq' or an attnlib.engine.slq.SLQ, got {spectrum!r}")
    if kind is not None and level != "sample":
        raise ValueError(f"spectrum={kind!r} is available at sample level only (level='sample')")
    return kind, estimator


def plan_draw(setting: Setting, *, k: int, level: str, spectrum: tuple, method: str, vocabulary=None) -> _cost.Cost:
    """The ``attnlib.engine.cost.Cost`` of the path a draw with these options takes (arguments checked by the
    caller; ``spectrum``: the pair of :func:`spectrum_option`)."""
    kind, est = spectrum
    return _cost.plan.__wrapped__(setting, level=level, k=k, spectrum=kind, method=method,
                                  table_dtype=None if vocabulary is None else vocabulary.table.dtype,
                                  probes=est.probes if est else 0, degree=est.degree if est else 0)


def compatible(setting: Setting, level: str, vocabulary: Vocabulary | None = None) -> None:
    """Raise ValueError if a draw of ``setting`` at ``level`` cannot run (token frequencies at population
    level) or ``vocabulary`` does not match the setting (d, V and ||mu||^2)."""
    options = setting.options
    if level == "population" and options is not None and options.frequencies is not None:
        raise ValueError("level='population' does not support token frequencies: use "
                         "attnlib.model.generative.population_covariance with the vocabulary")
    if vocabulary is not None and ((vocabulary.d, vocabulary.V) != (setting.d, setting.V)
                                   or not np.isclose(vocabulary.mu_norm2, setting.mu_norm2)):
        raise ValueError(f"vocabulary (d={vocabulary.d}, V={vocabulary.V}, mu_norm2={vocabulary.mu_norm2:g}) "
                         f"does not match the setting (d={setting.d}, V={setting.V}, "
                         f"mu_norm2={setting.mu_norm2:g})")


def _check_draw(arguments) -> None:
    """The checks of :func:`simulate` that involve several arguments (``spectrum`` is read, and checked, by
    :func:`spectrum_option` in the body)."""
    compatible(arguments["setting"], arguments["level"], arguments["vocabulary"])


@_v.validated(_check_draw, setting=Setting, rng=np.random.Generator, k=_v.positive_int, level=LEVELS,
              vocabulary=_v.optional(Vocabulary), method=METHODS, workers=_v.optional(_v.positive_int))
def simulate(setting: Setting, rng: np.random.Generator, *, centered: bool = True, k: int = 1,
             level: str = "sample", spectrum=None, vocabulary: Vocabulary | None = None, method: str = "auto",
             workers: int | None = None) -> Draw:
    """Draw a vocabulary (unless one is given) and, at sample level, N pooled sequences; analyse S.

    The arguments are checked once, here (:func:`attnlib.numerics.checks.validated`); ``simulate.__wrapped__``
    is the draw on arguments already checked (the Monte-Carlo engine's unit of work).

    Parameters
    ----------
    setting : Setting
    rng : numpy.random.Generator
        The only source of randomness (vocabulary, then signs, then tokens, then density probes).
    centered : bool
        Centre the pooled vectors before forming S (default). The uncentered S has an extra spike along g.
    k : int
        Number of top eigenpairs.
    level : {"sample", "population"}
        The sample covariance S, or the population covariance given the vocabulary.
    spectrum : {None, "exact", "slq"}
        Also return all d eigenvalues (``"exact"``, dense path) or a spectral density estimate (``"slq"``, or an
        ``attnlib.engine.slq.SLQ`` instance for other sizes; matrix-free path), at sample level.
    vocabulary : Vocabulary, optional
        Reuse a drawn vocabulary (must match d, V and ||mu||^2 of the setting). None: drawn here (after the
        memory check), in the precision of the path.
    method : {"auto", "dense", "matrix-free"}
        The path (see ``attnlib.engine.cost``); "auto" takes the cheaper. Both give the same eigenvalues to about
        1e-12 relative (the Lanczos tolerance) and overlaps to about 1e-7.
    workers : int, optional
        Threads that fill the table, pool (dense path) and multiply (matrix-free path) (None: the usable
        cores; 1 when draws run side by side). The numbers do not depend on it.

    Returns
    -------
    Draw

    Raises
    ------
    ValueError
        On invalid arguments, or if the draw would not fit in the available memory.
    """
    kind, estimator = spectrum = spectrum_option(spectrum, level)
    cost = plan_draw(setting, k=k, level=level, spectrum=spectrum, method=method, vocabulary=vocabulary)
    _cost.require_memory(cost)
    double = level == "population" or kind == "exact"
    if vocabulary is None:
        vocabulary = draw_vocabulary.__wrapped__(setting.d, setting.V, setting.mu_norm2, rng,
                                                 dtype=np.float64 if double else TABLE_DTYPE,
                                                 options=setting.options, workers=workers)
    spec = density = None
    if level == "population":
        vals, vecs = population_top.__wrapped__(vocabulary, setting, k, centered=centered, method=cost.method)
    elif cost.method == "dense":
        vals, vecs, spec = _dense_eigen(setting, rng, vocabulary, k, kind == "exact", centered, workers)
    else:
        vals, vecs, density = _matrix_free_eigen(setting, rng, vocabulary, k, centered, estimator, workers)
    with one_blas_thread():
        directions = vocabulary.directions()
    overlaps = np.stack([squared_cosines(vecs, x) for x in directions])
    return Draw(setting=setting, top_eigenvalues=vals, overlaps=overlaps, spectrum=spec, centered=centered,
                level=level, method=cost.method, density=density)


def _frequencies(setting):
    """The within-class token frequencies of ``setting`` (None: uniform)."""
    return None if setting.options is None else setting.options.frequencies


def _dense_eigen(setting, rng, vocabulary, k, full, centered, workers):
    """Top-k eigenpairs (and the spectrum if ``full``) of S formed from fresh sequences over ``vocabulary``,
    in double precision (C = A E from a table of either precision, :func:`attnlib.model.pooling.pool_table`)."""
    _, tokens = draw_tokens(setting.process, setting.V, setting.N, rng, _frequencies(setting))
    C = pool_table(vocabulary.table, tokens, setting.weights, workers)
    if centered:  # in place: C is ours
        C -= C.mean(axis=0)
    return eigen(C, k, full=full)


def _matrix_free_eigen(setting, rng, vocabulary, k, centered, estimator, workers):
    """Top-k eigenpairs (and a density estimate if ``estimator``) of S applied through the table."""
    _, tokens = draw_tokens(setting.process, setting.V, setting.N, rng, _frequencies(setting))
    op = SampleCovariance(vocabulary.table, token_csr(tokens, setting.weights, setting.V), centered=centered,
                          workers=workers)
    del tokens
    vals, vecs = top_eigenpairs(op, k)
    density = estimator.estimate(op, rng) if estimator is not None else None
    return vals, vecs, density


def _check_population(arguments) -> None:
    d = arguments["vocab"].d
    if arguments["k"] >= d - 1:
        raise ValueError(f"k must be < d - 1 = {d - 1} for Lanczos, got {arguments['k']}")


@_v.validated(_check_population, vocab=Vocabulary, setting=Setting, k=_v.positive_int, method=METHODS)
def population_top(vocab: Vocabulary, setting: Setting, k: int = 2, *, centered: bool = True,
                   method: str = "auto"):
    r"""Top ``k`` eigenpairs of the population covariance given the vocabulary, by Lanczos.

    The matrix is :math:`\kappa W' + \alpha hh^\top` (``centered``) or :math:`+ (\sum w)^2 gg^\top` (uncentered
    second moment), with :math:`W' = ZPZ^\top/V = ZZ^\top/V - qq^\top - gg^\top`. The dense path forms it with one
    BLAS-3 product (cost d^2 V) on one BLAS thread; the matrix-free path applies it through the table
    (``attnlib.engine.operators.PopulationCovariance``, 4 V d flops per product); ``method="auto"`` takes the
    cheaper (``attnlib.engine.cost``). Both stop at relative residual 1e-10 and agree to about 1e-12.
    Returns ``(eigenvalues (k,), eigenvectors (d, k))``, descending.
    """
    d, V = vocab.d, vocab.V
    method = _cost.plan.__wrapped__(setting, level="population", k=k, method=method,
                                    table_dtype=vocab.table.dtype).method
    if method == "matrix-free":
        op = PopulationCovariance(vocab, setting.alpha, setting.kappa, setting.weight_sum, centered=centered)
        return top_eigenpairs(op, k, tol=1e-10)
    with one_blas_thread():
        Z = vocab.noise  # (V, d)
        q, g, h = vocab.q, vocab.g, vocab.h
        M = Z.T @ Z
        M /= V
        M -= np.outer(q, q) + np.outer(g, g)  # W' (P removes s/sqrt(V) and 1/sqrt(V); s is orthogonal to 1)
        M *= setting.kappa
        M += setting.alpha * np.outer(h, h)
        if not centered:
            M += setting.weight_sum**2 * np.outer(g, g)
        vals, vecs = eigsh(M, k=k, which="LA", v0=start_vector(d), tol=1e-10)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order]
