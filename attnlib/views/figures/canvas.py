"""Figure plumbing of the explorers' figures, without widgets: axis limits in coarse steps, formatted numbers
and HTML tables for the read-outs, a blitting renderer and the still figure of a state.

Responsiveness: a control change recomputes the theory (vectorised, about a millisecond) and re-renders
only what changed. The figure's static background (axes, ticks, legend) is cached and redrawn only when the
axis limits, which move in coarse "nice" steps (:class:`AxisLimits`), change; the moving artists are
blitted on top and sent to the browser as one PNG (:class:`Blitter`).
"""

from __future__ import annotations

import io

import numpy as np

from attnlib.views.tables import sig

__all__ = ["nice_ceil", "AxisLimits", "fmt", "html_table", "Blitter", "new_figure", "static_figure"]

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


def static_figure(plot_class, theory_function, state, title: str):
    """A still figure of an explorer: ``plot_class(animated=False)`` drawn for ``state`` with its theory and
    titled ``title``; returns ``(fig, theory_dict)``."""
    th = theory_function(state)
    plot = plot_class(animated=False)
    plot.draw(state, th)
    plot.ax.set_title(title, fontsize=9)
    return plot.fig, th
