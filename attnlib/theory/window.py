r"""Closed forms of the critical window of the sample transition at finite d (the window itself, its width and
its margin, are in :mod:`attnlib.theory.fluctuations`; the simulations that measure it are in
:mod:`attnlib.studies.finite_size`).

:func:`overlap_slope` is the slope of the limit squared overlap at the sample threshold, and
:func:`window_dimension` the d from which a spike strength lies outside the critical window.
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v
from attnlib.theory import _law, _spikes, fluctuations

__all__ = ["overlap_slope", "window_dimension"]


def overlap_slope(delta, gamma) -> float:
    """Slope ``a`` of the limit squared overlap at the sample threshold: overlap = a (x - x*) + O((x - x*)^2)."""
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    x_star = _law.critical_x(delta, gamma)[0]
    h = 1e-7 * (1.0 + x_star)
    return float(_spikes.spike(delta, gamma, theta=delta + x_star + h).sample_overlap / h)


def window_dimension(delta, gamma, theta) -> float:
    r"""The d from which ``theta`` lies outside the critical window: :math:`(\sqrt{q}\,w_1/|x - x_*|)^3`.

    Inverts :func:`attnlib.studies.downstream.in_critical_window` (half-width :math:`\sqrt q\,w_d`, :math:`w_d = w_1
    d^{-1/3}`, q the :data:`attnlib.theory.fluctuations.WINDOW_LEVEL` quantile of TW_1); ``inf`` at the threshold.
    """
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    gap = abs(_v.finite_scalar("theta", theta) - delta - _law.critical_x(delta, gamma)[0])
    half = fluctuations.window_half_width(fluctuations.WINDOW_LEVEL) * fluctuations.window_width(delta, gamma, 1)
    return float(np.inf) if gap == 0 else float((half / gap) ** 3)
