"""Pooling weights: mean / optimal / causal, alpha/kappa, and the causal limit vs finite-d attention."""

import numpy as np
import pytest

from attnlib.studies import causal_attention
from attnlib.theory import finite_attention
from attnlib.model import generative, positional as P, weights as W


def test_mean_and_snr():
    np.testing.assert_allclose(W.mean(4), 0.25)
    R = P.markov(10, 0.6).R
    w = W.mean(10)
    assert W.snr(w, R) == pytest.approx(R.sum() / 10)
    assert W.snr(3 * w, R) == pytest.approx(W.snr(w, R))  # scale invariant


@pytest.mark.parametrize("R", [P.markov(12, 0.6).R, P.prefix(12, 4).R, P.suffix(10, 3).R, P.blocks([3, 5, 2]).R])
def test_optimal_is_top_eigenvector_and_beats_others(R):
    w = W.optimal(R)
    assert w.sum() == pytest.approx(1.0)
    lam_max = np.linalg.eigvalsh(R)[-1]
    assert W.snr(w, R) == pytest.approx(lam_max, rel=1e-12)
    rng = np.random.default_rng(0)
    others = [W.mean(len(w)), W.causal(len(w)), W.causal(len(w), 2.0)] + list(rng.standard_normal((200, len(w))))
    assert all(W.snr(o, R) <= lam_max + 1e-12 for o in others)


def test_prefix_optimal_is_uniform_on_prefix():
    w = W.optimal(P.prefix(16, 4).R)
    np.testing.assert_allclose(w, np.r_[np.full(4, 0.25), np.zeros(12)], atol=1e-12)


def test_degenerate_top_eigenspace():
    np.testing.assert_allclose(W.optimal(np.eye(5)), W.mean(5))  # R = I: every w optimal; we return mean
    w = W.optimal(P.blocks([3, 3]).R)  # two equal blocks: projection of 1 on the eigenspace is uniform
    np.testing.assert_allclose(w, W.mean(6))
    n = W.optimal(P.markov(6, -0.9).R, normalize="norm")
    assert np.linalg.norm(n) == pytest.approx(1.0)


def test_causal_limit_closed_forms():
    T = 6
    H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, T + 1))])  # H[k] = H_k
    s = np.arange(T)
    np.testing.assert_allclose(W.causal(T, 0.0), (H[T] - H[s]) / T)  # harmonic weights
    strict = (H[T - 1] - H[s]) / (H[T - 1] - H[s]).sum()
    np.testing.assert_allclose(W.causal(T, 3.0, strict=True), strict)  # seed's H_{T-1} - H_{t-1}, 1-indexed
    for tau in [-1.0, 0.0, 1.0, 5.0]:  # strictly decreasing for every finite tau
        w = W.causal(T, tau)
        assert w.sum() == pytest.approx(1.0) and np.all(np.diff(w) < 0)
    np.testing.assert_allclose(W.causal(T, 800.0), W.mean(T), atol=1e-12)  # tau -> inf: each token on itself


@pytest.mark.parametrize("tau,strict", [(0.0, False), (1.0, False), (2.0, False), (1.0, True)])
def test_causal_limit_matches_finite_d_attention(tau, strict):
    """Empirical softmax attention at d = 1000 over sequences with signal vs the d -> inf formula.

    Off-diagonal scores are O(tau/sqrt(d)) and the self score is tau (1 + O(1/sqrt(d))), so the per-sequence
    weights deviate by O(tau/sqrt(d)) ~ 0.03-0.06; averaged over 2000 sequences the mean deviates by a second-order
    bias O(tau^2/d) plus noise ~ 1e-3, measured below 3e-4. Tolerance 2e-3.
    """
    rng = np.random.default_rng(3)
    d, V, T = 1000, 2000, 8
    voc = generative.draw_vocabulary(d, V, 1.0, rng)
    xi = P.markov(T, 0.5).sample(2000, rng)
    X = voc.table[generative.sample_tokens(xi, V, rng)]
    emp = causal_attention.causal_attention_weights(X, tau, strict=strict)
    np.testing.assert_allclose(emp.sum(axis=1), 1.0)
    np.testing.assert_allclose(emp.mean(axis=0), W.causal(T, tau, strict=strict), atol=2e-3)


def test_attention_fluctuations_shrink_like_one_over_sqrt_d():
    rng = np.random.default_rng(4)
    T, tau, spread = 6, 1.5, []
    for d in (100, 1600):
        voc = generative.draw_vocabulary(d, 2 * d, 0.5, rng)
        X = voc.table[generative.sample_tokens(P.independent(T).sample(400, rng), 2 * d, rng)]
        emp = causal_attention.causal_attention_weights(X, tau)
        spread.append(np.sqrt(np.mean((emp - W.causal(T, tau)) ** 2)))
    # 16x more dimensions -> 4x smaller deviations (allow 3x-5.5x)
    assert 3.0 < spread[0] / spread[1] < 5.5


def test_optimal_degenerate_choice_is_deterministic():
    # eigenspace orthogonal to 1 (balanced signs, R = (T I - 11^T)/(T-1)): projection of e_0, not a LAPACK pick
    T = 6
    R = (T * np.eye(T) - np.ones((T, T))) / (T - 1)
    w = W.optimal(R, normalize="norm")
    e0 = np.eye(T)[0] - 1.0 / T
    np.testing.assert_allclose(w, e0 / np.linalg.norm(e0), atol=1e-12)
    assert W.snr(w, R) == pytest.approx(T / (T - 1))
    with pytest.raises(ValueError, match="normalize='norm'"):
        W.optimal(R)


def test_mix_to_snr():
    R = P.prefix(16, 4).R
    a, b = W.mean(16), W.optimal(R)
    for target in [1.75, 2.5, 3.146, 4.0]:
        w = W.mix_to_snr(a, b, R, target)
        assert W.snr(w, R) == pytest.approx(target, abs=1e-10)
        lam = (w - a) @ (b - a) / ((b - a) @ (b - a))
        np.testing.assert_allclose(w, (1 - lam) * a + lam * b, atol=1e-12)  # on the segment
        assert -1e-12 <= lam <= 1 + 1e-12
    with pytest.raises(ValueError, match="target"):
        W.mix_to_snr(a, b, R, 4.5)


def test_sample_embeddings_law():
    rng = np.random.default_rng(5)
    proc = P.markov(8, 0.5)
    d, V, mu2, n = 50, 20, 4.0, 4000
    X, xi, tokens = causal_attention.sample_embeddings(proc, n, d, V, mu2, rng)
    assert X.shape == (n, 8, d) and xi.shape == tokens.shape == (n, 8)
    assert np.all((tokens < V // 2) == (xi > 0))  # class +1 holds tokens 0..V/2-1
    same = tokens[:, 0] == tokens[:, 1]
    np.testing.assert_array_equal(X[same, 0], X[same, 1])  # a repeated token has the same embedding
    # repeat rate of positions (0, 1): (1 + R_01)/V
    assert same.mean() == pytest.approx((1 + 0.5) / V, abs=5 * np.sqrt(0.075 / n))
    # with a large vocabulary almost all rows are distinct draws: E[xi_t x_t,1] = ||mu||, unit-variance noise
    X, xi, _ = causal_attention.sample_embeddings(proc, 2000, 20, 200_000, mu2, rng)
    assert np.mean(xi * X[:, :, 0]) == pytest.approx(2.0, abs=5 / np.sqrt(16_000))
    assert np.var(X[:, :, 1:]) == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize("tau,strict", [(1.0, False), (2.0, False), (2.0, True)])
def test_deviation_second_moment_matches_monte_carlo(tau, strict):
    """Mean squared deviation from the limit at d = 400, V = 800 (repeats included) and without repeats."""
    rng = np.random.default_rng(6)
    T, d, V = 8, 400, 800
    proc = P.markov(T, 0.5)
    X, _, tokens = causal_attention.sample_embeddings(proc, 3000, d, V, 1.0, rng)
    dev = causal_attention.causal_attention_weights(X, tau, strict=strict) - W.causal(T, tau, strict=strict)
    full = np.sqrt(np.mean(dev**2))
    assert full == pytest.approx(finite_attention.deviation_rms(T, tau, d, V=V, R=proc.R, strict=strict), rel=0.08)
    distinct = np.array([len(set(row)) == T for row in tokens])
    gauss = np.sqrt(np.mean(dev[distinct] ** 2))
    assert gauss == pytest.approx(finite_attention.deviation_rms(T, tau, d, strict=strict), rel=0.08)
    # the covariance matrix itself, not only its trace
    M = finite_attention.deviation_second_moment(T, tau, d, strict=strict)
    emp = dev[distinct].T @ dev[distinct] / distinct.sum()
    assert np.linalg.norm(emp - M) < 0.15 * np.linalg.norm(M)


def test_deviation_second_moment_limits():
    assert finite_attention.deviation_rms(8, 0.0, 100) == 0.0  # tau = 0: all scores equal, weights exact at any d
    a, b = finite_attention.deviation_rms(8, 1.0, 100), finite_attention.deviation_rms(8, 1.0, 400)
    assert a / b == pytest.approx(2.0)  # 1/sqrt(d)
    with pytest.raises(ValueError, match="R must be"):
        finite_attention.deviation_second_moment(4, 1.0, 10, R=np.eye(3))


def test_snr_rows():
    R = P.markov(6, 0.5).R
    rows = np.random.default_rng(0).standard_normal((5, 6))
    np.testing.assert_allclose(W.snr(rows, R), [W.snr(r, R) for r in rows], rtol=1e-12)
    with pytest.raises(ValueError, match="all-zero row"):
        W.snr(np.zeros((2, 6)), R)
    with pytest.raises(ValueError, match="shape"):
        W.snr(np.ones((2, 5)), R)


@pytest.mark.parametrize("tau,strict,mu2", [(3.0, False, 1.0), (3.0, True, 1.0), (1.0, False, 0.0)])
def test_deviation_mean_matches_monte_carlo(tau, strict, mu2):
    """O(1/d) bias of the mean weights at d = 100 (distinct tokens: huge V), 10000 sequences.

    The bias is ~1e-3 here, the Monte-Carlo standard error ~5e-5 and the neglected O(1/d^2) terms ~1e-4.
    """
    rng = np.random.default_rng(8)
    T, d = 8, 100
    proc = P.markov(T, 0.6)
    devs = []
    for _ in range(2):
        X, _, tokens = causal_attention.sample_embeddings(proc, 5000, d, 2_000_000, mu2, rng)
        distinct = np.array([np.unique(row).size == T for row in tokens])
        devs.append((causal_attention.causal_attention_weights(X, tau, strict=strict) - W.causal(T, tau, strict=strict))[distinct])
    dev = np.concatenate(devs)
    pred = finite_attention.deviation_mean(T, tau, d, mu_norm2=mu2, R=proc.R, strict=strict)
    se = dev.std(axis=0) / np.sqrt(len(dev))
    np.testing.assert_array_less(np.abs(dev.mean(axis=0) - pred), 5 * se + 0.1 * np.abs(pred) + 1e-12)
    assert abs(pred.sum()) < 1e-15  # weights always sum to 1


@pytest.mark.parametrize("call,name", [
    (lambda: causal_attention.sample_embeddings(P.markov(4, 0.5), 2, 10, 7, 1.0, np.random.default_rng(0)), "V"),
    (lambda: causal_attention.sample_embeddings(np.eye(4), 2, 10, 8, 1.0, np.random.default_rng(0)), "process"),
    (lambda: causal_attention.sample_embeddings(P.markov(4, 0.5), 2, 10, 8, 1.0, 0), "rng"),
    (lambda: finite_attention.deviation_second_moment(4, float("nan"), 10), "tau"),
    (lambda: finite_attention.deviation_second_moment(1, 1.0, 10, strict=True), "T"),
    (lambda: finite_attention.deviation_mean(4, 1.0, 0), "d"),
    (lambda: finite_attention.deviation_mean(4, 1.0, 10, mu_norm2=-1.0), "mu_norm2"),
])
def test_attention_bad_input(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def _random_correlation(T, rng, rank=None):
    """A correlation matrix with mixed-sign entries: normalised Gram matrix of random Gaussian vectors."""
    G = rng.standard_normal((T, rank or T))
    C = G @ G.T
    s = 1.0 / np.sqrt(np.diag(C))
    return s[:, None] * C * s[None, :]


def _projected_power(R, starts, iterations=400):
    """Local search for max w^T R w / ||w||^2 over w >= 0: projected power iteration on R + I from many starts."""
    W = np.abs(starts)
    for _ in range(iterations):
        W = np.clip(W @ (R + np.eye(len(R))), 0.0, None)
        W /= np.linalg.norm(W, axis=1, keepdims=True)
    return W


@pytest.mark.parametrize("proc", [P.markov(12, 0.6), P.prefix(12, 4), P.blocks([3, 5, 4]), P.squared_exponential(10, 2.5)])
def test_optimal_nonnegative_is_the_perron_vector_when_R_is_nonnegative(proc):
    w, value = W.optimal_nonnegative(proc.R)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    assert value == pytest.approx(np.linalg.eigvalsh(proc.R)[-1], rel=1e-12)
    np.testing.assert_allclose(w, W.optimal(proc.R), atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_optimal_nonnegative_against_brute_force_on_the_simplex(seed):
    """T = 4: a grid of step 1/60 on the simplex never beats the exact value and comes within the grid error."""
    R = _random_correlation(4, np.random.default_rng(seed), rank=3)
    assert R.min() < 0
    w, value = W.optimal_nonnegative(R)
    n = 60
    grid = np.array([(a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a)
                     for c in range(n + 1 - a - b)], dtype=float) / n
    grid_best = W.snr(grid, R).max()
    assert grid_best <= value + 1e-12
    assert value - grid_best < 5e-3  # the quotient is smooth: a grid of step h misses the maximum by O(h)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0) and value == pytest.approx(W.snr(w, R), rel=1e-14)


@pytest.mark.parametrize("T,seed", [(6, 0), (8, 1), (10, 2)])
def test_optimal_nonnegative_against_local_search_and_kkt(T, seed):
    rng = np.random.default_rng(seed)
    R = _random_correlation(T, rng, rank=T // 2)
    w, value = W.optimal_nonnegative(R)
    local = _projected_power(R, rng.random((400, T)))
    found = W.snr(local, R)
    assert found.max() <= value + 1e-10  # no feasible point beats the exact optimum
    assert found.max() > value - 1e-8  # and a multistart local search reaches it
    residual = R @ w - value * w  # KKT: R w <= lambda w, with equality on the support
    assert residual.max() < 1e-12 and np.abs(residual[w > 0]).max() < 1e-12


def test_optimal_nonnegative_gap_and_ties():
    # balanced signs: w^T R w / ||w||^2 = (T - (sum w)^2 / ||w||^2) / (T - 1) <= 1 for w >= 0, attained by one
    # position; the tie between the T positions goes to the first
    w, value = W.optimal_nonnegative(P.balanced(6).R)
    assert value == pytest.approx(1.0) and np.linalg.eigvalsh(P.balanced(6).R)[-1] == pytest.approx(6 / 5)
    np.testing.assert_array_equal(w, np.eye(6)[0])
    w, value = W.optimal_nonnegative(np.eye(5))  # R = I: every w is optimal; mean pooling, as optimal(I)
    np.testing.assert_allclose(w, W.mean(5))
    # alternating Markov chain: the best non-negative weights sit on every other position
    R = P.markov(8, -0.6).R
    w, value = W.optimal_nonnegative(R)
    assert value < np.linalg.eigvalsh(R)[-1] - 1.0
    assert np.all(w[1::2] == 0) and np.all(w[::2] > 0)


def test_optimal_nonnegative_bad_input():
    with pytest.raises(ValueError, match="R must be"):
        W.optimal_nonnegative(np.ones((3, 4)))
    with pytest.raises(ValueError, match="max_T"):
        W.optimal_nonnegative(P.markov(12, -0.5).R, max_T=10)
    with pytest.raises(ValueError, match="max_T"):
        W.optimal_nonnegative(np.eye(3), max_T=0)
    with pytest.raises(ValueError, match="tol"):
        W.optimal_nonnegative(np.eye(3), tol=-1.0)
    w, value = W.optimal_nonnegative(P.markov(30, 0.5).R, max_T=10)  # R >= 0: no enumeration, any T
    assert value == pytest.approx(np.linalg.eigvalsh(P.markov(30, 0.5).R)[-1])


def test_snr_table_nonnegative_column():
    headers, rows = W.snr_table({"alternating": P.markov(8, -0.6), "prefix": P.prefix(8, 2)}, nonnegative=True)
    assert headers[-1] == "best w ≥ 0"
    assert rows[0][-1] < rows[0][1] - 1.0 and rows[1][-1] == pytest.approx(rows[1][1])


def test_deviation_scan_rate_and_limit():
    """Small scan: slopes near -1/2 per replicate, mean weights at the limit, validated input."""
    proc = P.markov(6, 0.5)
    scan = causal_attention.deviation_scan(proc, [100, 400, 1600], [1.0], n=40, replicates=4, seed=1)
    assert scan.rms.shape == (3, 4, 1, 2) and scan.mean_weights.shape == (3, 1, 2, 6)
    assert np.all(np.abs(scan.slopes(False) + 0.5) < 0.1) and np.all(np.abs(scan.slopes(True) + 0.5) < 0.1)
    for m, strict in enumerate(scan.strict):
        gap = np.abs(scan.mean_weights[:, 0, m] - W.causal(6, 1.0, strict=strict))
        assert np.all(gap < 6 * scan.sem_weights[:, 0, m] + 1e-3)  # + O(1/d) bias
    assert np.isnan(scan.slopes(False, max_scale=0.03)).all()  # tau/sqrt(d) <= 0.03: one d only
    with pytest.raises(ValueError, match="strict"):
        scan.slopes(strict=None)
    with pytest.raises(ValueError, match="replicates"):
        causal_attention.deviation_scan(proc, [100], [1.0], n=4, replicates=0, seed=1)
    with pytest.raises(ValueError, match="process"):
        causal_attention.deviation_scan(np.eye(6), [100], [1.0], n=4, replicates=1, seed=1)
