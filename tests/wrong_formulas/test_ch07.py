"""Wrong formulas that the closing checks of book/07_experiments.md reject."""

import numpy as np

from attnlib.studies import downstream as D
from checks import ch07, load
from .conftest import page_tests

RESULTS, _spectral = load("07_experiments"), D.spectral_accuracy

def _label_snr(snr):  # varsigma^2 = snr(s, a, M) with a the label signal and M = (||mu||^2 + delta) / (1 - delta)
    def wrong(setting, position=None):
        a = D.label_signal(setting.weights, setting.R, D.resolve_position(setting.process, position))
        return float(snr(setting, a, (setting.mu_norm2 + setting.delta) / (1 - setting.delta)))
    return wrong

def _overlap_with_u(setting, position=None, n_anchor=None, h_norm2=None):
    right = _spectral(setting, position, n_anchor, h_norm2)
    if right.eta2 == 0.0:
        return right
    # <v, h>^2 = ||h||^2 x (overlap with h) x ||mu||^2/(||mu||^2 + delta): the overlap with u for the one with h
    eta2 = right.eta2 * setting.mu_norm2 / (setting.mu_norm2 + setting.delta)
    noise = right.quad - right.a**2 * eta2
    snr = right.a * np.sqrt(eta2 / noise)
    signed = float(D.ndtr(snr))
    flip = 0.0 if n_anchor is None else float(D.ndtr(-np.sqrt(n_anchor) * snr))
    acc = (1 - flip) * signed + flip * (1 - signed)
    return D.SpectralPrediction(right.a, eta2, right.quad, noise, float(snr), signed, flip, acc)

WRONG = {
    # the label SNR without the free-sign noise: varsigma^2 = a^2 M / kappa, the formula for weights on the prefix
    "label snr without the free signs": (D, "label_snr", _label_snr(lambda s, a, M: a * a / s.kappa * M)),
    # the label SNR with M = ||mu||^2 + delta (h^T W'^{-1} h taken as ||h||^2, forgetting the 1/(1 - delta))
    "label snr without 1/(1 - delta)": (D, "label_snr", _label_snr(lambda s, a, M: a * a / s.kappa * M * (1 - s.delta)
                                        / (1 + (s.alpha - a * a) / s.kappa * M * (1 - s.delta)))),
    # the label SNR ranked by alpha/kappa: varsigma^2 = M alpha/kappa for every weighting
    "label snr as M alpha/kappa": (D, "label_snr", _label_snr(lambda s, a, M: M * s.snr)),
    # the spectral classifier's variance from the in-sample second moment: u^T Sigma u = lambda, not l^2/lambda
    "in-sample variance for the spectral classifier": (D, "_quadratic_form", lambda sp: float(sp.sample_eigenvalue)),
    # the spectral classifier's signal from the overlap with u = mu/||mu|| instead of the centroid h
    "overlap with u for the spectral classifier": (D, "spectral_accuracy", _overlap_with_u),
}
test_holds, test_rejects = page_tests(ch07, RESULTS, WRONG)
