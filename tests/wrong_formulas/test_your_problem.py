"""Wrong formulas that the closing checks of book/your_problem.md reject."""

import dataclasses

import numpy as np

from attnlib import theory
from attnlib.theory import _spikes, fluctuations, overlap_fluctuations as O
from checks import load, your_problem
from .conftest import centroid_scaled, page_tests, replaced

RESULTS, _thresholds, _spike_variance = load("your_problem"), _spikes.signal_thresholds, O.spike_variance

def _through_eigenvalue(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
    v = _spike_variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4)
    lo, hi = (theory.spike(delta, gamma, theta=theta + e, kappa=kappa) for e in (-1e-6, 1e-6))
    slope = (hi.sample_overlap - lo.sample_overlap) / (hi.sample_eigenvalue - lo.sample_eigenvalue)
    return dataclasses.replace(v, overlap_h=slope**2 * v.eigenvalue)

WRONG = {  # name: (module, function, wrong formula)
    # the thresholds in ||mu||^2 on the paper's strength rho = alpha ||mu||^2 / kappa (no class split delta)
    "signal thresholds without the class split": (_spikes, "signal_thresholds", lambda *a, clip=True: tuple(
        float(np.asarray(m) + a[0]) for m in _thresholds(*a, clip=False))),
    # the overlap with mu taken equal to the overlap with h (no factor ||mu||^2 / (||mu||^2 + delta))
    "overlap with mu without the centroid factor": (_spikes, "signal", centroid_scaled(
        _spikes.signal, ["sample_overlap"], divide=True)),
    # the outlier's variance from sampling alone, as if the vocabulary were fixed
    "outlier variance without the vocabulary": (fluctuations, "outlier_variance", replaced(
        fluctuations.outlier_variance, vocabulary_norm=lambda *a, **k: 0.0, vocabulary_direction=lambda *a, **k: 0.0)),
    # the overlap's sd by the chain rule through the eigenvalue, as if one number x moved both
    "overlap sd through the eigenvalue": (O, "spike_variance", _through_eigenvalue),
}
test_holds, test_rejects = page_tests(your_problem, RESULTS, WRONG)
