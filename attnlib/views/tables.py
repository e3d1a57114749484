"""Numbers as the book prints them: rounded to a few significant digits, so that printed and glued values are
stable across machines and BLAS thread counts, and small Markdown tables."""

from __future__ import annotations

import math

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["sig", "pm", "below", "with_prediction", "dimension_text", "markdown_text", "markdown_table"]


def sig(x, digits: int = 3):
    """Round to ``digits`` significant digits; returns a Python float (int stays int, nan stays nan)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


def _decimals(x: float, digits: int) -> int:
    """Decimal places that keep ``digits`` significant digits of ``x`` (x != 0)."""
    return digits - 1 - int(math.floor(math.log10(abs(x))))


def pm(mean, se, digits: int = 2) -> str:
    """"mean ± se" with the digits the standard error supports: ``se`` to ``digits`` significant digits and
    ``mean`` to the same decimal place (at most 4 significant digits), so that no digit of the mean is noise.

    ``pm(-5.1e-05, 0.0063)`` is ``"-0.0001 ± 0.0063"``; ``pm(0.4241, 0.0012)`` is ``"0.4241 ± 0.0012"``.
    A standard error of 0 or nan shows the mean to 4 significant digits and the error as it is.
    """
    mean, se = float(mean), float(se)
    digits = _v.positive_int("digits", digits)
    if not (math.isfinite(se) and se > 0):
        return f"{sig(mean, 4):g} ± {se:g}"
    places = _decimals(se, digits)
    if mean != 0 and math.isfinite(mean):
        places = min(places, _decimals(mean, 4))
    err = sig(se, digits)
    if places > 6:  # tiny numbers: one power of ten for both
        k = int(math.floor(math.log10(max(abs(mean), se))))
        return f"({_fixed(mean / 10**k, places + k)} ± {_fixed(err / 10**k, places + k)})e{k}"
    return f"{_fixed(mean, places)} ± {_fixed(err, max(places, _decimals(err, digits)))}"


def below(x, bound: float):
    """``"< bound"`` when ``x < bound``, else ``x`` to 2 significant digits: how a table shows a difference that
    is round-off (whose digits differ between CPUs) as long as it stays below the bound a check allows."""
    x, bound = float(x), float(bound)
    return f"< {bound:g}" if x < bound else sig(x, 2)


def with_prediction(measured, predicted, digits: int = 3) -> str:
    """``"measured (predicted)"``, each to ``digits`` significant digits (:func:`sig`); a nan, a value that does not
    exist (no outlier, say), prints as ``"none"``: ``with_prediction(1.2345, nan)`` is ``"1.23 (none)"``."""
    digits = _v.positive_int("digits", digits)

    def text(x) -> str:
        if isinstance(x, (float, np.floating)) and math.isnan(x):
            return "none"
        _v.finite_scalar("measured and predicted", x)
        return f"{sig(x, digits)}"

    return f"{text(measured)} ({text(predicted)})"


def dimension_text(d, smallest: int, *, measured=None) -> str:
    """A dimension as a table of sizes prints it: ``"< smallest"`` below ``smallest`` (the least simulated d), two
    significant digits with thousands separators below 10^6 (``"12,000"``), else like ``"1.2e+07"``. With
    ``measured``: ``d`` (derived) followed by ``measured`` in parentheses when the two print differently."""
    d, smallest = _v.positive("d", d), _v.positive("smallest", smallest)

    def text(x: float) -> str:
        return f"< {smallest:g}" if x < smallest else f"{sig(x, 2):,.0f}" if x < 1e6 else f"{x:.1e}"

    if measured is None or text(d) == text(_v.positive("measured", measured)):
        return text(d)
    return f"{text(d)} ({text(float(measured))})"


def _fixed(x: float, places: int) -> str:
    text = f"{round(x, places):.{max(places, 0)}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _cell(value, digits: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    v = sig(value, digits)
    if isinstance(v, float) and not math.isfinite(v):
        return "–"
    return f"{v:g}" if isinstance(v, float) and (abs(v) >= 1e5 or (v != 0 and abs(v) < 1e-4)) else str(v)


def markdown_text(headers, rows, digits: int = 3) -> str:
    """The Markdown source of a table: one row per item of ``rows``; numbers rounded to ``digits`` significant
    digits (nan shown as a dash), strings as they are."""
    headers = list(headers)
    rows = [list(row) for row in rows]
    if not headers or any(len(row) != len(headers) for row in rows):
        raise ValueError(f"every row must have one cell per header ({len(headers)})")
    digits = _v.positive_int("digits", digits)
    lines = ["| " + " | ".join(map(str, headers)) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v, digits) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown_table(headers, rows, digits: int = 3):
    """An IPython Markdown table (:func:`markdown_text`, displayed by Jupyter)."""
    from IPython.display import Markdown

    return Markdown(markdown_text(headers, rows, digits))
