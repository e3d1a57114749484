"""Wrong formulas that the closing checks of book/14_weights_derivations.md reject."""

import numpy as np
from scipy.special import ndtr

from attnlib.model import positional as P
from attnlib.theory import single_token
from attnlib.theory import classification, finite_attention as FA
from checks import ch14, load
from .conftest import page_tests, replaced
from .test_ch01 import markov_keeping_with_r

RESULTS = load("14_weights_derivations")
_second, _count = FA.deviation_second_moment, single_token.count_population
_spectral = classification.spectral_prediction

def _self_score_variance_1_over_d(T, tau, d, *, V=None, R=None, strict=False):  # the self score's variance 2/d
    M = np.zeros((T, T))                                                          # taken as 1/d, like the others
    for t, keys, p, self_idx in FA._rows(T, tau, strict):
        J = np.diag(p) - np.outer(p, p)
        M[np.ix_(keys, keys)] += tau**2 * (J / d) @ J
    return M / len(FA._rows(T, tau, strict)) ** 2

WRONG = {
    # Gaussian signs with the arcsine law linearised: R_ts = (2/pi) Sigma_ts off the diagonal
    "gaussian signs with a linear arcsine": (P, "gaussian_signs", replaced(P.gaussian_signs, R=lambda
        out, Sigma: np.eye(len(Sigma)) + 2 / np.pi * (np.asarray(Sigma, float) - np.eye(len(Sigma))))),
    # the fluctuations of the causal weights with the score variances of order 1/sqrt(d): a 1/d^(1/4) rate
    "causal fluctuations at rate d^(-1/4)": (FA, "deviation_second_moment", lambda T, tau, d, **kw:
                                             _second(T, tau, d, **kw) * np.sqrt(d)),
    # the O(1/d) mean of the weights left out: the finite-d average compared with the bare limit
    "no finite-d bias of the weights": (FA, "deviation_mean", lambda T, tau, d, **kw: np.zeros(T)),
    # the self score with the variance 1/d of the others (||x_t||^2/d has variance 2/d)
    "self-score variance 1/d": (FA, "deviation_second_moment", _self_score_variance_1_over_d),
    # the one-token population with lambda = V/N instead of N/V (delta and gamma swapped)
    "one-token counts with lambda = gamma/delta": (single_token, "count_population", lambda delta, gamma,
                                                   tail=single_token.TAIL: _count(gamma, delta, tail)),
    # the token counts replaced by their mean (D = I): the first token's bulk taken as MP_delta
    "one-token counts without fluctuations": (single_token, "count_population",
                                              lambda delta, gamma, tail=single_token.TAIL: (np.ones(1), np.ones(1))),
    # the anchors' chance of picking the wrong sign left out of the spectral prediction
    "spectral prediction without the sign error": (classification, "spectral_prediction",
        lambda *numbers, h_norm2=None, n_anchor=None, **named: _spectral(*numbers, h_norm2=h_norm2,
                                                                             **named)),
    # the plug-in Gaussian formula with the second moment u^T Sigma u taken as the within-class variance
    # (the class mean not subtracted): Phi(m / sqrt(q)) instead of Phi(m / sqrt(q - m^2))
    "plug-in accuracy without the class mean in the variance": (classification, "projection_accuracy",
        lambda class_mean, second_moment: ndtr(np.asarray(class_mean) / np.sqrt(second_moment))),
    # the Markov sampler keeping its sign with probability r, not (1 + r)/2: its correlations drawn again (0.1 s)
    "a wrong Markov sampler": (P, "_sample_markov", markov_keeping_with_r),
}
test_holds, test_rejects = page_tests(ch14, RESULTS, WRONG, redraw={"a wrong Markov sampler": lambda r: {
    **r, **ch14.sampler_correlations(int(r["T"]), int(r["n_sampler"]))}})

