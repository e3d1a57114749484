"""The bulk law against an independent implementation: RMTool's polynomial method (Rao and Edelman, 2008).

RMTool (``pip install rmtool``; GPL, so an optional test extra, never a dependency of attnlib) represents a
law by the bivariate polynomial L(m, z) = 0 satisfied by its Stieltjes transform m(z). ``wishartpol(c)`` is
MP_c and ``AtimesB`` the free multiplicative convolution, computed by resultants: nothing in it shares code or
derivation with attnlib's closed form (a monic cubic in 1/psi solved by Cardano). Two comparisons over 24
regimes, 9 of them with delta > 1 and 8 with gamma > 1:

* the algebraic equations: attnlib's density and Stieltjes transform, substituted into RMTool's polynomial,
  leave residuals at rounding level;
* the densities: RMTool's ``Lmz2pdf`` on a grid inside the support against ``theory.Bulk(...).density``.

Skipped, with the reason, when the ``test`` extra is not installed (``pip install -e '.[test]'``; ``make
test`` installs it).
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib import theory

rmtool = pytest.importorskip("rmtool", reason="the bulk-law comparison needs the optional test extra: "
                                              "pip install -e '.[test]' (rmtool, GPL; make test installs it)")
sp = pytest.importorskip("sympy", reason="rmtool needs sympy")

DELTAS = (0.05, 0.3, 0.5, 0.9, 1.0, 1.5, 3.0, 8.0)
GAMMAS = (0.1, 0.7, 2.5)
REGIMES = [(d, g) for d in DELTAS for g in GAMMAS]
RESULTS: dict = {}


def polynomial(delta: float, gamma: float):
    """RMTool's L(m, z) for MP_delta ⊠ MP_gamma, as (coefficient, power of m, power of z) triples."""
    L = rmtool.AtimesB(rmtool.wishartpol(sp.nsimplify(delta)), rmtool.wishartpol(sp.nsimplify(gamma)))
    return [(float(c), i, j) for (i, j), c in sp.Poly(sp.expand(L), rmtool.m, rmtool.z).terms()]


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_density_matches_the_polynomial_method(delta, gamma):
    lo, hi = theory.Bulk(delta, gamma).support
    width = hi - lo
    x = lo + width * np.linspace(0.002, 0.998, 400)
    ours = np.asarray(theory.Bulk(delta, gamma).density(x))
    L = rmtool.AtimesB(rmtool.wishartpol(sp.nsimplify(delta)), rmtool.wishartpol(sp.nsimplify(gamma)))
    theirs = np.abs(np.asarray(rmtool.Lmz2pdf(L, xx=x).best_density(), dtype=float))
    scale = ours.max()
    diff = float(np.max(np.abs(theirs - ours)) / scale)
    RESULTS[delta, gamma] = diff
    assert diff < 1e-9, f"delta={delta}, gamma={gamma}: max |density difference| / max density = {diff:.2e}"


@pytest.mark.parametrize("delta,gamma", REGIMES)
def test_attnlib_transform_solves_the_polynomial(delta, gamma):
    """Above the support, attnlib's transform makes RMTool's L vanish to rounding.

    attnlib's law is z psi = (1+psi)(1+delta psi)(1+gamma psi) with psi = z G - 1 (theory module), i.e. the
    monic cubic in phi = 1/psi; RMTool's m(z) = integral dmu(t)/(t - z) is -G(z).
    """
    terms = polynomial(delta, gamma)
    _, hi = theory.Bulk(delta, gamma).support
    for z0 in (1.1 * hi, 2.0 * hi, 10.0 * hi):
        s1, s2, s3 = 1 + delta + gamma, delta + gamma + delta * gamma, delta * gamma
        phi = np.roots([1.0, s1 - z0, s2, s3])  # the physical branch: psi -> 0+ as z grows, phi ~ z
        psi = 1.0 / phi[np.argmin(np.abs(phi - z0))].real
        m = -(psi + 1.0) / z0
        residual = sum(c * m**i * z0**j for c, i, j in terms)
        size = sum(abs(c * m**i * z0**j) for c, i, j in terms)
        assert abs(residual) <= 1e-12 * size, (delta, gamma, z0, residual, size)


def test_the_comparison_fails_on_a_wrong_law():
    """The check can fail: MP_delta (the vocabulary alone) is far from RMTool's product law."""
    delta, gamma = 0.5, 0.7
    lo, hi = theory.Bulk(delta, gamma).support
    x = lo + (hi - lo) * np.linspace(0.05, 0.95, 50)
    L = rmtool.AtimesB(rmtool.wishartpol(sp.nsimplify(delta)), rmtool.wishartpol(sp.nsimplify(gamma)))
    theirs = np.abs(np.asarray(rmtool.Lmz2pdf(L, xx=x).best_density(), dtype=float))
    wrong = np.asarray(theory.MarchenkoPastur(delta).density(x))
    assert np.max(np.abs(theirs - wrong)) / theirs.max() > 0.1


def test_report_largest_difference():
    """Runs last in the module: the regimes are the ones the module docstring counts, every regime compared in
    this run agrees to 1e-9, the two codes are distinct (the differences are not all exactly zero, as they
    would be if both sides ran the same code), and the largest relative density difference is printed."""
    assert len(REGIMES) == 24
    assert sum(d > 1 for d, _ in REGIMES) == 9 and sum(g > 1 for _, g in REGIMES) == 8
    if not RESULTS:
        pytest.skip("no regime compared in this run")
    worst = max(RESULTS, key=RESULTS.get)
    print(f"rmtool vs attnlib: {len(RESULTS)} regimes, largest relative density difference "
          f"{RESULTS[worst]:.2e} at delta, gamma = {worst}")
    assert set(RESULTS) <= set(REGIMES)
    assert 0.0 < RESULTS[worst] < 1e-9
