#!/usr/bin/env python
"""The environments the book's notebooks run in, defined once.

* ``KERNEL``: every kernel that executes a chapter (``scripts/execute_notebook.py``) or re-runs it (nbval):
  no progress bars in outputs, one BLAS thread (faster on a busy machine), a fixed hash seed.
* ``EXECUTE``: on top of ``KERNEL``, how the committed outputs are made: attnlib on one thread, and the pages
  record their results for the wrong-formula tests (``book/checks``).
* ``OTHER_CPU``: on top of ``KERNEL``, how ``make test`` re-runs the chapters under nbval, so that outputs that
  depend on the machine fail there rather than on a reader's machine: numpy without its AVX2 and AVX-512 loops
  (its SSE4.2 baseline), OpenBLAS's Sandy Bridge kernels (AVX without FMA; not the AVX-512 or Haswell kernels
  that most machines pick), glibc's maths without its FMA and AVX2 variants, and attnlib on three threads. (On a
  Sandy Bridge machine, OpenBLAS's own choice, this changes numpy and glibc only.)

Run as a program, it executes a command in one of them:
``python scripts/environments.py other-cpu -- pytest --nbval book/``.
"""

from __future__ import annotations

import os
import sys

KERNEL = {"ATTNLIB_PROGRESS": "0", "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
          "MKL_NUM_THREADS": "1"}
EXECUTE = {"ATTNLIB_THREADS": "1", "ATTNLIB_RECORD_RESULTS": "1"}
OTHER_CPU = {
    "NPY_DISABLE_CPU_FEATURES": None,  # numpy's dispatch targets this machine has (numpy_above_baseline)
    "OPENBLAS_CORETYPE": "Sandybridge",
    "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX512F",
    "ATTNLIB_THREADS": "3",
}
NAMES = {"execute": EXECUTE, "other-cpu": OTHER_CPU}


def numpy_above_baseline() -> str:
    """numpy's SIMD dispatch targets (e.g. "X86_V3 X86_V4 AVX512_ICL") that this machine supports: disabling
    them leaves numpy on its baseline loops, the same on every machine (and nothing is disabled that the machine
    lacks)."""
    from numpy._core import _multiarray_umath as umath

    return " ".join(f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f))


def environment(name: str, base=None) -> dict:
    """``base`` (default: this process's environment) with ``KERNEL`` and the named environment on top."""
    if name not in NAMES:
        raise ValueError(f"name must be one of {sorted(NAMES)}, got {name!r}")
    extra = dict(NAMES[name])
    if "NPY_DISABLE_CPU_FEATURES" in extra:
        extra["NPY_DISABLE_CPU_FEATURES"] = numpy_above_baseline()
    return {**(os.environ if base is None else base), **KERNEL, **extra}


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[1] != "--":
        raise SystemExit(f"usage: {sys.argv[0]} {{{','.join(NAMES)}}} -- COMMAND [ARGS...]")
    os.execvpe(argv[2], argv[2:], environment(argv[0]))


if __name__ == "__main__":
    main(sys.argv[1:])
