"""Wrong formulas that the closing checks of book/07_experiments.md reject."""

import numpy as np

from attnlib.theory import classification as C
from checks import ch07, load
from .conftest import page_tests

RESULTS, _spectral = load("07_experiments"), C.spectral_prediction

def _label_separation(snr):  # varsigma^2 = snr(a, M, alpha, kappa, delta), M = (||mu||^2 + delta) / (1 - delta)
    def wrong(delta, a, mu_norm2, alpha, kappa):
        return float(snr(a, (mu_norm2 + delta) / (1 - delta), alpha, kappa, delta))
    return wrong

def _overlap_with_u(delta, gamma, a, theta, kappa, mu_norm2, *, h_norm2=None, n_anchor=None):
    right = _spectral(delta, gamma, a=a, theta=theta, kappa=kappa, mu_norm2=mu_norm2, h_norm2=h_norm2,
                      n_anchor=n_anchor)
    if right.eta2 == 0.0:
        return right
    # <v, h>^2 = ||h||^2 x (overlap with h) x ||mu||^2/(||mu||^2 + delta): the overlap with u for the one with h
    eta2 = right.eta2 * mu_norm2 / (mu_norm2 + delta)
    noise = right.quad - right.a**2 * eta2
    snr = right.a * np.sqrt(eta2 / noise)
    signed = float(C.ndtr(snr))
    flip = 0.0 if n_anchor is None else float(C.ndtr(-np.sqrt(n_anchor) * snr))
    acc = (1 - flip) * signed + flip * (1 - signed)
    return C.SpectralPrediction(right.a, eta2, right.quad, noise, float(snr), signed, flip, acc)

WRONG = {
    # the label SNR without the free-sign noise: varsigma^2 = a^2 M / kappa, the formula for weights on the prefix
    "label snr without the free signs": (C, "label_separation", _label_separation(
        lambda a, M, alpha, kappa, delta: a * a / kappa * M)),
    # the label SNR with M = ||mu||^2 + delta (h^T W'^{-1} h taken as ||h||^2, forgetting the 1/(1 - delta))
    "label snr without 1/(1 - delta)": (C, "label_separation", _label_separation(
        lambda a, M, alpha, kappa, delta: a * a / kappa * M * (1 - delta)
        / (1 + (alpha - a * a) / kappa * M * (1 - delta)))),
    # the label SNR ranked by alpha/kappa: varsigma^2 = M alpha/kappa for every weighting
    "label snr as M alpha/kappa": (C, "label_separation", _label_separation(
        lambda a, M, alpha, kappa, delta: M * alpha / kappa)),
    # the spectral classifier's variance from the in-sample second moment: u^T Sigma u = lambda, not l^2/lambda
    "in-sample variance for the spectral classifier": (C, "_quadratic_form", lambda sp: float(sp.sample_eigenvalue)),
    # the spectral classifier's signal from the overlap with u = mu/||mu|| instead of the centroid h
    "overlap with u for the spectral classifier": (C, "spectral_prediction", _overlap_with_u),
}
test_holds, test_rejects = page_tests(ch07, RESULTS, WRONG)
