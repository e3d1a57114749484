"""Wrong formulas that the closing checks of book/02_bulk_law.md reject."""

import numpy as np

from attnlib.engine import compare
from attnlib.theory import tokens
from attnlib.theory import _law
from checks import ch02, load
from .conftest import page_tests, replaced

RESULTS, _mp_density, _mp_edges = load("02_bulk_law"), _law.mp_density, _law.mp_edges

def _edges_product(delta, gamma, kappa=1.0):
    lo, hi = ((1 + sign * np.sqrt(delta)) ** 2 * (1 + sign * np.sqrt(gamma)) ** 2 for sign in (-1, 1))
    return float(kappa * lo), float(kappa * hi)

def _uses_at_edge(out, delta, gamma, w):  # T_eff / eta times the edge of MP_eta
    eta, w = gamma / delta, np.asarray(w, dtype=float)
    return (1 + np.sqrt(eta)) ** 2 / (eta * np.sum(w**4) / np.sum(w**2) ** 2)

WRONG = {  # name: (module, function, wrong formula) or a list of them
    # the bulk of a sample covariance of an isotropic population, ignoring the sampling
    "MP_delta for the bulk": [(_law, "bulk_density", lambda x, delta, gamma, kappa=1.0: _mp_density(x, delta, kappa)),
                              (_law, "bulk_edges", lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa))],
    # the moment-matched Marchenko-Pastur law MP_(delta + gamma) for the density (same mean and variance)
    "MP_(delta+gamma) density for the bulk": (_law, "bulk_density", lambda x, delta, gamma, kappa=1.0:
                                              _mp_density(x, delta + gamma, kappa)),
    # the edges as products of the two Marchenko-Pastur edges
    "bulk edges as products of MP edges": (_law, "bulk_edges", _edges_product),
    # the edge equation without the factor 2: x^3 - sigma_2 x - sigma_3 = 0
    "edge cubic without the factor 2": (_law, "critical_x", lambda delta, gamma: tuple(float(x) for x in np.sort(
        np.roots([1.0, 0.0, -(delta + gamma + delta * gamma), -delta * gamma]).real)[::-1])),
    # the atom at 0 from the vocabulary alone, max(0, 1 - 1/delta)
    "atom ignoring gamma": (_law, "zero_atom", lambda delta, gamma: max(0.0, 1.0 - 1.0 / delta)),
    # the bulk stretched by the pooled signal alpha = w^T R w instead of kappa = ||w||^2
    "bulk scaled by alpha": (compare, "finite_size_parameters", lambda s: (
        s.d / (s.V - 1), s.d / (s.N - 1), s.alpha * (s.V - 1) * (s.N - 1) / (s.V * s.N))),
    # the most-used token an outlier as soon as its share of the token-mixing matrix leaves that matrix's bulk,
    # (1 + sqrt(eta))^2, instead of at the sample threshold of a spike on MP_eta seen through d samples
    "heavy token outlier at the population edge": (tokens, "heavy_token_thresholds", replaced(
        tokens.heavy_token_thresholds, outlier_uses=_uses_at_edge)),
}
test_holds, test_rejects = page_tests(ch02, RESULTS, WRONG)
