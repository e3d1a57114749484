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
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--quick", "--output", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = proc.stdout
    assert "| # | benchmark | measured | ratio | target | met |" in text
    for needle in ("`bulk_density`", "exactness", "Monte-Carlo histogram", "naive / fast", "fast / floor",
                   "before / after", "float32 fast path vs float64", "sweep:"):
        assert needle in text, needle
    # the accuracy checks are real checks even at tiny sizes (they do not depend on timing)
    summary = text[text.index("## Summary"):]
    for line in summary.splitlines():
        if "exactness" in line or "float32 fast path" in line:
            assert line.rstrip().endswith("| yes |"), line
    assert out.read_text(encoding="utf-8").startswith("# attnlib benchmarks (quick run")


def test_unknown_benchmark_is_rejected():
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--quick", "nonsense"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "unknown benchmark" in proc.stderr
