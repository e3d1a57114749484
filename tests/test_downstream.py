"""Downstream task: labels, the closed-form ridge (against lstsq and brute-force leave-one-out), the spectral
classifier, and the theory predictions (against exact identities and small Monte-Carlo runs)."""

from dataclasses import astuple

import numpy as np
import pytest
from scipy.special import ndtr

from attnlib import Setting, theory
from attnlib.numerics import linalg
from attnlib.model import generative, pooling
from attnlib.studies import classifiers as cl
from attnlib.studies import downstream as ds
from attnlib.model import positional as P
from attnlib.model import weights as W

PREFIX = P.prefix(8, 3)


# ------------------------------------------------------------------------------------------------ labels


def test_label_position_of_block_processes():
    assert ds.label_position(P.prefix(16, 4)) == 0
    assert ds.label_position(P.suffix(10, 3)) == 7
    assert ds.label_position(P.blocks([1, 1, 5, 1])) == 2


@pytest.mark.parametrize("proc", [P.markov(8, 0.6), P.independent(5), P.blocks([3, 3]), P.prefix(6, 1)])
def test_label_position_refuses_ambiguous_processes(proc):
    with pytest.raises(ValueError, match="block"):
        ds.label_position(proc)


def test_labels_are_the_shared_prefix_sign():
    xi = PREFIX.sample(500, np.random.default_rng(0))
    y = ds.labels(PREFIX, xi)
    assert np.array_equal(y, xi[:, 0]) and np.array_equal(y, xi[:, 2])
    assert np.array_equal(ds.labels(P.markov(8, 0.5), xi, position=5), xi[:, 5])
    with pytest.raises(ValueError, match="position"):
        ds.labels(PREFIX, xi, position=8)
    with pytest.raises(ValueError, match="xi"):
        ds.labels(PREFIX, xi[:, :5])


def test_label_signal_is_prefix_mass_and_matches_class_means():
    w = np.random.default_rng(1).random(8)
    assert ds.label_signal(w, PREFIX.R, 0) == pytest.approx(w[:3].sum())
    # Monte-Carlo: E[c | y] = a y h + (sum w) g, here for a Markov chain (a = (R w)_b, b = 2)
    rng = np.random.default_rng(2)
    voc = generative.draw_vocabulary(6, 40, 1.0, rng)
    proc = P.markov(5, 0.7)
    w5 = W.causal(5, 0.5)
    C, xi = pooling.draw_pooled(voc, proc, w5, 200_000, rng)
    y = xi[:, 2]
    half_diff = (C[y > 0].mean(axis=0) - C[y < 0].mean(axis=0)) / 2
    a = ds.label_signal(w5, proc.R, 2)
    np.testing.assert_allclose(half_diff, a * voc.h, atol=0.01)


# ------------------------------------------------------------------------------------------------ ridge


def _ridge(X, y, lam_rel=cl.DEFAULT_LAMBDAS):
    """Ridge on the features X (rows) and +-1 labels y, as the experiment fits it."""
    return cl.ridge_path(cl.Decomposition.of(np.asarray(X, dtype=float)), np.asarray(y, dtype=float),
                         cl.lambda_grid(lam_rel))


def _toy(n, d, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1, 1], n)
    X = rng.standard_normal((n, d)) + 0.7 * y[:, None] * rng.standard_normal(d) + 3.0
    return X, y


@pytest.mark.parametrize("n,d", [(30, 7), (8, 20)])
def test_ridge_matches_lstsq_on_augmented_system(n, d):
    X, y = _toy(n, d, 3)
    lam_rel = 0.37
    fit = _ridge(X, y, lam_rel)
    Xc = X - X.mean(axis=0)
    lam = lam_rel * np.sum(Xc**2) / (n * d)
    # min ||y - b - X beta||^2 + n lam ||beta||^2 (intercept unpenalised)
    A = np.block([[np.ones((n, 1)), X], [np.zeros((d, 1)), np.sqrt(n * lam) * np.eye(d)]])
    sol = np.linalg.lstsq(A, np.concatenate([y, np.zeros(d)]), rcond=None)[0]
    assert fit.lam == pytest.approx(lam)
    np.testing.assert_allclose(fit.coef, sol[1:], rtol=1e-8, atol=1e-10)
    assert fit.intercept == pytest.approx(sol[0], rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("n,d", [(25, 6), (9, 15)])
def test_ridge_loo_matches_brute_force(n, d):
    X, y = _toy(n, d, 4)
    grid = np.array([0.05, 0.5, 5.0])
    fit = _ridge(X, y, grid)
    scale = np.sum((X - X.mean(axis=0)) ** 2) / (n * d)  # lambda stays relative to the full-data scale
    for k, lam_rel in enumerate(grid):
        errs = []
        for i in range(n):
            keep = np.arange(n) != i
            Xi, yi = X[keep], y[keep]
            Xic = Xi - Xi.mean(axis=0)
            # the same absolute penalty n lam ||beta||^2 as the full fit, on the n - 1 remaining rows
            beta = np.linalg.solve(Xic.T @ Xic + n * lam_rel * scale * np.eye(d), Xic.T @ (yi - yi.mean()))
            errs.append(y[i] - yi.mean() - (X[i] - Xi.mean(axis=0)) @ beta)
        assert fit.loo_mse[k] == pytest.approx(np.mean(np.square(errs)), rel=1e-8)
    assert fit.lam_rel == grid[np.argmin(fit.loo_mse)]


def test_ridge_is_scale_invariant_and_separates_a_toy():
    X, y = _toy(200, 10, 5)
    fit, fit10 = _ridge(X, y), _ridge(10 * X, y)
    np.testing.assert_allclose(fit.decision(X), fit10.decision(10 * X), rtol=1e-8)
    rng = np.random.default_rng(6)
    y_sep = rng.choice([-1, 1], 300)
    X_sep = rng.standard_normal((300, 20)) * 0.1 + y_sep[:, None] * np.eye(20)[0]
    fit_sep = _ridge(X_sep[:100], y_sep[:100])
    assert cl.accuracy(y_sep[100:], fit_sep.decision(X_sep[100:])) == 1.0
    spec = cl.spectral_fit(X_sep[:100], y_sep[:5])
    assert cl.accuracy(y_sep[100:], spec.decision(X_sep[100:])) == 1.0
    assert np.array_equal(spec.predict(X_sep[100:]), y_sep[100:])


def test_spectral_sign_follows_anchors():
    rng = np.random.default_rng(7)
    y = rng.choice([-1, 1], 200)
    X = rng.standard_normal((200, 5)) * 0.2 + 2 * y[:, None] * np.eye(5)[1]
    pos, neg = cl.spectral_fit(X, y[:3]), cl.spectral_fit(X, -y[:3])
    np.testing.assert_allclose(pos.direction, -neg.direction)
    assert cl.accuracy(y, pos.decision(X)) == 1.0 and cl.accuracy(y, neg.decision(X)) == 0.0


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda X, y: cl.lambda_grid(-1.0), "lam_rel"),
        (lambda X, y: cl.lambda_grid([0.1, np.nan]), "lam_rel"),
        (lambda X, y: cl.spectral_fit(X[:, 0], y[:3]), "X must be"),
        (lambda X, y: cl.spectral_fit(np.where(X > 0, np.inf, X), y[:3]), "finite"),
        (lambda X, y: cl.spectral_fit(X, np.where(y > 0, 1, 0)[:3]), "labels"),
        (lambda X, y: cl.spectral_fit(X[:3], y[:4]), "anchor_labels"),
        (lambda X, y: cl.accuracy(y, y[:-1]), "scores"),
        (lambda X, y: cl.accuracy(y * 2, y), "labels"),
    ],
)
def test_bad_input_raises(call, match):
    X, y = _toy(20, 4, 8)
    with pytest.raises(ValueError, match=match):
        call(X, y)


# ------------------------------------------------------------------------------------------------ theory


def _setting(**kw):
    base = dict(d=400, V=800, N=800, mu_norm2=0.5, process=P.prefix(16, 4), weights="optimal")
    base.update(kw)
    return Setting(**base)


def test_outlier_quadratic_form_identities():
    """u^T Sigma u of the top eigenvector (spectral_accuracy's quad) = l^2 / lambda, in closed form and limits."""
    s = _setting()
    sp = s.signal_h()
    x, dl, gm = s.theta - s.delta, s.delta, s.gamma
    q = ds.spectral_accuracy(s).quad
    assert q == pytest.approx(s.kappa * (x + 1) * (x + dl) / (x + gm))
    assert q == pytest.approx(sp.population_eigenvalue**2 / sp.sample_eigenvalue)
    # gamma -> 0: the sample eigenvector is the population one and u^T Sigma u -> the population outlier
    big = _setting(N=10**9)
    assert ds.spectral_accuracy(big).quad == pytest.approx(big.signal_h().population_eigenvalue, rel=1e-5)
    # identity bulk (delta -> 0): l^2/lambda = 1 + (l - 1) c^2, c^2 the classic overlap (Donoho-Gavish-Johnstone)
    l, gamma = 4.0, 0.5
    lam = l * (1 + gamma / (l - 1))
    c2 = (1 - gamma / (l - 1) ** 2) / (1 + gamma / (l - 1))
    assert l**2 / lam == pytest.approx(1 + (l - 1) * c2)
    assert np.isnan(ds.spectral_accuracy(_setting(weights="mean", N=400)).quad)


def test_outlier_quadratic_form_and_projection_against_monte_carlo():
    """d = 300: per draw, u^T Sigma u fluctuates by ~3 % (vocabulary) and <u, h>^2 by ~0.03; 4 draws."""
    s = _setting(d=300, V=600, N=900, weights="causal")
    rng = np.random.default_rng(9)
    quads, eta2s = [], []
    for _ in range(4):
        voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
        C, _ = pooling.draw_pooled(voc, s.process, s.weights, s.N, rng)
        _, vecs = linalg.covariance_eigenpairs(C, 1)
        u = vecs[:, 0]
        Sigma = generative.population_covariance(voc, s.weights, s.R)
        quads.append(u @ Sigma @ u)
        eta2s.append((u @ voc.h) ** 2)
    pred = ds.spectral_accuracy(s)
    assert np.mean(quads) == pytest.approx(pred.quad, rel=0.06)
    assert np.mean(eta2s) == pytest.approx(pred.eta2, abs=0.05)


def test_spectral_accuracy_limits():
    below = ds.spectral_accuracy(_setting(weights="mean", N=400))
    assert below.accuracy == 0.5 and below.eta2 == 0.0
    above = _setting(weights="mean", N=3200)  # just above threshold: snr ~ 0.4, the anchors' vote matters
    p0, p5, p50 = (ds.spectral_accuracy(above, n_anchor=k) for k in (None, 5, 50))
    assert p0.sign_error == 0 and p0.accuracy == p0.accuracy_signed
    assert 0.5 < p5.accuracy < p50.accuracy < p0.accuracy
    assert p0.noise_var == pytest.approx(p0.quad - p0.a**2 * p0.eta2)
    with pytest.raises(ValueError, match="n_anchor"):
        ds.spectral_accuracy(above, n_anchor=0)


def test_anchor_vote_uses_the_out_of_sample_variance():
    """The anchors are held out: the vote's per-anchor SNR is a|eta| / sqrt(l^2/lambda - a^2 eta^2)."""
    s = _setting(weights="causal")
    p = ds.spectral_accuracy(s, n_anchor=7)
    sp = s.signal_h()
    out_of_sample = sp.population_eigenvalue**2 / sp.sample_eigenvalue
    snr = p.a * np.sqrt(p.eta2) / np.sqrt(out_of_sample - p.a**2 * p.eta2)
    assert p.quad == pytest.approx(out_of_sample) and p.snr == pytest.approx(snr)
    assert p.sign_error == pytest.approx(float(ndtr(-np.sqrt(7) * snr)))
    # the in-sample second moment (the top eigenvalue) would be larger by ((x + gamma)/x)^2
    x = s.theta - s.delta
    assert sp.sample_eigenvalue / out_of_sample == pytest.approx(((x + s.gamma) / x) ** 2)


def test_spectral_accuracy_given_a_vocabulary_norm():
    """h_norm2 = ||mu||^2 + delta is the default; another value acts as the setting with that ||h||^2."""
    s = _setting(weights="causal")
    base = ds.spectral_accuracy(s, n_anchor=5)
    assert ds.spectral_accuracy(s, n_anchor=5, h_norm2=s.mu_norm2 + s.delta) == base
    shifted = ds.spectral_accuracy(s, n_anchor=5, h_norm2=1.1)
    same = ds.spectral_accuracy(s.replace(mu_norm2=1.1 - s.delta), n_anchor=5)
    np.testing.assert_allclose(astuple(shifted), astuple(same), rtol=1e-12)
    assert ds.spectral_accuracy(_setting(weights="mean", mu_norm2=0.0), h_norm2=0.48).accuracy == 0.5
    with pytest.raises(ValueError, match="h_norm2"):
        ds.spectral_accuracy(s, h_norm2=-1.0)


def test_in_sample_and_held_out_projections_against_monte_carlo():
    """In sample, mean p^2 over the training rows is exactly the top eigenvalue lambda; held out, it is
    u^T Sigma u ~ l^2 / lambda (d = 300, 4 draws: the ratio fluctuates by ~2 % per draw)."""
    s = _setting(d=300, V=600, N=900, weights="optimal")
    rng = np.random.default_rng(12)
    ratios = []
    for _ in range(4):
        voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
        C, _ = pooling.draw_pooled(voc, s.process, s.weights, s.N, rng)
        Cc = C - C.mean(axis=0)
        vals, vecs = linalg.covariance_eigenpairs(C, 1)
        u = vecs[:, 0]
        assert np.mean((Cc @ u) ** 2) == pytest.approx(vals[0], rel=1e-5)  # float32 Lanczos
        Sigma = generative.population_covariance(voc, s.weights, s.R)
        ratios.append(vals[0] / (u @ Sigma @ u))
    x = s.theta - s.delta
    assert np.mean(ratios) == pytest.approx(((x + s.gamma) / x) ** 2, rel=0.04)


def test_fisher_accuracy_against_oracle_monte_carlo():
    """The Fisher rule of four vocabularies (d = 200, V = 800), each on 20000 test sequences.

    Measured over 20 vocabularies: accuracy sd 0.0079 per vocabulary (finite d: h^T W'^{-1} h has relative
    sd ~ sqrt(2/d) ~ 0.1), mostly from the vocabulary; the mean of four has sd 0.004, and 0.016 is 4 of them.
    """
    s = _setting(d=200, V=800, weights="mean", mu_norm2=0.3)
    accs = []
    for seed in range(10, 14):
        rng = np.random.default_rng(seed)
        voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
        parts = generative.population_covariance(voc, s.weights, s.R, parts=True)
        a = ds.label_signal(s.weights, s.R, 0)
        Sigma_n = s.kappa * parts["W_prime"] + (s.alpha - a * a) * np.outer(parts["h"], parts["h"])
        beta = np.linalg.solve(Sigma_n, parts["h"])
        C, xi = pooling.draw_pooled(voc, s.process, s.weights, 20_000, rng)
        accs.append(cl.accuracy(xi[:, 0], (C - s.weight_sum * parts["g"]) @ beta))
    assert np.mean(accs) == pytest.approx(ds.fisher_accuracy(s), abs=0.016)
    with pytest.raises(ValueError, match="delta"):
        ds.fisher_accuracy(_setting(V=400))
    # prefix-supported weights (alpha = a^2): varsigma^2 = M alpha / kappa
    opt = _setting(weights="optimal")
    assert ds.label_snr(opt) == pytest.approx((0.5 + 0.5) / (1 - 0.5) * opt.snr)


def test_critical_window():
    assert ds.in_critical_window(_setting(weights="mean"))  # theta 1.75 vs theta_s 1.78
    assert not ds.in_critical_window(_setting(weights="optimal"))
    with pytest.raises(ValueError, match="setting"):
        ds.in_critical_window("mean")


@pytest.mark.parametrize("d,gamma", [(400, 0.5), (3200, 0.5), (400, 4.0)])
def test_critical_window_is_the_tracy_widom_rule(d, gamma):
    """In the window iff |x - x*| < sqrt(q_0.95) w_d, w_d = sqrt(2 l / z''(x*)), rebuilt here without
    attnlib.theory.fluctuations' window functions: q by root-finding on the TW_1 CDF, z'' by a central second
    difference of the outlier map (step 1e-3: relative error ~1e-6, far below the 2 % margin of the factors
    0.98 and 1.02 below). A wrong curvature (z'' missing its 6 s3/x^4 term, or w_d without its 2) moves the
    boundary by 15 % or more (asserted)."""
    from scipy.optimize import brentq

    from attnlib.theory import fluctuations as fl
    from attnlib.theory import tracy_widom

    base = _setting(weights="mean", d=d, V=2 * d, N=int(d / gamma))
    delta, g = base.delta, base.gamma
    x_star = theory.critical_x(delta, g)[0]
    q = brentq(lambda u: tracy_widom.TracyWidom().cdf(u) - 0.95, 0.0, 3.0, xtol=1e-12)
    h = 1e-3
    z2 = (theory.outlier_map(x_star + h, delta, g, 1.0) - 2 * theory.outlier_map(x_star, delta, g, 1.0)
          + theory.outlier_map(x_star - h, delta, g, 1.0)) / h**2
    half = np.sqrt(q) * np.sqrt(2 * fl.edge_scale(delta, g, 1.0, d) / z2)
    for factor, inside in [(-0.98, True), (0.0, True), (0.98, True), (-1.02, False), (1.02, False), (3.0, False)]:
        assert ds.in_critical_window(base.with_theta(delta + x_star + factor * half)) is inside
    s2, s3 = delta + g + delta * g, delta * g
    for wrong_z2 in (2 * s2 / x_star**3, z2 / 2):  # no 6 s3/x^4 term; the width without its 2 (as z''/2)
        wrong = np.sqrt(q) * np.sqrt(2 * fl.edge_scale(delta, g, 1.0, d) / wrong_z2)
        assert abs(wrong / half - 1) > 0.1


def test_critical_window_edge_is_where_the_outlier_meets_the_quantile():
    """At the window's upper edge the limit outlier sits q_0.95 edge scales above E, up to O(w_d) = O(d^(-1/3))."""
    from attnlib.theory import fluctuations as fl

    q, deficits = fl.edge_quantile(0.95), []
    for d in (3200, 25600):
        base = _setting(weights="mean", d=d, V=2 * d, N=d)
        x_star = theory.critical_x(base.delta, base.gamma)[0]
        s = base.with_theta(base.delta + x_star + np.sqrt(q) * fl.window_width(base.delta, base.gamma, d))
        above = (s.signal_h().sample_eigenvalue - s.bulk.upper) / fl.edge_scale(s.delta, s.gamma, s.kappa, d)
        deficits.append(1 - above / q)
    assert 0 < deficits[1] < deficits[0] < 0.15
    assert deficits[1] / deficits[0] == pytest.approx(8 ** (-1 / 3), rel=0.15)


def test_samples_threshold_puts_theta_on_the_sample_threshold():
    for weights in ("mean", "causal", "optimal"):
        s = _setting(weights=weights)
        n_star = ds.samples_threshold(s)
        x_star = theory.critical_x(s.delta, s.d / n_star)[0]
        assert x_star == pytest.approx(s.theta - s.delta, rel=1e-10)
    assert ds.samples_threshold(_setting(weights=np.eye(16)[5], mu_norm2=0.1)) == np.inf


def test_empirical_threshold():
    x = np.linspace(0, 1, 11)
    edge = np.ones(11)
    top = 1 + np.clip(x - 0.3, 0, None)  # margin = top - edge - 0.2 crosses 0 at x = 0.5
    assert ds.empirical_threshold(x, top, edge, np.full(11, 0.2)) == pytest.approx(0.5)
    assert np.isnan(ds.empirical_threshold(x, top, edge, np.full(11, 5.0)))
    assert ds.empirical_threshold(x, top + 1, edge, np.full(11, 0.2)) == 0.0
    wiggle = top.copy()
    wiggle[2] = 2.0  # an early excursion above the margin does not count: the margin must stay positive
    assert ds.empirical_threshold(x, wiggle, edge, np.full(11, 0.2)) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="increasing"):
        ds.empirical_threshold(x[::-1], top, edge, np.full(11, 0.2))


# ------------------------------------------------------------------------------------------------ runner


@pytest.mark.parametrize("n,d", [(60, 12), (10, 25)])
def test_runner_decomposition_matches_public_fits(n, d):
    """run_experiment shares one eigendecomposition between ridge and the spectral classifier: its spectral
    direction is the Lanczos one of spectral_fit."""
    X, y = _toy(n, d, 11)
    dec = cl.Decomposition.of(X)
    value, vector = dec.top_direction()
    spec = cl.signed_fit(vector, dec.x_mean, value, dec.Xc[:5], y[:5].astype(float))
    lanczos = cl.spectral_fit(X, y[:5])
    assert value == pytest.approx(lanczos.eigenvalue, rel=1e-9)
    np.testing.assert_allclose(spec.direction, lanczos.direction, atol=1e-7)


def test_spectral_fit_with_held_out_anchors():
    rng = np.random.default_rng(13)
    y = rng.choice([-1, 1], 300)
    X = rng.standard_normal((300, 6)) * 0.2 + 2 * y[:, None] * np.eye(6)[2]
    held, y_held = X[250:], y[250:]
    pos, neg = cl.spectral_fit(X[:250], y_held[:4], anchors=held[:4]), cl.spectral_fit(X[:250], -y_held[:4],
                                                                                        anchors=held[:4])
    np.testing.assert_allclose(pos.direction, -neg.direction)
    assert cl.accuracy(y_held, pos.decision(held)) == 1.0
    with pytest.raises(ValueError, match="anchor_labels"):
        cl.spectral_fit(X[:250], y_held[:3], anchors=held[:4])
    with pytest.raises(ValueError, match="columns"):
        cl.spectral_fit(X[:250], y_held[:4], anchors=held[:4, :5])
