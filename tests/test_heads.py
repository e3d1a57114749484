"""Many heads and more layers: attnlib.theory.heads and .layers, attnlib.model.heads, attnlib.engine.heads and
attnlib.studies.stacked_layers.

* the span bound and its equality condition on 1,000 random (R, W) (hypothesis, derandomised);
* the covariance of concatenated heads against exact enumeration of a small model;
* the heads' theory reduces to the one-head theory (H = 1) and, for orthonormal heads, to one head per pencil
  eigenvalue with H gamma for gamma; the bulk density integrates to 1 and has the stated moments;
* the matrix-free operators against the formed matrices; summed heads are one head;
* the stacked layers: one layer is the causal limit, and the real layer of chapter 10; depth tends to e_1.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from attnlib import Setting, theory
from attnlib.engine import heads as eh
from attnlib.engine.operators import top_eigenpairs
from attnlib.model import generative, heads as mh, pooling, positional, weights
from attnlib.studies import real_layer, stacked_layers
from attnlib.theory import heads as th, layers

hypothesis = pytest.importorskip("hypothesis", reason="property tests need the optional test extra")
from hypothesis import given, settings, strategies as st  # noqa: E402

T = 16


def _random_case(seed: int):
    """A random correlation R (T x T, T in 2..12) and heads W (T x H); half the time W spans R's top
    eigenvector (mixed with other columns by a random invertible matrix)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 13))
    M = rng.standard_normal((n, int(rng.integers(1, 2 * n))))
    C = M @ M.T + 1e-3 * np.eye(n)
    R = C / np.sqrt(np.outer(np.diag(C), np.diag(C)))
    H = int(rng.integers(1, n + 1))
    W = rng.standard_normal((n, H))
    inside = bool(rng.random() < 0.5)
    if inside:
        W[:, 0] = np.linalg.eigh(R)[1][:, -1]
        W = W @ (rng.standard_normal((H, H)) + 3 * np.eye(H))
    return R, W, inside


@settings(max_examples=1000, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 2**32 - 1))
def test_span_bound_and_its_equality_condition(seed):
    R, W, inside = _random_case(seed)
    b = th.span_bound(R, W)
    lam = np.linalg.eigvalsh(R)
    assert b.top <= b.lambda_max + 1e-10
    assert b.lower - 1e-9 <= b.lambda_max - b.top <= b.upper + 1e-9
    assert abs(b.top - th.pencil(R, W)[0]) < 1e-10
    if inside:
        assert b.sin2 < 1e-9 and b.lambda_max - b.top < 1e-9
    elif lam[-1] - lam[-2] > 1e-6 and b.sin2 > 1e-6:  # the top eigenvector outside the span: strictly below
        assert b.lambda_max - b.top >= b.lower - 1e-12 > 0


def test_pencil_is_the_best_rayleigh_quotient_in_the_span():
    rng = np.random.default_rng(1)
    R = positional.markov(T, 0.6).R
    W = rng.standard_normal((T, 3))
    best = max(weights.snr(W @ a, R) for a in rng.standard_normal((20000, 3)))
    assert best <= th.pencil(R, W)[0] + 1e-12 and best > th.pencil(R, W)[0] - 1e-3


def test_covariance_of_concatenated_heads_is_exact():
    """Enumerate every sign sequence (Markov chain, T = 3) and every choice of tokens of a vocabulary of 6."""
    rng = np.random.default_rng(0)
    d, V, r = 2, 6, 0.5
    vocab = generative.draw_vocabulary(d, V, 0.5, rng)
    R = positional.markov(3, r).R
    W = rng.standard_normal((3, 2))
    s = vocab.signs
    m1, m2 = np.zeros(2 * d), np.zeros((2 * d, 2 * d))
    for xi in itertools.product((1, -1), repeat=3):
        p = 0.5 * np.prod([(1 + r * xi[t] * xi[t - 1]) / 2 for t in (1, 2)])
        classes = [np.flatnonzero(s == x) for x in xi]
        for toks in itertools.product(*classes):
            c = (vocab.table[list(toks)].T @ W).ravel(order="F")  # vec(X W): the heads stacked
            q = p / np.prod([len(k) for k in classes])
            m1 += q * c
            m2 += q * np.outer(c, c)
    assert np.abs(m2 - np.outer(m1, m1) - mh.heads_population_covariance(vocab, R, W)).max() < 1e-13
    assert np.abs(m2 - mh.heads_population_covariance(vocab, R, W, centered=False)).max() < 1e-13


@pytest.mark.parametrize("mu2", [0.05, 0.3, 1.0, 3.0])
def test_one_head_is_the_books_spike(mu2):
    R, w = positional.prefix(T, 4).R, weights.causal(T, 1.0)
    got, ref = th.signal_spikes(0.5, 1.0, R=R, W=w, mu_norm2=mu2), theory.signal(0.5, 1.0, w @ R @ w, w @ w, mu2)
    for name in ("population_eigenvalue", "sample_eigenvalue", "population_overlap", "sample_overlap"):
        assert np.allclose(getattr(got, name)[0], getattr(ref, name), rtol=1e-10, equal_nan=True), name
    got = [x[0] for x in th.head_thresholds(0.5, 1.0, R=R, W=w)]
    assert np.allclose(got, theory.signal_thresholds(0.5, 1.0, w @ R @ w, w @ w), rtol=1e-9)


def test_orthonormal_heads_are_one_head_per_pencil_eigenvalue_with_H_gamma():
    R = positional.blocks([4] + [1] * 8 + [4]).R
    W = th.whiten(mh.causal_heads(T, [0, 0], reversed_heads=(1,))) * 0.4
    lam = th.pencil(R, W)
    got = th.signal_spikes(0.5, 0.5, R=R, W=W, mu_norm2=1.5)
    for k in range(2):
        ref = theory.signal(0.5, 1.0, lam[k] * 0.16, 0.16, 1.5)
        assert np.isclose(got.sample_eigenvalue[k], ref.sample_eigenvalue, rtol=1e-10)
        assert np.isclose(got.sample_overlap[k], ref.sample_overlap, rtol=1e-9)
    assert np.isclose(theory.HeadsBulk(0.5, 0.5, W.T @ W).upper, theory.Bulk(0.5, 1.0, 0.16).upper, rtol=1e-10)
    x = np.linspace(0.01, 0.5, 7)
    assert np.allclose(theory.HeadsBulk(0.5, 0.5, W.T @ W).density(x), theory.Bulk(0.5, 1.0, 0.16).density(x), rtol=1e-7)


@pytest.mark.parametrize("gamma", [0.25, 1.0])
def test_bulk_density_integrates_to_its_mass_with_the_stated_moments(gamma):
    """Heads of three scales; H gamma = 3 > 1 leaves an atom 1 - 1/(H gamma) at 0 (rank N < dH)."""
    B = mh.causal_heads(T, [8, 0, -4]).T @ mh.causal_heads(T, [8, 0, -4])
    B = B + 0.01 * np.trace(B) * np.eye(3)  # keep the smallest scale away from 0
    top = theory.HeadsBulk(0.5, gamma, B).upper
    x = top * (0.5 - 0.5 * np.cos(np.linspace(0, np.pi, 4001)))  # packed near both ends
    f = theory.HeadsBulk(0.5, gamma, B).density(x[1:])
    m = [np.trapezoid(x[1:] ** k * f, x[1:]) for k in range(3)]
    assert abs(m[0] - min(1.0, 1 / (3 * gamma))) < 2e-3
    assert np.allclose(m[1:], theory.HeadsBulk(0.5, gamma, B).moments(2), rtol=3e-3)
    assert theory.HeadsBulk(0.5, gamma, B).density(np.array([top * 1.001]))[0] < 1e-9


def test_operators_match_the_formed_matrices_and_summed_heads_are_one_head():
    rng = np.random.default_rng(3)
    W = mh.causal_heads(T, [0, 2], reversed_heads=(1,))
    base = Setting(d=60, V=120, N=300, mu_norm2=1.0, process=positional.markov(T, 0.6))
    vocab = generative.draw_vocabulary(60, 120, 1.0, rng)
    _, tok = generative.draw_tokens(base.process, 120, 300, rng)
    C = np.concatenate([pooling.pool_table(vocab.table, tok, W[:, h]) for h in range(2)], axis=1)
    C -= C.mean(axis=0)
    x = rng.standard_normal((120, 2))
    assert np.abs(eh.HeadsCovariance(vocab.table, tok, W) @ x - C.T @ (C @ x) / 300).max() < 1e-12
    P = mh.heads_population_covariance(vocab, base.R, W)
    assert np.abs(eh.HeadsPopulation(vocab, *th.head_matrices(base.R, W)) @ x - P @ x).max() < 1e-12
    summed = pooling.pool_table(vocab.table, tok, W.sum(axis=1))
    assert np.abs(summed - sum(pooling.pool_table(vocab.table, tok, W[:, h]) for h in range(2))).max() < 1e-12
    hs = mh.HeadsSetting(base, W)
    assert np.allclose(hs.summed().weights, W.sum(axis=1)) and hs.H == 2


def test_a_draw_finds_the_population_spikes():
    hs = mh.HeadsSetting(Setting(d=400, V=800, N=400, mu_norm2=2.0, process=positional.blocks([4] + [1] * 8 + [4])),
                         mh.causal_heads(T, [0, 0], reversed_heads=(1,)))
    draw = eh.simulate_heads(hs, np.random.default_rng(4), k=3, level="population")
    ref = th.spikes(hs.delta, hs.gamma, draw.h_norm2, *hs.matrices)
    assert np.allclose(draw.top[:2], ref.population_eigenvalue, rtol=0.03)
    assert np.allclose(draw.overlap_h[:2], ref.population_overlap, atol=0.02)
    assert draw.top[2] < hs.population_edge() * 1.05


def test_stacked_layers_limit():
    for tau in (-2.0, 0.0, 1.0, 5.0):
        assert np.abs(layers.stacked_weights(T, [tau]) - weights.causal(T, tau)).max() < 1e-15
    assert np.isclose(layers.stacked_weights(T, [1.0] * 3, residual=True).sum(), 8.0)
    deep = layers.stacked_weights(T, [1.0] * 40)
    assert np.abs(deep - np.eye(T)[0]).max() < 1e-6
    P = layers.stack(T, [1.0, 1.0])
    assert np.allclose(np.triu(P[1], 1), 0) and np.allclose(P[1].sum(axis=1), 1)


def test_real_stack_is_the_real_layer_and_tends_to_its_limit():
    p = positional.prefix(T, 4)
    one = stacked_layers.stack_draw(p, 200, 400, 300, 1.0, [1.0], np.random.default_rng(5))
    ref = real_layer.layer_draw(p, 200, 400, 300, 1.0, 1.0, np.random.default_rng(5), reference=weights.causal(T, 1.0))
    assert np.isclose(one.top[0, 0], ref.top, rtol=1e-9) and np.isclose(one.top[0, 1], ref.top_fixed, rtol=1e-9)
    rng = np.random.default_rng(6)
    X = rng.standard_normal((200, T, 4000))
    for residual in (False, True):
        w = stacked_layers.stack_weights(X, [1.0, 2.0], residual=residual)
        lim = layers.stacked_weights(T, [1.0, 2.0], residual=residual)
        assert np.abs(w.mean(axis=0) / lim.sum() - lim / lim.sum()).max() < 3e-3


@pytest.mark.parametrize("call, match", [
    (lambda: th.check_heads(np.zeros((T, 2))), "all-zero column"),
    (lambda: th.check_heads(np.ones((T, 2)), T + 1), "T = 17 rows"),
    (lambda: th.whiten(np.ones((T, 2))), "full column rank"),
    (lambda: th.resolvent_matrix(0.5, ell=0.1, B=np.eye(2)), "population edge"),
    (lambda: layers.stacked_weights(T, []), "non-empty"),
    (lambda: mh.causal_heads(T, [0, 1], reversed_heads=(2,)), "head indices"),
    (lambda: stacked_layers.attention_rows(np.ones((T, 3)), 1.0), r"\(n, T, d\)"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()
