"""attnlib.transitions: the independent numerical routes against the closed forms, the phase-diagram regions,
the setting helpers, and the simulations against exact linear algebra and against attnlib.sweep."""

import numpy as np
import pytest
from scipy.integrate import quad

from attnlib import Setting, model, positional as P, sweep, theory as th, transitions as tr

REGIMES = [(0.5, 1.0), (0.5, 0.25), (0.2, 2.0), (2.0, 0.5), (1.0, 1.0)]


# ------------------------------------------------------------------------------------------ numerical routes


@pytest.mark.parametrize("ratio", [0.3, 0.5, 2.0])
def test_mp_stieltjes_against_quadrature(ratio):
    lo, hi = th.mp_edges(ratio)
    atom = max(0.0, 1 - 1 / ratio)
    for z in (hi * 1.01, hi + 1.0, 10.0 * hi):
        G_num = quad(lambda t: th.mp_density(t, ratio) / (z - t), lo, hi, limit=400)[0] + atom / z
        dG_num = -quad(lambda t: th.mp_density(t, ratio) / (z - t) ** 2, lo, hi, limit=400)[0] - atom / z**2
        assert tr.mp_stieltjes(z, ratio) == pytest.approx(G_num, rel=1e-7)
        assert tr.mp_stieltjes(z, ratio, derivative=True) == pytest.approx(dG_num, rel=1e-6)
    z = np.array([hi + 0.5, hi + 2.0])
    assert tr.mp_stieltjes(z, ratio).shape == (2,)


def test_mp_stieltjes_r_transform_inverse():
    """G^{-1}(g) = R(g) + 1/g with R(g) = 1/(1 - delta g): the identity behind the closed-form outlier."""
    delta = 0.5
    for theta in (1.3, 2.0, 5.0):
        ell = 1 / (1 - delta / theta) + theta
        assert tr.mp_stieltjes(ell, delta) == pytest.approx(1 / theta, rel=1e-12)


def test_mp_stieltjes_rejects_points_in_the_bulk():
    with pytest.raises(ValueError, match="z must be"):
        tr.mp_stieltjes(1.0, 0.5)
    with pytest.raises(ValueError, match="ratio"):
        tr.mp_stieltjes(5.0, -1.0)


@pytest.mark.parametrize("delta", [0.1, 0.5, 1.0, 2.5])
def test_population_outlier_numeric_matches_closed_form(delta):
    thr = delta + np.sqrt(delta)
    for theta in (thr * 1.001, thr * 1.2, thr * 3, thr * 20):
        ell, ov = tr.population_outlier_numeric(theta, delta)
        sp = th.spike(theta, delta, 0.5)
        assert ell == pytest.approx(sp.population_eigenvalue, rel=1e-10)
        assert ov == pytest.approx(sp.population_overlap, abs=1e-9)


def test_population_outlier_numeric_below_threshold_raises():
    with pytest.raises(ValueError, match="theta must exceed the population threshold"):
        tr.population_outlier_numeric(1.2, 0.5)  # threshold 1.2071


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_baik_silverstein_matches_closed_forms(delta, gamma):
    x_star = th.critical_x(delta, gamma)[0]
    for kappa in (1.0, 0.3):
        for theta in (delta + 1.1 * x_star, delta + 4 * x_star):
            ell, pop_ov = tr.population_outlier_numeric(theta, delta)
            psi, factor = tr.baik_silverstein(kappa * ell, delta, gamma, kappa)
            sp = th.spike(theta, delta, gamma, kappa)
            assert psi == pytest.approx(sp.sample_eigenvalue, rel=1e-9)
            assert factor * pop_ov == pytest.approx(sp.sample_overlap, abs=1e-6)


def test_baik_silverstein_factor_changes_sign_at_the_sample_threshold():
    delta, gamma = 0.5, 1.0
    theta_pop, theta_smp = th.thresholds(delta, gamma)
    between = (theta_pop + theta_smp) / 2  # population outlier exists, sample one does not
    ell, _ = tr.population_outlier_numeric(between, delta)
    assert tr.baik_silverstein(ell, delta, gamma)[1] < 0
    ell, _ = tr.population_outlier_numeric(theta_smp * 1.05, delta)
    assert tr.baik_silverstein(ell, delta, gamma)[1] > 0


def test_baik_silverstein_classic_limit():
    """delta -> 0: H is a point mass at 1 and psi(l) = l (1 + gamma / (l - 1)), the classic BBP map."""
    gamma, delta = 0.5, 1e-6
    theta = 2.0
    ell, _ = tr.population_outlier_numeric(theta + delta, delta)
    psi, factor = tr.baik_silverstein(ell, delta, gamma)
    assert psi == pytest.approx((1 + theta) * (1 + gamma / theta), rel=1e-4)
    assert factor == pytest.approx((1 - gamma / theta**2) / (1 + gamma / theta), rel=1e-4)


def test_baik_silverstein_rejects_ell_in_bulk():
    with pytest.raises(ValueError, match="ell must lie above the bulk edge"):
        tr.baik_silverstein(2.0, 0.5, 1.0)


# ------------------------------------------------------------------------------------------ regions


def test_regions_codes_and_broadcasting():
    delta = 0.5
    theta_pop, theta_smp = th.thresholds(delta, 1.0)
    codes = tr.regions([theta_pop * 0.99, theta_pop * 1.01, theta_smp * 0.99, theta_smp * 1.01], 1.0, delta)
    np.testing.assert_array_equal(codes, [0, 1, 1, 2])
    assert tr.regions(3.0, 0.1, delta) == 2 and isinstance(tr.regions(3.0, 0.1, delta), int)
    TH, GM = np.meshgrid(np.linspace(0.5, 4, 7), [0.1, 1.0, 5.0])
    grid = tr.regions(TH, GM, delta)
    assert grid.shape == TH.shape
    # larger gamma (fewer samples) can only shrink the detectable region
    assert np.all(np.diff(grid, axis=0) <= 0)
    assert tr.REGION_NAMES[grid.max()] == "detectable"


def test_regions_validation():
    with pytest.raises(ValueError, match="gamma"):
        tr.regions(1.0, 0.0, 0.5)
    with pytest.raises(ValueError, match="theta"):
        tr.regions(-1.0, 1.0, 0.5)


# ------------------------------------------------------------------------------------------ settings

BASE = Setting(d=200, V=400, N=200, mu_norm2=1.0, process=P.prefix(16, 4), weights="mean")


def test_setting_for_theta_hits_theta_and_refuses_below_floor():
    for w in ("mean", "causal", "optimal"):
        b = BASE.replace(weights=w)
        s = tr.setting_for_theta(b, 5.0)
        assert s.theta == pytest.approx(5.0, rel=1e-12)
        assert s.label == b.label and s.d == b.d
    with pytest.raises(ValueError, match="theta must be >="):
        tr.setting_for_theta(BASE.replace(weights="optimal"), 1.0)  # floor 4 * 0.5 = 2
    with pytest.raises(ValueError, match="base must be"):
        tr.setting_for_theta("not a setting", 2.0)


def test_scaled_keeps_ratios():
    s = tr.scaled(BASE.replace(N=100), 333)
    assert s.d == 333 and s.V % 2 == 0
    assert s.delta == pytest.approx(0.5, rel=0.01) and s.gamma == pytest.approx(2.0, rel=0.01)
    with pytest.raises(ValueError, match="d must be"):
        tr.scaled(BASE, 0)


# ------------------------------------------------------------------------------------------ simulations


@pytest.mark.parametrize("centered", [True, False])
def test_population_top_equals_dense_eigendecomposition(centered):
    rng = np.random.default_rng(5)
    s = BASE.replace(d=60, V=120, mu_norm2=0.7, weights="causal")
    voc = model.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
    vals, vecs = tr.population_top(voc, s, 3, centered=centered)
    M = model.population_covariance(voc, s.weights, s.R, centered=centered)
    ref_vals, ref_vecs = np.linalg.eigh(M)
    np.testing.assert_allclose(vals, ref_vals[::-1][:3], rtol=1e-9)
    for j in range(3):
        assert abs(vecs[:, j] @ ref_vecs[:, -1 - j]) == pytest.approx(1.0, abs=1e-7)


def test_pairs_sweep_reproduces_attnlib_sweep():
    """Same streams and draw order as attnlib.sweep; sweep diagonalises in float32, hence rtol 1e-5."""
    settings = [BASE.replace(mu_norm2=m) for m in (0.5, 2.0)]
    ref = sweep(settings, seed=9, trials=2)
    for k in (1, 2):
        ours = tr.pairs_sweep(settings, seed=9, trials=2, k=k)
        np.testing.assert_allclose(ours.eigenvalues[:, :, 0], ref.top, rtol=1e-5)
        for name in ("overlap_u", "overlap_h", "overlap_g"):
            np.testing.assert_allclose(getattr(ours, name)[:, :, 0], getattr(ref, name), atol=1e-5)
    np.testing.assert_allclose(ours.eigenvalues[:, :, 1], ref.second, rtol=1e-5)
    assert ours.level == "sample" and ours.mean("overlap_h", 1).shape == (2,)


def test_uncentered_second_spike_along_g():
    """Uncentered S, mean pooling, T = 16: theta_g = delta T = 8 beats the signal at ||mu||^2 = 1 (theta = 2.6)."""
    s = BASE.replace(d=300, V=600, N=600, mu_norm2=1.0)
    res = tr.pairs_sweep([s], seed=3, trials=2, k=2, centered=False)
    g_theory = s.mean_spike()
    assert res.mean("overlap_g", 0)[0] == pytest.approx(g_theory.sample_overlap, abs=0.08)
    assert res.mean("eigenvalues", 0)[0] == pytest.approx(g_theory.sample_eigenvalue, rel=0.1)
    assert res.mean("overlap_h", 1)[0] == pytest.approx(s.signal_h().sample_overlap, abs=0.12)


def test_population_sweep_against_theory():
    """d = 300, 4 vocabularies: per-vocabulary sd of the overlap with h ~ 0.02 far from threshold."""
    s = BASE.replace(d=300, V=600, process=P.independent(16), mu_norm2=2.0)  # theta = 2.5, x = 2.0
    res = tr.population_sweep([s], seed=4, trials=4)
    sp = s.signal_h()
    assert res.mean("eigenvalues")[0] == pytest.approx(sp.population_eigenvalue, rel=0.05)
    assert res.mean("overlap_h")[0] == pytest.approx(sp.population_overlap, abs=0.05)
    assert res.mean("overlap_u")[0] == pytest.approx(s.signal().population_overlap, abs=0.05)
    assert res.level == "population"


def test_pair_sweep_statistics_need_two_trials():
    res = tr.population_sweep([BASE.replace(d=50, V=100)], seed=1, trials=1)
    with pytest.raises(ValueError, match="at least 2 trials"):
        res.sd("overlap_h")


def test_finite_size_scan_structure_and_validation():
    b = BASE.replace(mu_norm2=2.0)
    scan = tr.finite_size_scan(b, (40, 80), (3, 2), seed=2, level="population")
    mean, sd, n = scan.stat("overlap_h")
    assert scan.ds == (40, 80) and mean.shape == (2,) and list(n) == [3, 2]
    assert [r.settings[0].d for r in scan.results] == [40, 80]
    one = tr.finite_size_scan(b, (40,), 1, seed=2)
    assert np.isnan(one.stat("overlap_h")[1][0])
    with pytest.raises(ValueError, match="trials must be one int or one per d"):
        tr.finite_size_scan(b, (40, 80, 120), (3, 2), seed=2)
    with pytest.raises(ValueError, match="level must be"):
        tr.finite_size_scan(b, (40,), 2, seed=2, level="both")


def test_sweep_argument_validation():
    with pytest.raises(ValueError, match="settings must be"):
        tr.pairs_sweep([], seed=1, trials=1)
    with pytest.raises(ValueError, match="trials must be"):
        tr.population_sweep([BASE], seed=1, trials=0)
    with pytest.raises(ValueError, match="vocab must be"):
        tr.population_top("x", BASE)
