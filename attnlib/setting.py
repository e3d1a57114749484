"""One object describing a setting, accepted by both the theory and the simulation.

>>> from attnlib import Setting, positional
>>> s = Setting(d=600, V=1200, N=2400, mu_norm2=1.0, process=positional.markov(16, 0.6), weights="mean")
>>> s.delta, s.gamma, round(s.theta, 3)          # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _validate as _v
from . import theory
from . import weights as _w
from .positional import SignProcess

__all__ = ["Setting", "resolve_weights"]


def resolve_weights(weights, process: SignProcess, tau: float = 0.0) -> tuple[np.ndarray, str]:
    """Turn "mean" / "causal" / "optimal" (or an explicit array) into (weights, label) for ``process``."""
    if isinstance(weights, str):
        if weights == "mean":
            return _w.mean(process.T), "mean"
        if weights == "causal":
            return _w.causal(process.T, tau), f"causal (tau={tau:g})"
        if weights == "optimal":
            return _w.optimal(process.R), "optimal"
        raise ValueError(f"weights must be 'mean', 'causal', 'optimal' or an array of length T, got {weights!r}")
    return _w.as_weights(weights, process.T), "custom"


@dataclass(frozen=True, eq=False)
class Setting:
    """Sizes (d, V, N), signal strength ||mu||^2, the sign process (hence T and R) and the pooling weights.

    ``weights`` is an array of length T or one of "mean", "causal" (with ``tau``), "optimal".
    Derived scalars: delta = d/V, gamma = d/N, alpha = w^T R w, kappa = ||w||^2, theta = alpha(||mu||^2+delta)/kappa.
    """

    d: int
    V: int
    N: int
    mu_norm2: float
    process: SignProcess
    weights: np.ndarray | str = "mean"
    tau: float = 0.0
    label: str = field(default="", compare=False)
    scheme: str = field(default="custom", init=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "d", _v.positive_int("d", self.d))
        object.__setattr__(self, "V", _v.positive_int("V", self.V, even=True, minimum=2))
        object.__setattr__(self, "N", _v.positive_int("N", self.N))
        object.__setattr__(self, "mu_norm2", _v.nonnegative("mu_norm2", self.mu_norm2))
        if not isinstance(self.process, SignProcess):
            raise ValueError(f"process must be an attnlib.positional.SignProcess, got {self.process!r}")
        tau = np.asarray(self.tau, dtype=float)
        if tau.ndim or not np.isfinite(tau):
            raise ValueError(f"tau must be a finite real number, got {self.tau!r}")
        object.__setattr__(self, "tau", float(tau))
        w, label = resolve_weights(self.weights, self.process, self.tau)
        object.__setattr__(self, "scheme", self.weights if isinstance(self.weights, str) else "custom")
        object.__setattr__(self, "weights", w)
        if not self.label:
            object.__setattr__(self, "label", label)

    def replace(self, **changes) -> "Setting":
        """A copy with some fields changed.

        Weights given by name ("mean", "causal", "optimal") are re-resolved, so changing ``process`` or ``tau``
        recomputes them; an explicit array is kept as is. The label is recomputed unless it was set explicitly
        and the weights are unchanged.
        """
        by_name = self.scheme != "custom"
        fields = dict(d=self.d, V=self.V, N=self.N, mu_norm2=self.mu_norm2, process=self.process,
                      weights=self.scheme if by_name else self.weights, tau=self.tau, label=self.label)
        if ("weights" in changes or (by_name and ("process" in changes or "tau" in changes))) and "label" not in changes:
            fields["label"] = ""
        fields.update(changes)
        return Setting(**fields)

    @property
    def T(self) -> int:
        return self.process.T

    @property
    def R(self) -> np.ndarray:
        return self.process.R

    @property
    def delta(self) -> float:
        return self.d / self.V

    @property
    def gamma(self) -> float:
        return self.d / self.N

    @property
    def alpha(self) -> float:
        return float(self.weights @ self.R @ self.weights)

    @property
    def kappa(self) -> float:
        return float(self.weights @ self.weights)

    @property
    def weight_sum(self) -> float:
        return float(self.weights.sum())

    @property
    def snr(self) -> float:
        """alpha / kappa."""
        return self.alpha / self.kappa

    @property
    def theta(self) -> float:
        """Effective signal spike strength alpha (||mu||^2 + delta) / kappa (units of kappa)."""
        return float(theory.spike_strength(self.alpha, self.kappa, self.mu_norm2, self.delta))

    @property
    def rho(self) -> float:
        """The summary's SNR alpha ||mu||^2 / kappa (which omits the vocabulary's own centroid shift)."""
        return self.alpha * self.mu_norm2 / self.kappa

    @property
    def theta_g(self) -> float:
        """Strength (sum w)^2 delta / kappa of the vocabulary-mean spike of the uncentered S."""
        return self.weight_sum**2 * self.delta / self.kappa

    def signal(self) -> theory.Spike:
        """Theory for the signal spike (overlaps against u = mu/||mu||)."""
        return theory.signal(self.delta, self.gamma, self.alpha, self.kappa, self.mu_norm2)

    def signal_h(self) -> theory.Spike:
        """Theory for the signal spike with overlaps against the class centroid h = mu + Zs/V."""
        return theory.spike(self.theta, self.delta, self.gamma, self.kappa, direction="h")

    def mean_spike(self) -> theory.Spike:
        """Theory for the vocabulary-mean spike of the uncentered S (overlaps against g = Z1/V)."""
        return theory.mean_spike(self.delta, self.gamma, self.weight_sum, self.kappa)

    def bulk_edges(self) -> tuple[float, float]:
        return theory.bulk_edges(self.delta, self.gamma, self.kappa)

    def thresholds(self) -> tuple[float, float]:
        """(theta_population, theta_sample) for this (delta, gamma)."""
        return theory.thresholds(self.delta, self.gamma)

    def __repr__(self) -> str:
        return (f"Setting(d={self.d}, V={self.V}, N={self.N}, T={self.T}, mu_norm2={self.mu_norm2:g}, "
                f"process={self.process.name}, weights={self.label})")
