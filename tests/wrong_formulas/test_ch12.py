"""Wrong formulas that the closing checks of book/12_bulk_law_derivations.md reject."""

import numpy as np

from attnlib import theory
from attnlib.engine import compare
from attnlib.theory import tokens
from attnlib.theory import _law, fluctuations, tracy_widom
from checks import ch12, load
from .conftest import page_tests

RESULTS = load("12_bulk_law_derivations")
_moments, _edge_constant, _mp_law = _law.bulk_moments, fluctuations.edge_constant, theory.MarchenkoPastur

def _inverse_t_eff(w):  # 1/T_eff = sum w^4 / (sum w^2)^2
    w = np.asarray(w, dtype=float)
    return float(np.sum(w**4) / np.sum(w**2) ** 2)

def _moments_of_mp(k, delta, gamma, kappa=1.0):  # m_3 of MP_(delta + gamma): sigma_1^2 + sigma_2 - sigma_3
    m = _moments(k, delta, gamma, kappa)
    if k >= 3:
        m = m.copy()
        m[2] -= delta * gamma * kappa**3
    return m

def _edge_constant_no_3(delta, gamma, kappa=1.0):
    x_star = theory.critical_x(delta, gamma)[0]
    upper = float(theory.outlier_map(x_star, delta, gamma, kappa))
    return float(1.0 / (upper * np.sqrt(kappa * ((delta + gamma + delta * gamma) * x_star + delta * gamma))))

WRONG = {
    # the token-mixing matrix's law with V/N and N/V exchanged: MP_(1/eta), the law of A^T A's N x N Gram matrix
    "token-mixing law MP_(1/eta)": [(theory, "MarchenkoPastur", lambda ratio, scale=1.0: _mp_law(1 / ratio, scale))],
    # no finite-T correction: the bulk law at every number of tokens
    "bulk ignoring T_eff": [(tokens, "m4_shift", lambda delta, gamma, w: 0.0)],
    # the excess to the first power of 1/T_eff: delta gamma^2 / T_eff
    "fourth-moment excess with 1/T_eff": [(tokens, "m4_shift",
                                           lambda delta, gamma, w: delta * gamma**2 * _inverse_t_eff(w))],
    # delta and gamma exchanged in the excess: delta^2 gamma / T_eff^2
    "fourth-moment excess with delta and gamma exchanged": [(tokens, "m4_shift",
        lambda delta, gamma, w: delta**2 * gamma * _inverse_t_eff(w) ** 2)],
    # the third moment of the moment-matched MP_(delta + gamma): sigma_1^2 + sigma_2 - sigma_3
    "third moment of MP_(delta+gamma)": [(_law, "bulk_moments", _moments_of_mp)],
    # the square-root edge constant with sigma_3 instead of 3 sigma_3
    "edge constant without the factor 3": [(fluctuations, "edge_constant", _edge_constant_no_3)],
    # the Tracy-Widom scale d^(-1/2) (a central-limit scale) instead of d^(-2/3)
    "Tracy-Widom scale with the power 1/2": [(fluctuations, "edge_scale", lambda delta, gamma, kappa, d: float(
        (_edge_constant(delta, gamma, kappa) * d) ** -0.5))],
    # the complex Tracy-Widom law TW_2 (mean -1.7711, sd 0.9018) for the real one
    "TW_2 constants for TW_1": [(tracy_widom, "MEAN", -1.7710868074), (tracy_widom, "SD", 0.9018020)],
    # the lower edge measured on the upper edge's Tracy-Widom scale
    "lower edge on the upper edge's scale": [(compare, "lower_edge_scale", fluctuations.edge_scale)],
    # the most-used token's term with the mean count instead of the largest
    "heavy token term with the mean count": [(tokens, "heavy_token_term",
                                              lambda delta, gamma, w, d: float(delta))],
}
test_holds, test_rejects = page_tests(ch12, RESULTS, WRONG)
