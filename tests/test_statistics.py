"""The summaries of repeated measurements (attnlib.numerics.statistics), the largest eigenvalue of R
(attnlib.numerics.linalg.largest_eigenvalue) and the number of tokens a pooled vector mixes
(attnlib.theory.tokens.effective_tokens): against direct computations, and their argument checks."""

import numpy as np
import pytest

from attnlib.model import positional as P
from attnlib.model import weights as W
from attnlib.numerics import linalg, statistics
from attnlib.theory import tokens


def test_standard_error_is_the_sd_over_root_n_along_an_axis():
    x = np.random.default_rng(0).standard_normal((5, 7))
    assert np.allclose(statistics.standard_error(x), [np.std(r, ddof=1) / np.sqrt(7) for r in x])
    assert np.allclose(statistics.standard_error(x, axis=0), [np.std(c, ddof=1) / np.sqrt(5) for c in x.T])
    assert statistics.standard_error([1.0, 3.0]) == pytest.approx(1.0)


@pytest.mark.parametrize("x, axis, match", [([1.0], -1, "at least 2"), ([[1.0, 2.0]], 0, "at least 2"),
                                            ([1.0, np.nan], -1, "finite"), ([1.0, 2.0], 1, "axis"),
                                            (3.0, -1, "axis")])
def test_standard_error_refuses_what_has_none(x, axis, match):
    with pytest.raises(ValueError, match=match):
        statistics.standard_error(x, axis=axis)


def test_root_mean_square():
    assert statistics.root_mean_square([3.0, -4.0]) == pytest.approx(np.sqrt(12.5))
    assert statistics.root_mean_square(np.full((2, 3), -2.0)) == pytest.approx(2.0)
    for bad in ([], [1.0, np.inf]):
        with pytest.raises(ValueError, match="x must"):
            statistics.root_mean_square(bad)


def test_slope_recovers_a_line_and_fits_each_column():
    x = np.log([250.0, 500.0, 1000.0, 2000.0])
    y = np.c_[1.0 - 0.5 * x, 2.0 + 0.25 * x]
    assert np.allclose(statistics.slope(x, y), [-0.5, 0.25])
    assert statistics.slope(x, y[:, 0]) == pytest.approx(-0.5)
    assert statistics.slope(x, y[:, 0]) == pytest.approx(np.polyfit(x, y[:, 0], 1)[0])
    with pytest.raises(ValueError, match="distinct"):
        statistics.slope([1.0, 1.0], [0.0, 1.0])
    with pytest.raises(ValueError, match="shape"):
        statistics.slope(x, y[:3])


def test_proportional_fit_is_weighted_least_squares_through_the_origin():
    x, se = np.array([0.2, 0.1, 0.05]), np.array([0.01, 0.02, 0.04])
    A, A_se = statistics.proportional_fit(x, 1.5 * x, se)
    assert A == pytest.approx(1.5) and A_se == pytest.approx(1 / np.sqrt(np.sum(x**2 / se**2)))
    y = np.array([0.31, 0.14, 0.09])  # against lstsq on the rows scaled by 1/se
    assert A != pytest.approx(statistics.proportional_fit(x, y, se)[0])
    assert statistics.proportional_fit(x, y, se)[0] == pytest.approx(
        np.linalg.lstsq((x / se)[:, None], y / se, rcond=None)[0][0])
    for args, match in (((x, y, -se), "se must"), ((x, y[:2], se), "same length"), ((0 * x, y, se), "all zero")):
        with pytest.raises(ValueError, match=match):
            statistics.proportional_fit(*args)


def test_largest_eigenvalue_is_the_best_alpha_over_kappa():
    R = P.markov(12, 0.6).R
    assert linalg.largest_eigenvalue(R) == pytest.approx(W.snr(W.optimal(R), R), rel=1e-12)
    assert linalg.largest_eigenvalue(np.eye(3)) == 1.0
    for bad, match in ((np.ones((2, 3)), "square"), (np.triu(np.ones((3, 3))), "symmetric"),
                       (np.full((2, 2), np.nan), "finite")):
        with pytest.raises(ValueError, match=match):
            linalg.largest_eigenvalue(bad)


def test_effective_tokens_counts_the_tokens_mixed():
    assert tokens.effective_tokens(W.mean(16)) == pytest.approx(16)
    assert tokens.effective_tokens(np.eye(16)[3]) == pytest.approx(1)
    w = W.causal(16)
    assert tokens.effective_tokens(w) == pytest.approx(W.kappa(w) ** 2 / np.sum(w**4))
    with pytest.raises(ValueError, match="w"):
        tokens.effective_tokens([0.0, 0.0])


def test_largest_difference_is_relative_to_the_recorded_value_or_one():
    assert statistics.largest_difference([2.0, 0.001, np.nan], [2.0, 0.0, np.nan]) == pytest.approx(0.001)
    assert statistics.largest_difference([10.5], [10.0]) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="one shape"):
        statistics.largest_difference([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="NaN at the same places"):
        statistics.largest_difference([np.nan], [1.0])
