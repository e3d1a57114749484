"""Model options (attnlib.model.variants.ModelOptions) through the generative model and the engine: the defaults draw
exactly the book's model, each option changes what it should and nothing else, and bad options are refused."""

import numpy as np
import pytest

from attnlib import Setting, simulate, sweep
from attnlib.model import generative, pooling, noise, positional
from attnlib.model.variants import ModelOptions


def test_defaults_draw_the_same_numbers():
    for dtype in (np.float64, np.float32):
        plain = generative.draw_vocabulary(40, 60, 0.5, np.random.default_rng(1), dtype=dtype)
        same = generative.draw_vocabulary(40, 60, 0.5, np.random.default_rng(1), dtype=dtype, options=ModelOptions())
        np.testing.assert_array_equal(plain.table, same.table)
        np.testing.assert_array_equal(plain.h, same.h)


def test_frequencies_alone_keep_the_table_and_weight_the_centroids():
    f = np.arange(1, 31, dtype=float) ** -1.0
    f /= f.sum()
    plain = generative.draw_vocabulary(20, 60, 0.5, np.random.default_rng(2))
    voc = generative.draw_vocabulary(20, 60, 0.5, np.random.default_rng(2), options=ModelOptions(frequencies=f))
    np.testing.assert_allclose(voc.table, plain.table, rtol=0, atol=0)
    pi = np.tile(f, 2) / 2
    np.testing.assert_allclose(voc.h, (pi * voc.signs) @ voc.table, atol=1e-13)
    np.testing.assert_allclose(voc.g, pi @ voc.table, atol=1e-13)
    np.testing.assert_allclose(voc.q, (pi * voc.signs) @ voc.noise, atol=1e-13)


def test_noise_law_and_covariance_reach_the_table():
    var = np.r_[np.full(10, 3.0), np.full(30, 0.5)]
    opts = ModelOptions(noise=noise.rademacher(), covariance=var)
    voc = generative.draw_vocabulary(40, 20_000, 0.0, np.random.default_rng(3), options=opts)
    Z = voc.noise
    np.testing.assert_allclose(np.unique(np.abs(Z[:, 0])), [np.sqrt(3.0)])  # +-sqrt(3) entries
    np.testing.assert_allclose(Z.var(axis=0), var, rtol=0.05)
    f32 = generative.draw_vocabulary(40, 200, 1.0, np.random.default_rng(4), options=opts, dtype=np.float32)
    f64 = generative.draw_vocabulary(40, 200, 1.0, np.random.default_rng(4), options=opts)
    np.testing.assert_allclose(f32.table, f64.table, rtol=1e-6)
    np.testing.assert_array_equal(f32.h, f64.h)  # centroids from the double-precision draws


def test_full_covariance_equals_its_diagonal_form():
    var = np.linspace(0.5, 2.0, 12)
    a = generative.draw_vocabulary(12, 40, 0.3, np.random.default_rng(5), options=ModelOptions(covariance=var))
    b = generative.draw_vocabulary(12, 40, 0.3, np.random.default_rng(5), options=ModelOptions(covariance=np.diag(var)))
    np.testing.assert_allclose(a.table, b.table, atol=1e-12)


def test_sample_tokens_with_frequencies_and_classes():
    rng = np.random.default_rng(6)
    f = np.array([0.5, 0.3, 0.2])
    xi = positional.independent(50).sample(4000, rng)
    tok = generative.sample_tokens(xi, 6, rng, frequencies=f)
    assert np.all((tok < 3) == (xi > 0))
    np.testing.assert_allclose(np.bincount((tok % 3).ravel()) / tok.size, f, atol=0.01)
    labels = rng.integers(0, 3, size=(100, 8))
    tok3 = generative.sample_tokens(labels, 12, rng, classes=3)
    np.testing.assert_array_equal(tok3 // 4, labels)
    np.testing.assert_array_equal(generative.sample_tokens((xi[:5] < 0).astype(int), 6, np.random.default_rng(1),
                                                      classes=2),
                                  generative.sample_tokens(xi[:5], 6, np.random.default_rng(1)))


@pytest.mark.parametrize("call,match", [
    (lambda: ModelOptions(frequencies=[0.5, 0.4]), "sum to 1"),
    (lambda: ModelOptions(frequencies=[1.2, -0.2]), ">= 0"),
    (lambda: ModelOptions(covariance=[1.0, -1.0]), "positive definite"),
    (lambda: ModelOptions(noise="student"), "NoiseLaw"),
    (lambda: generative.sample_tokens(np.zeros((2, 3), int), 12, np.random.default_rng(0), classes=1), ">= 2"),
    (lambda: generative.sample_tokens(np.zeros((2, 3), int), 10, np.random.default_rng(0), classes=3), "multiple"),
    (lambda: generative.sample_tokens(np.ones((2, 3)), 6, np.random.default_rng(0), frequencies=[0.5, 0.5, 0.1]),
     "sum to 1"),
    (lambda: generative.draw_vocabulary(5, 10, 0.0, np.random.default_rng(0), options=ModelOptions(covariance=[1.0] * 4)),
     "dimension d = 5"),
])
def test_bad_options_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _setting(**options):
    return Setting(d=60, V=120, N=240, mu_norm2=1.0, process=positional.markov(8, 0.5), weights="mean",
                   options=ModelOptions(**options) if options else None)


def test_setting_carries_options_through_the_engine():
    s = _setting(noise=noise.student(5.0))
    assert s.replace(N=120).options is s.options and "Student-t" in repr(s)
    with pytest.raises(ValueError, match="frequencies must have one entry"):
        _setting(frequencies=np.full(10, 0.1))
    with pytest.raises(ValueError, match="covariance must have dimension"):
        s.replace(options=ModelOptions(covariance=np.ones(5)))
    plain, other = sweep(_setting(), 3, 2, k=1), sweep(s, 3, 2, k=1)
    assert not np.allclose(plain.top, other.top)
    # options given explicitly at their defaults: the same draws as no options
    np.testing.assert_array_equal(sweep(s.replace(options=ModelOptions()), 3, 2, k=1).top, plain.top)
    # one draw and the engine agree, whatever the path
    d1 = simulate(s, np.random.default_rng(np.random.SeedSequence(3).spawn(2)[0]), k=1, method="dense")
    assert d1.top == pytest.approx(other.top[0, 0], rel=1e-5)


def test_token_frequencies_in_the_engine():
    f = np.arange(1, 61, dtype=float) ** -0.8
    s = _setting(frequencies=f / f.sum())
    out = sweep(s, 4, 2, k=1, method="dense")
    mf = sweep(s, 4, 2, k=1, method="matrix-free")
    np.testing.assert_allclose(out.top, mf.top, rtol=1e-5)
    with pytest.raises(ValueError, match="population"):
        sweep(s, 4, 1, level="population")


def test_population_level_with_a_covariance_is_the_exact_matrix():
    s = _setting(covariance=np.linspace(0.5, 1.5, 60), noise=noise.sparse(0.3))
    rng = np.random.default_rng(np.random.SeedSequence(8).spawn(1)[0])
    voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng, options=s.options)
    exact = np.linalg.eigvalsh(generative.population_covariance(voc, s.weights, s.R))[::-1][:2]
    for method in ("dense", "matrix-free"):
        out = sweep(s, 8, 1, k=2, level="population", method=method)
        np.testing.assert_allclose(out.eigenvalues[0, 0], exact, rtol=1e-9)


def test_population_covariance_with_frequencies_against_monte_carlo():
    f = np.array([0.6, 0.3, 0.1])
    voc = generative.draw_vocabulary(4, 6, 1.0, np.random.default_rng(9), options=ModelOptions(frequencies=f))
    proc = positional.markov(5, 0.5)
    w = np.linspace(1.0, 0.2, 5)
    C, _ = pooling.draw_pooled(voc, proc, w, 400_000, np.random.default_rng(10))
    emp = C.T @ C / len(C)
    exact = generative.population_covariance(voc, w, proc.R, centered=False)
    # Monte-Carlo relative sd of each entry about sqrt(E c^4) / (E c^2 sqrt(4e5)), a few 1e-3
    np.testing.assert_allclose(emp, exact, rtol=0.01, atol=0.02)
    uniform = generative.draw_vocabulary(4, 6, 1.0, np.random.default_rng(9))
    assert not np.allclose(exact, generative.population_covariance(uniform, w, proc.R, centered=False), atol=0.05)
