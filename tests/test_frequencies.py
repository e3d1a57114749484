"""Token frequencies (attnlib.model.frequencies): Zipf profiles, the effective vocabulary and the centroid shift."""

import numpy as np
import pytest

from attnlib.model import frequencies, generative
from attnlib.model.variants import ModelOptions


def test_zipf_profiles():
    np.testing.assert_allclose(frequencies.zipf(5, 0.0), np.full(5, 0.2))
    f = frequencies.zipf(100, 1.1)
    assert f.sum() == pytest.approx(1.0) and np.all(np.diff(f) < 0)
    assert f[0] / f[9] == pytest.approx(10**1.1)
    with pytest.raises(ValueError, match="s must be"):
        frequencies.zipf(10, -1.0)


def test_effective_vocabulary_and_population():
    assert frequencies.effective_vocabulary(np.full(50, 0.02)) == pytest.approx(100.0)
    assert frequencies.effective_vocabulary(np.full(50, 0.02), classes=3) == pytest.approx(150.0)
    f = frequencies.zipf(200, 0.8)
    H = frequencies.population(f)
    assert H.side == "tokens" and H.moment(1) == pytest.approx(1.0)
    # m_2(H) = V / V_eff: the second moment of omega = V pi
    assert H.moment(2) == pytest.approx(400 / frequencies.effective_vocabulary(f))
    with pytest.raises(ValueError, match="sum to 1"):
        frequencies.effective_vocabulary([0.5, 0.6])


def test_centroid_shift_is_d_over_the_effective_vocabulary():
    d, f = 300, frequencies.zipf(300, 1.1)
    q2 = [np.sum(generative.draw_vocabulary(d, 600, 0.0, np.random.default_rng(s), options=ModelOptions(frequencies=f)).q
                 ** 2) for s in range(40)]
    # ||q||^2 = sum_v pi_v^2 chi^2_d exactly: mean d / V_eff, relative sd sqrt(2/d) = 8%; 40 draws: 1.3%
    assert np.mean(q2) == pytest.approx(frequencies.centroid_shift(d, f), rel=0.05)
    assert frequencies.centroid_shift(d, f) > 15 * frequencies.centroid_shift(d, frequencies.zipf(300, 0.0))
