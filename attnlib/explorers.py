r"""Interactive explorers for JupyterLab, and the static figures of their states for the HTML book.

Three explorers, each a one-liner in a chapter (``explorers.spectrum_explorer()``) and usable on its own:

* :func:`spectrum_explorer`: sliders for delta, gamma, ||mu||^2, the weighting (mean / causal with tau /
  optimal), the positional-correlation family R and its parameter; shows the bulk density
  kappa (MP_delta ⊠ MP_gamma), its edges, the predicted outlier(s) and, on a button, a fresh simulated
  histogram.
* :func:`phase_explorer`: the (gamma, theta) plane with the population and sample transition curves; a point
  moved by sliders reports its region, the predicted outliers and the overlaps.
* :func:`weights_explorer`: the R family, its parameter and tau; shows the weight profiles and alpha, kappa,
  alpha/kappa of mean / causal / optimal pooling, R itself, and causal alpha/kappa across tau.

Every explorer is a pure function of a *state* (:class:`SpectrumState`, :class:`PhaseState`,
:class:`WeightsState`): ``*_theory(state)`` computes what is drawn (only through :mod:`attnlib.theory`,
:mod:`attnlib.weights`, :mod:`attnlib.positional`, :class:`attnlib.Setting` and :func:`attnlib.simulate`),
``*_figure(state)`` draws it as an ordinary matplotlib figure (for the book: the explorer's default state
with nothing to drag), and the explorer redraws the same figure when a control moves.

Responsiveness: a control change recomputes the theory (vectorised, about a millisecond) and re-renders
only what changed: the figure's static background (axes, ticks, legend) is cached and redrawn only when the
axis limits, which move in coarse "nice" steps, change; the moving lines are blitted on top and sent to the
browser as one PNG. Simulation runs only when its button is pressed. :func:`measure_latency` times updates.
"""

from __future__ import annotations

import io
import statistics
import time
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from . import _validate as _v
from . import positional, theory
from . import weights as _w
from .plotting import COLORS
from .report import sig
from .setting import Setting
from .simulation import simulate

__all__ = [
    "FAMILIES",
    "WEIGHTINGS",
    "make_process",
    "weights_for",
    "SpectrumState",
    "spectrum_theory",
    "simulation_setting",
    "spectrum_simulation",
    "spectrum_figure",
    "spectrum_explorer",
    "PhaseState",
    "phase_theory",
    "phase_figure",
    "phase_explorer",
    "WeightsState",
    "weights_theory",
    "weights_figure",
    "weights_explorer",
    "measure_latency",
]

FAMILIES = ("independent", "markov", "prefix", "suffix", "blocks")
WEIGHTINGS = ("mean", "causal", "optimal")
_FAMILY_HELP = {
    "independent": "R = I",
    "markov": "R_ts = r^|t-s|",
    "prefix": "first L positions share a sign",
    "suffix": "last L positions share a sign",
    "blocks": "blocks of L positions share a sign",
}
_SIM_COLOR = "#9ecae1"
_TAU_GRID = np.linspace(0.0, 8.0, 81)


# ----------------------------------------------------------------------------------------------- helpers


def _choice(name: str, value, allowed) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def make_process(family: str, T: int, r: float = 0.6, L: int = 4) -> positional.SignProcess:
    """The sign process of a named family: independent, markov (parameter r), prefix / suffix / blocks (L)."""
    family = _choice("family", family, FAMILIES)
    T = _v.positive_int("T", T)
    if family == "independent":
        return positional.independent(T)
    if family == "markov":
        return positional.markov(T, _v.probability_like("r", r, 0.0, 0.99))
    L = _v.positive_int("L", L)
    if L > T:
        raise ValueError(f"L must be between 1 and T = {T}, got {L}")
    if family == "prefix":
        return positional.prefix(T, L)
    if family == "suffix":
        return positional.suffix(T, L)
    sizes = [L] * (T // L) + ([T % L] if T % L else [])
    return positional.blocks(sizes)


def weights_for(weighting: str, process: positional.SignProcess, tau: float = 0.0) -> np.ndarray:
    """Pooling weights (summing to 1) of one weighting for ``process``, as :class:`attnlib.Setting` resolves them."""
    weighting = _choice("weighting", weighting, WEIGHTINGS)
    if weighting == "mean":
        return _w.mean(process.T)
    if weighting == "causal":
        return _w.causal(process.T, tau)
    return _w.optimal(process.R)


def _nice_ceil(value: float) -> float:
    """Smallest number of the form {1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8} x 10^k that is >= value (> 0)."""
    if not np.isfinite(value) or value <= 0:
        return 1.0
    exponent = np.floor(np.log10(value))
    for mantissa in (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        candidate = mantissa * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return float(candidate)
    return float(10.0 ** (exponent + 1))


class _Limits:
    """Axis limits that move in "nice" steps and with hysteresis: a limit grows as soon as the data need
    more room but shrinks only when they use less than ``shrink`` of it, so that dragging a slider rarely
    changes the axes (and so rarely forces a full redraw of the figure's static background)."""

    def __init__(self, shrink: float = 0.45):
        self.shrink = shrink
        self.current: dict[str, float] = {}

    def __call__(self, name: str, needed: float, *, coarse: bool = False) -> float:
        """The limit for ``needed``; ``coarse``: powers of two (for quantities that sweep decades)."""
        now = self.current.get(name)
        if now is None or needed > now or needed < self.shrink * now:
            now = float(2.0 ** np.ceil(np.log2(needed))) if coarse and needed > 0 else _nice_ceil(needed)
        self.current[name] = now
        return now


def _fmt(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    return f"{sig(x, digits):g}"


def _table(rows, header=None) -> str:
    """A small HTML table (used by the explorers' read-outs)."""
    cell = 'style="padding:1px 10px 1px 0;text-align:left"'
    html = ['<table style="border-collapse:collapse;font-size:0.92em">']
    if header:
        html.append("<tr>" + "".join(f"<th {cell}>{h}</th>" for h in header) + "</tr>")
    for row in rows:
        html.append("<tr>" + "".join(f"<td {cell}>{c}</td>" for c in row) + "</tr>")
    html.append("</table>")
    return "".join(html)


class _Blitter:
    """Render a figure to PNG, redrawing its static part only when ``key`` changes (blitting the rest).

    ``dynamic()`` returns the artists that change between updates; they are marked animated so that a full
    draw leaves them out of the cached background.
    """

    def __init__(self, fig, dynamic):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.fig = fig
        self.canvas = FigureCanvasAgg(fig)
        self.dynamic = dynamic
        self._key = None
        self._background = None
        self.full_draws = 0

    def render(self, key) -> bytes:
        from PIL import Image

        artists = [a for a in self.dynamic() if a is not None]
        for artist in artists:
            artist.set_animated(True)
        if key != self._key or self._background is None:
            self.canvas.draw()
            self._background = self.canvas.copy_from_bbox(self.fig.bbox)
            self._key = key
            self.full_draws += 1
        else:
            self.canvas.restore_region(self._background)
        renderer = self.canvas.get_renderer()
        for artist in artists:
            if artist.get_visible():
                artist.draw(renderer)
        width, height = self.canvas.get_width_height()
        image = Image.frombuffer("RGBA", (width, height), bytes(self.canvas.buffer_rgba()), "raw", "RGBA", 0, 1)
        out = io.BytesIO()
        image.convert("RGB").save(out, format="png", compress_level=1)  # fastest zlib level: ~40 kB a frame
        return out.getvalue()


def _slider_options(widgets, width: str):
    """Keyword arguments for a slider. Returns a factory: every widget needs its own Layout object (a shared
    one would hide all sliders when one is hidden)."""
    return lambda: dict(continuous_update=True, style={"description_width": "initial"},
                        layout=widgets.Layout(width=width))


def _set_range(slider, value, maximum) -> None:
    """Set an IntSlider's value and maximum in an order that never leaves the value out of range."""
    if maximum >= slider.max:
        slider.max = maximum
        slider.value = value
    else:
        slider.value = value
        slider.max = maximum


def _new_figure(figsize, ncols, animated: bool, width_ratios=None):
    """A pyplot figure for the book (``animated=False``), or a bare one for an explorer (never auto-shown)."""
    if animated:
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, dpi=100, layout="constrained")
        axes = fig.subplots(1, ncols, width_ratios=width_ratios)
    else:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, ncols, figsize=figsize, layout="constrained", width_ratios=width_ratios)
    return fig, np.atleast_1d(axes)


class _ExplorerBase:
    """Shared mechanics of the three explorers (mixed into an ipywidgets.VBox subclass)."""

    state_class: type
    figure_class: type

    def _setup(self, state, controls: dict):
        import ipywidgets as widgets

        self.state = state
        self.controls = controls
        self.plot = self.figure_class(animated=True)
        self.blitter = _Blitter(self.plot.fig, self.plot.dynamic_artists)
        width, height = self.blitter.canvas.get_width_height()
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{width}px", height=f"{height}px"))
        self.readout = widgets.HTML()
        self.message = widgets.HTML()
        for name, control in controls.items():
            control.observe(self._on_change, names="value")
            control._explorer_field = name
        self.theory = None
        self.update()
        boxes = [widgets.HBox(list(row)) for row in self._control_rows()]
        return boxes + [self.image, widgets.HBox([self.readout]), self.message]

    def _control_rows(self):
        return [list(self.controls.values())]

    def _on_change(self, change):
        if getattr(self, "_syncing", False):  # a control adjusted by _sync_controls, not by the reader
            return
        name = change["owner"]._explorer_field
        try:
            self.update(**{name: change["new"]})
            self.message.value = ""
        except ValueError as err:  # e.g. optimal weights that cannot sum to 1: say so, keep the last figure
            self.message.value = f'<span style="color:#b00">{err}</span>'

    def update(self, **changes):
        """Apply ``changes`` to the state, recompute the theory and redraw (no simulation)."""
        if "T" in changes and "L" not in changes and hasattr(self.state, "L"):
            changes["L"] = min(self.state.L, int(changes["T"]))  # keep the block length within the sequence
        state = replace(self.state, **changes) if changes else self.state
        th = self.theory_function(state)
        self.state, self.theory = state, th
        self._syncing = True
        try:
            self._sync_controls()
        finally:
            self._syncing = False
        key = self.plot.draw(state, th)
        self.image.value = self.blitter.render(key)
        self.readout.value = self.readout_html(state, th)
        return th

    def _sync_controls(self):
        """Show only the controls that matter for the current state (e.g. tau only for causal)."""


# ----------------------------------------------------------------------------------------------- spectrum


@dataclass(frozen=True)
class SpectrumState:
    """Everything the spectrum explorer shows. Defaults: the setting of the model chapter
    (d/V = 0.5, d/N = 0.25, ||mu||^2 = 1, T = 16 Markov signs with r = 0.6, mean pooling, centered S)."""

    delta: float = 0.5
    gamma: float = 0.25
    mu_norm2: float = 1.0
    weighting: str = "mean"
    tau: float = 0.0
    family: str = "markov"
    T: int = 16
    r: float = 0.6
    L: int = 4
    centered: bool = True

    def __post_init__(self):
        object.__setattr__(self, "delta", _v.positive("delta", self.delta))
        object.__setattr__(self, "gamma", _v.positive("gamma", self.gamma))
        object.__setattr__(self, "mu_norm2", _v.nonnegative("mu_norm2", self.mu_norm2))
        _choice("weighting", self.weighting, WEIGHTINGS)
        _choice("family", self.family, FAMILIES)
        object.__setattr__(self, "tau", float(_v.finite_vector("tau", [self.tau])[0]))
        object.__setattr__(self, "T", _v.positive_int("T", self.T))
        object.__setattr__(self, "centered", bool(self.centered))

    def process(self) -> positional.SignProcess:
        return make_process(self.family, self.T, self.r, self.L)


def spectrum_theory(state: SpectrumState | None = None, *, points: int = 600, **overrides) -> dict:
    """What the spectrum explorer draws for ``state``: the bulk density, its edges and the predicted outliers.

    Returns a dict with ``alpha``, ``kappa``, ``theta``, ``weight_sum``, ``edges`` (lower, upper), ``atom``,
    ``x`` and ``density`` (the continuous part of kappa (MP_delta ⊠ MP_gamma), rescaled to mass 1 as the
    histogram of the non-zero eigenvalues is), ``thresholds`` (theta_population, theta_sample), ``signal``
    (the :class:`attnlib.theory.Spike` of the signal, overlaps against u), ``signal_h`` (overlaps against h)
    and ``mean`` (the vocabulary-mean spike of the uncentered S, or None when centered).
    """
    state = replace(state or SpectrumState(), **overrides)
    process = state.process()
    w = weights_for(state.weighting, process, state.tau)
    alpha, kappa = _w.alpha(w, process.R), _w.kappa(w)
    lo, hi = theory.bulk_edges(state.delta, state.gamma, kappa)
    atom = theory.zero_atom(state.delta, state.gamma)
    x = np.linspace(lo, hi, points)
    density = theory.bulk_density(x, state.delta, state.gamma, kappa) / (1.0 - atom)
    signal = theory.signal(state.delta, state.gamma, alpha, kappa, state.mu_norm2)
    theta = float(theory.spike_strength(alpha, kappa, state.mu_norm2, state.delta))
    signal_h = theory.spike(theta, state.delta, state.gamma, kappa, direction="h")
    mean = None if state.centered else theory.mean_spike(state.delta, state.gamma, float(w.sum()), kappa)
    return {
        "weights": w,
        "alpha": alpha,
        "kappa": kappa,
        "theta": theta,
        "weight_sum": float(w.sum()),
        "edges": (lo, hi),
        "atom": atom,
        "x": x,
        "density": density,
        "thresholds": theory.thresholds(state.delta, state.gamma),
        "signal": signal,
        "signal_h": signal_h,
        "mean": mean,
    }


def simulation_setting(state: SpectrumState, d: int = 400) -> Setting:
    """The finite setting simulated for ``state``: dimension d, V = d/delta (even), N = d/gamma (rounded)."""
    d = _v.positive_int("d", d, minimum=2)
    V = max(2, 2 * int(round(d / state.delta / 2)))
    N = max(2, int(round(d / state.gamma)))
    return Setting(d=d, V=V, N=N, mu_norm2=state.mu_norm2, process=state.process(),
                   weights=weights_for(state.weighting, state.process(), state.tau))


def spectrum_simulation(state: SpectrumState | None = None, *, d: int = 400, seed: int = 0):
    """One draw of the model at dimension ``d`` for ``state`` (full spectrum of S), with ``default_rng(seed)``.

    Returns the :class:`attnlib.simulation.Draw` (its ``setting`` has the actual V and N used).
    """
    state = state or SpectrumState()
    seed = _v.positive_int("seed", seed, minimum=0)
    setting = simulation_setting(state, d)
    return simulate(setting, np.random.default_rng(seed), centered=state.centered, full_spectrum=True, k=2)


class _SpectrumPlot:
    """Bulk density, edges, predicted outliers and (optionally) a simulated histogram, on one axes."""

    BINS = 60

    def __init__(self, animated: bool = False):
        self.fig, (self.ax,) = _new_figure((8.6, 3.4), 1, animated)
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
        self.limits = _Limits()

    def dynamic_artists(self):
        artists = [self.density, *self.edges, self.outlier, self.mean_outlier, self.top]
        if self.hist is not None:
            artists += list(self.hist)
        return artists

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
        self.outlier.set_visible(bool(np.isfinite(sample)))
        if np.isfinite(sample):
            self.outlier.set_xdata([sample, sample])
        self.mean_outlier.set_visible(bool(np.isfinite(mean_value)))
        if np.isfinite(mean_value):
            self.mean_outlier.set_xdata([mean_value, mean_value])
        if self.hist is not None:
            for patch in self.hist:
                patch.remove()
            self.hist = None
        self.top.set_data([], [])
        if draw is not None:
            ev = np.asarray(draw.eigenvalues, dtype=float)
            n_zero = int(round(th["atom"] * ev.size))
            nonzero = np.sort(ev)[n_zero:]
            right = max(right, float(ev.max()))
            xmax = self.limits("x", 1.08 * right)
            heights, edges = np.histogram(nonzero, bins=self.BINS, range=(0.0, xmax), density=True)
            self.hist = self.ax.bar(edges[:-1], heights, width=np.diff(edges), align="edge", color=_SIM_COLOR,
                                    edgecolor="white", linewidth=0.3, zorder=0,
                                    label="_simulated eigenvalues")
            needed_y = max(needed_y, 1.05 * float(heights.max()))
        xmax = self.limits("x", 1.08 * right)
        ymax = self.limits("y", needed_y)
        if draw is not None:
            self.top.set_data([ev.max()], [0.04 * ymax])
        self.ax.set_xlim(0.0, xmax)
        self.ax.set_ylim(0.0, ymax)
        legend_key = (state.centered, draw is not None)
        if legend_key != self._legend_key:
            from matplotlib.patches import Patch

            handles = [self.density, self.edges[0], self.outlier]
            if not state.centered:
                handles.append(self.mean_outlier)
            if draw is not None:
                handles += [Patch(color=_SIM_COLOR, label="simulated eigenvalues"), self.top]
            if self.fig.legends:
                self.fig.legends[0].remove()
            # outside the axes: nothing that moves can cover it, and it is part of the cached background
            self.fig.legend(handles=handles, fontsize=8, loc="outside right upper")
            self._legend_key = legend_key
        return (xmax, ymax, legend_key)


def spectrum_figure(state: SpectrumState | None = None, *, simulate_d: int | None = None, seed: int = 0,
                    **overrides):
    """The spectrum explorer's figure for ``state`` (default: its default state) as a pyplot figure.

    ``simulate_d``: also draw the histogram of one simulated spectrum at that dimension (``default_rng(seed)``),
    as the explorer's button does. Returns ``(fig, theory_dict, draw_or_None)``.
    """
    state = replace(state or SpectrumState(), **overrides)
    th = spectrum_theory(state)
    draw = spectrum_simulation(state, d=simulate_d, seed=seed) if simulate_d else None
    plot = _SpectrumPlot(animated=False)
    plot.draw(state, th, draw)
    plot.ax.set_title(_spectrum_title(state, th, draw), fontsize=9)
    return plot.fig, th, draw


def _spectrum_title(state, th, draw) -> str:
    text = (f"δ = {_fmt(state.delta)}, γ = {_fmt(state.gamma)}, ‖μ‖² = {_fmt(state.mu_norm2)}, "
            f"{state.family} R (T = {state.T}), {state.weighting} pooling: θ = {_fmt(th['theta'])}")
    if draw is not None:
        s = draw.setting
        text += f"\nsimulated: d = {s.d}, V = {s.V}, N = {s.N}"
    return text


def _spectrum_readout(state: SpectrumState, th: dict, draw=None) -> str:
    sig_u, sig_h = th["signal"], th["signal_h"]
    pop, smp = th["thresholds"]
    rows = [
        ["α = wᵀRw, κ = ‖w‖²", f"{_fmt(th['alpha'])}, {_fmt(th['kappa'])}"],
        ["spike strength θ = α(‖μ‖²+δ)/κ", _fmt(th["theta"])],
        ["thresholds θ_pop = δ+√δ, θ_sample", f"{_fmt(pop)}, {_fmt(smp)}"],
        ["bulk edges", f"{_fmt(th['edges'][0])}, {_fmt(th['edges'][1])}"],
        ["predicted outlier (sample)", _fmt(sig_u.sample_eigenvalue) if sig_u.sample_detectable
         else "none: θ below the sample threshold"],
        ["cos²(top eigenvector, h) / (…, u)", f"{_fmt(sig_h.sample_overlap)} / {_fmt(sig_u.sample_overlap)}"],
    ]
    if th["mean"] is not None:
        rows.append(["mean spike θ_g, its outlier", f"{_fmt(th['mean'].theta)}, {_fmt(th['mean'].sample_eigenvalue)}"])
    if draw is not None:
        s = draw.setting
        rows.append([f"simulated (d={s.d}, V={s.V}, N={s.N})",
                     f"top eigenvalues {_fmt(draw.eigenvalues[0])}, {_fmt(draw.eigenvalues[1])}; "
                     f"cos² with h {_fmt(draw.overlap_h)}, u {_fmt(draw.overlap_u)}, g {_fmt(draw.overlap_g)}"])
    return _table(rows)


@lru_cache(maxsize=None)
def _make_spectrum_class():
    import ipywidgets as widgets

    class SpectrumExplorer(_ExplorerBase, widgets.VBox):
        """Spectrum explorer (an ``ipywidgets.VBox``); see :func:`spectrum_explorer`.

        ``update(**changes)`` changes the state and redraws the theory; ``simulate()`` draws a fresh
        histogram (seed ``seed``, then ``seed + 1``, ...); ``state``, ``theory``, ``draw`` hold what is shown.
        """

        state_class = SpectrumState
        figure_class = _SpectrumPlot
        theory_function = staticmethod(spectrum_theory)

        def __init__(self, state: SpectrumState, *, simulate_d: int = 400, seed: int = 0):
            self.simulate_d = _v.positive_int("simulate_d", simulate_d, minimum=2)
            self.seed = _v.positive_int("seed", seed, minimum=0)
            self.draw = None
            self._presses = 0
            slider = _slider_options(widgets, "250px")
            controls = {
                "delta": widgets.FloatSlider(value=state.delta, min=0.05, max=2.0, step=0.05,
                                             description="δ = d/V", **slider()),
                "gamma": widgets.FloatSlider(value=state.gamma, min=0.05, max=2.0, step=0.05,
                                             description="γ = d/N", **slider()),
                "mu_norm2": widgets.FloatSlider(value=state.mu_norm2, min=0.0, max=4.0, step=0.05,
                                                description="‖μ‖²", **slider()),
                "weighting": widgets.ToggleButtons(options=list(WEIGHTINGS), value=state.weighting,
                                                   description="weights", style={"button_width": "70px"}),
                "tau": widgets.FloatSlider(value=state.tau, min=0.0, max=8.0, step=0.1, description="τ", **slider()),
                "family": widgets.Dropdown(options=[(f"{f}: {_FAMILY_HELP[f]}", f) for f in FAMILIES],
                                           value=state.family, description="R family",
                                           layout=widgets.Layout(width="330px")),
                "T": widgets.IntSlider(value=state.T, min=2, max=64, description="T", **slider()),
                "r": widgets.FloatSlider(value=state.r, min=0.0, max=0.95, step=0.05, description="r", **slider()),
                "L": widgets.IntSlider(value=state.L, min=1, max=state.T, description="L", **slider()),
                "centered": widgets.Checkbox(value=state.centered, description="center the pooled vectors",
                                             indent=False),
            }
            self.button = widgets.Button(description="simulate", icon="refresh", button_style="info",
                                         tooltip=f"draw a fresh spectrum at d = {self.simulate_d}")
            self.button.on_click(lambda _: self.simulate())
            widgets.VBox.__init__(self)
            self.children = self._setup(state, controls)

        def _control_rows(self):
            c = self.controls
            return [[c["delta"], c["gamma"], c["mu_norm2"]],
                    [c["weighting"], c["tau"]],
                    [c["family"], c["T"], c["r"], c["L"]],
                    [c["centered"], self.button]]

        def _sync_controls(self):
            c, s = self.controls, self.state
            c["tau"].layout.display = "" if s.weighting == "causal" else "none"
            c["r"].layout.display = "" if s.family == "markov" else "none"
            c["L"].layout.display = "" if s.family in ("prefix", "suffix", "blocks") else "none"
            _set_range(c["L"], s.L, s.T)

        def update(self, **changes):
            self.draw = None  # a histogram of another state would mislead: drop it
            return _ExplorerBase.update(self, **changes)

        def readout_html(self, state, th):
            return _spectrum_readout(state, th, self.draw)

        def simulate(self):
            """Draw and show a fresh simulated spectrum for the current state (button)."""
            self.button.disabled = True
            try:
                self.draw = spectrum_simulation(self.state, d=self.simulate_d, seed=self.seed + self._presses)
                self._presses += 1
                key = self.plot.draw(self.state, self.theory, self.draw)
                self.image.value = self.blitter.render(("hist", self._presses, key))
                self.readout.value = self.readout_html(self.state, self.theory)
            finally:
                self.button.disabled = False
            return self.draw

    return SpectrumExplorer


def spectrum_explorer(state: SpectrumState | None = None, *, simulate_d: int = 400, seed: int = 0, **overrides):
    """The spectrum explorer (an ``ipywidgets.VBox``): sliders for delta, gamma, ||mu||^2, the weighting,
    tau and the R family; the bulk density, edges and predicted outliers; a button for a simulated histogram
    at dimension ``simulate_d`` (seeds ``seed``, ``seed+1``, ... on successive presses)."""
    state = replace(state or SpectrumState(), **overrides)
    return _make_spectrum_class()(state, simulate_d=simulate_d, seed=seed)


# ----------------------------------------------------------------------------------------------- phase


@dataclass(frozen=True)
class PhaseState:
    """A point (gamma, theta) of the phase diagram at vocabulary ratio delta (theta in units of kappa).
    Defaults: the model chapter's delta = 0.5, gamma = 0.25 and theta = 5.3 (mean pooling, ||mu||^2 = 1)."""

    delta: float = 0.5
    gamma: float = 0.25
    theta: float = 5.3

    def __post_init__(self):
        object.__setattr__(self, "delta", _v.positive("delta", self.delta))
        object.__setattr__(self, "gamma", _v.positive("gamma", self.gamma))
        object.__setattr__(self, "theta", _v.nonnegative("theta", self.theta))


GAMMA_MAX = 3.0
THETA_MAX = 8.0
REGIONS = {
    "none": "no outlier: θ below the population threshold δ+√δ",
    "population": "the population covariance has an outlier, but N samples are too few to see it",
    "sample": "sample outlier: the top eigenvector of S carries the signal",
}


@lru_cache(maxsize=64)
def _sample_threshold_curve(delta: float, points: int) -> tuple[np.ndarray, float, np.ndarray]:
    """(gamma grid, theta_population, theta_sample along the grid) at ``delta`` (cached: it only moves with delta)."""
    gamma_grid = np.linspace(GAMMA_MAX / points, GAMMA_MAX, points)
    theta_pop = theory.thresholds(delta, gamma_grid[0])[0]
    theta_smp = np.array([theory.thresholds(delta, g)[1] for g in gamma_grid])
    gamma_grid.flags.writeable = False
    theta_smp.flags.writeable = False
    return gamma_grid, theta_pop, theta_smp


def phase_theory(state: PhaseState | None = None, *, points: int = 120, **overrides) -> dict:
    """The phase diagram at ``state.delta`` and the predictions at the point (gamma, theta).

    Returns ``gamma_grid``, ``theta_population`` (a number: delta + sqrt(delta)), ``theta_sample`` (the sample
    threshold along ``gamma_grid``), ``region`` (one of ``REGIONS``), ``spike`` (:class:`attnlib.theory.Spike`
    at the point, overlaps against h, kappa = 1), and ``theta_grid`` with the population and sample overlap
    curves at the point's gamma.
    """
    state = replace(state or PhaseState(), **overrides)
    gamma_grid, theta_pop, theta_smp = _sample_threshold_curve(state.delta, _v.positive_int("points", points))
    pop_here, smp_here = theory.thresholds(state.delta, state.gamma)
    region = "sample" if state.theta > smp_here else "population" if state.theta > pop_here else "none"
    theta_grid = np.linspace(0.0, THETA_MAX, 400)
    curves = theory.spike(theta_grid, state.delta, state.gamma, 1.0, direction="h")
    return {
        "gamma_grid": gamma_grid,
        "theta_population": theta_pop,
        "theta_sample": theta_smp,
        "thresholds_here": (pop_here, smp_here),
        "region": region,
        "spike": theory.spike(state.theta, state.delta, state.gamma, 1.0, direction="h"),
        "theta_grid": theta_grid,
        "population_overlap": curves.population_overlap,
        "sample_overlap": curves.sample_overlap,
    }


class _PhasePlot:
    """Left: the (gamma, theta) plane with both transition curves and the point. Right: overlaps vs theta."""

    def __init__(self, animated: bool = False):
        self.fig, (self.ax, self.ax2) = _new_figure((9.0, 4.0), 2, animated, width_ratios=(1.1, 1.0))
        ax, ax2 = self.ax, self.ax2
        from matplotlib.patches import Polygon

        self.regions = [ax.add_patch(Polygon(np.zeros((3, 2)), closed=True, color=c, lw=0, zorder=0))
                        for c in ("#eeeeee", "#fde0dd", "#e5f5e0")]
        (self.pop_line,) = ax.plot([], [], color=COLORS["mean"], lw=1.8, label="population threshold δ+√δ")
        (self.smp_line,) = ax.plot([], [], color=COLORS["causal"], lw=1.8, label="sample threshold δ+x*(δ,γ)")
        (self.point,) = ax.plot([], [], "o", ms=9, mfc="gold", mec="black", label="the point")
        ax.set_xlim(0.0, GAMMA_MAX)
        ax.set_ylim(0.0, THETA_MAX)
        ax.set_xlabel("γ = d/N")
        ax.set_ylabel("θ (units of κ)")
        (self.pop_curve,) = ax2.plot([], [], color=COLORS["mean"], lw=1.5, label="population cos²(v₁, h)")
        (self.smp_curve,) = ax2.plot([], [], color=COLORS["causal"], lw=1.5, label="sample cos²(v̂₁, h)")
        self.theta_mark = ax2.axvline(0, color="black", lw=1, ls="--", label="θ of the point")
        ax2.set_xlim(0.0, THETA_MAX)
        ax2.set_ylim(0.0, 1.02)
        ax2.set_xlabel("θ (units of κ)")
        ax2.set_ylabel("squared overlap")
        ax2.set_title("overlaps along θ, at the point's γ", fontsize=9)
        from matplotlib.patches import Patch

        handles = [self.pop_line, self.smp_line, self.point, self.pop_curve, self.smp_curve, self.theta_mark,
                   Patch(color="#eeeeee", label="no outlier"), Patch(color="#fde0dd", label="population outlier only"),
                   Patch(color="#e5f5e0", label="sample outlier")]
        self.fig.legend(handles=handles, fontsize=7.5, loc="outside lower center", ncols=5)

    def dynamic_artists(self):
        return [*self.regions, self.pop_line, self.smp_line, self.point, self.pop_curve, self.smp_curve,
                self.theta_mark]

    def draw(self, state: PhaseState, th: dict):
        g = np.concatenate([[0.0], th["gamma_grid"]])
        pop = np.full_like(g, th["theta_population"])
        smp = np.concatenate([[th["theta_population"]], th["theta_sample"]])
        top = np.full_like(g, THETA_MAX)
        for patch, (lower, upper) in zip(self.regions, ((np.zeros_like(g), pop), (pop, smp), (smp, top))):
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
    state = replace(state or PhaseState(), **overrides)
    th = phase_theory(state)
    plot = _PhasePlot(animated=False)
    plot.draw(state, th)
    plot.ax.set_title(f"grey: no outlier · pink: population only · green: sample outlier (δ = {_fmt(state.delta)})",
                      fontsize=9)
    return plot.fig, th


def _phase_readout(state: PhaseState, th: dict) -> str:
    sp = th["spike"]
    pop, smp = th["thresholds_here"]
    return _table([
        ["region", REGIONS[th["region"]]],
        ["thresholds at this γ: θ_pop, θ_sample", f"{_fmt(pop)}, {_fmt(smp)}"],
        ["population outlier ℓ/κ, cos²(v₁, h)", f"{_fmt(sp.population_eigenvalue)}, {_fmt(sp.population_overlap)}"],
        ["sample outlier λ/κ, cos²(v̂₁, h)", f"{_fmt(sp.sample_eigenvalue)}, {_fmt(sp.sample_overlap)}"],
        ["bulk right edge /κ", _fmt(theory.bulk_edges(state.delta, state.gamma)[1])],
    ])


@lru_cache(maxsize=None)
def _make_phase_class():
    import ipywidgets as widgets

    class PhaseExplorer(_ExplorerBase, widgets.VBox):
        """Phase-diagram explorer (an ``ipywidgets.VBox``); see :func:`phase_explorer`."""

        state_class = PhaseState
        figure_class = _PhasePlot
        theory_function = staticmethod(phase_theory)

        def __init__(self, state: PhaseState):
            slider = _slider_options(widgets, "300px")
            controls = {
                "delta": widgets.FloatSlider(value=state.delta, min=0.05, max=2.0, step=0.05,
                                             description="δ = d/V", **slider()),
                "gamma": widgets.FloatSlider(value=state.gamma, min=0.02, max=GAMMA_MAX, step=0.02,
                                             description="γ = d/N (point)", **slider()),
                "theta": widgets.FloatSlider(value=state.theta, min=0.0, max=THETA_MAX, step=0.05,
                                             description="θ (point)", **slider()),
            }
            widgets.VBox.__init__(self)
            self.children = self._setup(state, controls)

        def readout_html(self, state, th):
            return _phase_readout(state, th)

    return PhaseExplorer


def phase_explorer(state: PhaseState | None = None, **overrides):
    """The phase-diagram explorer (an ``ipywidgets.VBox``): sliders for delta and the point (gamma, theta);
    shows the two transition curves and reports the point's region, outliers and overlaps."""
    state = replace(state or PhaseState(), **overrides)
    return _make_phase_class()(state)


# ----------------------------------------------------------------------------------------------- weights


@dataclass(frozen=True)
class WeightsState:
    """R family and its parameter, T, and the causal-attention tau. Default: T = 16 Markov signs, r = 0.6."""

    family: str = "markov"
    T: int = 16
    r: float = 0.6
    L: int = 4
    tau: float = 0.0

    def __post_init__(self):
        _choice("family", self.family, FAMILIES)
        object.__setattr__(self, "T", _v.positive_int("T", self.T))
        object.__setattr__(self, "tau", float(_v.finite_vector("tau", [self.tau])[0]))

    def process(self) -> positional.SignProcess:
        return make_process(self.family, self.T, self.r, self.L)


@lru_cache(maxsize=128)
def _causal_snr_curve(family: str, T: int, r: float, L: int) -> np.ndarray:
    """alpha/kappa of causal pooling along _TAU_GRID for one R (cached: dragging tau does not change it)."""
    R = make_process(family, T, r, L).R
    curve = np.array([_w.snr(_w.causal(T, tau), R) for tau in _TAU_GRID])
    curve.flags.writeable = False
    return curve


def weights_theory(state: WeightsState | None = None, **overrides) -> dict:
    """Weights (summing to 1) and alpha, kappa, alpha/kappa of mean / causal(tau) / optimal pooling for R.

    Returns ``R``, ``positions`` (1..T), ``weights`` and ``scalars`` (dicts keyed by weighting; scalars are
    (alpha, kappa, alpha/kappa)), ``lambda_max`` (top eigenvalue of R, the optimum of alpha/kappa),
    ``tau_grid`` and ``causal_snr`` (causal alpha/kappa along it).
    """
    state = replace(state or WeightsState(), **overrides)
    process = state.process()
    R = process.R
    ws = {name: weights_for(name, process, state.tau) for name in WEIGHTINGS}
    scalars = {name: (_w.alpha(w, R), _w.kappa(w), _w.snr(w, R)) for name, w in ws.items()}
    causal_snr = _causal_snr_curve(state.family, state.T, state.r, state.L)
    return {
        "R": R,
        "positions": np.arange(1, state.T + 1),
        "weights": ws,
        "scalars": scalars,
        "lambda_max": float(np.linalg.eigvalsh(R)[-1]),
        "tau_grid": _TAU_GRID,
        "causal_snr": causal_snr,
    }


class _WeightsPlot:
    """Weight profiles | R | causal alpha/kappa across tau."""

    def __init__(self, animated: bool = False):
        self.fig, (self.ax, self.ax_r, self.ax_tau) = _new_figure((10.0, 3.6), 3, animated,
                                                                 width_ratios=(1.3, 0.8, 1.1))
        ax, ax_r, ax_tau = self.ax, self.ax_r, self.ax_tau
        self.lines = {name: ax.plot([], [], "o-", ms=3, lw=1.4, color=COLORS[name], label=name)[0]
                      for name in WEIGHTINGS}
        ax.set_xlabel("position t")
        ax.set_ylabel("weight $w_t$ (sum 1)")
        self.image = ax_r.imshow(np.eye(2), vmin=-1, vmax=1, cmap="RdBu_r", interpolation="nearest")
        from matplotlib.ticker import MaxNLocator

        for axis in (ax.xaxis, ax_r.xaxis, ax_r.yaxis):
            axis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax_r.set_title("R", fontsize=9)
        ax_r.set_xlabel("s")
        ax_r.set_ylabel("t")
        ax_r.grid(False)
        (self.causal_curve,) = ax_tau.plot([], [], color=COLORS["causal"], lw=1.5, label="causal, across τ")
        self.mean_level = ax_tau.axhline(0, color=COLORS["mean"], lw=1.2, ls="--", label="mean")
        self.opt_level = ax_tau.axhline(0, color=COLORS["optimal"], lw=1.2, ls="--", label="optimal = λmax(R)")
        (self.tau_point,) = ax_tau.plot([], [], "o", color=COLORS["causal"], ms=7)
        ax_tau.set_xlim(_TAU_GRID[0], _TAU_GRID[-1])
        ax_tau.set_xlabel("τ (causal attention)")
        ax_tau.set_ylabel("α/κ")
        ax_tau.set_title("causal α/κ vs τ (dashed: mean, optimal)", fontsize=9)
        self.limits = _Limits()
        self.fig.legend(handles=list(self.lines.values()), fontsize=8, loc="outside lower center", ncols=3)

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
    state = replace(state or WeightsState(), **overrides)
    th = weights_theory(state)
    plot = _WeightsPlot(animated=False)
    plot.draw(state, th)
    plot.ax.set_title(f"{state.process().name}, causal τ = {_fmt(state.tau)}", fontsize=9)
    return plot.fig, th


def _weights_readout(state: WeightsState, th: dict) -> str:
    rows = [[name + (f" (τ = {_fmt(state.tau)})" if name == "causal" else ""), _fmt(a), _fmt(k), _fmt(s)]
            for name, (a, k, s) in th["scalars"].items()]
    return _table(rows, header=["weights", "α = wᵀRw", "κ = ‖w‖²", "α/κ"]) + (
        f"<div style='font-size:0.92em'>λmax(R) = {_fmt(th['lambda_max'])} (the largest α/κ any weights reach)</div>")


@lru_cache(maxsize=None)
def _make_weights_class():
    import ipywidgets as widgets

    class WeightsExplorer(_ExplorerBase, widgets.VBox):
        """Weights explorer (an ``ipywidgets.VBox``); see :func:`weights_explorer`."""

        state_class = WeightsState
        figure_class = _WeightsPlot
        theory_function = staticmethod(weights_theory)

        def __init__(self, state: WeightsState):
            slider = _slider_options(widgets, "250px")
            controls = {
                "family": widgets.Dropdown(options=[(f"{f}: {_FAMILY_HELP[f]}", f) for f in FAMILIES],
                                           value=state.family, description="R family",
                                           layout=widgets.Layout(width="330px")),
                "T": widgets.IntSlider(value=state.T, min=2, max=64, description="T", **slider()),
                "r": widgets.FloatSlider(value=state.r, min=0.0, max=0.95, step=0.05, description="r", **slider()),
                "L": widgets.IntSlider(value=state.L, min=1, max=state.T, description="L", **slider()),
                "tau": widgets.FloatSlider(value=state.tau, min=0.0, max=8.0, step=0.1, description="τ (causal)",
                                           **slider()),
            }
            widgets.VBox.__init__(self)
            self.children = self._setup(state, controls)

        def _control_rows(self):
            c = self.controls
            return [[c["family"], c["T"], c["r"], c["L"]], [c["tau"]]]

        def _sync_controls(self):
            c, s = self.controls, self.state
            c["r"].layout.display = "" if s.family == "markov" else "none"
            c["L"].layout.display = "" if s.family in ("prefix", "suffix", "blocks") else "none"
            _set_range(c["L"], s.L, s.T)

        def readout_html(self, state, th):
            return _weights_readout(state, th)

    return WeightsExplorer


def weights_explorer(state: WeightsState | None = None, **overrides):
    """The weights explorer (an ``ipywidgets.VBox``): R family, its parameter, T and tau; weight profiles,
    R, and alpha, kappa, alpha/kappa of mean / causal / optimal pooling."""
    state = replace(state or WeightsState(), **overrides)
    return _make_weights_class()(state)


# ----------------------------------------------------------------------------------------------- latency


def measure_latency(explorer, changes) -> dict:
    """Time ``explorer.update(**c)`` for each ``c`` in ``changes`` (theory + redraw + PNG, as a slider move).

    Returns ``{"n", "median_ms", "max_ms", "cpu_median_ms", "full_draws"}``: wall-clock and process CPU time
    (the latter is what the update costs without competition for the cores), and how many updates needed a
    full redraw of the static background. For reports only: timings depend on the machine and its load.
    """
    changes = list(changes)
    if not changes:
        raise ValueError("changes must be a non-empty sequence of dicts of state changes")
    wall, cpu = [], []
    draws_before = explorer.blitter.full_draws
    for change in changes:
        t0, c0 = time.perf_counter(), time.process_time()
        explorer.update(**change)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {
        "n": len(changes),
        "median_ms": 1000 * statistics.median(wall),
        "max_ms": 1000 * max(wall),
        "cpu_median_ms": 1000 * statistics.median(cpu),
        "full_draws": explorer.blitter.full_draws - draws_before,
    }

