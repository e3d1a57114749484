"""The recovery target in one picture: the class centroid h = mu + q of a drawn vocabulary (chapter "The model").

:func:`centroid_picture` projects the tokens of a :class:`attnlib.model.generative.Vocabulary` on the plane of
the signal mu and the class-centroid shift q = Z s / V, where the class centroids are exactly +-h around the
vocabulary mean, and draws mu, q and h with the angle between h and mu.
"""

from __future__ import annotations

import numpy as np

from attnlib.model.generative import Vocabulary

__all__ = ["centroid_picture"]

_CLASS_COLORS = ("#2ca02c", "#d62728")  # +1 and -1, as in the model schematic


def centroid_picture(ax, vocabulary: Vocabulary, rng: np.random.Generator, *, tokens: int = 60):
    """Draw the tokens, their class centroids +-h and the vectors mu, q, h on ``ax``, in the (u, q) plane.

    Coordinates: along u = mu/||mu|| and along the part of q orthogonal to u (unit length). The tokens are
    centred at the vocabulary mean g = Z 1/V, so that the mean of class +-1 is exactly +-h. ``tokens``
    tokens of each class, picked by ``rng``, are shown. Returns cos^2(h, mu) of this vocabulary.
    """
    if not isinstance(vocabulary, Vocabulary):
        raise ValueError(f"vocabulary must be a generative.Vocabulary, got {type(vocabulary).__name__}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if not isinstance(tokens, (int, np.integer)) or tokens < 1:
        raise ValueError(f"tokens must be a positive integer, got {tokens!r}")
    mu, h, q = vocabulary.mu, vocabulary.h, vocabulary.q
    if not mu @ mu > 0:
        raise ValueError("the vocabulary must have a signal (||mu||^2 > 0) for the picture of h = mu + q")
    u = vocabulary.u
    q_perp = q - (q @ u) * u
    basis = np.stack([u, q_perp / np.linalg.norm(q_perp)])  # (2, d)
    centred = vocabulary.table - vocabulary.table.mean(axis=0)
    for sign, color in zip((1, -1), _CLASS_COLORS):
        members = np.flatnonzero(vocabulary.signs == sign)
        shown = rng.choice(members, size=min(tokens, members.size), replace=False)
        xy = centred[shown] @ basis.T
        ax.plot(xy[:, 0], xy[:, 1], ".", color=color, ms=3, alpha=0.3)
        ax.plot(*(sign * basis @ h), "o", color=color, ms=8, mec="black", mew=0.8)
    arrow = {"arrowstyle": "-|>", "lw": 1.6, "shrinkA": 0, "shrinkB": 0, "mutation_scale": 12}
    mu_xy, h_xy = basis @ mu, basis @ h
    ax.annotate("", mu_xy, (0, 0), arrowprops={**arrow, "color": "black"})
    ax.annotate("", h_xy, mu_xy, arrowprops={**arrow, "color": "0.45", "ls": "--"})
    ax.annotate("", h_xy, (0, 0), arrowprops={**arrow, "color": "#ff7f0e"})
    ax.text(*(0.5 * mu_xy + [0, -0.08]), r"$\mu$", ha="center", va="top", fontsize=11)
    ax.text(*(mu_xy + 0.5 * (h_xy - mu_xy) + [0.1, 0]), r"$q = Zs/V$", ha="left", va="center",
            fontsize=10, color="0.3")
    ax.text(*(0.5 * h_xy + [-0.08, 0.06]), r"$h = \mu + q$", ha="right", va="bottom", fontsize=11,
            color="#ff7f0e")
    ax.text(*(-h_xy + [0.1, -0.1]), r"$-h$", ha="left", va="top", fontsize=10)
    reach = 1.6 * float(np.hypot(*h_xy))  # the tokens spread wider: the picture is about the centroids
    ax.set(xlim=(-reach, reach), ylim=(-0.75 * reach, 0.75 * reach))
    cos2 = float((h @ mu) ** 2 / ((h @ h) * (mu @ mu)))
    ax.text(0.02, 0.97, rf"$\cos^2(h, \mu) = {cos2:.2f}$", transform=ax.transAxes, ha="left", va="top",
            fontsize=10, bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    ax.set_aspect("equal")
    ax.axhline(0, color="0.8", lw=0.6, zorder=0)
    ax.axvline(0, color="0.8", lw=0.6, zorder=0)
    ax.set(xlabel=r"along $u = \mu/\|\mu\|$", ylabel=r"along $q$ ($\perp u$)")
    return cos2
