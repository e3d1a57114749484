"""Run one swap (tests/test_swaps.py): the chapter that must reject it, executed with the wrong formula.

Each run is a fresh process forked from a server that has already imported numpy, scipy, matplotlib, IPython
and attnlib (``multiprocessing``'s forkserver with those modules preloaded), so a run pays for the chapter and
not for starting Python. In that process:

1. an IPython shell (the kernel's, without the ZMQ transport; history off, rich output formats off: no figure
   is rendered to PNG) runs in book/, pinned to one core (so attnlib's thread pools have one thread: no
   nested parallelism inside the pytest workers), with the environment of the nbval run (one BLAS thread,
   no progress bars, PYTHONHASHSEED = 0, matplotlib's Agg backend);
2. the engine's results are memoised (tests/swap_memo.py): simulations the swap cannot affect are read from
   the store that earlier runs filled, bit for bit what they would compute;
3. the swap's cell (``PRELUDE`` + the patch) runs, then every code cell of the chapter in order, each even
   after an error (as ``nbclient`` with ``allow_errors``), with a time limit per cell, until a cell of the
   closing checks stops on an AssertionError (the outcome is then decided);
4. the outcome goes back to the test: "checks" if a cell of the closing checks (section "Checks run on every
   build") stopped on an AssertionError; "elsewhere" if only other cells (an exercise's own assert) did;
   "passed" if nothing rejected the swap; "broken" if the swap's own cell failed.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import pickle
import select
import signal
import subprocess
import sys
import textwrap
import time
import traceback
from pathlib import Path

from scripts.environments import KERNEL

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
SWAPS = Path(__file__).resolve().parent / "swaps"
STORE_ROOT = Path(os.environ.get("ATTNLIB_SWAP_MEMO_DIR", REPO / "_build" / "swap-memo"))  # the memo's store
CELL_TIMEOUT = 600  # seconds per cell, as scripts/execute_notebook.py
RUN_TIMEOUT = 3600

# The kernel environment (scripts/environments.py), given to the fork server only: the pytest worker's own
# environment stays as it is (nbval's kernels, started by the same worker, must keep their inline backend).
SERVER_ENV = {**KERNEL, "MPLBACKEND": "Agg"}

# Each patch is Python run before the chapter. ``_swap(module, name, new)`` replaces the function
# ``module.name`` in every attnlib module that refers to that same object.
PRELUDE = textwrap.dedent("""
    import sys
    import numpy as np
    import attnlib, attnlib.theory, attnlib.theory._spikes, attnlib.theory._law, attnlib.model.weights, attnlib.studies.token_mixing
    import attnlib.theory.fluctuations

    from swap_memo import rebind as _rebind

    def _swap(module, name, new):
        original = getattr(module, name)
        assert _rebind(original, new), f"{name} not found"
        return original
""")

# Imported once by the server, so that no run pays for them.
PRELOAD = ["numpy", "scipy.stats", "scipy.optimize", "scipy.sparse.linalg", "matplotlib.pyplot",
           "IPython.core.interactiveshell", "attnlib", "attnlib.views.webexplorer", "myst_nb", "myst_nb.ext.glue",
           "swap_memo"]


def load_swaps() -> dict[str, tuple[str, str]]:
    """Every swap, ``{name: (chapter, patch)}``, from the per-chapter files ``tests/swaps/NN_name.py`` (each with
    ``CHAPTER`` and ``SWAPS = {name: patch}``), so that a chapter's swaps live next to one another."""
    swaps = {}
    for path in sorted(SWAPS.glob("[0-9][0-9]_*.py")):
        spec = importlib.util.spec_from_file_location(f"swaps_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name, patch in module.SWAPS.items():
            assert name not in swaps, f"swap {name!r} defined twice"
            swaps[name] = (module.CHAPTER, patch)
    return swaps


def checks_cells(nb) -> set[int]:
    """Indices of every code cell with an ``assert`` in the section "Checks run on every build" (the chapter's
    closing checks, which may be split over several cells)."""
    in_checks, cells = False, set()
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            lines = cell.source.splitlines()
            in_checks = any(line.startswith("## Checks run on every build") for line in lines) \
                or (in_checks and not any(line.startswith("## ") for line in lines))
        elif in_checks and "assert" in cell.source:
            cells.add(i)
    if not cells:
        raise ValueError("no 'Checks run on every build' code cell found")
    return cells


@functools.lru_cache(maxsize=None)
def chapter_cells(chapter: str) -> tuple[tuple[str, ...], frozenset]:
    """The chapter's code cells (sources, in order) and the positions among them of its closing checks."""
    import jupytext

    nb = jupytext.read(BOOK / f"{chapter}.md")
    code = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    checks = checks_cells(nb)
    return tuple(nb.cells[i].source for i in code), frozenset(code.index(i) for i in checks)


def store_directory() -> Path:
    """The memo's store for this version of attnlib and the data; stores of other versions are removed (a run
    whose store goes away meanwhile computes what it cannot store: see swap_memo)."""
    import shutil

    import swap_memo

    store = STORE_ROOT / swap_memo.fingerprint()
    if STORE_ROOT.is_dir():
        for other in STORE_ROOT.iterdir():
            if other != store:
                shutil.rmtree(other, ignore_errors=True)
    return store


# ------------------------------------------------------------------------------------------------ a run


def _timeout(signum, frame):
    raise TimeoutError(f"cell over {CELL_TIMEOUT} s")


def _shell():
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    shell.display_formatter.active_types = ["text/plain"]
    return shell


def _error(result) -> tuple[str, str] | None:
    exc = result.error_in_exec or result.error_before_exec
    if exc is None:
        return None
    return type(exc).__name__, (str(exc).splitlines() or [""])[0][:200]


def _run(cells, checks, patch, store) -> tuple[str, str, str]:
    """One swap run, in a fresh forked process: the swap's cell, then every chapter cell."""
    import swap_memo

    start = time.process_time()
    shell = _shell()  # made by the server: here a copy with an empty namespace
    if store is not None:
        swap_memo.install(Path(store))
    before = swap_memo.snapshot()
    error = _error(shell.run_cell(PRELUDE + textwrap.dedent(patch), store_history=False))
    if error:
        return "broken", f"the swap itself failed: {error[0]}: {error[1]}", ""
    memo_note = swap_memo.note_swap(before) if store is not None else "memo off"
    signal.signal(signal.SIGALRM, _timeout)
    failed = {}
    for i, source in enumerate(cells):
        signal.alarm(CELL_TIMEOUT)
        try:
            error = _error(shell.run_cell(source, store_history=False))
        finally:
            signal.alarm(0)
        if error:
            failed[i] = error
            if error[0] == "AssertionError" and i in checks:
                break  # the closing checks rejected the swap: the outcome is decided
    st = swap_memo.STATE
    stats = (f"{memo_note}; memo {st.hits} hits, {st.misses} misses, {st.stored} stored; "
             f"{time.process_time() - start:.1f} s CPU")
    summary = {i: f"{name}: {message}" for i, (name, message) in failed.items()}
    detail = f"code cells that failed {summary} (checks cells {sorted(checks)})"
    if any(failed.get(i, ("",))[0] == "AssertionError" for i in checks):
        return "checks", detail, stats
    if any(name == "AssertionError" for name, _ in failed.values()):
        return "elsewhere", detail, stats
    return "passed", detail, stats


def _read(stream):
    header = stream.read(8)
    if len(header) < 8:
        return None
    return pickle.loads(stream.read(int.from_bytes(header, "little")))


def _write(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(len(data).to_bytes(8, "little") + data)
    stream.flush()


def serve() -> None:
    """The server (one per pytest worker): import the libraries once, then fork one process per job read from
    stdin and write each job's outcome to stdout. Cell output goes to /dev/null."""
    import swap_memo

    for name in [*PRELOAD, *swap_memo.ENGINE]:
        __import__(name)
    _shell()
    jobs, results = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.chdir(BOOK)
    while (job := _read(jobs)) is not None:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                outcome = _run(*job)
            except BaseException:
                outcome = ("broken", "the runner failed:\n" + traceback.format_exc(), "")
            with os.fdopen(w, "wb") as out:
                _write(out, outcome)
            os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as inp:
            outcome = _read(inp)
        _, status = os.waitpid(pid, 0)
        _write(results, outcome or ("broken", f"the run died (wait status {status})", ""))


# ------------------------------------------------------------------------------------------------ the parent


class _Server:
    """The pytest worker's handle on its server, started on first use and pinned to one core."""

    process = None

    @classmethod
    def run(cls, job, timeout: float):
        if cls.process is None or cls.process.poll() is not None:
            cores = sorted(os.sched_getaffinity(0))
            worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
            cpu = cores[(int(worker[2:]) if worker[2:].isdigit() else 0) % len(cores)]
            env = {**os.environ, **SERVER_ENV,
                   "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), str(REPO)])}
            cls.process = subprocess.Popen([sys.executable, "-c", "import swap_runner; swap_runner.serve()"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                           preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        _write(cls.process.stdin, job)
        ready, _, _ = select.select([cls.process.stdout], [], [], timeout)
        outcome = _read(cls.process.stdout) if ready else None
        if outcome is None:
            cls.process.kill()
            cls.process.wait()
            cls.process = None
            return "broken", f"no result within {timeout:.0f} s, or the server died", ""
        return outcome


def run_swapped(swap: str, patches: dict, store: Path | None) -> tuple[str, str, str]:
    """Execute the chapter responsible for ``swap`` with the wrong formula: (outcome, detail, stats)."""
    chapter, patch = patches[swap]
    cells, checks = chapter_cells(chapter)
    outcome, detail, stats = _Server.run((cells, checks, patch, None if store is None else str(store)),
                                         RUN_TIMEOUT)
    return outcome, f"{chapter}: {detail}", stats
