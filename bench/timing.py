"""Timing helpers shared by the benchmarks: minimum over rounds in rotating order, formatting, the load, and
runs in a fresh interpreter that report their own wall time and peak resident memory."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def side_by_side(cases: dict, repeats: int) -> dict:
    """Minimum wall time of each case over ``repeats`` rounds; the order of the cases rotates every round."""
    names = list(cases)
    best = {name: math.inf for name in names}
    for r in range(repeats):
        shift = r % len(names)
        for name in names[shift:] + names[:shift]:
            best[name] = min(best[name], timed(cases[name])[0])
    return best


def fmt_time(t: float) -> str:
    if not math.isfinite(t):
        return "–"
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    if t < 1:
        return f"{t * 1e3:.3g} ms"
    if t < 120:
        return f"{t:.3g} s"
    if t < 7200:
        return f"{t / 60:.3g} min"
    return f"{t / 3600:.3g} h"


def fmt_ratio(r: float) -> str:
    if not math.isfinite(r):
        return "–"
    return f"{r:,.0f}×" if r >= 100 else f"{r:.3g}×"


def fmt_bytes(n: float) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def verdict(ok: bool) -> str:
    return "yes" if ok else "NO"


def loadavg() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def fresh_process(code: str, timeout: float = 1800) -> dict:
    """Run ``code`` in a new interpreter and return the JSON object it prints on its last line of output.

    ``code`` runs after ``import json, resource, time, numpy as np, attnlib`` with a function ``report(**kw)``
    that prints ``kw`` plus ``peak_rss``: the peak resident memory of that interpreter alone, in bytes
    (``VmHWM`` of /proc/self/status, which exec resets; ``getrusage`` ``ru_maxrss`` would carry over the peak
    of this, the parent, process across fork and exec), and ``base_rss``, its resident memory right after
    the imports.
    """
    prelude = ("import json, resource, sys, time\nimport numpy as np\nsys.path.insert(0, %r)\nimport attnlib\n"
               "def _rss(key):\n"
               "    try:\n"
               "        with open('/proc/self/status') as f:\n"
               "            return next(int(l.split()[1]) * 1024 for l in f if l.startswith(key))\n"
               "    except (OSError, StopIteration):\n"
               "        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
               "BASE = _rss('VmRSS:')\n"
               "def report(**kw):\n"
               "    kw['peak_rss'], kw['base_rss'] = _rss('VmHWM:'), BASE\n"
               "    print(json.dumps(kw))\n" % str(REPO))
    env = dict(os.environ, ATTNLIB_PROGRESS="0")
    proc = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, env=env,
                          timeout=timeout, cwd=REPO)
    if proc.returncode != 0:
        raise RuntimeError(f"fresh-process benchmark failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])
