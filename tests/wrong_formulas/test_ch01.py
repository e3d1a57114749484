"""Wrong formulas that the closing checks of book/01_model.md reject."""

import dataclasses

import numpy as np

from attnlib import Setting
from attnlib.model import generative, positional, weights
from attnlib.theory import _spikes
from checks import ch01, load
from .conftest import page_tests
from .test_intro import rho_for_theta
from .test_primer import unshifted_outlier

RESULTS, _cov, _gaussian_signs = load("01_model"), generative.population_covariance, positional.gaussian_signs

def _total(wrong):  # population_covariance with its matrix replaced by wrong(parts, vocabulary)
    def cov(vocab, w, R, *, centered=True, parts=False):
        out = _cov(vocab, w, R, centered=centered, parts=True)
        out = dict(out, total=wrong(out, vocab))
        return out if parts else out["total"]
    return cov

def _hh(o, v, q_in_noise=False):  # moving the spike from h to mu (q_in_noise: adding kappa q q^T to the noise)
    q = o["h"] - v.mu
    return o["alpha"] * (np.outer(v.mu, v.mu) - np.outer(o["h"], o["h"])) + q_in_noise * o["kappa"] * np.outer(q, q)

def markov_keeping_with_r(n, rng, *, T, r):  # keeps its sign with probability r, not (1 + r)/2 (also chapter 14)
    first = 2 * rng.integers(0, 2, (n, 1), dtype=np.int8) - 1
    flips = np.where(rng.random((n, T - 1)) < r, 1, -1).astype(np.int8)
    return (first * np.cumprod(np.hstack([np.ones((n, 1), np.int8), flips]), axis=1)).astype(np.int8)

WRONG = {  # name: (module, function, wrong formula) or a list of them
    # the spike along mu instead of the class centroid h = mu + Zs/V (the q term dropped from the signal)
    "covariance with mu for h": (generative, "population_covariance", _total(lambda o, v: o["total"] + _hh(o, v))),
    # the centroid shift q left in the noise: kappa (W' + q q^T) + alpha mu mu^T
    "covariance with q in the noise": (generative, "population_covariance", _total(
        lambda o, v: o["total"] + _hh(o, v, q_in_noise=True))),
    # alpha and kappa exchanged: alpha W' + kappa h h^T
    "covariance with alpha and kappa exchanged": (generative, "population_covariance", _total(
        lambda o, v: o["total"] + (o["alpha"] - o["kappa"]) * (o["W_prime"] - np.outer(o["h"], o["h"])))),
    # the uncentred second moment without the mean term (sum w)^2 g g^T
    "uncentred covariance without the mean term": (generative, "population_covariance", lambda v, w, R, *,
        centered=True, parts=False: _cov(v, w, R, centered=True, parts=parts)),
    # the mean spike's strength with sum w instead of (sum w)^2 (equal when the weights sum to one)
    "mean spike with sum w": (_spikes, "mean_spike_strength",
                              lambda delta, weight_sum, kappa: weight_sum * delta / kappa),
    "spike strength without delta": (_spikes, "spike_strength", rho_for_theta),
    # Gaussian signs: R = Gamma instead of (2/pi) arcsin Gamma
    "Gaussian signs without arcsin": (positional, "gaussian_signs", lambda Gamma: dataclasses.replace(
        _gaussian_signs(Gamma), R=np.asarray(Gamma, dtype=float))),
    # a Markov chain that keeps its sign with probability r instead of (1 + r)/2: the signs are drawn again
    "Markov chain keeping its sign with probability r": (positional, "_sample_markov", markov_keeping_with_r),
    # kappa = (sum w)^2, 1 for every attention distribution (Setting.kappa too): recovery would depend on alpha alone
    "kappa as the squared sum": [(weights, "kappa", lambda w: float(np.sum(np.asarray(w, dtype=float)) ** 2)),
                                 (Setting, "kappa", property(lambda s: float(s.weights.sum() ** 2)))],
    # the classical spiked-covariance outlier (1 + theta)(1 + delta/theta), forgetting the shift x = theta - delta:
    # the spikes fed with this vocabulary's own ||h||^2 and ||g||^2 reject it
    "population outlier without the shift": (_spikes, "spike", unshifted_outlier),
}
test_holds, test_rejects = page_tests(ch01, RESULTS, WRONG, redraw={  # the page's 60,000 sign sequences drawn again
    "Markov chain keeping its sign with probability r": lambda r: {**r, **{
        f"R_empirical/{k}": R for k, R in ch01.sampled_correlations(r["n_seq"], r["seed_R"]).items()}}})
