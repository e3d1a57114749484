#!/usr/bin/env python
"""Benchmarks of attnlib's speed, as ratios measured side by side in one run.

Usage (from the repository root):

    .venv/bin/python bench/run.py                 # every benchmark but the book; adds the run to bench/results.md
    .venv/bin/python bench/run.py all             # the same plus the whole book (nbval + HTML build)
    .venv/bin/python bench/run.py draw sweep      # a selection
    .venv/bin/python bench/run.py --quick         # tiny sizes: the smoke run of tests/test_bench_smoke.py

Benchmarks (modules of this folder; public attnlib API only):

density     attnlib.theory.Bulk.density against freealg and a Monte-Carlo histogram; exactness (law_bench.py).
draw        one draw by the dense and the matrix-free path side by side at d = 1000-8000, and the floor
            (drawing the vocabulary plus one pass over it); the two paths on the same draw (engine_bench.py).
large       the matrix-free draw at d = 16,000 in a fresh interpreter: wall time, peak memory, stages, floor.
slq         spectral densities by stochastic Lanczos quadrature against exact eigenvalues (d = 2000) and
            against the law as d grows to 16,000 (density_bench.py).
sweep       a sweep through a dask LocalCluster against the serial sweep and the default thread pool.
book        wall time of nbval over every chapter and of the strict HTML build (book_bench.py).

The machine may be shared: every timing is the minimum over repeats, cases of one comparison are run in
rotating order within each round, and the load average is recorded with the results. A run is added at the
top of the results file; the runs already recorded there are kept below it.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(1, str(REPO))
os.environ.setdefault("ATTNLIB_PROGRESS", "0")

import numpy as np  # noqa: E402
import scipy  # noqa: E402

from attnlib.views.tables import markdown_text  # noqa: E402
from book_bench import bench_book  # noqa: E402
from density_bench import bench_slq  # noqa: E402
from engine_bench import bench_draw, bench_large, bench_sweep  # noqa: E402
from law_bench import bench_density  # noqa: E402
from timing import fmt_time, loadavg  # noqa: E402

RUNNERS = {"density": bench_density, "draw": bench_draw, "large": bench_large, "slq": bench_slq,
           "sweep": bench_sweep}
DEFAULT = tuple(RUNNERS)
ALL = DEFAULT + ("book",)
SEPARATOR = "\n\n---\n\n"


class Report:
    """Summary rows (the table of ratios) and per-benchmark detail sections."""

    def __init__(self):
        self.rows = []
        self.sections = []

    def row(self, item, what, measured, ratio="–", target="–", met="–"):
        self.rows.append((str(item), what, measured, ratio, target, met))

    def section(self, title, text):
        self.sections.append((title, text))
        print(f"\n## {title}\n\n{text}\n", flush=True)

    def summary(self) -> str:
        return markdown_text(("#", "benchmark", "measured", "ratio", "target", "met"), self.rows)


def environment() -> str:
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(f"{i['internal_api']} {i.get('version') or ''} ({i['num_threads']} threads)".replace("  ", " ")
                         for i in threadpool_info() if i["user_api"] == "blas")
    except ImportError:
        blas = "threadpoolctl not installed"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True).stdout.strip() or "n/a"
    except OSError:
        commit = "n/a"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}, commit {commit} (plus uncommitted changes, if any), "
            f"{platform.machine()} with {cores} cores, Python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}, BLAS: {blas}")


def write(output: Path, text: str) -> None:
    """Write this run at the top of ``output``, keeping the runs already recorded there below it."""
    earlier = output.read_text(encoding="utf-8").strip() if output.exists() else ""
    output.write_text(text + (SEPARATOR + earlier if earlier else "") + "\n", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmarks", nargs="*", metavar="BENCHMARK",
                        help=f"any of {', '.join(ALL)}, or all (default: {' '.join(DEFAULT)})")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run of a few seconds")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per timing (minimum is kept); default 3")
    parser.add_argument("--output", type=Path, default=None,
                        help="markdown file the run is added to (default: bench/results.md, none with --quick)")
    parser.add_argument("--venv-bin", type=Path, default=REPO / ".venv" / "bin",
                        help="folder with the pytest and jupyter-book executables for the book benchmark")
    args = parser.parse_args(argv)
    unknown = [b for b in args.benchmarks if b not in (*ALL, "all")]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}: choose from {', '.join(ALL)}, all")
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    chosen = ALL if "all" in args.benchmarks else tuple(args.benchmarks) or DEFAULT
    if args.quick:
        chosen = tuple(b for b in chosen if b != "book")
        args.repeats = 1
    output = args.output if args.output is not None else (None if args.quick else REPO / "bench" / "results.md")

    rep = Report()
    env = environment()
    load_start = loadavg()
    print(f"# attnlib benchmarks{' (quick)' if args.quick else ''}\n\n{env}\nload average at start: {load_start}",
          flush=True)
    t_all = time.perf_counter()
    for name in chosen:
        if name == "book":
            bench_book(rep, args.quick, args.repeats, args.venv_bin)
        else:
            RUNNERS[name](rep, args.quick, args.repeats)
    wall = time.perf_counter() - t_all
    head = (f"# attnlib benchmarks{' (quick run, tiny sizes)' if args.quick else ''}\n\n"
            f"Command: `python bench/run.py {' '.join(argv if argv is not None else sys.argv[1:])}`. {env}. "
            f"Load average (1, 5, 15 min; `os.getloadavg`) at start {load_start}, at end {loadavg()}; benchmarks "
            f"took {fmt_time(wall)}.")
    summary = "## Summary\n\n" + rep.summary()
    print(f"\n{summary}\n", flush=True)
    if output is not None:
        body = "\n\n".join(f"## {title}\n\n{text}" for title, text in rep.sections)
        write(output, f"{head}\n\n{summary}\n\n{body}")
        print(f"written to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
