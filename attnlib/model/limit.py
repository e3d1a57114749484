r"""The limit at the level of ratios: everything the theory needs, and nothing about sizes or sequences.

As d, V, N -> infinity the spectrum of S depends on a setting only through six numbers: the ratios
delta = d/V and gamma = d/N, the pooled signal strength alpha = w^T R w, the noise scale kappa = ||w||^2,
the signal ||mu||^2 and the weight sum (sum w, for the vocabulary-mean spike of the uncentered S). A
:class:`Limit` holds them, as scalars or as arrays that broadcast together, and answers every question of
:mod:`attnlib.theory` at once over a grid: phase diagrams, theory curves and the explorers use it directly,
and :class:`~attnlib.model.setting.Setting` delegates to it.

>>> import numpy as np
>>> from attnlib.limit import Limit
>>> lim = Limit(delta=0.5, gamma=0.25, alpha=3.5, kappa=1.0, mu_norm2=np.array([0.0, 0.3, 1.0]))
>>> lim.theta.round(3).tolist()
[1.75, 2.8, 5.25]
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

import numpy as np

from attnlib.numerics import checks as _v
from attnlib import theory
from attnlib.model import weights as _w

__all__ = ["Limit", "Onset", "Threshold", "SignalThresholds"]


def _field(name: str, value, check):
    arr = np.asarray(check(name, value, allow_array=True), dtype=float)
    return float(arr) if arr.ndim == 0 else arr


class Onset(enum.Enum):
    """Where the outlier of one transition starts, as ||mu||^2 grows (the ``state`` of a :class:`Threshold`)."""

    ABOVE = "above a threshold ‖μ‖² ≥ 0"
    ALWAYS = "at every ‖μ‖² ≥ 0"
    NEVER = "never"


@dataclass(frozen=True)
class Threshold:
    """One transition of the signal spike (``"population"`` or ``"sample"``).

    ``theta``: the critical strength theta_c (units of kappa, :func:`attnlib.theory.thresholds`);
    ``mu_norm2``: the ||mu||^2 at which the strength alpha (||mu||^2 + delta)/kappa reaches it; ``state``:
    ``Onset.ABOVE`` (the outlier exists for ||mu||^2 > ``mu_norm2`` >= 0), ``Onset.ALWAYS`` (already
    crossed at ||mu||^2 = 0 by the vocabulary's own class split, of strength (alpha/kappa) delta: the outlier
    exists at every ||mu||^2 >= 0 and ``mu_norm2`` is 0.0) or ``Onset.NEVER`` (alpha = 0: ``mu_norm2`` is
    inf).
    """

    transition: str
    theta: float
    mu_norm2: float
    state: Onset

    def describe(self) -> str:
        """This transition in words: its critical theta, and from which ||mu||^2 on its outlier exists."""
        name = "θ_pop" if self.transition == "population" else "θ_smp"
        where = {Onset.ALWAYS: f"{Onset.ALWAYS.value}, already crossed at ‖μ‖² = 0",
                 Onset.NEVER: "never (α = wᵀRw = 0: no signal in the pooled vectors)"}
        return f"{self.transition} outlier (θ > {name} = {self.theta:.4g}): " + where.get(
            self.state, f"for ‖μ‖² > {self.mu_norm2:.4g}")


@dataclass(frozen=True)
class SignalThresholds:
    """The thresholds of the signal spike of one setting, in ||mu||^2 and in theta, with their state.

    ``population``, ``sample``: a :class:`Threshold` each; ``theta_at_zero``: the strength (alpha/kappa) delta
    the vocabulary's own class split gives at ||mu||^2 = 0; ``delta``, ``gamma``, ``snr`` (alpha/kappa). The
    numbers are those of :func:`attnlib.theory.signal_thresholds` and :func:`attnlib.theory.thresholds`; its
    ``str`` says in words where each outlier exists.
    """

    population: Threshold
    sample: Threshold
    theta_at_zero: float
    delta: float
    gamma: float
    snr: float

    @property
    def always_detectable(self) -> bool:
        """True when S has an outlier at every ||mu||^2 >= 0 (the sample threshold is crossed at 0)."""
        return self.sample.state is Onset.ALWAYS

    def __str__(self) -> str:
        return (f"signal thresholds at δ = {self.delta:.4g}, γ = {self.gamma:.4g}, α/κ = {self.snr:.4g}; "
                f"at ‖μ‖² = 0, θ = (α/κ)·δ = {self.theta_at_zero:.4g}\n"
                f"  {self.population.describe()}\n  {self.sample.describe().replace('sample', 'sample    ', 1)}")

    __repr__ = __str__


@dataclass(frozen=True, eq=False)
class Limit:
    """The six numbers of the limit, each a float or an array (all broadcast together).

    Parameters
    ----------
    delta, gamma : float or array_like
        d/V and d/N (> 0).
    alpha : float or array_like
        w^T R w (>= 0).
    kappa : float or array_like
        ||w||^2 (> 0).
    mu_norm2 : float or array_like
        ||mu||^2 (>= 0).
    weight_sum : float or array_like
        sum_t w_t (finite).
    """

    delta: float | np.ndarray
    gamma: float | np.ndarray
    alpha: float | np.ndarray
    kappa: float | np.ndarray = 1.0
    mu_norm2: float | np.ndarray = 0.0
    weight_sum: float | np.ndarray = 1.0

    def __post_init__(self):
        for name in ("delta", "gamma", "kappa"):
            object.__setattr__(self, name, _field(name, getattr(self, name), _v.positive))
        for name in ("alpha", "mu_norm2"):
            object.__setattr__(self, name, _field(name, getattr(self, name), _v.nonnegative))
        ws = np.asarray(self.weight_sum, dtype=float)
        if not np.all(np.isfinite(ws)):
            raise ValueError(f"weight_sum must be finite real numbers, got {self.weight_sum!r}")
        object.__setattr__(self, "weight_sum", float(ws) if ws.ndim == 0 else ws)
        try:
            np.broadcast(self.delta, self.gamma, self.alpha, self.kappa, self.mu_norm2, self.weight_sum)
        except ValueError:
            raise ValueError("delta, gamma, alpha, kappa, mu_norm2 and weight_sum must broadcast together, "
                             "got shapes " + ", ".join(str(np.shape(getattr(self, n))) for n in
                                                        ("delta", "gamma", "alpha", "kappa", "mu_norm2",
                                                         "weight_sum"))) from None

    @classmethod
    def from_weights(cls, w, R, delta, gamma, mu_norm2=0.0) -> "Limit":
        """The limit of pooling weights ``w`` under positional correlation ``R``."""
        R = _v.correlation_matrix("R", R)
        w = _w.as_weights(w, R.shape[0])
        return cls(delta=delta, gamma=gamma, alpha=_w.alpha(w, R), kappa=_w.kappa(w), mu_norm2=mu_norm2,
                   weight_sum=float(w.sum()))

    def replace(self, **changes) -> "Limit":
        """A copy with some fields changed (validated again)."""
        unknown = sorted(set(changes) - {"delta", "gamma", "alpha", "kappa", "mu_norm2", "weight_sum"})
        if unknown:
            raise ValueError(f"replace() got {', '.join(unknown)}: a Limit's fields are delta, gamma, alpha, kappa, "
                             "mu_norm2 and weight_sum")
        return replace(self, **changes)

    @property
    def snr(self):
        """alpha / kappa, the one number the weights enter through."""
        return self.alpha / self.kappa

    @property
    def theta(self):
        """Spike strength alpha (||mu||^2 + delta) / kappa of the signal (:func:`attnlib.theory.spike_strength`)."""
        return theory.spike_strength(self.delta, alpha=self.alpha, kappa=self.kappa, mu_norm2=self.mu_norm2)

    @property
    def rho(self):
        """The paper's stated SNR alpha ||mu||^2 / kappa (:func:`attnlib.theory.paper_rho`)."""
        return theory.paper_rho(self.alpha, self.kappa, self.mu_norm2)

    @property
    def theta_g(self):
        """Strength of the vocabulary-mean spike of the uncentered S (:func:`attnlib.theory.mean_spike_strength`)."""
        return theory.mean_spike_strength(self.delta, weight_sum=self.weight_sum, kappa=self.kappa)

    def thresholds(self):
        """``(theta_population, theta_sample)`` (:func:`attnlib.theory.thresholds`)."""
        return theory.thresholds(self.delta, self.gamma)

    def signal_thresholds(self) -> SignalThresholds:
        """The thresholds in ||mu||^2 and in theta, each with its state (:class:`SignalThresholds`).

        ``print(limit.signal_thresholds())`` says where each outlier exists, and says so in words when the
        vocabulary's own class split, of strength (alpha/kappa) delta, crosses a threshold already at
        ||mu||^2 = 0. The numbers come from :func:`attnlib.theory.signal_thresholds`. Needs a limit of scalars
        (for a grid, call :func:`attnlib.theory.signal_thresholds` with arrays).
        """
        if any(np.ndim(getattr(self, n)) for n in ("delta", "gamma", "alpha", "kappa")):
            raise ValueError("signal_thresholds() needs delta, gamma, alpha and kappa to be scalars; for a grid, "
                             "use attnlib.theory.signal_thresholds(delta, gamma, alpha, kappa) with arrays")
        thetas = self.thresholds()
        raw = theory.signal_thresholds(self.delta, self.gamma, self.alpha, self.kappa, clip=False)
        out = []
        for transition, theta_c, mu2 in zip(("population", "sample"), thetas, raw):
            state = Onset.NEVER if not np.isfinite(mu2) else Onset.ALWAYS if mu2 < 0 else Onset.ABOVE
            out.append(Threshold(transition, float(theta_c), max(float(mu2), 0.0), state))
        return SignalThresholds(out[0], out[1], float(self.snr * self.delta), float(self.delta), float(self.gamma),
                                float(self.snr))

    @property
    def bulk(self) -> theory.Bulk:
        """The bulk law kappa (MP_delta ⊠ MP_gamma) of S, a :class:`attnlib.theory.laws.Bulk` (its ``support``,
        ``upper``, ``atom``, ``density``, ``cdf``, ``moments``)."""
        return theory.Bulk(self.delta, self.gamma, self.kappa)

    def signal(self) -> theory.Spike:
        """The signal spike, overlaps against u = mu/||mu|| (:func:`attnlib.theory.signal`)."""
        return theory.signal(self.delta, self.gamma, self.alpha, self.kappa, self.mu_norm2)

    def signal_h(self) -> theory.Spike:
        """The signal spike, overlaps against the class centroid h = mu + Zs/V."""
        return theory.spike(self.delta, self.gamma, theta=self.theta, kappa=self.kappa, direction="h")

    def mean_spike(self) -> theory.Spike:
        """The vocabulary-mean spike of the uncentered S (:func:`attnlib.theory.mean_spike`)."""
        return theory.mean_spike(self.delta, self.gamma, self.weight_sum, self.kappa)

    def region(self):
        """Region code of the signal (:func:`attnlib.theory.regions`; names in ``theory.REGIONS``)."""
        return theory.regions(self.delta, self.gamma, theta=self.theta)
