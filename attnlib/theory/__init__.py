r"""Closed-form limits: the bulk law kappa (MP_delta ⊠ MP_gamma) and the spike (BBP) formulas, coded once.

Notation (see the book's model chapter): ``delta = d/V``, ``gamma = d/N``, ``kappa = ||w||^2``,
``alpha = w^T R w``. All formulas are for noise of unit variance per coordinate, and all broadcast over their
arguments (scalars give floats).

Bulk law
    With :math:`\psi(z) = z G(z) - 1` the law :math:`\mathrm{MP}_\delta \boxtimes \mathrm{MP}_\gamma` (scale 1)
    solves :math:`z\psi = (1+\psi)(1+\delta\psi)(1+\gamma\psi)`: :func:`bulk_density`, :func:`bulk_edges`,
    :func:`zero_atom`, :func:`bulk_moments`; the Marchenko-Pastur law: :func:`mp_density`, :func:`mp_edges`.

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

from attnlib.theory import _law, _routes, _spikes
from attnlib.theory._law import *  # noqa: F401,F403  (the public names of each part, listed in its __all__)
from attnlib.theory._routes import *  # noqa: F401,F403
from attnlib.theory._spikes import *  # noqa: F401,F403

# the other laws and the finite-size theory, as modules (each imports _law / _spikes, never this package)
from attnlib.theory import (fluctuations, overlap_fluctuations, spectral_laws, single_token,  # noqa: E402
                            population, tracy_widom)
from attnlib.theory import classification, finite_attention, heads, layers, tokens, window  # noqa: E402

__all__ = _law.__all__ + _spikes.__all__ + _routes.__all__
