"""Summaries of repeated measurements: the standard error of a mean, a root mean square, least-squares slopes.

Every simulated point of the book is a mean over independent draws shown with its standard error
(:func:`standard_error`); rates are slopes of a log-log fit (:func:`slope`), and finite-size corrections of the
form A x are weighted least-squares fits through the origin (:func:`proportional_fit`).
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["standard_error", "root_mean_square", "slope", "proportional_fit", "largest_difference"]


def standard_error(x, axis: int = -1):
    """Standard error of the mean of ``x`` along ``axis``: the sample standard deviation (ddof = 1) over sqrt(n).

    ``x``: finite numbers with at least 2 along ``axis``. Returns an array of the shape of ``x`` without
    ``axis`` (a float for a 1-D ``x``).
    """
    x = _v.finite_array("x", x)
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis must be an axis of x (shape {x.shape}), got {axis}")
    if x.shape[axis] < 2:
        raise ValueError(f"x must have at least 2 values along axis {axis} for a standard error, "
                         f"got shape {x.shape}")
    return np.std(x, axis=axis, ddof=1) / np.sqrt(x.shape[axis])


def root_mean_square(x) -> float:
    """sqrt(mean(x^2)) over every entry of ``x`` (finite, non-empty)."""
    x = _v.finite_array("x", x)
    if x.size == 0:
        raise ValueError("x must not be empty")
    return float(np.sqrt(np.mean(x**2)))


def slope(x, y):
    """Least-squares slope of y = a + b x: b = sum (x - mean x)(y - mean y) / sum (x - mean x)^2.

    ``x``: a 1-D array of at least 2 distinct values; ``y``: shape (len(x),) or (len(x), k), one fit per
    column (a float or an array of k slopes).
    """
    x = _v.finite_vector("x", x)
    y = _v.finite_array("y", y)
    if y.ndim not in (1, 2) or y.shape[0] != x.size:
        raise ValueError(f"y must have shape ({x.size},) or ({x.size}, k) to match x, got {y.shape}")
    xc = x - x.mean()
    if not xc @ xc > 0:
        raise ValueError(f"x must have at least 2 distinct values, got {_v.short(x)}")
    return (xc @ (y - y.mean(axis=0))) / (xc @ xc)


def proportional_fit(x, y, se) -> tuple[float, float]:
    """Weighted least squares of y = A x (no intercept), with the standard errors ``se`` of y.

    A = sum(x y / se^2) / sum(x^2 / se^2), with standard error 1 / sqrt(sum(x^2 / se^2)). ``x``, ``y``, ``se``:
    finite 1-D arrays of the same length, ``se`` positive and ``x`` not all zero. Returns (A, its standard error).
    """
    x, y = _v.finite_vector("x", x), _v.finite_vector("y", y)
    se = _v.positive("se", _v.finite_vector("se", se), allow_array=True)
    if not x.size == y.size == se.size:
        raise ValueError(f"x, y and se must have the same length, got {x.size}, {y.size} and {se.size}")
    weight = np.sum(x**2 / se**2)
    if not weight > 0:
        raise ValueError(f"x must not be all zero, got {_v.short(x)}")
    return float(np.sum(y * x / se**2) / weight), float(1 / np.sqrt(weight))


def largest_difference(again, recorded) -> float:
    """The largest difference between a re-run and a recorded result, each value relative to
    ``max(abs(recorded), 1)``: 0 when both ran on one machine, about 1e-13 when another CPU's BLAS summed in
    another order. ``again`` and ``recorded``: arrays of one shape (NaN where both are NaN is no difference)."""
    a, b = np.asarray(again, dtype=float), np.asarray(recorded, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"again and recorded must have one shape, got {a.shape} and {b.shape}")
    if np.any(np.isnan(a) != np.isnan(b)):
        raise ValueError("again and recorded must be NaN at the same places")
    both = ~np.isnan(b)
    return float(np.max(np.abs(a[both] - b[both]) / np.maximum(np.abs(b[both]), 1.0), initial=0.0))
