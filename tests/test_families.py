"""Correlation families (attnlib.model.positional) and their weight tables (attnlib.model.weights): samplers, realizability certificate, prefix closed forms, alpha/kappa tables."""

import numpy as np
import pytest

from attnlib.model import positional as P, weights as W


@pytest.mark.parametrize("proc", list(P.catalogue(16).values()) + [P.balanced(8), P.squared_exponential(10, 3.0)],
                         ids=lambda p: p.name)
def test_catalogue_samplers_reproduce_R(proc):
    n = 100_000
    xi = proc.sample(n, np.random.default_rng(2))
    assert set(np.unique(xi)) <= {-1, 1}
    # entries of the empirical R have standard deviation <= 1/sqrt(n); 5 sigma
    np.testing.assert_allclose(P.empirical_correlation(xi), proc.R, atol=5 / np.sqrt(n))
    np.testing.assert_allclose(xi.mean(axis=0), 0.0, atol=5 / np.sqrt(n))


def test_balanced_law():
    proc = P.balanced(6)
    xi = proc.sample(1000, np.random.default_rng(0))
    assert np.all(xi.sum(axis=1) == 0)  # exactly half of each sign
    np.testing.assert_allclose(proc.R[0, 1], -1 / 5)
    lam = np.linalg.eigvalsh(proc.R)
    np.testing.assert_allclose(lam, [0] + [6 / 5] * 5, atol=1e-12)
    assert W.alpha(W.mean(6), proc.R) == pytest.approx(0.0, abs=1e-15)  # mean pooling sees no signal
    with pytest.raises(ValueError, match="not realizable by Gaussian signs"):
        P.from_correlation(P.balanced(4).R)  # realizable by +-1 signs, not by Gaussian signs
    with pytest.raises(ValueError, match="T must be even"):
        P.balanced(5)


def test_triangle_violation_certificate():
    bad = np.full((3, 3), -0.45) + 1.45 * np.eye(3)  # PSD, but E[ab + bc + ca] >= -1 fails
    assert np.linalg.eigvalsh(bad)[0] > 0
    assert P.triangle_violation(bad) == pytest.approx(0.35)
    # the empirical correlation of ANY +-1 sample is itself a +-1 correlation: no violation, exactly
    rng = np.random.default_rng(1)
    for proc in [P.balanced(6), P.markov(7, -0.8), P.blocks([2, 3]), P.independent(5)]:
        assert P.triangle_violation(P.empirical_correlation(proc.sample(50, rng))) <= 1e-12
    # sign-flipped version (xi_3 -> -xi_3): R_12 = R_23 = 0.45, R_13 = -0.45 is PSD but R_12 + R_23 - R_13 > 1
    flipped = np.array([[1.0, 0.45, -0.45], [0.45, 1.0, 0.45], [-0.45, 0.45, 1.0]])
    assert np.linalg.eigvalsh(flipped)[0] > 0
    assert P.triangle_violation(flipped) == pytest.approx(0.35)
    assert P.triangle_violation(np.eye(2)) == 0.0


@pytest.mark.parametrize("T", [5, 16, 40])
def test_prefix_closed_forms(T):
    for L in range(1, T + 1):
        R = P.prefix(T, L).R
        assert W.prefix_snr_mean(T, L) == pytest.approx(W.snr(W.mean(T), R))
        assert W.prefix_snr_optimal(T, L) == pytest.approx(np.linalg.eigvalsh(R)[-1])
        if L >= 2:  # simple top eigenvalue: optimal = uniform on the prefix
            np.testing.assert_allclose(W.optimal(R), np.r_[np.full(L, 1 / L), np.zeros(T - L)], atol=1e-12)
    assert W.prefix_gain(10_000, 1000) == pytest.approx(1000 / (1 + 999 * 1000 / 10_000))
    assert W.prefix_gain(10**6, 10**5) == pytest.approx(10.0, rel=1e-3)  # -> T/L for L, T large
    with pytest.raises(ValueError, match="L"):
        W.prefix_snr_mean(4, 5)


def test_snr_table_and_weightings():
    headers, rows = W.snr_table(P.catalogue(16), taus=(0.0, 2.0))
    assert headers[:3] == ["family", "λ_max(R)", "mean"] and headers[-1] == "optimal"
    for row in rows:
        lam_max, values = row[1], row[2:]
        assert values[-1] == pytest.approx(lam_max, rel=1e-12)
        assert all(v <= lam_max + 1e-12 for v in values)
    ws = W.weightings(P.balanced(4).R)
    assert W.snr(ws["optimal (unit norm)"], P.balanced(4).R) == pytest.approx(4 / 3)
    with pytest.raises(ValueError, match="processes"):
        W.snr_table({})


def test_prefix_crossover_brute_force():
    T = 12
    for tau in [0.0, 1.0, 3.0]:
        w = W.causal(T, tau)
        wins = [L for L in range(2, T + 1) if W.snr(w, P.prefix(T, L).R) > 1 + L * (L - 1) / T]
        assert W.prefix_crossover(T, tau) == max(wins)
        assert wins == list(range(2, max(wins) + 1))  # causal wins exactly on an initial range of L
    assert W.prefix_crossover(T, 0.0) < T  # at L = T (R = 11^T) mean pooling is optimal


def test_catalogue_validation():
    with pytest.raises(ValueError, match="multiple of 4"):
        P.catalogue(18)
    with pytest.raises(ValueError, match="length"):
        P.squared_exponential(5, 0.0)


def test_prefix_snr_closed_form_matches_R():
    rng = np.random.default_rng(3)
    for w in [W.causal(12), W.mean(12), rng.standard_normal(12)]:
        L = np.arange(1, 13)
        np.testing.assert_allclose(W.prefix_snr(w, L), [W.snr(w, P.prefix(12, int(l)).R) for l in L], rtol=1e-12)
    assert W.prefix_snr(W.mean(16), 4) == pytest.approx(W.prefix_snr_mean(16, 4))
    with pytest.raises(ValueError, match="L"):
        W.prefix_snr(W.mean(4), 5)


@pytest.mark.parametrize("call,name", [
    (lambda: P.balanced(0), "T"),
    (lambda: P.catalogue(4), "T"),
    (lambda: P.triangle_violation(np.ones((2, 3))), "R"),
    (lambda: W.prefix_snr([0.0, 0.0], 1), "all zero"),
    (lambda: W.prefix_snr(W.mean(4), 1.5), "L"),
    (lambda: W.snr_table({"x": np.eye(3)}), "SignProcess"),
    (lambda: W.mix_to_snr(W.mean(3), np.ones(4), np.eye(3), 1.0), "length T = 3"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
