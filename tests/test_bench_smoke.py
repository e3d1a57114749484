"""Smoke run of the benchmark script (bench/run.py --quick): tiny sizes, no timing assertions.

Checks that every benchmark runs end to end and prints its table, so that `bench/run.py` cannot rot between
full runs (which are not part of the test command: they take minutes and their timings depend on the machine).
"""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_quick_benchmark_run_prints_the_table(tmp_path):
    out = tmp_path / "results.md"
    out.write_text("# an earlier run\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--quick", "--output", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = proc.stdout
    assert "| # | benchmark | measured | ratio | target | met |" in text
    for needle in ("`bulk_density`", "exactness", "Monte-Carlo histogram", "dense / matrix-free",
                   "matrix-free / floor", "same draw", "peak resident memory", "SLQ density", "sweep "):
        assert needle in text, needle
    # the accuracy checks are real checks even at tiny sizes (they do not depend on timing): the exact density,
    # the two paths of a draw on the same draw, and the sweep bit for bit whatever the executor
    summary = text[text.index("## Summary"):]
    checked = [line for line in summary.splitlines() if any(k in line for k in ("exactness", "same draw", "sweep "))]
    assert len(checked) >= 4
    for line in checked:
        assert line.rstrip().endswith("| yes |"), line
    written = out.read_text(encoding="utf-8")
    assert written.startswith("# attnlib benchmarks (quick run")
    assert written.rstrip().endswith("# an earlier run")  # earlier runs stay recorded below the new one


def test_unknown_benchmark_is_rejected():
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--quick", "nonsense"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "unknown benchmark" in proc.stderr
