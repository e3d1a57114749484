"""The code base stays small and named: no source file over 400 lines (modules split by concept instead)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LIMIT = 400
SOURCES = sorted(p for folder in ("attnlib", "scripts", "bench", "_ext", "tests")
                 for pattern in ("*.py", "*.js", "*.css") for p in (REPO / folder).rglob(pattern))


def test_sources_are_found():
    assert any(p.name == "setting.py" for p in SOURCES) and any(p.suffix == ".js" for p in SOURCES)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_source_file_over_400_lines(path):
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= LIMIT, f"{path.relative_to(REPO)} has {lines} lines (at most {LIMIT}: split it by concept)"


def test_python_sources_hold_no_tab():
    """A tab in a Python source is nearly always ``\\t`` written into a docstring's LaTeX (``\\top`` in a
    string that is not raw), which the API page then renders as a gap."""
    tabbed = [str(p.relative_to(REPO)) for p in SOURCES if p.suffix == ".py" and "\t" in p.read_text("utf-8")]
    assert not tabbed, f"tab characters in {tabbed}"
