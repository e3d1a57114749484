"""Monte-Carlo against theory at moderate size (d = 600), with tolerances from the measured spread.

Spread measured over 200 draws of each setting below (d = 600, V = 1200, N = 2400, T = 16, Markov r = 0.6;
seeds 1000 + 10 ||mu||^2 + len(weights)): per-draw standard deviation of the top eigenvalue 3.5-4.4 % of its
value, of the overlap with h 0.0035-0.033 (largest near threshold, ||mu||^2 = 0.3), of the overlap with u
0.013-0.032 (``SPREAD`` below, case by case). The 200-draw means were within 1.4 standard errors of theory, so
the finite-size bias at d = 600 is below the noise. Each check allows Z = 3 standard errors of its own mean,
and each case has enough draws that the plausible wrong formula lies more than 2Z standard errors from theory
(the test asserts that it falls outside the band):

* the sample outlier placed at the population outlier (sampling ignored): 2.8-9.7 % below the sample outlier,
  1.1-2.6 per-draw standard deviations;
* the one-stage overlap with h (the sampling factor alone, as if the population eigenvector were h): 0.0065-0.075
  above, 1.9-2.4 per-draw standard deviations;
* the overlap with u taken equal to the overlap with h (no centroid factor): 0.16-0.46 above.

The case ||mu||^2 = 2 with optimal weights, whose two outliers are closest (2.8 %, 0.74 sd), needs the most
draws (66); at 0.03 s of CPU a draw, the five cases take about 5 s.
"""

import numpy as np
import pytest

from attnlib import Setting, simulate, theory
from attnlib.numerics import linalg
from attnlib.model import generative, pooling, positional as P

BASE = Setting(d=600, V=1200, N=2400, mu_norm2=1.0, process=P.markov(16, 0.6), weights="mean")
Z = 3.0  # standard errors allowed
# (||mu||^2, weights, draws, per-draw sd of (top / theory, overlap with h, overlap with u)), sd over 200 draws
CASES = [
    (0.3, "mean", 8, (0.0374, 0.0334, 0.0321)),
    (1.0, "mean", 28, (0.0437, 0.0096, 0.0220)),
    (1.0, "optimal", 24, (0.0377, 0.0084, 0.0209)),
    (2.0, "optimal", 66, (0.0378, 0.0035, 0.0126)),
    (1.0, "causal", 12, (0.0345, 0.0133, 0.0258)),
]


def _draws(setting, n, seed, **kw):
    rng = np.random.default_rng(seed)
    return [simulate(setting, rng, **kw) for _ in range(n)]


def _in_band_and_wrong_outside(name, measured, right, wrong, band):
    assert abs(measured - right) < band, f"{name}: {measured:.4f} vs theory {right:.4f}, band {band:.4f}"
    assert abs(measured - wrong) > band, f"{name}: the wrong value {wrong:.4f} would pass (band {band:.4f})"


@pytest.mark.parametrize("mu_norm2,weights,draws,spread", CASES)
def test_outlier_and_overlaps_match_theory(mu_norm2, weights, draws, spread):
    s = BASE.replace(mu_norm2=mu_norm2, weights=weights)
    sample = _draws(s, draws, seed=int(mu_norm2 * 10) + len(weights))
    sg, sh = s.signal(), s.signal_h()
    sd_top, sd_h, sd_u = np.array(spread) / np.sqrt(draws)
    _in_band_and_wrong_outside("top eigenvalue", np.mean([d.top for d in sample]), sg.sample_eigenvalue,
                               sg.population_eigenvalue, Z * sd_top * sg.sample_eigenvalue)
    _in_band_and_wrong_outside("overlap with h", np.mean([d.overlap_h for d in sample]), sh.sample_overlap,
                               sh.sample_overlap / sh.population_overlap, Z * sd_h)
    _in_band_and_wrong_outside("overlap with u", np.mean([d.overlap_u for d in sample]), sg.sample_overlap,
                               sh.sample_overlap, Z * sd_u)
    assert np.mean([d.top for d in sample]) > s.bulk.upper


def test_seed_rho_mispredicts_and_theta_is_right():
    """||mu||^2 = 0.3, mean pooling: rho < delta + sqrt(delta) ('no outlier') yet an outlier is seen."""
    s = BASE.replace(mu_norm2=0.3)
    assert s.rho < theory.thresholds(s.delta, s.gamma)[0]
    tops = [d.top for d in _draws(s, 4, seed=11)]
    edge = s.bulk.upper
    # theory puts the outlier 19 % above the edge; the per-draw sd near threshold is ~ 4 % (0.010), so the mean
    # of 4 draws (se ~ 0.005) must clear the edge by 10 %, while the bulk's largest eigenvalue would sit within
    # ~ 1 % of the edge (Tracy-Widom scale d^(-2/3))
    assert np.mean(tops) > 1.10 * edge


def test_below_sample_threshold_no_outlier():
    s = BASE.replace(mu_norm2=0.02, process=P.independent(16))
    theta_pop, theta_smp = s.thresholds()
    assert s.theta < theta_smp
    draws = _draws(s, 6, seed=5)
    edge = s.bulk.upper
    # measured over 60 draws: top / edge has mean 0.989 (the Tracy-Widom mean shift at d = 600) and sd 0.0115,
    # so the mean of 6 has se 0.0047; 0.03 holds the shift plus 4 se (an outlier sits >= 10 % above the edge)
    assert np.mean([d.top for d in draws]) == pytest.approx(edge, rel=0.03)
    for d in draws:
        assert d.overlap_u < 0.05


def test_uncentered_mean_spike():
    """Uncentered S: the top outlier is the vocabulary-mean spike (theta_g = delta T for mean pooling).

    Spread over 100 draws (seed 2000): per-draw sd of the top eigenvalue 0.031, of its overlap with g 0.013
    (mean 0.0065 below the limit: a finite-d bias of 4.9 standard errors, added to the band), of the second
    eigenvalue 0.016. With 24 draws and Z = 3 standard errors, the second eigenvalue (the signal outlier)
    rejects the population outlier (5 % lower); the top one's sample-at-population value (3 % lower) is
    within its band at this number of draws, which the centred test above rejects."""
    s = BASE.replace(mu_norm2=1.0)
    n = 24
    sample = _draws(s, n, seed=8, centered=False, k=2)
    g_spike, sig = s.mean_spike(), s.signal()
    assert g_spike.sample_eigenvalue > sig.sample_eigenvalue
    top = np.mean([d.top for d in sample])
    assert top == pytest.approx(g_spike.sample_eigenvalue, abs=Z * 0.031 / np.sqrt(n))
    assert np.mean([d.overlap_g for d in sample]) == pytest.approx(g_spike.sample_overlap,
                                                                   abs=0.0065 + Z * 0.013 / np.sqrt(n))
    # the second eigenvalue is the signal outlier
    _in_band_and_wrong_outside("second eigenvalue", np.mean([d.eigenvalues[1] for d in sample]),
                               sig.sample_eigenvalue, sig.population_eigenvalue, Z * 0.016 / np.sqrt(n))
    assert np.mean([d.overlap_u for d in sample]) < 0.05  # the top eigenvector misses the signal


def test_histogram_matches_bulk_density():
    """One draw at d = 800 without signal: L1 distance between the eigenvalue histogram (40 bins on the support)
    and the density. Measured L1 ~ 0.03-0.04 for a single draw (bin noise ~ sqrt(bins/d) / 5 plus edge bins)."""
    s = Setting(d=800, V=1600, N=3200, mu_norm2=0.0, process=P.markov(8, 0.3), weights="causal")
    d = simulate(s, np.random.default_rng(9), spectrum="exact")
    lo, hi = s.bulk.support
    bins = np.linspace(lo, hi, 41)
    hist, _ = np.histogram(d.eigenvalues, bins=bins)
    x = np.linspace(lo, hi, 4001)
    dens = theory.Bulk(s.delta, s.gamma, s.kappa).density(x)
    expected = np.array([np.trapezoid(dens[(x >= a) & (x <= b)], x[(x >= a) & (x <= b)]) for a, b in zip(bins[:-1], bins[1:])])
    l1 = np.abs(hist / s.d - expected).sum()
    assert l1 < 0.08
    assert d.eigenvalues[0] == pytest.approx(hi, rel=0.03) and d.eigenvalues[-1] == pytest.approx(lo, rel=0.15)


def test_gram_path_equals_covariance_path():
    rng = np.random.default_rng(10)
    voc = generative.draw_vocabulary(60, 100, 1.0, rng)
    C, _ = pooling.draw_pooled(voc, P.markov(5, 0.5), np.full(5, 0.2), 40, rng)  # N < d: Gram path
    S = np.cov(C, rowvar=False, bias=True)
    np.testing.assert_allclose(linalg.covariance_spectrum(C), np.sort(np.linalg.eigvalsh(S))[::-1].clip(0), atol=1e-12)
    vals, vecs = linalg.covariance_eigenpairs(C, 3)
    np.testing.assert_allclose(vals, np.sort(np.linalg.eigvalsh(S))[::-1][:3], rtol=1e-10)
    np.testing.assert_allclose(S @ vecs, vecs * vals, atol=1e-10)


def test_simulation_is_reproducible():
    a = simulate(BASE, np.random.default_rng(1))
    b = simulate(BASE, np.random.default_rng(1))
    assert a.top == b.top and a.overlap_u == b.overlap_u


def test_sweep_shapes_reproducibility_and_order_independence():
    from attnlib import sweep

    small = Setting(d=80, V=160, N=320, mu_norm2=2.0, process=P.markov(8, 0.5), weights="optimal")
    settings = [small, small.replace(mu_norm2=3.0)]
    a = sweep(settings, seed=3, trials=3)
    b = sweep(settings, seed=3, trials=3)
    c = sweep(settings[:1], seed=3, trials=3)
    assert a.top.shape == (2, 3) and np.all(a.top >= a.second)
    np.testing.assert_array_equal(a.overlap_u, b.overlap_u)
    np.testing.assert_array_equal(a.top[0], c.top[0])
    assert a.mean("overlap_h").shape == (2,) and np.all(a.sem("top") > 0)
    with pytest.raises(ValueError, match="settings"):
        sweep([], seed=1, trials=2)
    with pytest.raises(ValueError, match="trials"):
        sweep(settings, seed=1, trials=0)


def test_setting_replace_re_resolves_named_weights():
    s = Setting(d=40, V=80, N=80, mu_norm2=1.0, process=P.prefix(8, 2), weights="optimal")
    t = s.replace(process=P.prefix(8, 4))
    np.testing.assert_allclose(t.weights, np.r_[np.full(4, 0.25), np.zeros(4)])
    assert t.snr == pytest.approx(4.0)
    c = Setting(d=40, V=80, N=80, mu_norm2=1.0, process=P.markov(6, 0.5), weights="causal", tau=0.0)
    assert c.replace(tau=2.0).label == "causal (tau=2)"
    explicit = s.replace(weights=np.ones(8))
    assert explicit.replace(process=P.markov(8, 0.1)).label == "custom"
    with pytest.raises(ValueError, match="tau"):
        c.replace(tau=float("nan"))
