"""Test the tests: each chapter's closing checks must fail when a formula of attnlib is replaced by a plausible
wrong one.

For each swap below, the chapter that is responsible for catching it is executed top to bottom (as nbval
does: same kernel environment, one BLAS thread) with a first cell that replaces the attnlib function by the
wrong one everywhere attnlib refers to it (every module of the package whose attribute *is* the original
function object). Every cell runs, even after an error, and the chapter's closing cell ("Checks run on every
build") must stop on an ``AssertionError``: the checks reject the wrong formula. Exercises whose own asserts
also fail are reported, but do not count.

The swaps live next to one another, a file per chapter: ``tests/swaps/NN_name.py`` holds ``CHAPTER`` (the
chapter whose closing checks must reject them) and ``SWAPS`` (swap name -> the patch, with a comment saying
which wrong formula it plants).

The runs take a chapter's execution time each; they are spread over the machine's cores with a process pool
(each run is a separate kernel).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"

# Each patch is Python run in the chapter's kernel before the chapter. ``_swap(module, name, new)`` replaces
# the function ``module.name`` in every attnlib module that refers to that same object.
PRELUDE = textwrap.dedent("""
    import sys
    import numpy as np
    import attnlib, attnlib.theory, attnlib.theory._spikes, attnlib.theory._law, attnlib.model.weights, attnlib.studies.token_mixing
    import attnlib.theory.fluctuations

    def _swap(module, name, new):
        original = getattr(module, name)
        count = 0
        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("attnlib"):
                for attr, value in list(vars(mod).items()):
                    if value is original:
                        setattr(mod, attr, new)
                        count += 1
        assert count, f"{name} not found"
        return original
""")

def _load_swaps() -> dict[str, tuple[str, str]]:
    """Every swap, ``{name: (chapter, patch)}``, from the per-chapter files ``tests/swaps/NN_name.py`` (each with
    ``CHAPTER`` and ``SWAPS = {name: patch}``), so that a chapter's swaps live next to one another."""
    swaps = {}
    for path in sorted((Path(__file__).parent / "swaps").glob("[0-9][0-9]_*.py")):
        spec = importlib.util.spec_from_file_location(f"swaps_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name, patch in module.SWAPS.items():
            assert name not in swaps, f"swap {name!r} defined twice"
            swaps[name] = (module.CHAPTER, patch)
    return swaps


PATCHES = _load_swaps()


def _checks_cells(nb) -> set[int]:
    """Indices of every code cell with an ``assert`` in the section "Checks run on every build" (the chapter's
    closing checks, which may be split over several cells)."""
    in_checks, cells = False, set()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            in_checks = any(line.startswith("## Checks run on every build") for line in cell.source.splitlines()) \
                or (in_checks and not any(line.startswith("## ") for line in cell.source.splitlines()))
        elif in_checks and "assert" in cell.source:
            cells.add(i)
    if not cells:
        raise ValueError("no 'Checks run on every build' code cell found")
    return cells


def run_swapped(swap: str) -> tuple[str, str]:
    """Execute the chapter responsible for ``swap`` with the wrong formula, every cell even after an error.

    Returns (outcome, detail): outcome "checks" if one of the chapter's closing checks cells stopped on an
    AssertionError, "elsewhere" if only other cells (e.g. an exercise's own assert) did, "passed" if nothing
    rejected the wrong formula; detail lists every cell that failed.
    """
    sys.path.insert(0, str(REPO / "scripts"))
    import jupytext
    import nbformat
    from execute_notebook import KERNEL_NAME, CurrentEnvKernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    chapter, patch = PATCHES[swap]
    nb = jupytext.read(BOOK / f"{chapter}.md")
    nb.cells.insert(0, nbformat.v4.new_code_cell(PRELUDE + textwrap.dedent(patch)))
    checks = _checks_cells(nb)
    os.environ.update({"PYTHONHASHSEED": "0", "ATTNLIB_PROGRESS": "0", "OPENBLAS_NUM_THREADS": "1",
                       "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"})
    km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=CurrentEnvKernelSpecManager())
    client = NotebookClient(nb, km=km, kernel_name=KERNEL_NAME, timeout=600, allow_errors=True,
                            resources={"metadata": {"path": str(BOOK)}})
    client.execute()
    failed = {i: out.get("ename") for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
              for out in cell.get("outputs", []) if out.get("output_type") == "error"}
    if failed.get(0):
        return "broken", f"{chapter}: the swap itself failed ({failed[0]})"
    detail = f"{chapter}: cells that failed {failed} (checks cells {sorted(checks)})"
    if any(failed.get(i) == "AssertionError" for i in checks):
        return "checks", detail
    return ("elsewhere" if "AssertionError" in failed.values() else "passed"), detail


@pytest.fixture(scope="module")
def outcomes():
    swaps = list(PATCHES)
    workers = max(1, min(len(swaps), len(os.sched_getaffinity(0))))
    with ProcessPoolExecutor(workers) as pool:
        return dict(zip(swaps, pool.map(run_swapped, swaps)))


@pytest.mark.parametrize("swap", list(PATCHES))
def test_chapter_rejects_the_wrong_formula(swap, outcomes):
    kind, detail = outcomes[swap]
    assert kind == "checks", f"swap {swap!r}: the closing checks did not reject it; {detail}"
