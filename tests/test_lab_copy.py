"""scripts/lab_copy.py: the ``make lab`` copy shows the prose as the HTML book does (small synthetic books).

Each test pins one rule of the transformation (glue, numbering, citations, references, folding, pairing) to
the text the HTML book shows for it, so that a rule that is dropped or changed fails here. The last tests run
the script on the real book/ and check that no MyST jupyterlab-myst cannot render is left in the copy.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
import lab_copy  # noqa: E402

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
TOC = {"format": "jb-book", "root": "book/intro", "parts": [
    {"caption": "Start", "numbered": False, "chapters": [{"file": "book/notes"}]},
    {"caption": "Main", "numbered": True, "chapters": [{"file": "book/01_a"}, {"file": "book/02_b"}]}]}
BIB = """@article{seddik2026attention,
  author = {Seddik, Mohamed El Amine},
  title  = {How Does Attention Help?},
  year   = {2026},
}

@book{bai2010spectral,
  author = {Bai, Zhidong and Silverstein, Jack W.},
  title  = {Spectral Analysis of {Large} Random Matrices},
  year   = 2010,
}

@article{voiculescu1992free,
  author = {Voiculescu, Dan and Dykema, Ken and Nica, Alexandru},
  title  = {Free Random Variables},
  year   = {1992},
}
"""


THEOREMS = ("````{prf:theorem} The law\n:label: thm-b\n\nBody $x$.\n````\n\n"
            "````{prf:definition} A word\n:label: def-b\nDef.\n````\n\n"
            "````{prf:theorem} Second\n:label: thm-b2\nMore.\n````\n\n"
            "````{prf:proof}\n:class: dropdown\nBecause.\n````\n")
EXERCISE = ("````{exercise} Try it\n:label: ex-b\nDo.\n````\n\n"
            "````{solution-start} ex-b\n:class: dropdown\n````\nAnswer.\n````{solution-end}\n````")
EQUATIONS = "$$\na\n$$ (eq-b1)\n\n$$ b $$\n\n  $$\n  c\n  $$ (eq-b2)\n\nBy {eq}`eq-b2`."


def glue_output(key, **data):
    prefix = "application/papermill.record/"
    return nbformat.v4.new_output("display_data", data={prefix + k: v for k, v in data.items()},
                                  metadata={"scrapbook": {"name": key, "mime_prefix": prefix}})


def write_pair(book: Path, name: str, cells):
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "jupytext": {"formats": "ipynb,md:myst"},
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"
    nbformat.write(nb, book / f"{name}.ipynb")
    jupytext.write(nb, book / f"{name}.md", fmt="md:myst")


def code(source="pass", outputs=(), **metadata):
    cell = nbformat.v4.new_code_cell(source, metadata=metadata)
    cell.outputs = list(outputs)
    return cell


md = nbformat.v4.new_markdown_cell


@pytest.fixture()
def book(tmp_path):
    root = tmp_path / "repo"
    (root / "book").mkdir(parents=True)
    (root / "_toc.yml").write_text(yaml.safe_dump(TOC))
    (root / "references.bib").write_text(BIB)
    write_pair(root / "book", "01_a", [
        md("(ch-a)=\n# Chapter A\n\n````{prf:definition} The model\n:label: def-model\n\nText.\n````"),
        code(outputs=[glue_output("shared", **{"text/plain": "0.5"})]),
    ])
    write_pair(root / "book", "02_b", [
        md("(ch-b)=\n# Chapter B\n\n(sec-b)=\n## A section on $x$\n\nProse."),
        code(outputs=[glue_output("pi", **{"text/plain": "3.14159"}),
                      glue_output("name", **{"text/plain": "'ten'"}),
                      glue_output("table", **{"text/markdown": "| a |\n|---|\n| 1 |",
                                              "text/plain": "<IPython.core.display.Markdown object>"}),
                      glue_output("plot", **{"image/png": PNG, "text/plain": "<Figure>"})]),
        md(THEOREMS), md(EXERCISE), md(EQUATIONS),
        code("plot()", mystnb={"figure": {"name": "fig-b", "caption": "A plot, see {eq}`eq-b2`."}}),
    ])
    (root / "book" / "notes.md").write_text("# Notes\n\n(note-x)=\n## Note X\n\nSee {prf:ref}`def-model`.\n")
    return root / "book"


def page(book, doc="02_b"):
    index = lab_copy.Book(book, yaml.safe_load((book.parent / "_toc.yml").read_text()),
                          (book.parent / "references.bib").read_text())
    return lab_copy.Page(index, doc, book.parent / "copy")


def test_chapter_numbers_count_numbered_parts_only():
    assert lab_copy.chapter_numbers(TOC) == {"01_a": "1", "02_b": "2"}


def test_glue_text_value_and_format_spec(book):
    p = page(book)
    assert p.transform("a {glue:text}`pi` b") == "a 3.14159 b"
    assert p.transform("{glue:text}`pi:.2f`") == "3.14"
    assert p.transform("{glue:text}`name`") == "ten"  # a glued str shows without its quotes
    assert p.transform("{glue:text}`01_a.ipynb::shared:s`") == "0.5"


def test_glue_markdown_and_image(book):
    p = page(book)
    assert p.transform("{glue:}`table`") == "| a |\n|---|\n| 1 |"
    (book.parent / "copy").mkdir()
    assert p.transform("{glue}`plot`") == "![plot](_glue/02_b-plot.png)"
    assert (book.parent / "copy" / "_glue" / "02_b-plot.png").read_bytes() == base64.b64decode(PNG)
    assert p.transform("```{glue:text} pi:.1f\n```") == "3.1"


def test_unknown_glue_label_and_citation_are_refused(book):
    p = page(book)
    with pytest.raises(ValueError, match="glue key"):
        p.transform("{glue:text}`nope`")
    with pytest.raises(ValueError, match="label='nope'"):
        p.transform("{ref}`nope`")
    with pytest.raises(ValueError, match="key='nope'"):
        p.transform("{cite:p}`nope`")


def test_proof_blocks_become_numbered_admonitions(book):
    out = page(book).transform(THEOREMS)
    assert "```{admonition} Theorem 2.1 (The law)\n:class: important\n\nBody $x$.\n```" in out
    assert "```{admonition} Definition 2.1 (A word)\n:class: note" in out  # numbered per kind
    assert "```{admonition} Theorem 2.2 (Second)" in out
    assert "```{admonition} Proof\n:class: note dropdown\n\nBecause.\n```" in out
    assert "prf:" not in out and "````" not in out


def test_nested_blocks_get_longer_fences(book):
    out = page(book).transform(":::{admonition} Outer\n````{prf:remark} Inner\nx\n```python\ny\n```\n````\n:::")
    assert out.startswith("`````{admonition} Outer\n") and out.endswith("\n`````")
    assert "````{admonition} Remark 2.1 (Inner)\n:class: note\n\nx\n```python\ny\n```\n````" in out
    assert ":::" not in out  # jupytext reads a page with a line starting ":::" as Pandoc Markdown


def test_exercise_and_solution(book):
    out = page(book).transform(EXERCISE)
    assert "```{admonition} Exercise 2.1 (Try it)" in out
    assert "**Solution to Exercise 2.1 (Try it)**\nAnswer." in out and "solution" not in out


def test_citations_author_year(book):
    p = page(book)
    assert p.transform("{cite:p}`seddik2026attention`") == r"\[Seddik, 2026\]"
    assert p.transform("{cite:t}`bai2010spectral`") == r"Bai and Silverstein \[2010\]"
    assert p.transform("{cite:p}`voiculescu1992free,bai2010spectral`") == \
        r"\[Bai and Silverstein, 2010, Voiculescu *et al.*, 1992\]"


def test_references_show_the_html_text(book):
    p = page(book)
    assert p.transform("{ref}`sec-b`") == "A section on $x$"  # same page: text only
    assert p.transform("{ref}`ch-a`") == "[Chapter A](01_a.ipynb)"  # another chapter: a link
    assert p.transform("{ref}`a note <note-x>`") == "[a note](notes.md)"
    assert p.transform("{prf:ref}`def-model`") == "[Definition 1.1](01_a.ipynb)"
    assert p.transform("{numref}`fig-b`") == "Fig. 2.1"
    assert p.transform("{numref}`Figure %s <fig-b>`") == "Figure 2.1"
    assert p.transform("{doc}`notes`") == "[Notes](notes.md)"


def test_labelled_equations_carry_the_book_number(book):
    out = page(book).transform(EQUATIONS)
    assert "a\n\\tag{2.1} $$" in out and "$$ b $$" in out and "  \\tag{2.2} $$" in out
    assert out.endswith("By (2.2).")


def test_other_roles(book):
    p = page(book)
    assert p.transform("{sub}`2` and {math}`x^2`") == "{sub}`2` and {math}`x^2`"  # jupyterlab-myst's own
    assert p.transform("one {pdf-edition}`PDF file`") == "one PDF file"  # a book extension's: its text


def test_code_is_left_alone(book):
    text = "```python\nx = '{glue:text}`pi`'\n```\nand `{cite:p}` in a code span {glue:text}`pi`"
    out = page(book).transform(text)
    assert out.startswith("```python\nx = '{glue:text}`pi`'\n```")
    assert out.endswith("3.14159")


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()


def test_copy_is_paired_and_book_untouched(book, tmp_path):
    before = digest(book)
    dest = lab_copy.make_copy(tmp_path / "lab", book)
    assert digest(book) == before
    nb = nbformat.read(dest / "02_b.ipynb", as_version=4)
    text = jupytext.read(dest / "02_b.md")
    assert [c.source for c in text.cells] == [c.source for c in nb.cells]
    assert nb.cells[0].source.startswith(lab_copy.FRONTMATTER)  # no auto-numbered equations
    assert nb.cells[-1].source == "**Fig. 2.1.** A plot, see (2.2)."  # the caption, after its figure
    assert "Definition 1.1" in (dest / "notes.md").read_text()
    assert lab_copy.make_copy(dest, book) == dest  # an earlier copy is replaced
    with pytest.raises(ValueError, match="outside book"):
        lab_copy.make_copy(book / "lab", book)
    for folder in (book, book.parent, tmp_path):  # a folder holding anything else is never replaced
        with pytest.raises(ValueError, match="earlier copy"):
            lab_copy.make_copy(folder, book)
    assert digest(book) == before


def test_a_broken_reference_names_its_page(book, tmp_path):
    (book / "notes.md").write_text("# Notes\n\nSee {ref}`missing`.\n")
    with pytest.raises(ValueError, match=r"book/notes.md: label='missing'"):
        lab_copy.make_copy(tmp_path / "lab", book)


# What jupyterlab-myst cannot render (or renders with its own numbers): no such role or directive may be left.
RAW = re.compile(r"\{(glue[^}]*|cite[^}]*|ref|numref|eq|doc|prf:[a-z]+|exercise|solution-\w+)\}`"
                 r"|^[ \t]*(`{3,}|:{3,})\{(glue[^}]*|prf:[a-z]+|exercise|solution-\w+|eval-rst|bibliography)\}"
                 r"|\$\$[ \t]*\([^)]+\)[ \t]*$", re.M)


@pytest.fixture(scope="module")
def real_copy(tmp_path_factory):
    return lab_copy.make_copy(tmp_path_factory.mktemp("lab") / "book")


def test_real_book_copy_has_no_raw_myst(real_copy):
    raw = {}
    for path in sorted(real_copy.glob("*.md")):
        cells = jupytext.read(path).cells if path.with_suffix(".ipynb").exists() else [
            nbformat.v4.new_markdown_cell(path.read_text(encoding="utf-8"))]
        found = RAW.findall("\n".join(c.source for c in cells if c.cell_type == "markdown"))
        if found:
            raw[path.name] = found[:3]
    assert raw == {}
    assert RAW.search((REPO / "book" / "02_bulk_law.md").read_text(encoding="utf-8"))  # the check can fail


def test_real_book_copy_pairs(real_copy):
    for ipynb in sorted(real_copy.glob("*.ipynb")):
        nb = nbformat.read(ipynb, as_version=4)
        text = jupytext.read(ipynb.with_suffix(".md"))
        assert [c.source for c in text.cells] == [c.source for c in nb.cells], ipynb.name
        assert ipynb.with_suffix(".md").stat().st_mtime >= ipynb.stat().st_mtime
