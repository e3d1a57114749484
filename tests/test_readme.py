"""The README's examples (``>>>`` lines) run and print what the README says they print."""

from __future__ import annotations

import doctest
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_has_examples():
    examples = doctest.DocTestParser().get_examples(README.read_text(encoding="utf-8"))
    assert len(examples) >= 5
    sources = "".join(e.source for e in examples)
    for name in ("theory.bulk_edges", "theory.thresholds", "theory.signal", "sample_overlap"):
        assert name in sources


def test_readme_doctests():
    result = doctest.testfile(str(README), module_relative=False, encoding="utf-8", verbose=False,
                              optionflags=doctest.ELLIPSIS, raise_on_error=False, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} README examples failed (output above)"
