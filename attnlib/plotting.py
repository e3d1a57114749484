"""Figures shared by the chapters: theory curves overlaid on simulations, with one consistent style."""

from __future__ import annotations

import numpy as np

__all__ = ["use_book_style", "spectrum_overlay", "correlation_heatmaps", "COLORS"]

COLORS = {"mean": "#1f77b4", "causal": "#d62728", "optimal": "#2ca02c", "theory": "black", "edge": "#7f7f7f"}


def use_book_style():
    """Matplotlib settings for the book: readable sizes, and PNG output without volatile metadata."""
    import matplotlib as mpl

    mpl.rcParams.update({
        "figure.figsize": (7.0, 3.6),
        "figure.dpi": 100,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.25,
        "legend.frameon": False,
        "font.size": 10,
        "svg.hashsalt": "attnlib",
    })


def spectrum_overlay(ax, eigenvalues, delta, gamma, kappa=1.0, *, bins=60, outliers=(), label="simulation",
                     color="#9ecae1"):
    """Histogram of the non-zero eigenvalues against kappa(MP_delta ⊠ MP_gamma), with predicted outliers marked.

    The histogram and the law are drawn by :func:`attnlib.bulk.overlay` (zeros found numerically, so the atom and
    the finite-size rank deficit leave no spurious bar; eigenvalues of several draws may be passed as rows).
    ``outliers``: iterable of (value, label) of predicted outlier positions, drawn as dashed vertical lines
    (``nan`` values, i.e. no outlier predicted, are skipped).
    """
    from .bulk import bulk_law, overlay

    overlay(ax, eigenvalues, bulk_law(delta, gamma, kappa), bins=bins, label=label, color=color)
    for value, text in outliers:
        if np.isfinite(value):
            ax.axvline(value, color=COLORS["causal"], ls="--", lw=1.2, label=text)
    ax.legend(fontsize=7, loc="upper right")
    return ax


def correlation_heatmaps(axes, R_target, R_empirical, title=""):
    """Target R and its Monte-Carlo estimate side by side, on a common colour scale."""
    for ax, M, name in zip(axes, (R_target, R_empirical), ("target $R$", "empirical $\\xi^T\\xi/n$")):
        im = ax.imshow(M, vmin=-1, vmax=1, cmap="RdBu_r")
        ax.set_title(f"{title} {name}".strip(), fontsize=9)
        ax.set_xlabel("position $s$")
        ax.set_ylabel("position $t$")
        ax.grid(False)
    return im
