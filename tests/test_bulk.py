"""attnlib.engine.compare: CDFs against quadrature, distances against exact constructions and scipy, and the finite-T
token-mixing moments against dense linear algebra and their exact (Poisson) expectations."""


import numpy as np
import pytest
from scipy import stats
from scipy.integrate import quad

from attnlib import Setting, sweep, theory
from attnlib.engine import compare
from attnlib import theory
from attnlib.studies import token_mixing
from attnlib.views import plotting
from attnlib.model import positional

REGIMES = [(0.5, 0.25), (0.2, 0.8), (2.0, 0.5), (0.5, 3.0), (3.0, 2.0), (1.0, 0.5), (1.0, 1.0)]


def _quantiles(law, n):
    """n points at the (i - 1/2)/n quantiles of ``law`` (zeros for the atom), by bisection on the CDF grid."""
    p = (np.arange(n) + 0.5) / n
    x = np.interp(p, law._table[1], law._table[0])
    return np.where(p <= law.atom, 0.0, x)


# ----------------------------------------------------------------------------- CDFs


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_bulk_cdf_matches_quadrature_and_ends(delta, gamma):
    law = theory.Bulk(delta, gamma, 1.3)
    tol = 5e-6 if delta == gamma == 1.0 else 1e-7  # x^(-2/3) hard edge at 0 when delta = gamma = 1
    assert law.cdf(law.upper) == pytest.approx(1.0, abs=tol)
    assert law.cdf(1e-300) == pytest.approx(theory.Bulk(delta, gamma).atom, abs=1e-12)
    assert law.cdf(-0.1) == 0.0 and law.cdf(10 * law.upper) == 1.0
    for frac in (0.003, 0.5, 0.997):
        x = law.lower + frac * (law.upper - law.lower)
        val, _ = quad(lambda y: theory.Bulk(delta, gamma, 1.3).density(y), law.lower, x, limit=400, epsabs=1e-12)
        assert law.cdf(x) == pytest.approx(law.atom + val, abs=tol)
    grid = np.linspace(-1, law.upper * 1.1, 5001)
    assert np.all(np.diff(law.cdf(grid)) >= 0)


@pytest.mark.parametrize("ratio", [0.3, 1.0, 2.5])
def test_mp_cdf_against_quadrature(ratio):
    law = theory.MarchenkoPastur(ratio, 2.0)
    assert law.atom == pytest.approx(max(0.0, 1 - 1 / ratio))
    for x in np.linspace(law.lower, law.upper, 4)[1:]:
        val, _ = quad(lambda y: theory.MarchenkoPastur(ratio, 2.0).density(y), law.lower, x, limit=400, epsabs=1e-12)
        assert law.cdf(x) == pytest.approx(law.atom + val, abs=1e-7)


def test_bin_masses_sum_to_continuous_mass():
    law = theory.Bulk(2.0, 0.5)
    edges = np.linspace(law.lower, law.upper, 51)
    masses = law.bin_masses(edges)
    assert np.all(masses >= 0) and masses.sum() == pytest.approx(1 - law.atom, abs=1e-9)


# ----------------------------------------------------------------------------- distances


@pytest.mark.parametrize("delta,gamma", [(0.5, 0.25), (0.5, 3.0), (3.0, 2.0)])
def test_distances_vanish_on_quantile_points(delta, gamma):
    law = theory.Bulk(delta, gamma)
    x = _quantiles(law, 20_000)
    assert compare.ks_distance(x, law) <= 1 / 20_000 + 1e-6
    assert compare.histogram_l1(x, law, bins=50) < 50 / 20_000
    assert compare.zero_fraction(x) == pytest.approx(law.atom, abs=1 / 20_000)


def test_ks_matches_scipy_for_a_continuous_law():
    law = theory.Bulk(0.5, 0.25)
    x = np.random.default_rng(0).uniform(law.lower, law.upper, 3000)
    ref = stats.kstest(x, law.cdf).statistic
    assert compare.ks_distance(x, law) == pytest.approx(ref, abs=1e-12)


def test_ks_with_atom_counts_the_jump():
    law = theory.Bulk(2.0, 0.5)  # atom 1/2
    cont = _quantiles(law, 2000)[1000:]  # the continuous half, exactly placed
    no_zeros = compare.ks_distance(cont, law)  # all mass on the continuous part: off by the whole atom
    assert no_zeros == pytest.approx(0.5, abs=1e-3)
    too_many = np.concatenate([np.zeros(1500), cont[::2]])  # 3/4 zeros
    assert compare.ks_distance(too_many, law) == pytest.approx(0.25, abs=2e-3)


def test_l1_counts_mass_outside_and_atom():
    law = theory.Bulk(0.5, 0.25)
    far = np.full(100, 2 * law.upper)
    assert compare.histogram_l1(far, law) == pytest.approx(2.0)
    law_atom = theory.Bulk(0.5, 3.0)
    x = _quantiles(law_atom, 30_000)
    moved = np.where(x == 0, law_atom.upper * 2, x)  # the atom's mass moved above the support
    assert compare.histogram_l1(moved, law_atom) == pytest.approx(2 * law_atom.atom, abs=3e-3)


def test_l1_of_iid_sample_is_at_the_sampling_level():
    """i.i.d. draws from the law: L1 ~ sum_i sqrt(p_i/n), so about sqrt(bins/n) (eigenvalues do better)."""
    law = theory.Bulk(0.2, 0.8)
    u = np.random.default_rng(1).uniform(size=20_000)
    x = np.interp(u, law._table[1], law._table[0])
    l1 = compare.histogram_l1(x, law, bins=50)
    assert 0.3 * np.sqrt(50 / 20_000) < l1 < 1.5 * np.sqrt(50 / 20_000)


def test_mp_law_is_far_from_the_bulk_law_on_its_own_samples():
    law = theory.Bulk(0.5, 0.25)
    x = _quantiles(law, 10_000)
    assert compare.ks_distance(x, theory.MarchenkoPastur(0.25)) > 0.05
    assert compare.histogram_l1(x, theory.MarchenkoPastur(0.25)) > 0.3


# ----------------------------------------------------------------------------- moments, extremes


def test_spectrum_moments_shapes_and_values():
    ev = np.random.default_rng(2).uniform(0, 3, size=(4, 500))
    m = compare.spectrum_moments(ev, 3, scale=2.0)
    assert m.shape == (4, 3)
    np.testing.assert_allclose(m[:, 1], np.mean((ev / 2) ** 2, axis=1))
    assert compare.spectrum_moments(ev[0], 2).shape == (2,)
    law = theory.Bulk(0.5, 3.0)
    np.testing.assert_allclose(compare.spectrum_moments(_quantiles(law, 200_000), 3),
                               theory.Bulk(0.5, 3.0).moments(3), rtol=2e-3)


def test_mp_moments_are_narayana_and_match_density():
    np.testing.assert_allclose(theory.MarchenkoPastur(0.5).moments(4), [1, 1.5, 1 + 1.5 + 0.25, 1 + 3 + 1.5 + 0.125])
    lo, hi = theory.MarchenkoPastur(0.7).support
    m3, _ = quad(lambda x: x**3 * theory.MarchenkoPastur(0.7).density(x), lo, hi, limit=200)
    assert theory.MarchenkoPastur(0.7).moments(3)[2] == pytest.approx(m3, rel=1e-7)
    np.testing.assert_allclose(theory.MarchenkoPastur(0.7).moments(4), theory.Bulk(1e-12, 0.7).moments(4), rtol=1e-9)


def test_extremes_and_zero_fraction():
    ev = np.array([[0.0, 1e-16, 0.3, 2.0], [0.0, 0.5, 0.6, 1.5]])
    small, large = compare.extreme_eigenvalues(ev)
    np.testing.assert_allclose(small, [0.3, 0.5])
    np.testing.assert_allclose(large, [2.0, 1.5])
    assert compare.zero_fraction(ev) == pytest.approx(3 / 8)


# ----------------------------------------------------------------------------- finite T


def test_m4_shift_values():
    assert theory.tokens.m4_shift(0.5, 0.25, [1.0]) == pytest.approx(0.5 * 0.25**2)
    assert theory.tokens.m4_shift(0.5, 0.25, np.full(4, 0.25)) == pytest.approx(0.5 * 0.25**2 / 16)
    assert theory.tokens.m4_shift(0.5, 0.25, [3.0, 1.0]) == pytest.approx(theory.tokens.m4_shift(0.5, 0.25, [0.75, 0.25]))


def _closed_walks(k):
    """All closed walks of 2k steps from the root of an abstract tree whose levels alternate token / sequence.

    Each walk is returned as (node types, parent map, traversal count per edge). New children are created on
    the fly, so every walk shape on the (locally tree-like) token-sequence graph appears exactly once.
    """
    out = []

    def rec(types, parent, children, here, steps, mult):
        if steps == 2 * k:
            if here == 0:
                out.append((list(types), dict(parent), dict(mult)))
            return
        for nxt in ([parent[here]] if parent[here] is not None else []) + children[here]:
            e = tuple(sorted((here, nxt)))
            mult[e] = mult.get(e, 0) + 1
            rec(types, parent, children, nxt, steps + 1, mult)
            mult[e] -= 1
            if not mult[e]:
                del mult[e]
        new = len(types)
        types.append("S" if types[here] == "T" else "T")
        parent[new], children[new] = here, []
        children[here].append(new)
        mult[(here, new)] = 1
        rec(types, parent, children, new, steps + 1, mult)
        del mult[(here, new)]
        children[here].pop()
        del children[new], parent[new]
        types.pop()

    rec(["T"], {0: None}, {0: []}, 0, 0, {})
    return out


def _walk_moment(k, w, c):
    """Limit of (1/V) tr (M/kappa)^k for the sparse token-mixing matrix, by exhaustive walk counting.

    A token has Poisson(N/V) = Poisson(1/c) occurrences per position (factor 1/c per sequence node, summed over
    its position); a sequence's T positions hold distinct tokens (the edges at a sequence node carry distinct
    positions). Weight of a walk: product over edges of w_position^(traversals); overall factor c^k / kappa^k.
    """
    import itertools

    w = np.asarray(w, float)
    total = 0.0
    for types, parent, mult in _closed_walks(k):
        val = c ** (k - types.count("S"))
        for i, t in enumerate(types):
            if t != "S":
                continue
            edges = [mult[tuple(sorted((i, j)))] for j in range(len(types)) if parent.get(j) == i or parent[i] == j]
            val *= sum(np.prod([w[p] ** m for p, m in zip(pos, edges)])
                       for pos in itertools.permutations(range(w.size), len(edges)))
        total += val
    return total / float(w @ w) ** k


@pytest.mark.parametrize("w", [[1.0], [0.7, 0.3], [0.5, 0.3, 0.2], [0.25] * 4])
@pytest.mark.parametrize("c", [0.5, 2.0])
def test_m4_shift_equals_exhaustive_walk_count(w, c):
    """Independent of the derivation's shortcut: count every closed walk on the token-sequence tree. Moments
    1-3 equal MP_c's; the 4th exceeds it by c^2 (sum w^4/kappa^2)^2 = m4_shift(delta, gamma, w) / delta^3."""
    walk = np.array([_walk_moment(k, w, c) for k in range(1, 5)])
    mp = theory.MarchenkoPastur(c).moments(4)
    np.testing.assert_allclose(walk[:3], mp[:3], rtol=1e-12)
    delta = 0.7
    assert walk[3] - mp[3] == pytest.approx(theory.tokens.m4_shift(delta, c * delta, w) / delta**3, rel=1e-10)


@pytest.mark.parametrize("w", [[1.0], [0.7, 0.3], [0.25] * 4])
def test_token_mixing_moments_equal_dense_traces(w):
    V, N = 40, 70
    m = token_mixing.token_mixing_moments(V, N, w, np.random.default_rng(5))
    ev = token_mixing.token_mixing_spectrum(V, N, w, np.random.default_rng(5))  # same draw
    np.testing.assert_allclose(m, [np.mean(ev**k) for k in range(1, 5)], rtol=1e-9)


def test_token_mixing_T1_is_poisson():
    """T = 1: the token-mixing matrix is diagonal, entries k_v/lambda with k_v ~ Poisson(lambda), lambda = N/V.
    Touchard: E[(k/lambda)^4] = 1 + 6c + 7c^2 + c^3 (c = 1/lambda) against MP_c's 1 + 6c + 6c^2 + c^3."""
    V, N = 100_000, 50_000
    c = V / N
    m = np.mean([token_mixing.token_mixing_moments(V, N, [1.0], np.random.default_rng(s)) for s in range(3)], axis=0)
    mp = theory.MarchenkoPastur(c).moments(4)
    np.testing.assert_allclose(m[:3], mp[:3], rtol=0.02)
    assert m[3] == pytest.approx(1 + 6 * c + 7 * c**2 + c**3, rel=0.05)
    assert m[3] - mp[3] == pytest.approx(c**2, abs=1.5)  # per-draw sd 0.77 (8 draws): 3 draws, ~3.4 se


def test_token_mixing_T2_excess_matches_formula():
    """Unequal weights (0.7, 0.3) at c = V/N = 2: excess c^2 (sum w^4/kappa^2)^2 = 2.18 (MP_2's m4 is 45).

    Spread measured over 100 draws at this size (seeds 500-599): per-draw sd of m4 0.46, mean excess 2.16
    (0.4 standard errors from the formula). 24 draws give a standard error of 0.093; the tolerance is 3 of them
    (0.28). The plausible wrong formulas lie far outside: a first-power excess c^2 sum w^4/kappa^2 (2.95, 8
    standard errors away) and no excess at all (0, the MP_c value); the test checks that both fail."""
    V, N = 100_000, 50_000
    w = np.array([0.7, 0.3])
    draws, tol = 24, 3 * 0.46 / np.sqrt(24)
    m4 = np.mean([token_mixing.token_mixing_moments(V, N, w, np.random.default_rng(10 + s))[3] for s in range(draws)])
    excess = m4 - theory.MarchenkoPastur(V / N).moments(4)[3]
    c, r = V / N, float((w**4).sum() / (w @ w) ** 2)
    assert excess == pytest.approx(theory.tokens.m4_shift(1.0, 2.0, w), abs=tol)  # delta gamma^2 = c^2 at delta = 1
    for wrong in (c**2 * r, 0.0):  # the first-power excess, no excess
        assert abs(excess - wrong) > tol


def test_exact_spectra_and_t_departure_shapes():
    s = Setting(d=40, V=80, N=160, mu_norm2=0.0, process=positional.independent(4), weights="mean")
    ev = sweep([s], 3, 2, spectrum="exact").spectra[0]
    assert ev.shape == (2, 40)
    np.testing.assert_array_equal(ev, sweep([s], 3, 2, spectrum="exact").spectra[0])
    dep = token_mixing.t_departure(0.5, 0.25, 40, [1, 4], seed=1, draws=2)
    assert dep.m4.shape == (2,) and dep.m4_predicted[0] > dep.m4_predicted[1] > dep.m4_law
    assert dep.edges == pytest.approx(theory.Bulk(0.5, 0.25).support)


# ----------------------------------------------------------------------------- validation


def test_bad_input_raises_named_errors():
    law = theory.Bulk(0.5, 0.25)
    with pytest.raises(ValueError, match="law"):
        compare.ks_distance([1.0, 2.0], "bulk")
    with pytest.raises(ValueError, match="eigenvalues"):
        compare.histogram_l1([], law)
    with pytest.raises(ValueError, match="eigenvalues"):
        compare.ks_distance([-1.0, 1.0], law)
    with pytest.raises(ValueError, match="bins"):
        compare.histogram_l1([1.0], law, bins=0)
    with pytest.raises(ValueError, match="delta"):
        theory.Bulk(-1, 0.5)
    with pytest.raises(ValueError, match="ratio"):
        theory.MarchenkoPastur(0.0)
    with pytest.raises(ValueError, match="V"):
        token_mixing.token_mixing_moments(11, 10, [1.0], np.random.default_rng(0))
    with pytest.raises(ValueError, match="w"):
        theory.tokens.m4_shift(0.5, 0.25, [0.0, 0.0])
    with pytest.raises(ValueError, match="draws"):
        token_mixing.t_departure(0.5, 0.25, 40, [1], seed=0, draws=1)
    with pytest.raises(ValueError, match="x"):
        law.cdf([np.nan])


def test_exact_spectra_equal_simulate_full_spectrum():
    from attnlib import simulate

    s = Setting(d=30, V=40, N=90, mu_norm2=0.5, process=positional.markov(3, 0.5), weights="causal")
    ev = sweep([s], 7, 2, spectrum="exact").spectra[0]
    streams = np.random.SeedSequence(7).spawn(2)
    for j in range(2):
        ref = simulate(s, np.random.default_rng(streams[j]), spectrum="exact").eigenvalues
        np.testing.assert_allclose(ev[j], ref, rtol=1e-9, atol=1e-12)


def test_overlay_draws_histogram_and_law():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    law = theory.Bulk(0.5, 3.0)
    x = np.concatenate([np.zeros(5), _quantiles(law, 3000)])  # a few extra zeros, as after centering
    fig, ax = plt.subplots()
    plotting.overlay(ax, x, law, bins=30)
    heights = [p.get_height() for p in ax.patches]
    assert len(heights) == 30 and heights[0] == 0.0  # no spurious bar of zeros at 0
    assert len(ax.lines) == 3  # density and two edges
    plt.close(fig)
