"""Widget plumbing shared by the explorers: controls built from the table, a blitting figure, the base class.

Responsiveness: a control change recomputes the theory (vectorised, about a millisecond) and re-renders
only what changed. The figure's static background (axes, ticks, legend) is cached and redrawn only when the
axis limits, which move in coarse "nice" steps (:class:`AxisLimits`), change; the moving artists are
blitted on top and sent to the browser as one PNG (:class:`Blitter`). :func:`measure_latency` times updates.
"""

from __future__ import annotations

import io
import statistics
import time
from functools import partial

import ipywidgets as widgets
import numpy as np

from attnlib.views.tables import sig
from attnlib.views.controls import CONTROLS, LAYOUTS, WIDTHS, Control, resolve_state

__all__ = ["nice_ceil", "AxisLimits", "fmt", "html_table", "Blitter", "new_figure", "build_control",
           "set_range", "Explorer", "measure_latency"]

_MANTISSAS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceil(value: float) -> float:
    """Smallest number of the form {1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8} x 10^k that is >= ``value``.

    Non-positive or non-finite values give 1.
    """
    if not np.isfinite(value) or value <= 0:
        return 1.0
    exponent = np.floor(np.log10(value))
    for mantissa in _MANTISSAS:
        candidate = mantissa * 10.0**exponent
        if candidate >= value * (1 - 1e-12):
            return float(candidate)
    return float(10.0 ** (exponent + 1))


class AxisLimits:
    """Axis limits that move in "nice" steps and with hysteresis.

    A limit grows as soon as the data need more room but shrinks only when they use less than ``shrink`` of
    it, so that dragging a slider rarely changes the axes (and so rarely forces a full redraw of the
    figure's static background).
    """

    def __init__(self, shrink: float = 0.45):
        self.shrink = shrink
        self.current: dict[str, float] = {}

    def __call__(self, name: str, needed: float, *, coarse: bool = False) -> float:
        """The limit called ``name`` for ``needed``; ``coarse``: powers of two (for quantities over decades)."""
        now = self.current.get(name)
        if now is None or needed > now or needed < self.shrink * now:
            now = float(2.0 ** np.ceil(np.log2(needed))) if coarse and needed > 0 else nice_ceil(needed)
        self.current[name] = now
        return now


def fmt(x, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, or an en dash for None / non-finite values."""
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return "–"
    return f"{sig(x, digits):g}"


def html_table(rows, header=None) -> str:
    """A small HTML table (the explorers' read-outs)."""
    cell = 'style="padding:1px 10px 1px 0;text-align:left"'
    html = ['<table style="border-collapse:collapse;font-size:0.92em">']
    if header:
        html.append("<tr>" + "".join(f"<th {cell}>{h}</th>" for h in header) + "</tr>")
    for row in rows:
        html.append("<tr>" + "".join(f"<td {cell}>{c}</td>" for c in row) + "</tr>")
    html.append("</table>")
    return "".join(html)


class Blitter:
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
        """The figure as PNG bytes; a full draw only if ``key`` differs from the last one."""
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


def new_figure(figsize, ncols: int, animated: bool, width_ratios=None):
    """A pyplot figure for the book (``animated=False``), or a bare one for an explorer (never auto-shown).

    Returns ``(fig, axes)`` with ``axes`` a 1-D array of ``ncols`` axes.
    """
    if animated:
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, dpi=100, layout="constrained")
        axes = fig.subplots(1, ncols, width_ratios=width_ratios)
    else:
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, ncols, figsize=figsize, layout="constrained", width_ratios=width_ratios)
    return fig, np.atleast_1d(axes)


def build_control(control: Control, value, width: str = "250px", high=None):
    """The ipywidget of one row of the control table, showing ``value``.

    ``high``: the slider's upper end when ``control.high`` names another field. Every widget gets its own
    Layout object (a shared one would hide all of them when one is hidden).
    """
    if not isinstance(control, Control):
        raise ValueError(f"control must be an explorers Control, got {control!r}")
    common = dict(value=value, description=control.label, tooltip=control.help)
    if control.kind in ("float", "int"):
        top = high if isinstance(control.high, str) else control.high
        slider = widgets.FloatSlider if control.kind == "float" else widgets.IntSlider
        return slider(min=control.low, max=top, step=control.step, continuous_update=True,
                      style={"description_width": "initial"}, layout=widgets.Layout(width=width), **common)
    if control.kind == "dropdown":
        return widgets.Dropdown(options=[(f"{v}: {text}", v) for v, text in control.options],
                                layout=widgets.Layout(width="330px"), **common)
    if control.kind == "toggle":
        return widgets.ToggleButtons(options=list(control.values), tooltips=[t for _, t in control.options],
                                     style={"button_width": "70px"}, layout=widgets.Layout(), **common)
    return widgets.Checkbox(indent=False, layout=widgets.Layout(), **common)


def set_range(slider, value, maximum) -> None:
    """Set a slider's value and maximum in an order that never leaves the value out of range."""
    if maximum >= slider.max:
        slider.max = maximum
        slider.value = value
    else:
        slider.value = value
        slider.max = maximum


def static_figure(plot_class, theory_function, state, title: str):
    """A still figure of an explorer: ``plot_class(animated=False)`` drawn for ``state`` with its theory and
    titled ``title``; returns ``(fig, theory_dict)``."""
    th = theory_function(state)
    plot = plot_class(animated=False)
    plot.draw(state, th)
    plot.ax.set_title(title, fontsize=9)
    return plot.fig, th


class Explorer(widgets.VBox):
    """An explorer: the controls of its layout, a figure redrawn on every change, a read-out and a message.

    Subclasses set ``kind`` (a key of :data:`~attnlib.views.controls.LAYOUTS`), ``plot_class`` (built
    with ``animated=True``; it has ``fig``, ``dynamic_artists()`` and ``draw(state, theory) -> key``),
    ``theory_function`` and ``readout_function(state, theory) -> html`` (or override ``readout_html``).
    Which controls are shown and the range of a slider bounded by another field follow the control table.
    """

    kind: str
    plot_class: type

    def __init__(self, state):
        super().__init__()
        self.state = state
        self.theory = None
        width = WIDTHS[self.kind]
        self.controls = {}
        for row in LAYOUTS[self.kind]:
            for name in row:
                control = CONTROLS[name]
                high = getattr(state, control.high) if isinstance(control.high, str) else None
                widget = build_control(control, getattr(state, name), width, high)
                widget.observe(partial(self._on_change, name), names="value")
                self.controls[name] = widget
        self.plot = self.plot_class(animated=True)
        self.blitter = Blitter(self.plot.fig, self.plot.dynamic_artists)
        px_width, px_height = self.blitter.canvas.get_width_height()
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{px_width}px",
                                                                       height=f"{px_height}px"))
        self.readout = widgets.HTML()
        self.message = widgets.HTML()
        self._syncing = False
        self.update()
        boxes = [widgets.HBox(row) for row in self._rows()]
        self.children = boxes + [self.image, widgets.HBox([self.readout]), self.message]

    def _rows(self) -> list[list]:
        """The rows of widgets above the figure (the layout's controls; subclasses may add buttons)."""
        return [[self.controls[name] for name in row] for row in LAYOUTS[self.kind]]

    def readout_html(self, state, th) -> str:
        """The HTML read-out under the figure: ``readout_function(state, th)`` of the explorer."""
        return self.readout_function(state, th)

    def _on_change(self, name, change):
        if self._syncing:  # a control adjusted by _sync_controls, not by the reader
            return
        try:
            self.update(**{name: change["new"]})
            self.message.value = ""
        except ValueError as err:  # e.g. optimal weights that cannot sum to 1: say so, keep the last figure
            self.message.value = f'<span style="color:#b00">{err}</span>'

    def update(self, **changes):
        """Apply ``changes`` to the state, recompute the theory and redraw; returns the theory dict."""
        for name, control in CONTROLS.items():  # a value bounded by a field that shrinks follows it
            bound = control.high
            if isinstance(bound, str) and bound in changes and name not in changes and hasattr(self.state, name):
                changes[name] = min(getattr(self.state, name), int(changes[bound]))
        state = resolve_state(type(self.state), self.state, changes)
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
        """Controls show the state's values; a control is shown only while its ``shown_when`` holds."""
        for name, widget in self.controls.items():
            control, value = CONTROLS[name], getattr(self.state, name)
            if control.shown_when:
                field, allowed = control.shown_when
                shown = not hasattr(self.state, field) or getattr(self.state, field) in allowed
                widget.layout.display = "" if shown else "none"
            if isinstance(control.high, str):
                set_range(widget, value, getattr(self.state, control.high))
            elif widget.value != value:
                widget.value = value


def measure_latency(explorer, changes) -> dict:
    """Time ``explorer.update(**c)`` for each ``c`` in ``changes`` (theory + redraw + PNG, as a slider move).

    Parameters
    ----------
    explorer : Explorer
        Any of the three explorers.
    changes : iterable of dict
        State changes, applied one after the other.

    Returns
    -------
    dict
        ``{"n", "median_ms", "max_ms", "cpu_median_ms", "full_draws"}``: wall-clock and process CPU time (the
        latter is what the update costs without competition for the cores), and how many updates needed a
        full redraw of the static background. For reports only: timings depend on the machine and its load.
    """
    changes = list(changes)
    if not changes or not all(isinstance(c, dict) for c in changes):
        raise ValueError(f"changes must be a non-empty sequence of dicts of state changes, got {changes!r}")
    if not isinstance(explorer, Explorer):
        raise ValueError(f"explorer must be one of the attnlib explorers, got {explorer!r}")
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
