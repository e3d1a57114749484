"""The Gaussian formula at given inner products (theory.classification.projection_snr, projection_accuracy), the
finite-d mean of h^T W'^-1 h and the Fisher shift it gives, where the spectral prediction is compared, and the
experiment's predictions and sweeps (studies.experiment)."""

import numpy as np
import pytest
from scipy.special import ndtr

from attnlib import Setting
from attnlib.model import positional as P
from attnlib.model import weights as W
from attnlib.studies import downstream as ds
from attnlib.studies import experiment
from attnlib.theory import classification

PROC = P.prefix(8, 2)
WS = {"mean": W.mean(8), "optimal": W.optimal(PROC.R)}
KW = dict(d=40, V=100, mu_norm2=1.0, n_train=[30, 60], n_test=200, vocabularies=2, n_anchor=5)


@pytest.fixture(scope="module")
def runs():
    return [experiment.run_experiment(PROC, WS, seed=s, **KW) for s in (3, 4)]


def test_projection_snr_and_accuracy():
    assert classification.projection_snr(0.6, 1.0) == pytest.approx(0.75)
    assert classification.projection_accuracy(0.6, 1.0) == pytest.approx(ndtr(0.75))
    assert classification.projection_accuracy(-0.6, 1.0) == pytest.approx(1 - ndtr(0.75))
    m, q = np.array([[0.1, 0.2], [0.3, -0.1]]), np.array([[1.0, 0.5], [0.2, 1.0]])
    assert np.allclose(classification.projection_accuracy(m, q), ndtr(m / np.sqrt(q - m**2)))
    for args, match in (((0.6, 0.3), "exceed"), ((m, q[0]), "same shape"), ((np.nan, 1.0), "finite")):
        with pytest.raises(ValueError, match=match):
            classification.projection_accuracy(*args)


def test_the_spectral_prediction_is_the_formula_at_its_limits():
    s = Setting(d=400, V=800, N=3200, mu_norm2=0.5, process=P.prefix(16, 4), weights="optimal")
    p = ds.spectral_accuracy(s)
    a = abs(ds.label_signal(s.weights, s.R, 0))
    assert classification.projection_accuracy(a * np.sqrt(p.eta2), p.quad) == pytest.approx(p.accuracy_signed)
    assert classification.projection_snr(a * np.sqrt(p.eta2), p.quad) == pytest.approx(p.snr)


def test_inverse_wishart_form_and_the_fisher_shift():
    assert classification.inverse_wishart_form(1.5, 400, 800) == pytest.approx(1.5 * 800 / 397)
    # large d at fixed delta: the finite-d mean tends to the limit ||h||^2 / (1 - delta)
    assert classification.inverse_wishart_form(1.5, 40_000, 80_000) == pytest.approx(3.0, rel=1e-3)
    with pytest.raises(ValueError, match="V must exceed d"):
        classification.inverse_wishart_form(1.0, 10, 12)
    s = Setting(d=400, V=800, N=800, mu_norm2=0.5, process=PROC, weights="mean")
    shift = ds.fisher_finite_d_shift(s)
    m_d = (0.5 + 0.5) * 800 / 397  # the Fisher ceiling at M = m_d, by hand
    a, alpha, kappa = ds.label_signal(s.weights, s.R, 0), s.alpha, s.kappa
    sep = a * a / kappa * m_d / (1 + (alpha - a * a) / kappa * m_d)
    assert shift == pytest.approx(ndtr(np.sqrt(sep)) - ds.fisher_accuracy(s))
    assert 0 < shift < 0.01
    assert abs(ds.fisher_finite_d_shift(s.at_dimension(40_000))) < shift / 50


def test_spectral_prediction_valid():
    s = Setting(d=400, V=800, N=800, mu_norm2=1.0, process=PROC, weights="optimal")
    assert ds.spectral_prediction_valid(s)
    assert not ds.spectral_prediction_valid(s.replace(N=200))  # N < d
    window = [m for m in np.linspace(0.0, 2.0, 401) if ds.in_critical_window(s.replace(mu_norm2=float(m)))]
    assert window and not ds.spectral_prediction_valid(s.replace(mu_norm2=float(window[0])))
    with pytest.raises(ValueError, match="setting"):
        ds.spectral_prediction_valid("a setting")


def test_predicted_spectral_is_spectral_accuracy_at_each_point(runs):
    ex = runs[0]
    got, own = ex.predicted_spectral(), ex.predicted_spectral(own_h=True)
    assert got.shape == own.shape == (2, 2)
    for i, n in enumerate(KW["n_train"]):
        for j in range(2):
            s = ex.setting(j, n)
            assert got[i, j] == ds.spectral_accuracy(s, n_anchor=5).accuracy
            assert own[i, j] == pytest.approx(np.mean([ds.spectral_accuracy(s, n_anchor=5, h_norm2=h2).accuracy
                                                       for h2 in ex.h_norm2]))


def test_across_stacks_a_sweep(runs):
    got = experiment.across(runs, "sem", "spectral", i_train=1)
    assert np.array_equal(got, np.array([e.sem("spectral")[1] for e in runs]))
    assert experiment.across(runs, "mean", "top").shape == (2, 2)
    with pytest.raises(ValueError, match="statistic"):
        experiment.across(runs, "median", "top")
    with pytest.raises(ValueError, match="field"):
        experiment.across(runs, "mean", "accuracy")


def test_across_refuses_what_is_not_a_sweep(runs):
    for args, match in ((([], "mean", "top"), "experiments"), (([1, 2], "mean", "top"), "experiments"),
                        ((runs, "mean", "top", 2), "i_train")):
        with pytest.raises(ValueError, match=match):
            experiment.across(*args)
