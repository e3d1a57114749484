"""Benchmark ``book``: wall time of nbval over every chapter and of the strict HTML build (into a temporary
folder)."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import tempfile
from pathlib import Path

from attnlib.views.tables import markdown_text
from timing import REPO, fmt_time, timed, verdict


def bench_book(rep, quick: bool, repeats: int, venv_bin: Path):
    chapters = sorted(p.name for p in (REPO / "book").glob("[0-9]*.ipynb"))
    env = dict(os.environ, PYTHONHASHSEED="0", ATTNLIB_PROGRESS="0")
    nbval = [str(venv_bin / "pytest"), "--nbval", "book/", "--nbval-sanitize-with", "nbval_sanitize.cfg",
             "--nbval-current-env", "-p", "no:cacheprovider", "-q"]
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-book-") as out:
        build = [str(venv_bin / "jupyter-book"), "build", ".", "--warningiserror", "--nitpick", "--keep-going",
                 "--all", "--path-output", out]
        for name, cmd, target in (("nbval over all chapters", nbval, 300.0), ("HTML build", build, 60.0)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t, proc = timed(lambda: subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            plain = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr).splitlines()
            tail = next((ln.strip() for ln in reversed(plain)
                         if re.search(r"passed|failed|error|succeeded|Finished|warning", ln, re.I)), "")
            results.append((name, t, cpu, proc.returncode, tail))
            rep.row(6, f"{name} ({len(chapters)} chapters)",
                    f"{fmt_time(t)} (CPU {fmt_time(cpu)}, exit {proc.returncode})", "–",
                    f"≤ {fmt_time(target)}", verdict(t <= target and proc.returncode == 0))
    text = (f"Chapters: {', '.join(chapters)}.\n\n"
            + markdown_text(("step", "wall time", "CPU time (children)", "exit code", "last line of output"),
                            [(n, fmt_time(t), fmt_time(c), rc, f"`{tail[:120]}`") for n, t, c, rc, tail in results]))
    rep.section("6. The whole book", text)
