"""The downstream runner (attnlib.studies.experiment.run_experiment): shapes, determinism and validation; every field of
one vocabulary against an independent recomputation; the out-of-sample vote against its mean a <u_hat, h>."""

import numpy as np
import pytest

from attnlib.studies import downstream as ds
from attnlib.studies.experiment import run_experiment
from attnlib.model import generative
from attnlib.model import positional as P
from attnlib.model import weights as W
from attnlib.studies import classifiers as cl
from attnlib.engine.montecarlo import streams

PROC = P.prefix(8, 2)
WS = {"mean": W.mean(8), "optimal": W.optimal(PROC.R)}
KW = dict(d=40, V=100, mu_norm2=1.0, n_train=[30, 60], n_test=1000, vocabularies=2, seed=3, n_anchor=5)


@pytest.fixture(scope="module")
def ex():
    return run_experiment(PROC, WS, **KW)


def test_run_experiment_shapes_determinism_and_validation(ex):
    kw = {**KW, "n_test": 200}
    small = run_experiment(PROC, WS, **kw)
    assert small.ridge.shape == (2, 2, 2) and small.oracle.shape == (2, 2) and small.names == ("mean", "optimal")
    again = run_experiment(PROC, WS, **kw)
    for name in ("ridge", "spectral", "top", "vote_in", "vote_out", "oracle"):
        np.testing.assert_array_equal(getattr(small, name), getattr(again, name))
        assert getattr(ex, name).shape == getattr(small, name).shape
    diff, se = ex.paired_difference("ridge", 1, 0)
    np.testing.assert_allclose(diff, (ex.ridge[:, 1] - ex.ridge[:, 0]).mean(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(se, (ex.ridge[:, 1] - ex.ridge[:, 0]).std(axis=-1, ddof=1) / np.sqrt(2), rtol=1e-12)
    assert ex.setting(1, 60).N == 60 and ex.setting(1, 60).label == "optimal"
    assert run_experiment(PROC, WS, **{**kw, "n_anchor": 40}).n_anchor == 40  # held out: any number
    with pytest.raises(ValueError, match="n_anchor"):
        run_experiment(PROC, WS, **{**kw, "n_anchor": 0})
    with pytest.raises(ValueError, match="weights"):
        run_experiment(PROC, {}, **kw)
    with pytest.raises(ValueError, match="block"):
        run_experiment(P.markov(8, 0.5), WS, **kw)


def _replay(v):
    """Vocabulary ``v`` of the run recomputed from the table alone: pooled vectors by einsum, S by numpy's eigh,
    ridge by classifiers.ridge_path (checked against lstsq in test_downstream.py), and the covariance of c given
    the vocabulary from the table's class means m_+, m_- (E c c^T = kappa E^T E / V + ((sum w)^2 - kappa) M M^T
    + (alpha - kappa) D D^T with M = (m_+ + m_-)/2, D = (m_+ - m_-)/2, so
    Cov = kappa (E^T E / V - M M^T) + (alpha - kappa) D D^T),
    not from attnlib's Z, s, mu split."""
    rng = np.random.default_rng(streams(KW["seed"], KW["vocabularies"])[v])
    d, V, n_max, n_a, n_test = KW["d"], KW["V"], max(KW["n_train"]), KW["n_anchor"], KW["n_test"]
    voc = generative.draw_vocabulary(d, V, KW["mu_norm2"], rng)
    xi = PROC.sample(n_max + n_a + n_test, rng)
    tokens = generative.sample_tokens(xi, V, rng)
    y = xi[:, ds.label_position(PROC)].astype(float)
    E = voc.table
    m_plus, m_minus = E[: V // 2].mean(axis=0), E[V // 2:].mean(axis=0)  # class +1 holds tokens 0..V/2-1
    M, D = (m_plus + m_minus) / 2, (m_plus - m_minus) / 2
    out = {}
    for name, w in WS.items():
        alpha, kappa, a = w @ PROC.R @ w, w @ w, PROC.R[ds.label_position(PROC)] @ w
        cov = kappa * (E.T @ E / V - np.outer(M, M)) + (alpha - kappa) * np.outer(D, D)
        C = np.einsum("t,ntd->nd", w, E[tokens])
        train, anchors, test = C[:n_max], C[n_max:n_max + n_a], C[n_max + n_a:]
        beta = np.linalg.solve(cov - a * a * np.outer(D, D), D)  # Fisher rule: Cov(c | label)^{-1} D
        oracle = np.mean(np.sign(a * (test - train.mean(axis=0)) @ beta) == y[n_max + n_a:])
        for n in KW["n_train"]:
            Xc = train[:n] - train[:n].mean(axis=0)
            vals, vecs = np.linalg.eigh(Xc.T @ Xc / n)
            u = vecs[:, -1] * (1 if y[n_max:n_max + n_a] @ ((anchors - train[:n].mean(axis=0)) @ vecs[:, -1]) >= 0
                               else -1)
            eta = u @ D
            p_test = (test - train[:n].mean(axis=0)) @ u
            sign = 1.0 if a * eta >= 0 else -1.0
            ridge = cl.ridge_path(cl.Decomposition.of(train[:n]), y[:n], cl.DEFAULT_LAMBDAS).decision(test)
            out[name, n] = dict(
                top=vals[-1], overlap_u=(u @ voc.u) ** 2, overlap_h=eta**2 / (D @ D), eta2=eta**2, quad=u @ cov @ u,
                sign_error=float(a * eta < 0), spectral=np.mean(np.where(p_test >= 0, 1, -1) == y[n_max + n_a:]),
                ridge=np.mean(np.where(ridge >= 0, 1, -1) == y[n_max + n_a:]),
                vote_in=sign * np.mean(y[:n] * (Xc @ u)), vote_out=sign * np.mean(y[n_max + n_a:] * p_test),
                oracle=oracle, h_norm2=D @ D)
    return out


@pytest.mark.parametrize("v", [0, 1])
def test_every_field_equals_an_independent_recomputation(ex, v):
    """Continuous fields to 1e-8 relative (two eigensolvers on a 40 x 40 matrix agree to ~1e-13; the covariance
    by another route to rounding); accuracies exactly up to one test row (a score within rounding of 0)."""
    ref = _replay(v)
    for i, n in enumerate(KW["n_train"]):
        for j, name in enumerate(WS):
            want = ref[name, n]
            for field in ("top", "overlap_u", "overlap_h", "eta2", "quad", "vote_in", "vote_out", "sign_error"):
                assert getattr(ex, field)[i, j, v] == pytest.approx(want[field], rel=1e-8, abs=1e-12), (field, n, name)
            for field in ("spectral", "ridge"):
                assert abs(getattr(ex, field)[i, j, v] - want[field]) <= 1.0 / KW["n_test"], (field, n, name)
            assert abs(ex.oracle[j, v] - want["oracle"]) <= 1.0 / KW["n_test"]
    assert ex.h_norm2[v] == pytest.approx(ref["mean", 30]["h_norm2"], rel=1e-10)


def test_the_out_of_sample_vote_has_mean_a_eta_and_the_in_sample_one_does_not(ex):
    """A test row's projection on u_hat (fixed by the training set) has mean y a <u_hat, h> and variance
    u_hat^T Sigma u_hat - a^2 <u_hat, h>^2 (``quad``): so vote_out = |a eta| within that sd / sqrt(n_test),
    4 of them allowed per fit. Measured over 24 fits (6 vocabularies, seed 11, n_test 2000): z of mean -0.14
    and sd 1.16, between -2.7 and 1.8. The in-sample vote (training rows, on which u_hat was fitted) taken for
    it, the plausible wrong formula, sits 12 sd above on average there (-17 to +32; 8.9 in this run at n_test
    1000): its mean z over the fits must exceed 4."""
    a = np.array([PROC.R[ex.position] @ w for w in ex.weights])[None, :, None]
    target = np.abs(a) * np.sqrt(ex.eta2)
    sd = np.sqrt((ex.quad - a * a * ex.eta2) / ex.n_test)
    z_out, z_in = (ex.vote_out - target) / sd, (ex.vote_in - target) / sd
    assert np.all(np.abs(z_out) < 4), z_out
    assert z_in.mean() > 4, z_in


def test_stored_experiment_reads_back_selects_and_reruns(ex, tmp_path):
    """arrays() / from_arrays() round-trip through a file; select() is a run with those weightings alone;
    first_vocabulary_difference() is 0 here and sees a changed measurement."""
    from attnlib.studies.experiment import Experiment, first_vocabulary_difference
    np.savez(tmp_path / "ex.npz", **ex.arrays("n/"))
    back = Experiment.from_arrays(np.load(tmp_path / "ex.npz"), PROC, "n/")
    assert back.names == ex.names and back.settings() == ex.settings() == {**KW, "mu_norm2": 1.0}
    for name in ("ridge", "spectral", "top", "oracle", "h_norm2", "sign_error"):
        assert np.array_equal(getattr(back, name), getattr(ex, name), equal_nan=True), name
    alone = run_experiment(PROC, {"optimal": WS["optimal"]}, **KW)
    picked = ex.select(["optimal"])
    for name in ("ridge", "spectral", "overlap_h", "vote_out", "oracle"):
        assert np.array_equal(getattr(picked, name), getattr(alone, name), equal_nan=True), name
    assert first_vocabulary_difference(back) == 0.0
    moved = back.select(back.names)
    moved.top[0, 0, 0] *= 1 + 1e-6  # a stored number the code would not give
    assert first_vocabulary_difference(moved) == pytest.approx(1e-6 * ex.top[0, 0, 0] / max(ex.top[0, 0, 0], 1),
                                                                rel=1e-3)
    with pytest.raises(ValueError, match="R differs"):
        Experiment.from_arrays(np.load(tmp_path / "ex.npz"), P.prefix(8, 3), "n/")
    with pytest.raises(ValueError, match="names must be"):
        ex.select(["first token"])
