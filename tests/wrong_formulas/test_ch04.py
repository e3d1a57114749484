"""Wrong formulas that the closing checks of book/04_sample_spike.md reject."""

import numpy as np

from attnlib.theory import _law, _spikes
from checks import ch04, load
from .conftest import centroid_scaled, page_tests, spike_with

RESULTS, _critical = load("04_sample_spike"), _law.critical_x

WRONG = {  # name: (module, function, wrong formula)
    # the sample outlier placed at the population outlier (sampling ignored)
    "sample outlier at population": (_spikes, "spike", spike_with("sample_eigenvalue", lambda sp, *_: np.where(
        np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan))),
    # the sample overlap with x^3 in the denominator instead of x^2 (x + gamma)
    "sample overlap over x^3": (_spikes, "spike", spike_with("sample_overlap", lambda sp, x, delta, gamma, kappa:
                                                             np.where(sp.sample_overlap > 0,
                                                                      sp.sample_overlap * (x + gamma) / x, 0.0))),
    # the threshold cubic without its constant term 2 gamma delta: x* = sqrt(delta + gamma + delta gamma)
    "sample threshold cubic without 2 gamma delta": (_law, "critical_x", lambda delta, gamma: (
        np.sqrt(delta + gamma + delta * gamma),) + tuple(_critical(delta, gamma)[1:])),
    # the overlap with mu taken equal to the overlap with h (no centroid factor ||mu||^2 / (||mu||^2 + delta))
    "overlap with mu without the centroid factor": (_spikes, "signal", centroid_scaled(
        _spikes.signal, ("population_overlap", "sample_overlap"), divide=True)),
}
test_holds, test_rejects = page_tests(ch04, RESULTS, WRONG)
