"""Bad input raises ValueError naming the argument (never a silent NaN), with its value and what is allowed.

``CASES``: each public function's argument checks. ``BOOK_CASES``: the bad inputs a reader makes when copying
the book's own examples with a parameter slightly wrong (the chapter the example comes from is in the comment);
each must raise a ValueError whose message matches the pattern: the argument's name, and where it says so its
value and the allowed range.
"""

import re

import numpy as np
import pytest

import attnlib
from attnlib import Limit, Setting, compare, simulate, sweep, theory
from attnlib.engine import montecarlo
from attnlib.model import generative, pooling, positional as P, weights as W
from attnlib.model.kurtosis import pooled_kurtosis
from attnlib.model.setting import sizes_for
from attnlib.theory import fluctuations as fl, overlap_fluctuations as OF

RNG = np.random.default_rng(0)
NAN, INF = float("nan"), float("inf")
NOT_PSD = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])

CASES = [
    # (callable, expected name in the message)
    (lambda: theory.Bulk(0.0, 0.5).density(1.0), "delta"),
    (lambda: theory.Bulk(-1.0, 0.5).density(1.0), "delta"),
    (lambda: theory.Bulk(NAN, 0.5).density(1.0), "delta"),
    (lambda: theory.Bulk(0.5, INF).density(1.0), "gamma"),
    (lambda: theory.Bulk(0.5, 0.5, 0.0).density(1.0), "kappa"),
    (lambda: theory.Bulk(0.5, 0.5).density([1.0, NAN]), "x"),
    (lambda: theory.Bulk(0.5, 0.0).support, "gamma"),
    (lambda: theory.Bulk(0.5, 0.5, -2).support, "kappa"),
    (lambda: theory.Bulk(NAN, 0.5).atom, "delta"),
    (lambda: theory.thresholds(0.5, -0.1), "gamma"),
    (lambda: theory.Bulk(0.5, 0.5).moments(0), "k"),
    (lambda: theory.spike(0.5, 0.5, theta=-1.0), "theta"),
    (lambda: theory.spike(0.5, 0.5, theta=NAN), "theta"),
    (lambda: theory.spike(0.5, 0.5, theta=[1.0, INF]), "theta"),
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
    with pytest.raises(ValueError, match=re.escape(name)):
        call()


def test_message_shows_value_and_allowed_range():
    with pytest.raises(ValueError, match=r"delta must be finite and > 0, got -1"):
        theory.Bulk(-1, 0.5).support
    with pytest.raises(ValueError, match=r"V must be even .* got 11"):
        generative.draw_vocabulary(5, 11, 1.0, RNG)


# ------------------------------------------------------------------ the book's own examples, slightly wrong

CHAIN = P.markov(16, 0.6)  # the Markov signs of the model chapter and of the spike chapters
BASE = Setting(d=40, V=80, N=160, mu_norm2=1.0, process=CHAIN)  # ratios of the sample chapter, small d
RES = sweep([BASE], seed=1, trials=2, k=1)
ANTI = P.markov(16, -0.5)  # the anti-correlated signs of the weights chapter

BOOK_CASES = [
    # positional (model chapter, weights chapter, explorers)
    ("markov r above 1", lambda: P.markov(16, 1.2), r"r must be a finite number in \[-1.0, 1.0\], got 1.2"),
    ("family markov r below -1", lambda: P.family("markov", 16, r=-1.2), r"r must be .* \[-1.0, 1.0\], got -1.2"),
    ("family markov r nan", lambda: P.family("markov", 16, r=NAN), r"r must be a finite number .*got nan"),
    ("family misspelt", lambda: P.family("prefixes", 16, L=4), r"family must be one of 'independent', .*'prefixes'"),
    ("family L above T", lambda: P.family("prefix", 16, L=20), r"L must be between 1 and T = 16, got 20"),
    ("prefix L = 0", lambda: P.prefix(16, 0), r"L must be an integer >= 1, got 0"),
    ("prefix T not integer", lambda: P.prefix(16.5, 4), r"T must be an integer >= 1, got 16.5"),
    ("catalogue T not a multiple of 4", lambda: P.catalogue(18), r"T must be a multiple of 4 .*got 18"),
    ("balanced T odd", lambda: P.balanced(15), r"T must be even .*got 15"),
    ("squared exponential length 0", lambda: P.squared_exponential(16, 0.0), r"length must be finite and > 0"),
    ("blocks empty", lambda: P.blocks([]), r"sizes must be a non-empty list"),
    ("estimate from 0/1 labels", lambda: P.estimate(np.zeros((10, 4))), r"xi must hold only the signs -1 and \+1"),
    ("estimate from one sequence", lambda: P.estimate(np.ones((1, 16))), r"xi must be an \(n, T\) array .*\(1, 16\)"),
    ("sample with a seed", lambda: CHAIN.sample(10, 2026), r"rng must be a numpy.random.Generator .*got 2026"),
    # weights (causal-attention chapter, weights chapter)
    ("causal tau infinite", lambda: W.causal(16, tau=INF), r"tau must be a finite real number, got inf"),
    ("optimal normalize l2", lambda: W.optimal(CHAIN.R, normalize="l2"), r"normalize must be 'sum' or 'norm'"),
    ("nonnegative search capped", lambda: W.optimal_nonnegative(ANTI.R, max_T=12), r"T must be <= max_T = 12"),
    ("snr with 15 weights", lambda: W.snr(np.ones(15), CHAIN.R), r"w must have length T = 16 .*got length 15"),
    ("mix target out of reach", lambda: W.mix_to_snr(W.mean(16), W.optimal(CHAIN.R), CHAIN.R, 100.0),
     r"target must lie between alpha/kappa\(a\)"),
    ("prefix_snr L above T", lambda: W.prefix_snr(W.mean(16), 17), r"L must be integers with 1 <= L <= T = 16"),
    ("weighting misspelt", lambda: W.named("attention", CHAIN), r"weights must be 'mean', 'causal', 'optimal'"),
    # Setting (every chapter)
    ("Setting V odd", lambda: Setting(d=400, V=801, N=400, mu_norm2=1.0, process=CHAIN),
     r"V must be even so that the two classes are balanced .*got 801"),
    ("Setting N not integer", lambda: Setting(d=400, V=800, N=400.5, mu_norm2=1.0, process=CHAIN),
     r"N must be an integer >= 1, got 400.5"),
    ("Setting negative signal", lambda: Setting(d=400, V=800, N=400, mu_norm2=-0.3, process=CHAIN),
     r"mu_norm2 must be finite and >= 0, got -0.3"),
    ("Setting R for process", lambda: Setting(d=400, V=800, N=400, mu_norm2=1.0, process=CHAIN.R),
     r"process must be an attnlib.model.positional.SignProcess"),
    ("Setting weights of another T", lambda: Setting(d=400, V=800, N=400, mu_norm2=1.0, process=CHAIN,
                                                     weights=np.ones(8)), r"weights must have length T = 16"),
    ("Setting optimal of anti-correlated signs", lambda: Setting(d=400, V=800, N=400, mu_norm2=1.0,
                                                                 process=P.markov(16, -0.99), weights="optimal"),
     r"weights='optimal' sums to 1, .*normalize='norm'"),
    ("Setting label not text", lambda: Setting(d=400, V=800, N=400, mu_norm2=1.0, process=CHAIN, label=3),
     r"label must be a string, got 3"),
    ("replace unknown field", lambda: BASE.replace(mu=2.0), r"replace\(\) got mu: a Setting's fields are d, V"),
    ("with_theta below the class split", lambda: BASE.with_theta(0.1), r"theta must be >= \(alpha/kappa\) delta"),
    ("at_dimension 1", lambda: BASE.at_dimension(1), r"d must be an integer >= 2, got 1"),
    ("sizes_for delta 0", lambda: sizes_for(400, 0.0, 0.25), r"delta must be finite and > 0, got 0.0"),
    # Limit and the theory (population, sample and explore chapters)
    ("Limit shapes", lambda: Limit(delta=0.5, gamma=1.0, alpha=np.ones(3), kappa=np.ones(4)),
     r"must broadcast together, got shapes .*\(3,\), \(4,\)"),
    ("Limit replace unknown", lambda: Limit(0.5, 1.0, 1.0).replace(theta=2.0), r"replace\(\) got theta: a Limit's"),
    ("Limit thresholds over a grid", lambda: Limit(0.5, 1.0, np.ones(3)).signal_thresholds(),
     r"signal_thresholds\(\) needs delta, gamma, alpha and kappa to be scalars"),
    ("signal alpha 3 kappa 4", lambda: theory.signal(0.5, 0.25, np.ones(3), np.ones(4), 1.0),
     r"alpha and kappa must broadcast together .*alpha of shape \(3,\) and kappa of shape \(4,\)"),
    ("spike theta 3 gamma 2", lambda: theory.spike(0.5, np.array([0.25, 1.0]), theta=np.ones(3)),
     r"theta and gamma must broadcast together"),
    ("bulk density x 5 kappa 3", lambda: theory.Bulk(0.5, 0.25, np.ones(3)).density(np.ones(5)),
     r"x and kappa must broadcast together"),
    ("thresholds delta 2 gamma 3", lambda: theory.thresholds(np.array([0.5, 1.0]), np.ones(3)),
     r"delta and gamma must broadcast together"),
    ("signal thresholds alpha 2 kappa 3", lambda: theory.signal_thresholds(0.5, 0.25, np.ones(2), np.ones(3)),
     r"alpha and kappa must broadcast together"),
    ("outlier map at its pole", lambda: theory.outlier_map(0.0, 0.5, 0.25), r"x must be non-zero"),
    ("critical root gamma 0", lambda: theory.critical_x(0.5, 0.0), r"gamma must be finite and > 0, got 0.0"),
    # fluctuations (finite-size chapter) and the kurtosis of the pooled sign
    ("outlier sd below the threshold", lambda: fl.outlier_sd(0.5, 0.25, 1.0, 2000),
     r"theta must exceed the sample threshold delta \+ x\* = 1.55"),
    ("outlier sd kurtosis below 1", lambda: fl.outlier_sd(0.5, 0.25, 5.0, 2000, beta4=0.5), r"beta4 = .* >= 1"),
    ("overlap sd below the threshold", lambda: OF.spike_variance(0.5, 0.25, 1.0, 2000),
     r"theta must exceed the sample threshold"),
    ("window level below the TW mass at 0", lambda: fl.window_half_width(0.5), r"level must exceed the TW_1 mass"),
    ("kurtosis of an R", lambda: pooled_kurtosis(CHAIN.R, W.mean(16)), r"process must be an attnlib.model"),
    ("kurtosis sampled without rng", lambda: pooled_kurtosis(P.squared_exponential(16, 4.0), W.mean(16)),
     r"rng must be a numpy.random.Generator: the law of squared_exponential"),
    # simulate and sweep (every chapter)
    ("simulate level misspelt", lambda: simulate(BASE, RNG, level="pop"), r"level must be one of 'sample'"),
    ("simulate method misspelt", lambda: simulate(BASE, RNG, method="sparse"), r"method must be one of 'auto'"),
    ("simulate spectrum misspelt", lambda: simulate(BASE, RNG, spectrum="full"), r"spectrum must be None, 'exact'"),
    ("sweep no trials", lambda: sweep([BASE], seed=2026, trials=0), r"trials must be an integer >= 1, got 0"),
    ("sweep negative seed", lambda: sweep([BASE], seed=-1, trials=2), r"seed must be an integer >= 0, got -1"),
    ("sweep executor by name", lambda: sweep([BASE], seed=2026, trials=2, executor="dask"),
     r"executor must be a concurrent.futures.Executor"),
    ("sweep k too large", lambda: sweep([BASE], seed=2026, trials=2, k=39), r"k must be < d - 1 = 39"),
    ("second eigenvalue with k = 1", lambda: RES.second, r"second needs k >= 2"),
    ("values misspelt", lambda: RES.values("overlap_mu"), r"name must be one of 'eigenvalues'.*'overlap_mu'"),
    ("finite-size scan trials", lambda: montecarlo.finite_size_scan(BASE, [40, 80], [2, 2, 2], seed=1),
     r"trials must be one int or one per d \(2 values\), got 3"),
    # compare
    ("compare misspelt quantity", lambda: compare(RES, quantities=("top", "overlap_mu")),
     r"quantities\[i\] must be one of 'top', 'overlap_h', 'overlap_u', got 'overlap_mu'"),
    ("compare a list of numbers", lambda: compare([1, 2]), r"results must be an attnlib.sweep result"),
    ("compare a population sweep", lambda: compare(sweep([BASE], seed=1, trials=2, k=1, level="population")),
     r"results must be a sample-level sweep .*level='population'"),
    ("compare plot range reversed", lambda: compare(RES).plot(None, mu_range=(2.0, 1.0)),
     r"mu_range must be \(low, high\) with 0 <= low < high"),
]


@pytest.mark.parametrize("call,pattern", [c[1:] for c in BOOK_CASES], ids=[c[0] for c in BOOK_CASES])
def test_the_books_examples_slightly_wrong(call, pattern):
    with pytest.raises(ValueError, match=pattern):
        call()


def test_enough_book_cases():
    assert len(BOOK_CASES) >= 40 and len({c[0] for c in BOOK_CASES}) == len(BOOK_CASES)
    assert attnlib.compare is compare
