"""The closing checks of the book's pages, as functions.

Each page ``NN_name`` that checks theory against simulation ends with a cell that gathers what its simulations
measured into a dict of numbers and arrays, ``results``, and calls ``checks.NN_name.check(results)``. The
check reads only that dict and attnlib (the theory it recomputes there), so a wrong formula put into attnlib
fails it without running a simulation again: the wrong-formula tests (``tests/wrong_formulas/``) patch the formula with
pytest's ``monkeypatch`` and call the check on the results the page recorded.

The page records its results with :func:`record` when ``scripts/execute_notebook.py`` executes it
(``ATTNLIB_RECORD_RESULTS=1``), in ``book/checks/results/NN_name.npz``, beside a hash of the page's source:
:func:`load` refuses results recorded from another version of the page.

A check collects its rows in a :class:`Report` (one row a check: what, measured, allowed, units, and whether it
held), the values the page's prose glues, and fails with one ``AssertionError`` naming every failed row.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

BOOK = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
_SOURCE_KEY = "__source__"


def source_hash(page: str) -> str:
    """The hash of the page's source (``book/<page>.md``) that recorded results carry."""
    return hashlib.sha256((BOOK / f"{page}.md").read_bytes()).hexdigest()[:16]


def record(page: str, results: dict) -> None:
    """Save ``results`` (a flat dict of numbers, strings and arrays) for the wrong-formula tests, when the page
    is executed by ``scripts/execute_notebook.py`` (``ATTNLIB_RECORD_RESULTS=1``); otherwise do nothing."""
    if os.environ.get("ATTNLIB_RECORD_RESULTS") != "1":
        return
    RESULTS.mkdir(exist_ok=True)
    arrays = {key: np.asarray(value) for key, value in results.items()}
    arrays[_SOURCE_KEY] = np.asarray(source_hash(page))
    np.savez_compressed(RESULTS / f"{page}.npz", **arrays)


def load(page: str) -> dict:
    """The results ``page`` recorded, as a dict (0-d arrays as Python scalars)."""
    path = RESULTS / f"{page}.npz"
    with np.load(path, allow_pickle=False) as data:
        out = {key: (data[key].item() if data[key].ndim == 0 else data[key]) for key in data.files}
    if out.pop(_SOURCE_KEY) != source_hash(page):
        raise ValueError(f"{path} was recorded from another version of book/{page}.md: re-execute it with "
                         f"scripts/execute_notebook.py book/{page}.md")
    return out


@dataclass
class Row:
    check: str
    measured: object
    allowed: object
    units: str
    held: bool = True


@dataclass
class Report:
    """The rows of a page's closing checks and the values its prose glues; :meth:`done` raises if any failed."""

    rows: list = field(default_factory=list)
    values: dict = field(default_factory=dict)

    def row(self, check: str, measured, allowed, units: str, held: bool = True) -> None:
        """One check: ``held`` says whether it passed (``measured`` against ``allowed``, in ``units``)."""
        self.rows.append(Row(check, measured, allowed, units, bool(held)))

    def require(self, held: bool, what: str) -> None:
        """A check with no row of its own in the table (a guard, a count)."""
        if not held:
            self.rows.append(Row(what, "failed", "holds", "", False))

    def glue(self, **values) -> None:
        self.values.update(values)

    @property
    def failed(self) -> list:
        return [r for r in self.rows if not r.held]

    def done(self) -> "Report":
        if self.failed:
            raise AssertionError("closing checks failed:\n" + "\n".join(
                f"  {r.check}: measured {r.measured}, allowed {r.allowed} {r.units}" for r in self.failed))
        return self

    def table_rows(self, digits: int = 2) -> list:
        """The rows as the verification table shows them: check, measured (to ``digits`` digits), allowed,
        units (the guards of :meth:`require` are not shown)."""
        from attnlib.views.tables import sig

        out = []
        for r in self.rows:
            m = r.measured
            if isinstance(m, float) and math.isfinite(m):
                m = sig(m, digits)
            out.append([r.check, m, r.allowed, r.units])
        return out
