"""Legends that never cover data: what a legend covers, and where it can go instead.

The data marks of an axes are what it draws in data coordinates: lines (their segments, not only their
vertices), markers, error bars, bars and filled areas, images, and its annotations; reference lines and
bands spanning the axes (``axvline``, ``axhspan``) are not data. All are compared with the legend's box in
display coordinates, after the figure's layout, as drawn.
"""

from __future__ import annotations

import numpy as np

__all__ = ["INSIDE", "covered", "unblock_legends"]

#: Where a legend may go inside its axes, in the order tried.
INSIDE = ("upper right", "upper left", "lower right", "lower left", "center right", "center left",
          "upper center", "lower center")
_NO_MARKER = {None, "None", "none", "", " "}
_NO_LINE = {"None", "none", "", " "}


def _in_data(transform, ax) -> bool:
    """Whether ``transform`` places both coordinates in the data coordinates of ``ax`` (not an axvline)."""
    return all(transform.contains_branch_seperately(ax.transData))


def _pieces(xy: np.ndarray) -> list[np.ndarray]:
    """The runs of finite points of a polyline (NaN leaves a gap)."""
    finite = np.isfinite(xy).all(axis=1)
    runs, start = [], None
    for i, ok in enumerate(np.append(finite, False)):
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            runs.append(xy[start:i])
            start = None
    return runs


def _marks(ax, renderer) -> list[tuple[str, str, object]]:
    """The data marks of ``ax``: (name, kind, geometry) with kind "points" (array, radius), "line" and
    "area" (display paths) or "box" (display bbox)."""
    from matplotlib.collections import QuadMesh
    from matplotlib.path import Path

    marks = []
    px = ax.figure.dpi / 72.0
    for line in ax.lines:
        if not line.get_visible() or not _in_data(line.get_transform(), ax):
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        name = f"line {line.get_label()!r}"
        if line.get_linestyle() not in _NO_LINE:
            marks += [(name, "line", Path(run)) for run in _pieces(xy) if len(run) > 1]
        if line.get_marker() not in _NO_MARKER:
            marks.append((name, "points", (xy[np.isfinite(xy).all(axis=1)], 0.5 * line.get_markersize() * px)))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        name = f"{type(coll).__name__} {coll.get_label()!r}"
        if isinstance(coll, QuadMesh):
            marks.append((name, "box", coll.get_window_extent(renderer)))
            continue
        offsets = np.asarray(coll.get_offsets(), dtype=float)
        if offsets.size and _in_data(coll.get_offset_transform(), ax):
            sizes = coll.get_sizes()
            radius = 0.5 * np.sqrt(float(np.max(sizes))) * px if len(sizes) else 3.0
            marks.append((name, "points", (coll.get_offset_transform().transform(offsets), radius)))
            continue
        if not _in_data(coll.get_transform(), ax):
            continue
        faces = coll.get_facecolor()
        kind = "area" if len(faces) and float(np.max(np.asarray(faces)[:, 3])) > 0 else "line"
        marks += [(name, kind, coll.get_transform().transform_path(p)) for p in coll.get_paths()]
    for patch in ax.patches:
        if patch.get_visible() and _in_data(patch.get_transform(), ax):
            path = patch.get_transform().transform_path(patch.get_path())
            marks.append((f"{type(patch).__name__} {patch.get_label()!r}", "area" if patch.get_fill() else "line",
                          path))
    for image in ax.images:
        if image.get_visible():
            marks.append(("image", "box", image.get_window_extent(renderer)))
    for text in ax.texts:
        if text.get_visible() and text.get_text().strip():
            marks.append((f"text {text.get_text()!r}", "box", text.get_window_extent(renderer)))
    return marks


def _hits(box, kind: str, geometry) -> bool:
    if kind == "points":
        xy, radius = geometry
        inside = ((xy[:, 0] > box.x0 - radius) & (xy[:, 0] < box.x1 + radius)
                  & (xy[:, 1] > box.y0 - radius) & (xy[:, 1] < box.y1 + radius))
        return bool(inside.any())
    if kind == "box":
        return geometry.overlaps(box) and geometry.width > 0 and geometry.height > 0
    return bool(geometry.intersects_bbox(box, filled=kind == "area"))


def covered(legend, axes, renderer=None) -> list[str]:
    """The data marks of ``axes`` (an axes or a list) that ``legend`` covers, by name; empty if none.

    Marks drawn clipped to their axes count only inside it (a curve that leaves the plotting area is not
    covered by a legend placed outside it).
    """
    from matplotlib.transforms import Bbox

    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    if legend is None or not legend.get_visible():
        return []
    renderer = renderer or legend.figure.canvas.get_renderer()
    box = legend.get_window_extent(renderer).expanded(1.0, 1.0)
    box = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
    hits = []
    for ax in axes:
        clipped = Bbox.intersection(box, ax.bbox)
        for name, kind, geometry in _marks(ax, renderer):
            target = box if kind == "box" and not name.startswith("image") else clipped
            if target is not None and _hits(target, kind, geometry):
                hits.append(name)
    return hits


def _below(ax, legend, renderer) -> None:
    """Put ``legend`` under the x axis of ``ax`` (its tick labels and label), centred."""
    from matplotlib.transforms import ScaledTranslation

    axis = ax.xaxis.get_tightbbox(renderer)
    drop = (ax.bbox.y0 - axis.y0) / ax.figure.dpi + 0.05 if axis is not None else 0.5
    legend.set_loc("upper center")
    legend.set_bbox_to_anchor((0.5, 0.0), transform=ax.transAxes
                              + ScaledTranslation(0.0, -drop, ax.figure.dpi_scale_trans))


def unblock_legends(fig, drawn: bool = False) -> list[str]:
    """Move every legend of ``fig`` that covers data where it covers none; returns what moved.

    An axes' legend goes to the first place of :data:`INSIDE` where it covers nothing, else below the axes;
    a figure's legend that covers data goes below all of them. The figure is drawn first (its layout, as it
    will be drawn) unless ``drawn`` says it just was; a figure whose legends moved needs drawing again.
    """
    if not drawn:
        fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    moved = []
    for ax in fig.axes:
        legend = ax.get_legend()
        if not covered(legend, ax, renderer):
            continue
        for loc in INSIDE:
            legend.set_loc(loc)
            if not covered(legend, ax, renderer):
                break
        else:
            loc = "below the axes"
            _below(ax, legend, renderer)
        moved.append(f"legend of {ax.get_title() or 'an axes'!r} -> {loc}")
    for legend in fig.legends:
        if covered(legend, fig.axes, renderer):
            legend.set_loc("upper center")
            legend.set_bbox_to_anchor((0.5, 0.0), transform=fig.transFigure)
            moved.append("figure legend -> below the figure")
    return moved
