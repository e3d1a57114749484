r"""The downstream task of Section 6: a sequence label and what the spike theory predicts for a classifier of it
(the classifiers are in :mod:`attnlib.studies.classifiers`, the experiment runner in ``attnlib.studies.experiment``).

Task
    The label of sequence n is the sign ``xi[n, b]`` of one *label position* b. In the prefix model (the first L
    positions share one sign) every prefix position carries the same sign, so the label is the prefix's shared
    sign: a property of the whole sequence that every pooling sees through the prefix tokens.
    :func:`label_position` finds b for any process in which exactly one block of positions shares a sign
    (prefix, suffix, a single block) and raises ValueError otherwise (Markov chains, several blocks), where no
    position is singled out; pass ``position=`` explicitly there.

Theory (given the vocabulary, h = mu + Zs/V, W' the Wishart part; in :mod:`attnlib.theory.classification`)
    E[xi_t | xi_b = y] = R_tb y for a sign process symmetric under a global flip, so
    E[c | y] = a y h + (sum w) g with the *label signal* a = (R w)_b, and the class-conditional covariance
    (averaged over the two classes) is Sigma_n = kappa W' + (alpha - a^2) h h^T. Two predictions follow:

    * :func:`label_snr`, :func:`fisher_accuracy`: the Fisher discriminant of the vocabulary (direction
      Sigma_n^{-1} h), which is the best linear rule for Gaussian class-conditionals with these first two
      moments (the true class-conditionals are discrete mixtures over the table); Gaussian approximation
      Phi(varsigma), varsigma^2 = a^2 M / (kappa + (alpha - a^2) M), M = ||h||^2 / (1 - delta) (from
      h^T W'^{-1} h -> ||h||^2 / (1 - delta); needs delta < 1).
    * :func:`spectral_accuracy`: classifying by the sign of the projection on the top eigenvector u_hat of S.
      A sequence outside the training set has projection with class mean +-a <u_hat, h> and variance
      u_hat^T Sigma_n u_hat = u_hat^T Sigma u_hat - a^2 <u_hat, h>^2, with <u_hat, h>^2 = ||h||^2 x (sample
      overlap with h) and u_hat^T Sigma u_hat = l^2 / lambda (l population outlier, lambda sample outlier; the
      ``quad`` of :class:`attnlib.theory.classification.SpectralPrediction`). Gaussian approximation:
      Phi(a abs(<u_hat, h>) / sd). These are the spike formulas of Theorems 3-4, which assume the bulk law (many
      tokens per pooled vector).
"""

from __future__ import annotations

import numpy as np

from attnlib.model.setting import check_setting
from attnlib.numerics import checks as _v
from attnlib.theory import classification, fluctuations
from attnlib.theory.classification import SpectralPrediction
from attnlib.studies.classifiers import DEFAULT_LAMBDAS
from attnlib.model.positional import SignProcess
from attnlib.model.setting import Setting

__all__ = [
    "DEFAULT_LAMBDAS",
    "label_position",
    "labels",
    "label_signal",
    "spectral_accuracy",
    "label_snr",
    "fisher_accuracy",
    "fisher_finite_d_shift",
    "in_critical_window",
    "spectral_prediction_valid",
    "samples_threshold",
    "empirical_threshold",
]


# --------------------------------------------------------------------------------------------------- labels


def label_position(process: SignProcess) -> int:
    """The label position b of ``process``: the first position of its unique block of shared sign.

    A block is a set of >= 2 positions with R_ts = 1 (they always carry the same sign). Prefix -> 0,
    suffix(T, L) -> T - L. Raises ValueError when there is no such block (no position is singled out:
    Markov chains, independent signs) or several (the label would be ambiguous).
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.model.positional.SignProcess, got {process!r}")
    R = process.R
    same = np.isclose(R, 1.0)
    blocks = []
    seen = np.zeros(process.T, bool)
    for t in range(process.T):
        if seen[t]:
            continue
        members = np.flatnonzero(same[t])
        seen[members] = True
        if members.size >= 2:
            blocks.append(members)
    if len(blocks) != 1:
        what = "no block of positions sharing a sign" if not blocks else f"{len(blocks)} blocks sharing a sign"
        raise ValueError(
            f"process {process.name} has {what}; the sequence label is defined as the shared sign of a single "
            "block (prefix, suffix). Pass position=... explicitly to label by the sign of one position."
        )
    return int(blocks[0][0])


def resolve_position(process: SignProcess, position) -> int:
    if position is None:
        return label_position(process)
    position = _v.positive_int("position", position, minimum=0)
    if position >= process.T:
        raise ValueError(f"position must be in 0..T-1 = 0..{process.T - 1}, got {position}")
    return position


def labels(process: SignProcess, xi, position: int | None = None) -> np.ndarray:
    """Labels y_n = xi[n, b] in {-1, +1} (int8) of sign sequences ``xi`` (N, T) drawn from ``process``."""
    b = resolve_position(process, position)
    xi = np.asarray(xi)
    if xi.ndim != 2 or xi.shape[1] != process.T or not np.all(np.abs(xi) == 1):
        raise ValueError(f"xi must be an (N, T = {process.T}) array of +-1 signs, got shape {xi.shape}")
    return xi[:, b].astype(np.int8)


def _label_signal_arguments(arguments: dict) -> None:
    """The checks of :func:`label_signal` that involve T = len(R): w of length T, a position in 0..T-1."""
    T = arguments["R"].shape[0]
    arguments["w"] = _v.weights_vector("w", arguments["w"], T)
    position = _v.positive_int("position", arguments["position"], minimum=0)
    if position >= T:
        raise ValueError(f"position must be in 0..T-1 = 0..{T - 1}, got {position}")
    arguments["position"] = position


@_v.validated(check=_label_signal_arguments, R=_v.correlation_matrix)
def label_signal(w, R, position: int) -> float:
    """a = (R w)_b = sum_t w_t R_tb: the class mean of a pooled vector is a y h (plus the common (sum w) g).

    A property of the task's parameters (w, R and the label position), as alpha = w^T R w is, not a limit: it
    stays with the task (an exception listed in tests/test_closed_forms.py); the predictions it feeds are in
    :mod:`attnlib.theory.classification`.
    """
    return float(R[position] @ w)


# --------------------------------------------------------------------------------------------------- theory


def spectral_accuracy(setting: Setting, position: int | None = None, n_anchor: int | None = None,
                      h_norm2: float | None = None) -> SpectralPrediction:
    """Predicted test accuracy of the sign of the projection on the top eigenvector of the centered S.

    N = setting.N unlabeled training sequences give u_hat; the classifier is sign(u_hat^T (c - c_bar)) with the
    sign of u_hat fixed by ``n_anchor`` labelled sequences held out of S (None: the sign is known); ``h_norm2``:
    the squared norm of the class centroid of one given vocabulary (default: its limit ||mu||^2 + delta). The
    formula is :func:`attnlib.theory.classification.spectral_prediction`, at the label signal of ``position``.
    Anchors taken among the training rows would not fit it: an in-sample projection has second moment lambda (the
    top eigenvalue itself), not l^2/lambda, and a different mean; ``attnlib.studies.experiment.run_experiment``
    holds its anchors out.
    """
    check_setting(setting)
    a = abs(label_signal(setting.weights, setting.R, resolve_position(setting.process, position)))
    return classification.spectral_prediction(setting.delta, setting.gamma, a=a, theta=setting.theta,
                                              kappa=setting.kappa, mu_norm2=setting.mu_norm2, h_norm2=h_norm2,
                                              n_anchor=n_anchor)


def label_snr(setting: Setting, position: int | None = None) -> float:
    """Fisher separation varsigma^2 of the label, in the limit (infinite training set): the formula
    :func:`attnlib.theory.classification.label_separation` at the label signal of ``position`` (needs delta < 1)."""
    check_setting(setting)
    a = label_signal(setting.weights, setting.R, resolve_position(setting.process, position))
    return classification.label_separation(setting.delta, a=a, mu_norm2=setting.mu_norm2, alpha=setting.alpha,
                                           kappa=setting.kappa)


def fisher_accuracy(setting: Setting, position: int | None = None) -> float:
    """Phi(varsigma): Gaussian-approximation accuracy of the Fisher discriminant of the vocabulary, the formula
    :func:`attnlib.theory.classification.fisher_ceiling` at the label signal of ``position`` (needs delta < 1)."""
    check_setting(setting)
    a = label_signal(setting.weights, setting.R, resolve_position(setting.process, position))
    return classification.fisher_ceiling(setting.delta, a=a, mu_norm2=setting.mu_norm2, alpha=setting.alpha,
                                         kappa=setting.kappa)


def fisher_finite_d_shift(setting: Setting, position: int | None = None) -> float:
    """How far :func:`fisher_accuracy` moves at finite d: Phi(varsigma) with h^T W'^{-1} h at its finite-d mean
    (:func:`attnlib.theory.classification.inverse_wishart_form`, ||h||^2 = ||mu||^2 + delta) in place of its
    limit ||h||^2 / (1 - delta), minus :func:`fisher_accuracy` (needs delta < 1 and V > d + 3)."""
    check_setting(setting)
    m_d = classification.inverse_wishart_form(setting.mu_norm2 + setting.delta, setting.d, setting.V)
    shifted = setting.replace(mu_norm2=m_d * (1 - setting.delta) - setting.delta)  # so that M = m_d
    return fisher_accuracy(shifted, position) - fisher_accuracy(setting, position)


def in_critical_window(setting: Setting) -> bool:
    r"""True if theta is inside the critical window of the sample transition at this d.

    With :math:`x = \theta - \delta`, :math:`x_*` the sample threshold and :math:`w_d = \sqrt{2\ell/z''(x_*)}`
    the window width (:func:`attnlib.theory.fluctuations.window_width`, proportional to :math:`d^{-1/3}`; :math:`\ell` is
    the Tracy-Widom scale of the edge), the point is in the window when :math:`|x - x_*| < \sqrt{q}\,w_d`, with
    q = 0.98 the 95% quantile of TW_1 (:func:`attnlib.theory.fluctuations.window_half_width` at
    :data:`attnlib.theory.fluctuations.WINDOW_LEVEL`). Reason: the limit outlier sits
    :math:`z(x) - E \approx \ell\,(x - x_*)^2 / w_d^2` above the edge E, so inside the window it would lie below
    the margin q, the 95% quantile of the top eigenvalue of a matrix without signal (a margin, not a detection
    probability: at the window's edge a draw clears it about half the time), and the finite-d outlier and overlap are
    smoothed versions of the limiting curves (which have a kink at :math:`x_*`); the chapter "How large is
    large?" measures the smoothing (a function of :math:`(x - x_*)/w_d` alone). Comparisons with the limit are
    only made outside the window. This replaces the earlier rule :math:`|\theta/\theta_s - 1| < d^{-1/3}`,
    whose constant had no derivation (at delta = 1/2 its half-width is 0.77 to 0.98 :math:`w_d` for gamma = 1 to 1/4).
    """
    check_setting(setting)
    t = fluctuations.window_position(setting.delta, setting.gamma, theta=setting.theta, d=setting.d)
    return bool(abs(t) < fluctuations.window_half_width(fluctuations.WINDOW_LEVEL))


def spectral_prediction_valid(setting: Setting) -> bool:
    """True where :func:`spectral_accuracy` is compared with simulations: at least as many sequences as
    dimensions (N >= d) and outside the critical window of the sample transition (:func:`in_critical_window`)."""
    check_setting(setting)
    return setting.N >= setting.d and not in_critical_window(setting)


def samples_threshold(setting: Setting) -> float:
    """The number of sequences N* above which S has a signal outlier (``inf`` if the population has none):
    :func:`attnlib.theory.classification.sample_size_threshold` at ``setting``'s theta, delta and d."""
    check_setting(setting)
    return classification.sample_size_threshold(setting.delta, theta=setting.theta, d=setting.d)


# ------------------------------------------------------------------------------------------------ thresholds


def empirical_threshold(x, top, edge, spread) -> float:
    """The x (grid, interpolated linearly) from which on mean(top) - edge exceeds the fluctuation ``spread``.

    ``x``: increasing grid (e.g. N or log N); ``top``, ``edge``, ``spread``: arrays over the grid (mean top
    eigenvalue, theoretical bulk edge, standard deviation of the top eigenvalue). Returns nan if never.
    The margin (top - edge) - spread is interpolated between the last grid point where it is <= 0 and the next.
    """
    x = _v.finite_vector("x", x)
    margin = np.asarray(top, float) - np.asarray(edge, float) - np.asarray(spread, float)
    if margin.shape != x.shape:
        raise ValueError(f"top, edge and spread must have the shape of x {x.shape}, got {margin.shape}")
    if np.any(np.diff(x) <= 0):
        raise ValueError("x must be strictly increasing")
    above = margin > 0
    if not above[-1]:
        return float("nan")
    below = np.flatnonzero(~above)
    if below.size == 0:
        return float(x[0])
    k = int(below[-1]) + 1  # the margin stays positive from grid point k on
    m0, m1 = margin[k - 1], margin[k]
    return float(x[k - 1] + (x[k] - x[k - 1]) * (-m0) / (m1 - m0))

