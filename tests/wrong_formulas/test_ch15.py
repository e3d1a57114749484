"""Wrong formulas that the closing checks of book/15_heads_and_layers.md reject."""

import numpy as np

from attnlib.model import generative, heads as M
from attnlib.theory import _heads_bulk as HB, heads as H, layers as L
from checks import ch15, load
from .conftest import page_tests

RESULTS, _z, _density, _thresholds = load("15_heads_and_layers"), H._z, HB.density, H.head_thresholds

def _orthonormal_noise(vocab, R, W, *, centered=True):  # (tr B / H) I ⊗ W' for the noise part B ⊗ W'
    W = np.asarray(W, dtype=float)
    parts = generative.population_covariance(vocab, W[:, 0], R, parts=True)
    return (np.kron(W.T @ R @ W, np.outer(parts["h"], parts["h"]))
            + np.trace(W.T @ W) / W.shape[1] * np.kron(np.eye(W.shape[1]), parts["W_prime"]))

def _one_head_overlap(ell, A, B, delta, k):  # the one-head outlier ell / b = (x + 1)(x + delta) / x, solved for x
    b = H.noise_scales(B)[-1]
    x = 0.5 * (ell / b - 1 - delta + np.sqrt((ell / b - 1 - delta) ** 2 - 4 * delta))
    return float(max(0.0, 1.0 - delta / x**2))

def _transposed_readout(T, taus, *, residual=False):  # Q 1 / T for Q^T 1 / T (rows for columns)
    Q = np.eye(T)
    for P in L.stack(T, taus, residual=residual):
        Q = (P + np.eye(T)) @ Q if residual else P @ Q
    return Q.sum(axis=1) / T

WRONG = {  # name: (module, function, wrong function)
    # the heads treated as orthonormal in the covariance
    "heads covariance with orthonormal noise": (M, "heads_population_covariance", _orthonormal_noise),
    # the sample map with gamma, not H gamma: the H heads' dimension dH forgotten
    "sample map without the heads' dimension":
        (H, "_z", lambda y, b, delta, gamma, derivative: _z(y, b, delta, gamma / b.size, derivative)),
    # the population overlap of one head at the top pencil eigenvalue, whatever the scales of the heads
    "one-head overlap for every spike": (H, "_overlap", _one_head_overlap),
    # the bulk's second moment without the sampling term gamma (tr B)^2 / H
    "bulk second moment without sampling": (HB, "moments", lambda B, delta, gamma: (
        float(np.trace(B) / len(B)), float((1.0 + delta) * np.trace(B @ B) / len(B)))),
    # the bulk density of the dH coordinates without the 1/H of the mixed law
    "bulk density without the 1/H":
        (HB, "density", lambda x, B, delta, gamma: len(B) * _density(x, B, delta, gamma)),
    # the pencil as the eigenvalues of A = W'RW alone (the heads taken as orthonormal)
    "pencil without the heads' norms": (H, "pencil", lambda R, W: np.linalg.eigvalsh(
        H.check_heads(W, np.shape(R)[0]).T @ np.asarray(R) @ H.check_heads(W, np.shape(R)[0]))[::-1]),
    # both thresholds read at the population edge (the sample's critical point forgotten)
    "sample threshold at the population edge":
        (H, "head_thresholds", lambda delta, gamma, R, W: 2 * _thresholds(delta, gamma, R=R, W=W)[:1]),
    # every layer scored as the first: softmax of tau I, the outputs' Gram matrix forgotten
    "second layer scored like the first": (L, "stack", lambda T, taus, *, residual=False: [
        L.causal_softmax(tau * np.eye(T)) for tau in np.atleast_1d(np.asarray(taus, dtype=float))]),
    # the read-out Q 1 / T for Q' 1 / T (rows for columns: mean pooling)
    "stacked read-out without the transpose": (L, "stacked_weights", _transposed_readout),
}
test_holds, test_rejects = page_tests(ch15, RESULTS, WRONG)
