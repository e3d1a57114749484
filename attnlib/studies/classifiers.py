"""Linear classifiers on pooled vectors: ridge regression with exact leave-one-out, and the unsupervised
spectral classifier (the top eigenvector of the centered S, signed by a few labelled rows).

Both work from one eigendecomposition of the smaller of X_c^T X_c / n (d x d) and the Gram X_c X_c^T / n
(one private helper), so the downstream experiment fits several ridge penalties and the spectral rule at
the cost of one diagonalisation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics.linalg import covariance_eigenpairs

__all__ = ["DEFAULT_LAMBDAS", "RidgeFit", "ridge_path", "SpectralFit", "spectral_fit", "accuracy"]

#: Default ridge grid, relative to the mean eigenvalue tr(S)/d of the centered features; chosen by exact LOO.
DEFAULT_LAMBDAS = np.logspace(-3, 3, 25)


def _features(name: str, X) -> np.ndarray:
    arr = np.asarray(X, dtype=float)
    if arr.ndim != 2 or arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ValueError(f"{name} must be an (n, d) array with n >= 2 rows, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    return arr


def _signs(name: str, y, n: int | None = None) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim != 1 or (n is not None and arr.size != n):
        want = f"length {n}" if n is not None else "1-D"
        raise ValueError(f"{name} must be a 1-D array of +-1 labels of {want}, got shape {arr.shape}")
    if arr.size == 0 or not np.all(np.isin(arr, (-1, 1))):
        raise ValueError(f"{name} must contain only -1 and +1 labels, got values {np.unique(arr)[:5]!r}")
    return arr.astype(float)


@dataclass(frozen=True, eq=False)
class RidgeFit:
    """A fitted ridge classifier: score(x) = x^T coef + intercept, prediction sign(score) (0 counts as +1).

    ``lam_rel``: chosen lambda relative to the mean eigenvalue tr(S)/d of the centered features; ``lam``: absolute;
    ``grid`` and ``loo_mse``: the candidates and their exact leave-one-out mean squared errors.
    """

    coef: np.ndarray
    intercept: float
    lam_rel: float
    lam: float
    grid: np.ndarray
    loo_mse: np.ndarray

    def decision(self, X) -> np.ndarray:
        return _features("X", X) @ self.coef + self.intercept

    def predict(self, X) -> np.ndarray:
        return np.where(self.decision(X) >= 0, 1, -1).astype(np.int8)


@dataclass(frozen=True, eq=False)
class Decomposition:
    """Centered features and one eigendecomposition of the smaller of X_c^T X_c / n (d x d) and X_c X_c^T / n."""

    x_mean: np.ndarray
    Xc: np.ndarray
    ev: np.ndarray  # ascending, clipped at 0
    vec: np.ndarray  # eigenvectors of the d x d matrix (gram=False) or of the n x n Gram (gram=True)
    gram: bool

    @classmethod
    def of(cls, X: np.ndarray) -> "Decomposition":
        n, d = X.shape
        x_mean = X.mean(axis=0)
        Xc = X - x_mean
        gram = n < d
        ev, vec = np.linalg.eigh(Xc @ Xc.T / n if gram else Xc.T @ Xc / n)
        return cls(x_mean, Xc, np.clip(ev, 0.0, None), vec, gram)

    def top_direction(self) -> tuple[float, np.ndarray]:
        """Top eigenvalue and unit eigenvector of S = X_c^T X_c / n."""
        u = self.Xc.T @ self.vec[:, -1] if self.gram else self.vec[:, -1].copy()
        return float(self.ev[-1]), u / np.linalg.norm(u)


def lambda_grid(lam_rel) -> np.ndarray:
    """``lam_rel`` (a positive number or a 1-D array of them) as a 1-D float array; ValueError otherwise."""
    grid = np.atleast_1d(np.asarray(lam_rel, dtype=float))
    if grid.ndim != 1 or not np.all(np.isfinite(grid)) or not np.all(grid > 0):
        raise ValueError(f"lam_rel must be a positive number or a 1-D array of positive numbers, got {lam_rel!r}")
    return grid


def ridge_path(dec: Decomposition, yv: np.ndarray, grid: np.ndarray) -> RidgeFit:
    r"""Ridge regression of +-1 labels ``yv`` (floats) on the features of ``dec`` (``Decomposition.of(X)``),
    with an unpenalised intercept, in closed form, for every relative penalty of ``grid`` (``lambda_grid``).
    Arguments are not checked (the experiment's call; the downstream tests check it against lstsq and a
    brute-force leave-one-out).

    Minimises (1/n) sum_i (y_i - b - x_i^T beta)^2 + lam ||beta||^2, i.e.
    beta = (X_c^T X_c / n + lam I)^{-1} X_c^T y / n on centered features X_c and b = y_bar - x_bar^T beta.
    ``lam = lam_rel * tr(X_c^T X_c / n) / d``, so the rule does not depend on the scale of the features.
    Solved through one eigendecomposition of the smaller of the d x d matrix X_c^T X_c / n and the n x n Gram
    X_c X_c^T / n (push-through identity when n < d).

    If ``grid`` holds several values, the one with the smallest exact leave-one-out squared error is used:
    the hat matrix is H = 11^T/n + X_c (X_c^T X_c + n lam I)^{-1} X_c^T and the LOO residual is r_i / (1 - H_ii).
    """
    Xc, ev, vec = dec.Xc, dec.ev, dec.vec
    n, d = Xc.shape
    y_mean = yv.mean()
    yc = yv - y_mean
    lams = grid * float(ev.sum()) / d  # tr(X_c^T X_c / n) / d, the mean eigenvalue of S
    if not dec.gram:
        P = Xc @ vec  # (n, d): fitted values are P diag(1/(ev + lam)) proj
        proj = P.T @ yc / n
        fitted = P @ (proj[:, None] / (ev[:, None] + lams[None, :]))  # (n, n_grid)
        hat = (P * P) @ (1.0 / (n * (ev[:, None] + lams[None, :])))
    else:
        proj = vec.T @ yc
        shrink = ev[:, None] / (ev[:, None] + lams[None, :])  # K (K + lam)^{-1} in the eigenbasis
        fitted = vec @ (proj[:, None] * shrink)
        hat = (vec * vec) @ shrink
    resid = yc[:, None] - fitted
    loo = np.mean((resid / (1.0 - 1.0 / n - hat)) ** 2, axis=0)
    k = int(np.argmin(loo))
    lam = float(lams[k])
    coef = vec @ (proj / (ev + lam)) if not dec.gram else Xc.T @ (vec @ (proj / (ev + lam))) / n
    return RidgeFit(coef=coef, intercept=float(y_mean - dec.x_mean @ coef), lam_rel=float(grid[k]), lam=lam,
                    grid=grid, loo_mse=loo)


@dataclass(frozen=True, eq=False)
class SpectralFit:
    """sign(direction^T (x - center)): the top eigenvector of S, signed by a few labelled sequences."""

    direction: np.ndarray
    center: np.ndarray
    eigenvalue: float

    def decision(self, X) -> np.ndarray:
        return (_features("X", X) - self.center) @ self.direction

    def predict(self, X) -> np.ndarray:
        return np.where(self.decision(X) >= 0, 1, -1).astype(np.int8)


def spectral_fit(X, anchor_labels, anchors=None) -> SpectralFit:
    """Unsupervised classifier: top eigenvector u_hat of the centered S of all rows of ``X`` (labels unused).

    The sign of an eigenvector is arbitrary; it is fixed by k labelled sequences, the *anchors*: u_hat is
    flipped if sum_i y_i u_hat^T (x_i - x_bar) < 0, with ``anchor_labels`` the labels y_i. ``anchors``: their
    features (k, d), held out of S, whose projections are then out of sample like a test sequence's; default
    None: the first k rows of X (in sample: their projections have second moment lambda, the top eigenvalue).
    (Taking max(acc, 1 - acc) instead would look at every test label and inflate accuracies near chance.)
    u_hat by Lanczos (:func:`attnlib.numerics.linalg.covariance_eigenpairs`).
    """
    X = _features("X", X)
    center = X.mean(axis=0)
    if anchors is None:
        y_a = _anchors(anchor_labels, X.shape[0])
        held = X[: y_a.size]
    else:
        held = _features("anchors", anchors)
        y_a = _signs("anchor_labels", anchor_labels, held.shape[0])
        if held.shape[1] != X.shape[1]:
            raise ValueError(f"anchors must have {X.shape[1]} columns like X, got shape {held.shape}")
    vals, vecs = covariance_eigenpairs(X - center, 1, centered=False)
    return signed_fit(vecs[:, 0], center, float(vals[0]), held - center, y_a)


def _anchors(anchor_labels, n: int) -> np.ndarray:
    y_a = _signs("anchor_labels", anchor_labels)
    if y_a.size > n:
        raise ValueError(f"anchor_labels has {y_a.size} labels but X has only {n} rows")
    return y_a


def signed_fit(u, center, eigenvalue, anchors_centered, y_a) -> SpectralFit:
    if y_a @ (anchors_centered @ u) < 0:
        u = -u
    return SpectralFit(direction=u, center=center, eigenvalue=eigenvalue)


def accuracy(y_true, scores) -> float:
    """Fraction of sign(scores) equal to the +-1 labels (a score of 0 counts as +1)."""
    y = _signs("y_true", y_true)
    s = np.asarray(scores, dtype=float)
    if s.shape != y.shape:
        raise ValueError(f"scores must have the shape of y_true {y.shape}, got {s.shape}")
    return float(np.mean(np.where(s >= 0, 1.0, -1.0) == y))
