"""Figures shared by the chapters: theory curves overlaid on simulations, with one consistent style."""

from __future__ import annotations

import numpy as np

from . import theory

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
                     density_label=None, color="#9ecae1"):
    """Histogram of the eigenvalues (density normalised to the non-zero part) with kappa(MP_delta ⊠ MP_gamma).

    ``outliers``: iterable of (value, label) of predicted outlier positions to mark with vertical lines.
    Zero eigenvalues (the atom) are left out of the histogram; the curve is the continuous part rescaled to
    mass 1 so both are comparable.
    """
    ev = np.asarray(eigenvalues, dtype=float)
    lo, hi = theory.bulk_edges(delta, gamma, kappa)
    atom = theory.zero_atom(delta, gamma)
    n_zero = int(round(atom * ev.size))
    nonzero = np.sort(ev)[n_zero:]
    top = max(hi, float(nonzero.max()) if nonzero.size else hi)
    ax.hist(nonzero, bins=bins, range=(0.0 if lo < 0.05 * hi else 0.9 * lo, 1.05 * top), density=True,
            color=color, edgecolor="white", linewidth=0.3, label=label)
    x = np.linspace(lo, hi, 2000)
    ax.plot(x, theory.bulk_density(x, delta, gamma, kappa) / (1.0 - atom), color=COLORS["theory"], lw=1.4,
            label=density_label or rf"$\kappa(\mathrm{{MP}}_{{{delta:.3g}}}\boxtimes\mathrm{{MP}}_{{{gamma:.3g}}})$")
    for edge in (lo, hi):
        ax.axvline(edge, color=COLORS["edge"], ls=":", lw=1)
    for value, text in outliers:
        if np.isfinite(value):
            ax.axvline(value, color=COLORS["causal"], ls="--", lw=1.2, label=text)
    ax.set_xlabel("eigenvalue")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
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
