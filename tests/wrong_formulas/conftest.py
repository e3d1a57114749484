"""Wrong-formula tests: each page's closing checks (``book/checks/``) must reject a plausible wrong formula.

A test patches one attnlib function with a wrong one (:func:`swap`), then calls the page's ``check`` on the
results the page recorded (``book/checks/results/``); the check recomputes the theory, now wrong, and must
raise ``AssertionError``. No simulation runs again.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parent.parent.parent / "book"
if str(BOOK) not in sys.path:
    sys.path.insert(0, str(BOOK))


def swap(monkeypatch, module, name: str, wrong) -> None:
    """Replace ``module.name`` by ``wrong`` wherever attnlib refers to that same function (a module that
    imported it by name keeps its own reference), for the duration of the test."""
    original = getattr(module, name)
    found = False
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").partition(".")[0] in ("attnlib", "checks"):
            for attr, value in list(vars(mod).items()):
                if value is original:
                    monkeypatch.setattr(mod, attr, wrong)
                    found = True
    assert found, f"{module.__name__}.{name} not found"


def rejects(check, results) -> None:
    """``check(results)`` must fail on an assertion (and not, say, on a TypeError of the wrong formula)."""
    with pytest.raises(AssertionError):
        check(results)
