"""Sign processes: each sampler reproduces its R, with balanced marginals."""

import numpy as np
import pytest

from attnlib.model import positional as P

PROCESSES = [
    P.independent(6),
    P.markov(8, 0.6),
    P.markov(7, -0.5),
    P.markov(5, 1.0),
    P.prefix(8, 3),
    P.suffix(8, 2),
    P.blocks([2, 3, 1]),
    P.gaussian_signs(0.4 * np.eye(5) + 0.6),
    P.from_correlation(P.markov(6, 0.3).R),
]


@pytest.mark.parametrize("proc", PROCESSES, ids=lambda p: p.name)
def test_sampler_reproduces_R(proc):
    n = 200_000
    xi = proc.sample(n, np.random.default_rng(1))
    assert xi.shape == (n, proc.T) and set(np.unique(xi)) <= {-1, 1}
    # each entry of the empirical R has standard deviation <= 1/sqrt(n); 5 sigma over ~T^2 entries
    np.testing.assert_allclose(P.empirical_correlation(xi), proc.R, atol=5 / np.sqrt(n))
    np.testing.assert_allclose(xi.mean(axis=0), 0.0, atol=5 / np.sqrt(n))


def test_targets():
    np.testing.assert_allclose(P.markov(4, 0.5).R[0], [1, 0.5, 0.25, 0.125])
    R = P.prefix(5, 2).R
    assert R[0, 1] == 1 and R[1, 2] == 0 and np.allclose(np.diag(R), 1)
    assert P.suffix(5, 2).R[3, 4] == 1 and P.suffix(5, 2).R[0, 1] == 0
    np.testing.assert_allclose(P.gaussian_signs(np.array([[1, 0.5], [0.5, 1]])).R[0, 1], 2 / np.pi * np.arcsin(0.5))


def test_from_correlation_round_trip_and_unrealizable():
    R = P.markov(5, 0.7).R
    np.testing.assert_allclose(P.from_correlation(R).R, R)
    # a valid correlation matrix (PSD) that Gaussian signs cannot realize: sin(pi R/2) has a negative eigenvalue
    bad = np.full((3, 3), -0.45) + 1.45 * np.eye(3)
    assert np.linalg.eigvalsh(bad)[0] > 0
    with pytest.raises(ValueError, match="not realizable"):
        P.from_correlation(bad)


def test_sampling_is_reproducible():
    p = P.markov(6, 0.4)
    a = p.sample(100, np.random.default_rng(7))
    b = p.sample(100, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
