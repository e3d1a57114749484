"""Property-based tests of the closed forms over the whole parameter range (hypothesis).

delta, gamma in [1e-4, 1e3] and kappa in [1e-3, 10] (log-uniform), spike strengths on both sides of both
thresholds:

* the bulk density is finite and non-negative, and integrates to 1 - atom (adaptive quadrature with the
  square-root edges handled by QUADPACK's algebraic weight, independent of the book's own CDF);
* an outlier exists iff theta is above its threshold, and it lies outside the bulk (population outlier above
  kappa (1 + sqrt(delta))^2, sample outlier above the bulk's upper edge);
* overlaps lie in [0, 1] and vanish continuously at the thresholds;
* as delta -> 0 the formulas reduce to the classical BBP values for sample covariance matrices.

Skipped, with the reason, when hypothesis (the optional ``test`` extra) is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad

from attnlib import theory

hypothesis = pytest.importorskip("hypothesis", reason="property tests need the optional test extra: "
                                                      "pip install -e '.[test]' (make test installs it)")
from hypothesis import given, settings, strategies as st  # noqa: E402

# derandomize: the examples are fixed (a reproducible CI), the same for every run
EXAMPLES = 200
MASS_EXAMPLES = 60  # each needs an adaptive quadrature


def log_uniform(lo: float, hi: float):
    return st.floats(np.log10(lo), np.log10(hi)).map(lambda e: float(10.0**e))


ratio = log_uniform(1e-4, 1e3)
scale = log_uniform(1e-3, 10.0)
unit = st.floats(1e-9, 1.0)  # positions in the support (denormal distances to a hard edge excluded)


def _mass(delta, gamma, kappa):
    """Integral of the continuous part of the density by QUADPACK, independent of attnlib's CDF.

    Soft edges: the algebraic end-point weight sqrt((x - lo)(hi - x)). A hard edge at 0 (delta = 1, gamma = 1
    or delta = gamma >= 1, where the density grows like x^(-1/2) or x^(-2/3)), or a soft edge so close to 0
    that the density has a tall narrow peak there: the substitution x = lo + (hi - lo) s^3, which turns those
    singularities into bounded integrands.
    """
    lo, hi = theory.bulk_edges(delta, gamma, kappa)
    if lo <= 1e-2 * hi:
        width, s0 = hi - lo, 1e-5  # below x - lo = 1e-15 width: at most 3 eps density(eps), as for x^(-2/3)
        value, _ = quad(lambda s: theory.bulk_density(lo + width * s**3, delta, gamma, kappa) * 3 * width * s * s,
                        s0, 1.0, limit=200, epsabs=1e-11, epsrel=1e-9)
        eps = width * s0**3
        return value + 3.0 * eps * theory.bulk_density(lo + eps, delta, gamma, kappa)

    def f(x):  # the density divided by QUADPACK's weight sqrt((x - lo)(hi - x)), 0 where that vanishes
        arg = (x - lo) * (hi - x)
        return theory.bulk_density(x, delta, gamma, kappa) / np.sqrt(arg) if arg > 0 else 0.0

    value, _ = quad(f, lo, hi, weight="alg", wvar=(0.5, 0.5), limit=400, epsabs=1e-13, epsrel=1e-10)
    return value


@settings(max_examples=MASS_EXAMPLES, deadline=None, derandomize=True)
@given(delta=ratio, gamma=ratio, kappa=scale, u=unit)
def test_density_is_finite_non_negative_and_has_mass_one_minus_atom(delta, gamma, kappa, u):
    lo, hi = theory.bulk_edges(delta, gamma, kappa)
    assert 0.0 <= lo < hi and np.isfinite(hi)
    x = np.concatenate([np.linspace(lo, hi, 257), [lo + u * (hi - lo), -1.0, 2 * hi]])
    dens = np.asarray(theory.bulk_density(x, delta, gamma, kappa))
    assert np.all(np.isfinite(dens)) and np.all(dens >= 0)
    assert dens[-1] == 0.0 and dens[-2] == 0.0
    mass = _mass(delta, gamma, kappa)
    # 1e-5: the quadrature's own accuracy next to a hard edge at 0 (delta, gamma -> 1); a wrong density or a
    # wrong atom is off by far more (e.g. the MP_delta law alone misses the mass by the atom's change)
    assert mass == pytest.approx(1.0 - theory.zero_atom(delta, gamma), abs=1e-5)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(delta=ratio, gamma=ratio, kappa=scale, u=st.floats(-0.9, 3.0))
def test_outliers_exist_iff_above_threshold_and_lie_outside_the_bulk(delta, gamma, kappa, u):
    theta_pop, theta_smp = theory.thresholds(delta, gamma)
    assert theta_pop < theta_smp
    theta = theta_pop * (1.0 + u) if u < 1.0 else theta_smp * u
    sp = theory.spike(theta, delta, gamma, kappa)
    assert np.isfinite(sp.population_eigenvalue) == (theta > theta_pop)
    assert np.isfinite(sp.sample_eigenvalue) == (theta > theta_smp)
    if theta > theta_pop:
        assert sp.population_eigenvalue > kappa * (1 + np.sqrt(delta)) ** 2 * (1 - 1e-12)
    if theta > theta_smp:
        assert sp.sample_eigenvalue > theory.bulk_edges(delta, gamma, kappa)[1] * (1 - 1e-12)
        assert sp.sample_eigenvalue >= sp.population_eigenvalue * (1 - 1e-12)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(delta=ratio, gamma=ratio, theta=log_uniform(1e-4, 1e4))
def test_overlaps_in_unit_interval(delta, gamma, theta):
    sp = theory.spike(theta, delta, gamma)
    for value in (sp.population_overlap, sp.sample_overlap):
        assert 0.0 <= value <= 1.0
    assert sp.sample_overlap <= sp.population_overlap + 1e-12  # sampling cannot improve the alignment


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(delta=ratio, gamma=ratio)
def test_overlaps_vanish_continuously_at_the_thresholds(delta, gamma):
    theta_pop, theta_smp = theory.thresholds(delta, gamma)
    eps = 1e-7
    just_pop = theory.spike(theta_pop + eps * theta_pop, delta, gamma)
    just_smp = theory.spike(theta_smp + eps * theta_smp, delta, gamma)
    assert just_pop.population_overlap < 1e-3
    assert just_smp.sample_overlap < 1e-3
    # and the sample outlier detaches from the upper edge continuously
    upper = theory.bulk_edges(delta, gamma)[1]
    assert just_smp.sample_eigenvalue == pytest.approx(upper, rel=1e-5)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(gamma=log_uniform(1e-3, 1e2), ratio_=log_uniform(1.01, 1e3))
def test_classical_bbp_as_delta_vanishes(gamma, ratio_):
    """delta -> 0: threshold sqrt(gamma), outlier (1 + t)(1 + gamma/t), overlap (1 - gamma/t^2)/(1 + gamma/t)."""
    delta = 1e-9
    t = np.sqrt(gamma) * ratio_  # spike strength above the classical threshold
    sp = theory.spike(t + delta, delta, gamma)
    assert theory.thresholds(delta, gamma)[1] == pytest.approx(np.sqrt(gamma), rel=1e-3, abs=1e-6)
    assert sp.sample_eigenvalue == pytest.approx((1 + t) * (1 + gamma / t), rel=1e-5)
    assert sp.sample_overlap == pytest.approx((1 - gamma / t**2) / (1 + gamma / t), rel=1e-4, abs=1e-6)
