"""Figures shared by the chapters: theory curves over simulations, with one consistent style.

* :func:`use_book_style`, ``COLORS``;
* :func:`points` (simulated means with error bars, from a :class:`attnlib.engine.montecarlo.Sweep` or from arrays)
  and :func:`curve` (a theory line), the two marks of every theory-versus-simulation figure;
* :func:`overlay` (a spectrum histogram against a law) and :func:`spectrum_overlay` (the same against the
  bulk law, with predicted outliers marked);
* :func:`correlation_heatmaps`;
* :func:`model_schematic`, the model in four panels (tokens, a sequence, pooled vectors, the spectrum).
"""

from __future__ import annotations

import numpy as np

from attnlib.engine.compare import as_spectrum
from attnlib.numerics import checks as _v
from attnlib.numerics.linalg import zero_mask
from attnlib.theory import spike
from attnlib.theory.laws import Bulk, SpectralLaw

__all__ = ["use_book_style", "COLORS", "points", "curve", "overlay", "spectrum_overlay", "correlation_heatmaps",
           "model_schematic"]

COLORS = {"mean": "#1f77b4", "causal": "#d62728", "optimal": "#2ca02c", "theory": "black", "edge": "#7f7f7f"}


def use_book_style():
    """Matplotlib settings for the book, and figures shown at the width of the screen.

    Figures are at most 6.6 in wide at 100 dpi (a captioned figure is at most 672 px wide in a 1280 px
    window), so the browser shows them at their natural size, and no text is smaller than 8 pt. In a
    notebook, every figure shown also gets a narrow rendering for phones, its panels stacked, and legends
    that cover data are moved (:func:`attnlib.views.rendering.install`). Call it in a chapter's first cell.
    """
    import matplotlib as mpl

    from attnlib.views import rendering

    mpl.rcParams.update({
        "figure.figsize": (6.6, 3.3),
        "figure.dpi": 100,
        "legend.fontsize": 8.5,
        "xtick.labelsize": 9,
        "ytick.labelsize": 9,
        "axes.labelsize": 10,
        "axes.titlesize": 10,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.25,
        "legend.frameon": False,
        "font.size": 10,
        "svg.hashsalt": "attnlib",
    })
    rendering.install()


def points(ax, x, result, name: str | None = None, *, j: int = 0, scale=1.0, errors: float = 1.0,
           color=None, marker: str = "o", label: str | None = None, ms: float = 4.0):
    """Simulated means with error bars of ``errors`` standard errors.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x : array_like
        Abscissae, one per setting.
    result : Sweep or tuple
        A :class:`attnlib.engine.montecarlo.Sweep` (then ``name`` and ``j`` pick the quantity, e.g. "overlap_h"), or
        a pair ``(means, standard_errors)`` of arrays.
    scale : float or array_like
        Divide means and errors by this (e.g. kappa, to plot eigenvalues in units of kappa).
    errors : float
        Half-width of the bars in standard errors (0: no bars).
    """
    if isinstance(result, tuple):
        mean, sem = (np.asarray(a, dtype=float) for a in result)
    else:
        if name is None:
            raise ValueError("name must be given when result is a Sweep (e.g. 'overlap_h' or 'top')")
        mean, sem = result.mean(name, j), (result.sem(name, j) if result.trials > 1 else None)
    errors = _v.nonnegative("errors", errors)
    yerr = None if sem is None or errors == 0 else errors * sem / scale
    return ax.errorbar(x, mean / scale, yerr=yerr, fmt=marker, ms=ms, capsize=2, color=color, label=label)


def curve(ax, x, y, *, color=COLORS["theory"], label: str | None = "theory", lw: float = 1.4, ls: str = "-"):
    """A theory curve (NaN values, where the theory predicts nothing, leave gaps)."""
    return ax.plot(x, y, color=color, lw=lw, ls=ls, label=label)[0]


def overlay(ax, eigenvalues, law, *, bins: int = 50, label: str = "simulation", color: str = "#9ecae1"):
    """Histogram of the non-zero eigenvalues against the continuous part of ``law`` (both normalised to mass 1).

    ``law`` is an :class:`attnlib.theory.laws.SpectralLaw`. The zeros are found by the one rule of
    :mod:`attnlib.numerics.linalg`
    (:func:`~attnlib.numerics.linalg.zero_mask`), not as the ``round(atom * n)`` smallest eigenvalues, so the finite-size
    rank deficit (one extra zero per side lost to centering) does not leave a spurious bar at 0; the legend
    reports the zero fraction against the atom. Edges are dotted; the curve is evaluated on a grid that is dense
    near both edges. Eigenvalues of several draws may be passed as rows.
    """

    if not isinstance(law, SpectralLaw):
        raise ValueError(f"law must be an attnlib.theory.SpectralLaw (theory.Bulk, theory.MarchenkoPastur, ...), "
                         f"got {law!r}")
    ev = as_spectrum(eigenvalues)
    bins = _v.positive_int("bins", bins)
    zero = zero_mask(ev)
    nz = ev[~zero]
    top = max(law.upper, float(nz.max()) if nz.size else law.upper)
    start = 0.0 if law.lower < 0.05 * law.upper else 0.9 * law.lower
    text = f"{label}; zeros {100 * zero.mean():.1f}% (atom {100 * law.atom:.1f}%)" if law.atom > 0 else label
    heights, _, _ = ax.hist(nz, bins=bins, range=(start, 1.05 * top), density=True, color=color, edgecolor="white",
                            linewidth=0.3, label=text)
    x = law.grid(2001)
    ax.plot(x, law.density(x) / (1.0 - law.atom), color="black", lw=1.4, label="theory")
    for edge in (law.lower, law.upper):
        ax.axvline(edge, color=COLORS["edge"], ls=":", lw=1)
    if heights.size and heights.max() > 0:  # a hard edge at 0 makes the density unbounded: scale to the data
        ax.set_ylim(0, 1.25 * heights.max())
    ax.set_xlabel("eigenvalue")
    ax.set_ylabel("density (non-zero part)")
    ax.legend(loc="upper right")
    return ax


def spectrum_overlay(ax, eigenvalues, delta, gamma, kappa=1.0, *, bins=60, outliers=(), label="simulation",
                     color="#9ecae1"):
    """Histogram of the non-zero eigenvalues against kappa(MP_delta ⊠ MP_gamma), with predicted outliers marked.

    The histogram and the law are drawn by :func:`overlay`. ``outliers``: iterable of (value, label) of
    predicted outlier positions, drawn as dashed vertical lines (``nan`` values, i.e. no outlier predicted, are
    skipped).
    """

    overlay(ax, eigenvalues, Bulk(delta, gamma, kappa), bins=bins, label=label, color=color)
    for value, text in outliers:
        if np.isfinite(value):
            ax.axvline(value, color=COLORS["causal"], ls="--", lw=1.2, label=text)
    ax.legend(loc="upper right")
    return ax


def correlation_heatmaps(axes, R_target, R_empirical, title=""):
    """Target R and its Monte-Carlo estimate side by side (or one above the other), on a common colour scale.

    The panels are titled "target" and "estimate", prefixed by ``title``; ticks mark positions 0, 5, 10, ...
    """
    for ax, M, name in zip(axes, (R_target, R_empirical), ("target", "estimate")):
        im = ax.imshow(M, vmin=-1, vmax=1, cmap="RdBu_r")
        ax.set_title(f"{title}: {name}" if title else name, fontsize=9)
        ax.set_xlabel("position $s$")
        ax.set_ylabel("position $t$")
        ticks = np.arange(0, M.shape[0], 5)
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
        ax.grid(False)
    return im


def model_schematic(axes, rng, *, delta=0.2, gamma=0.2, theta=2.0):
    """The model at a glance, in four panels drawn on ``axes`` (a sequence of 4 matplotlib axes).

    1. the vocabulary: token embeddings e_v = s_v mu + z_v, two clouds around +mu and -mu;
    2. one sequence: the signs xi_t of T = 8 positions (the first 3 share one sign) and weights w_t;
    3. pooled vectors c_n: the noise averages down, the class signal stays, along +-mu;
    4. the spectrum of S: the bulk kappa(MP_delta ⊠ MP_gamma) (the law of :mod:`attnlib.engine.compare`) and the
       outlier that carries the signal, at its predicted place for spike strength ``theta``.

    ``rng`` (a ``numpy.random.Generator``) draws the illustrative points. All text is 9 pt.
    """

    axes = list(axes)
    if len(axes) != 4:
        raise ValueError(f"axes must hold 4 matplotlib axes, got {len(axes)}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    plus, minus, fill = COLORS["optimal"], COLORS["causal"], "#9ecae1"
    small = {"fontsize": 9, "ha": "center", "va": "top"}
    titles = ("vocabulary\n" r"$e_v = s_v\mu + z_v$", "a sequence\n" r"signs $\xi_t$, weights $w_t$",
              "pooled vectors\n" r"$c = \sum_t w_t\, e_{v_t}$", "spectrum of $S$\n" "bulk and outlier")
    for ax, title in zip(axes, titles):
        ax.set_axis_off()
        ax.set_title(title, fontsize=9)
    ax = axes[0]  # vocabulary: two noisy clouds around +mu and -mu
    for sign, color in ((1, plus), (-1, minus)):
        pts = rng.normal(size=(24, 2)) * 0.55 + [1.3 * sign, 0]
        ax.plot(pts[:, 0], pts[:, 1], ".", color=color, ms=4, alpha=0.8)
        ax.annotate("", (1.3 * sign, 0), (0, 0), arrowprops={"arrowstyle": "->", "lw": 1.5})
        ax.text(1.3 * sign, -1.45, r"$+\mu$" if sign > 0 else r"$-\mu$", color=color, **small)
    ax.set(xlim=(-2.5, 2.5), ylim=(-2.0, 1.8))
    ax = axes[1]  # one sequence: signs (the first three share one) and weights (mass on them)
    signs = np.r_[np.ones(3), rng.choice([-1.0, 1.0], size=5)]
    weights = np.r_[np.full(3, 0.3), np.full(5, 0.02)]
    for t, (sign, wt) in enumerate(zip(signs, weights)):
        ax.add_patch(_box(t, 1.0, plus if sign > 0 else minus, 0.8))
        ax.text(t + 0.4, 1.4, "+" if sign > 0 else "−", color="white", fontsize=9, ha="center", va="center")
        ax.add_patch(_box(t, -1.2, fill, wt * 5))
    ax.text(4, -1.35, "positions $t = 1, \\dots, T$", **small)
    ax.set(xlim=(-0.2, 8.0), ylim=(-2.0, 2.0))
    ax = axes[2]  # pooled vectors: the noise shrinks, the class signal along mu stays
    for sign, color in ((1, plus), (-1, minus)):
        pts = rng.normal(size=(30, 2)) * [0.3, 0.3] + [1.0 * sign, 0]
        ax.plot(pts[:, 0], pts[:, 1], ".", color=color, ms=4, alpha=0.8)
    ax.annotate("", (1.7, 0), (-1.7, 0), arrowprops={"arrowstyle": "<->", "lw": 1.2, "color": "0.3"})
    ax.text(0, -1.35, "top eigenvector\nof $S$ along $\\mu$", **small)
    ax.set(xlim=(-2.5, 2.5), ylim=(-2.0, 1.8))
    ax = axes[3]  # the spectrum of S: the bulk law and the outlier
    law = Bulk(delta, gamma)
    x = law.grid(400)
    dens = law.density(x) / (1 - law.atom)
    peak = float(np.nanmax(dens))
    top = float(spike(delta, gamma, theta=theta).sample_eigenvalue)
    ax.fill_between(x, dens, color=fill)
    ax.plot([top, top], [0, 0.7 * peak], color=minus, lw=2.4)
    ax.plot([-0.1, 1.08 * top], [0, 0], color="0.3", lw=0.8)
    ax.text(0.5 * law.upper, -0.12 * peak, "bulk", **small)
    ax.text(top, -0.12 * peak, "outlier", color=minus, **small)
    ax.set(xlim=(-0.1, 1.12 * top), ylim=(-0.6 * peak, 1.1 * peak))
    for right in axes[1:]:  # the arrow from one step to the next goes with the panel (a phone stacks them)
        right.annotate("→", (-0.15, 0.5), xycoords="axes fraction", fontsize=14, ha="center", va="center",
                       annotation_clip=False)
    return axes


def _box(t: float, y: float, color: str, height: float):
    from matplotlib.patches import Rectangle

    return Rectangle((t, y), 0.8, height, color=color, lw=0)
