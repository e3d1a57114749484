"""Tests of attnlib.layer: the data-dependent attention layer end to end and the random-row theory."""

import numpy as np
import pytest
from scipy.special import softmax

from attnlib import attention, layer, positional, weights
from attnlib.montecarlo import streams


def test_pooling_weights_match_causal_attention_weights():
    X = np.random.default_rng(0).standard_normal((6, 8, 40))
    for tau in (-2.0, 0.0, 1.5):
        assert np.allclose(layer.pooling_weights(X, tau), attention.causal_attention_weights(X, tau), atol=1e-14)
        assert np.allclose(layer.pooling_weights(X, tau, scaling="sqrt_d"),
                           attention.causal_attention_weights(X, tau * np.sqrt(40)), atol=1e-14)


def test_pooling_weights_with_projections_are_distributions():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((5, 6, 30))
    proj = layer.random_projections(30, rng)
    w = layer.pooling_weights(X, 1.0, scaling="sqrt_d", projections=proj)
    assert w.shape == (5, 6) and np.all(w >= 0) and np.allclose(w.sum(axis=1), 1)
    single = layer.pooling_weights(X[0], 1.0, scaling="sqrt_d", projections=proj)
    assert np.allclose(single, w[0])
    # identity projections give the plain layer
    eye = (np.eye(30), np.eye(30))
    assert np.allclose(layer.pooling_weights(X, 0.7, projections=eye), layer.pooling_weights(X, 0.7))


def test_pooling_weights_validate():
    X = np.zeros((2, 3, 4))
    with pytest.raises(ValueError, match="scaling"):
        layer.pooling_weights(X, 1.0, scaling="d2")
    with pytest.raises(ValueError, match="projections"):
        layer.pooling_weights(X, 1.0, projections=(np.eye(3), np.eye(3)))
    with pytest.raises(ValueError, match="X must"):
        layer.pooling_weights(np.zeros(5), 1.0)
    with pytest.raises(ValueError, match="tau"):
        layer.pooling_weights(X, np.nan)


def test_softmax_row_second_moment_limits_and_monte_carlo():
    assert layer.softmax_row_second_moment(1, 2.0) == 1.0
    assert np.isclose(layer.softmax_row_second_moment(7, 0.0), 1 / 49)
    assert np.isclose(layer.softmax_row_second_moment(7, 1e-4), 1 / 49, rtol=1e-6)
    assert layer.softmax_row_second_moment(5, -1.3) == layer.softmax_row_second_moment(5, 1.3)
    g = np.random.default_rng(2).standard_normal((400_000, 5))
    a2 = softmax(1.0 * g, axis=1)[:, 0] ** 2
    assert abs(a2.mean() - layer.softmax_row_second_moment(5, 1.0)) < 4 * a2.std() / np.sqrt(a2.size)
    with pytest.raises(ValueError, match="k"):
        layer.softmax_row_second_moment(0, 1.0)


def test_random_row_moments_means_and_zero_sigma():
    T = 6
    mean, second = layer.random_row_moments(T, 0.0)
    assert np.allclose(mean, weights.causal(T, 0.0)) and np.allclose(second, np.outer(mean, mean))
    mean, second = layer.random_row_moments(T, -1.0, self_key=False)
    expected = np.eye(T)[0] / T + (T - 1) / T * weights.causal(T, 0.0, strict=True)
    assert np.allclose(mean, expected)
    assert np.allclose(second, second.T) and np.linalg.eigvalsh(second - np.outer(mean, mean))[0] > -1e-12


def test_random_row_moments_against_sampled_rows():
    T, sigma, n = 5, 1.2, 100_000
    rng = np.random.default_rng(3)
    W = np.zeros((n, T))
    for t in range(1, T + 1):
        W[:, :t] += softmax(sigma * rng.standard_normal((n, t)), axis=1)
    W /= T
    _, second = layer.random_row_moments(T, sigma)
    emp = W.T @ W / n
    assert np.max(np.abs(emp - second)) < 5e-4


def test_layer_draw_reference_arm_and_fields():
    proc = positional.prefix(8, 3)
    w_inf = weights.causal(8, 1.0)
    r = layer.layer_draw(proc, 60, 120, 80, 1.0, 1.0, np.random.default_rng(4), reference=w_inf)
    assert r.d == 60 and r.mean_weights.shape == (8,)
    assert 0 <= r.overlap_h <= 1 and 0 <= r.overlap_h_fixed <= 1 and r.top > 0 and r.top_fixed > 0
    assert 0 <= r.repeat_fraction <= 1 and r.deviation2 >= 0
    # tau = 0: the layer's weights are the harmonic ones, so both arms coincide
    r0 = layer.layer_draw(proc, 60, 120, 80, 1.0, 0.0, np.random.default_rng(4), reference=weights.causal(8, 0.0))
    assert abs(r0.top - r0.top_fixed) < 1e-5 * r0.top and r0.deviation2 < 1e-12
    assert abs(r0.kappa_bar - weights.kappa(weights.causal(8, 0.0))) < 1e-9


def test_layer_scan_streams_and_validation():
    proc = positional.markov(6, 0.5)
    sc = layer.layer_scan(proc, [40, 60], 0.5, draws=2, seed=7, reference=weights.causal(6, 0.5), gamma=1.0)
    assert sc.get("top").shape == (2, 2) and sc.mean_weights.shape == (2, 2, 6)
    again = layer.layer_draw(proc, 60, 120, 60, 0.5, 0.5, np.random.default_rng(streams(7, 4)[3]),
                             reference=weights.causal(6, 0.5))
    assert again.top == sc.get("top")[1, 1]
    with pytest.raises(ValueError, match="name"):
        sc.get("nope")
    with pytest.raises(ValueError, match="process"):
        layer.layer_draw("markov", 60, 120, 60, 0.5, 0.5, np.random.default_rng(0), reference=np.ones(6))
    with pytest.raises(ValueError, match="reference"):
        layer.layer_draw(proc, 60, 120, 60, 0.5, 0.5, np.random.default_rng(0), reference=np.ones(5))
