"""Noise laws of the vocabulary (attnlib.model.noise): standardisation, fourth moments, streams and validation."""

import numpy as np
import pytest

from attnlib.model import noise


@pytest.mark.parametrize("law", [noise.gaussian(), noise.rademacher(), noise.sparse(0.1), noise.student(5.0)])
def test_laws_have_mean_zero_variance_one_and_their_fourth_moment(law):
    x = law.fill(np.empty(400_000), np.random.default_rng(0))
    assert abs(x.mean()) < 5 / np.sqrt(x.size)
    assert x.var() == pytest.approx(1.0, abs=0.03)
    # the empirical fourth moment of 4e5 draws is within a few per cent of E x^4 (Student-t nu = 5: heavy
    # tailed, its sample fourth moment converges slowly, so a wider band)
    assert np.mean(x**4) == pytest.approx(law.fourth_moment, rel=0.35 if law.name == "student" else 0.05)


def test_infinite_fourth_moment_below_four_degrees_of_freedom():
    assert noise.student(2.5).fourth_moment == np.inf
    assert noise.student(5).fourth_moment == pytest.approx(9.0)
    assert noise.sparse(0.1).fourth_moment == pytest.approx(30.0)


def test_gaussian_fill_is_the_standard_normal_stream_in_any_blocks():
    whole = np.random.default_rng(3).standard_normal((7, 5))
    rng = np.random.default_rng(3)
    blocks = [noise.gaussian().fill(np.empty((n, 5)), rng) for n in (3, 4)]
    np.testing.assert_array_equal(np.vstack(blocks), whole)


@pytest.mark.parametrize("make,match", [
    (lambda: noise.student(0), "degrees of freedom"),
    (lambda: noise.student(-3), "degrees of freedom"),
    (lambda: noise.student(2.0), "degrees of freedom"),
    (lambda: noise.sparse(0.0), "sparsity"),
    (lambda: noise.sparse(1.5), "sparsity"),
    (lambda: noise.NoiseLaw("cauchy"), "name must be one of"),
    (lambda: noise.NoiseLaw("gaussian", 2.0), "takes no parameter"),
    (lambda: noise.NoiseLaw("student"), "parameter"),
])
def test_bad_laws_are_refused(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_covariance_root():
    np.testing.assert_allclose(noise.covariance_root([4.0, 1.0]), [2.0, 1.0])
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    r = noise.covariance_root(A)
    np.testing.assert_allclose(r @ r, A, atol=1e-12)
    np.testing.assert_allclose(noise.covariance_root(np.diag([4.0, 1.0])), np.diag([2.0, 1.0]), atol=1e-12)
    for bad, match in [([1.0, 0.0], "positive definite"), ([[1.0, 2.0], [2.0, 1.0]], "positive definite"),
                       ([[1.0, 0.2], [0.0, 1.0]], "symmetric"), ([1.0, np.nan], "finite"),
                       (np.ones((2, 3)), "square")]:
        with pytest.raises(ValueError, match=match):
            noise.covariance_root(bad)
    with pytest.raises(ValueError, match="dimension d = 3"):
        noise.covariance_root([1.0, 1.0], d=3)
