r"""Closed-form limits: the bulk law kappa (MP_delta ⊠ MP_gamma) and the spike (BBP) formulas, coded once.

Notation (see the book's model chapter): ``delta = d/V``, ``gamma = d/N``, ``kappa = ||w||^2``,
``alpha = w^T R w``. All formulas are for noise of unit variance per coordinate, and all broadcast over their
arguments (scalars give floats).

Laws
    One shape, :class:`~attnlib.theory.laws.SpectralLaw` (support, atom, density, CDF, moments, Stieltjes
    transform), one class per law, the ratios first: :class:`~attnlib.theory.laws.Bulk` (with :math:`\psi(z) = z G(z) - 1` the law
    :math:`\kappa(\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma)` solves
    :math:`z\psi = (1+\psi)(1+\delta\psi)(1+\gamma\psi)`), :class:`~attnlib.theory.laws.MarchenkoPastur`,
    :class:`~attnlib.theory.single_token.OneToken`, :class:`~attnlib.theory.population.PopulationBulk`,
    :class:`HeadsBulk` and :class:`~attnlib.theory.tracy_widom.TracyWidom`.

Spikes
    A spike of strength theta (units of kappa), ``x = theta - delta``: population outlier
    ``kappa (x+1)(x+delta)/x`` when ``x > sqrt(delta)``, sample outlier ``kappa (x+1)(x+delta)(x+gamma)/x^2``
    when ``x > x*`` (:func:`critical_x`). The same map ``z(x)`` (:func:`outlier_map`) is the bulk's inverse
    Stieltjes map at ``psi = 1/x``; its critical points are the bulk edges. :func:`spike`, :func:`signal`,
    :func:`mean_spike`, :func:`class_spikes`, :func:`thresholds`, :func:`regions`.

Independent routes
    :func:`mp_stieltjes`, :func:`population_outlier_numeric` and :func:`baik_silverstein` reach the same
    numbers by root finding and quadrature, to check the closed forms.
"""

from attnlib.theory import _law, _routes, _spikes, laws
from attnlib.theory._law import *  # noqa: F401,F403  (the public names of each part, listed in its __all__)
from attnlib.theory._routes import *  # noqa: F401,F403
from attnlib.theory._spikes import *  # noqa: F401,F403

# the other laws and the finite-size theory, as modules (each imports _law / _spikes, never this package)
from attnlib.theory import (fluctuations, overlap_fluctuations, single_token,  # noqa: E402
                            population, tracy_widom)
from attnlib.theory import classification, finite_attention, heads, layers, tokens, window  # noqa: E402
from attnlib.theory.laws import SpectralLaw, Bulk, MarchenkoPastur  # noqa: E402
from attnlib.theory.single_token import OneToken  # noqa: E402
from attnlib.theory.population import PopulationBulk  # noqa: E402
from attnlib.theory._heads_bulk import HeadsBulk  # noqa: E402
from attnlib.theory.tracy_widom import TracyWidom  # noqa: E402

__all__ = (["SpectralLaw", "Bulk", "MarchenkoPastur", "OneToken", "PopulationBulk", "HeadsBulk", "TracyWidom"]
           + _law.__all__ + _spikes.__all__ + _routes.__all__)
