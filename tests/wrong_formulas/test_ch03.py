"""Wrong formulas that the closing checks of book/03_population_spike.md reject (outlier, overlaps, threshold)."""

import numpy as np

from attnlib.theory import _spikes
from checks import ch03, load
from .conftest import centroid_scaled, page_tests
from .test_intro import rho_for_theta
from .test_primer import overlap_wrong_power, unshifted_outlier

RESULTS, _thresholds = load("03_population_spike"), _spikes.thresholds

WRONG = {  # name: (module, function, wrong formula)
    "rho for theta": (_spikes, "spike_strength", rho_for_theta),
    "population outlier without the shift": (_spikes, "spike", unshifted_outlier),
    "population overlap 1 - delta/x": (_spikes, "spike", overlap_wrong_power),
    # the population threshold of the rectangular model in units of ||mu||^2 (x > sqrt(delta) read as
    # theta > sqrt(delta)), so that spikes between sqrt(delta) and delta + sqrt(delta) get an outlier
    "population threshold sqrt(delta)": (_spikes, "thresholds", lambda delta, gamma: (
        np.sqrt(delta) if np.ndim(delta) else float(np.sqrt(delta)), _thresholds(delta, gamma)[1])),
    # the centroid factor ||mu||^2 / (||mu||^2 + delta) applied twice (squared) to the overlap with mu
    "overlap with mu, centroid factor squared": (_spikes, "signal", centroid_scaled(
        _spikes.signal, ("population_overlap", "sample_overlap"), zero=0.0)),
}
test_holds, test_rejects = page_tests(ch03, RESULTS, WRONG)
