"""How the book shows a matplotlib figure: drawn for the width it is shown at, its legends off the data.

:func:`install` (called by :func:`attnlib.views.plotting.use_book_style`) makes every figure a notebook
displays carry, besides its text repr:

* ``image/png``, the *wide* rendering: the figure as the chapter drew it, at ``WIDE_DPI`` (the PDF edition
  prints it; at 1280 px the HTML book shows it at its natural size);
* ``text/html``, a ``<picture>`` of the wide rendering and a *narrow* one, which the browser shows below
  ``NARROW_MEDIA``: a copy of the figure ``NARROW_WIDTH`` inches wide at ``NARROW_DPI``, its panels stacked
  one per row (panels without axes, such as a schematic, two per row). A 358-px phone column then shows an
  inch of figure in about 100 px, as a 1280-px window shows the wide rendering, so that text keeps its size.
  Each rendering records the smallest font size of its text in points (``data-font-pt``) and its dpi
  (``data-dpi``): a text of ``pt`` points is ``pt * dpi / 72 * shown / natural`` pixels tall where the image
  is shown ``shown`` pixels wide out of ``natural`` (tests/browser/reading_checks.py measures it).

Before each rendering, :func:`~attnlib.views.legends.unblock_legends` moves every legend that covers data
(:func:`~attnlib.views.legends.covered`) to the first corner or side of its axes where it covers none, or
else below the axes.
"""

from __future__ import annotations

import base64
import html
import io
import math
import pickle
import re
import warnings
import weakref

import numpy as np

from attnlib.views.legends import unblock_legends

__all__ = ["WIDE_DPI", "NARROW_WIDTH", "NARROW_DPI", "NARROW_MEDIA", "NARROW_ASPECT", "smallest_font",
           "narrow_copy", "render", "figure_html", "figure_png", "install"]

#: Resolution of the wide rendering in dots per inch (a figure 6.6 in wide is 660 px wide).
WIDE_DPI = 100
#: Width of the narrow rendering in inches (a 358-px phone column shows an inch in about 100 px).
NARROW_WIDTH = 3.6
#: Resolution of the narrow rendering (dots per inch), sharp on screens of 1.5 device pixels per pixel.
NARROW_DPI = 150
#: The media query under which the browser shows the narrow rendering.
NARROW_MEDIA = "(max-width: 720px)"
#: Height over width of a panel's plotting area in the narrow rendering (the wide panel's, clipped to this).
NARROW_ASPECT = (0.6, 0.85)

_WIDE_PNG: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # figure -> wide PNG, html -> png formatter


def smallest_font(fig) -> float | None:
    """The smallest font size, in points, of the text ``fig`` draws (visible, non-empty); None if none."""
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    sizes = []

    def walk(artist):
        if not artist.get_visible():
            return
        if isinstance(artist, Text) and artist.get_text().strip():
            sizes.append(float(artist.get_fontsize()))
        for child in artist.get_children():
            if not (isinstance(artist, Axes) and not artist.axison and isinstance(child, Axis)):
                walk(child)

    walk(fig)
    return min(sizes) if sizes else None


def _panels(fig) -> list[list]:
    """The figure's panels in reading order: the axes on one cell of a grid (an axes and its twins)."""
    groups: dict[tuple, list] = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec() if ax.get_visible() else None
        if spec is None:
            continue
        top = spec.get_topmost_subplotspec()
        key = (top.rowspan.start, top.colspan.start, top.rowspan.stop, top.colspan.stop, id(top.get_gridspec()))
        groups.setdefault(key, []).append(ax)
    return [groups[key] for key in sorted(groups)]


def narrow_copy(fig):
    """A copy of ``fig`` for a phone: ``NARROW_WIDTH`` inches wide, its panels stacked; None if it cannot
    be copied (a figure holding something that does not pickle). A warning of matplotlib's while the copy
    is laid out (a layout that collapsed, say) is raised as an error."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.gridspec import GridSpec

    try:
        narrow = pickle.loads(pickle.dumps(fig))
    except Exception:  # noqa: BLE001 - a figure that does not pickle keeps its wide rendering only
        return None
    plt.close(narrow)  # unpickling a pyplot figure registers it again: never show it twice
    FigureCanvasAgg(narrow)  # drawn off screen, as the original
    panels, wide_panels = _panels(narrow), _panels(fig)
    if not panels:
        narrow.set_size_inches(NARROW_WIDTH, NARROW_WIDTH * NARROW_ASPECT[0])
        return narrow
    renderer = fig.canvas.get_renderer()
    schematic = len(panels) > 1 and all(not ax.axison for group in panels for ax in group)
    ncols = 2 if schematic else 1
    rows = math.ceil(len(panels) / ncols)
    first = wide_panels[0][0]
    area = (NARROW_WIDTH - (0.0 if schematic else 0.7)) / ncols
    target = area * float(np.clip(first.bbox.height / max(first.bbox.width, 1.0), *NARROW_ASPECT))
    titled = any(ax.get_title() for group in panels for ax in group)
    height = rows * (target + 0.6 + (0.25 if titled else 0.0))  # + ticks and labels; _grow corrects it
    height += sum(legend.get_window_extent(renderer).height for legend in fig.legends) / fig.dpi
    narrow.set_size_inches(NARROW_WIDTH, height)
    if len(panels) > 1:
        grid = GridSpec(rows, ncols, figure=narrow)
        for i, group in enumerate(panels):
            for ax in group:
                if ax.get_subplotspec() is ax.get_subplotspec().get_topmost_subplotspec():
                    ax.set_subplotspec(grid[i // ncols, i % ncols])
                if ax.axison and ncols == 1:  # a stacked panel reads alone: its own tick labels
                    ax.tick_params(labelleft=ax.yaxis.get_label_position() == "left", labelbottom=True)
    constrained = _constrained(narrow)
    if constrained:
        _figure_legends_outside(narrow)
    layout = narrow.draw_without_rendering if constrained else lambda: _tight(narrow)
    _legends_within(narrow, area)
    _grow(narrow, panels, target, layout)
    _legends_within(narrow)
    tidied = _tidy(narrow)
    if unblock_legends(narrow, drawn=True) or tidied:
        _grow(narrow, panels, target, layout)
        if unblock_legends(narrow, drawn=True):
            layout()
    return narrow


def _tidy(fig) -> bool:
    """What a narrower panel breaks, mended: x tick labels that run into each other are slanted, and a text
    placed in data coordinates that runs past the right edge of its axes is moved left, inside it. True if
    anything changed."""
    renderer = fig.canvas.get_renderer()
    changed = False
    for ax in fig.axes:
        labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text().strip()]
        boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
        if any(a.x1 > b.x0 - 2 for a, b in zip(boxes, boxes[1:])):
            ax.tick_params(axis="x", labelrotation=30)
            for label in ax.get_xticklabels():
                label.set_horizontalalignment("right")
                label.set_rotation_mode("anchor")
            changed = True
        for text in ax.texts:
            over = text.get_window_extent(renderer).x1 - ax.bbox.x1
            if over > 0 and text.get_transform() is ax.transData:
                x, y = ax.transData.transform(text.get_position())
                text.set_x(ax.transData.inverted().transform((x - over - 2, y))[0])
                changed = True
    return changed


def _constrained(fig) -> bool:
    """Lay ``fig`` out with matplotlib's constrained layout (True), unless it has colorbars made for another
    layout (False)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        return True
    if any(ax.get_label() == "<colorbar>" for ax in fig.axes):  # made for the figure's own layout
        return False
    fig.set_layout_engine("constrained")
    return True


def _like(old, parent, **where):
    """A legend drawn again on ``parent`` (an axes or the figure) with ``old``'s entries, font size, frame
    and title, at ``where`` (matplotlib cannot change the columns of a legend once drawn). The entries keep
    their original artists where the legend used the axes' own labels (error bars stay error bars)."""
    from matplotlib.axes import Axes

    texts = [t.get_text() for t in old.get_texts()]
    handles = old.legend_handles
    if isinstance(parent, Axes):
        own, labels = parent.get_legend_handles_labels()
        handles = own if labels == texts else handles
    title = old.get_title().get_text() or None
    options = {"fontsize": old.get_texts()[0].get_fontsize() if texts else None, "frameon": old.get_frame_on(),
               "title": title}
    old.remove()
    return parent.legend(handles, texts, **options, **where)


def _figure_legends_outside(fig) -> None:
    """Redraw the figure's own legends outside its panels (above or below, where they were), in as many
    columns as fit its width."""
    renderer = fig.canvas.get_renderer()
    for old in list(fig.legends):
        box = old.get_window_extent(renderer)
        where = "upper" if box.y0 + box.y1 > fig.bbox.height else "lower"
        for ncols in range(max(len(old.get_texts()), 1), 0, -1):
            new = _like(old, fig, loc=f"outside {where} center", ncols=ncols)
            if ncols == 1 or new.get_window_extent(renderer).width <= fig.bbox.width:
                break
            old = new


def _legends_within(fig, room: float | None = None) -> None:
    """A legend wider than its axes (or, a figure's, than the figure) drawn again in one column, where it
    covers the least data; before the figure is laid out, wider than ``room`` inches."""
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend()
        width = room * fig.dpi if room is not None else ax.bbox.width
        if legend is not None and legend.get_window_extent(renderer).width > width:
            _like(legend, ax, loc="best", ncols=1)
    for legend in list(fig.legends):
        if legend.get_window_extent(renderer).width > fig.bbox.width:
            box = legend.get_window_extent(renderer)
            _like(legend, fig, loc=f"outside {'upper' if box.y0 + box.y1 > fig.bbox.height else 'lower'} center",
                  ncols=1)


def _grow(fig, panels, target: float, layout) -> None:
    """Lay ``fig`` out; if a panel's plotting area came out shorter than ``target`` inches, make the figure
    taller by the difference in each row and lay it out again."""
    layout()
    shortest = min(ax.bbox.height for group in panels for ax in group) / fig.dpi
    if shortest < 0.9 * target:
        rows = len({round(group[0].bbox.y0) for group in panels})
        width, height = fig.get_size_inches()
        fig.set_size_inches(width, height + rows * (target - max(shortest, 0.0)))
        layout()


def _tight(fig) -> None:
    """``tight_layout``, leaving room at the bottom for the figure's own legends (placed there)."""
    renderer = fig.canvas.get_renderer()
    bottom = 0.0
    for legend in fig.legends:
        legend.set_loc("lower center")
        legend.set_bbox_to_anchor((0.5, 0.0), transform=fig.transFigure)
        bottom += legend.get_window_extent(renderer).height / fig.bbox.height
    fig.set_layout_engine("none")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "not compatible with tight_layout": it then leaves the figure as is
        fig.tight_layout(rect=(0.0, min(bottom, 0.5), 1.0, 1.0))


def render(fig, dpi: float, tight: bool = True) -> tuple[bytes, float | None]:
    """The figure as PNG bytes at ``dpi``, cropped to what it draws, and its smallest font size in points.

    ``tight``: cropped by matplotlib (``bbox_inches="tight"``, which takes in what lies outside the figure,
    at the cost of a second drawing); else the figure is drawn once and its white margins are cut off (all
    it draws lies inside it, as under a layout engine). The image has a palette of 256 colours (median cut,
    no dithering): a third of the bytes of matplotlib's RGBA, the same to the eye for line art.
    """
    from PIL import Image, ImageChops

    drawn = io.BytesIO()
    fig.savefig(drawn, format="png", dpi=dpi, bbox_inches="tight" if tight else None,
                facecolor=fig.get_facecolor(), edgecolor=fig.get_edgecolor())
    drawn = Image.open(drawn).convert("RGBA")
    flat = Image.new("RGBA", drawn.size, "white")
    flat.alpha_composite(drawn)
    flat = flat.convert("RGB")
    if not tight:
        box = ImageChops.difference(flat, Image.new("RGB", flat.size, "white")).getbbox()
        if box is not None:
            pad = round(0.05 * dpi)
            flat = flat.crop((max(box[0] - pad, 0), max(box[1] - pad, 0), min(box[2] + pad, flat.width),
                              min(box[3] + pad, flat.height)))
    image = flat.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue(), smallest_font(fig)


def _plain(text: str) -> str:
    """A label's text without TeX markup, for the image's alternative text."""
    text = re.sub(r"\\(mathrm|mathbf|operatorname|text)\b", "", text)
    return re.sub(r"[${}\\]", "", text).strip()


def _alt(fig) -> str:
    """The image's alternative text: each panel's title, and what it plots against what."""
    parts = []
    for group in _panels(fig):
        ax = group[0]
        title, x, y = (_plain(s) for s in (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()))
        if x and y:
            parts.append(f"{title + ': ' if title else ''}{y} against {x}")
        elif title:
            parts.append(title)
    return re.sub(r"\s+", " ", "Figure" + (": " + "; ".join(parts) if parts else ""))


def _attributes(png: bytes, pt: float | None, dpi: float) -> str:
    size = "" if pt is None else f' data-font-pt="{pt:g}"'
    return f'{size} data-dpi="{dpi:g}"'


def _uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def figure_html(fig) -> str | None:
    """The ``text/html`` output of a figure: a ``<picture>`` of its wide and narrow renderings."""
    if not fig.axes:
        return None
    wide, wide_pt = _wide(fig)
    _WIDE_PNG[fig] = wide
    sources, failed = "", ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            narrow = narrow_copy(fig)
            if narrow is None:
                raise ValueError("the figure does not pickle")
            png, pt = render(narrow, NARROW_DPI, tight=False)
        sources = f'<source media="{NARROW_MEDIA}" srcset="{_uri(png)}"{_attributes(png, pt, NARROW_DPI)}>'
    except Exception as error:  # noqa: BLE001 - the wide rendering alone, and why (the browser test says it)
        failed = f' data-narrow-failed="{html.escape(f"{type(error).__name__}: {error}"[:200], quote=True)}"'
    alt = html.escape(_alt(fig), quote=True)
    return (f'<picture class="attnlib-figure"{failed}>{sources}'
            f'<img src="{_uri(wide)}" alt="{alt}"{_attributes(wide, wide_pt, WIDE_DPI)}></picture>')


def figure_png(fig) -> str | None:
    """The ``image/png`` output of a figure (base64, as IPython's): its wide rendering."""
    if not fig.axes:
        return None
    png = _WIDE_PNG.pop(fig, None)
    if png is None:
        png, _ = _wide(fig)
    return base64.b64encode(png).decode("ascii")


def _wide(fig) -> tuple[bytes, float | None]:
    """The wide rendering, drawn again only if a legend covered data in the first drawing (and moved)."""
    rendered = render(fig, WIDE_DPI)
    return render(fig, WIDE_DPI) if unblock_legends(fig, drawn=True) else rendered


def install() -> bool:
    """Show every matplotlib figure through :func:`figure_html` and :func:`figure_png` in this IPython
    kernel; False (and nothing done) outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    plt.close(plt.figure())  # loads the backend: the inline one registers its formatters now, not over these
    formatters = shell.display_formatter.formatters
    formatters["text/html"].for_type(Figure, figure_html)
    formatters["image/png"].for_type(Figure, figure_png)
    return True
