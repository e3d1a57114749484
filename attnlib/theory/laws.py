r"""Spectral laws, one shape: a base class :class:`SpectralLaw` and one subclass per law.

Modelled on scipy.stats' ``rv_continuous``: a subclass validates its parameters once, in ``__init__``, and
implements hooks (``_support``, ``_atom``, ``_density``, ``_stieltjes``, ``_moments``, optionally ``_cdf``);
the base checks the points, broadcasts and returns floats for scalars, and integrates every CDF with one
integrator (:meth:`SpectralLaw.cdf`). Every law takes its parameters in one order: the ratios
``delta = d/V``, ``gamma = d/N`` first, then the law's own parameters, then the scale ``kappa`` (default 1).

* :class:`Bulk` (:math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)`) and :class:`MarchenkoPastur`
  (here);
* :class:`attnlib.theory.single_token.OneToken` (the one-token law), :class:`attnlib.theory.population.PopulationBulk`
  (a general population), :class:`attnlib.theory.HeadsBulk` (many heads) and
  :class:`attnlib.theory.tracy_widom.TracyWidom`, each in the module that holds its formulas.

The Stieltjes transform is :math:`m(z) = \int dF(x)/(x - z)` (Im m > 0 for Im z > 0).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory import _law, _routes

__all__ = ["SpectralLaw", "Bulk", "MarchenkoPastur", "edge_map"]

_GRID = 2**14 + 1
_CONTOUR = 256  # nodes of the contour integral of the default moments


def edge_map(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The map s -> 5 s^4 - 4 s^5 of [0, 1] onto itself and its derivative 20 s^3 (1 - s).

    Flat at both ends (like s^4 at 0 and 1 - 10 (1-s)^2 at 1), so a density with a square-root soft edge, or
    an x^(-1/2) or x^(-2/3) hard edge at 0, becomes an integrand in s that vanishes at the ends.
    """
    return 5.0 * s**4 - 4.0 * s**5, 20.0 * s**3 * (1.0 - s)


def _output(value):
    """A float (complex) for a 0-d result, the array otherwise."""
    value = np.asarray(value)
    return value.item() if value.ndim == 0 else value


class SpectralLaw:
    """A spectral law: an atom at 0 of mass ``atom`` plus a density on ``[lower, upper]``.

    Public methods check their arguments and call the hooks of a subclass. ``cdf(x)`` integrates the density
    once, on first use, with one integrator: the cumulative trapezoid on the nodes of the hook ``_nodes``, then
    linear interpolation. By default the nodes are 2^14 + 1 points of :func:`edge_map` spread over the support;
    checked against adaptive quadrature: absolute error about 1e-8 with soft edges, 1e-8 with an x^(-1/2) hard
    edge at 0 (delta or gamma = 1) and 3e-6 with the x^(-2/3) hard edge of delta = gamma = 1.
    """

    name = "spectral law"
    #: Whether the points may be infinite (a law on the whole line).
    _INFINITE_POINTS = False
    #: If set, the integrated CDF is rescaled to total mass 1, after checking it is within this of 1.
    _MASS_TOLERANCE = None

    # ------------------------------------------------------------------------------------------- hooks
    def _support(self) -> tuple:
        raise NotImplementedError

    def _lower_end(self):
        """The lower end alone (default: from :meth:`_support`); a law whose upper end is costly overrides it."""
        return self._support()[0]

    def _atom(self):
        return 0.0

    def _density(self, x: np.ndarray):
        raise NotImplementedError

    def _stieltjes(self, z: np.ndarray):
        raise NotImplementedError(f"{type(self).__name__} has no Stieltjes transform")

    def _moments(self, k: int) -> np.ndarray:
        """Default: m_j = -(1/2 pi i) of the contour integral of z^j m(z) around the support (trapezoid)."""
        lo, hi = self.support
        centre, radius = 0.5 * hi, 0.75 * hi + 0.25 * max(lo, 0.0)
        theta = 2.0 * np.pi * (np.arange(_CONTOUR // 2) + 0.5) / _CONTOUR  # upper half; the lower by symmetry
        z = centre + radius * np.exp(1j * theta)
        m = self._stieltjes(z)
        j = np.arange(1, k + 1)[:, None]
        terms = (z**j) * m * (z - centre)  # dz = i (z - centre) dtheta
        return -2.0 * np.real(terms.sum(axis=1)) / _CONTOUR

    def _nodes(self) -> tuple:
        """``(x, values, steps)`` of the integrator: values at the nodes of a variable with steps ``steps``."""
        s = np.linspace(0.0, 1.0, _GRID)
        g, dg = edge_map(s)
        lower, upper = self._support()
        x = lower + (upper - lower) * g
        return x, self._density(x) * (upper - lower) * dg, np.diff(s)

    def _cdf(self, x: np.ndarray):
        grid, F = self._table
        return np.where(x < 0, 0.0, np.interp(x, grid, F, left=self.atom, right=1.0))

    # ------------------------------------------------------------------------------------ public face
    @cached_property
    def support(self) -> tuple:
        """``(lower, upper)``, the ends of the continuous part (floats, or arrays for array parameters)."""
        lower, upper = self._support()
        return _output(lower), _output(upper)

    @cached_property
    def lower(self):
        """Lower end of the continuous part."""
        return _output(self._lower_end())

    @property
    def upper(self):
        """Upper end of the continuous part."""
        return self.support[1]

    @cached_property
    def atom(self):
        """Mass of the atom at 0."""
        return _output(self._atom())

    def _points(self, x) -> np.ndarray:
        try:
            x = np.asarray(x, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"x must be a real number or an array of real numbers, got {_v.short(x)}") from None
        if self._INFINITE_POINTS:
            if np.any(np.isnan(x)):
                raise ValueError("x must not contain NaN")
        elif not np.all(np.isfinite(x)):
            raise ValueError("x must contain only finite numbers")
        return x

    def density(self, x):
        """Density of the continuous part at real ``x`` (any shape; a float for a scalar)."""
        return _output(self._density(self._points(x)))

    @cached_property
    def _table(self) -> tuple:
        """The one integrator: cumulative trapezoid of the hook ``_nodes`` above the atom (computed once)."""
        x, values, steps = self._nodes()
        atom = self._atom()
        F = atom + np.concatenate(([0.0], np.cumsum(0.5 * (values[1:] + values[:-1]) * steps)))
        if self._MASS_TOLERANCE is not None:
            if abs(F[-1] - 1.0) > self._MASS_TOLERANCE:
                raise ValueError(f"the density of {self.name} integrates to {F[-1] - atom:.6f}, not "
                                 f"{1 - atom:.6f}: increase points")
            F = atom + (F - atom) * (1 - atom) / (F[-1] - atom)
        return x, F

    def cdf(self, x):
        """P(eigenvalue <= x): 0 for x < 0, ``atom`` on [0, lower], 1 above ``upper``."""
        return _output(self._cdf(self._points(x)))

    def moments(self, k: int) -> np.ndarray:
        """Moments m_1..m_k of the law (atom included), as a float array."""
        return self._moments(_v.positive_int("k", k))

    def stieltjes(self, z):
        r"""Stieltjes transform :math:`m(z) = \int dF(x)/(x - z)` at complex ``z`` with Im z > 0 (any shape)."""
        z = np.asarray(z, dtype=complex)
        if not np.all(np.isfinite(z)) or not np.all(z.imag > 0):
            raise ValueError(f"z must be finite with Im z > 0, got {_v.short(z)}")
        return _output(self._stieltjes(z))

    def grid(self, points: int = 2001) -> np.ndarray:
        """``points`` abscissae on [lower, upper], dense near both edges (for drawing the density)."""
        points = _v.positive_int("points", points, minimum=2)
        return self.lower + (self.upper - self.lower) * edge_map(np.linspace(0.0, 1.0, points))[0]

    def bin_masses(self, edges) -> np.ndarray:
        """Mass of the continuous part in each bin [edges[i], edges[i+1]) (the atom at 0 excluded)."""
        e = np.asarray(edges, dtype=float)
        F = np.maximum(self.cdf(np.clip(e, self.lower, None)), self.atom)
        return np.diff(F)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"


def _scalars(law: SpectralLaw, *names: str) -> None:
    """Raise ValueError unless the named parameters of ``law`` are scalars (for its CDF)."""
    for name in names:
        if np.ndim(getattr(law, name)):
            raise ValueError(f"{type(law).__name__}.cdf needs scalar parameters, got {name} of shape "
                             f"{np.shape(getattr(law, name))}: make one law per parameter value")


class Bulk(SpectralLaw):
    r""":math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)`, the bulk law of the book's model.

    With :math:`\psi(z) = zG(z) - 1` the law solves :math:`z\psi = (1+\psi)(1+\delta\psi)(1+\gamma\psi)`.
    ``delta``, ``gamma`` and ``kappa`` (> 0) may be arrays: the support, atom and density broadcast over them
    (the CDF, moments and Stieltjes transform need scalars).
    """

    def __init__(self, delta, gamma, kappa=1.0):
        self.delta, self.gamma, self.kappa = _v.ratios(delta, gamma, kappa, allow_array=True)
        _law.together(delta=self.delta, gamma=self.gamma, kappa=self.kappa)
        if not any(np.ndim(v) for v in (self.delta, self.gamma, self.kappa)):
            self.name = f"kappa (MP_{self.delta:g} x MP_{self.gamma:g})"

    def _support(self):
        return _law.bulk_edges(self.delta, self.gamma, self.kappa)

    def _atom(self):
        return _law.zero_atom(self.delta, self.gamma)

    def _density(self, x):
        return _law.bulk_density(x, self.delta, self.gamma, self.kappa)

    def _stieltjes(self, z):
        return _law.bulk_stieltjes(z, self.delta, self.gamma, self.kappa)

    def _moments(self, k):
        return _law.bulk_moments(k, self.delta, self.gamma, self.kappa)

    def _cdf(self, x):
        _scalars(self, "delta", "gamma", "kappa")
        return super()._cdf(x)


class MarchenkoPastur(SpectralLaw):
    """``scale * MP_ratio``, the Marchenko-Pastur law of mean ``scale`` (atom 1 - 1/ratio when ratio > 1).

    The limit of both Wishart factors of the model: the vocabulary's (ratio delta = d/V) and, for a Gaussian
    population, the samples' (ratio gamma = d/N). ``ratio`` and ``scale`` (> 0) may be arrays for the support,
    atom and density.
    """

    def __init__(self, ratio, scale=1.0):
        self.ratio = _v.positive("ratio", ratio, allow_array=True)
        self.scale = _v.positive("scale", scale, allow_array=True)
        _law.together(ratio=self.ratio, scale=self.scale)
        if not np.ndim(self.ratio) and not np.ndim(self.scale):
            self.name = f"scale MP_{self.ratio:g}"

    def _support(self):
        return _law.mp_edges(self.ratio, self.scale)

    def _atom(self):
        return _law.as_output(np.maximum(0.0, 1.0 - 1.0 / np.asarray(self.ratio)))

    def _density(self, x):
        return _law.mp_density(x, self.ratio, self.scale)

    def _stieltjes(self, z):
        _scalars(self, "ratio", "scale")
        return -np.asarray(_routes.mp_stieltjes_complex(z / self.scale, self.ratio)) / self.scale

    def _moments(self, k):
        _scalars(self, "ratio", "scale")
        return _law.mp_moments(k, self.ratio) * self.scale ** np.arange(1, k + 1)

    def _cdf(self, x):
        _scalars(self, "ratio", "scale")
        return super()._cdf(x)
