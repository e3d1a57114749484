r"""The downstream task of Section 6: a sequence label, a ridge classifier on pooled vectors, the unsupervised
spectral classifier, and what the spike theory predicts for them.

Task
    The label of sequence n is the sign ``xi[n, b]`` of one *label position* b. In the prefix model (the first L
    positions share one sign) every prefix position carries the same sign, so the label is the prefix's shared
    sign: a property of the whole sequence that every pooling sees through the prefix tokens.
    :func:`label_position` finds b for any process in which exactly one block of positions shares a sign
    (prefix, suffix, a single block) and raises ValueError otherwise (Markov chains, several blocks), where no
    position is singled out; pass ``position=`` explicitly there.

Theory (conditional on the vocabulary, h = mu + Zs/V, W' the Wishart part, see the model chapter)
    E[xi_t | xi_b = y] = R_tb y for a sign process symmetric under a global flip, so
    E[c | y] = a y h + (sum w) g with the *label signal* a = (R w)_b, and the class-conditional covariance
    (averaged over the two classes) is Sigma_n = kappa W' + (alpha - a^2) h h^T. Two predictions follow:

    * :func:`label_snr`, :func:`fisher_accuracy`: the best linear rule knowing the vocabulary (Fisher, direction
      Sigma_n^{-1} h), Gaussian approximation Phi(varsigma), varsigma^2 = a^2 M / (kappa + (alpha - a^2) M),
      M = ||h||^2 / (1 - delta) (from h^T W'^{-1} h -> ||h||^2 / (1 - delta); needs delta < 1).
    * :func:`spectral_accuracy`: classifying by the sign of the projection on the top eigenvector u_hat of S.
      The projection has class mean +-a <u_hat, h> and variance u_hat^T Sigma_n u_hat =
      u_hat^T Sigma u_hat - a^2 <u_hat, h>^2, with <u_hat, h>^2 = ||h||^2 x (sample overlap with h) and
      u_hat^T Sigma u_hat = l^2 / lambda (l population outlier, lambda sample outlier; see
      :func:`outlier_quadratic_form`). Gaussian approximation: Phi(a abs(<u_hat, h>) / sd).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from . import _validate as _v
from .classifiers import DEFAULT_LAMBDAS, _Decomposition, _lambda_grid, _ridge, _signed, accuracy
from .linalg import squared_cosine
from .model import Vocabulary, draw_vocabulary, pool, population_covariance, sample_tokens
from .montecarlo import streams as _streams
from .positional import SignProcess
from .progress import progress
from .setting import Setting

__all__ = [
    "DEFAULT_LAMBDAS",
    "label_position",
    "labels",
    "label_signal",
    "outlier_quadratic_form",
    "SpectralPrediction",
    "spectral_accuracy",
    "label_snr",
    "fisher_accuracy",
    "in_critical_window",
    "samples_threshold",
    "Experiment",
    "run_experiment",
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
        raise ValueError(f"process must be an attnlib.positional.SignProcess, got {process!r}")
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


def _position(process: SignProcess, position) -> int:
    if position is None:
        return label_position(process)
    position = _v.positive_int("position", position, minimum=0)
    if position >= process.T:
        raise ValueError(f"position must be in 0..T-1 = 0..{process.T - 1}, got {position}")
    return position


def labels(process: SignProcess, xi, position: int | None = None) -> np.ndarray:
    """Labels y_n = xi[n, b] in {-1, +1} (int8) of sign sequences ``xi`` (N, T) drawn from ``process``."""
    b = _position(process, position)
    xi = np.asarray(xi)
    if xi.ndim != 2 or xi.shape[1] != process.T or not np.all(np.abs(xi) == 1):
        raise ValueError(f"xi must be an (N, T = {process.T}) array of +-1 signs, got shape {xi.shape}")
    return xi[:, b].astype(np.int8)


def label_signal(w, R, position: int) -> float:
    """a = (R w)_b = sum_t w_t R_tb: the class mean of a pooled vector is a y h (plus the common (sum w) g)."""
    R = _v.correlation_matrix("R", R)
    w = _v.weights_vector("w", w, R.shape[0])
    position = _v.positive_int("position", position, minimum=0)
    if position >= R.shape[0]:
        raise ValueError(f"position must be in 0..T-1 = 0..{R.shape[0] - 1}, got {position}")
    return float(R[position] @ w)


# --------------------------------------------------------------------------------------------------- theory


def outlier_quadratic_form(setting: Setting) -> float:
    r"""u_hat^T Sigma u_hat for the top eigenvector u_hat of S, Sigma = Cov(c | E): l^2 / lambda.

    Derivation: the eigenvalues of S = Sigma^{1/2} Y Sigma^{1/2} are those of Y^{1/2} Sigma Y^{1/2}; perturbing
    Sigma -> Sigma + eps Sigma^2 moves the outlier by (Hellmann-Feynman) d lambda/d eps = lambda u_hat^T Sigma u_hat.
    The generalized-spike outlier lambda = l (1 + gamma int t/(l - t) dH(t)) moves, under t -> t + eps t^2,
    l -> l + eps l^2, by exactly l^2, so u_hat^T Sigma u_hat = l^2 / lambda
    = kappa (x + 1)(x + delta)/(x + gamma), x = theta - delta. ``nan`` below the sample threshold.
    """
    _v.setting(setting)
    sp = setting.signal_h()
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


def spectral_accuracy(setting: Setting, position: int | None = None, n_anchor: int | None = None) -> SpectralPrediction:
    """Predicted test accuracy of the sign of the projection on the top eigenvector of the centered S.

    N = setting.N unlabeled training sequences give u_hat; the classifier is sign(u_hat^T (c - c_bar)) with the
    sign of u_hat fixed by ``n_anchor`` labelled training sequences (None: the sign is known). Gaussian
    approximation of the projection: class means +-a abs(<u_hat, h>), variance u_hat^T Sigma u_hat - a^2 <u_hat, h>^2.
    An anchor vote sum_i y_i p_i has mean k a abs(eta) and variance k sd^2, so the sign is wrong with probability
    Phi(-sqrt(k) snr), and then the accuracy is 1 - Phi(snr).
    """
    _v.setting(setting)
    b = _position(setting.process, position)
    a = abs(label_signal(setting.weights, setting.R, b))
    sp = setting.signal_h()
    if not sp.sample_detectable:
        return SpectralPrediction(a, 0.0, float("nan"), float("nan"), 0.0, 0.5, 0.5, 0.5)
    eta2 = float((setting.mu_norm2 + setting.delta) * sp.sample_overlap)
    quad = outlier_quadratic_form(setting)
    noise_var = quad - a * a * eta2
    snr = a * np.sqrt(eta2 / noise_var)
    signed = float(ndtr(snr))
    if n_anchor is None:
        flip = 0.0
    else:
        flip = float(ndtr(-np.sqrt(_v.positive_int("n_anchor", n_anchor)) * snr))
    accuracy = (1 - flip) * signed + flip * (1 - signed)
    return SpectralPrediction(a, eta2, quad, noise_var, float(snr), signed, flip, accuracy)


def label_snr(setting: Setting, position: int | None = None) -> float:
    """Fisher separation varsigma^2 = a^2 h^T Sigma_n^{-1} h of the label, in the limit (infinite training set).

    With Sigma_n = kappa W' + (alpha - a^2) h h^T, Sherman-Morrison and h^T W'^{-1} h -> ||h||^2 / (1 - delta):
    varsigma^2 = (a^2/kappa) M / (1 + (alpha - a^2) M / kappa), M = (||mu||^2 + delta) / (1 - delta).
    Needs delta < 1: for d >= V the pooled vectors live in the V-dimensional span of the table, W' is singular.
    """
    _v.setting(setting)
    if setting.delta >= 1:
        raise ValueError(f"the label SNR needs delta = d/V < 1 (W' invertible), got delta = {setting.delta:g}")
    b = _position(setting.process, position)
    a = label_signal(setting.weights, setting.R, b)
    M = (setting.mu_norm2 + setting.delta) / (1 - setting.delta)
    return float(a * a / setting.kappa * M / (1 + (setting.alpha - a * a) / setting.kappa * M))


def fisher_accuracy(setting: Setting, position: int | None = None) -> float:
    """Phi(varsigma): Gaussian-approximation accuracy of the best linear rule knowing the vocabulary.

    See :func:`label_snr` (needs delta < 1).
    """
    return float(ndtr(np.sqrt(label_snr(setting, position))))


def in_critical_window(setting: Setting) -> bool:
    """True if theta is within a relative d^(-1/3) of the sample threshold theta_s (the BBP critical window).

    There the finite-d outlier and overlap are smoothed versions of the limiting curves (which have a kink at
    theta_s), so comparisons with the limit are only made outside the window.
    """
    _v.setting(setting)
    return bool(abs(setting.theta / setting.thresholds()[1] - 1) < setting.d ** (-1 / 3))


def samples_threshold(setting: Setting) -> float:
    """The number of sequences N* above which S has a signal outlier (``inf`` if the population has none).

    The sample threshold x^3 - (gamma + delta + gamma delta) x - 2 gamma delta = 0 (x = theta - delta) is linear
    in gamma: gamma* = x (x^2 - delta) / ((1 + delta) x + 2 delta), and N* = d / gamma*. theta does not depend on N.
    """
    _v.setting(setting)
    x, delta = setting.theta - setting.delta, setting.delta
    if x <= np.sqrt(delta):
        return float("inf")
    gamma_star = x * (x * x - delta) / ((1 + delta) * x + 2 * delta)
    return float(setting.d / gamma_star)


# ------------------------------------------------------------------------------------------------ experiment


@dataclass(frozen=True, eq=False)
class Experiment:
    """Results of :func:`run_experiment`.

    Arrays of shape (len(n_train), len(names), vocabularies): ``ridge``, ``spectral`` (test accuracies),
    ``overlap_u``, ``overlap_h`` (cos^2 of u_hat with u and h), ``eta2`` (<u_hat, h>^2), ``quad``
    (u_hat^T Sigma u_hat), ``spectral_plugin`` (the Gaussian approximation Phi(a eta / sd) at the measured
    eta = <u_hat, h> (signed by the anchors) and quad),
    ``lam_rel`` (chosen ridge lambda), ``sign_error`` (1 if the anchors picked the wrong sign of u_hat).
    Shape (len(names), vocabularies): ``oracle`` (test accuracy of the Fisher rule Sigma_n^{-1} h of the vocabulary;
    nan if delta >= 1).
    """

    names: tuple
    weights: tuple
    process: SignProcess
    position: int
    d: int
    V: int
    mu_norm2: float
    n_train: np.ndarray
    n_test: int
    n_anchor: int
    seed: int
    ridge: np.ndarray
    spectral: np.ndarray
    overlap_u: np.ndarray
    overlap_h: np.ndarray
    eta2: np.ndarray
    quad: np.ndarray
    spectral_plugin: np.ndarray
    lam_rel: np.ndarray
    sign_error: np.ndarray
    oracle: np.ndarray

    @property
    def vocabularies(self) -> int:
        return self.ridge.shape[-1]

    def mean(self, name: str) -> np.ndarray:
        return getattr(self, name).mean(axis=-1)

    def sem(self, name: str) -> np.ndarray:
        """Standard error over vocabularies (each vocabulary with its own sequences)."""
        values = getattr(self, name)
        if values.shape[-1] < 2:
            raise ValueError(f"the standard error needs at least 2 vocabularies, got {values.shape[-1]}")
        return values.std(axis=-1, ddof=1) / np.sqrt(values.shape[-1])

    def paired_difference(self, name: str, better: int, worse: int) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard error over vocabularies of ``name`` for weighting ``better`` minus ``worse``."""
        values = getattr(self, name)
        diff = values[..., better, :] - values[..., worse, :]
        return diff.mean(axis=-1), diff.std(axis=-1, ddof=1) / np.sqrt(diff.shape[-1])

    def setting(self, i_weight: int, n_train: int) -> Setting:
        """The :class:`~attnlib.setting.Setting` (N = n_train) of weighting ``i_weight``, for the theory."""
        return Setting(d=self.d, V=self.V, N=int(n_train), mu_norm2=self.mu_norm2, process=self.process,
                       weights=self.weights[i_weight], label=self.names[i_weight])


def _one_vocabulary(rng, process, weights, position, d, V, mu_norm2, n_train, n_test, n_anchor, lam_rel):
    """All measurements for one vocabulary: shared sequences for every weighting (paired comparison)."""
    voc: Vocabulary = draw_vocabulary(d, V, mu_norm2, rng)
    n_max = int(max(n_train))
    xi = process.sample(n_max + n_test, rng)
    tokens = sample_tokens(xi, V, rng)
    y = xi[:, position].astype(np.int8)
    y_train, y_test = y[:n_max], y[n_max:]
    parts = population_covariance(voc, weights[0], process.R, parts=True)
    W_prime, h = parts["W_prime"], parts["h"]
    out = np.full((9, len(n_train), len(weights)), np.nan)
    oracle = np.full(len(weights), np.nan)
    for j, w in enumerate(weights):
        C = pool(voc, tokens, w)
        C_train, C_test = C[:n_max], C[n_max:]
        alpha, kappa = float(w @ process.R @ w), float(w @ w)
        a = float(process.R[position] @ w)
        if d < V - 2:  # W' invertible: Fisher rule of this vocabulary, direction Sigma_n^{-1} h
            beta = np.linalg.solve(kappa * W_prime + (alpha - a * a) * np.outer(h, h), h)
            oracle[j] = accuracy(y_test, np.sign(a) * ((C_test - C_train.mean(axis=0)) @ beta))
        for i, n in enumerate(n_train):
            yn = y_train[:n].astype(float)
            dec = _Decomposition.of(C_train[:n])  # one eigendecomposition serves ridge and the spectral classifier
            fit = _ridge(dec, yn, lam_rel)
            top_value, top_vector = dec.top_direction()
            spec = _signed(top_vector, dec.x_mean, top_value, dec.Xc[:n_anchor], yn[:n_anchor])
            u = spec.direction
            eta = float(u @ h)
            quad = kappa * float(u @ W_prime @ u) + alpha * eta * eta
            # the Gaussian approximation at the measured <u, h> and u^T Sigma u, with the sign the anchors chose
            plugin = float(ndtr(a * eta / np.sqrt(quad - a * a * eta * eta)))
            out[:, i, j] = (accuracy(y_test, fit.decision(C_test)), accuracy(y_test, spec.decision(C_test)),
                            squared_cosine(u, voc.u), squared_cosine(u, h), eta * eta, quad, plugin, fit.lam_rel,
                            float(a * eta < 0))
    return out, oracle


def run_experiment(process: SignProcess, weights: dict, *, d: int, V: int, mu_norm2: float, n_train, n_test: int,
                   vocabularies: int, seed: int, n_anchor: int = 20, position: int | None = None,
                   lam_rel=DEFAULT_LAMBDAS, desc: str | None = None) -> Experiment:
    """Ridge and spectral classifiers for several weightings, training sizes and vocabularies.

    For each vocabulary v (random stream ``SeedSequence(seed).spawn(vocabularies)[v]``): draw the table, then
    max(n_train) training and ``n_test`` test sequences, shared by all weightings (a paired comparison); the
    training set of size n is the first n sequences. Labels are the signs at the label position. Reusing ``seed``
    with another ``mu_norm2`` reuses the same noise Z and sequences (the table is Z + s mu^T).
    """
    if not isinstance(process, SignProcess):
        raise ValueError(f"process must be an attnlib.positional.SignProcess, got {process!r}")
    if not isinstance(weights, dict) or not weights:
        raise ValueError(f"weights must be a non-empty dict name -> weight vector, got {weights!r}")
    names = tuple(weights)
    ws = tuple(_v.weights_vector(f"weights[{name!r}]", w, process.T) for name, w in weights.items())
    b = _position(process, position)
    d = _v.positive_int("d", d)
    V = _v.positive_int("V", V, even=True, minimum=2)
    mu_norm2 = _v.nonnegative("mu_norm2", mu_norm2)
    sizes = tuple(_v.positive_int("n_train", n, minimum=3) for n in np.atleast_1d(np.asarray(n_train)).tolist())
    n_test = _v.positive_int("n_test", n_test)
    vocabularies = _v.positive_int("vocabularies", vocabularies)
    seed = _v.positive_int("seed", seed, minimum=0)
    n_anchor = _v.positive_int("n_anchor", n_anchor)
    if n_anchor > min(sizes):
        raise ValueError(f"n_anchor must be at most the smallest training size {min(sizes)}, got {n_anchor}")
    lam_rel = _lambda_grid(lam_rel)
    streams = _streams(seed, vocabularies)
    res = np.empty((9, len(sizes), len(ws), vocabularies))
    oracle = np.empty((len(ws), vocabularies))
    for v in progress(range(vocabularies), total=vocabularies, desc=desc):
        out, orc = _one_vocabulary(np.random.default_rng(streams[v]), process, ws, b, d, V, mu_norm2, sizes,
                                   n_test, n_anchor, lam_rel)
        res[..., v], oracle[:, v] = out, orc
    return Experiment(names=names, weights=ws, process=process, position=b, d=d, V=V, mu_norm2=mu_norm2,
                      n_train=np.array(sizes), n_test=n_test, n_anchor=n_anchor, seed=seed, ridge=res[0],
                      spectral=res[1], overlap_u=res[2], overlap_h=res[3], eta2=res[4], quad=res[5],
                      spectral_plugin=res[6], lam_rel=res[7], sign_error=res[8], oracle=oracle)


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
