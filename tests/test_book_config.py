"""The Jupyter Book configuration matches the files in book/."""

from __future__ import annotations

from pathlib import Path

import nbformat
import yaml

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"


def _is_jupytext_notebook(md_path: Path) -> bool:
    text = md_path.read_text(encoding="utf-8")
    if not text.startswith("---\n") or text.find("\n---", 4) == -1:
        return False
    fm = yaml.safe_load(text[4 : text.find("\n---", 4)]) or {}
    return isinstance(fm, dict) and ("jupytext" in fm or "kernelspec" in fm)


def toc_files(node=None) -> list[str]:
    """Every `root`/`file` entry of _toc.yml, in order (parts, chapters and sections)."""
    if node is None:
        node = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    found = []
    if isinstance(node, dict):
        for key in ("root", "file"):
            if key in node:
                found.append(str(node[key]))
        for value in node.values():
            if isinstance(value, (list, dict)):
                found += toc_files(value)
    elif isinstance(node, list):
        for item in node:
            found += toc_files(item)
    return found


def _strip_ext(entry: str) -> str:
    for ext in (".ipynb", ".md"):
        if entry.endswith(ext):
            return entry[: -len(ext)]
    return entry


def test_toc_format():
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    assert toc["format"] == "jb-book"
    assert toc["root"] == "book/intro"
    entries = toc_files()
    assert len(entries) == len(set(entries)), "duplicate toc entries"


def test_every_toc_entry_exists():
    problems = []
    for entry in toc_files():
        base = REPO / _strip_ext(entry)
        md, ipynb = base.with_suffix(".md"), base.with_suffix(".ipynb")
        if md.exists() and _is_jupytext_notebook(md) or ipynb.exists():
            # a chapter: the book is built from its executed .ipynb
            if not ipynb.exists():
                problems.append(f"{entry}: {ipynb.relative_to(REPO)} missing (run `make execute`)")
                continue
            nb = nbformat.read(ipynb, as_version=4)
            code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
            if any(c.get("execution_count") is None for c in code):
                problems.append(f"{entry}: {ipynb.relative_to(REPO)} is not executed")
        elif not md.exists():
            problems.append(f"{entry}: neither {md.relative_to(REPO)} nor {ipynb.relative_to(REPO)} exists")
    assert not problems, "\n".join(problems)


def notebook_pages() -> list[Path]:
    """Every page of book/ that is a jupytext notebook: the chapters, the derivation pages and the intro."""
    return sorted(p for p in BOOK.glob("*.md") if _is_jupytext_notebook(p))


def test_every_chapter_is_in_toc():
    listed = {_strip_ext(e) for e in toc_files()}
    pages = [p.relative_to(REPO).with_suffix("").as_posix() for p in BOOK.glob("*.md")]
    missing = [c for c in sorted(pages) if c not in listed]
    assert not missing, f"pages of book/ not in _toc.yml: {missing}"


def test_toc_parts():
    """The parts of BOOKPLAN: a "Start here" part and the appendix unnumbered, the rest numbered, in order."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    parts = [(p["caption"], p.get("numbered", False), [c["file"] for c in p["chapters"]]) for p in toc["parts"]]
    captions = [c for c, _, _ in parts]
    assert captions[:3] == ["Start here", "The paper, result by result", "Beyond the paper"], captions
    assert captions[-1] == "Appendix", captions
    numbered = {c: n for c, n, _ in parts}
    assert not numbered["Start here"] and not numbered["Appendix"]
    assert all(numbered[c] for c in captions[1:-1])
    assert parts[0][2] == ["book/results", "book/primer", "book/notation", "book/paper_notes", "book/your_problem"]
    assert parts[1][2] == [f"book/{n}" for n in ("01_model", "02_bulk_law", "03_population_spike", "04_sample_spike",
                                                  "05_optimal_weights", "06_causal_attention", "07_experiments",
                                                  "08_explore")]
    derivations = [files for c, _, files in parts if c == "Derivations"]
    assert all(all(Path(f).name[:2] in {"12", "13", "14"} for f in files) for files in derivations)
    assert parts[-1][2][0] == "book/verification"


def test_config_builds_from_executed_notebooks():
    cfg = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
    assert cfg["execute"]["execute_notebooks"] == "off"
    assert cfg["only_build_toc_files"] is True
    # the .md twin of every notebook page must be excluded, or Sphinx finds two sources per document
    assert "book/[0-9]*.md" in cfg["exclude_patterns"]
    for page in notebook_pages():
        if not page.name[0].isdigit():
            assert f"book/{page.name}" in cfg["exclude_patterns"], f"book/{page.name} not excluded in _config.yml"
    assert {"dollarmath", "amsmath", "colon_fence"} <= set(cfg["parse"]["myst_enable_extensions"])
