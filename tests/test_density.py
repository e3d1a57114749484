"""Spectral densities by stochastic Lanczos quadrature (attnlib.engine.slq) against exact eigenvalues.

* With the d coordinate vectors as probes, the quadrature's moments are the exact (1/d) tr S^j (j <= 2m - 1).
* With random probes, the estimate is close to the exact eigenvalues of the same draw (d = 400, 64 probes,
  40 steps). Distribution functions on a fine grid: the probes' noise has sd sqrt(2 F (1 - F) / (d P)) <= 0.0045
  and the exact one is a staircase of steps 1/d = 0.0025 (measured sup distance 0.006-0.011 over six probe
  seeds): the check is 0.02. Binned (10 bins on the law's support, the convention of attnlib.engine.compare.histogram_l1):
  measured L1 0.019-0.027, checked at 0.05. With 50 bins the exact histogram of 400 eigenvalues is itself too
  coarse (about 8 per bin: its L1 to the law is 0.10, the estimate's 0.04-0.05); the benchmark compares 50 bins
  at d = 2000 (bench/results.md).
"""

import numpy as np
import pytest

from attnlib import Setting, simulate, sweep
from attnlib.engine import compare, slq, operators
from attnlib import theory
from attnlib.model import generative, pooling, positional as P

S400 = Setting(d=400, V=800, N=1600, mu_norm2=0.0, process=P.independent(16), weights="mean")


def _operator_and_spectrum(s, seed):
    rng = np.random.default_rng(seed)
    voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
    _, tokens = generative.draw_tokens(s.process, s.V, s.N, rng)
    op = operators.SampleCovariance.from_tokens(voc.table, tokens, s.weights)
    C = pooling.pool(voc, tokens, s.weights)
    return op, np.linalg.eigvalsh(np.cov(C, rowvar=False, bias=True))


def test_quadrature_moments_are_exact_with_coordinate_probes():
    s = S400.replace(d=60, V=120, N=240)
    op, ev = _operator_and_spectrum(s, 1)
    nodes, weights = slq.lanczos_quadrature(op, np.eye(60), 4)
    est = slq.SpectralDensity(nodes, weights, 60)
    exact = np.array([np.mean(ev**j) for j in range(1, 8)])  # 2 * 4 - 1 = 7 moments are exact
    np.testing.assert_allclose(est.moments(7), exact, rtol=1e-9)
    assert est.probes == 60 and est.degree == 4


def test_slq_density_matches_the_exact_eigenvalues_of_the_same_draw():
    op, ev = _operator_and_spectrum(S400, 2)
    est = slq.slq(op, probes=64, degree=40, rng=np.random.default_rng(0))
    x = np.linspace(0.0, 1.05 * ev.max(), 2001)
    exact_cdf = np.searchsorted(ev, x, side="right") / ev.size
    assert np.abs(est.cdf(x) - exact_cdf).max() < 0.02
    law = theory.Bulk(S400.delta, S400.gamma, S400.kappa)
    edges = np.linspace(law.lower, law.upper, 11)
    counts, _ = np.histogram(ev, bins=edges)
    assert np.abs(est.masses(edges) - counts / ev.size).sum() < 0.05
    assert est.cdf(0.0) == 0.0 and est.cdf(2 * ev.max()) == pytest.approx(1.0)
    assert est.moments(2)[0] == pytest.approx(ev.mean(), rel=0.02)  # first moment: unbiased, sd ~ 1/sqrt(dP)
    assert est.histogram_l1(law) < compare.histogram_l1(ev, law) and est.zero_fraction() == 0.0


def test_zero_eigenvalues_form_the_atom():
    s = S400.replace(N=200)  # N < d: half of the eigenvalues are 0
    op, ev = _operator_and_spectrum(s, 3)
    est = slq.slq(op, probes=32, degree=30, rng=np.random.default_rng(1))
    exact_zero = np.mean(ev <= 1e-10 * ev.max())
    assert est.zero_fraction() == pytest.approx(exact_zero, abs=0.05)
    assert est.cdf(0.0) == pytest.approx(est.zero_fraction())
    assert est.cdf(-1.0) == 0.0


def test_density_from_simulate_and_sweep():
    dr = simulate(S400, np.random.default_rng(5), spectrum=slq.SLQ(probes=8, degree=20))
    assert dr.method == "matrix-free" and dr.spectrum is None and dr.density.nodes.shape == (8, 20)
    again = simulate(S400, np.random.default_rng(5), spectrum=slq.SLQ(probes=8, degree=20))
    np.testing.assert_array_equal(dr.density.nodes, again.density.nodes)
    plain = simulate(S400, np.random.default_rng(5), method="matrix-free")  # probes come last: same eigenpairs
    np.testing.assert_array_equal(dr.top_eigenvalues, plain.top_eigenvalues)
    res = sweep([S400, S400.replace(mu_norm2=1.0)], seed=3, trials=2, k=1, spectrum=slq.SLQ(8, 20))
    assert len(res.densities) == 2 and len(res.densities[0]) == 2 and res.spectra is None
    pooled = res.density(1)
    assert pooled.probes == 16 and pooled.dimension == 400
    with pytest.raises(ValueError, match="no density estimates"):
        sweep(S400, seed=3, trials=1, k=1).density()
    with pytest.raises(ValueError, match="sample level only"):
        sweep(S400, seed=3, trials=1, k=1, level="population", spectrum="slq")


def test_validation():
    with pytest.raises(ValueError, match="probes must be"):
        slq.SLQ(probes=0)
    with pytest.raises(ValueError, match="degree must be"):
        slq.SLQ(degree=1)
    with pytest.raises(ValueError, match="each row of weights must sum to 1"):
        slq.SpectralDensity(np.ones((2, 3)), np.ones((2, 3)), 10)
    with pytest.raises(ValueError, match="one shape"):
        slq.SpectralDensity(np.ones((2, 3)), np.ones((2, 2)) / 2, 10)
    with pytest.raises(ValueError, match="operator must be"):
        slq.slq(np.eye(3), 2, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="spectrum must be"):
        simulate(S400, np.random.default_rng(0), spectrum="kpm")
    with pytest.raises(ValueError, match="share one dimension"):
        a = slq.SpectralDensity(np.ones((1, 2)), np.full((1, 2), 0.5), 10)
        slq.SpectralDensity.pooled([a, slq.SpectralDensity(a.nodes, a.weights, 11)])
