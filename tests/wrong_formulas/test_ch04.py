"""Wrong formulas that the closing checks of book/04_sample_spike.md reject."""

import dataclasses

import numpy as np
import pytest

from attnlib.theory import _law, _spikes
from checks import ch04, load

from .conftest import rejects, swap

RESULTS = load("04_sample_spike")
_spike, _signal, _critical = _spikes.spike, _spikes.signal, _law.critical_x


def _changed(field, change):  # the spike with one field replaced by change(spike, x = theta - delta, gamma)
    def wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
        sp = _spike(theta, delta, gamma, kappa, direction=direction)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = change(sp, np.asarray(sp.theta, dtype=float) - delta, gamma)
        return dataclasses.replace(sp, **{field: new if np.ndim(new) else float(new)})
    return wrong


def _no_centroid_factor(delta, gamma, alpha, kappa, mu_norm2):
    sp, f = _signal(delta, gamma, alpha, kappa, mu_norm2), np.where(mu_norm2 > 0, mu_norm2 / (mu_norm2 + delta), 1.0)
    return dataclasses.replace(sp, population_overlap=sp.population_overlap / f, sample_overlap=sp.sample_overlap / f)


WRONG = {
    # the sample outlier placed at the population outlier (sampling ignored)
    "sample outlier at population": (_spikes, "spike", _changed("sample_eigenvalue", lambda sp, x, g: np.where(
        np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan))),
    # the sample overlap with x^3 in the denominator instead of x^2 (x + gamma)
    "sample overlap over x^3": (_spikes, "spike", _changed("sample_overlap", lambda sp, x, g: np.where(
        sp.sample_overlap > 0, sp.sample_overlap * (x + g) / x, 0.0))),
    # the threshold cubic without its constant term 2 gamma delta: x* = sqrt(delta + gamma + delta gamma)
    "sample threshold cubic without 2 gamma delta": (_law, "critical_x", lambda delta, gamma: (
        np.sqrt(delta + gamma + delta * gamma),) + tuple(_critical(delta, gamma)[1:])),
    # the overlap with mu taken equal to the overlap with h (no centroid factor ||mu||^2 / (||mu||^2 + delta))
    "overlap with mu without the centroid factor": (_spikes, "signal", _no_centroid_factor),
}


def test_the_checks_hold_on_the_recorded_results():
    ch04.check(RESULTS)


@pytest.mark.parametrize("name", WRONG)
def test_a_wrong_formula_is_rejected(monkeypatch, name):
    swap(monkeypatch, *WRONG[name])
    rejects(ch04.check, RESULTS)
