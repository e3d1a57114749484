"""Wrong formulas that the closing checks of book/10_attention_in_practice.md reject."""

import numpy as np
from scipy.optimize import minimize
from scipy.special import ndtr, softmax

from attnlib.model import positional, weights as W
from attnlib.studies import causal_attention as A, learning as L, real_layer as Y
from attnlib.theory import _spikes as S
from attnlib.theory import classification as C, finite_attention as FA
from checks import ch10, load
from .conftest import page_tests, spike_with

RESULTS = load("10_attention_in_practice")
_causal, _pairs, _second, _moments = W.causal, FA.repeated_pairs, FA.deviation_second_moment, FA.random_row_moments

def _clipped(R, *, max_T=20, tol=1e-10):
    w = np.clip(W.optimal(np.asarray(R, dtype=float), normalize="norm"), 0.0, None)
    return w / w.sum(), float(w @ R @ w / (w @ w))

def _one_branch(R, B):  # the optimiser started near one maximiser only (the branch of weights.optimal_nonnegative)
    w_plus, T = W.optimal_nonnegative(R)[0], len(R)
    runs = [minimize(L._snr_and_gradient, b0.astype(float), args=(R,), jac=True, method="L-BFGS-B",
                     bounds=[(0.0, B)] * T, options={"gtol": 1e-14, "ftol": 1e-16})
            for b0 in (np.full(T, B / 2), B * (w_plus > 0), B * w_plus / w_plus.max())]
    best = min(runs, key=lambda res: res.fun)
    return softmax(best.x), float(-best.fun)

def _redraw_one_branch(r):  # f(B) of the oscillating process again (12 optimisations)
    r, R = dict(r), ch10.families(r["T"])["oscillating"].R
    r["bounded/oscillating"] = np.array([_one_branch(R, B)[1] for B in r["B_grid"]])
    r["w10"] = _one_branch(R, 10.0)[0]
    return r

def _redraw_scored_over_d(r):  # the tilt at the smallest d again (the page's draws), the sqrt(d) layer scored over d
    r, T, d = dict(r), r["T"], int(r["tilt_dims"][0])
    rng, pattern = np.random.default_rng(1010), (T - 1 - 2 * np.arange(T)) / T
    tilt = []
    for _ in range(r["tilt_hat"].shape[1]):
        X, _, tok = A.sample_embeddings(positional.independent(T), 80, d, 400 * d, 0.0, rng)
        w = Y.pooling_weights(X[np.all(np.diff(np.sort(tok, axis=1), axis=1) > 0, axis=1)], r["tau_sqrt"])  # over d
        tilt.append(pattern @ (w.mean(axis=0) - 1 / T) / (pattern @ pattern))
    r["tilt_hat"] = np.vstack([tilt, r["tilt_hat"][1:]])
    return r

WRONG = {  # name: (module, function, wrong function)
    # the bounded-score constant of one maximiser (the first found) instead of the smallest over all of them
    "bounded-score constant of the first maximiser":
        (L, "bounded_gap", lambda R: L.shortfall_constant(R, W.optimal_nonnegative(R)[0])),
    # lambda_+ taken as unique: only the maximiser of weights.optimal_nonnegative
    "one maximiser of lambda_plus": (L, "nonnegative_maximisers", lambda R, **kw: [W.optimal_nonnegative(R)[0]]),
    # the best non-negative weights as the positive part of the signed top eigenvector
    "clipped top eigenvector for lambda_plus": (W, "optimal_nonnegative", _clipped),
    # the tilt of the sqrt(d) layer at leading order only, exp(-tau sqrt(d)) without exp(3 tau^2 / 2)
    "leading-order tilt": (FA, "score_tilt", lambda tau, d: float(np.exp(-tau * np.sqrt(d)))),
    # the random rows of the tau < 0 layer keep their self key
    "random rows with the self key":
        (FA, "random_row_moments", lambda T, sigma, *, self_key=True: _moments(T, sigma, self_key=True)),
    # the softmax of Gaussian scores treated as uniform: E[a_1^2] = 1/k^2
    "uniform softmax rows": (FA, "softmax_row_second_moment", lambda k, sigma, *, nodes=96: 1.0 / k**2),
    # a repeated pair at the rate of independent signs, ignoring R: T(T-1)/(2V)
    "repeated pairs without R": (FA, "repeated_pairs", lambda R, V: float(len(R) * (len(R) - 1) / 2 / V)),
    # N T^2 / V repeating sequences (the pairs counted twice)
    "repeated pairs counted twice": (FA, "repeated_pairs", lambda R, V: 2 * _pairs(R, V)),
    # the weights' deviation from the limit without the repeated-token term
    "weight deviation without repeats": (FA, "deviation_second_moment", lambda T, tau, d, *, V=None, R=None,
                                         strict=False: _second(T, tau, d, strict=strict)),
    # the limit weights of the layer without the self score (the harmonic weights whatever tau)
    "limit weights without tau": (W, "causal", lambda T, tau=0.0, *, strict=False: _causal(T, 0.0, strict=strict)),
    # the Fisher ceiling Phi(varsigma^2) instead of Phi(varsigma)
    "Fisher accuracy of varsigma squared":
        (C, "fisher_ceiling", lambda delta, a, mu_norm2, alpha, kappa: float(ndtr(C.label_separation(
            delta, a=a, mu_norm2=mu_norm2, alpha=alpha, kappa=kappa)))),
    # the label's Fisher separation replaced by the spike strength alpha/kappa (the alpha/kappa optimum as target)
    "label separation as alpha over kappa": (C, "label_separation", lambda delta, a, mu_norm2, alpha, kappa: float(
        alpha / kappa * (mu_norm2 + delta) / (1 - delta))),
    # the layer's sample outlier placed at the population outlier
    "layer outlier at the population outlier": (S, "spike", spike_with("sample_eigenvalue", lambda sp, *_: np.where(
        np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan))),
    # two wrong functions change what the page measured, not a prediction: what they feed is run again
    # the optimiser (the route to f(B) that never sees the constants) started near one maximiser only
    "an optimiser on one branch": [],
    # the sqrt(d) layer's scores divided by d
    "a sqrt(d) layer scored over d": [],
}
test_holds, test_rejects = page_tests(ch10, RESULTS, WRONG, redraw={
    "an optimiser on one branch": _redraw_one_branch, "a sqrt(d) layer scored over d": _redraw_scored_over_d})
