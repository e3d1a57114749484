"""Progress bars for long sweeps that never leak into executed notebooks.

A bar is shown (tqdm.auto: a widget in Jupyter, text in a terminal) unless the environment variable
``ATTNLIB_PROGRESS`` is ``0``. The chapter executor and the nbval run set it to ``0`` (see ``conftest.py``), so
the committed outputs, and the outputs nbval recomputes, contain no progress text.
"""

from __future__ import annotations

import os

__all__ = ["progress", "enabled"]


def enabled() -> bool:
    return os.environ.get("ATTNLIB_PROGRESS", "1") != "0"


def progress(iterable, total: int | None = None, desc: str | None = None):
    """Wrap ``iterable`` in a tqdm bar when progress display is enabled, else return it unchanged."""
    if not enabled():
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, leave=False)
