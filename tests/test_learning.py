"""Tests of attnlib.studies.learning: trained positional pooling and the bounded-score optimum."""

import numpy as np
import pytest
from scipy.optimize import check_grad

from attnlib import Setting
from attnlib.studies import downstream, learning
from attnlib.model import generative, positional, weights
from attnlib.studies.learning import _loss_and_gradient, _snr_and_gradient


def _data(n=400, d=12, V=40, seed=0):
    rng = np.random.default_rng(seed)
    proc = positional.prefix(6, 2)
    voc = generative.draw_vocabulary(d, V, 1.0, rng)
    xi = proc.sample(n, rng)
    return proc, voc, generative.sample_tokens(xi, V, rng), downstream.labels(proc, xi)


def test_loss_gradient_is_the_derivative():
    _, voc, tokens, y = _data()
    x0 = np.random.default_rng(1).normal(0, 0.3, 6 + 12 + 1)
    f = lambda x: _loss_and_gradient(x, voc.table, tokens, y.astype(float), 1e-2)[0]  # noqa: E731
    g = lambda x: _loss_and_gradient(x, voc.table, tokens, y.astype(float), 1e-2)[1]  # noqa: E731
    assert check_grad(f, g, x0) < 1e-6


def test_snr_gradient_is_the_derivative():
    R = positional.markov(5, -0.5).R
    b0 = np.random.default_rng(2).normal(size=5)
    assert check_grad(lambda b: _snr_and_gradient(b, R)[0], lambda b: _snr_and_gradient(b, R)[1], b0) < 1e-6


def test_training_finds_the_prefix_and_predicts():
    proc, voc, tokens, y = _data(n=3000)
    fit = learning.train_pooling(voc.table, tokens, y)
    assert fit.converged and np.isclose(fit.w.sum(), 1)
    assert learning.cosine_distance(fit.w, weights.optimal_nonnegative(proc.R)[0]) < 0.05
    assert learning.test_accuracy(fit, voc.table, tokens, y) > 0.6
    assert learning.decision(fit, voc.table, tokens).shape == (3000,)


def test_training_validates():
    _, voc, tokens, y = _data(n=50)
    with pytest.raises(ValueError, match="y must"):
        learning.train_pooling(voc.table, tokens, y[:-1])
    with pytest.raises(ValueError, match="tokens must lie"):
        learning.train_pooling(voc.table, tokens + 100, y)
    with pytest.raises(ValueError, match="b0"):
        learning.train_pooling(voc.table, tokens, y, b0=np.zeros(3))
    with pytest.raises(ValueError, match="fit"):
        learning.decision("fit", voc.table, tokens)


def test_bounded_optimum_rises_to_lambda_plus_at_the_predicted_rate():
    R = positional.from_correlation(positional.markov(8, -0.5).R).R
    plus = weights.optimal_nonnegative(R)[1]
    C = learning.bounded_gap(R)
    values = [learning.bounded_optimum(R, B)[1] for B in (2.0, 6.0, 10.0)]
    assert values[0] < values[1] < values[2] <= plus + 1e-12
    assert abs((plus - values[2]) / (C * np.exp(-10.0)) - 1) < 0.01
    # R >= 0 with a full-support optimum: nothing to lose
    R_pos = positional.markov(8, 0.6).R
    assert learning.bounded_gap(R_pos) == 0.0
    assert abs(learning.bounded_optimum(R_pos, 3.0)[1] - np.linalg.eigvalsh(R_pos)[-1]) < 1e-8
    with pytest.raises(ValueError, match="B"):
        learning.bounded_optimum(R, -1.0)


def test_label_snr_optimum_on_the_prefix_is_uniform_on_the_prefix():
    s = Setting(d=64, V=256, N=100, mu_norm2=0.1, process=positional.prefix(8, 3))
    w, value = learning.label_snr_optimum(s)
    assert np.allclose(w[:3], 1 / 3, atol=1e-4) and np.all(w[3:] < 1e-4)
    assert np.isclose(value, downstream.label_snr(s.replace(weights=np.r_[np.ones(3), np.zeros(5)] / 3)),
                      rtol=1e-6)


def test_cosine_distance():
    assert learning.cosine_distance([1, 0], [2, 0]) == pytest.approx(0.0)
    assert learning.cosine_distance([1, 0], [0, 1]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same length"):
        learning.cosine_distance([1, 0], [1, 0, 0])


def _oscillating(T=16):
    lags = np.subtract.outer(np.arange(T), np.arange(T))
    return positional.gaussian_signs(np.cos(2 * np.pi * lags / 8) * 0.9 ** np.abs(lags)).R


def test_nonnegative_maximisers_lists_every_tie():
    """R = (-0.5)^|t-s| has two maximisers (odd, even positions); the oscillating process five translates."""
    alt = positional.from_correlation(positional.markov(16, -0.5).R).R
    both = learning.nonnegative_maximisers(alt)
    assert [tuple(np.flatnonzero(w > 0)) for w in both] == [tuple(range(0, 16, 2)), tuple(range(1, 16, 2))]
    osc = _oscillating()
    five = learning.nonnegative_maximisers(osc)
    assert [tuple(np.flatnonzero(w > 0)) for w in five] == [
        tuple(range(a, a + 4)) + tuple(range(a + 8, a + 12)) for a in range(5)]
    plus = weights.optimal_nonnegative(osc)[1]
    assert all(abs(weights.snr(w, osc) - plus) < 1e-12 and np.isclose(w.sum(), 1) for w in five)
    constants = [learning.shortfall_constant(osc, w) for w in five]
    assert np.allclose(constants, [3.6476, 3.6327, 3.6560, 3.6327, 3.6476], atol=5e-5)
    assert learning.bounded_gap(osc) == pytest.approx(min(constants), rel=1e-12)
    # R >= 0 with a simple top eigenvalue: the Perron vector only
    assert len(learning.nonnegative_maximisers(positional.markov(16, 0.6).R)) == 1
    with pytest.raises(ValueError, match="non-negative"):
        learning.shortfall_constant(osc, -five[0])


def test_bounded_optimum_takes_the_cheapest_branch():
    """The shortfall follows the smallest constant, to the O(e^-B) relative term, and random starts do no
    better (an optimiser started on the first maximiser's branch would be 0.4% off)."""
    osc = _oscillating()
    plus, C = weights.optimal_nonnegative(osc)[1], learning.bounded_gap(osc)
    for B in (10.0, 12.0):
        f = learning.bounded_optimum(osc, B)[1]
        assert abs((plus - f) / (C * np.exp(-B)) - 1) < 2 * np.exp(-B)
    for B in (1.0, 12.0):
        best = learning.bounded_optimum(osc, B)[1]
        assert learning.bounded_optimum(osc, B, random_starts=20, seed=3)[1] <= best + 1e-12
    with pytest.raises(ValueError, match="random_starts"):
        learning.bounded_optimum(osc, 3.0, random_starts=-1)
