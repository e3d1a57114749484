"""Repository-wide pytest configuration.

Kernels started by nbval inherit this process's environment, on top of which it sets the kernel environment of
``scripts/environments.py`` (no progress bars in outputs, one BLAS thread, a fixed hash seed), the one place
it is defined. ``make test`` runs nbval as another CPU would (``environments.OTHER_CPU``).

Under pytest-xdist, ``make test`` hands out whole test files (``--dist loadfile``, so that module fixtures are
computed once and a notebook's cells run in one kernel) in the order set below (``--no-loadscope-reorder``):
the files that take tens of seconds first, so that no long file starts last while the other core idles.
"""

import os

import pytest

from scripts.environments import KERNEL

os.environ.update(KERNEL)

# Files of tens of seconds: unit tests (a fresh venv, the benchmarks, the wrong formulas of chapters 9 and 10, the
# explorers' payloads and stills, dask and process pools), browser tests (the pages, each opened once, in four
# classes of 45-105 s; the explorers; the lab) and nbval (the chapters that execute longest, 15-30 s).
SLOW_FILES = ("tests/test_package.py", "tests/test_bench_smoke.py", "tests/wrong_formulas/test_ch09.py",
              "tests/test_webexplorer.py", "tests/test_stills.py", "tests/wrong_formulas/test_ch10.py",
              "tests/test_scaleout.py", "tests/browser/test_book_in_browser.py",
              "tests/browser/test_live_explorers.py", "tests/browser/test_lab_in_browser.py",
              *(f"book/{page}.ipynb" for page in ("15_heads_and_layers", "10_attention_in_practice", "07_experiments",
                                                  "11_universality", "12_bulk_law_derivations", "03_population_spike",
                                                  "04_sample_spike", "intro", "09_finite_size",
                                                  "14_weights_derivations", "13_spike_derivations", "your_problem")))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Run the slow files first (in the order of ``SLOW_FILES``), then the rest in collection order."""
    def rank(item):
        path = item.nodeid.split("::")[0]
        return SLOW_FILES.index(path) if path in SLOW_FILES else len(SLOW_FILES)

    items.sort(key=rank)
