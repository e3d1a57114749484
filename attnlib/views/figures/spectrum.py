r"""The spectrum explorer: the bulk kappa (MP_delta ⊠ MP_gamma), its edges and the predicted outliers.

Sliders for delta, gamma, ||mu||^2, the weighting (mean / causal with tau / optimal) and the positional
correlation R; on a button, the histogram of a freshly simulated spectrum. Every number drawn comes from
:class:`attnlib.model.limit.Limit` (built from the weights of :func:`attnlib.model.weights.named` and the R of
:func:`attnlib.model.positional.family`); the simulated setting is an :class:`attnlib.Setting` sized by
:func:`attnlib.model.setting.sizes_for`, and its zero eigenvalues are found by :func:`attnlib.numerics.linalg.zero_mask`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.numerics import randomness
from attnlib.model import positional
from attnlib.model import weights as _w
from attnlib.model.limit import Limit
from attnlib.numerics.linalg import zero_mask
from attnlib.views.plotting import COLORS
from attnlib.model.setting import Setting, sizes_for
from attnlib.engine.simulation import simulate
from attnlib.views.controls import CONTROLS, WEIGHTINGS, resolve_state, sequence_process, state_fields
from attnlib.views.figures.canvas import (AxisLimits, fmt, html_table,
    new_figure)

__all__ = ["SpectrumState", "spectrum_theory", "simulation_setting", "spectrum_simulation", "spectrum_figure",
           "SpectrumPlot", "spectrum_readout"]

_SIM_COLOR = "#9ecae1"
_D = {name: control.default for name, control in CONTROLS.items()}


@dataclass(frozen=True)
class SpectrumState:
    """Everything the spectrum explorer shows.

    Defaults (those of the control table): the setting of the model chapter, d/V = 0.5, d/N = 0.25,
    ||mu||^2 = 1, T = 16 Markov signs with r = 0.6, mean pooling, centered S.

    Parameters
    ----------
    delta, gamma : float
        d/V and d/N (> 0).
    mu_norm2 : float
        ||mu||^2 (>= 0).
    weighting : str
        One of ``WEIGHTINGS`` ("mean", "causal", "optimal").
    tau : float
        Score scale of causal attention (it multiplies the scores; used by "causal").
    family : str
        One of ``FAMILIES``; ``T`` and the family's parameters (a field each, from
        :data:`attnlib.model.positional.PARAMETERS`: ``r`` for markov, ``L`` for prefix, suffix, blocks).
    centered : bool
        Centre the pooled vectors before forming S.
    """

    delta: float = _D["delta"]
    gamma: float = _D["gamma"]
    mu_norm2: float = _D["mu_norm2"]
    weighting: str = _D["weighting"]
    tau: float = _D["tau"]
    family: str = _D["family"]
    T: int = _D["T"]
    state_fields(locals())  # the family parameters (r, L, ...), each a field with its control's default
    centered: bool = _D["centered"]

    def __post_init__(self):
        object.__setattr__(self, "delta", _v.positive("delta", self.delta))
        object.__setattr__(self, "gamma", _v.positive("gamma", self.gamma))
        object.__setattr__(self, "mu_norm2", _v.nonnegative("mu_norm2", self.mu_norm2))
        _v.choice("weighting", self.weighting, WEIGHTINGS)
        object.__setattr__(self, "centered", bool(self.centered))
        object.__setattr__(self, "_process", sequence_process(self))

    def process(self) -> positional.SignProcess:
        """The sign process of the state's family (:func:`attnlib.model.positional.family`)."""
        return self._process

    def weights(self) -> np.ndarray:
        """The pooling weights (:func:`attnlib.model.weights.named`)."""
        return _w.named(self.weighting, self._process, self.tau)[0]


def spectrum_theory(state: SpectrumState | None = None, *, points: int = 600, **overrides) -> dict:
    """What the spectrum explorer draws for ``state``: the bulk density, its edges and the predicted outliers.

    Parameters
    ----------
    state : SpectrumState, optional
        Default: ``SpectrumState()``.
    points : int
        Number of points of the density curve (>= 2).
    **overrides
        Fields of the state to change.

    Returns
    -------
    dict
        ``limit`` (the :class:`attnlib.model.limit.Limit`), ``weights``, ``alpha``, ``kappa``, ``theta``,
        ``weight_sum``, ``edges`` (lower, upper), ``atom``, ``x`` and ``density`` (the continuous part of
        kappa (MP_delta ⊠ MP_gamma), rescaled to mass 1 as the histogram of the non-zero eigenvalues is),
        ``thresholds`` (theta_population, theta_sample), ``signal`` (overlaps against u), ``signal_h``
        (overlaps against h) and ``mean`` (the vocabulary-mean spike of the uncentered S, or None).
    """
    state = resolve_state(SpectrumState, state, overrides)
    points = _v.positive_int("points", points, minimum=2)
    process = state.process()
    w = state.weights()
    limit = Limit.from_weights(w, process.R, state.delta, state.gamma, state.mu_norm2)
    bulk = limit.bulk
    (lo, hi), atom = bulk.support, bulk.atom
    x = np.linspace(lo, hi, points)
    return {
        "limit": limit,
        "weights": w,
        "alpha": limit.alpha,
        "kappa": limit.kappa,
        "theta": limit.theta,
        "weight_sum": limit.weight_sum,
        "edges": (lo, hi),
        "atom": atom,
        "x": x,
        "density": bulk.density(x) / (1.0 - atom),
        "thresholds": limit.thresholds(),
        "signal": limit.signal(),
        "signal_h": limit.signal_h(),
        "mean": None if state.centered else limit.mean_spike(),
    }


def simulation_setting(state: SpectrumState, d: int = 400) -> Setting:
    """The finite setting simulated for ``state`` at dimension ``d`` (>= 2), sized by :func:`attnlib.model.setting.sizes_for`."""
    if not isinstance(state, SpectrumState):
        raise ValueError(f"state must be a SpectrumState, got {state!r}")
    d = _v.positive_int("d", d, minimum=2)
    V, N = sizes_for(d, state.delta, state.gamma)
    return Setting(d=d, V=V, N=N, mu_norm2=state.mu_norm2, process=state.process(), weights=state.weighting,
                   tau=state.tau)


def spectrum_simulation(state: SpectrumState | None = None, *, d: int = 400, seed: int = 0):
    """One draw of the model at dimension ``d`` for ``state`` (full spectrum of S), with ``default_rng(seed)``.

    Returns the :class:`attnlib.engine.simulation.Draw` (its ``setting`` has the actual V and N used).
    """
    state = resolve_state(SpectrumState, state, {})
    seed = _v.positive_int("seed", seed, minimum=0)
    setting = simulation_setting(state, d)
    return simulate(setting, randomness.generator(seed), centered=state.centered, spectrum="exact", k=2)


class SpectrumPlot:
    """Bulk density, edges, predicted outliers and (optionally) a simulated histogram, on one axes."""

    BINS = 60

    def __init__(self, animated: bool = False):
        self.fig, (self.ax,) = new_figure((6.5, 3.9), 1, animated)
        ax = self.ax
        self.hist = None
        (self.density,) = ax.plot([], [], color=COLORS["theory"], lw=1.5,
                                  label=r"bulk $\kappa(\mathrm{MP}_\delta\boxtimes\mathrm{MP}_\gamma)$")
        self.edges = [ax.axvline(0, color=COLORS["edge"], ls=":", lw=1.2, label="bulk edges" if i == 0 else None)
                      for i in range(2)]
        self.outlier = ax.axvline(0, color=COLORS["causal"], ls="--", lw=1.5, label="predicted signal outlier")
        self.mean_outlier = ax.axvline(0, color=COLORS["optimal"], ls="-.", lw=1.5,
                                       label="predicted mean outlier (uncentered)")
        self.top = ax.plot([], [], "kv", ms=7, label="simulated top eigenvalue")[0]
        ax.set_xlabel("eigenvalue of $S$")
        ax.set_ylabel("density (non-zero part)")
        self._legend_key = None
        self.limits = AxisLimits()

    def dynamic_artists(self):
        artists = [self.density, *self.edges, self.outlier, self.mean_outlier, self.top]
        if self.hist is not None:
            artists += list(self.hist)
        return artists

    @staticmethod
    def _vline(line, value) -> None:
        line.set_visible(bool(np.isfinite(value)))
        if np.isfinite(value):
            line.set_xdata([value, value])

    def draw(self, state: SpectrumState, th: dict, draw=None):
        lo, hi = th["edges"]
        sample = th["signal"].sample_eigenvalue
        mean_value = th["mean"].sample_eigenvalue if th["mean"] is not None else np.nan
        right = max([hi] + [v for v in (sample, mean_value) if np.isfinite(v)])
        finite = th["density"][np.isfinite(th["density"])]
        needed_y = 1.15 * float(np.quantile(finite, 0.97)) if finite.size else 1.0
        self.density.set_data(th["x"], th["density"])
        for line, edge in zip(self.edges, (lo, hi)):
            line.set_xdata([edge, edge])
        self._vline(self.outlier, sample)
        self._vline(self.mean_outlier, mean_value)
        if self.hist is not None:
            for patch in self.hist:
                patch.remove()
            self.hist = None
        self.top.set_data([], [])
        if draw is not None:
            ev = np.asarray(draw.eigenvalues, dtype=float)
            nonzero = ev[~zero_mask(ev)]  # the one zero-eigenvalue rule of attnlib.numerics.linalg
            right = max(right, float(ev.max()))
            xmax = self.limits("x", 1.08 * right)
            heights, edges = np.histogram(nonzero, bins=self.BINS, range=(0.0, xmax), density=True)
            self.hist = self.ax.bar(edges[:-1], heights, width=np.diff(edges), align="edge", color=_SIM_COLOR,
                                    edgecolor="white", linewidth=0.3, zorder=0, label="_simulated eigenvalues")
            needed_y = max(needed_y, 1.05 * float(heights.max()))
        xmax = self.limits("x", 1.08 * right)
        ymax = self.limits("y", needed_y)
        if draw is not None:
            self.top.set_data([ev.max()], [0.04 * ymax])
        self.ax.set_xlim(0.0, xmax)
        self.ax.set_ylim(0.0, ymax)
        legend_key = (state.centered, draw is not None)
        if legend_key != self._legend_key:
            self._legend(state, draw)
            self._legend_key = legend_key
        return (xmax, ymax, legend_key)

    def _legend(self, state, draw) -> None:
        """Below the axes (clear of the title): nothing that moves can cover it, and it is part of the cached
        background."""
        from matplotlib.patches import Patch

        handles = [self.density, self.edges[0], self.outlier]
        if not state.centered:
            handles.append(self.mean_outlier)
        if draw is not None:
            handles += [Patch(color=_SIM_COLOR, label="simulated eigenvalues"), self.top]
        if self.fig.legends:
            self.fig.legends[0].remove()
        self.fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=3)


def spectrum_figure(state: SpectrumState | None = None, *, simulate_d: int | None = None, seed: int = 0,
                    **overrides):
    """The spectrum explorer's figure for ``state`` (default: its default state) as a pyplot figure.

    ``simulate_d``: also draw the histogram of one simulated spectrum at that dimension (``default_rng(seed)``),
    as the explorer's button does. Returns ``(fig, theory_dict, draw_or_None)``.
    """
    state = resolve_state(SpectrumState, state, overrides)
    if simulate_d is not None:
        simulate_d = _v.positive_int("simulate_d", simulate_d, minimum=2)
    th = spectrum_theory(state)
    draw = spectrum_simulation(state, d=simulate_d, seed=seed) if simulate_d is not None else None
    plot = SpectrumPlot(animated=False)
    plot.draw(state, th, draw)
    plot.ax.set_title(_title(state, th, draw), fontsize=9)
    return plot.fig, th, draw


def _title(state, th, draw) -> str:
    text = (f"δ = {fmt(state.delta)}, γ = {fmt(state.gamma)}, ‖μ‖² = {fmt(state.mu_norm2)}, "
            f"{state.family} R (T = {state.T}), {state.weighting} pooling: θ = {fmt(th['theta'])}")
    if draw is not None:
        s = draw.setting
        text += f"\nsimulated: d = {s.d}, V = {s.V}, N = {s.N}"
    return text


def spectrum_readout(state: SpectrumState, th: dict, draw=None) -> str:
    sig_u, sig_h = th["signal"], th["signal_h"]
    pop, smp = th["thresholds"]
    rows = [
        ["α = wᵀRw, κ = ‖w‖²", f"{fmt(th['alpha'])}, {fmt(th['kappa'])}"],
        ["spike strength θ = α(‖μ‖²+δ)/κ", fmt(th["theta"])],
        ["thresholds θ_pop = δ+√δ, θ_smp", f"{fmt(pop)}, {fmt(smp)}"],
        ["bulk edges", f"{fmt(th['edges'][0])}, {fmt(th['edges'][1])}"],
        ["predicted outlier (sample)", fmt(sig_u.sample_eigenvalue) if sig_u.sample_detectable
         else "none: θ below the sample threshold"],
        ["cos²(v̂, h) / cos²(v̂, u)", f"{fmt(sig_h.sample_overlap)} / {fmt(sig_u.sample_overlap)}"],
    ]
    if th["mean"] is not None:
        rows.append(["mean spike θ_g, its outlier", f"{fmt(th['mean'].theta)}, {fmt(th['mean'].sample_eigenvalue)}"])
    if draw is not None:
        s = draw.setting
        zeros = float(zero_mask(draw.eigenvalues).mean())
        rows.append([f"simulated (d={s.d}, V={s.V}, N={s.N})",
                     f"top eigenvalues {fmt(draw.eigenvalues[0])}, {fmt(draw.eigenvalues[1])}; "
                     f"cos² with h {fmt(draw.overlap_h)}, u {fmt(draw.overlap_u)}, g {fmt(draw.overlap_g)}; "
                     f"zeros {fmt(100 * zeros)}% (atom {fmt(100 * th['atom'])}%)"])
    return html_table(rows)
