"""Tracy-Widom laws: moments against the published constants, shape of cdf/pdf, an independent Painleve II route."""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import airy

from attnlib.theory import tracy_widom as tw


def test_beta1_moments_reproduce_the_constants():
    m = tw.TracyWidom(1).stats()
    assert m.mass == pytest.approx(1.0, abs=1e-10)
    assert m.mean == pytest.approx(tw.MEAN, abs=1e-9)
    assert m.variance == pytest.approx(tw.VARIANCE, abs=1e-9)
    assert m.sd == pytest.approx(tw.SD, abs=1e-9)
    assert tw.SD == pytest.approx(1.2679830576, abs=1e-9)
    assert m.skewness == pytest.approx(0.29346452408, abs=1e-8)
    assert m.excess_kurtosis == pytest.approx(0.1652429384, abs=1e-8)


def test_beta2_moments_reproduce_the_constants():
    m = tw.TracyWidom(2).stats()
    assert m.mass == pytest.approx(1.0, abs=1e-10)
    assert m.mean == pytest.approx(-1.7710868074116, abs=1e-9)
    assert m.variance == pytest.approx(0.8131947928329, abs=1e-9)


@pytest.mark.parametrize("beta", [1, 2])
def test_cdf_is_a_distribution_function(beta):
    s = np.linspace(-9, 9, 73)
    F = tw.TracyWidom(beta).cdf(s)
    assert F.shape == s.shape
    assert np.all((F >= 0) & (F <= 1))
    assert np.all(np.diff(F) >= -1e-14)
    assert F[0] < 1e-9 and 1 - F[-1] < 1e-6
    assert tw.TracyWidom(beta).cdf(-np.inf) == 0.0 and tw.TracyWidom(beta).cdf(np.inf) == 1.0
    assert isinstance(tw.TracyWidom(beta).cdf(0.0), float)


@pytest.mark.parametrize("beta", [1, 2])
def test_pdf_is_the_derivative_of_cdf(beta):
    a, b = -5.0, 2.0
    x, w = np.polynomial.legendre.leggauss(40)
    pts, wts = (a + b) / 2 + (b - a) / 2 * x, (b - a) / 2 * w
    assert np.sum(wts * tw.TracyWidom(beta).density(pts)) == pytest.approx(tw.TracyWidom(beta).cdf(b) - tw.TracyWidom(beta).cdf(a), abs=1e-10)
    assert np.all(tw.TracyWidom(beta).density(np.linspace(-8, 8, 33)) >= 0)


def _painleve(points):
    """F_1 and F_2 from the Hastings-McLeod solution of q'' = s q + 2 q^3 (q ~ Ai at +inf), integrated backwards."""
    s0 = 8.0
    ai, aip, _, _ = airy(s0)
    u = np.linspace(s0, 40, 4001)  # tails of int q, int q^2 and int (x - s0) q^2 beyond s0, with q = Ai there
    a = airy(u)[0]
    tail = [np.trapezoid(f, u) for f in (a, a**2, (u - s0) * a**2)]

    def rhs(x, y):
        q, qp, _, j, _ = y
        return [qp, x * q + 2 * q**3, -q, -q**2, -j]

    sol = solve_ivp(rhs, (s0, min(points)), [ai, aip, *tail], method="DOP853", rtol=1e-12, atol=1e-300,
                    t_eval=sorted(points, reverse=True))
    F2 = np.exp(-sol.y[4])
    return sol.t, np.sqrt(F2) * np.exp(-0.5 * sol.y[2]), F2


def test_cdf_agrees_with_the_painleve_ii_route():
    s, F1, F2 = _painleve([-6.0, -4.0, -2.5, -1.0, 0.0, 1.5, 3.0])
    np.testing.assert_allclose(tw.TracyWidom(1).cdf(s), F1, atol=1e-8)
    np.testing.assert_allclose(tw.TracyWidom(2).cdf(s), F2, atol=1e-8)


@pytest.mark.parametrize("bad", [0, 3, 1.5, "1", True])
def test_beta_is_validated(bad):
    with pytest.raises(ValueError, match="beta"):
        tw.TracyWidom(bad).cdf(0.0)
    with pytest.raises(ValueError, match="beta"):
        tw.TracyWidom(bad).stats()


def test_points_are_validated():
    with pytest.raises(ValueError, match="x must not contain NaN"):
        tw.TracyWidom().density([0.0, np.nan])
    with pytest.raises(ValueError, match="x must be a real number"):
        tw.TracyWidom().cdf("zero")
