"""Fluctuation scales: the square-root edge constant, the Tracy-Widom scale, the outlier variance."""

import numpy as np
import pytest

from attnlib.theory import fluctuations as fl
from attnlib.model import positional
from attnlib.theory import tracy_widom
from attnlib import theory as th
from attnlib.model import weights as W

EDGE_REGIMES = [(0.5, 0.25, 1.0), (2.0, 0.5, 1.0), (0.5, 3.0, 0.3), (3.0, 2.0, 2.0), (1.0, 1.0, 0.0625)]


@pytest.mark.parametrize("delta,gamma,kappa", EDGE_REGIMES)
def test_edge_constant_matches_the_density_near_the_edge(delta, gamma, kappa):
    c = fl.edge_constant(delta, gamma, kappa)
    upper = th.Bulk(delta, gamma, kappa).upper
    errors = []
    for eps in (1e-3, 1e-4, 1e-5):
        x = upper * (1 - eps)
        errors.append(abs(th.Bulk(delta, gamma, kappa).density(x) / (c / np.pi * np.sqrt(upper - x)) - 1))
    assert errors[-1] < 1e-4
    assert errors[1] < 0.2 * errors[0] and errors[2] < 0.2 * errors[1]  # error -> 0 linearly in eps


@pytest.mark.parametrize("gamma", [0.1, 0.5, 2.0])
def test_marchenko_pastur_limit(gamma):
    """delta -> 0: c = gamma^(-3/4) / (1 + sqrt(gamma))^2 and Johnstone's (2001) scale of a real white Wishart."""
    assert fl.edge_constant(1e-10, gamma) == pytest.approx(gamma**-0.75 / (1 + np.sqrt(gamma)) ** 2, rel=1e-6)
    d = 300
    N = d / gamma
    johnstone = (np.sqrt(N) + np.sqrt(d)) * (1 / np.sqrt(N) + 1 / np.sqrt(d)) ** (1 / 3) / N
    assert fl.edge_scale(1e-10, gamma, 1.0, d) == pytest.approx(johnstone, rel=1e-6)


def test_edge_scale_scaling_and_standardize():
    s1 = fl.edge_scale(0.5, 0.25, 1.0, 400)
    assert fl.edge_scale(0.5, 0.25, 1.0, 3200) == pytest.approx(s1 / 4, rel=1e-12)  # d^(-2/3)
    assert fl.edge_scale(0.5, 0.25, 0.1, 400) == pytest.approx(0.1 * s1, rel=1e-12)  # proportional to kappa
    upper = th.Bulk(0.5, 0.25, 0.1).upper
    t = np.array([-2.0, 0.0, 1.5])
    z = fl.standardize(0.5, 0.25, top=upper + t * fl.edge_scale(0.5, 0.25, 0.1, 400), kappa=0.1, d=400)
    np.testing.assert_allclose(z, t, atol=1e-9)
    assert isinstance(fl.standardize(0.5, 0.25, top=upper, kappa=0.1, d=400), float)


def test_outlier_variance_white_noise_limit():
    """delta -> 0 with ||mu||^2 > 0: Paul's formula 2 l^2 (1 - gamma/x^2)/N, l = kappa (x + 1), and no vocabulary."""
    gamma, x, d, kappa = 0.3, 1.7, 500, 0.4
    v = fl.outlier_variance(1e-12, gamma, x + 1e-12, d, kappa=kappa, mu_norm2=1.0, beta4=3.0)
    N = d / gamma
    assert v.sampling_gaussian == pytest.approx(2 * kappa**2 * (x + 1) ** 2 * (1 - gamma / x**2) / N, rel=1e-9)
    assert v.sampling_kurtosis == 0.0
    assert v.vocabulary < 1e-9 * v.total


def _white_spike_tops(gamma, x, p, trials, rng, signs):
    """Top eigenvalue of the sample covariance of c = a e_1 + y (y ~ N(0, I_p)), a = +-sqrt(x) or Gaussian."""
    n = int(p / gamma)
    tops = np.empty(trials)
    for i in range(trials):
        Y = rng.standard_normal((n, p))
        a = rng.choice([-1.0, 1.0], n) if signs else rng.standard_normal(n)
        Y[:, 0] += np.sqrt(x) * a
        tops[i] = np.linalg.eigvalsh(Y.T @ Y / n)[-1]
    return tops


def test_outlier_variance_kurtosis_term_against_a_white_spiked_model():
    """Rademacher spike coordinates (beta4 = 1) reduce the variance by (beta4 - 3) theta^2 z'^2 / N."""
    gamma, x, p, trials = 0.25, 2.0, 100, 500
    rng = np.random.default_rng(7)
    pred = fl.outlier_variance(1e-12, gamma, x + 1e-12, p, mu_norm2=1.0, beta4=1.0)
    gauss = fl.outlier_variance(1e-12, gamma, x + 1e-12, p, mu_norm2=1.0, beta4=3.0)
    assert pred.total < 0.7 * gauss.total  # the two predictions are far apart ...
    var = _white_spike_tops(gamma, x, p, trials, rng, signs=True).var(ddof=1)
    assert var == pytest.approx(pred.total, rel=0.15)  # ... and the simulation picks the right one


def test_outlier_variance_components_and_validation():
    v = fl.outlier_variance(0.5, 0.25, 2.5, 400, kappa=1 / 16, mu_norm2=0.0, beta4=1.0)
    assert v.total == pytest.approx(v.sampling + v.vocabulary)
    assert fl.outlier_sd(0.5, 0.25, 2.5, 400, kappa=1 / 16, beta4=1.0) == pytest.approx(np.sqrt(v.total))
    # with mu = 0 the norm term is theta^2 z'^2 (2/d): ||h||^2 = ||q||^2 has relative variance 2/d
    x = 2.0
    z1 = (1 - 0.875 / x**2 - 0.25 / x**3) / 16
    assert v.vocabulary_norm == pytest.approx(2.5**2 * z1**2 * 2 / 400, rel=1e-12)
    assert v.vocabulary_direction == pytest.approx(2.5**2 * z1**2 * 2 * 0.5 / (x**2 - 0.5) / 400, rel=1e-12)
    with pytest.raises(ValueError, match="theta must exceed the sample threshold"):
        fl.outlier_variance(0.5, 0.25, 1.2, 400)
    with pytest.raises(ValueError, match="beta4"):
        fl.outlier_variance(0.5, 0.25, 2.5, 400, beta4=0.5)
    with pytest.raises(ValueError, match="d must be an integer"):
        fl.outlier_sd(0.5, 0.25, 2.5, 0)


def test_fourth_moment_ratio():
    rng = np.random.default_rng(3)
    proc = positional.prefix(16, 5)
    assert fl.fourth_moment_ratio(W.optimal(proc.R), proc.sample(1000, rng)) == pytest.approx(1.0, abs=1e-12)
    xi = positional.independent(16).sample(200_000, rng)
    assert fl.fourth_moment_ratio(W.mean(16), xi) == pytest.approx(3 - 2 / 16, abs=0.03)
    with pytest.raises(ValueError, match="xi must be an"):
        fl.fourth_moment_ratio(W.mean(4), np.zeros((10, 4)))


@pytest.mark.parametrize("call", [
    lambda: fl.edge_constant(-0.5, 0.25),
    lambda: fl.edge_constant(0.5, np.nan),
    lambda: fl.edge_scale(0.5, 0.25, 0.0, 100),
    lambda: fl.edge_scale(0.5, 0.25, 1.0, 10.5),
    lambda: fl.standardize(0.5, 0.25, top=[0.1, np.inf], kappa=1.0, d=100),
])
def test_inputs_are_validated(call):
    with pytest.raises(ValueError):
        call()


# ------------------------------------------------------------------------------------------ critical window


def test_edge_quantiles_are_the_tracy_widom_quantiles():
    from attnlib.theory import tracy_widom

    for p, q in [(0.95, 0.98), (0.99, 2.02)]:  # Johnstone (2001), Table 1
        assert fl.edge_quantile(p) == pytest.approx(q, abs=0.01)
        assert tracy_widom.TracyWidom().cdf(fl.edge_quantile(p)) == pytest.approx(p, abs=1e-10)
    with pytest.raises(ValueError, match="p"):
        fl.edge_quantile(1.0)


@pytest.mark.parametrize("delta,gamma", [(0.5, 0.25), (2.0, 1.0), (0.1, 3.0)])
def test_window_width_is_where_the_outlier_leaves_the_edge(delta, gamma):
    """w_d = sqrt(2 l / z''(x*)): the limit outlier at x* + t w_d sits l t^2 above the edge (t -> 0)."""
    w = fl.window_width(delta, gamma, 1000)
    assert fl.window_width(delta, gamma, 8000) == pytest.approx(w / 2, rel=1e-12)  # d^(-1/3)
    x_star = th.critical_x(delta, gamma)[0]
    upper = th.Bulk(delta, gamma, 0.3).upper
    ell = fl.edge_scale(delta, gamma, 0.3, 1000)
    for eps in (1e-2, 1e-3):
        lam = th.outlier_map(x_star + eps * w, delta, gamma, 0.3)
        assert (lam - upper) / (ell * eps**2) == pytest.approx(1.0, rel=20 * eps)  # kappa cancels
    assert fl.window_position(delta, gamma, theta=delta + x_star, d=1000) == pytest.approx(0.0, abs=1e-12)
    pos = fl.window_position(delta, gamma, theta=delta + x_star + np.array([-w, 2 * w]), d=1000)
    np.testing.assert_allclose(pos, [-1.0, 2.0], rtol=1e-10)
    with pytest.raises(ValueError, match="theta"):
        fl.window_position(delta, gamma, theta=np.nan, d=1000)


def test_window_half_width_is_the_root_of_a_positive_margin():
    """sqrt(q_p) for a positive TW_1 quantile; a level whose quantile is not positive has no window."""
    assert fl.window_half_width(0.95) == pytest.approx(np.sqrt(fl.edge_quantile(0.95)), rel=1e-12)
    assert fl.window_half_width(0.99) > fl.window_half_width(0.95)
    assert tracy_widom.TracyWidom().cdf(0.0) == pytest.approx(0.8319, abs=1e-3)  # below this level the quantile is negative
    for level in (0.5, 0.8):
        with pytest.raises(ValueError, match="level"):
            fl.window_half_width(level)


def test_outlier_variance_at_gamma_zero_is_the_population_outlier():
    """gamma = 0: no sampling part; the vocabulary part with the population slope kappa (1 - delta / x^2), and the
    threshold sqrt(delta); it matches gamma -> 0."""
    delta, theta, d, mu2 = 0.5, 1.5, 200, 0.3
    v0 = fl.outlier_variance(delta, 0.0, theta, d, kappa=2.0, mu_norm2=mu2)
    x = theta - delta
    slope2 = (theta * 2.0 * (1 - delta / x**2)) ** 2
    assert v0.sampling == 0.0
    assert v0.vocabulary_direction == pytest.approx(slope2 * 2 * delta / (x**2 - delta) / d, rel=1e-12)
    near = fl.outlier_variance(delta, 1e-9, theta, d, kappa=2.0, mu_norm2=mu2)
    assert near.vocabulary == pytest.approx(v0.vocabulary, rel=1e-6) and near.sampling < 1e-6
    with pytest.raises(ValueError, match="threshold"):
        fl.outlier_variance(delta, 0.0, delta + 0.9 * np.sqrt(delta), d)
