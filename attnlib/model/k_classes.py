r"""More than two classes: K class means, a Markov chain on class labels, and the rank-(K-1) spike.

Model (the book's, with K classes): the vocabulary has V/K tokens per class, :math:`e_v = \mu_{k(v)} + z_v`;
a sequence's labels follow a :class:`LabelChain` (keep the label with probability p, else draw a fresh one
uniformly among the K), and each position holds a token uniform in its class. With the class centroids
:math:`m_k = \mu_k + q_k` (:math:`q_k` the mean noise of class k, :math:`\|q_k\|^2 \approx K\delta`) and their
mean :math:`\bar m`, the covariance of a pooled vector given the vocabulary is exactly

.. math:: \kappa W' + \alpha B, \qquad B = \frac1K\sum_k (m_k - \bar m)(m_k - \bar m)^\top ,

with :math:`W' = ZPZ^\top/V` (P removes the K class indicators) and :math:`\alpha = w^\top Rw`,
:math:`R_{ts} = p^{|t-s|}`. B has rank K - 1; its eigenvalues tend to :math:`\nu_j + \delta`, where
:math:`\nu_j` are those of the scatter of the means :math:`\frac1K\sum_k(\mu_k-\bar\mu)(\mu_k-\bar\mu)^\top`
(:func:`scatter_eigenvalues`), so each direction j is a spike of strength
:math:`\theta_j = (\alpha/\kappa)(\nu_j + \delta)` with the book's thresholds and overlaps
(:func:`attnlib.theory.class_spikes`, through :meth:`ClassSetting.spikes`).
K = 2 with means :math:`\pm\mu` is the book's model (:math:`\nu_1 = \|\mu\|^2`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from attnlib.numerics import checks as _v
from attnlib import theory
from attnlib.model.generative import draw_rows
from attnlib.model.variants import ModelOptions

__all__ = ["LabelChain", "ClassVocabulary", "draw_class_vocabulary", "scatter_eigenvalues", "ClassSetting"]


@dataclass(frozen=True)
class LabelChain:
    """Markov chain on the labels 0..K-1 over T positions, stationary uniform: at each step keep the label
    with probability ``p``, else draw a new one uniformly among the K (possibly the same).

    The centred one-hot label vectors then have correlation p^|t-s| times (I - 11^T/K)/K: the positional
    correlation is R_ts = p^|t-s| (``R``), the two-class Markov chain of :mod:`attnlib.model.positional` with r = p.
    """

    K: int
    T: int
    p: float

    def __post_init__(self):
        object.__setattr__(self, "K", _v.positive_int("K", self.K, minimum=2))
        object.__setattr__(self, "T", _v.positive_int("T", self.T))
        object.__setattr__(self, "p", _v.probability_like("p", self.p, 0.0, 1.0))

    @property
    def R(self) -> np.ndarray:
        t = np.arange(self.T)
        return self.p ** np.abs(t[:, None] - t[None, :])

    def sample(self, N: int, rng: np.random.Generator) -> np.ndarray:
        """Labels (N, T), int: the first uniform, then keep-or-redraw position after position."""
        N = _v.positive_int("N", N)
        rng = _v.rng(rng)
        labels = np.empty((N, self.T), dtype=np.int64)
        labels[:, 0] = rng.integers(0, self.K, size=N)
        for t in range(1, self.T):
            keep = rng.random(N) < self.p
            labels[:, t] = np.where(keep, labels[:, t - 1], rng.integers(0, self.K, size=N))
        return labels


def _means(means) -> np.ndarray:
    M = np.asarray(means, dtype=float)
    if M.ndim != 2 or M.shape[0] < 2 or not np.all(np.isfinite(M)):
        raise ValueError(f"means must be a finite (K, m) array with K >= 2 classes, got shape {M.shape}")
    return M


@dataclass(frozen=True, eq=False)
class ClassVocabulary:
    """A K-class table ``table`` (V, d), class ``means`` (K, d), token ``labels`` (V,) and the class sums
    ``sums`` (K, d) of the rows, accumulated in double precision."""

    table: np.ndarray = field(repr=False)
    means: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    sums: np.ndarray = field(repr=False)

    @property
    def centroids(self) -> np.ndarray:
        """Class centroids m_k = mu_k + q_k, shape (K, d)."""
        return self.sums * (self.means.shape[0] / self.table.shape[0])

    def directions(self) -> tuple[np.ndarray, np.ndarray]:
        """Eigenvalues (K-1,), descending, and unit eigenvectors (d, K-1) of B = (1/K) sum_k (m_k - m)(m_k - m)^T."""
        Mc = self.centroids - self.centroids.mean(axis=0)
        K = Mc.shape[0]
        vals, vecs = np.linalg.eigh(Mc @ Mc.T / K)
        vals, vecs = vals[::-1][: K - 1], vecs[:, ::-1][:, : K - 1]
        b = Mc.T @ vecs
        return vals, b / np.linalg.norm(b, axis=0)


def draw_class_vocabulary(d: int, V: int, means, rng: np.random.Generator, *,
                          options: ModelOptions | None = None) -> ClassVocabulary:
    """Draw e_v = mu_{k(v)} + z_v with V/K tokens per class (class k: tokens k V/K .. (k+1) V/K - 1).

    ``means`` (K, m), m <= d: the class means in the first m coordinates (only their Gram matrix matters for
    isotropic noise). ``options``: noise law and covariance (:class:`attnlib.model.variants.ModelOptions`); the
    table is drawn by row blocks (:func:`attnlib.model.generative.draw_rows`), in double precision.
    """
    M = _means(means)
    K, m = M.shape
    d = _v.positive_int("d", d, minimum=m)
    V = _v.positive_int("V", V, minimum=K)
    if V % K:
        raise ValueError(f"V must be a multiple of the number of classes K = {K}, got {V}")
    rng = _v.rng(rng)
    options = ModelOptions() if options is None else options
    if not isinstance(options, ModelOptions) or options.frequencies is not None:
        raise ValueError("options must be an attnlib.model.variants.ModelOptions without token frequencies")
    options.check(d, V, K)
    labels = np.repeat(np.arange(K), V // K)
    table, sums = draw_rows(V, d, rng, options, M[labels], np.eye(K)[labels])
    full = np.zeros((K, d))
    full[:, :m] = M
    return ClassVocabulary(table=table, means=full, labels=labels, sums=sums)


def scatter_eigenvalues(means) -> np.ndarray:
    """nu_1 >= ... >= nu_{K-1}: eigenvalues of (1/K) sum_k (mu_k - mu_bar)(mu_k - mu_bar)^T.

    A property of the model's parameters (the class means), as ``alpha`` and ``kappa`` are, not a limit: it stays
    in the model (an exception listed in tests/test_closed_forms.py); the spikes it feeds are
    :func:`attnlib.theory.class_spikes`.
    """
    M = _means(means)
    Mc = M - M.mean(axis=0)
    return np.linalg.eigvalsh(Mc @ Mc.T / M.shape[0])[::-1][: M.shape[0] - 1]


@dataclass(frozen=True, eq=False)
class ClassSetting:
    """Sizes (d, V, N), class ``means`` (K, m), a :class:`LabelChain` and pooling ``weights`` (length T)."""

    d: int
    V: int
    N: int
    means: np.ndarray
    chain: LabelChain
    weights: np.ndarray
    options: ModelOptions | None = None

    def __post_init__(self):
        object.__setattr__(self, "means", _means(self.means))
        if not isinstance(self.chain, LabelChain) or self.chain.K != self.means.shape[0]:
            raise ValueError(f"chain must be a LabelChain with K = {self.means.shape[0]} (one label per mean)")
        object.__setattr__(self, "weights", _v.weights_vector("weights", self.weights, self.chain.T))
        object.__setattr__(self, "d", _v.positive_int("d", self.d, minimum=self.means.shape[1]))
        object.__setattr__(self, "V", _v.positive_int("V", self.V, minimum=self.K))
        object.__setattr__(self, "N", _v.positive_int("N", self.N))
        if self.V % self.K:
            raise ValueError(f"V must be a multiple of K = {self.K}, got {self.V}")

    K = property(lambda self: self.means.shape[0], doc="Number of classes.")
    delta = property(lambda self: self.d / self.V, doc="d / V.")
    gamma = property(lambda self: self.d / self.N, doc="d / N.")
    alpha = property(lambda self: float(self.weights @ self.chain.R @ self.weights), doc="w^T R w.")
    kappa = property(lambda self: float(self.weights @ self.weights), doc="||w||^2.")
    snr = property(lambda self: self.alpha / self.kappa, doc="alpha / kappa, the signal-to-noise ratio of the weights.")

    def spikes(self) -> theory.Spike:
        """The K - 1 spikes (arrays over the directions, strongest first): :func:`attnlib.theory.class_spikes`."""
        return theory.class_spikes(self.delta, self.gamma, nu=scatter_eigenvalues(self.means), snr=self.snr,
                                   kappa=self.kappa)

