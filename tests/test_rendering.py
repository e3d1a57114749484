"""Figures drawn for the width they are shown at (attnlib.views.rendering) and legends off the data
(attnlib.views.legends): the narrow copy stacks the panels and keeps the text size, every legend that covers
data is moved, and the HTML output holds both renderings with the numbers the browser test reads."""

from __future__ import annotations

import base64
import io
import re

import matplotlib

matplotlib.use("agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from attnlib.views import legends, plotting, rendering  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    plotting.use_book_style()
    yield
    plt.close("all")


def grid_figure(layout=None):
    """Four panels in two rows, a legend in each (the bulk-law chapter draws its six regimes so)."""
    fig, axes = plt.subplots(2, 2, figsize=(6.6, 4.4), layout=layout)
    x = np.linspace(0, 1, 50)
    for k, ax in enumerate(axes.ravel()):
        ax.plot(x, x ** (k + 1), label="theory")
        ax.plot(x, x ** (k + 1) + 0.02, "o", ms=3, label="simulation")
        ax.legend(loc="upper left")
        ax.set_title(f"panel {k}")
    if layout is None:
        fig.tight_layout()
    return fig


def png_size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def test_a_legend_over_a_curve_is_covered_and_moved_off_it():
    fig, ax = plt.subplots(figsize=(6.6, 3.3))
    x = np.linspace(0, 1, 200)
    ax.plot(x, np.full_like(x, 0.93), label="near the top")  # runs under an upper legend
    ax.set_ylim(0, 1)
    legend = ax.legend(loc="upper right")
    fig.draw_without_rendering()
    assert legends.covered(legend, ax) == ["line 'near the top'"]
    moved = legends.unblock_legends(fig)
    assert moved and not legends.covered(ax.get_legend(), ax)


def test_a_line_crossing_the_legend_between_two_vertices_is_seen():
    """Two vertices, on either side of the legend: only the segment crosses it."""
    fig, ax = plt.subplots(figsize=(6.6, 3.3))
    ax.plot([0, 1], [0.0, 1.0], label="diagonal")
    ax.plot([0.5], [0.5], alpha=0)  # nothing else
    ax.set(xlim=(0, 1), ylim=(0, 1))
    legend = ax.legend(loc="center")
    fig.draw_without_rendering()
    assert legends.covered(legend, ax) == ["line 'diagonal'"]


def test_reference_lines_and_bands_are_not_data():
    fig, ax = plt.subplots(figsize=(6.6, 3.3))
    ax.plot([0, 1], [0, 0.1], label="low curve")
    ax.axvline(0.9, ls=":", label="edge")
    ax.axhspan(0.8, 0.95, alpha=0.3, label="band")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    legend = ax.legend(loc="upper right")
    fig.draw_without_rendering()
    assert legends.covered(legend, ax) == []


def test_a_legend_with_nowhere_inside_goes_below_the_axes():
    fig, ax = plt.subplots(figsize=(3.0, 2.0))
    rng = np.random.default_rng(0)
    ax.plot(rng.random(400), rng.random(400), ".", label="everywhere")
    ax.legend(loc="upper right")
    assert legends.unblock_legends(fig) == ["legend of 'an axes' -> below the axes"]
    fig.draw_without_rendering()
    assert ax.get_legend().get_window_extent().y1 < ax.bbox.y0


@pytest.mark.parametrize("layout", [None, "constrained"])
def test_the_narrow_copy_stacks_the_panels_and_leaves_the_figure_alone(layout):
    fig = grid_figure(layout)
    before, figures = [ax.get_position().bounds for ax in fig.axes], plt.get_fignums()
    narrow = rendering.narrow_copy(fig)
    assert [ax.get_position().bounds for ax in fig.axes] == before
    assert plt.get_fignums() == figures  # the copy is no pyplot figure: the notebook never shows it
    assert narrow.get_size_inches()[0] == pytest.approx(rendering.NARROW_WIDTH)
    narrow.draw_without_rendering()
    boxes = [ax.get_position() for ax in narrow.axes]
    assert len({round(b.x0, 2) for b in boxes}) == 1  # one column
    tops = [b.y1 for b in boxes]
    assert tops == sorted(tops, reverse=True)  # in reading order
    for ax in narrow.axes:  # each plotting area about its target height, and no legend over data
        assert ax.bbox.height / narrow.dpi > 0.9 * rendering.NARROW_ASPECT[0] * (rendering.NARROW_WIDTH - 0.7)
        assert not legends.covered(ax.get_legend(), ax)


def test_schematic_panels_go_two_by_two():
    fig, axes = plt.subplots(1, 4, figsize=(6.6, 2.0), gridspec_kw={"wspace": 0.3})
    plotting.model_schematic(axes, np.random.default_rng(7))
    narrow = rendering.narrow_copy(fig)
    narrow.draw_without_rendering()
    assert len({round(ax.get_position().x0, 2) for ax in narrow.axes}) == 2


def test_a_figure_legend_goes_outside_in_columns_that_fit():
    fig, axes = plt.subplots(1, 2, figsize=(6.6, 3.0))
    for ax in axes:
        for k in range(4):
            ax.plot([0, 1], [k, k + 1], label=f"a long label number {k}")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=4)
    fig.subplots_adjust(bottom=0.3)
    narrow = rendering.narrow_copy(fig)
    narrow.draw_without_rendering()
    (legend,) = narrow.legends
    box = legend.get_window_extent()
    assert box.width <= narrow.bbox.width + 1
    assert all(box.y1 <= ax.bbox.y0 + 1 for ax in narrow.axes)


def test_a_colorbar_and_a_legend_wider_than_a_phone_still_give_a_narrow_rendering():
    """A colorbar made without a layout engine (laid out by tight_layout, never switched to constrained
    layout: that divides by zero), and a four-column legend that would collapse a constrained layout."""
    fig, ax = plt.subplots(figsize=(6.6, 3.8))
    points = ax.scatter([1, 2, 3], [1, 2, 3], c=[0.1, 0.5, 0.9], label="draws")
    ax.plot([1, 3], [1, 3], label="theory")
    fig.colorbar(points, ax=ax, label="overlap")
    ax.legend(loc="lower right")
    wide = plt.figure(figsize=(6.6, 3.0), layout="constrained").subplots()
    for k in range(4):
        wide.plot([0, 1], [k, k], label=f"weighting number {k}")
    wide.legend(ncol=4, loc="upper left")
    for figure in (fig, wide.figure):
        page = rendering.figure_html(figure)
        assert "data-narrow-failed" not in page and "<source" in page


def test_html_output_has_both_renderings_and_what_the_browser_test_reads():
    fig = grid_figure()
    page = rendering.figure_html(fig)
    wide_png = base64.b64decode(rendering.figure_png(fig))
    (narrow_uri,) = re.findall(r'<source media="([^"]+)" srcset="data:image/png;base64,([^"]+)"', page)
    assert narrow_uri[0] == rendering.NARROW_MEDIA
    assert re.search(r'<img src="data:image/png;base64,[^"]+" alt="Figure: [^"]+" data-font-pt="[\d.]+" '
                     r'data-dpi="100">', page)
    assert re.findall(r'data-font-pt="([\d.]+)"', page) == ["8.5", "8.5"]  # the legends
    narrow_png = base64.b64decode(narrow_uri[1])
    width, height = png_size(narrow_png)
    assert width == pytest.approx(rendering.NARROW_WIDTH * rendering.NARROW_DPI, rel=0.1)
    assert height > width  # four panels stacked
    assert png_size(wide_png)[0] == pytest.approx(660, rel=0.1)


def test_smallest_font_reads_every_visible_text():
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1], label="x")
    ax.legend(fontsize=7.5)
    fig.canvas.draw()
    assert rendering.smallest_font(fig) == 7.5
    ax.get_legend().set_visible(False)
    assert rendering.smallest_font(fig) == 9  # the tick labels of use_book_style


def test_outside_ipython_install_does_nothing():
    assert rendering.install() is False
