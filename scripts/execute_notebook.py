#!/usr/bin/env python
"""Execute book chapters and write their executed .ipynb twins.

Usage:
    python scripts/execute_notebook.py book/01_model.md [book/02_other.md ...]
    python scripts/execute_notebook.py --all      # every notebook page of book/ (notebook_pages())

For each MyST-markdown chapter (a jupytext notebook, ``formats: ipynb,md:myst``):

1. read the .md with jupytext and give the cells deterministic ids (cell-00, cell-01, ...);
2. execute it top to bottom with nbclient, in a python3 kernel of *this* interpreter's
   environment, cwd = book/, 600 s per cell, no errors allowed (nothing is written on error);
3. strip widget state (notebook ``metadata.widgets`` and widget-view outputs) and timing metadata;
4. write book/NN_name.ipynb (nbformat v4.5, kernelspec and jupytext pairing metadata kept);
5. rewrite the .md from the executed notebook with jupytext, so the pair is normalized, and check
   that this rewrite is idempotent and leaves cell types, sources and tags unchanged.

Outputs must be deterministic: chapters print rounded numbers and use fixed seeds; this script sets
PYTHONHASHSEED=0 for the kernel. Running it twice on the same .md gives byte-identical files.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from pathlib import Path

import ipykernel.kernelspec
import jupytext
import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from scripts.environments import environment  # noqa: E402  (one definition, shared with nbval)
BOOK = REPO / "book"
PAIRING = "ipynb,md:myst"
KERNEL_NAME = "python3"
CELL_TIMEOUT = 600
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
IGNORE_OUTPUT_TAG = "nbval-ignore-output"


class CurrentEnvKernelSpecManager(KernelSpecManager):
    """Resolve the python3 kernel to the interpreter running this script.

    A user-level kernelspec called ``python3`` (e.g. in ~/.local/share/jupyter) would otherwise
    win over the venv's one; nbval's --nbval-current-env does the same thing.
    """

    def get_kernel_spec(self, kernel_name):
        if kernel_name == KERNEL_NAME:
            return self.kernel_spec_class(
                resource_dir=ipykernel.kernelspec.RESOURCES,
                **ipykernel.kernelspec.get_kernel_dict(),
            )
        return super().get_kernel_spec(kernel_name)


def notebook_pages() -> list[Path]:
    """The pages of book/ that are notebooks: each .md with a paired .ipynb (the introduction first)."""
    pages = sorted(md for md in BOOK.glob("*.md") if md.with_suffix(".ipynb").exists())
    return sorted(pages, key=lambda md: md.name != "intro.md")


def _cells_signature(nb):
    """(cell_type, source, tags) per cell: what must survive the md <-> ipynb round trip."""
    return [
        (c.cell_type, c.source, tuple(c.get("metadata", {}).get("tags", [])))
        for c in nb.cells
    ]


def semicolon_cells(nb) -> list[int]:
    """Indices of code cells whose last statement ends with ';'.

    IPython hides the value of such a cell only when the code is stored in the history; nbval
    executes with store_history=False, so there the value *is* displayed and strict nbval fails.
    End figure cells with ``plt.show()`` or assign the value (``_ = ax.set_title(...)``) instead.
    """
    from IPython.core.displayhook import DisplayHook

    bad = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        try:
            if DisplayHook.semicolon_at_end_of_expression(cell.source):
                bad.append(i)
        except Exception:  # untokenizable source (e.g. cell magics): not our business here
            pass
    return bad


def is_jupytext_md(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return False
    header = text.split("\n---", 1)[0]
    return "jupytext:" in header or "kernelspec:" in header


def _strip_widgets_and_timing(nb, name: str) -> None:
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)  # timing, if any
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            if WIDGET_MIME in out.get("data", {}):
                if IGNORE_OUTPUT_TAG not in cell.metadata.get("tags", []):
                    print(
                        f"  WARNING {name} {cell.id}: widget output dropped but the cell is not tagged "
                        f"'{IGNORE_OUTPUT_TAG}'; nbval (strict) will fail on it.",
                        file=sys.stderr,
                    )
                continue
            kept.append(out)
        cell.outputs = kept


def execute_chapter(md_path: Path) -> float:
    md_path = md_path.resolve()
    if md_path.suffix != ".md":
        raise SystemExit(f"{md_path}: expected a .md chapter")
    if not is_jupytext_md(md_path):
        raise SystemExit(f"{md_path}: not a jupytext notebook (no jupytext/kernelspec front matter)")
    ipynb_path = md_path.with_suffix(".ipynb")
    t0 = time.perf_counter()

    nb = jupytext.read(md_path)
    source_signature = _cells_signature(nb)
    bad = semicolon_cells(nb)
    if bad:
        raise SystemExit(
            f"{md_path}: code cell(s) {bad} end with ';'. nbval runs cells with store_history=False, "
            "where IPython does not suppress the output after ';'. End the cell with plt.show() or "
            "assign the value (`_ = ...`) instead."
        )
    nb.nbformat, nb.nbformat_minor = 4, 5
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:02d}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata["kernelspec"] = nb.metadata.get("kernelspec") or {
        "name": KERNEL_NAME,
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    if nb.metadata["kernelspec"].get("name") != KERNEL_NAME:
        raise SystemExit(f"{md_path}: kernelspec name must be {KERNEL_NAME!r}")

    os.environ.update(environment("execute"))  # the kernel's environment (scripts/environments.py)
    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=CurrentEnvKernelSpecManager())
    client = NotebookClient(
        nb,
        km=km,
        kernel_name=KERNEL_NAME,
        timeout=CELL_TIMEOUT,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(md_path.parent)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        print(f"{md_path.relative_to(REPO)}: execution failed, nothing written\n{exc}", file=sys.stderr)
        raise SystemExit(1) from None

    _strip_widgets_and_timing(nb, md_path.name)

    # --- executed .ipynb ---------------------------------------------------------------
    out = copy.deepcopy(nb)
    jt = dict(out.metadata.get("jupytext", {}))
    jt.pop("text_representation", None)  # carries the jupytext version; belongs to the .md only
    jt["formats"] = PAIRING
    out.metadata["jupytext"] = jt
    nbformat.validate(out)
    ipynb_text = nbformat.writes(out, version=4)
    if not ipynb_text.endswith("\n"):
        ipynb_text += "\n"
    ipynb_path.write_text(ipynb_text, encoding="utf-8")

    # --- normalized .md twin (written last, so it is never older than the .ipynb) ----------
    jupytext.write(out, md_path, fmt="md:myst")
    first = md_path.read_bytes()
    reread = jupytext.read(md_path)
    second = jupytext.writes(reread, fmt="md:myst").encode("utf-8")
    if first != second:
        raise SystemExit(f"{md_path}: md round trip is not idempotent")
    if _cells_signature(reread) != source_signature:
        raise SystemExit(f"{md_path}: rewriting the md changed cell types, sources or tags")
    if _cells_signature(reread) != _cells_signature(out):
        raise SystemExit(f"{md_path}: md and ipynb twins differ after writing")

    return time.perf_counter() - t0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("chapters", nargs="*", type=Path, help="chapter .md files")
    parser.add_argument("--all", action="store_true", help="every notebook page of book/ (a paired .ipynb)")
    args = parser.parse_args(argv)
    chapters = list(args.chapters)
    if args.all:
        chapters += notebook_pages()
    if not chapters:
        parser.error("give chapter .md files or --all")
    total = 0.0
    for md in chapters:
        print(f"executing {md} ...", flush=True)
        wall = execute_chapter(md)
        total += wall
        print(f"  {md_rel(md)} -> {md_rel(md.with_suffix('.ipynb'))}: {wall:.1f} s wall", flush=True)
    print(f"done: {len(chapters)} chapter(s), {total:.1f} s wall")
    return 0


def md_rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
