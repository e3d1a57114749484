"""Wrong formulas that the closing checks of book/08_explore.md reject."""

import numpy as np

from attnlib.theory import _law, _spikes
from checks import ch08, load
from .conftest import page_tests, spike_with

RESULTS, _mp_edges = load("08_explore"), _law.mp_edges

WRONG = {
    # the paper's rho = alpha ||mu||^2 / kappa as the spike strength (the outlier moves from 0.421 to 0.318)
    "explore: the paper's rho as the spike strength": (_spikes, "spike_strength",
        lambda delta, alpha, kappa, mu_norm2: _spikes.paper_rho(alpha, kappa, mu_norm2)),
    # the one-stage outlier: the population outlier kappa (x+1)(x+delta)/x taken for the sample one (0.400
    # instead of 0.421), forgetting the factor (x+gamma)/x of the N samples
    "explore: sample outlier at the population outlier": (_spikes, "spike", spike_with(
        "sample_eigenvalue", lambda sp, x, delta, gamma, kappa: np.where(np.isfinite(sp.sample_eigenvalue),
                                                                         kappa * (x + 1.0) * (x + delta) / x, np.nan))),
    # the bulk of S read as the Marchenko-Pastur law of the vocabulary alone (edge kappa (1+sqrt(delta))^2)
    "explore: the bulk edge of MP_delta alone": (_law, "bulk_edges",
        lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa)),
}
test_holds, test_rejects = page_tests(ch08, RESULTS, WRONG)
