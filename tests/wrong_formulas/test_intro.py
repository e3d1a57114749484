"""Wrong formulas that the closing checks of book/intro.md (the lead figure and the answer box) reject."""

import numpy as np

from attnlib.theory import _routes, _spikes, classification, fluctuations
from checks import intro, load
from .conftest import centroid_scaled, page_tests

RESULTS = load("intro")

def rho_for_theta(delta, alpha, kappa, mu_norm2):
    """The paper's rho = alpha ||mu||^2 / kappa for theta = alpha (||mu||^2 + delta) / kappa (also chapters 1, 3)."""
    return alpha * mu_norm2 / kappa

def _around_population_threshold(delta, gamma, theta, d):
    t = (np.asarray(theta, dtype=float) - delta - np.sqrt(delta)) / fluctuations.window_width(delta, gamma, d)
    return float(t) if t.ndim == 0 else t

WRONG = {  # name: (module, function, wrong formula)
    "spike strength rho for theta": (_spikes, "spike_strength", rho_for_theta),
    # the overlap with mu taken equal to the overlap with h (no centroid factor ||mu||^2 / (||mu||^2 + delta))
    "overlap with mu without the centroid factor": (_spikes, "signal", centroid_scaled(
        _spikes.signal, ["sample_overlap"], divide=True)),
    # an edge eigenvector as a random direction, r(theta) = 1, forgetting that a spike below the threshold tilts
    # the edge eigenvectors towards h: the below-threshold bound 2 r(theta)/d is then too low
    "edge overlap of a random direction": (_routes, "edge_overlap_ratio", lambda delta, gamma, theta: 1.0),
    # the critical window centred on the population threshold sqrt(delta) instead of the sample threshold x*
    "critical window around the population threshold": (fluctuations, "window_position", _around_population_threshold),
    # the label's signal-to-noise ratio ranked by alpha/kappa (varsigma^2 = M alpha/kappa for every weighting)
    "label snr as M alpha/kappa": (classification, "label_separation", lambda delta, a, mu_norm2,
                                   alpha, kappa: float((mu_norm2 + delta) / (1 - delta) * alpha / kappa)),
}
test_holds, test_rejects = page_tests(intro, RESULTS, WRONG)
