"""Bad input raises ValueError naming the argument (never a silent NaN)."""

import numpy as np
import pytest

from attnlib import Setting, simulate, theory
from attnlib.model import generative, pooling, positional as P, weights as W

RNG = np.random.default_rng(0)
NAN, INF = float("nan"), float("inf")
NOT_PSD = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])

CASES = [
    # (callable, expected name in the message)
    (lambda: theory.bulk_density(1.0, 0.0, 0.5), "delta"),
    (lambda: theory.bulk_density(1.0, -1.0, 0.5), "delta"),
    (lambda: theory.bulk_density(1.0, NAN, 0.5), "delta"),
    (lambda: theory.bulk_density(1.0, 0.5, INF), "gamma"),
    (lambda: theory.bulk_density(1.0, 0.5, 0.5, kappa=0.0), "kappa"),
    (lambda: theory.bulk_density([1.0, NAN], 0.5, 0.5), "x"),
    (lambda: theory.bulk_edges(0.5, 0.0), "gamma"),
    (lambda: theory.bulk_edges(0.5, 0.5, kappa=-2), "kappa"),
    (lambda: theory.zero_atom(NAN, 0.5), "delta"),
    (lambda: theory.thresholds(0.5, -0.1), "gamma"),
    (lambda: theory.bulk_moments(0, 0.5, 0.5), "k"),
    (lambda: theory.spike(-1.0, 0.5, 0.5), "theta"),
    (lambda: theory.spike(NAN, 0.5, 0.5), "theta"),
    (lambda: theory.spike([1.0, INF], 0.5, 0.5), "theta"),
    (lambda: theory.signal(0.5, 0.5, alpha=-0.1, kappa=1.0, mu_norm2=1.0), "alpha"),
    (lambda: theory.signal(0.5, 0.5, alpha=1.0, kappa=0.0, mu_norm2=1.0), "kappa"),
    (lambda: theory.signal(0.5, 0.5, alpha=1.0, kappa=1.0, mu_norm2=-1.0), "mu_norm2"),
    (lambda: theory.signal(0.5, 0.5, alpha=1.0, kappa=1.0, mu_norm2=NAN), "mu_norm2"),
    (lambda: theory.mean_spike(0.5, 0.5, NAN, 1.0), "weight_sum"),
    (lambda: W.mean(0), "T"),
    (lambda: W.mean(2.5), "T"),
    (lambda: W.causal(0), "T"),
    (lambda: W.causal(4, tau=NAN), "tau"),
    (lambda: W.causal(1, strict=True), "T"),
    (lambda: W.optimal(np.array([[1.0, 0.2], [0.3, 1.0]])), "symmetric"),
    (lambda: W.optimal(np.array([[2.0, 0.0], [0.0, 1.0]])), "unit diagonal"),
    (lambda: W.optimal(NOT_PSD), "positive semidefinite"),
    (lambda: W.optimal(np.eye(3), normalize="l1"), "normalize"),
    (lambda: W.optimal(P.markov(4, -0.99).R), "normalize='norm'"),
    (lambda: W.snr(np.ones(3), np.eye(4)), "length T = 4"),
    (lambda: W.snr(np.zeros(4), np.eye(4)), "all zero"),
    (lambda: W.snr([1.0, NAN], np.eye(2)), "finite"),
    (lambda: W.kappa([]), "w"),
    (lambda: P.markov(5, 1.5), "r"),
    (lambda: P.markov(0, 0.5), "T"),
    (lambda: P.prefix(5, 6), "L"),
    (lambda: P.suffix(5, 0), "L"),
    (lambda: P.blocks([2, 0]), "sizes"),
    (lambda: P.gaussian_signs(NOT_PSD), "positive semidefinite"),
    (lambda: P.from_correlation(np.full((3, 3), -0.45) + 1.45 * np.eye(3)), "not realizable"),
    (lambda: P.independent(3).sample(0, RNG), "n"),
    (lambda: P.independent(3).sample(5, 42), "rng"),
    (lambda: generative.draw_vocabulary(10, 11, 1.0, RNG), "V"),
    (lambda: generative.draw_vocabulary(0, 10, 1.0, RNG), "d"),
    (lambda: generative.draw_vocabulary(10, 10, -1.0, RNG), "mu_norm2"),
    (lambda: generative.draw_vocabulary(10, 10, 1.0, np.random.RandomState(0)), "rng"),
    (lambda: generative.sample_tokens(np.zeros((2, 3)), 10, RNG), "xi"),
    (lambda: pooling.token_matrix(np.zeros((2, 3), int), np.ones(2), 10), "length T = 3"),
    (lambda: pooling.token_matrix(np.full((2, 3), 10), np.ones(3), 10), "tokens"),
    (lambda: Setting(d=10, V=11, N=10, mu_norm2=1.0, process=P.independent(3)), "V"),
    (lambda: Setting(d=10, V=10, N=0, mu_norm2=1.0, process=P.independent(3)), "N"),
    (lambda: Setting(d=10, V=10, N=10, mu_norm2=INF, process=P.independent(3)), "mu_norm2"),
    (lambda: Setting(d=10, V=10, N=10, mu_norm2=1.0, process=np.eye(3)), "process"),
    (lambda: Setting(d=10, V=10, N=10, mu_norm2=1.0, process=P.independent(3), weights=[1, 1]), "length T = 3"),
    (lambda: Setting(d=10, V=10, N=10, mu_norm2=1.0, process=P.independent(3), weights=[0, 0, 0]), "all zero"),
    (lambda: Setting(d=10, V=10, N=10, mu_norm2=1.0, process=P.independent(3), weights="median"), "weights"),
    (lambda: simulate("setting", RNG), "setting"),
    (lambda: simulate(Setting(d=10, V=10, N=10, mu_norm2=1.0, process=P.independent(3)), None), "rng"),
]


@pytest.mark.parametrize("call,name", CASES, ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_bad_input_raises_value_error_naming_it(call, name):
    with pytest.raises(ValueError) as info:
        call()
    assert name in str(info.value)


def test_message_shows_value_and_allowed_range():
    with pytest.raises(ValueError, match=r"delta must be finite and > 0, got -1"):
        theory.bulk_edges(-1, 0.5)
    with pytest.raises(ValueError, match=r"V must be even .* got 11"):
        generative.draw_vocabulary(5, 11, 1.0, RNG)
