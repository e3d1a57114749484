r"""The law of the vocabulary noise: i.i.d. entries of mean 0 and variance 1, and an optional covariance.

The book's model draws the noise of the embedding table as i.i.d. standard Gaussian entries. This module
describes the alternatives that the universality chapter compares with it, all standardised to mean 0 and
variance 1 so that only the shape of the law changes:

* ``gaussian()``: :math:`\mathcal N(0, 1)`, fourth moment 3;
* ``rademacher()``: :math:`\pm 1` with probability 1/2 each, fourth moment 1;
* ``sparse(p)``: 0 with probability 1 - p, else :math:`\mathcal N(0, 1/p)`, fourth moment 3/p;
* ``student(nu)``: Student-t with nu > 2 degrees of freedom times :math:`\sqrt{(\nu-2)/\nu}`, fourth moment
  3 (nu - 2)/(nu - 4) if nu > 4 and infinite if nu <= 4.

A noise covariance :math:`\Sigma` turns the entries x_v of a row into :math:`z_v = \Sigma^{1/2} x_v`
(:func:`covariance_root`; a vector of variances is a diagonal :math:`\Sigma`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["LAWS", "NoiseLaw", "gaussian", "rademacher", "sparse", "student", "covariance_root"]

#: Names of the noise laws.
LAWS = ("gaussian", "rademacher", "sparse", "student")


@dataclass(frozen=True)
class NoiseLaw:
    """A law of i.i.d. noise entries with mean 0 and variance 1.

    Parameters
    ----------
    name : {"gaussian", "rademacher", "sparse", "student"}
    parameter : float, optional
        The probability p in (0, 1] that an entry is non-zero (``"sparse"``) or the degrees of freedom
        nu > 2 (``"student"``; nu <= 2 has no finite variance to standardise). None for the other laws.
    """

    name: str = "gaussian"
    parameter: float | None = None

    def __post_init__(self):
        _v.choice("name", self.name, LAWS)
        if self.name in ("gaussian", "rademacher"):
            if self.parameter is not None:
                raise ValueError(f"the {self.name} law takes no parameter, got {self.parameter!r}")
            return
        value = _v.finite_scalar("parameter", self.parameter if self.parameter is not None else np.nan)
        if self.name == "sparse" and not 0 < value <= 1:
            raise ValueError(f"the sparsity p of the sparse law must lie in (0, 1], got {value:g}")
        if self.name == "student" and value <= 2:
            raise ValueError(f"the degrees of freedom nu of the Student-t law must be > 2 (nu <= 0 is no law, and "
                             f"0 < nu <= 2 has infinite variance), got {value:g}")
        object.__setattr__(self, "parameter", value)

    @property
    def is_gaussian(self) -> bool:
        return self.name == "gaussian"

    @property
    def fourth_moment(self) -> float:
        """E x^4 of an entry (inf when it does not exist)."""
        if self.name == "gaussian":
            return 3.0
        if self.name == "rademacher":
            return 1.0
        if self.name == "sparse":
            return 3.0 / self.parameter
        nu = self.parameter
        return 3.0 * (nu - 2.0) / (nu - 4.0) if nu > 4 else float("inf")

    @property
    def label(self) -> str:
        """A short name for tables, such as "Gaussian", "sparse, p = 0.1" or "Student-t, ν = 5"."""
        if self.name == "sparse":
            return f"sparse, p = {self.parameter:g}"
        if self.name == "student":
            return f"Student-t, ν = {self.parameter:g}"
        return self.name.capitalize()

    def fill(self, out: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Fill the float64 array ``out`` in place with i.i.d. entries of this law (in C order) and return it.

        The Gaussian law is ``rng.standard_normal(out=out)``, so that filling consecutive row blocks gives the
        numbers of one call on the whole table.
        """
        if not isinstance(out, np.ndarray) or out.dtype != np.float64:
            raise ValueError(f"out must be a float64 numpy array, got {type(out).__name__}")
        rng = _v.rng(rng)
        if self.name == "gaussian":
            rng.standard_normal(out=out)
        elif self.name == "rademacher":
            out[...] = 2.0 * rng.integers(0, 2, size=out.shape) - 1.0
        elif self.name == "sparse":
            keep = rng.random(out.shape) < self.parameter
            rng.standard_normal(out=out)
            out *= keep / np.sqrt(self.parameter)
        else:
            nu = self.parameter
            out[...] = rng.standard_t(nu, size=out.shape)
            out *= np.sqrt((nu - 2.0) / nu)
        return out


def gaussian() -> NoiseLaw:
    """Standard Gaussian entries (the book's model)."""
    return NoiseLaw("gaussian")


def rademacher() -> NoiseLaw:
    """Entries +1 or -1 with probability 1/2 each."""
    return NoiseLaw("rademacher")


def sparse(p: float) -> NoiseLaw:
    """Bernoulli-Gaussian entries: 0 with probability 1 - p, else N(0, 1/p) (variance 1)."""
    return NoiseLaw("sparse", p)


def student(nu: float) -> NoiseLaw:
    """Student-t entries with ``nu`` > 2 degrees of freedom, scaled to variance 1."""
    return NoiseLaw("student", nu)


def covariance_root(covariance, d: int | None = None) -> np.ndarray:
    r"""The symmetric square root :math:`\Sigma^{1/2}` of a noise covariance, validated.

    ``covariance`` is a vector of d positive variances (a diagonal :math:`\Sigma`; the root is then the
    vector of standard deviations) or a symmetric positive definite (d, d) matrix (root by eigendecomposition).
    Raises ValueError if it is not positive definite, not symmetric, not finite or not of dimension ``d``.
    """
    cov = np.asarray(covariance, dtype=float) if covariance is not None else np.empty(0)
    if cov.ndim not in (1, 2) or cov.size == 0 or (cov.ndim == 2 and cov.shape[0] != cov.shape[1]):
        raise ValueError(f"covariance must be a vector of variances or a square matrix, got shape {cov.shape}")
    if not np.all(np.isfinite(cov)):
        raise ValueError("covariance must contain only finite numbers")
    if d is not None and cov.shape[0] != d:
        raise ValueError(f"covariance must have dimension d = {d}, got {cov.shape[0]}")
    if cov.ndim == 1:
        if np.any(cov <= 0):
            raise ValueError(f"covariance must be positive definite: every variance > 0, got min {cov.min():.3g}")
        return np.sqrt(cov)
    if np.max(np.abs(cov - cov.T)) > 1e-10 * max(1.0, np.max(np.abs(cov))):
        raise ValueError("covariance must be symmetric")
    vals, vecs = np.linalg.eigh(cov)
    if vals[0] <= 1e-12 * max(1.0, vals[-1]):
        raise ValueError(f"covariance must be positive definite, got smallest eigenvalue {vals[0]:.3g}")
    return (vecs * np.sqrt(vals)) @ vecs.T
