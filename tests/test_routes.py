"""attnlib.theory: the independent numerical routes against the closed forms, and the phase-diagram regions."""

import numpy as np
import pytest
from scipy.integrate import quad

from attnlib import theory as th

REGIMES = [(0.5, 1.0), (0.5, 0.25), (0.2, 2.0), (2.0, 0.5), (1.0, 1.0)]


# ------------------------------------------------------------------------------------------ numerical routes


@pytest.mark.parametrize("ratio", [0.3, 0.5, 2.0])
def test_mp_stieltjes_against_quadrature(ratio):
    lo, hi = th.mp_edges(ratio)
    atom = max(0.0, 1 - 1 / ratio)
    for z in (hi * 1.01, hi + 1.0, 10.0 * hi):
        G_num = quad(lambda t: th.mp_density(t, ratio) / (z - t), lo, hi, limit=400)[0] + atom / z
        dG_num = -quad(lambda t: th.mp_density(t, ratio) / (z - t) ** 2, lo, hi, limit=400)[0] - atom / z**2
        assert th.mp_stieltjes(z, ratio) == pytest.approx(G_num, rel=1e-7)
        assert th.mp_stieltjes(z, ratio, derivative=True) == pytest.approx(dG_num, rel=1e-6)
    z = np.array([hi + 0.5, hi + 2.0])
    assert th.mp_stieltjes(z, ratio).shape == (2,)


def test_mp_stieltjes_r_transform_inverse():
    """G^{-1}(g) = R(g) + 1/g with R(g) = 1/(1 - delta g): the identity behind the closed-form outlier."""
    delta = 0.5
    for theta in (1.3, 2.0, 5.0):
        ell = 1 / (1 - delta / theta) + theta
        assert th.mp_stieltjes(ell, delta) == pytest.approx(1 / theta, rel=1e-12)


def test_mp_stieltjes_rejects_points_in_the_bulk():
    with pytest.raises(ValueError, match="z must be"):
        th.mp_stieltjes(1.0, 0.5)
    with pytest.raises(ValueError, match="ratio"):
        th.mp_stieltjes(5.0, -1.0)


@pytest.mark.parametrize("delta", [0.1, 0.5, 1.0, 2.5])
def test_population_outlier_numeric_matches_closed_form(delta):
    thr = delta + np.sqrt(delta)
    for theta in (thr * 1.001, thr * 1.2, thr * 3, thr * 20):
        ell, ov = th.population_outlier_numeric(theta, delta)
        sp = th.spike(theta, delta, 0.5)
        assert ell == pytest.approx(sp.population_eigenvalue, rel=1e-10)
        assert ov == pytest.approx(sp.population_overlap, abs=1e-9)


def test_population_outlier_numeric_below_threshold_raises():
    with pytest.raises(ValueError, match="theta must exceed the population threshold"):
        th.population_outlier_numeric(1.2, 0.5)  # threshold 1.2071


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_baik_silverstein_matches_closed_forms(delta, gamma):
    x_star = th.critical_x(delta, gamma)[0]
    for kappa in (1.0, 0.3):
        for theta in (delta + 1.1 * x_star, delta + 4 * x_star):
            ell, pop_ov = th.population_outlier_numeric(theta, delta)
            psi, factor = th.baik_silverstein(kappa * ell, delta, gamma, kappa)
            sp = th.spike(theta, delta, gamma, kappa)
            assert psi == pytest.approx(sp.sample_eigenvalue, rel=1e-9)
            assert factor * pop_ov == pytest.approx(sp.sample_overlap, abs=1e-6)


def test_baik_silverstein_factor_changes_sign_at_the_sample_threshold():
    delta, gamma = 0.5, 1.0
    theta_pop, theta_smp = th.thresholds(delta, gamma)
    between = (theta_pop + theta_smp) / 2  # population outlier exists, sample one does not
    ell, _ = th.population_outlier_numeric(between, delta)
    assert th.baik_silverstein(ell, delta, gamma)[1] < 0
    ell, _ = th.population_outlier_numeric(theta_smp * 1.05, delta)
    assert th.baik_silverstein(ell, delta, gamma)[1] > 0


def test_baik_silverstein_classic_limit():
    """delta -> 0: H is a point mass at 1 and psi(l) = l (1 + gamma / (l - 1)), the classic BBP map."""
    gamma, delta = 0.5, 1e-6
    theta = 2.0
    ell, _ = th.population_outlier_numeric(theta + delta, delta)
    psi, factor = th.baik_silverstein(ell, delta, gamma)
    assert psi == pytest.approx((1 + theta) * (1 + gamma / theta), rel=1e-4)
    assert factor == pytest.approx((1 - gamma / theta**2) / (1 + gamma / theta), rel=1e-4)


def test_baik_silverstein_rejects_ell_in_bulk():
    with pytest.raises(ValueError, match="ell must lie above the bulk edge"):
        th.baik_silverstein(2.0, 0.5, 1.0)


# ------------------------------------------------------------------------------------------ regions


def test_regions_codes_and_broadcasting():
    delta = 0.5
    theta_pop, theta_smp = th.thresholds(delta, 1.0)
    codes = th.regions([theta_pop * 0.99, theta_pop * 1.01, theta_smp * 0.99, theta_smp * 1.01], delta, 1.0)
    np.testing.assert_array_equal(codes, [0, 1, 1, 2])
    assert th.regions(3.0, 0.1, delta) == 2 and isinstance(th.regions(3.0, 0.1, delta), int)
    TH, GM = np.meshgrid(np.linspace(0.5, 4, 7), [0.1, 1.0, 5.0])
    grid = th.regions(TH, delta, GM)
    assert grid.shape == TH.shape
    # larger gamma (fewer samples) can only shrink the detectable region
    assert np.all(np.diff(grid, axis=0) <= 0)
    assert th.REGIONS[grid.max()] == "detectable"


def test_regions_validation():
    with pytest.raises(ValueError, match="gamma"):
        th.regions(1.0, 0.5, 0.0)
    with pytest.raises(ValueError, match="theta"):
        th.regions(-1.0, 0.5, 1.0)


