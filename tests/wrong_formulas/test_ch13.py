"""Wrong formulas that the closing checks of book/13_spike_derivations.md reject."""

import numpy as np

from attnlib.theory import _law, _routes, _spikes
from checks import ch13, load
from .conftest import page_tests, spike_with

RESULTS, _critical, _resolvent = load("13_spike_derivations"), _law.critical_x, _routes.sample_spike_resolvent

def _cubic_with_delta_squared(delta, gamma):  # the positive root of x^3 - s2 x - 2 s3, s2 = delta + gamma + delta^2
    s2, s3 = np.asarray(delta) + gamma + np.asarray(delta) ** 2, np.asarray(delta) * gamma
    top = 2.0 * np.sqrt(s2 / 3.0) * np.cos(np.arccos(np.clip(3.0 * s3 / s2 * np.sqrt(3.0 / s2), -1, 1)) / 3.0)
    return (top if np.ndim(top) else float(top),) + tuple(_critical(delta, gamma)[1:])

WRONG = {
    # the overlap of the sample eigenvector with h taken to be the sampling factor alone (as if v_pop were h)
    "one-stage overlap": (_spikes, "spike", spike_with("sample_overlap", lambda sp, x, dl, gm, k: np.where(
        sp.sample_overlap > 0, np.minimum(sp.sample_overlap / np.where(x > np.sqrt(dl), 1 - dl / x**2, 1), 1), 0))),
    # the population outlier with x^2 in the denominator
    "population outlier over x^2": (_spikes, "spike", spike_with(
        "population_eigenvalue", lambda sp, x, dl, gm, k: sp.population_eigenvalue / x)),
    # the sample outlier through the Baik-Silverstein map of an identity bulk, l (1 + gamma / (l - 1)), instead
    # of the map of MP_delta, l (1 + gamma / x)
    "sample outlier by the identity-bulk map": (_spikes, "spike", spike_with("sample_eigenvalue", lambda sp, x, dl,
        gm, k: np.where(np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue * (1 + gm / (
            sp.population_eigenvalue / k - 1)), np.nan))),
    # the threshold cubic with the delta <-> gamma symmetry broken: sigma_2 = delta + gamma + delta^2
    "sample threshold cubic with delta^2 for delta gamma": (_law, "critical_x", _cubic_with_delta_squared),
    # the resolvent route with its residue missing the factor 1 / zeta(m*)
    "resolvent residue without 1/zeta": (_routes, "sample_spike_resolvent", lambda delta, gamma, theta, kappa=1.0: (
        lambda lam, ov: (lam, ov * lam / kappa if np.isfinite(lam) else ov))(
            *_resolvent(delta, gamma, theta=theta, kappa=kappa))),
    # no trace of the spike at the edge: the edge-overlap ratio of a random direction, 1
    "edge overlap ratio 1": (_routes, "edge_overlap_ratio", lambda delta, gamma, theta: 1.0),
    # the strength of the vocabulary-mean spike without the factor ||g||^2 -> delta
    "mean spike strength without delta": (_spikes, "mean_spike_strength", lambda delta, weight_sum,
                                          kappa: np.asarray(weight_sum) ** 2 / kappa),
}
test_holds, test_rejects = page_tests(ch13, RESULTS, WRONG)
