"""Wrong formulas that the closing checks of book/03_population_spike.md reject: each plants one plausible
mistake in the population outlier, its overlaps or its threshold."""

import dataclasses

import numpy as np
import pytest

from attnlib.theory import _spikes
from checks import ch03, load

from .conftest import rejects, swap
from .test_intro import rho_for_theta
from .test_primer import overlap_wrong_power, unshifted_outlier

RESULTS = load("03_population_spike")
_thresholds, _signal = _spikes.thresholds, _spikes.signal


def _centroid_factor_squared(delta, gamma, alpha, kappa, mu_norm2):
    sp, m = _signal(delta, gamma, alpha, kappa, mu_norm2), np.asarray(mu_norm2, dtype=float)
    f = np.where(m > 0, m / (m + delta), 0.0)
    return dataclasses.replace(sp, population_overlap=sp.population_overlap * f, sample_overlap=sp.sample_overlap * f)


WRONG = {  # name: (module, function, wrong formula)
    "rho for theta": (_spikes, "spike_strength", rho_for_theta),
    "population outlier without the shift": (_spikes, "spike", unshifted_outlier),
    "population overlap 1 - delta/x": (_spikes, "spike", overlap_wrong_power),
    # the population threshold of the rectangular model in units of ||mu||^2 (x > sqrt(delta) read as
    # theta > sqrt(delta)), so that spikes between sqrt(delta) and delta + sqrt(delta) get an outlier
    "population threshold sqrt(delta)": (_spikes, "thresholds", lambda delta, gamma: (
        np.sqrt(delta) if np.ndim(delta) else float(np.sqrt(delta)), _thresholds(delta, gamma)[1])),
    # the centroid factor ||mu||^2 / (||mu||^2 + delta) applied twice (squared) to the overlap with mu
    "overlap with mu, centroid factor squared": (_spikes, "signal", _centroid_factor_squared),
}


def test_the_checks_hold_on_the_recorded_results():
    ch03.check(RESULTS)


@pytest.mark.parametrize("name", WRONG)
def test_a_wrong_formula_is_rejected(monkeypatch, name):
    swap(monkeypatch, *WRONG[name])
    rejects(ch03.check, RESULTS)
