"""One Monte-Carlo draw of the model: the spectrum of S (or of the population covariance) and its top
eigenvectors' overlaps with the directions that matter.

Sample level (the default): pool N sequences through a sparse token-weight matrix
(:func:`attnlib.model.pool`), centre the pooled rows in place, form S = C^T C / N once with BLAS and use
Lanczos for the top eigenpairs; with ``spectrum="exact"`` also all d eigenvalues (from the smaller of S and
the Gram matrix C C^T / N), in double precision.

Population level: the covariance of a pooled vector given the vocabulary,
kappa W' + alpha h h^T (+ (sum w)^2 g g^T uncentered), formed exactly (no sequences are drawn).

Precision: when only top eigenpairs are needed at sample level, pooling and Lanczos run in single precision
(``LANCZOS_DTYPE``) from the same double-precision random draws: this halves the memory traffic and the cost
of forming S, and changes eigenvalues by about 1e-6 relative (overlaps by about 1e-6 absolute), far below the
Monte-Carlo spread.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import eigsh

from . import _validate as _v
from .linalg import eigen, one_blas_thread, squared_cosines, start_vector
from .model import Vocabulary, _draw_tokens, _pool_table, draw_vocabulary
from .setting import Setting

__all__ = ["LEVELS", "SPECTRA", "Draw", "simulate", "population_top"]

#: Floating-point type of the pooled vectors and of S when only top eigenpairs are needed.
LANCZOS_DTYPE = np.float32
#: ``level`` of a draw: the sample covariance S, or the population covariance given the vocabulary.
LEVELS = ("sample", "population")
#: ``spectrum`` of a draw: none (top eigenpairs only) or all d eigenvalues.
SPECTRA = (None, "exact")


@dataclass(frozen=True, eq=False)
class Draw:
    """One simulated draw: the top ``k`` eigenpairs' eigenvalues and squared overlaps, and optionally the
    whole spectrum.

    ``top_eigenvalues`` (k,), descending; ``overlaps`` (3, k): cos^2 of the j-th eigenvector with
    u = mu/||mu||, h = mu + Zs/V (class centroid) and g = Z1/V (vocabulary mean); ``spectrum``: all d
    eigenvalues (descending) or None. ``eigenvalues`` is the spectrum when there is one, else the top k.
    """

    setting: Setting
    top_eigenvalues: np.ndarray
    overlaps: np.ndarray
    spectrum: np.ndarray | None
    centered: bool
    level: str = "sample"

    @property
    def eigenvalues(self) -> np.ndarray:
        return self.spectrum if self.spectrum is not None else self.top_eigenvalues

    @property
    def top(self) -> float:
        return float(self.top_eigenvalues[0])

    @property
    def overlap_u(self) -> float:
        return float(self.overlaps[0, 0])

    @property
    def overlap_h(self) -> float:
        return float(self.overlaps[1, 0])

    @property
    def overlap_g(self) -> float:
        return float(self.overlaps[2, 0])


def simulate(setting: Setting, rng: np.random.Generator, *, centered: bool = True, k: int = 1,
             level: str = "sample", spectrum: str | None = None, full_spectrum: bool = False,
             vocabulary: Vocabulary | None = None) -> Draw:
    """Draw a vocabulary (unless one is given) and, at sample level, N pooled sequences; analyse S.

    Parameters
    ----------
    setting : Setting
    rng : numpy.random.Generator
        The only source of randomness (vocabulary, then signs, then tokens).
    centered : bool
        Centre the pooled vectors before forming S (default). The uncentered S has an extra spike along g.
    k : int
        Number of top eigenpairs.
    level : {"sample", "population"}
        The sample covariance S, or the population covariance given the vocabulary.
    spectrum : {None, "exact"}
        Also return all d eigenvalues (sample level).
    full_spectrum : bool
        Same as ``spectrum="exact"``.
    vocabulary : Vocabulary, optional
        Reuse a drawn vocabulary (must match d, V and ||mu||^2 of the setting).

    Returns
    -------
    Draw
    """
    _v.setting(setting)
    rng = _v.rng(rng)
    k = _v.positive_int("k", k)
    level = _v.choice("level", level, LEVELS)
    if spectrum not in SPECTRA:
        raise ValueError(f"spectrum must be None or 'exact', got {spectrum!r}")
    spectrum = "exact" if full_spectrum else spectrum
    if spectrum is not None and level == "population":
        raise ValueError("spectrum='exact' is available at sample level only (level='sample')")
    if vocabulary is None:
        vocabulary = draw_vocabulary(setting.d, setting.V, setting.mu_norm2, rng)
    elif (vocabulary.d, vocabulary.V) != (setting.d, setting.V) or not np.isclose(vocabulary.mu_norm2,
                                                                                    setting.mu_norm2):
        raise ValueError(
            f"vocabulary (d={vocabulary.d}, V={vocabulary.V}, mu_norm2={vocabulary.mu_norm2:g}) does not match the "
            f"setting (d={setting.d}, V={setting.V}, mu_norm2={setting.mu_norm2:g})"
        )
    return draw(setting, rng, vocabulary, k=k, level=level, spectrum=spectrum, centered=centered)


def draw(setting: Setting, rng: np.random.Generator, vocabulary: Vocabulary, *, k: int, level: str,
         spectrum: str | None, centered: bool, pool_workers: int | None = None) -> Draw:
    """:func:`simulate` on validated arguments (the Monte-Carlo engine's unit of work).

    ``pool_workers``: threads for the pooling product (None: the usable cores).
    """
    if level == "population":
        vals, vecs = population_top(vocabulary, setting, k, centered=centered)
        spec = None
    else:
        vals, vecs, spec = _sample_eigen(setting, rng, vocabulary, k, spectrum == "exact", centered, pool_workers)
    with one_blas_thread():  # h = E^T s / V and g = E^T 1 / V: two short matrix-vector products
        h = vocabulary.signs.astype(float) @ vocabulary.table / vocabulary.V
        g = np.ones(vocabulary.V) @ vocabulary.table / vocabulary.V
    overlaps = np.stack([squared_cosines(vecs, vocabulary.u), squared_cosines(vecs, h), squared_cosines(vecs, g)])
    return Draw(setting=setting, top_eigenvalues=vals, overlaps=overlaps, spectrum=spec, centered=centered,
                level=level)


def _sample_eigen(setting, rng, vocabulary, k, full, centered, pool_workers):
    """Top-k eigenpairs (and the spectrum if ``full``) of S from fresh sequences over ``vocabulary``."""
    # Signs, then tokens; pooled in single precision when only Lanczos will run.
    dtype = np.float64 if full or k >= min(setting.N, setting.d) - 1 else LANCZOS_DTYPE
    _, tokens = _draw_tokens(setting.process, setting.V, setting.N, rng)
    C = _pool_table(vocabulary.table.astype(dtype, copy=False), tokens, setting.weights, pool_workers)
    if centered:  # in place: C is ours
        C -= C.mean(axis=0, dtype=np.float64).astype(dtype)
    return eigen(C, k, full=full)


def population_top(vocab: Vocabulary, setting: Setting, k: int = 2, *, centered: bool = True):
    r"""Top ``k`` eigenpairs of the population covariance given the vocabulary (Lanczos on the exact matrix).

    The matrix is :math:`\kappa W' + \alpha hh^\top` (``centered``) or :math:`+ (\sum w)^2 gg^\top` (uncentered
    second moment), with :math:`W' = ZPZ^\top/V = ZZ^\top/V - qq^\top - gg^\top`. It is formed with one BLAS-3
    product (cost d^2 V), on one BLAS thread, and only its top ``k`` eigenpairs are computed (``eigsh``).
    Returns ``(eigenvalues (k,), eigenvectors (d, k))``, descending.
    """
    if not isinstance(vocab, Vocabulary):
        raise ValueError(f"vocab must be an attnlib.model.Vocabulary, got {vocab!r}")
    _v.setting(setting)
    k = _v.positive_int("k", k)
    d, V = vocab.d, vocab.V
    if k >= d - 1:
        raise ValueError(f"k must be < d - 1 = {d - 1} for Lanczos, got {k}")
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
