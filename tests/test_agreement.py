"""attnlib.compare: theory against simulation in one call, and the finite-d sd it predicts.

The predicted sd of the top eigenvalue is attnlib.theory.fluctuations.outlier_sd; that of the overlaps with h and
u is attnlib.theory.overlap_fluctuations.spike_variance, whose eigenvalue variance, reached by another route, must
equal outlier_variance. The spread test compares the predicted sd with the sd of 200 draws at d = 200.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import attnlib  # noqa: E402
from attnlib import Setting, positional, theory  # noqa: E402
from attnlib.model.setting import sizes_for  # noqa: E402
from attnlib.studies import agreement as A  # noqa: E402
from attnlib.theory import fluctuations as fl, overlap_fluctuations as OF  # noqa: E402

CHAIN = positional.markov(16, 0.8)


def small(mu_norm2=1.0, weights="mean", d=60):
    V, N = sizes_for(d, 0.5, 0.25)
    return Setting(d=d, V=V, N=N, mu_norm2=mu_norm2, process=CHAIN, weights=weights)


@pytest.mark.parametrize("delta,gamma,theta,kappa,mu_norm2,beta4", [
    (0.5, 0.25, 4.0, 1.0, 1.0, 3.0), (0.5, 0.25, 4.0, 1.0, 1.0, 1.0), (0.3, 2.0, 6.0, 0.7, 0.5, 1.8),
    (2.0, 0.5, 9.0, 2.0, 3.0, 2.5), (0.05, 0.05, 1.0, 0.1, 0.0, 1.2)])
def test_two_routes_give_the_same_outlier_variance(delta, gamma, theta, kappa, mu_norm2, beta4):
    """spike_variance linearises the secular equation of the token-conditioned model; outlier_variance adds the
    sampling and vocabulary parts of the vocabulary-conditioned one: the same number, to round-off."""
    var = OF.spike_variance(delta, gamma, theta, 500, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4)
    ref = fl.outlier_variance(delta, gamma, theta, 500, kappa=kappa, mu_norm2=mu_norm2, beta4=beta4).total
    assert var.eigenvalue == pytest.approx(ref, rel=1e-10)
    assert var.overlap_h > 0 and (np.isnan(var.overlap_u) if mu_norm2 == 0 else var.overlap_u > 0)


def test_overlap_variance_scales_as_one_over_d_and_refuses_the_window():
    a, b = (OF.spike_variance(0.5, 0.25, 4.0, d, mu_norm2=1.0) for d in (100, 400))
    assert a.overlap_h / b.overlap_h == pytest.approx(4.0, rel=1e-12)
    with pytest.raises(ValueError, match="theta must exceed the sample threshold"):
        OF.spike_variance(0.5, 0.25, 1.5, 100)


def test_compare_rows_follow_their_definitions():
    settings = [small(1.0), small(1.0, "optimal"), small(0.0)]
    res = attnlib.sweep(settings, seed=3, trials=3, k=1)
    out = attnlib.compare(res)
    assert isinstance(out, A.Agreement) and len(out.rows) == 9
    for i, s in enumerate(settings):
        top = out.row(i, "top")
        assert top.mean == pytest.approx(res.mean("top")[i]) and top.sd == pytest.approx(res.sd("top")[i])
        assert top.limit == pytest.approx(s.signal().sample_eigenvalue)
        beta4 = out.kurtosis[i].value
        assert top.predicted_sd == pytest.approx(fl.outlier_sd(s.delta, s.gamma, s.theta, s.d, kappa=s.kappa,
                                                               mu_norm2=s.mu_norm2, beta4=beta4))
        assert top.z == pytest.approx((top.mean - top.limit) / (top.predicted_sd / np.sqrt(3)))
        assert out.row(i, "overlap_h").limit == pytest.approx(s.signal_h().sample_overlap)
        assert out.kurtosis[i].method == "exact" and out.kurtosis[i].sequences == 2**16
    at_zero = out.row(2, "overlap_u")
    assert np.isnan(at_zero.mean) and np.isnan(at_zero.predicted_sd) and "no direction u" in at_zero.note
    text = str(out)
    assert text.startswith("| setting | quantity | trials |") and "exact, law of 65,536 sequences" in text
    assert "no direction u" in text


def test_compare_takes_draws_and_says_when_there_is_no_prediction():
    s = small(0.0, d=80).replace(process=positional.independent(16))  # theta = delta: no outlier
    draws = [attnlib.simulate(s, np.random.default_rng(j)) for j in range(3)]
    out = attnlib.compare(draws, quantities=("top", "overlap_h"))
    assert len(out.settings) == 1 and out.row(0, "top").trials == 3
    assert out.row(0, "top").limit == pytest.approx(s.bulk.upper)
    assert "below the sample threshold" in out.row(0, "top").note and np.isnan(out.row(0, "overlap_h").z)
    assert np.allclose(out.values["top"][0], [x.top for x in draws])


def test_sampled_kurtosis_is_said_and_plot_draws():
    import matplotlib.pyplot as plt

    s = small(1.0).replace(process=positional.squared_exponential(16, 4.0))  # no closed-form law
    out = attnlib.compare(attnlib.sweep([s, s.replace(mu_norm2=2.0)], seed=1, trials=2, k=1), samples=20_000)
    assert out.kurtosis[0].method == "sampled" and "sampled, 20,000 sequences" in out.kurtosis_note()
    fig, ax = plt.subplots()
    out.plot(ax, "overlap_u", mu_range=(0.0, 2.0), points=11)
    assert len(ax.lines) == 1 + 2 * 2 and ax.get_xlabel().startswith("signal strength")
    plt.close(fig)


def test_predicted_sd_matches_the_spread_of_200_draws():
    """At d = 200 (mean pooling of the chain r = 0.8, ||mu||^2 = 1), the sd of 200 draws of each quantity is
    within 4 of its own standard errors of the predicted sd (the standard error of an sd from the draws'
    kurtosis k: sd sqrt((k - 1) / 4n)); the same test rejects the plausible wrong predictions: the sampling part
    alone for the eigenvalue (no vocabulary), and the chain rule through the eigenvalue for the overlap with h.
    Each draw takes about 10 ms on a quiet core (2-6 s in all)."""
    s, n = small(1.0, d=200), 200
    out = attnlib.compare(attnlib.sweep([s], seed=4, trials=n, k=1))
    for q in A.QUANTITIES:
        v, row = out.values[q][0], out.row(0, q)
        k = np.mean((v - v.mean()) ** 4) / v.var() ** 2
        se = row.sd * np.sqrt((k - 1.0) / (4 * n))
        assert abs(row.sd - row.predicted_sd) < 4 * se, (q, row.sd, row.predicted_sd, se)
        if q == "top":
            wrong = np.sqrt(fl.outlier_variance(s.delta, s.gamma, s.theta, s.d, kappa=s.kappa, mu_norm2=1.0,
                                                beta4=out.kurtosis[0].value).sampling)
        elif q == "overlap_h":
            sp = [theory.spike(s.delta, s.gamma, theta=s.theta + e, kappa=s.kappa) for e in (-1e-6, 1e-6)]
            slope = (sp[1].sample_overlap - sp[0].sample_overlap) / (sp[1].sample_eigenvalue - sp[0].sample_eigenvalue)
            wrong = abs(slope) * out.row(0, "top").predicted_sd
        else:
            continue
        assert abs(row.sd - wrong) > 4 * se, (q, row.sd, wrong, se)
