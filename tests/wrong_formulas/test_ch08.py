"""Wrong formulas that the closing checks of book/08_explore.md reject."""

import dataclasses

import numpy as np
import pytest

from attnlib.theory import _law, _spikes
from checks import ch08, load

from .conftest import rejects, swap

RESULTS = load("08_explore")
_spike, _mp_edges = _spikes.spike, _law.mp_edges


def _one_stage_outlier(theta, delta, gamma, kappa=1.0, *, direction="spike"):
    sp = _spike(theta, delta, gamma, kappa, direction=direction)
    x = np.asarray(sp.theta, dtype=float) - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        moved = np.where(np.isfinite(sp.sample_eigenvalue), kappa * (x + 1.0) * (x + delta) / x, np.nan)
    return dataclasses.replace(sp, sample_eigenvalue=moved if np.ndim(moved) else float(moved))


WRONG = {
    # the paper's stated strength rho = alpha ||mu||^2 / kappa as the spike strength (the outlier moves from
    # 0.421 to 0.318)
    "explore: the paper's rho as the spike strength": (_spikes, "spike_strength",
        lambda alpha, kappa, mu_norm2, delta: _spikes.paper_rho(alpha, kappa, mu_norm2)),
    # the one-stage outlier: the population outlier kappa (x+1)(x+delta)/x taken for the sample one (0.400
    # instead of 0.421), forgetting the factor (x+gamma)/x of the N samples
    "explore: sample outlier at the population outlier": (_spikes, "spike", _one_stage_outlier),
    # the bulk of S read as the Marchenko-Pastur law of the vocabulary alone (edge kappa (1+sqrt(delta))^2)
    "explore: the bulk edge of MP_delta alone": (_law, "bulk_edges",
        lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa)),
}


def test_the_checks_hold_on_the_recorded_results():
    ch08.check(RESULTS)


@pytest.mark.parametrize("name", WRONG)
def test_a_wrong_formula_is_rejected(monkeypatch, name):
    swap(monkeypatch, *WRONG[name])
    rejects(ch08.check, RESULTS)
