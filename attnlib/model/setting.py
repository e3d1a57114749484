"""One object describing a setting, accepted by both the theory and the simulation.

>>> from attnlib import Setting, positional
>>> s = Setting(d=600, V=1200, N=2400, mu_norm2=1.0, process=positional.markov(16, 0.6), weights="mean")
>>> s.delta, s.gamma, round(s.theta, 3)          # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.model import weights as _w
from attnlib.model.limit import Limit
from attnlib.model.variants import ModelOptions
from attnlib.model.positional import SignProcess

__all__ = ["Setting", "sizes_for", "check_setting"]


def sizes_for(d: int, delta, gamma) -> tuple[int, int]:
    """``(V, N)`` closest to d/delta (made even, at least 2) and d/gamma (at least 2): the one rounding rule
    used wherever sizes come from ratios."""
    d = _v.positive_int("d", d)
    delta = _v.positive("delta", delta)
    gamma = _v.positive("gamma", gamma)
    return max(2, 2 * int(round(d / delta / 2.0))), max(2, int(round(d / gamma)))


@_v.validated(d=_v.positive_int, V=partial(_v.positive_int, even=True, minimum=2), N=_v.positive_int,
              mu_norm2=_v.nonnegative, process=SignProcess, label=str, tau=_v.finite_scalar,
              options=_v.optional(ModelOptions))
def _fields(d, V, N, mu_norm2, process, label, tau, options) -> dict:
    """The fields of a :class:`Setting` that are checked as they are, in one validator call."""
    return dict(d=d, V=V, N=N, mu_norm2=mu_norm2, tau=tau)


def _from_limit(name: str, doc: str, *, call: bool = False):
    """A property (``call=False``) or method of Setting that reads through to the same name of its Limit."""
    if call:
        def method(self):
            return getattr(self.limit, name)()
        method.__name__, method.__doc__ = name, doc
        return method
    return property(lambda self: getattr(self.limit, name), doc=doc)


@dataclass(frozen=True, eq=False)
class Setting:
    """Sizes (d, V, N), signal strength ||mu||^2, the sign process (hence T and R) and the pooling weights.

    ``weights`` is an array of length T or one of "mean", "causal" (with ``tau``), "optimal".
    Derived scalars: delta = d/V, gamma = d/N, alpha = w^T R w, kappa = ||w||^2, theta = alpha(||mu||^2+delta)/kappa.

    ``options`` (an :class:`attnlib.model.variants.ModelOptions`, default None: the book's model) changes the noise
    law, the noise covariance or the token frequencies of what :func:`attnlib.simulate` and
    :func:`attnlib.sweep` draw. The theory a Setting reads through to its :class:`~attnlib.model.limit.Limit` is the book's model's:
    it holds for any noise law with a finite fourth moment, while a covariance or token frequencies need
    :mod:`attnlib.theory.population` and :mod:`attnlib.model.frequencies`.
    """

    d: int
    V: int
    N: int
    mu_norm2: float
    process: SignProcess
    weights: np.ndarray | str = "mean"
    tau: float = 0.0
    label: str = field(default="", compare=False)
    options: ModelOptions | None = field(default=None, compare=False)
    scheme: str = field(default="custom", init=False, repr=False)

    def __post_init__(self):
        for name, value in _fields(self.d, self.V, self.N, self.mu_norm2, self.process, self.label, self.tau,
                                   self.options).items():
            object.__setattr__(self, name, value)
        w, label = _w.named(self.weights, self.process, self.tau)
        object.__setattr__(self, "scheme", self.weights if isinstance(self.weights, str) else "custom")
        object.__setattr__(self, "weights", w)
        if not self.label:
            object.__setattr__(self, "label", label)
        if self.options is not None:
            self.options.check(self.d, self.V)

    def replace(self, **changes) -> "Setting":
        """A copy with some fields changed.

        Weights given by name ("mean", "causal", "optimal") are re-resolved, so changing ``process`` or ``tau``
        recomputes them; an explicit array is kept as is. The label is recomputed unless it was set explicitly
        and the weights are unchanged.
        """
        unknown = sorted(set(changes) - {"d", "V", "N", "mu_norm2", "process", "weights", "tau", "label", "options"})
        if unknown:
            raise ValueError(f"replace() got {', '.join(unknown)}: a Setting's fields are d, V, N, mu_norm2, process, "
                             "weights, tau, label and options")
        by_name = self.scheme != "custom"
        fields = dict(d=self.d, V=self.V, N=self.N, mu_norm2=self.mu_norm2, process=self.process,
                      weights=self.scheme if by_name else self.weights, tau=self.tau, label=self.label,
                      options=self.options)
        if ("weights" in changes or (by_name and ("process" in changes or "tau" in changes))) and "label" not in changes:
            fields["label"] = ""
        fields.update(changes)
        return Setting(**fields)

    def with_theta(self, theta) -> "Setting":
        """This setting with ||mu||^2 chosen so that its spike strength alpha (||mu||^2 + delta)/kappa is ``theta``.

        The weights, process and sizes are kept. Raises ValueError if theta < (alpha/kappa) delta, the strength
        the vocabulary's own class split gives at mu = 0.
        """
        theta = _v.nonnegative("theta", theta)
        floor = self.snr * self.delta
        if theta < floor - 1e-12:
            raise ValueError(
                f"theta must be >= (alpha/kappa) delta = {floor:.6g} for this setting (reached at ||mu||^2 = 0), "
                f"got {theta:.6g}"
            )
        return self.replace(mu_norm2=max(0.0, theta / self.snr - self.delta))

    def at_dimension(self, d: int) -> "Setting":
        """This setting at dimension ``d`` with the same ratios (sizes from :func:`sizes_for`)."""
        d = _v.positive_int("d", d, minimum=2)
        V, N = sizes_for(d, self.delta, self.gamma)
        return self.replace(d=d, V=V, N=N)

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
    def limit(self) -> Limit:
        """The ratio-level :class:`attnlib.model.limit.Limit` of this setting: all its theory goes through it."""
        return Limit(self.delta, self.gamma, self.alpha, self.kappa, self.mu_norm2, self.weight_sum)

    # The theory of a setting is the theory of its limit: these names read through to :class:`Limit`.
    snr = _from_limit("snr", "alpha / kappa, the one number the weights enter through.")
    theta = _from_limit("theta", "Signal spike strength alpha (||mu||^2 + delta) / kappa (units of kappa).")
    rho = _from_limit("rho", "The paper's stated SNR alpha ||mu||^2 / kappa (omits the vocabulary's centroid shift).")
    theta_g = _from_limit("theta_g", "Strength (sum w)^2 delta / kappa of the vocabulary-mean spike of the "
                                     "uncentered S.")
    signal = _from_limit("signal", "Theory for the signal spike (overlaps against u = mu/||mu||).", call=True)
    signal_h = _from_limit("signal_h", "Theory for the signal spike, overlaps against the class centroid "
                                       "h = mu + Zs/V.", call=True)
    mean_spike = _from_limit("mean_spike", "Theory for the vocabulary-mean spike of the uncentered S (overlaps "
                                           "against g = Z1/V).", call=True)
    bulk = _from_limit("bulk", "The bulk law kappa (MP_delta ⊠ MP_gamma) of S, a theory.Bulk (support, upper, atom, "
                              "density, cdf, moments).")
    thresholds = _from_limit("thresholds", "(theta_population, theta_sample) for this (delta, gamma).", call=True)
    signal_thresholds = _from_limit("signal_thresholds", "The thresholds in ||mu||^2 and in theta with their state, "
                                    "as a record that says in words where each outlier exists "
                                    "(:meth:`attnlib.model.limit.Limit.signal_thresholds`).", call=True)

    def __repr__(self) -> str:
        return (f"Setting(d={self.d}, V={self.V}, N={self.N}, T={self.T}, mu_norm2={self.mu_norm2:g}, "
                f"process={self.process.name}, weights={self.label}"
                + (f", options={self.options!r})" if self.options is not None else ")"))


def check_setting(value, name: str = "setting") -> Setting:
    """Return ``value`` after checking it is an :class:`attnlib.Setting`."""
    if not isinstance(value, Setting):
        raise ValueError(f"{name} must be an attnlib.Setting, got {_v.short(value)}")
    return value
