"""Reading standards of the chapter sources, enforced so that new chapters keep to them.

* No visible code cell over 25 lines: a cell is visible unless its input is removed (``remove-input``,
  ``remove-cell``) or folded behind a toggle (``hide-input``, ``hide-cell``).
* No code line over 88 characters in any cell a reader can see, folded ones included (88 characters fit the
  text column at 1280 px; see ``_ext/style/book.css``).
* Figures are drawn to be read at their rendered size: no font size below 8 pt and no figure wider than a
  captioned figure's box (672 px at 1280 px, 6.6 in at the book's 100 dpi), so that the browser never
  shrinks their text.
* The text never points outside the book ("the notes", "the summary", earlier runs).
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((REPO / "book").glob("[0-9][0-9]_*.md"))
MAX_VISIBLE_LINES = 25
MAX_LINE = 88
MAX_FIGURE_WIDTH = 6.6  # inches at figure.dpi = 100: a captioned figure is at most 672 px wide at 1280 px
MIN_FONT = 8
REMOVED = {"remove-input", "remove-cell"}
FOLDED = {"hide-input", "hide-cell"}
OUTSIDE = re.compile(r"\b(the (project )?notes|the summary|outside the book|earlier runs?|test suite)\b",
                     re.IGNORECASE)


def code_cells(path: Path):
    for index, cell in enumerate(jupytext.read(path).cells):
        if cell.cell_type == "code":
            yield index, set(cell.metadata.get("tags", [])), cell.source


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_visible_cells_are_short(chapter):
    long = [(i, len(src.splitlines())) for i, tags, src in code_cells(chapter)
            if not tags & (REMOVED | FOLDED) and len(src.splitlines()) > MAX_VISIBLE_LINES]
    assert not long, f"{chapter.name}: visible code cells over {MAX_VISIBLE_LINES} lines (cell, lines): {long}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_code_lines_fit_the_column(chapter):
    wide = [(i, line) for i, tags, src in code_cells(chapter) if not tags & REMOVED
            for line in src.splitlines() if len(line) > MAX_LINE]
    assert not wide, f"{chapter.name}: code lines over {MAX_LINE} characters: {wide[:5]}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_figures_are_readable_at_their_size(chapter):
    text = "\n".join(src for _, _, src in code_cells(chapter))
    small = [m.group(0) for m in re.finditer(r"fontsize\s*=\s*([0-9.]+)", text) if float(m.group(1)) < MIN_FONT]
    named = [m.group(0) for m in re.finditer(r"fontsize\s*=\s*[\"'](xx?-small|small)[\"']", text)]
    wide = [m.group(0) for m in re.finditer(r"figsize\s*=\s*\(\s*([0-9.]+)", text)
            if float(m.group(1)) > MAX_FIGURE_WIDTH]
    assert not small + named, f"{chapter.name}: font sizes below {MIN_FONT} pt: {small + named}"
    assert not wide, f"{chapter.name}: figures wider than {MAX_FIGURE_WIDTH} in: {wide}"


@pytest.mark.parametrize("chapter", CHAPTERS + [REPO / "book" / "intro.md"], ids=lambda p: p.stem)
def test_text_stays_inside_the_book(chapter):
    found = [m.group(0) for m in OUTSIDE.finditer(chapter.read_text(encoding="utf-8"))]
    assert not found, f"{chapter.name} points outside the book: {found}"


def test_the_checker_catches_a_long_cell(tmp_path):
    source = "---\njupytext:\n  formats: ipynb,md:myst\n---\n\n```{code-cell} ipython3\n" + "x = 1\n" * 30 + "```\n"
    path = tmp_path / "01_x.md"
    path.write_text(source)
    with pytest.raises(AssertionError, match="over 25 lines"):
        test_visible_cells_are_short(path)
    path.write_text(source.replace("```{code-cell} ipython3\n", "```{code-cell} ipython3\n:tags: [hide-input]\n\n"))
    test_visible_cells_are_short(path)
