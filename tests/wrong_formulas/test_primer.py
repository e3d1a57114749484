"""Wrong formulas that the closing checks of book/primer.md (the random-matrix primer) reject. The two wrong
population spikes are also tried on chapters 1 and 3 (test_ch01.py, test_ch03.py import them)."""

import numpy as np

from attnlib.theory import _law, _routes, _spikes
from checks import load, primer
from .conftest import page_tests, spike_with

RESULTS, _mp_density, _stieltjes = load("primer"), _law.mp_density, _routes.mp_stieltjes_complex

# the population outlier in theta without the shift x = theta - delta: kappa (theta + 1)(theta + delta)/theta
unshifted_outlier = spike_with("population_eigenvalue", lambda sp, x, delta, gamma, kappa: np.where(
    np.isfinite(sp.population_eigenvalue), kappa * (sp.theta + 1) * (sp.theta + delta) / np.where(
        sp.theta > 0, sp.theta, 1), np.nan))
# the population overlap 1 - delta/x instead of 1 - delta/x^2
overlap_wrong_power = spike_with("population_overlap", lambda sp, x, delta, *_: np.where(
    sp.population_overlap > 0, 1.0 - delta / x, 0.0))

def _mp_edges_delta(ratio, scale=1.0):
    lo, hi = scale * (1.0 - np.asarray(ratio, dtype=float)) ** 2, scale * (1.0 + np.asarray(ratio, dtype=float)) ** 2
    return (lo, hi) if np.ndim(lo) else (float(lo), float(hi))

WRONG = {  # name: (module, function, wrong formula)
    # the Marchenko-Pastur edges with delta where sqrt(delta) belongs: (1 -+ delta)^2
    "MP edges (1 -+ delta)^2": (_law, "mp_edges", _mp_edges_delta),
    # the Marchenko-Pastur density without its 1/lambda: sqrt((b - x)(x - a)) / (2 pi ratio scale)
    "MP density without the 1/lambda": (_law, "mp_density", lambda x, ratio, scale=1.0:
                                        _mp_density(x, ratio, scale) * np.asarray(x, dtype=float) / scale),
    # the other root of delta zeta G^2 - (zeta + delta - 1) G + 1 = 0 (the product of the two roots is
    # 1/(delta zeta)): it tends to 1/delta instead of vanishing like 1/zeta, its imaginary part has the wrong sign
    "Stieltjes transform, the other root": (_routes, "mp_stieltjes_complex", lambda zeta, ratio:
                                            1.0 / (ratio * np.asarray(zeta, dtype=complex) * _stieltjes(zeta, ratio))),
    # the moment-matched Marchenko-Pastur law MP_(delta + gamma) for the free product (same mean and variance)
    "MP_(delta+gamma) for MP_delta ⊠ MP_gamma": (_law, "bulk_density", lambda x, delta, gamma, kappa=1.0:
                                                 _mp_density(x, delta + gamma, kappa)),
    "population outlier (theta+1)(theta+delta)/theta": (_spikes, "spike", unshifted_outlier),
    "population overlap 1 - delta/x": (_spikes, "spike", overlap_wrong_power),
}
test_holds, test_rejects = page_tests(primer, RESULTS, WRONG)
