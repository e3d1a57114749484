"""The Monte-Carlo engine (attnlib.engine.montecarlo) and the Setting helpers it uses: the sample and population
levels against exact linear algebra and theory, the streams, finite-size scans and validation."""

import numpy as np
import pytest

from attnlib import Setting, simulate, sweep
from attnlib.model import generative, positional as P
from attnlib.engine import montecarlo
from attnlib.engine.simulation import population_top

# ------------------------------------------------------------------------------------------ settings

BASE = Setting(d=200, V=400, N=200, mu_norm2=1.0, process=P.prefix(16, 4), weights="mean")


def test_setting_for_theta_hits_theta_and_refuses_below_floor():
    for w in ("mean", "causal", "optimal"):
        b = BASE.replace(weights=w)
        s = b.with_theta(5.0)
        assert s.theta == pytest.approx(5.0, rel=1e-12)
        assert s.label == b.label and s.d == b.d
    with pytest.raises(ValueError, match="theta must be >="):
        BASE.replace(weights="optimal").with_theta(1.0)  # floor 4 * 0.5 = 2


def test_scaled_keeps_ratios():
    s = BASE.replace(N=100).at_dimension(333)
    assert s.d == 333 and s.V % 2 == 0
    assert s.delta == pytest.approx(0.5, rel=0.01) and s.gamma == pytest.approx(2.0, rel=0.01)
    with pytest.raises(ValueError, match="d must be"):
        BASE.at_dimension(0)


# ------------------------------------------------------------------------------------------ simulations


@pytest.mark.parametrize("centered", [True, False])
def test_population_top_equals_dense_eigendecomposition(centered):
    rng = np.random.default_rng(5)
    s = BASE.replace(d=60, V=120, mu_norm2=0.7, weights="causal")
    voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
    vals, vecs = population_top(voc, s, 3, centered=centered)
    M = generative.population_covariance(voc, s.weights, s.R, centered=centered)
    ref_vals, ref_vecs = np.linalg.eigh(M)
    np.testing.assert_allclose(vals, ref_vals[::-1][:3], rtol=1e-9)
    for j in range(3):
        assert abs(vecs[:, j] @ ref_vecs[:, -1 - j]) == pytest.approx(1.0, abs=1e-7)


def test_stream_gives_the_draw_of_simulate():
    """Trial j of setting i is simulate(setting, default_rng(streams(seed, S * trials)[i * trials + j]))."""
    settings = [BASE.replace(mu_norm2=m) for m in (0.5, 2.0)]
    res = sweep(settings, seed=9, trials=2, k=2)
    seqs = montecarlo.streams(9, 4)
    for i, s in enumerate(settings):
        for j in range(2):
            dr = simulate(s, np.random.default_rng(seqs[i * 2 + j]), k=2)
            np.testing.assert_array_equal(res.eigenvalues[i, j], dr.top_eigenvalues)
            assert res.overlap_h[i, j, 0] == dr.overlap_h and res.overlap_u[i, j, 0] == dr.overlap_u
    assert res.level == "sample" and res.mean("overlap_h", 1).shape == (2,)
    np.testing.assert_array_equal(res.top, res.eigenvalues[:, :, 0])
    np.testing.assert_array_equal(res.second, res.values("eigenvalues", 1))


def test_sample_level_single_precision_agrees_with_double():
    """k = 1..2 run Lanczos in float32; the spectrum path runs in float64 on the same draws."""
    s = BASE.replace(mu_norm2=2.0)
    single = sweep([s], seed=5, trials=2, k=2)
    double = sweep([s], seed=5, trials=2, k=2, spectrum="exact")
    np.testing.assert_allclose(single.eigenvalues, double.eigenvalues, rtol=1e-5)
    np.testing.assert_allclose(single.overlap_h, double.overlap_h, atol=1e-5)
    np.testing.assert_allclose(double.spectra[:, :, :2], double.eigenvalues, rtol=1e-9)
    assert double.spectra.shape == (1, 2, s.d)


def test_uncentered_second_spike_along_g():
    """Uncentered S, mean pooling, T = 16: theta_g = delta T = 8 beats the signal at ||mu||^2 = 1 (theta = 2.6)."""
    s = BASE.replace(d=300, V=600, N=600, mu_norm2=1.0)
    res = sweep([s], seed=3, trials=2, k=2, centered=False)
    g_theory = s.mean_spike()
    assert res.mean("overlap_g", 0)[0] == pytest.approx(g_theory.sample_overlap, abs=0.08)
    assert res.mean("eigenvalues", 0)[0] == pytest.approx(g_theory.sample_eigenvalue, rel=0.1)
    assert res.mean("overlap_h", 1)[0] == pytest.approx(s.signal_h().sample_overlap, abs=0.12)


def test_population_sweep_against_theory():
    """d = 300, 4 vocabularies: per-vocabulary sd of the overlap with h ~ 0.02 far from threshold."""
    s = BASE.replace(d=300, V=600, process=P.independent(16), mu_norm2=2.0)  # theta = 2.5, x = 2.0
    res = sweep([s], seed=4, trials=4, k=1, level="population")
    sp = s.signal_h()
    assert res.mean("eigenvalues")[0] == pytest.approx(sp.population_eigenvalue, rel=0.05)
    assert res.mean("overlap_h")[0] == pytest.approx(sp.population_overlap, abs=0.05)
    assert res.mean("overlap_u")[0] == pytest.approx(s.signal().population_overlap, abs=0.05)
    assert res.level == "population"


def test_pair_sweep_statistics_need_two_trials():
    res = sweep([BASE.replace(d=50, V=100)], seed=1, trials=1, level="population")
    with pytest.raises(ValueError, match="at least 2 trials"):
        res.sd("overlap_h")


def test_finite_size_scan_structure_and_validation():
    b = BASE.replace(mu_norm2=2.0)
    scan = montecarlo.finite_size_scan(b, (40, 80), (3, 2), seed=2, level="population")
    mean, sd, n = scan.stat("overlap_h")
    assert scan.ds == (40, 80) and mean.shape == (2,) and list(n) == [3, 2]
    assert [r.settings[0].d for r in scan.results] == [40, 80]
    one = montecarlo.finite_size_scan(b, (40,), 1, seed=2)
    assert np.isnan(one.stat("overlap_h")[1][0])
    with pytest.raises(ValueError, match="trials must be one int or one per d"):
        montecarlo.finite_size_scan(b, (40, 80, 120), (3, 2), seed=2)
    with pytest.raises(ValueError, match="level must be"):
        montecarlo.finite_size_scan(b, (40,), 2, seed=2, level="both")


def test_sweep_argument_validation():
    with pytest.raises(ValueError, match="settings must be"):
        sweep([], seed=1, trials=1)
    with pytest.raises(ValueError, match="trials must be"):
        sweep([BASE], seed=1, trials=0, level="population")
    with pytest.raises(ValueError, match="level must be"):
        sweep([BASE], seed=1, trials=1, level="both")
    with pytest.raises(ValueError, match="spectrum must be"):
        sweep([BASE], seed=1, trials=1, spectrum="slow")
    with pytest.raises(ValueError, match="one dimension"):
        sweep([BASE, BASE.at_dimension(100)], seed=1, trials=1, spectrum="exact")
    with pytest.raises(ValueError, match="executor must be"):
        sweep([BASE], seed=1, trials=1, executor="threads")
    with pytest.raises(ValueError, match="j must be"):
        sweep([BASE.replace(d=50, V=100)], seed=1, trials=2, k=1).mean("overlap_h", 1)
    with pytest.raises(ValueError, match="vocab must be"):
        population_top("x", BASE)
