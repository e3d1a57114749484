"""The generative model: vocabulary, tokens, sparse pooling and the exact population covariance."""

import itertools

import numpy as np
import pytest

from attnlib.model import generative, pooling, positional as P, weights as W


def test_vocabulary_structure():
    rng = np.random.default_rng(0)
    voc = generative.draw_vocabulary(400, 1000, 2.0, rng)
    assert voc.table.shape == (1000, 400) and voc.signs.sum() == 0
    assert voc.mu_norm2 == pytest.approx(2.0)
    delta = 400 / 1000
    # ||q||^2 and ||g||^2 are chi^2_d / V: mean delta, sd delta sqrt(2/d) = 0.028
    assert voc.q @ voc.q == pytest.approx(delta, abs=0.12)
    assert voc.g @ voc.g == pytest.approx(delta, abs=0.12)
    np.testing.assert_allclose(voc.h, voc.mu + voc.noise.T @ voc.signs / 1000)


def test_tokens_follow_their_class():
    rng = np.random.default_rng(1)
    xi = P.markov(5, 0.3).sample(1000, rng)
    tok = generative.sample_tokens(xi, 10, rng)
    assert np.all((tok < 5) == (xi > 0))
    assert set(np.unique(tok)) == set(range(10))


def test_sparse_pooling_equals_direct_sum():
    rng = np.random.default_rng(2)
    voc = generative.draw_vocabulary(30, 12, 1.0, rng)
    w = rng.standard_normal(7)
    xi = P.prefix(7, 3).sample(50, rng)
    tok = generative.sample_tokens(xi, 12, rng)
    direct = np.stack([sum(w[t] * voc.table[tok[n, t]] for t in range(7)) for n in range(50)])
    np.testing.assert_allclose(pooling.pool(voc, tok, w), direct, atol=1e-12)
    A = pooling.token_matrix(tok, w, 12)
    assert A.shape == (50, 12) and A.nnz <= 50 * 7


def _exact_second_moment(voc, w, R):
    """E[c c^T | E] by direct enumeration of the sign pairs, with no use of the h/g decomposition."""
    V, T = voc.V, len(w)
    E = voc.table
    cls = {+1: E[voc.signs > 0].mean(axis=0), -1: E[voc.signs < 0].mean(axis=0)}
    out = np.zeros((voc.d, voc.d))
    for t, s in itertools.product(range(T), repeat=2):
        if t == s:  # same position: one token, uniform over the vocabulary (signs balanced)
            out += w[t] ** 2 * E.T @ E / V
        else:  # two positions: independent tokens given (xi_t, xi_s), P(a, b) = (1 + a b R_ts) / 4
            for a, b in itertools.product((1, -1), repeat=2):
                out += w[t] * w[s] * (1 + a * b * R[t, s]) / 4 * np.outer(cls[a], cls[b])
    return out


@pytest.mark.parametrize("R", [P.markov(4, 0.6).R, P.prefix(4, 2).R, P.independent(3).R])
def test_population_covariance_decomposition_is_exact(R):
    rng = np.random.default_rng(3)
    voc = generative.draw_vocabulary(6, 10, 0.7, rng)
    w = rng.uniform(0.1, 1.0, R.shape[0])
    exact = _exact_second_moment(voc, w, R)
    np.testing.assert_allclose(generative.population_covariance(voc, w, R, centered=False), exact, atol=1e-12)
    mean = w.sum() * voc.g  # E[c | E]
    np.testing.assert_allclose(generative.population_covariance(voc, w, R), exact - np.outer(mean, mean), atol=1e-12)
    parts = generative.population_covariance(voc, w, R, parts=True)
    # W' is Z P Z^T / V: it annihilates nothing in particular but is PSD of rank <= V - 2
    assert np.linalg.matrix_rank(parts["W_prime"]) <= 10 - 2


def test_population_covariance_against_monte_carlo():
    rng = np.random.default_rng(4)
    voc = generative.draw_vocabulary(5, 8, 1.0, rng)
    proc = P.markov(6, 0.5)
    w = W.causal(6, 1.0)
    C, _ = pooling.draw_pooled(voc, proc, w, 400_000, rng)
    emp = C.T @ C / len(C)
    theory = generative.population_covariance(voc, w, proc.R, centered=False)
    # entries are O(1); Monte-Carlo sd of each entry ~ 1/sqrt(4e5) * O(1) ~ 3e-3
    np.testing.assert_allclose(emp, theory, atol=0.02)
