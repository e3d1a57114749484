"""The one-token law (attnlib.theory.single_token): the Poisson population, the Stieltjes solver against closed forms and
against the book's bulk law, exact moments, the lower edge, and a small Monte-Carlo run."""

import numpy as np
import pytest

from attnlib import Setting, sweep, theory
from attnlib.engine import compare
from attnlib.theory import single_token
from attnlib.model import positional


def test_count_population_is_poisson_over_its_mean():
    tau, p = single_token.count_population(0.25, 0.5)  # lambda = 0.5
    assert p.sum() == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(tau, np.arange(tau.size) / 0.5)
    assert np.sum(p * tau) == pytest.approx(1.0, abs=1e-12)
    assert np.sum(p * (tau - 1) ** 2) == pytest.approx(1 / 0.5, abs=1e-12)  # variance 1/lambda
    assert p[0] == pytest.approx(np.exp(-0.5), rel=1e-12)


@pytest.mark.parametrize("delta,gamma", [(0.25, 0.5), (0.5, 0.5), (0.3, 0.1)])
def test_moments_against_the_bulk_law_and_m4_shift(delta, gamma):
    """Same first three moments as kappa (MP x MP); the 4th exceeds it by delta gamma^2 (theory.tokens.m4_shift, T_eff = 1)."""
    m = single_token.OneToken(delta, gamma).moments(5)
    b = theory.Bulk(delta, gamma).moments(5)
    np.testing.assert_allclose(m[:3], b[:3], rtol=1e-12)
    assert m[1] == pytest.approx(1 + delta + gamma, rel=1e-12)
    assert m[3] - b[3] == pytest.approx(theory.tokens.m4_shift(delta, gamma, np.eye(4)[0]), rel=1e-9)
    assert m[3] - b[3] == pytest.approx(delta * gamma**2, rel=1e-9)
    np.testing.assert_allclose(single_token.OneToken(delta, gamma, 2.0).moments(3), 2.0 ** np.arange(1, 4) * m[:3],
                               rtol=1e-12)


def test_stieltjes_inverts_the_explicit_map():
    z = np.array([0.3 + 0.2j, 1.5 + 1e-3j, 4.0 + 2.0j, 0.05 + 1e-6j])
    m = single_token.OneToken(0.25, 0.5, 1.5).stieltjes(z)
    assert np.all(m.imag > 0)
    tau, p = single_token.count_population(0.25, 0.5)  # the explicit map z(m), written out here
    z_of_m = -1 / m + 1.5 * np.sum(p * tau / (1 + 0.25 * 1.5 * tau * m[:, None]), axis=1)
    np.testing.assert_allclose(z_of_m, z, rtol=1e-9, atol=1e-12)
    far = single_token.OneToken(0.25, 0.5).stieltjes(1e4j)  # m(z) ~ -1/z far from the support
    assert far == pytest.approx(-1 / 1e4j, rel=1e-3)


def test_density_integrates_to_one_with_the_exact_moments():
    law = single_token.OneToken(0.25, 0.5)
    assert isinstance(law, theory.SpectralLaw) and law.atom == 0.0
    x = law._table[0]
    f = law.density(x)
    m = single_token.OneToken(0.25, 0.5).moments(3)
    for k in range(3):
        assert np.trapezoid(f * x ** (k + 1), x) == pytest.approx(m[k], rel=2e-3)
    assert law.cdf(law.lower) == 0.0 and law.cdf(law.upper + 1) == 1.0
    assert np.all(np.diff(law.cdf(np.linspace(0, law.upper, 200))) >= 0)


def test_many_sequences_per_token_give_marchenko_pastur():
    """lambda = N/V -> infinity: the counts concentrate at their mean and the law tends to MP_delta."""
    delta, gamma = 0.25, 0.25 / 400
    x = np.linspace(0.4, 2.0, 9)
    np.testing.assert_allclose(single_token.OneToken(delta, gamma).density(x), theory.MarchenkoPastur(delta).density(x), atol=0.02)
    assert single_token.OneToken(delta, gamma).lower == pytest.approx(theory.MarchenkoPastur(delta).lower, abs=2 * gamma)


def test_the_same_equation_with_an_mp_population_gives_the_bulk_law():
    """The solver with H = MP_{gamma/delta} (a fine discretisation) reproduces kappa (MP_delta x MP_gamma)."""
    delta, gamma = 0.25, 0.5
    c = gamma / delta
    lo, hi = theory.MarchenkoPastur(c).support
    # n equal-mass atoms at the quantiles of MP_c (its CDF inverted on a fine grid), plus its atom at 0
    grid = np.linspace(lo, hi, 20001)
    cdf = np.concatenate(([0.0], np.cumsum(theory.MarchenkoPastur(c).density(grid[1:]) * np.diff(grid))))
    cdf /= cdf[-1]
    atom = max(0.0, 1 - 1 / c)
    n = 4000
    probs = atom + (1 - atom) * (np.arange(n) + 0.5) / n
    tau = np.concatenate(([0.0], np.interp((probs - atom) / (1 - atom), cdf, grid)))
    p = np.concatenate(([atom], np.full(n, (1 - atom) / n)))
    x = np.linspace(0.3, 3.0, 7)
    m = single_token._solve(x + 1e-9j, delta, tau, p)
    np.testing.assert_allclose(m.imag / np.pi, theory.Bulk(delta, gamma).density(x), atol=0.01)


def test_one_token_pooling_against_monte_carlo():
    """d = 200, 6 draws: the smallest eigenvalue sits at the one-token edge, not at the bulk law's; the KS distance
    to the one-token law (count fluctuations of order 1/sqrt(V) per draw) is well below that to the bulk law."""
    s = Setting(d=200, V=800, N=400, mu_norm2=1.0, process=positional.prefix(8, 2), weights=np.eye(8)[0])
    sw = sweep([s], seed=1, trials=6, k=1, spectrum="exact")
    smallest = sw.spectra[0].min(axis=1)
    edge, book = single_token.OneToken(s.delta, s.gamma).lower, theory.Bulk(s.delta, s.gamma).lower
    assert abs(smallest.mean() - edge) < abs(smallest.mean() - book) / 3
    law = single_token.OneToken(s.delta, s.gamma)
    assert compare.ks_distance(sw.spectra[0], law) < compare.ks_distance(sw.spectra[0], theory.Bulk(s.delta, s.gamma)) / 2


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: single_token.OneToken(0.7, 0.7).lower, "1 - exp"),  # lambda = 1: only 63 % of the tokens drawn
        (lambda: single_token.OneToken(0.25, 0.5).stieltjes(1.0 + 0j), "Im z"),
        (lambda: single_token.OneToken(0.25, 0.5).density([0.1, np.nan]), "finite"),
        (lambda: single_token.count_population(0.25, 0.5, tail=0.7), "tail"),
        (lambda: single_token.OneToken(0.25, 0.5).moments(0), "k must"),
        (lambda: single_token.OneToken(0.25, -0.5), "gamma"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()
