"""Every chapter is a jupytext pair book/NN_name.md <-> book/NN_name.ipynb, and the .ipynb is a
clean, complete, top-to-bottom execution of the .md (as written by scripts/execute_notebook.py).

The checks are plain functions of file paths, so they can be (and are, below) fed deliberately
broken pairs.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


# ----------------------------------------------------------------------------- helpers


def front_matter(md_path: Path) -> dict:
    """The YAML front matter of a markdown file ({} if none)."""
    text = Path(md_path).read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---", 4)
    if end == -1:
        return {}
    data = yaml.safe_load(text[4:end])
    return data if isinstance(data, dict) else {}


def is_jupytext_notebook(md_path: Path) -> bool:
    fm = front_matter(md_path)
    return "jupytext" in fm or "kernelspec" in fm


def _cells(nb) -> list[tuple[str, str, tuple[str, ...]]]:
    return [
        (c.cell_type, c.source.rstrip("\n"), tuple(c.get("metadata", {}).get("tags", [])))
        for c in nb.cells
    ]


def pairing_problems(md_path: Path, ipynb_path: Path) -> list[str]:
    """Differences between a MyST .md notebook and its .ipynb twin (empty list: they match).

    Compares, cell by cell, the cell type, the source (trailing newlines stripped on both sides)
    and the tags (nbval reads its tags from the .ipynb, authors edit them in the .md).
    """
    md_path, ipynb_path = Path(md_path), Path(ipynb_path)
    problems = []
    if not md_path.exists():
        return [f"{md_path.name} is missing"]
    if not ipynb_path.exists():
        return [f"{ipynb_path.name} is missing (run `make execute`)"]
    md_cells = _cells(jupytext.read(md_path))
    nb_cells = _cells(nbformat.read(ipynb_path, as_version=4))
    if len(md_cells) != len(nb_cells):
        problems.append(f"{md_path.name} has {len(md_cells)} cells, {ipynb_path.name} has {len(nb_cells)}")
    for i, (a, b) in enumerate(zip(md_cells, nb_cells)):
        if a[0] != b[0]:
            problems.append(f"cell {i}: type {a[0]} in .md but {b[0]} in .ipynb")
        if a[1] != b[1]:
            problems.append(f"cell {i}: source differs\n--- .md\n{a[1]}\n--- .ipynb\n{b[1]}")
        if a[2] != b[2]:
            problems.append(f"cell {i}: tags {list(a[2])} in .md but {list(b[2])} in .ipynb")
    return problems


def execution_problems(ipynb_path: Path) -> list[str]:
    """Problems with the stored execution of an .ipynb (empty list: it is clean).

    Code cells must have been executed in one run, top to bottom: execution counts 1..n in order
    (a code cell with an empty source is not executed by nbclient and may keep a null count).
    No widget state, no widget-view outputs, no error outputs.
    """
    nb = nbformat.read(Path(ipynb_path), as_version=4)
    problems = []
    if "widgets" in nb.metadata:
        problems.append("notebook metadata contains widget state ('widgets')")
    expected = 1
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        count = cell.get("execution_count")
        if count is None:
            if cell.source.strip():
                problems.append(f"cell {i}: code cell was not executed (execution_count is null)")
        elif count != expected:
            problems.append(f"cell {i}: execution_count {count}, expected {expected} (not one clean run)")
            expected = count + 1
        else:
            expected += 1
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"cell {i}: error output {out.get('ename')}: {out.get('evalue')}")
            if WIDGET_MIME in out.get("data", {}):
                problems.append(f"cell {i}: widget-view output stored")
    return problems


def semicolon_problems(md_path: Path) -> list[str]:
    """Code cells whose last statement ends with ';'.

    nbval executes cells with store_history=False, and then IPython does not hide the value of a
    cell ending with ';' (it did when the notebook was executed), so strict nbval fails.
    """
    from IPython.core.displayhook import DisplayHook

    problems = []
    for i, cell in enumerate(jupytext.read(Path(md_path)).cells):
        if cell.cell_type == "code" and cell.source.strip():
            try:
                ends_with_semicolon = DisplayHook.semicolon_at_end_of_expression(cell.source)
            except Exception:  # untokenizable (cell magics...): not checked
                continue
            if ends_with_semicolon:
                problems.append(
                    f"cell {i}: ends with ';' - under nbval the value is shown anyway; "
                    "use plt.show() or `_ = ...`"
                )
    return problems


RESTORE = """

To restore the committed chapter (for example after saving it from JupyterLab, which stores widget outputs
and partial runs in the .ipynb):
    git checkout -- {md} {ipynb}
or, to keep your edits of the .md and regenerate its executed twin from a clean run:
    .venv/bin/python scripts/execute_notebook.py {md}
(`make lab` works on a scratch copy in _build/lab/ and never touches these files; `make lab-edit` edits them.)"""


def chapter_mds() -> list[Path]:
    return sorted(p for p in BOOK.glob("*.md") if is_jupytext_notebook(p))


def chapter_ipynbs() -> list[Path]:
    return sorted(BOOK.glob("*.ipynb"))


# ----------------------------------------------------------------------------- the book


@pytest.mark.parametrize("md", chapter_mds(), ids=lambda p: p.name)
def test_md_has_matching_executed_twin(md):
    ipynb = md.with_suffix(".ipynb")
    problems = pairing_problems(md, ipynb) + semicolon_problems(md)
    if ipynb.exists():
        problems += execution_problems(ipynb)
    assert not problems, "\n".join(problems) + RESTORE.format(md=md.relative_to(REPO),
                                                               ipynb=ipynb.relative_to(REPO))


@pytest.mark.parametrize("ipynb", chapter_ipynbs(), ids=lambda p: p.name)
def test_ipynb_has_md_twin(ipynb):
    md = ipynb.with_suffix(".md")
    assert md.exists(), f"{ipynb.name} has no {md.name} twin"
    assert is_jupytext_notebook(md), f"{md.name} is not a jupytext notebook (no front matter)"
    fm = front_matter(md)
    assert fm.get("kernelspec", {}).get("name") == "python3", f"{md.name}: kernelspec must be python3"
    nb = nbformat.read(ipynb, as_version=4)
    assert nb.metadata.get("jupytext", {}).get("formats") == "ipynb,md:myst", (
        f"{ipynb.name}: jupytext pairing metadata must be 'ipynb,md:myst'"
    )


# ----------------------------------------------------------------------------- the checkers


MD_TEMPLATE = """\
---
jupytext:
  formats: ipynb,md:myst
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3 (ipykernel)
  language: python
  name: python3
---

# Title

```{{code-cell}} ipython3
x = {value}
print(x)
```
"""


def _write_pair(tmp_path: Path, md_value: int, ipynb_value: int, executed: bool = True):
    md = tmp_path / "01_demo.md"
    md.write_text(MD_TEMPLATE.format(value=md_value), encoding="utf-8")
    nb = jupytext.read(tmp_path / "01_demo.md")
    if ipynb_value != md_value:
        nb.cells[1].source = nb.cells[1].source.replace(f"x = {md_value}", f"x = {ipynb_value}")
    nb.cells[1].execution_count = 1 if executed else None
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{ipynb_value}\n")]
    ipynb = tmp_path / "01_demo.ipynb"
    nbformat.write(nb, ipynb)
    return md, ipynb


def test_checker_accepts_matching_pair(tmp_path):
    md, ipynb = _write_pair(tmp_path, 1, 1)
    assert pairing_problems(md, ipynb) == []
    assert execution_problems(ipynb) == []


def test_checker_detects_source_mismatch(tmp_path):
    md, ipynb = _write_pair(tmp_path, 1, 2)
    problems = pairing_problems(md, ipynb)
    assert len(problems) == 1 and "source differs" in problems[0]


def test_checker_detects_extra_cell_and_type_change(tmp_path):
    md, ipynb = _write_pair(tmp_path, 1, 1)
    nb = nbformat.read(ipynb, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("extra"))
    nb.cells[0].cell_type = "raw"
    nbformat.write(nb, ipynb)
    problems = pairing_problems(md, ipynb)
    assert any("cells" in p for p in problems)
    assert any("type markdown in .md but raw" in p for p in problems)


def test_checker_detects_tag_mismatch(tmp_path):
    md, ipynb = _write_pair(tmp_path, 1, 1)
    nb = nbformat.read(ipynb, as_version=4)
    nb.cells[1].metadata["tags"] = ["nbval-ignore-output"]
    nbformat.write(nb, ipynb)
    assert any("tags" in p for p in pairing_problems(md, ipynb))


def test_checker_detects_missing_twin(tmp_path):
    md, ipynb = _write_pair(tmp_path, 1, 1)
    ipynb.unlink()
    assert pairing_problems(md, ipynb) and "missing" in pairing_problems(md, ipynb)[0]


def test_checker_detects_bad_execution(tmp_path):
    md, ipynb = _write_pair(tmp_path, 1, 1, executed=False)
    assert any("not executed" in p for p in execution_problems(ipynb))

    nb = nbformat.read(ipynb, as_version=4)
    nb.cells[1].execution_count = 3
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    nb.cells[1].outputs.append(
        nbformat.v4.new_output("error", ename="ValueError", evalue="boom", traceback=[])
    )
    nbformat.write(nb, ipynb)
    problems = execution_problems(ipynb)
    assert any("expected 1" in p for p in problems)
    assert any("widget state" in p for p in problems)
    assert any("error output ValueError" in p for p in problems)


def test_plain_markdown_is_not_a_notebook(tmp_path):
    plain = tmp_path / "intro.md"
    plain.write_text("# Intro\n\nJust text.\n", encoding="utf-8")
    assert not is_jupytext_notebook(plain)
    md, _ = _write_pair(tmp_path, 1, 1)
    assert is_jupytext_notebook(md)


def test_checker_detects_trailing_semicolon(tmp_path):
    md, _ = _write_pair(tmp_path, 1, 1)
    assert semicolon_problems(md) == []
    md.write_text(md.read_text().replace("print(x)", "print(x);"), encoding="utf-8")
    assert len(semicolon_problems(md)) == 1
