"""Test the tests: each chapter's closing checks must fail when a formula of attnlib is replaced by a plausible
wrong one.

For each swap, the chapter responsible for catching it is executed top to bottom (as nbval does: same
environment, one BLAS thread) after a first cell that replaces the attnlib function by the wrong one
everywhere attnlib refers to it (every module of the package whose attribute *is* the original function
object). Every cell runs, even after an error, and a cell of the chapter's closing checks ("Checks run on every
build") must stop on an ``AssertionError``: the checks reject the wrong formula. Exercises whose own asserts
also fail are reported, but do not count.

The swaps live next to one another, a file per chapter: ``tests/swaps/NN_name.py`` holds ``CHAPTER`` (the
chapter whose closing checks must reject them) and ``SWAPS`` (swap name -> the patch, with a comment saying
which wrong formula it plants).

Each test runs its own swap, so ``-k`` picks what runs: ``pytest tests/test_swaps.py -k "one-stage"``. How a run
is made cheap (a fork of a process with the libraries imported; the chapter's simulations memoised, reused
only where the swap cannot change them) is in tests/swap_runner.py and tests/swap_memo.py; the memo's store is
``_build/swap-memo/`` (``ATTNLIB_SWAP_MEMO=0`` turns it off: every run computes everything). Under pytest-xdist
(``make test``) a chapter's swaps form one group (``xdist_group``), run one after another by one worker, so
that the first run fills the store for the others.
"""

from __future__ import annotations

import os

import pytest

import swap_runner

PATCHES = swap_runner.load_swaps()
MEMO = os.environ.get("ATTNLIB_SWAP_MEMO", "1") != "0"


@pytest.fixture(scope="module")
def store():
    return swap_runner.store_directory() if MEMO else None


def _params():
    return [pytest.param(name, marks=pytest.mark.xdist_group(f"swaps-{chapter}"), id=f"{chapter}/{name}")
            for name, (chapter, _) in PATCHES.items()]


@pytest.mark.parametrize("swap", _params())
def test_chapter_rejects_the_wrong_formula(swap, store):
    kind, detail, stats = swap_runner.run_swapped(swap, PATCHES, store)
    print(f"swap {swap!r}: {kind}; {stats}")
    assert kind == "checks", f"swap {swap!r}: the closing checks did not reject it ({kind}); {detail}"


def test_checks_cells_are_every_checking_cell_of_the_section():
    """A chapter's closing checks may span several cells, up to the next section; cells after it do not count."""
    import nbformat

    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(cells=[
        code("assert setup"), md("## Checks run on every build"), code("x = 1"), code("assert a"),
        md("### more"), code("assert b"), md("## Exercises"), code("assert c")])
    assert swap_runner.checks_cells(nb) == {3, 5}
    with pytest.raises(ValueError, match="Checks run on every build"):
        swap_runner.checks_cells(nbformat.v4.new_notebook(cells=[code("assert a")]))
