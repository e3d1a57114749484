"""More than two classes (attnlib.model.k_classes): the label chain, the K-class vocabulary, the rank-(K-1) spike, the
reduction to the book's model at K = 2, and the Monte-Carlo engine for K classes."""

import numpy as np
import pytest

from attnlib import Setting, sweep, theory
from attnlib.model import k_classes, noise, positional, weights
from attnlib.studies import k_class_sweep
from attnlib.model.variants import ModelOptions


def test_label_chain_correlation():
    chain = k_classes.LabelChain(K=3, T=6, p=0.5)
    labels = chain.sample(40_000, np.random.default_rng(0))
    assert np.bincount(labels.ravel(), minlength=3) / labels.size == pytest.approx(np.full(3, 1 / 3), abs=0.01)
    onehot = np.eye(3)[labels] - 1 / 3  # (N, T, K)
    emp = np.einsum("ntk,nsk->ts", onehot, onehot) / labels.shape[0] / (2 / 3)  # trace of (I - 11^T/K)/K
    np.testing.assert_allclose(emp, chain.R, atol=0.02)


def test_scatter_and_spikes():
    M = np.array([[1.0, 0.5, 0.2], [1.0, -0.5, -0.2], [-1.0, 0.5, -0.2], [-1.0, -0.5, 0.2]])
    np.testing.assert_allclose(k_classes.scatter_eigenvalues(M), [1.0, 0.25, 0.04])
    sp = theory.class_spikes(0.5, 0.5, nu=k_classes.scatter_eigenvalues(M), snr=2.0, kappa=0.1)
    np.testing.assert_allclose(sp.theta, 2.0 * (np.array([1.0, 0.25, 0.04]) + 0.5))
    ref = theory.spike(0.5, 0.5, theta=sp.theta, kappa=0.1)
    np.testing.assert_allclose(sp.sample_overlap, ref.sample_overlap)


def test_two_classes_are_the_book_model():
    T, w = 8, weights.mean(8)
    cs = k_classes.ClassSetting(d=200, V=400, N=800, means=[[0.8], [-0.8]], chain=k_classes.LabelChain(2, T, 0.5),
                              weights=w)
    book = Setting(d=200, V=400, N=800, mu_norm2=0.64, process=positional.markov(T, 0.5), weights=w)
    assert cs.alpha == pytest.approx(book.alpha) and cs.kappa == pytest.approx(book.kappa)
    assert cs.spikes().sample_eigenvalue[0] == pytest.approx(book.signal_h().sample_eigenvalue)
    a, b = k_class_sweep.class_sweep(cs, 5, 6, k=1), sweep(book, 5, 6, k=1)
    # different samplers, the same law: means of 6 draws agree within their spread (sd about 3%)
    assert a.eigenvalues.mean() == pytest.approx(b.top.mean(), rel=0.05)
    assert a.overlaps[..., 0, 0].mean() == pytest.approx(b.mean("overlap_h")[0], abs=0.06)


def test_vocabulary_centroids_and_directions():
    M = np.array([[2.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
    voc = k_classes.draw_class_vocabulary(50, 300, M, np.random.default_rng(1),
                                          options=ModelOptions(noise=noise.rademacher()))
    for k in range(3):
        np.testing.assert_allclose(voc.centroids[k], voc.table[voc.labels == k].mean(axis=0), atol=1e-12)
    vals, b = voc.directions()
    assert vals.shape == (2,) and np.allclose(b.T @ b, np.eye(2), atol=1e-10)


# Spread of the eigenvalues of B (nu = 2, 2/3; d/V = 1/6) over 200 vocabularies at d = 500, V = 3000
# (Rademacher noise, seed 321): per-draw sd 0.052 and 0.034, of their sum 0.063; the 200-draw means were 1.5,
# 0.1 and 1.2 standard errors from nu_j + d/V and its sum, so no finite-size bias shows at this size.
B_SPREAD = np.array([0.052, 0.034])
B_TRACE_SPREAD = 0.063


def test_between_class_eigenvalues_are_the_scatter_plus_d_over_v():
    """The eigenvalues of B are nu_j + d/V (each class centroid carries a noise mean of squared norm K d/V;
    centred over the K classes, d/V per direction), and their sum nu_1 + nu_2 + (K - 1) d/V exactly in
    expectation. Mean of 16 vocabularies, each within 3 standard errors (B_SPREAD / 4): 0.039 and 0.026 for the
    eigenvalues, 0.047 for the sum. Half the offset (d/2V) lies 2.1 and 3.2 bands from the eigenvalues and 3.5
    from the sum, and no offset twice as far: the test asserts both fall outside."""
    M = np.array([[2.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
    d, V, n = 500, 3000, 16
    rng = np.random.default_rng(5)
    opts = ModelOptions(noise=noise.rademacher())
    vals = np.array([k_classes.draw_class_vocabulary(d, V, M, rng, options=opts).directions()[0] for _ in range(n)])
    nu, K = k_classes.scatter_eigenvalues(M), M.shape[0]
    np.testing.assert_allclose(nu, [2.0, 2.0 / 3.0])  # by hand: M^T M / 3 = diag(6, 2) / 3
    band, band_sum = 3 * B_SPREAD / np.sqrt(n), 3 * B_TRACE_SPREAD / np.sqrt(n)
    mean, mean_sum = vals.mean(axis=0), vals.sum(axis=1).mean()
    assert np.all(np.abs(mean - (nu + d / V)) < band), (mean, nu + d / V, band)
    assert abs(mean_sum - (nu.sum() + (K - 1) * d / V)) < band_sum
    for wrong in (0.5 * d / V, 0.0):  # half the offset, no offset
        assert np.all(np.abs(mean - (nu + wrong)) > band), (wrong, mean, band)
        assert abs(mean_sum - (nu.sum() + (K - 1) * wrong)) > band_sum


def test_sweep_is_reproducible():
    cs = k_classes.ClassSetting(d=60, V=120, N=240, means=np.eye(3), chain=k_classes.LabelChain(3, 4, 0.3),
                              weights=np.ones(4))
    a, b = k_class_sweep.class_sweep([cs, cs], 9, 2, k=2), k_class_sweep.class_sweep([cs, cs], 9, 2, k=2)
    np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues)
    assert a.overlaps.shape == (2, 2, 2, 2) and not np.array_equal(a.eigenvalues[0, 0], a.eigenvalues[0, 1])


@pytest.mark.parametrize("call,match", [
    (lambda: k_classes.LabelChain(1, 4, 0.5), "K must be"),
    (lambda: k_classes.LabelChain(3, 4, 1.5), "p must be"),
    (lambda: k_classes.ClassSetting(60, 120, 240, np.eye(3), k_classes.LabelChain(2, 4, 0.3), np.ones(4)), "K = 3"),
    (lambda: k_classes.ClassSetting(60, 100, 240, np.eye(3), k_classes.LabelChain(3, 4, 0.3), np.ones(4)), "multiple"),
    (lambda: k_classes.draw_class_vocabulary(10, 30, [[1.0]], np.random.default_rng(0)), "K >= 2"),
])
def test_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()
