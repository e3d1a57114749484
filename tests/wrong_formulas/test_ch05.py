"""Wrong formulas that the closing checks of book/05_optimal_weights.md reject."""

import numpy as np

from attnlib.model import weights as W
from checks import ch05, load
from .conftest import page_tests

RESULTS, _snr, _nonneg = load("05_optimal_weights"), W.snr, W.optimal_nonnegative

def _as_optimal(w, normalize, tol=0.0):  # w signed to a positive sum, normalised as weights.optimal does
    w = w if w.sum() > 0 else -w
    return w / np.linalg.norm(w) if normalize == "norm" or w.sum() < tol else w / w.sum()

def _as_nonnegative(w, R):  # (w summing to 1, its alpha/kappa), as weights.optimal_nonnegative returns
    w = w / w.sum()
    return w, float(w @ R @ w / (w @ w))

def _support_from_top(R, **_):
    if np.all(R >= -1e-10):
        return _nonneg(R)
    keep, w = W.optimal(R, normalize="norm") > 1e-10, np.zeros(len(R))
    w[keep] = np.abs(np.linalg.eigh(R[np.ix_(keep, keep)])[1][:, -1])
    return _as_nonnegative(w, R)

WRONG = {
    # Theorem 5 without the eigenvector: mean pooling called optimal
    "mean weights for the optimum": (W, "optimal", lambda R, *, normalize="sum", tol=1e-10: _as_optimal(
        W.mean(len(R)), normalize)),
    # the top eigenvector of the entrywise absolute value |R| (right for R >= 0 only)
    "optimal weights from |R|": (W, "optimal", lambda R, *, normalize="sum", tol=1e-10: _as_optimal(
        np.linalg.eigh(np.abs(R))[1][:, -1], normalize)),
    # eigh sorts eigenvalues in increasing order: the second column from the end taken for the top one
    "second eigenvector for the optimum": (W, "optimal", lambda R, *, normalize="sum", tol=1e-10: _as_optimal(
        np.linalg.eigh(R)[1][:, -2], normalize, 1e-6)),
    # the best non-negative weights as the positive part of the signed top eigenvector
    "clipped top eigenvector for lambda_plus": (W, "optimal_nonnegative", lambda R, **_: _as_nonnegative(
        np.clip(W.optimal(R, normalize="norm"), 0.0, None), R)),
    # the support of the best non-negative weights taken as the positive entries of the top eigenvector
    "support rule from the top eigenvector": (W, "optimal_nonnegative", _support_from_top),
    # alpha/kappa with the squared 1-norm in the denominator (kappa = (sum |w|)^2 instead of ||w||^2)
    "snr with the squared 1-norm": (W, "snr", lambda w, R: _snr(w, R) * np.sum(np.square(w), axis=-1)
                                    / np.sum(np.abs(w), axis=-1) ** 2),
    # mean pooling on the prefix model: 1 + L^2/T instead of 1 + L(L - 1)/T
    "prefix mean snr with L^2": (W, "prefix_snr_mean", lambda T, L: 1.0 + np.asarray(L, float) ** 2 / T),
    # the prefix-model alpha/kappa without the independent tail: (sum_{t<L} w_t)^2 / ||w||^2
    "prefix snr without the tail": (W, "prefix_snr", lambda w, L: np.concatenate([[0.0], np.cumsum(w)])[
        np.asarray(L)] ** 2 / (np.asarray(w) @ np.asarray(w))),
}
test_holds, test_rejects = page_tests(ch05, RESULTS, WRONG)
