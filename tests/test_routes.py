"""attnlib.theory: the independent numerical routes against the closed forms, and the phase-diagram regions."""

import numpy as np
import pytest
from scipy.integrate import quad

from attnlib import theory as th

REGIMES = [(0.5, 1.0), (0.5, 0.25), (0.2, 2.0), (2.0, 0.5), (1.0, 1.0)]


# ------------------------------------------------------------------------------------------ numerical routes


@pytest.mark.parametrize("ratio", [0.3, 0.5, 2.0])
def test_mp_stieltjes_against_quadrature(ratio):
    lo, hi = th.MarchenkoPastur(ratio).support
    atom = max(0.0, 1 - 1 / ratio)
    for z in (hi * 1.01, hi + 1.0, 10.0 * hi):
        G_num = quad(lambda t: th.MarchenkoPastur(ratio).density(t) / (z - t), lo, hi, limit=400)[0] + atom / z
        dG_num = -quad(lambda t: th.MarchenkoPastur(ratio).density(t) / (z - t) ** 2, lo, hi, limit=400)[0] - atom / z**2
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
        ell, ov = th.population_outlier_numeric(delta, theta=theta)
        sp = th.spike(delta, 0.5, theta=theta)
        assert ell == pytest.approx(sp.population_eigenvalue, rel=1e-10)
        assert ov == pytest.approx(sp.population_overlap, abs=1e-9)


def test_population_outlier_numeric_below_threshold_raises():
    with pytest.raises(ValueError, match="theta must exceed the population threshold"):
        th.population_outlier_numeric(0.5, theta=1.2)  # threshold 1.2071


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_baik_silverstein_matches_closed_forms(delta, gamma):
    x_star = th.critical_x(delta, gamma)[0]
    for kappa in (1.0, 0.3):
        for theta in (delta + 1.1 * x_star, delta + 4 * x_star):
            ell, pop_ov = th.population_outlier_numeric(delta, theta=theta)
            psi, factor = th.baik_silverstein(delta, gamma, ell=kappa * ell, kappa=kappa)
            sp = th.spike(delta, gamma, theta=theta, kappa=kappa)
            assert psi == pytest.approx(sp.sample_eigenvalue, rel=1e-9)
            assert factor * pop_ov == pytest.approx(sp.sample_overlap, abs=1e-6)


def test_baik_silverstein_factor_changes_sign_at_the_sample_threshold():
    delta, gamma = 0.5, 1.0
    theta_pop, theta_smp = th.thresholds(delta, gamma)
    between = (theta_pop + theta_smp) / 2  # population outlier exists, sample one does not
    ell, _ = th.population_outlier_numeric(delta, theta=between)
    assert th.baik_silverstein(delta, gamma, ell=ell)[1] < 0
    ell, _ = th.population_outlier_numeric(delta, theta=theta_smp * 1.05)
    assert th.baik_silverstein(delta, gamma, ell=ell)[1] > 0


def test_baik_silverstein_classic_limit():
    """delta -> 0: H is a point mass at 1 and psi(l) = l (1 + gamma / (l - 1)), the classic BBP map."""
    gamma, delta = 0.5, 1e-6
    theta = 2.0
    ell, _ = th.population_outlier_numeric(delta, theta=theta + delta)
    psi, factor = th.baik_silverstein(delta, gamma, ell=ell)
    assert psi == pytest.approx((1 + theta) * (1 + gamma / theta), rel=1e-4)
    assert factor == pytest.approx((1 - gamma / theta**2) / (1 + gamma / theta), rel=1e-4)


def test_baik_silverstein_rejects_ell_in_bulk():
    with pytest.raises(ValueError, match="ell must lie above the bulk edge"):
        th.baik_silverstein(0.5, 1.0, ell=2.0)


# ------------------------------------------------------------------------------------------ regions


def test_regions_codes_and_broadcasting():
    delta = 0.5
    theta_pop, theta_smp = th.thresholds(delta, 1.0)
    codes = th.regions(delta, 1.0, theta=[theta_pop * 0.99, theta_pop * 1.01, theta_smp * 0.99, theta_smp * 1.01])
    np.testing.assert_array_equal(codes, [0, 1, 1, 2])
    assert th.regions(0.1, delta, theta=3.0) == 2 and isinstance(th.regions(0.1, delta, theta=3.0), int)
    TH, GM = np.meshgrid(np.linspace(0.5, 4, 7), [0.1, 1.0, 5.0])
    grid = th.regions(delta, GM, theta=TH)
    assert grid.shape == TH.shape
    # larger gamma (fewer samples) can only shrink the detectable region
    assert np.all(np.diff(grid, axis=0) <= 0)
    assert th.REGIONS[grid.max()] == "detectable"


def test_regions_validation():
    with pytest.raises(ValueError, match="gamma"):
        th.regions(0.5, 0.0, theta=1.0)
    with pytest.raises(ValueError, match="theta"):
        th.regions(0.5, 1.0, theta=-1.0)




@pytest.mark.parametrize("ratio", [0.1, 0.5, 1.0, 2.0])
def test_mp_stieltjes_complex_is_the_transform_of_the_law(ratio):
    """Off the axis: the integral of the density (quadrature) plus the atom; on the axis: the density as
    -Im G(lambda + i0)/pi inside the support, a real value outside it, mp_stieltjes above it."""
    lo, hi = th.MarchenkoPastur(ratio).support
    atom = max(0.0, 1 - 1 / ratio)
    for zeta in (0.5 + 0.3j, hi + 0.1j, -1.0 + 2.0j, 1.0 - 0.05j):
        parts = [quad(lambda t, f=f: f(th.MarchenkoPastur(ratio).density(t) / (zeta - t)), lo, hi, limit=400)[0]
                 for f in (np.real, np.imag)]
        assert th.mp_stieltjes_complex(zeta, ratio) == pytest.approx(complex(*parts) + atom / zeta, rel=1e-7)
    inside = lo + (hi - lo) * np.linspace(0.01, 0.99, 50)
    G = th.mp_stieltjes_complex(inside, ratio)
    assert np.allclose(-G.imag / np.pi, th.MarchenkoPastur(ratio).density(inside), rtol=1e-12, atol=0)
    outside = np.array([-3.0, -0.2, 0.5 * lo, hi * 1.001, 5 * hi])[[lo > 0] * 3 + [True, True]]
    assert np.all(th.mp_stieltjes_complex(outside, ratio).imag == 0)
    above = np.array([hi * 1.01, hi + 2.0])
    assert np.allclose(th.mp_stieltjes_complex(above, ratio).real, th.mp_stieltjes(above, ratio), rtol=1e-14)
    # the root of c zeta G^2 - (zeta + c - 1) G + 1 = 0 that behaves like 1/zeta; G(conj zeta) = conj G(zeta)
    z = np.array([0.3 + 0.2j, 4.0 + 1.0j, 50.0 + 1.0j])
    G = th.mp_stieltjes_complex(z, ratio)
    assert np.allclose(ratio * z * G**2 - (z + ratio - 1) * G + 1, 0, atol=1e-12)
    assert np.allclose(th.mp_stieltjes_complex(z.conj(), ratio), G.conj(), rtol=1e-14)
    assert abs(1e4 * th.mp_stieltjes_complex(1e4 + 1j, ratio) - 1) < 1e-3


def test_mp_stieltjes_complex_rejects_bad_input():
    with pytest.raises(ValueError, match="zeta"):
        th.mp_stieltjes_complex(0.0, 0.5)
    with pytest.raises(ValueError, match="zeta"):
        th.mp_stieltjes_complex(np.array([1.0, np.nan]), 0.5)
    with pytest.raises(ValueError, match="ratio"):
        th.mp_stieltjes_complex(1.0 + 1j, 0.0)
