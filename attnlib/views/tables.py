"""Numbers as the book prints them: rounded to a few significant digits, so that printed and glued values are
stable across machines and BLAS thread counts, and small Markdown tables."""

from __future__ import annotations

import math

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["sig", "markdown_text", "markdown_table"]


def sig(x, digits: int = 3):
    """Round to ``digits`` significant digits; returns a Python float (int stays int, nan stays nan)."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    x = float(x)
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


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
