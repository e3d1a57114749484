"""The README's examples (``>>>`` lines) run and print what the README says they print, and its example is the
first cell of the page "Your own problem" (book/your_problem.md)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import jupytext

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGE = REPO / "book" / "your_problem.md"


def examples():
    return doctest.DocTestParser().get_examples(README.read_text(encoding="utf-8"))


def test_readme_has_examples():
    found = examples()
    assert len(found) >= 5
    sources = "".join(e.source for e in found)
    for name in ("positional.markov", "Setting(", "signal_thresholds()", ".signal()", "sample_overlap"):
        assert name in sources, name
    section = README.read_text(encoding="utf-8").split("## Use attnlib in your own code")[1].split("```pycon")[0]
    assert re.search(r"delta = d/V", section) and re.search(r"gamma = d/N", section), "ratios not stated up front"


def test_readme_doctests():
    result = doctest.testfile(str(README), module_relative=False, encoding="utf-8", verbose=False,
                              optionflags=doctest.ELLIPSIS, raise_on_error=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.failed + result.attempted} README examples failed"


def test_readme_example_is_the_pages_first_cell():
    first = next(c for c in jupytext.read(PAGE).cells if c.cell_type == "code")
    assert "".join(e.source for e in examples()).strip() == first.source.strip()
    assert not first.metadata.get("tags"), "the README's cell is shown on the page"
