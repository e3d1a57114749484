r"""The phase explorer: the (gamma, theta) plane with the population and sample transitions.

A point moved by sliders reports its region (:func:`attnlib.theory.regions`), the predicted outliers and
the overlaps (:func:`attnlib.theory.spike`, kappa = 1, overlaps against h); the transition curves are
:func:`attnlib.theory.thresholds` evaluated at once over a grid of gamma. The regions' colours and
descriptions are the explorer's; their order is that of ``attnlib.theory.REGIONS``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.numerics import checks as _v
from attnlib import theory
from attnlib.views.plotting import COLORS
from attnlib.views.controls import CONTROLS, GAMMA_MAX, THETA_MAX, resolve_state
from attnlib.views.figures.canvas import (fmt, html_table, new_figure,
    static_figure)

__all__ = ["PhaseState", "REGION_KEYS", "REGION_DESCRIPTIONS", "REGION_COLORS", "phase_theory", "phase_figure",
           "PhasePlot", "phase_readout"]

#: Short keys of the regions, indexed by the codes of :func:`attnlib.theory.regions`.
REGION_KEYS = ("none", "population", "sample")
#: What each region means, keyed by :data:`REGION_KEYS`.
REGION_DESCRIPTIONS = dict(zip(REGION_KEYS, (
    "no outlier: θ below the population threshold δ+√δ",
    "the population covariance has an outlier, but N samples are too few to see it",
    "sample outlier: the top eigenvector of S carries the signal",
)))
#: Fill colour of each region, indexed by the codes of :func:`attnlib.theory.regions`.
REGION_COLORS = ("#eeeeee", "#fde0dd", "#e5f5e0")
_THETA_POINTS = 400


@dataclass(frozen=True)
class PhaseState:
    """A point (gamma, theta) of the phase diagram at vocabulary ratio delta (theta in units of kappa).

    Defaults (those of the control table): the model chapter's delta = 0.5, gamma = 0.25 and theta = 5.3
    (its spike strength with mean pooling and ||mu||^2 = 1, rounded).

    Parameters
    ----------
    delta, gamma : float
        d/V and d/N (> 0).
    theta : float
        Spike strength (>= 0), in units of kappa.
    """

    delta: float = CONTROLS["delta"].default
    gamma: float = CONTROLS["gamma"].default
    theta: float = CONTROLS["theta"].default

    def __post_init__(self):
        object.__setattr__(self, "delta", _v.positive("delta", self.delta))
        object.__setattr__(self, "gamma", _v.positive("gamma", self.gamma))
        object.__setattr__(self, "theta", _v.nonnegative("theta", self.theta))


def phase_theory(state: PhaseState | None = None, *, points: int = 120, **overrides) -> dict:
    """The phase diagram at ``state.delta`` and the predictions at the point (gamma, theta).

    Parameters
    ----------
    state : PhaseState, optional
        The point and delta (default ``PhaseState()``), with the fields named in ``**overrides`` changed.
    points : int
        Number of gamma values of the sample-threshold curve, on (0, GAMMA_MAX].

    Returns
    -------
    dict
        ``gamma_grid``, ``theta_population`` (a number: delta + sqrt(delta)), ``theta_sample`` (the sample
        threshold along ``gamma_grid``), ``thresholds_here`` (both at the point's gamma), ``region_code``
        (:func:`attnlib.theory.regions`) and ``region`` (its key in ``REGION_DESCRIPTIONS``), ``spike``
        (:class:`attnlib.theory.Spike` at the point, overlaps against h, kappa = 1), and ``theta_grid`` with
        the population and sample overlap curves at the point's gamma.
    """
    state = resolve_state(PhaseState, state, overrides)
    points = _v.positive_int("points", points, minimum=2)
    gamma_grid = np.linspace(GAMMA_MAX / points, GAMMA_MAX, points)
    theta_pop, theta_smp = theory.thresholds(state.delta, gamma_grid)
    code = theory.regions(state.delta, state.gamma, theta=state.theta)
    theta_grid = np.linspace(0.0, THETA_MAX, _THETA_POINTS)
    curves = theory.spike(state.delta, state.gamma, theta=theta_grid, kappa=1.0, direction="h")
    return {
        "gamma_grid": gamma_grid,
        "theta_population": theta_pop,
        "theta_sample": theta_smp,
        "thresholds_here": theory.thresholds(state.delta, state.gamma),
        "region_code": code,
        "region": REGION_KEYS[code],
        "spike": theory.spike(state.delta, state.gamma, theta=state.theta, kappa=1.0, direction="h"),
        "theta_grid": theta_grid,
        "population_overlap": curves.population_overlap,
        "sample_overlap": curves.sample_overlap,
    }


class PhasePlot:
    """Left: the (gamma, theta) plane with both transition curves and the point. Right: overlaps vs theta."""

    def __init__(self, animated: bool = False):
        from matplotlib.patches import Patch, Polygon

        self.fig, (self.ax, self.ax2) = new_figure((6.5, 4.4), 2, animated, width_ratios=(1.1, 1.0))
        ax, ax2 = self.ax, self.ax2
        self.regions = [ax.add_patch(Polygon(np.zeros((3, 2)), closed=True, color=c, lw=0, zorder=0))
                        for c in REGION_COLORS]
        (self.pop_line,) = ax.plot([], [], color=COLORS["mean"], lw=1.8, label="population threshold")
        (self.smp_line,) = ax.plot([], [], color=COLORS["causal"], lw=1.8, label="sample threshold")
        (self.point,) = ax.plot([], [], "o", ms=9, mfc="gold", mec="black", label="the point")
        ax.set_xlim(0.0, GAMMA_MAX)
        ax.set_ylim(0.0, THETA_MAX)
        ax.set_xlabel("γ = d/N")
        ax.set_ylabel("θ (units of κ)")
        (self.pop_curve,) = ax2.plot([], [], color=COLORS["mean"], lw=1.5, label="population cos²(v_pop, h)")
        (self.smp_curve,) = ax2.plot([], [], color=COLORS["causal"], lw=1.5, label="sample cos²(v̂, h)")
        self.theta_mark = ax2.axvline(0, color="black", lw=1, ls="--", label="θ of the point")
        ax2.set_xlim(0.0, THETA_MAX)
        ax2.set_ylim(0.0, 1.02)
        ax2.set_xlabel("θ (units of κ)")
        ax2.set_ylabel("squared overlap")
        ax2.set_title("overlaps at the point's γ", fontsize=9)
        handles = [self.pop_line, self.smp_line, self.point, self.pop_curve, self.smp_curve, self.theta_mark]
        handles += [Patch(color=c, label=name) for c, name in zip(REGION_COLORS, theory.REGIONS)]
        self.fig.legend(handles=handles, fontsize=8, loc="outside lower center", ncols=3)

    def dynamic_artists(self):
        return [*self.regions, self.pop_line, self.smp_line, self.point, self.pop_curve, self.smp_curve,
                self.theta_mark]

    def draw(self, state: PhaseState, th: dict):
        g = np.concatenate([[0.0], th["gamma_grid"]])
        pop = np.full_like(g, th["theta_population"])
        smp = np.concatenate([[th["theta_population"]], th["theta_sample"]])  # both thresholds meet at gamma = 0
        top = np.full_like(g, THETA_MAX)
        bounds = (np.zeros_like(g), pop, smp, top)  # region k lies between bounds[k] and bounds[k + 1]
        for patch, lower, upper in zip(self.regions, bounds[:-1], bounds[1:]):
            patch.set_xy(np.column_stack([np.concatenate([g, g[::-1]]), np.concatenate([lower, upper[::-1]])]))
        self.pop_line.set_data(g, pop)
        self.smp_line.set_data(g, smp)
        self.point.set_data([state.gamma], [state.theta])
        self.pop_curve.set_data(th["theta_grid"], th["population_overlap"])
        self.smp_curve.set_data(th["theta_grid"], th["sample_overlap"])
        self.theta_mark.set_xdata([state.theta, state.theta])
        return ("phase",)


def phase_figure(state: PhaseState | None = None, **overrides):
    """The phase explorer's figure for ``state`` (default: its default state); returns ``(fig, theory_dict)``."""
    state = resolve_state(PhaseState, state, overrides)
    return static_figure(PhasePlot, phase_theory, state, f"regions at δ = {fmt(state.delta)}")


def phase_readout(state: PhaseState, th: dict) -> str:
    sp = th["spike"]
    pop, smp = th["thresholds_here"]
    return html_table([
        ["region", REGION_DESCRIPTIONS[th["region"]]],
        ["thresholds at this γ: θ_pop, θ_smp", f"{fmt(pop)}, {fmt(smp)}"],
        ["population outlier λ_pop/κ, cos²(v_pop, h)", f"{fmt(sp.population_eigenvalue)}, {fmt(sp.population_overlap)}"],
        ["sample outlier λ/κ, cos²(v̂, h)", f"{fmt(sp.sample_eigenvalue)}, {fmt(sp.sample_overlap)}"],
        ["bulk right edge /κ", fmt(theory.Bulk(state.delta, state.gamma).upper)],
    ])
