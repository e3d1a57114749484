"""Theory: the bulk law and the spike formulas against exact identities, known limits and an independent solver."""

import numpy as np
import pytest
from scipy.integrate import quad

from attnlib import theory as th

REGIMES = [(0.5, 0.25), (0.2, 0.8), (2.0, 0.5), (0.5, 3.0), (3.0, 2.0), (1.0, 0.5)]


def _integrate(f, delta, gamma):
    """Integral of f(x) * density over the support by adaptive quadrature (copes with the x^(-1/2) hard edge
    at 0 when delta or gamma equals 1)."""
    lo, hi = th.Bulk(delta, gamma).support
    val, err = quad(lambda x: f(x) * th.Bulk(delta, gamma).density(x), lo, hi, limit=400, epsabs=1e-11, epsrel=1e-10)
    assert err < 1e-7
    return val


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_density_integrates_to_one_minus_atom(delta, gamma):
    mass = _integrate(lambda x: 1.0, delta, gamma)
    assert mass == pytest.approx(1 - th.Bulk(delta, gamma).atom, abs=1e-7)


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_moments_of_density_match_exact_moments(delta, gamma):
    exact = th.Bulk(delta, gamma).moments(4)
    numeric = [_integrate(lambda x: x**k, delta, gamma) for k in range(1, 5)]
    np.testing.assert_allclose(numeric, exact, rtol=1e-7)
    s1, s2, s3 = 1 + delta + gamma, delta + gamma + delta * gamma, delta * gamma
    np.testing.assert_allclose(exact, [1.0, s1, s1**2 + s2, s1**3 + 3 * s1 * s2 + s3], rtol=1e-12)


def test_m2_and_kappa_scaling():
    assert th.Bulk(0.5, 0.25).moments(2)[1] == pytest.approx(1.75)
    m = th.Bulk(0.4, 0.7, 2.5).moments(3)
    np.testing.assert_allclose(m, th.Bulk(0.4, 0.7).moments(3) * 2.5 ** np.arange(1, 4))
    x = np.linspace(0.01, 12, 1000)
    np.testing.assert_allclose(th.Bulk(0.4, 0.7, 2.5).density(x), th.Bulk(0.4, 0.7).density(x / 2.5) / 2.5)


@pytest.mark.parametrize("delta,gamma", REGIMES + [(1.0, 1.0)])
def test_edges_agree_with_support(delta, gamma):
    lo, hi = th.Bulk(delta, gamma).support
    x = np.linspace(max(lo - 0.2, 1e-9), hi + 0.2, 200_001)
    support = x[th.Bulk(delta, gamma).density(x) > 0]
    step = x[1] - x[0]
    assert support.min() == pytest.approx(lo, abs=2 * step)
    assert support.max() == pytest.approx(hi, abs=2 * step)


def test_known_edges_from_notes():
    lo, hi = th.Bulk(0.5, 0.25).support
    assert (round(lo, 4), round(hi, 4)) == (0.0559, 3.7467)
    assert th.Bulk(1.0, 1.0).lower == pytest.approx(0.0, abs=1e-12)  # hard edge when delta = gamma = 1


def test_density_against_independent_root_finder():
    """Cardano on the monic cubic vs numpy.roots on the original cubic in psi, point by point."""
    delta, gamma = 0.7, 0.3
    lo, hi = th.Bulk(delta, gamma).support
    s1, s2, s3 = 1 + delta + gamma, delta + gamma + delta * gamma, delta * gamma
    for z in np.linspace(lo, hi, 23)[1:-1]:
        roots = np.roots([s3, s2, s1 - z, 1.0])  # s3 psi^3 + s2 psi^2 + (s1 - z) psi + 1 = 0
        ref = np.max(np.abs(roots.imag)) / (np.pi * z)  # -Im G / pi = |Im psi| / (pi z)
        assert th.Bulk(delta, gamma).density(z) == pytest.approx(ref, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.5])
def test_mp_density_mass_and_mean(ratio):
    lo, hi = th.MarchenkoPastur(ratio, 2.0).support
    mass, _ = quad(lambda x: th.MarchenkoPastur(ratio, 2.0).density(x), lo, hi, limit=400)
    mean, _ = quad(lambda x: x * th.MarchenkoPastur(ratio, 2.0).density(x), lo, hi, limit=400)
    assert mass == pytest.approx(1 - max(0.0, 1 - 1 / ratio), abs=1e-7)
    assert mean == pytest.approx(2.0, abs=1e-6)


def test_delta_to_zero_gives_marchenko_pastur():
    gamma, delta = 0.4, 1e-9
    a, b = (1 - np.sqrt(gamma)) ** 2, (1 + np.sqrt(gamma)) ** 2
    x = np.linspace(a + 1e-3, b - 1e-3, 500)
    mp = np.sqrt((b - x) * (x - a)) / (2 * np.pi * gamma * x)
    np.testing.assert_allclose(th.MarchenkoPastur(gamma).density(x), mp, rtol=1e-12)
    np.testing.assert_allclose(th.Bulk(delta, gamma).density(x), mp, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(th.Bulk(delta, gamma).support, (a, b), atol=1e-6)
    # symmetric roles: gamma -> 0 gives MP_delta
    np.testing.assert_allclose(th.Bulk(gamma, delta).density(x), mp, rtol=1e-5, atol=1e-7)


def test_delta_to_zero_gives_classic_bbp():
    gamma = 0.5
    theta = np.array([0.3, 0.8, 1.5, 3.0])
    sp = th.spike(1e-12, gamma, theta=theta)
    classic_detect = theta > np.sqrt(gamma)
    np.testing.assert_array_equal(sp.sample_detectable, classic_detect)
    t = theta[classic_detect]
    np.testing.assert_allclose(sp.sample_eigenvalue[classic_detect], (1 + t) * (1 + gamma / t), rtol=1e-9)
    np.testing.assert_allclose(sp.sample_overlap[classic_detect], (1 - gamma / t**2) / (1 + gamma / t), rtol=1e-9)
    assert th.thresholds(1e-12, gamma)[1] == pytest.approx(np.sqrt(gamma), abs=1e-6)


def test_gamma_to_zero_sample_equals_population():
    delta = 0.6
    theta = np.array([1.5, 2.0, 4.0])
    sp = th.spike(delta, 1e-12, theta=theta)
    np.testing.assert_allclose(sp.sample_eigenvalue, sp.population_eigenvalue, rtol=1e-9)
    np.testing.assert_allclose(sp.sample_overlap, sp.population_overlap, rtol=1e-9)
    assert th.thresholds(delta, 1e-12)[1] == pytest.approx(delta + np.sqrt(delta), rel=1e-6)


def test_population_spike_matches_finite_rank_perturbation_formula():
    """Additive spike on MP_delta: G(l) = 1/theta with G the MP_delta Stieltjes transform (independent check)."""
    delta = 0.5
    a, b = (1 - np.sqrt(delta)) ** 2, (1 + np.sqrt(delta)) ** 2
    x = np.linspace(a, b, 400_001)
    mp = np.sqrt(np.clip((b - x) * (x - a), 0, None)) / (2 * np.pi * delta * x)
    for theta in [1.6, 2.5, 4.0]:
        sp = th.spike(delta, 0.3, theta=theta)
        ell = sp.population_eigenvalue
        G = np.trapezoid(mp / (ell - x), x)
        dG = np.trapezoid(mp / (ell - x) ** 2, x)
        assert G == pytest.approx(1 / theta, rel=1e-4)
        assert sp.population_overlap == pytest.approx(1 / (theta**2 * dG), rel=1e-3)


def test_rectangular_spiked_model_threshold():
    """R = I (alpha = kappa): the population threshold is ||mu||^2 > sqrt(delta), the rectangular BBP."""
    delta = 0.49
    crit = np.sqrt(delta)
    below = th.signal(delta, 0.1, alpha=1.0, kappa=1.0, mu_norm2=crit * 0.999)
    above = th.signal(delta, 0.1, alpha=1.0, kappa=1.0, mu_norm2=crit * 1.001)
    assert np.isnan(below.population_eigenvalue) and np.isfinite(above.population_eigenvalue)


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_sample_threshold_puts_outlier_at_upper_edge(delta, gamma):
    theta_pop, theta_smp = th.thresholds(delta, gamma)
    assert theta_smp > theta_pop
    x_star = theta_smp - delta
    assert x_star**3 - (gamma + delta + gamma * delta) * x_star - 2 * gamma * delta == pytest.approx(0, abs=1e-12)
    upper = th.Bulk(delta, gamma, 1.7).upper
    just_above = th.spike(delta, gamma, theta=theta_smp * (1 + 1e-7), kappa=1.7)
    assert just_above.sample_eigenvalue == pytest.approx(upper, rel=1e-6)
    assert just_above.sample_overlap == pytest.approx(0, abs=1e-5)
    assert not th.spike(delta, gamma, theta=theta_smp * (1 - 1e-7)).sample_detectable
    # outlier increases with theta and stays above the edge
    sp = th.spike(delta, gamma, theta=np.linspace(theta_smp * 1.001, 10 * theta_smp, 50))
    assert np.all(np.diff(sp.sample_eigenvalue) > 0) and np.all(sp.sample_eigenvalue > upper / 1.7)


def test_spike_below_thresholds_gives_nan_and_zero():
    sp = th.spike(0.5, 0.25, theta=0.5)
    assert np.isnan(sp.population_eigenvalue) and np.isnan(sp.sample_eigenvalue)
    assert sp.population_overlap == 0.0 and sp.sample_overlap == 0.0
    theta_pop, theta_smp = th.thresholds(0.5, 0.25)
    mid = th.spike(0.5, 0.25, theta=(theta_pop + theta_smp) / 2)  # population outlier only
    assert np.isfinite(mid.population_eigenvalue) and np.isnan(mid.sample_eigenvalue)
    assert mid.population_overlap > 0 and mid.sample_overlap == 0.0


def test_signal_theta_and_u_overlap_factor():
    delta, gamma, alpha, kappa, mu2 = 0.5, 0.25, 0.2, 0.0625, 1.0
    sig = th.signal(delta, gamma, alpha, kappa, mu2)
    assert sig.theta == pytest.approx(alpha * (mu2 + delta) / kappa)
    raw = th.spike(delta, gamma, theta=sig.theta, kappa=kappa)
    assert sig.sample_overlap == pytest.approx(raw.sample_overlap * mu2 / (mu2 + delta))
    assert sig.sample_eigenvalue == pytest.approx(raw.sample_eigenvalue)


def test_checked_numbers_from_notes():
    """Theory column of the table in shared/notes (d=600, V=1200, N=2400, Markov r=0.6, T=16)."""
    from attnlib import Setting
    from attnlib.model import positional

    s = Setting(d=600, V=1200, N=2400, mu_norm2=1.0, process=positional.markov(16, 0.6), weights="mean")
    assert round(s.theta, 2) == 5.30
    assert round(s.signal().sample_eigenvalue, 4) == 0.4209
    assert round(s.signal_h().sample_overlap, 3) == 0.912
    assert round(s.signal().sample_overlap, 3) == 0.608
    s03 = s.replace(mu_norm2=0.3)
    assert s03.rho < th.thresholds(s03.delta, s03.gamma)[0] < s03.theta  # rho says no outlier, theta says one


def test_density_is_vectorised_finite_and_nonnegative():
    """One call over 100,000 points: the shape of its input, finite, non-negative, equal to the scalar calls at
    points inside, outside and at the edges of the support, and a 0-d result for a scalar (no speed asserted:
    timings are measured in bench/)."""
    x = np.linspace(0, 4, 100_000)
    out = th.Bulk(0.5, 0.25).density(x)
    assert out.shape == x.shape and np.all(np.isfinite(out)) and np.all(out >= 0)
    lo, hi = th.Bulk(0.5, 0.25).support
    assert out[(x > lo * 1.01) & (x < hi * 0.99)].min() > 0 and np.all(out[x > hi * 1.001] == 0)
    idx = np.r_[0, np.searchsorted(x, [lo, 0.5 * (lo + hi), hi]), 77_777, len(x) - 1]
    scalar = [th.Bulk(0.5, 0.25).density(float(v)) for v in x[idx]]
    np.testing.assert_allclose(out[idx], scalar, rtol=1e-12, atol=0)
    assert np.ndim(th.Bulk(0.5, 0.25).density(1.0)) == 0