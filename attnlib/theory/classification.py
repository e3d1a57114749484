r"""Closed forms of the downstream task: what the spike theory predicts for a classifier of the sequence label
(the task, its label signal and the experiment are in :mod:`attnlib.studies.downstream`, which passes a
:class:`attnlib.model.setting.Setting`'s numbers to these functions).

Conditional on the vocabulary (h = mu + Zs/V, W' the Wishart part), a pooled vector has class mean a y h plus a
common term, with the *label signal* a = (R w)_b, and class-conditional covariance
Sigma_n = kappa W' + (alpha - a^2) h h^T.

* :func:`label_separation`, :func:`fisher_ceiling`: the Fisher discriminant of the vocabulary, Gaussian
  approximation Phi(varsigma), varsigma^2 = a^2 M / (kappa + (alpha - a^2) M), M = ||h||^2 / (1 - delta)
  (needs delta < 1); :func:`inverse_wishart_form`: the finite-d mean of h^T W'^{-1} h that M approximates.
* :func:`spectral_prediction` (a :class:`SpectralPrediction`): the sign of the projection on the top eigenvector
  of S, from the spike formulas of Theorems 3-4.
* :func:`projection_snr`, :func:`projection_accuracy`: the same Gaussian approximation at given inner products
  (the plug-in of a measured direction).
* :func:`sample_size_threshold`: the number of sequences above which S has a signal outlier.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from attnlib.numerics import checks as _v
from attnlib.theory import _spikes

__all__ = ["label_separation", "fisher_ceiling", "inverse_wishart_form", "SpectralPrediction",
           "spectral_prediction", "projection_snr", "projection_accuracy", "sample_size_threshold"]


_NUMBERS = dict(a=_v.finite_scalar, mu_norm2=_v.nonnegative, delta=_v.positive, alpha=_v.nonnegative,
                kappa=_v.positive)


@_v.validated(**_NUMBERS)
def label_separation(delta, a, mu_norm2, alpha, kappa) -> float:
    """Fisher separation varsigma^2 = a^2 h^T Sigma_n^{-1} h of the label, in the limit (infinite training set).

    ``a``: the label signal (R w)_b; ``mu_norm2``, ``delta``, ``alpha``, ``kappa``: ||mu||^2, d/V, w^T R w, ||w||^2.
    With Sigma_n = kappa W' + (alpha - a^2) h h^T, Sherman-Morrison and h^T W'^{-1} h -> ||h||^2 / (1 - delta):
    varsigma^2 = (a^2/kappa) M / (1 + (alpha - a^2) M / kappa), M = (||mu||^2 + delta) / (1 - delta).
    Needs delta < 1: for d >= V the pooled vectors live in the V-dimensional span of the table, W' is singular.
    """
    if delta >= 1:
        raise ValueError(f"the label SNR needs delta = d/V < 1 (W' invertible), got delta = {delta:g}")
    M = (mu_norm2 + delta) / (1 - delta)
    return float(a * a / kappa * M / (1 + (alpha - a * a) / kappa * M))


@_v.validated(h_norm2=_v.nonnegative, d=_v.positive_int, V=_v.positive_int)
def inverse_wishart_form(h_norm2, d, V) -> float:
    """The mean of h^T W'^{-1} h at finite d and V: ||h||^2 V / (V - d - 3), for a fixed h of squared norm
    ``h_norm2``; its limit ||h||^2 / (1 - delta) is the M of :func:`label_separation`. Needs V > d + 3 (the
    inverse-Wishart mean is finite only there)."""
    if V <= d + 3:
        raise ValueError(f"V must exceed d + 3 = {d + 3} for the mean of h^T W'^-1 h to be finite, got V = {V}")
    return float(h_norm2 * V / (V - d - 3))


@_v.validated(**_NUMBERS)
def fisher_ceiling(delta, a, mu_norm2, alpha, kappa) -> float:
    """Phi(varsigma): Gaussian-approximation accuracy of the Fisher discriminant of the vocabulary.

    varsigma^2 is :func:`label_separation` (same arguments; needs delta < 1).
    """
    return float(ndtr(np.sqrt(label_separation(delta, a=a, mu_norm2=mu_norm2, alpha=alpha, kappa=kappa))))


def _quadratic_form(sp: _spikes.Spike) -> float:
    r"""u_hat^T Sigma u_hat for the top eigenvector u_hat of S, Sigma = Cov(c | E): l^2 / lambda of the spike
    ``sp`` of h (the ``quad`` of :func:`spectral_prediction`).

    Derivation: the eigenvalues of S = Sigma^{1/2} Y Sigma^{1/2} are those of Y^{1/2} Sigma Y^{1/2}; perturbing
    Sigma -> Sigma + eps Sigma^2 moves the outlier by (Hellmann-Feynman) d lambda/d eps = lambda u_hat^T Sigma u_hat.
    The generalized-spike outlier lambda = l (1 + gamma int t/(l - t) dH(t)) moves, under t -> t + eps t^2,
    l -> l + eps l^2, by exactly l^2, so u_hat^T Sigma u_hat = l^2 / lambda
    = kappa (x + 1)(x + delta)/(x + gamma), x = theta - delta. ``nan`` below the sample threshold.
    """
    return float(sp.population_eigenvalue**2 / sp.sample_eigenvalue)


@dataclass(frozen=True)
class SpectralPrediction:
    """Predicted behaviour of the spectral classifier (Gaussian approximation of the projection).

    ``a``: label signal; ``eta2``: <u_hat, h>^2; ``quad``: u_hat^T Sigma u_hat; ``noise_var``: within-class variance
    of the projection; ``snr``: a abs(eta) / sd; ``accuracy_signed``: Phi(snr), sign of u_hat known;
    ``sign_error``: probability that ``n_anchor`` labelled sequences pick the wrong sign; ``accuracy``: with it.
    Below the sample threshold eta2 = 0 and the accuracy is 1/2.
    """

    a: float
    eta2: float
    quad: float
    noise_var: float
    snr: float
    accuracy_signed: float
    sign_error: float
    accuracy: float


@_v.validated(a=_v.nonnegative, theta=_v.positive, delta=_v.positive, gamma=_v.positive, kappa=_v.positive,
              mu_norm2=_v.nonnegative, h_norm2=_v.optional(_v.positive), n_anchor=_v.optional(_v.positive_int))
def spectral_prediction(delta, gamma, a, theta, kappa, mu_norm2, *, h_norm2=None,
                        n_anchor=None) -> SpectralPrediction:
    """Predicted test accuracy of the sign of the projection on the top eigenvector of the centered S.

    ``a``: the absolute label signal abs((R w)_b); ``theta``, ``delta``, ``gamma``, ``kappa``, ``mu_norm2``: the
    spike strength, d/V, d/N, ||w||^2 and ||mu||^2. The classifier is sign(u_hat^T (c - c_bar)) with the sign of
    u_hat fixed by ``n_anchor`` labelled sequences held out of S (None: the sign is known). Gaussian approximation
    of the projection of a sequence outside the training set: class means +-a abs(<u_hat, h>), variance
    u_hat^T Sigma u_hat - a^2 <u_hat, h>^2 = l^2/lambda - a^2 <u_hat, h>^2. The anchors are such sequences, so
    the vote sum_i y_i p_i has mean k a abs(eta) and variance k sd^2: the sign is wrong with probability
    Phi(-sqrt(k) snr), and then the accuracy is 1 - Phi(snr).

    ``h_norm2``: the squared norm ||h||^2 of the class centroid of one given vocabulary (default: its limit
    ||mu||^2 + delta). The vocabulary enters the spike only through it: the strength becomes theta ||h||^2 /
    (||mu||^2 + delta), and <u_hat, h>^2 = ||h||^2 x (sample overlap with h).
    """
    h2_limit = mu_norm2 + delta
    if h_norm2 is None:
        h2, sp = h2_limit, _spikes.spike(delta, gamma, theta=theta, kappa=kappa, direction="h")
    else:
        h2 = h_norm2
        sp = _spikes.spike(delta, gamma, theta=theta * h2 / h2_limit, kappa=kappa, direction="h")
    if not sp.sample_detectable:
        return SpectralPrediction(a, 0.0, float("nan"), float("nan"), 0.0, 0.5, 0.5, 0.5)
    eta2 = float(h2 * sp.sample_overlap)
    quad = _quadratic_form(sp)
    noise_var = quad - a * a * eta2
    snr = a * np.sqrt(eta2 / noise_var)
    signed = float(ndtr(snr))
    if n_anchor is None:
        flip = 0.0
    else:
        flip = float(ndtr(-np.sqrt(n_anchor) * snr))
    accuracy = (1 - flip) * signed + flip * (1 - signed)
    return SpectralPrediction(a, eta2, quad, noise_var, float(snr), signed, flip, accuracy)


def projection_snr(class_mean, second_moment):
    """Signal-to-noise ratio m / sqrt(q - m^2) of a projection p = u^T c whose class means are +-``class_mean``
    (m) and whose second moment is ``second_moment`` (q): the class mean over the within-class standard deviation.

    For a direction u, m = a <u, h> (a the label signal) and q = u^T Sigma u (the ``snr`` of
    :func:`spectral_prediction` at their limits); measured, m = mean(y p) and q = mean(p^2). Scalars or arrays of
    one shape, finite, with q > m^2 (a positive within-class variance).
    """
    m = _v.finite_array("class_mean", class_mean)
    q = _v.finite_array("second_moment", second_moment)
    if m.shape != q.shape:
        raise ValueError(f"class_mean and second_moment must have the same shape, got {m.shape} and {q.shape}")
    if not np.all(q > m * m):
        raise ValueError(f"second_moment must exceed class_mean^2 (a positive within-class variance), got "
                         f"second_moment = {_v.short(q)}, class_mean = {_v.short(m)}")
    out = m / np.sqrt(q - m * m)
    return float(out) if out.ndim == 0 else out


def projection_accuracy(class_mean, second_moment):
    """Accuracy of the sign of a projection (arguments of :func:`projection_snr`) in the Gaussian approximation:
    Phi(m / sqrt(q - m^2)). :func:`spectral_prediction` is this at the limits of <u, h>^2 and q; at measured
    values it is the plug-in. A negative ``class_mean`` (u signed against the label) gives an accuracy below 1/2.
    """
    out = ndtr(projection_snr(class_mean, second_moment))
    return float(out) if np.ndim(out) == 0 else out


@_v.validated(theta=_v.positive, delta=_v.positive, d=_v.positive_int)
def sample_size_threshold(delta, theta, d) -> float:
    """The number of sequences N* above which S has a signal outlier (``inf`` if the population has none).

    ``theta``: the spike strength, ``delta`` = d/V, ``d``: the dimension. The sample threshold
    x^3 - (gamma + delta + gamma delta) x - 2 gamma delta = 0 (x = theta - delta) is linear in gamma:
    gamma* = x (x^2 - delta) / ((1 + delta) x + 2 delta), and N* = d / gamma*. theta does not depend on N.
    """
    x = theta - delta
    if x <= np.sqrt(delta):
        return float("inf")
    gamma_star = x * (x * x - delta) / ((1 + delta) * x + 2 * delta)
    return float(d / gamma_star)
