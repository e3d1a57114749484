"""Test the tests: each chapter's closing checks must fail when a formula of attnlib is replaced by a plausible
wrong one.

For each swap below, the chapter that is responsible for catching it is executed top to bottom (as nbval
does: same kernel environment, one BLAS thread) with a first cell that replaces the attnlib function by the
wrong one everywhere attnlib refers to it (every module of the package whose attribute *is* the original
function object). Every cell runs, even after an error, and the chapter's closing cell ("Checks run on every
build") must stop on an ``AssertionError``: the checks reject the wrong formula. Exercises whose own asserts
also fail are reported, but do not count.

The swaps:

================================  ==============================================================  =========
swap                              wrong formula                                                   caught by
================================  ==============================================================  =========
rho for theta                     spike strength alpha ||mu||^2 / kappa (the paper's statement)   03
MP_delta for the bulk             the bulk law replaced by kappa MP_delta (density and edges)     02
sample outlier at population      the sample outlier placed at the population outlier             04
one-stage overlap                 the sample overlap without the population factor 1 - delta/x^2  04
strictly causal weights           causal(T, tau) replaced by the strictly causal variant          06
mean weights for the optimum      optimal(R) replaced by mean pooling                             05
bulk ignoring T_eff               the fourth-moment excess of finite T set to 0                   02
Gaussian outlier fluctuations     the outlier variance with beta_4 = 3 whatever the weights       09
CLT-width critical window         the window width proportional to d^(-1/2), not d^(-1/3)         09
================================  ==============================================================  =========

The runs take a chapter's execution time each; they are spread over the machine's cores with a process pool
(each run is a separate kernel).
"""

from __future__ import annotations

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
    import attnlib, attnlib.theory, attnlib.theory._spikes, attnlib.theory._law, attnlib.weights, attnlib.mixing
    import attnlib.fluctuations

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

PATCHES = {
    "rho for theta": ("03_population_spike", """
        _S = attnlib.theory._spikes
        _swap(_S, "spike_strength", lambda alpha, kappa, mu_norm2, delta: _S.summary_snr(alpha, kappa, mu_norm2))
    """),
    "MP_delta for the bulk": ("02_bulk_law", """
        _L = attnlib.theory._law
        _mp_density, _mp_edges = _L.mp_density, _L.mp_edges
        _swap(_L, "bulk_density", lambda x, delta, gamma, kappa=1.0: _mp_density(x, delta, kappa))
        _swap(_L, "bulk_edges", lambda delta, gamma, kappa=1.0: _mp_edges(delta, kappa))
    """),
    "sample outlier at population": ("04_sample_spike", """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            moved = np.where(np.isfinite(sp.sample_eigenvalue), sp.population_eigenvalue, np.nan)
            return dataclasses.replace(sp, sample_eigenvalue=moved if np.ndim(moved) else float(moved))
        _swap(_S, "spike", _wrong)
    """),
    "one-stage overlap": ("04_sample_spike", """
        import dataclasses
        _S = attnlib.theory._spikes
        _spike = _S.spike
        def _wrong(theta, delta, gamma, kappa=1.0, *, direction="spike"):
            sp = _spike(theta, delta, gamma, kappa, direction=direction)
            x = np.asarray(sp.theta, dtype=float) - delta
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(x > np.sqrt(delta), 1.0 - delta / x**2, 1.0)
                one_stage = np.where(sp.sample_overlap > 0, np.minimum(sp.sample_overlap / factor, 1.0), 0.0)
            return dataclasses.replace(sp, sample_overlap=one_stage if np.ndim(one_stage) else float(one_stage))
        _swap(_S, "spike", _wrong)
    """),
    "strictly causal weights": ("06_causal_attention", """
        _W = attnlib.weights
        _causal = _W.causal
        _swap(_W, "causal", lambda T, tau=0.0, *, strict=False: _causal(T, tau, strict=True))
    """),
    "mean weights for the optimum": ("05_optimal_weights", """
        _W = attnlib.weights
        def _wrong(R, *, normalize="sum", tol=1e-10):
            w = _W.mean(np.asarray(R).shape[0])
            return w / np.linalg.norm(w) if normalize == "norm" else w
        _swap(_W, "optimal", _wrong)
    """),
    "bulk ignoring T_eff": ("02_bulk_law", """
        _swap(attnlib.mixing, "m4_shift", lambda delta, gamma, w: 0.0)
    """),
    "Gaussian outlier fluctuations": ("09_finite_size", """
        _F = attnlib.fluctuations
        _variance = _F.outlier_variance
        def _wrong(delta, gamma, theta, d, *, kappa=1.0, mu_norm2=0.0, beta4=3.0):
            return _variance(delta, gamma, theta, d, kappa=kappa, mu_norm2=mu_norm2, beta4=3.0)
        _swap(_F, "outlier_variance", _wrong)
    """),
    "CLT-width critical window": ("09_finite_size", """
        _F = attnlib.fluctuations
        _width = _F.window_width
        _swap(_F, "window_width", lambda delta, gamma, d: _width(delta, gamma, 1) * d ** -0.5)
    """),
}


def _checks_cell(nb) -> int:
    """Index of the code cell of the section "Checks run on every build" (the chapter's closing asserts)."""
    in_checks = False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            in_checks = any(line.startswith("## Checks run on every build") for line in cell.source.splitlines()) \
                or (in_checks and not any(line.startswith("## ") for line in cell.source.splitlines()))
        elif in_checks and "assert" in cell.source:
            return i
    raise ValueError("no 'Checks run on every build' code cell found")


def run_swapped(swap: str) -> tuple[str, str]:
    """Execute the chapter responsible for ``swap`` with the wrong formula, every cell even after an error.

    Returns (outcome, detail): outcome "checks" if the chapter's closing checks cell stopped on an
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
    checks = _checks_cell(nb)
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
    detail = f"{chapter}: cells that failed {failed} (checks cell {checks})"
    if failed.get(checks) == "AssertionError":
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
