"""Reading standards of the book's sources, enforced so that new pages keep to them.

Code (chapters 01-14 and the introduction, the pages that are notebooks):

* No visible code cell over 25 lines: a cell is visible unless its input is removed (``remove-input``,
  ``remove-cell``) or folded behind a toggle (``hide-input``, ``hide-cell``).
* No code line over 88 characters in any cell a reader can see, folded ones included (88 characters fit the
  text column at 1280 px; see ``_ext/style/book.css``).
* Figures are drawn to be read at their rendered size: no font size below 8 pt and no figure wider than a
  captioned figure's box (672 px at 1280 px, 6.6 in at the book's 100 dpi), so that the browser never
  shrinks their text.

Text (every page of book/):

* The text never points outside the book ("the notes", "the summary", earlier runs).
* The answer first: every chapter of Parts I and II (01-11) opens, right after its title and the italic line
  that names the paper's result, with an admonition of class ``answers``; the introduction's opening (before its first
  section) is at most 700 words.
* No title carries the paper's numbering ("Theorem 5", "Section 6"): it goes in the line under the title.
* Proofs are folded: every ``prf:proof`` has ``:class: dropdown``.
* Corrections to the paper are said once, on book/paper_notes.md: a box elsewhere that mentions one (the
  paper's rho, "the paper states", "departs from the paper"...) must link its note, and the old label
  ``sources`` is gone.
* One meaning per symbol: the notation page lists each symbol once (at least 20, each with a link to where it
  is defined), and the spellings the book retired (``RETIRED``, e.g. kappa_n for free cumulants, delta_x for a
  point mass, E_+ for an edge) appear in no source, reported with file and line; the second meanings a symbol
  of the notation page was once given are test cases of their own in tests/test_notation.py.
* Every entry of references.bib is cited somewhere in book/.
* The results page shows a formula on every line, and the verification appendix shows the ``verification``
  table of every notebook that glues one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.md"))
# the pages with code: chapters, derivation pages, the introduction, the primer and "Your own problem"
NOTEBOOKS = CHAPTERS + [BOOK / "intro.md", BOOK / "primer.md", BOOK / "your_problem.md"]
PAGES = sorted(BOOK.glob("*.md"))
OPEN_WITH_ANSWERS = [p for p in CHAPTERS if "01" <= p.name[:2] <= "11" or p.name[:2] == "15"]  # Parts I, II
MAX_VISIBLE_LINES = 25
MAX_LINE = 88
MAX_FIGURE_WIDTH = 6.6  # inches at figure.dpi = 100: a captioned figure is at most 672 px wide at 1280 px
MIN_FONT = 8
MAX_OPENING_WORDS = 700
REMOVED = {"remove-input", "remove-cell"}
FOLDED = {"hide-input", "hide-cell"}
OUTSIDE = re.compile(r"\b(the (project )?notes|the summary|outside the book|earlier runs?|test suite)\b",
                     re.IGNORECASE)
PAPER_NUMBERING = re.compile(r"\b(Theorems?|Sections?|Propositions?|Lemmas?|Corollary|Figure|Eq\.?)\s*\d",
                             re.IGNORECASE)

# Spellings of symbols the book retired so that each symbol has one meaning (see book/notation.md). Each is
# a regular expression; the comment says what replaced it.
RETIRED = {
    r"\\kappa_(?:n\b|[1-9]|\{[^}]*\})": r"free cumulants are \mathcal R_n; kappa is only ||w||^2 (kappa(w_n))",
    r"\\delta_(?:\{?\\lambda|\{?[0-9]|\{\\sigma|\{?ij\b|x\b)": r"point mass / Kronecker: \mathbf 1_{\{x\}}, \mathbf 1\{i=j\}",
    r"\\delta\s?C\b|\\delta c_": "a perturbation is written as a difference (C - C^\\infty)",
    r"(?:\\mathrm\{MP\}|MP)_c\b|\bc\s*=\s*\\gamma/\\delta|\bc\s*=\s*V/N": r"the ratio V/N is \eta",
    r"(?<!\\mathcal )(?<!\\mathcal)\bE_(?:\+|-|\\pm|\{[+-]\})": r"bulk edges are \mathcal E_\pm (E is the vocabulary)",
    r"\\ell_\{?\\rm pop|\\ell_\{?\\mathrm\{pop": r"the population outlier is \lambda_{\rm pop}",
    r"\\ell_-": r"the lower-edge Tracy-Widom scale is \ell_{d,-}",
    r"\\beta_4|\\beta_\{4\}": r"kurtosis of the pooled sign: \operatorname{kurt}(w^\top\xi)",
    r"\\rho_d|\\hat\\rho": r"the tilt is \mathrm{tilt}_d(\tau)",
    r"O_P\(": r"O_{\mathbb P}(",
    r"\bx_\*|\bx_\{\*\}|x\^\\star|x\^\{\\star\}": r"the sample-threshold root is x^*",
    r"\\theta_s\b": r"the sample threshold is \theta_{\rm smp}",
    r"\\mathbb\s?\{?1\b": r"\mathbf 1 (MathJax has no blackboard 1)",
    r"\bG\(L,\s*T\)": r"the prefix gain is \mathrm{gain}(L, T)",
    r"\bz_\\gamma|\bz_0\(": r"the spectral argument is \zeta (z is the noise)",
    r"\\psi\(\\ell": r"the Bai-Silverstein map is \Psi",
    r"(?<![A-Za-z\\])(?<!\\mathfrak )r\(\\theta": r"the edge-overlap ratio is \mathfrak r(\theta)",
    r"\\lambda_\{?\\mathrm\{?p\}?(?![a-z])": r"the population outlier is \lambda_{\rm pop}",
    r"\bW_Q\b|\bW_K\b": r"query/key maps are U_Q, U_K (W is ZZ^T/V)",
    r"\bH_\\lambda|F_\{\\delta,\s*\\lambda\}": r"the one-token law is \nu_\eta",
    r"\\lambda_\\text\{rel\}|\\lambda_\{\\rm rel\}": r"the ridge penalty is p (lambda is an eigenvalue)",
    r"\bq_\{0\.95\}|\bq_p\b": r"the TW1 quantile is \mathrm{TW}_1^{-1}(p) (q is Zs/V)",
    r"\bS_\\mu|S_\{\\mathrm\{MP|\bS_H\b": r"the S-transform is \mathcal S",
    r"\{ref\}`sources`": "the old sources box is gone: link the right note of book/paper_notes.md",
}
RETIRED_RE = {re.compile(p): why for p, why in RETIRED.items()}
ADMONITIONS = ("admonition", "note", "important", "warning", "tip", "attention", "caution", "danger", "hint",
               "seealso")
CORRECTION = re.compile(r"\\rho\b|ρ|the paper states|the paper's statement|(departs|differs) from the paper|"
                        r"not the paper's", re.IGNORECASE)


def read_page(path: Path):
    return jupytext.read(path, fmt="md:myst")


def code_cells(path: Path):
    for index, cell in enumerate(read_page(path).cells):
        if cell.cell_type == "code":
            yield index, set(cell.metadata.get("tags", [])), cell.source


def _name(p: Path) -> str:
    return p.stem


# ----------------------------------------------------------------------------- code


@pytest.mark.parametrize("page", NOTEBOOKS, ids=_name)
def test_visible_cells_are_short(page):
    long = [(i, len(src.splitlines())) for i, tags, src in code_cells(page)
            if not tags & (REMOVED | FOLDED) and len(src.splitlines()) > MAX_VISIBLE_LINES]
    assert not long, f"{page.name}: visible code cells over {MAX_VISIBLE_LINES} lines (cell, lines): {long}"


@pytest.mark.parametrize("page", NOTEBOOKS, ids=_name)
def test_code_lines_fit_the_column(page):
    wide = [(i, line) for i, tags, src in code_cells(page) if not tags & REMOVED
            for line in src.splitlines() if len(line) > MAX_LINE]
    assert not wide, f"{page.name}: code lines over {MAX_LINE} characters: {wide[:5]}"


@pytest.mark.parametrize("page", NOTEBOOKS, ids=_name)
def test_figures_are_readable_at_their_size(page):
    text = "\n".join(src for _, _, src in code_cells(page))
    small = [m.group(0) for m in re.finditer(r"fontsize\s*=\s*([0-9.]+)", text) if float(m.group(1)) < MIN_FONT]
    named = [m.group(0) for m in re.finditer(r"fontsize\s*=\s*[\"'](xx?-small|small)[\"']", text)]
    wide = [m.group(0) for m in re.finditer(r"figsize\s*=\s*\(\s*([0-9.]+)", text)
            if float(m.group(1)) > MAX_FIGURE_WIDTH]
    assert not small + named, f"{page.name}: font sizes below {MIN_FONT} pt: {small + named}"
    assert not wide, f"{page.name}: figures wider than {MAX_FIGURE_WIDTH} in: {wide}"


# ----------------------------------------------------------------------------- text


def markdown_of(page: Path) -> str:
    """The text a reader reads: the markdown cells of a notebook page, or the whole of a plain page."""
    if page in NOTEBOOKS:
        return "\n\n".join(c.source for c in read_page(page).cells if c.cell_type == "markdown")
    return page.read_text(encoding="utf-8")


def title_of(page: Path) -> str:
    match = re.search(r"^# (.+)$", markdown_of(page), flags=re.MULTILINE)
    assert match, f"{page.name}: no title"
    return match.group(1)


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_text_stays_inside_the_book(page):
    found = [m.group(0) for m in OUTSIDE.finditer(page.read_text(encoding="utf-8"))]
    assert not found, f"{page.name} points outside the book: {found}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_titles_carry_no_paper_numbering(page):
    title = title_of(page)
    assert not PAPER_NUMBERING.search(title), (
        f"{page.name}: the title {title!r} carries a number of the paper; put it in the italic line under the title")


def opening_after_title(page: Path) -> tuple[str, str]:
    """(the italic line under the title, the first block after it) of a chapter, skipping removed cells."""
    blocks, seen_title = [], False
    for cell in read_page(page).cells:
        if cell.cell_type == "code":
            if seen_title and not set(cell.metadata.get("tags", [])) & {"remove-cell"}:
                blocks.append("<code cell>")
            continue
        text = cell.source
        if not seen_title:
            match = re.search(r"^# .+$", text, flags=re.MULTILINE)
            if not match:
                continue
            seen_title, text = True, text[match.end():]
        blocks += [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
        if len(blocks) >= 2:
            break
    italic = blocks[0] if blocks and re.fullmatch(r"\*[^*].*\*", blocks[0], flags=re.S) else ""
    rest = blocks[1:] if italic else blocks
    return italic, (rest[0] if rest else "")


def is_answers_box(block: str) -> bool:
    return bool(re.match(r"(:{3,}|`{3,})\{admonition\}", block)) and bool(
        re.search(r"^:class:.*\banswers\b", block, flags=re.MULTILINE))


@pytest.mark.parametrize("page", OPEN_WITH_ANSWERS, ids=_name)
def test_chapter_opens_with_its_answers(page):
    italic, first = opening_after_title(page)
    assert is_answers_box(first), (
        f"{page.name}: the first block after the title and the italic paper line must be an admonition of "
        f"class answers; found {first[:120]!r}")


def test_the_introduction_opens_in_at_most_700_words():
    cells = read_page(BOOK / "intro.md").cells
    words = 0
    for cell in cells:
        text = cell.source
        if cell.cell_type == "markdown":
            if re.search(r"^## ", text, flags=re.MULTILINE):
                words += len(re.split(r"^## ", text, flags=re.MULTILINE)[0].split())
                break
            words += len(text.split())
        else:  # figure captions are read as part of the opening
            caption = cell.metadata.get("mystnb", {}).get("figure", {}).get("caption", "")
            words += len(caption.split())
    assert words <= MAX_OPENING_WORDS, f"the introduction's opening has {words} words (at most {MAX_OPENING_WORDS})"


def test_the_checker_finds_an_answers_box(tmp_path):
    head = "---\njupytext:\n  formats: ipynb,md:myst\n---\n\n(ch-x)=\n# The x\n\n*In the paper: Theorem 1.*\n\n"
    good = head + ":::{admonition} The answers\n:class: answers\n\nIt holds.\n:::\n\nMore.\n"
    path = tmp_path / "01_x.md"
    path.write_text(good)
    test_chapter_opens_with_its_answers(path)
    path.write_text(head + "Some text first.\n\n" + good[len(head):])
    with pytest.raises(AssertionError, match="class answers"):
        test_chapter_opens_with_its_answers(path)


def directive_blocks(text: str, names: tuple[str, ...]):
    """(line number, name, options and body) of every directive among ``names``, in ``` or ::: fences."""
    pattern = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}.*$", flags=re.MULTILINE)
    for match in pattern.finditer(text):
        if match.group("name") not in names:
            continue
        fence = match.group("fence")
        end = re.compile("^" + re.escape(fence) + r"\s*$", flags=re.MULTILINE).search(text, match.end())
        body = text[match.end(): end.start() if end else len(text)]
        yield text.count("\n", 0, match.start()) + 1, match.group("name"), body


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_proof_is_folded(page):
    text = page.read_text(encoding="utf-8")
    open_proofs = [line for line, _, body in directive_blocks(text, ("prf:proof",))
                   if not re.search(r"^:class:.*\bdropdown\b", body.split("\n\n")[0], flags=re.MULTILINE)]
    assert not open_proofs, f"{page.name}: proofs shown open (add `:class: dropdown`) at lines {open_proofs}"


@pytest.mark.parametrize("page", [p for p in PAGES if p.name != "paper_notes.md"], ids=_name)
def test_corrections_are_said_once(page):
    text = page.read_text(encoding="utf-8")
    boxes = [(line, CORRECTION.search(body).group(0)) for line, _, body in directive_blocks(text, ADMONITIONS)
             if CORRECTION.search(body) and "{ref}`note-" not in body]
    assert not boxes, (f"{page.name}: a box restates a correction to the paper without linking its note (say it "
                       f"in one line and link book/paper_notes.md), at (line, word): {boxes}")


def test_paper_notes_hold_every_correction():
    text = (BOOK / "paper_notes.md").read_text(encoding="utf-8")
    for label in ("paper-notes", "note-theta", "note-uncentred", "note-causal-self", "note-teff", "note-softmax"):
        assert f"({label})=" in text, f"paper_notes.md: label {label} missing"
    for section in re.split(r"^\(note-", text, flags=re.MULTILINE)[1:]:
        assert re.search(r"\{ref\}`ch-", section), f"paper_notes.md: note-{section[:20]} links no chapter"


# ----------------------------------------------------------------------------- notation


def notation_rows() -> list[tuple[int, str, str, str]]:
    """(line, symbol, meaning, where) of every row of the tables of book/notation.md."""
    rows = []
    for number, line in enumerate((BOOK / "notation.md").read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        assert len(cells) == 3, f"book/notation.md:{number}: a row of {len(cells)} cells, not 3: {line[:80]}"
        if cells[0] != "symbol" and not set(cells[0]) <= set("-: "):
            rows.append((number, *cells))
    return rows


def test_notation_lists_each_symbol_once():
    rows = notation_rows()
    assert len(rows) >= 20, f"the notation page lists {len(rows)} symbols, fewer than 20"
    seen: dict[str, int] = {}
    twice = []
    for line, symbol, _, _ in rows:
        key = re.sub(r"\s+", "", symbol)
        if key in seen:
            twice.append(f"{symbol} (lines {seen[key]} and {line})")
        seen[key] = line
    assert not twice, f"book/notation.md lists symbols twice: {twice}"
    unlinked = [f"{symbol} (line {line})" for line, symbol, _, where in rows
                if not re.search(r"\{(ref|eq|prf:ref|numref)\}`", where)]
    assert not unlinked, f"book/notation.md: symbols without a link to their definition: {unlinked}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_retired_spellings_appear_nowhere(page):
    found = []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        for pattern, why in RETIRED_RE.items():
            match = pattern.search(line)
            if match:
                found.append(f"book/{page.name}:{number}: {match.group(0)!r} ({why})")
    assert not found, "retired spellings (one meaning per symbol, see book/notation.md):\n" + "\n".join(found)


def test_the_retired_list_catches_what_it_should():
    caught = [r"\kappa_n(S/\kappa)", r"\delta_{\lambda_i}", r"\mathrm{MP}_c", r"E_+", r"\beta_4", r"x_*",
              r"\mathbb 1\{t=s\}", r"{ref}`sources`", r"\ell_-"]
    kept = [r"\mathcal E_+", r"\kappa(w_n)", r"\mathbf 1_{\{x\}}", r"\mathrm{MP}_\eta", r"x^*", r"\ell_d",
            r"\theta_{\rm smp}", r"\lambda_{\rm pop}", r"\delta + \sqrt\delta", r"O_{\mathbb P}(1)"]
    for text in caught:
        assert any(p.search(text) for p in RETIRED_RE), f"not caught: {text}"
    for text in kept:
        assert not any(p.search(text) for p in RETIRED_RE), f"wrongly caught: {text}"




# ----------------------------------------------------------------------------- references, results, checks


def test_every_bibliography_entry_is_cited():
    keys = re.findall(r"^@\w+\{([^,\s]+),", (REPO / "references.bib").read_text(encoding="utf-8"),
                      flags=re.MULTILINE)
    cited = set()
    for page in PAGES:
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", page.read_text(encoding="utf-8")):
            cited |= {k.strip() for k in group.split(",")}
    uncited = sorted(set(keys) - cited)
    assert not uncited, f"references.bib entries cited nowhere in book/ (cite them where they belong or drop them): {uncited}"


def test_results_show_their_formulas():
    rows = [line for line in (BOOK / "results.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| result")]
    assert len(rows) >= 15, f"results.md has {len(rows)} results"
    bare = [r[:60] for r in rows if r.count("|") < 4 or "$" not in r.split("|")[2] and "`" not in r.split("|")[2]]
    assert not bare, f"results.md: lines without a visible formula: {bare}"
    unlinked = [r[:60] for r in rows if "{ref}`" not in r.split("|")[3]]
    assert not unlinked, f"results.md: lines without a link to their chapter: {unlinked}"


def glued_keys(ipynb: Path) -> set[str]:
    keys = set()
    for cell in json.loads(ipynb.read_text(encoding="utf-8"))["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                keys.add(name)
    return keys


def test_verification_shows_every_table():
    text = (BOOK / "verification.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"\{glue:\}`([\w.]+\.ipynb)::verification`", text))
    having = {p.name for p in BOOK.glob("*.ipynb") if "verification" in glued_keys(p)}
    assert not having - shown, f"verification.md does not show the checks of {sorted(having - shown)}"
    assert not shown - having, f"verification.md shows tables that do not exist: {sorted(shown - having)}"


def test_the_checker_catches_a_long_cell(tmp_path):
    source = "---\njupytext:\n  formats: ipynb,md:myst\n---\n\n```{code-cell} ipython3\n" + "x = 1\n" * 30 + "```\n"
    path = tmp_path / "01_x.md"
    path.write_text(source)
    with pytest.raises(AssertionError, match="over 25 lines"):
        test_visible_cells_are_short(path)
    path.write_text(source.replace("```{code-cell} ipython3\n", "```{code-cell} ipython3\n:tags: [hide-input]\n\n"))
    test_visible_cells_are_short(path)


def test_the_checker_catches_a_repeated_correction(tmp_path):
    path = tmp_path / "03_x.md"
    box = ":::{{important}}\nThe paper states the threshold with $\\rho$; here it is $\\theta$.{link}\n:::\n"
    path.write_text("# The x\n\n" + box.format(link=""))
    with pytest.raises(AssertionError, match="restates a correction"):
        test_corrections_are_said_once(path)
    path.write_text("# The x\n\n" + box.format(link=" See {ref}`note-theta`."))
    test_corrections_are_said_once(path)
