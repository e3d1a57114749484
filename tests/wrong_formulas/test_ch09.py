"""Wrong formulas that the closing checks of book/09_finite_size.md reject."""

import numpy as np

from attnlib import theory
from attnlib.engine import compare
from attnlib.studies import finite_size, token_mixing
from attnlib.theory import fluctuations as F, tracy_widom as TW
from attnlib.theory import window
from checks import ch09, load
from .conftest import page_tests, replaced

RESULTS = load("09_finite_size")
_variance, _width, _m2 = F.outlier_variance, F.window_width, TW.TracyWidom(2).stats()

def _kurtosis(kurt):  # outlier_variance with the pooled sign's kurtosis beta4 replaced by kurt(beta4)
    return lambda delta, gamma, theta, d, *, beta4=3.0, **kw: _variance(delta, gamma, theta, d, beta4=kurt(beta4), **kw)

def _edge_constant_without_kappa(delta, gamma, kappa=1.0):
    x = theory.critical_x(delta, gamma)[0]
    s2, s3 = delta + gamma + delta * gamma, delta * gamma
    return float(1.0 / (theory.outlier_map(x, delta, gamma, kappa) * np.sqrt(s2 * x + 3.0 * s3)))

def _population_overlap_slope(delta, gamma):
    x, h = theory.critical_x(delta, gamma)[0], 1e-7
    return float((theory.spike(delta, gamma, theta=delta + x + h).population_overlap
                  - theory.spike(delta, gamma, theta=delta + x).population_overlap) / h)

WRONG = {  # name: (module, function, wrong formula) or a list of them
    # the outlier's sampling variance as if the pooled sign were Gaussian (kurt(w^T xi) = 3)
    "Gaussian outlier fluctuations": (F, "outlier_variance", _kurtosis(lambda b: 3.0)),
    # the kurtosis term with kurt - 1 (the excess over a constant sign) instead of kurt - 3
    "outlier kurtosis term with kurt - 1": (F, "outlier_variance", _kurtosis(lambda b: b + 2.0)),
    # the Gaussian sampling term without the population-to-sample slope psi' (2 l^2 / N, Paul's white case)
    "outlier sampling variance without psi prime": (F, "outlier_variance", replaced(_variance, sampling_gaussian=(
        lambda v, delta, gamma, theta, d, *, kappa=1.0, **_: 2.0 * (kappa * (theta - delta + 1.0) * theta / (
            theta - delta)) ** 2 * gamma / d))),
    # the vocabulary variance without the direction term 2 delta / (x^2 - delta)
    "outlier vocabulary variance without the direction": (F, "outlier_variance", replaced(
        _variance, vocabulary_direction=lambda *a, **k: 0.0)),
    # the kurtosis of the pooled sign as if the signs were independent: 3 - 2 sum w^4 / kappa^2
    "pooled-sign kurtosis of independent signs": (F, "fourth_moment_ratio",
                                                  lambda w, xi: float(3.0 - 2.0 * np.sum(w**4) / np.sum(w**2) ** 2)),
    # the Tracy-Widom scale with kappa left out of the square root of the edge constant
    "edge constant without kappa": (F, "edge_constant", _edge_constant_without_kappa),
    # the edge fluctuations on the CLT scale (c d)^(-1/2) instead of (c d)^(-2/3)
    "edge scale d^(-1/2)": (F, "edge_scale", lambda delta, gamma, kappa, d: float(
        (F.edge_constant(delta, gamma, kappa) * d) ** -0.5)),
    # the edge evaluated at N and V, with no degree of freedom lost to the centring
    "finite-size edge without the centring": (compare, "finite_size_parameters", lambda s: (s.delta, s.gamma, s.kappa)),
    # the critical window at the CLT width d^(-1/2)
    "CLT-width critical window": (F, "window_width", lambda delta, gamma, d: _width(delta, gamma, 1) * d**-0.5),
    # the window width without the factor 2: sqrt(l / z''(x*)) (the outlier at l t^2 / 2 above the edge)
    "critical window without the factor 2": (F, "window_width",
                                             lambda delta, gamma, d: _width(delta, gamma, d) / np.sqrt(2.0)),
    # the slope of the population overlap at the sample threshold for that of the sample overlap
    "overlap slope of the population overlap": (window, "overlap_slope", _population_overlap_slope),
    # the Tracy-Widom law of complex matrices (beta = 2) for real ones; edge_quantile, window_half_width uncached
    "Tracy-Widom law of complex matrices": [
        (TW, "MEAN", _m2.mean), (TW, "VARIANCE", _m2.variance), (TW, "SD", _m2.sd),
        (TW, "_tabulate", lambda s, beta, want, extra=0, tab=TW._tabulate: tab(s, 2, want, extra)),
        (TW, "_stats", lambda beta, extra=0: _m2), (F, "edge_quantile", F.edge_quantile.__wrapped__),
        (F, "window_half_width", F.window_half_width.__wrapped__)],
    # the overlap envelope set loosely, twice the measured values
    "loose overlap envelope": [(finite_size, "OVERLAP_PEAK", 1.2), (finite_size, "OVERLAP_TAIL", 1.4)],
    # the edge given the tokens as if the tokens did not move it: the limit edge for every draw
    "edges that ignore the tokens": (token_mixing, "token_edges", lambda d, V, N, w, rng, draws=1: np.full(
        draws, theory.Bulk(d / V, d / N).upper)),
}
test_holds, test_rejects = page_tests(ch09, RESULTS, WRONG, redraw={  # the page's edges drawn again (instantly)
    "edges that ignore the tokens": lambda r: {**r, **ch09.token_edge_draws(r)}})
