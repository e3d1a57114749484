"""attnlib for its users: thresholds as a record, sign processes from data, the kurtosis of the pooled sign,
and the small traps (the overlap with u at ||mu||^2 = 0, one range for r, one scaling per name, broadcasts)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import attnlib
from attnlib import Limit, Setting, positional as P, theory, weights as W
from attnlib.model.kurtosis import pooled_kurtosis
from attnlib.model.limit import Onset

CHAIN = P.markov(16, 0.8)


def issue_setting(weights="mean", process=CHAIN, mu_norm2=1.0):
    return Setting(d=2000, V=4000, N=8000, mu_norm2=mu_norm2, process=process, weights=weights)


@pytest.mark.parametrize("weights", ["optimal", "mean", "causal"])
def test_thresholds_crossed_at_zero_say_so(weights):
    s = issue_setting(weights)
    found = s.signal_thresholds()
    assert found.always_detectable and found.population.state is found.sample.state is Onset.ALWAYS
    assert found.sample.mu_norm2 == 0.0 and found.theta_at_zero == pytest.approx(s.snr * s.delta)
    assert found.theta_at_zero > found.sample.theta == pytest.approx(s.thresholds()[1])
    raw = theory.signal_thresholds(s.delta, s.gamma, s.alpha, s.kappa, clip=False)
    assert raw[1] < 0 and theory.signal_thresholds(s.delta, s.gamma, s.alpha, s.kappa)[1] == 0.0
    text = str(found)
    assert "at every ‖μ‖² ≥ 0, already crossed at ‖μ‖² = 0" in text and f"{found.theta_at_zero:.4g}" in text
    assert repr(found) == text and s.limit.signal_thresholds() == found


def test_thresholds_above_zero_and_never():
    s = issue_setting(process=P.independent(16))
    found = s.signal_thresholds()
    mu2 = theory.signal_thresholds(s.delta, s.gamma, s.alpha, s.kappa)
    assert (found.population.mu_norm2, found.sample.mu_norm2) == pytest.approx(mu2)
    assert found.sample.state is Onset.ABOVE and f"for ‖μ‖² > {mu2[1]:.4g}" in str(found)
    assert not s.with_theta(found.sample.theta * 0.999).signal().sample_detectable
    assert Limit(0.5, 0.25, 0.0).signal_thresholds().sample.state is Onset.NEVER
    with pytest.raises(ValueError, match="signal_thresholds\\(\\) needs delta, gamma, alpha and kappa to be scalars"):
        Limit(0.5, 0.25, np.ones(2)).signal_thresholds()


def test_overlap_with_u_is_nan_at_zero_signal():
    s = issue_setting(mu_norm2=0.0).at_dimension(60)
    sp = s.signal()
    assert np.isnan(sp.sample_overlap) and np.isnan(sp.population_overlap) and np.isfinite(sp.sample_eigenvalue)
    assert np.isfinite(s.signal_h().sample_overlap)
    grid = s.limit.replace(mu_norm2=np.array([0.0, 1.0])).signal().sample_overlap
    assert np.isnan(grid[0]) and grid[1] > 0
    draw = attnlib.simulate(s, np.random.default_rng(0))
    assert np.isnan(draw.overlap_u) and np.isfinite(draw.overlap_h)
    res = attnlib.sweep([s, s.replace(mu_norm2=1.0)], seed=1, trials=2, k=1)
    assert np.all(np.isnan(res.overlap_u[0])) and np.all(np.isfinite(res.overlap_u[1]))


def test_one_range_for_r():
    for r in (-1.0, -0.5, 0.995, 1.0):
        assert np.array_equal(P.family("markov", 8, r=r).R, P.markov(8, r).R)
    for make in (lambda r: P.markov(8, r), lambda r: P.family("markov", 8, r=r)):
        with pytest.raises(ValueError, match=r"r must be a finite number in \[-1.0, 1.0\], got 1.01"):
            make(1.01)


def test_one_scaling_per_name():
    for proc in (CHAIN, P.prefix(16, 4), P.independent(16)):
        ws = W.weightings(proc.R)
        assert all(abs(w.sum() - 1) < 1e-12 for w in ws.values())
        assert np.allclose(ws["optimal"], W.optimal(proc.R))
        assert np.allclose(Setting(d=40, V=80, N=80, mu_norm2=1.0, process=proc, weights="optimal").weights,
                           ws["optimal"])
    ws = W.weightings(P.balanced(4).R)
    assert "optimal" not in ws and np.linalg.norm(ws["optimal (unit norm)"]) == pytest.approx(1.0)
    headers, _ = W.snr_table({"balanced": P.balanced(4), "chain": CHAIN})
    assert headers[-1] == "optimal"
    with pytest.raises(ValueError, match="weights='optimal' sums to 1"):
        Setting(d=40, V=80, N=80, mu_norm2=1.0, process=P.balanced(4), weights="optimal")


def test_broadcasts_are_checked_by_name():
    with pytest.raises(ValueError, match=r"alpha and kappa must broadcast together .* alpha of shape \(3,\) and "
                                         r"kappa of shape \(4,\)"):
        theory.signal(0.5, 0.25, np.ones(3), np.ones(4), 1.0)
    assert theory.signal(0.5, 0.25, np.ones(3), 1.0, np.zeros((2, 1)) + 1).sample_overlap.shape == (2, 3)


@pytest.mark.parametrize("make", [lambda: P.independent(6), lambda: P.markov(6, 0.8), lambda: P.markov(5, -0.5),
                                  lambda: P.prefix(6, 3), lambda: P.suffix(6, 2), lambda: P.blocks([2, 3, 1]),
                                  lambda: P.balanced(6),
                                  lambda: P.estimate(P.markov(6, 0.4).sample(500, np.random.default_rng(2)))])
def test_laws_are_exact(make):
    proc = make()
    seqs, prob = proc.law()
    assert prob.sum() == pytest.approx(1.0) and np.all(prob > 0)
    assert np.allclose((seqs.T * prob) @ seqs, proc.R, atol=1e-12)
    assert pickle.loads(pickle.dumps(proc)).law()[1].sum() == pytest.approx(1.0)


def test_kurtosis_exact_and_sampled():
    assert pooled_kurtosis(P.independent(16), W.mean(16)).value == pytest.approx(3 - 2 / 16, rel=1e-12)
    assert pooled_kurtosis(P.prefix(16, 4), W.optimal(P.prefix(16, 4).R)).value == pytest.approx(1.0, rel=1e-12)
    exact = pooled_kurtosis(CHAIN, W.causal(16))
    sampled = pooled_kurtosis(CHAIN, W.causal(16), rng=np.random.default_rng(5), max_sequences=10)
    assert exact.method == "exact" and sampled.method == "sampled" and sampled.se > 0
    assert abs(sampled.value - exact.value) < 4 * sampled.se
    assert "exact, law of 65,536 sequences" in str(exact) and "sampled, 200,000 sequences" in str(sampled)
    assert P.squared_exponential(16, 4.0).law() is None


def test_estimate_from_data():
    xi = CHAIN.sample(4000, np.random.default_rng(7))
    est = P.estimate(xi)
    assert np.array_equal(est.R, P.empirical_correlation(xi)) and est.T == 16
    assert np.abs(est.R - CHAIN.R).max() < 5 / np.sqrt(4000)
    again = est.sample(20_000, np.random.default_rng(8))
    assert set(np.unique(again)) == {-1, 1} and np.abs(again.mean(axis=0)).max() < 0.04
    assert np.abs(P.empirical_correlation(again) - est.R).max() < 5 / np.sqrt(20_000)
    skewed = np.ones((10, 3), dtype=int)
    assert np.allclose(P.estimate(skewed).sample(1000, np.random.default_rng(1)).mean(), 0, atol=0.1)
