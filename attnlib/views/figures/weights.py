r"""The weights explorer: mean, causal and optimal pooling weights for a family of R, and alpha/kappa.

Sliders for the R family (:func:`attnlib.model.positional.family`), its parameter, T and the causal-attention
tau; shows the weight profiles (:func:`attnlib.model.weights.named`), R itself, and causal alpha/kappa across tau
(:func:`attnlib.model.weights.causal` stacked into a (k, T) array, :func:`attnlib.model.weights.snr` of all rows at once).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from attnlib.model import positional
from attnlib.model import weights as _w
from attnlib.views.plotting import COLORS
from attnlib.views.controls import (CONTROLS, TAU_MAX, WEIGHTINGS, resolve_state,
    sequence_process, state_fields)
from attnlib.views.figures.canvas import (AxisLimits, fmt, html_table,
    new_figure, static_figure)

__all__ = ["WeightsState", "TAU_GRID", "weights_theory", "weights_figure", "WeightsPlot", "weights_readout"]

#: The values of tau along which causal alpha/kappa is drawn.
TAU_GRID = np.linspace(0.0, TAU_MAX, 81)
TAU_GRID.flags.writeable = False
_D = {name: control.default for name, control in CONTROLS.items()}


@dataclass(frozen=True)
class WeightsState:
    """The R family and its parameters, and the causal-attention tau.

    Defaults (those of the control table): T = 16 Markov signs with r = 0.6, tau = 0.

    Parameters
    ----------
    family : str
        One of ``FAMILIES``; ``T`` and the family's parameters (a field each, from
        :data:`attnlib.model.positional.PARAMETERS`: ``r`` for markov, ``L`` for prefix, suffix, blocks).
    tau : float
        Score scale of causal attention (it multiplies the scores).
    """

    family: str = _D["family"]
    T: int = _D["T"]
    state_fields(locals())  # the family parameters (r, L, ...), each a field with its control's default
    tau: float = _D["tau"]

    def process(self) -> positional.SignProcess:
        """The sign process of the state's family (:func:`attnlib.model.positional.family`)."""
        return self._process

    def __post_init__(self):
        object.__setattr__(self, "_process", sequence_process(self))


@lru_cache(maxsize=64)
def _causal_profiles(T: int) -> np.ndarray:
    """Causal weights at every tau of ``TAU_GRID``, one per row: a read-only (len(TAU_GRID), T) array."""
    profiles = np.stack([_w.causal(T, tau) for tau in TAU_GRID])
    profiles.flags.writeable = False
    return profiles


def weights_theory(state: WeightsState | None = None, **overrides) -> dict:
    """Weights (summing to 1) and alpha, kappa, alpha/kappa of mean / causal(tau) / optimal pooling for R.

    Parameters
    ----------
    state : WeightsState, optional
        Default: ``WeightsState()``.
    **overrides
        Fields of the state to change.

    Returns
    -------
    dict
        ``R``, ``positions`` (1..T), ``weights`` and ``scalars`` (dicts keyed by weighting; scalars are
        (alpha, kappa, alpha/kappa)), ``lambda_max`` (top eigenvalue of R, the optimum of alpha/kappa),
        ``tau_grid`` and ``causal_snr`` (causal alpha/kappa along it).
    """
    state = resolve_state(WeightsState, state, overrides)
    process = state.process()
    R = process.R
    ws = {name: _w.named(name, process, state.tau)[0] for name in WEIGHTINGS}
    return {
        "R": R,
        "positions": np.arange(1, state.T + 1),
        "weights": ws,
        "scalars": {name: (_w.alpha(w, R), _w.kappa(w), _w.snr(w, R)) for name, w in ws.items()},
        "lambda_max": float(np.linalg.eigvalsh(R)[-1]),
        "tau_grid": TAU_GRID,
        "causal_snr": _w.snr(_causal_profiles(state.T), R),
    }


class WeightsPlot:
    """Weight profiles | R | causal alpha/kappa across tau."""

    def __init__(self, animated: bool = False):
        from matplotlib.ticker import MaxNLocator

        self.fig, (self.ax, self.ax_r, self.ax_tau) = new_figure((6.5, 3.6), 3, animated,
                                                                width_ratios=(1.3, 0.8, 1.1))
        ax, ax_r, ax_tau = self.ax, self.ax_r, self.ax_tau
        self.lines = {name: ax.plot([], [], "o-", ms=3, lw=1.4, color=COLORS[name], label=name)[0]
                      for name in WEIGHTINGS}
        ax.set_xlabel("position t")
        ax.set_ylabel("weight $w_t$ (sum 1)")
        self.image = ax_r.imshow(np.eye(2), vmin=-1, vmax=1, cmap="RdBu_r", interpolation="nearest")
        for axis in (ax.xaxis, ax_r.xaxis, ax_r.yaxis):
            axis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax_r.set_title("R", fontsize=9)
        ax_r.set_xlabel("s")
        ax_r.set_ylabel("t")
        ax_r.grid(False)
        (self.causal_curve,) = ax_tau.plot([], [], color=COLORS["causal"], lw=1.5, label="causal, across τ")
        self.mean_level = ax_tau.axhline(0, color=COLORS["mean"], lw=1.2, ls="--", label="mean pooling α/κ")
        self.opt_level = ax_tau.axhline(0, color=COLORS["optimal"], lw=1.2, ls="--", label="optimal α/κ = λmax(R)")
        (self.tau_point,) = ax_tau.plot([], [], "o", color=COLORS["causal"], ms=7)
        ax_tau.set_xlim(TAU_GRID[0], TAU_GRID[-1])
        ax_tau.set_xlabel("τ (causal attention)")
        ax_tau.set_ylabel("α/κ")
        ax_tau.set_title("causal α/κ vs τ", fontsize=9)
        self.limits = AxisLimits()
        handles = [*self.lines.values(), self.mean_level, self.opt_level]
        self.fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=3)

    def dynamic_artists(self):
        return [*self.lines.values(), self.image, self.causal_curve, self.mean_level, self.opt_level,
                self.tau_point]

    def draw(self, state: WeightsState, th: dict):
        T = state.T
        wmax = max(float(np.max(w)) for w in th["weights"].values())
        wmin = min(float(np.min(w)) for w in th["weights"].values())
        for name, line in self.lines.items():
            line.set_data(th["positions"], th["weights"][name])
        self.ax.set_xlim(0.5, T + 0.5)
        ytop = self.limits("w_top", 1.1 * wmax)
        ybottom = -self.limits("w_bottom", -1.1 * wmin) if wmin < 0 else 0.0
        self.ax.set_ylim(ybottom, ytop)
        self.image.set_data(th["R"])
        self.image.set_extent((0.5, T + 0.5, T + 0.5, 0.5))
        self.ax_r.set_xlim(0.5, T + 0.5)
        self.ax_r.set_ylim(T + 0.5, 0.5)
        snr = th["causal_snr"]
        self.causal_curve.set_data(th["tau_grid"], snr)
        self.mean_level.set_ydata([th["scalars"]["mean"][2]] * 2)
        self.opt_level.set_ydata([th["lambda_max"]] * 2)
        self.tau_point.set_data([state.tau], [th["scalars"]["causal"][2]])
        lows = [float(snr.min()), th["scalars"]["mean"][2], th["lambda_max"]]
        top = self.limits("snr", 1.08 * max(lows), coarse=True)
        self.ax_tau.set_ylim(0.0, top)
        return (T, ybottom, ytop, top)


def weights_figure(state: WeightsState | None = None, **overrides):
    """The weights explorer's figure for ``state`` (default: its default state); returns ``(fig, theory_dict)``."""
    state = resolve_state(WeightsState, state, overrides)
    title = f"{state.process().name}, causal τ = {fmt(state.tau)}"
    return static_figure(WeightsPlot, weights_theory, state, title)


def weights_readout(state: WeightsState, th: dict) -> str:
    rows = [[name + (f" (τ = {fmt(state.tau)})" if name == "causal" else ""), fmt(a), fmt(k), fmt(s)]
            for name, (a, k, s) in th["scalars"].items()]
    return html_table(rows, header=["weights", "α = wᵀRw", "κ = ‖w‖²", "α/κ"]) + (
        f"<div style='font-size:0.92em'>λmax(R) = {fmt(th['lambda_max'])} (the largest α/κ any weights reach)</div>")
