"""The generalised bulk law and signal spike (attnlib.theory.population): the book's formulas for H = delta_1 on either
side, the token-count solver of attnlib.theory.single_token against the subordination route, derivatives, and the noise- and
token-side spikes against exact population covariances."""

import numpy as np
import pytest

from attnlib.theory import population as G
from attnlib.model import frequencies, generative
from attnlib import theory
from attnlib.model.variants import ModelOptions

ONE = {side: G.Population([1.0], [1.0], side) for side in G.SIDES}


@pytest.mark.parametrize("side", G.SIDES)
@pytest.mark.parametrize("delta,gamma", [(0.5, 0.25), (0.2, 0.8), (0.5, 0.0)])
def test_identity_population_is_the_book_law(side, delta, gamma):
    H = ONE[side]
    x = np.linspace(0.01, 4.0, 200)
    ref = theory.Bulk(delta, gamma).density(x) if gamma else theory.MarchenkoPastur(delta).density(x)
    np.testing.assert_allclose(G.PopulationBulk(delta, gamma, H).density(x), ref, atol=1e-6)
    edges = theory.Bulk(delta, gamma).support if gamma else theory.MarchenkoPastur(delta).support
    assert G.PopulationBulk(delta, gamma, H).upper == pytest.approx(edges[1], rel=1e-10)
    assert G.PopulationBulk(delta, gamma, H).lower == pytest.approx(edges[0], rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("side", G.SIDES)
def test_identity_population_gives_the_book_spike(side):
    delta, gamma, kappa = 0.5, 0.25, 0.0625
    assert np.allclose(np.array(G.critical_snr(delta, gamma, population=ONE[side], mu_norm2=0.3)) * (0.3 + delta),
                       theory.thresholds(delta, gamma), rtol=1e-9)
    for snr, mu2 in [(3.5, 0.3), (2.0, 1.0), (1.0, 0.1)]:
        got = G.population_signal(delta, gamma, snr=snr, population=ONE[side], kappa=kappa, mu_norm2=mu2)
        ref = theory.spike(delta, gamma, theta=snr * (mu2 + delta), kappa=kappa)
        for name in ("population_eigenvalue", "sample_eigenvalue", "population_overlap", "sample_overlap"):
            np.testing.assert_allclose(getattr(got, name), getattr(ref, name), rtol=1e-8)


def test_token_side_population_law_two_routes():
    """At gamma = 0 the token side is solved by attnlib.theory.single_token' solver; the subordination route agrees."""
    H = frequencies.population(frequencies.zipf(200, 0.8))
    z = np.linspace(0.05, 6.0, 60) + 1e-3j
    via_counts = G.PopulationBulk(0.5, 0.0, H).stieltjes(z)
    y = G._subordination(z, H, 0.5, 0.0)
    via_y = -(1 + H.psi(y) / 0.5) / z
    np.testing.assert_allclose(via_counts, via_y, rtol=1e-8)


def test_law_integrates_and_its_derivatives_are_right():
    H = G.Population.from_covariance(np.r_[np.full(40, 3.0), np.full(160, 0.5)])
    law = G.PopulationBulk(0.5, 0.25, H, 2.0)
    assert law.cdf(law.upper) == pytest.approx(1.0) and law.atom == 0
    y = np.array([5.0, 7.0, 12.0])
    law_map = G.PopulationBulk(0.5, 0.25, H).law_map
    z, dz = law_map(y)
    np.testing.assert_allclose(dz, (law_map(y + 1e-6)[0] - law_map(y - 1e-6)[0]) / 2e-6, rtol=1e-6)
    for H_, kw in [(H, dict(mu_weights=[0.0, 1.0])), (ONE["tokens"], dict(mu_norm2=0.7))]:
        F, dF = G.signal_function(0.5, y=y, population=H_, **kw)
        num = (G.signal_function(0.5, y=y + 1e-6, population=H_, **kw)[0]
               - G.signal_function(0.5, y=y - 1e-6, population=H_, **kw)[0]) / 2e-6
        np.testing.assert_allclose(dF, num, rtol=1e-5)
        assert np.all(dF < 0)  # F decreases: one solution of snr F(y) = 1 above the critical point


def _population_top(options, mu_norm2, alpha, kappa, d=400, V=800, seeds=3):
    """Top eigenvalue of the exact population covariance kappa W' + alpha h h^T, and cos^2 with h."""
    out = []
    for seed in range(seeds):
        voc = generative.draw_vocabulary(d, V, mu_norm2, np.random.default_rng(seed), options=options)
        w = np.array([np.sqrt(kappa)])  # one position: kappa = w^2; alpha enters through h below
        parts = generative.population_covariance(voc, w, np.eye(1), parts=True)
        M = kappa * parts["W_prime"] + alpha * np.outer(parts["h"], parts["h"])
        vals, vecs = np.linalg.eigh(M)
        out.append([vals[-1], (vecs[:, -1] @ parts["h"]) ** 2 / (parts["h"] @ parts["h"])])
    return np.mean(out, axis=0)


@pytest.mark.parametrize("where", [0, 1])
def test_noise_side_spike_against_exact_population_covariances(where):
    var = np.r_[np.full(80, 3.0), np.full(320, 0.5)]
    cov = var if where == 1 else var[::-1]  # mu lies along the first coordinate: high (1) or low (0) variance
    H = G.Population.from_covariance(var)
    weights = [1.0, 0.0] if where == 0 else [0.0, 1.0]
    sp = G.population_signal(0.5, 0.25, snr=3.0, population=H, kappa=1.0, mu_norm2=1.0, mu_weights=weights)
    top, overlap = _population_top(ModelOptions(covariance=cov), 1.0, 3.0, 1.0)
    # one-draw fluctuations of the outlier are of relative order d^(-1/2) = 5%; three draws averaged
    assert top == pytest.approx(sp.population_eigenvalue, rel=0.04)
    assert overlap == pytest.approx(sp.population_overlap, abs=0.04)


def test_token_side_spike_against_exact_population_covariances():
    """A two-level frequency profile (one token in ten 11 times as frequent as the others: a fixed H as V grows)."""
    omega = np.tile([5.5] + [0.5] * 9, 40)
    f = omega / omega.sum()
    H = frequencies.population(f)
    sp = G.population_signal(0.5, 0.25, snr=3.0, population=H, kappa=1.0, mu_norm2=0.5)
    naive = theory.spike(0.5, 0.25, theta=3.0 * (0.5 + 0.5 * H.moment(2))).population_eigenvalue
    top, overlap = _population_top(ModelOptions(frequencies=f), 0.5, 3.0, 1.0)
    assert top == pytest.approx(sp.population_eigenvalue, rel=0.04)
    assert overlap == pytest.approx(sp.population_overlap, abs=0.03)
    assert abs(top / naive - 1) > 0.1  # h is not independent of the noise: the uniform-token formula fails


def test_zipf_spike_eigenvalue():
    f = frequencies.zipf(400, 0.8)
    sp = G.population_signal(0.5, 0.25, snr=3.0, population=frequencies.population(f), kappa=1.0, mu_norm2=0.5)
    top, _ = _population_top(ModelOptions(frequencies=f), 0.5, 3.0, 1.0)
    assert top == pytest.approx(sp.population_eigenvalue, rel=0.06)


def test_validation():
    with pytest.raises(ValueError, match="masses summing to 1"):
        G.Population([1.0, 2.0], [0.5, 0.6])
    with pytest.raises(ValueError, match="side"):
        G.Population([1.0], [1.0], "vocabulary")
    with pytest.raises(ValueError, match="Population"):
        G.PopulationBulk(0.5, 0.25, "H").density(1.0)
    with pytest.raises(ValueError, match="mu_weights"):
        G.population_signal(0.5, 0.25, snr=2.0, population=ONE["noise"], mu_weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="Im z > 0"):
        G.PopulationBulk(0.5, 0.25, ONE["noise"]).stieltjes(1.0 + 0j)
    with pytest.raises(ValueError, match="positive definite"):
        G.Population.from_covariance([1.0, 0.0])
    assert isinstance(G.PopulationBulk(0.5, 0.25, ONE["noise"]), theory.SpectralLaw)


def test_critical_mu_norm2_and_overlap_with_mu():
    delta, gamma, snr = 0.5, 0.5, 1.78
    iso = np.array(theory.thresholds(delta, gamma)) / snr - delta
    np.testing.assert_allclose(G.critical_mu_norm2(delta, gamma, snr=snr, population=ONE["noise"]), iso, rtol=1e-9)
    H = G.Population([0.5, 5.5], [0.9, 0.1])
    hi = G.critical_mu_norm2(delta, gamma, snr=3.5, population=H, mu_fractions=[0.0, 1.0])
    lo = G.critical_mu_norm2(delta, gamma, snr=3.5, population=H, mu_fractions=[1.0, 0.0])
    assert hi[1] < lo[1] and hi[0] < hi[1]
    sp = G.population_signal(delta, gamma, snr=3.5, population=H, mu_norm2=hi[1] * 1.001,
                             mu_weights=[0.0, hi[1] * 1.001])
    assert np.isfinite(sp.sample_eigenvalue) and sp.sample_overlap < 0.05  # just above the threshold
    # overlap with mu: the book's u-overlap for H = delta_1, not a product otherwise
    ref = theory.signal(delta, gamma, 3.0, 1.0, 0.4)
    got = G.population_signal(delta, gamma, snr=3.0, population=ONE["tokens"], mu_norm2=0.4, direction="mu")
    assert got.sample_overlap == pytest.approx(ref.sample_overlap, rel=1e-9)
    Hz = frequencies.population(frequencies.zipf(500, 0.8))
    h_ov = G.population_signal(delta, gamma, snr=3.0, population=Hz, mu_norm2=0.3).sample_overlap
    mu_ov = G.population_signal(delta, gamma, snr=3.0, population=Hz, mu_norm2=0.3, direction="mu").sample_overlap
    assert mu_ov < 0.5 * h_ov * 0.3 / (0.3 + delta * Hz.moment(2))
