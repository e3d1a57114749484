"""Widget plumbing shared by the explorers: controls built from the table and the explorer base class
(the figures it redraws are :mod:`attnlib.views.figures`). :func:`measure_latency` times updates.
"""

from __future__ import annotations

import statistics
import time
from functools import partial

import ipywidgets as widgets

from attnlib.views.controls import CONTROLS, LAYOUTS, WIDTHS, Control, resolve_state
from attnlib.views.figures.canvas import Blitter

__all__ = ["build_control", "set_range", "Explorer", "measure_latency"]

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
