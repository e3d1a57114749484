"""The JavaScript port of attnlib.theory.heads (``_ext/web/attnlib-kinds-heads.js``, window.attnlibWeb.heads)
against attnlib, in Chromium, as tests/browser/test_js_theory.py does for the other closed forms (its helpers,
its tolerance of 1e-9 relative).

On 150 random settings of the "heads" explorer (every family, 1 to 4 causal heads at random tau, even heads
anti-causal or not, delta in [0.05, 2], gamma in [0.01, 3] log-uniform, ||mu||^2 in [0, 4]): the thresholds of
every spike at both levels, the outliers and overlaps at ||mu||^2, the bulk and population edges and the
critical point. Two plausible wrong formulas planted in the JS must fail the comparison.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib.model import positional

from .conftest import ENABLED

if not ENABLED:
    pytest.skip("browser test (ATTNLIB_BROWSER_TEST=1)", allow_module_level=True)

from .test_js_theory import (TOLERANCE, evaluate_json, live_explorers, other_parameters,  # noqa: E402
                             theory_source)
from attnlib import theory


HEADS_JS = live_explorers.WEB_DIR / "attnlib-kinds-heads.js"
N_HEADS = 150

EVALUATE_HEADS_JS = """
(points) => {
  const T = window.attnlibTheory, Hd = window.attnlibWeb.heads;
  const num = (v) => (Number.isFinite(v) ? v : (v === Infinity ? 1e308 : null));
  return points.map((p) => {
    const R = T.correlation(p.family, 16, p);
    const W = Hd.headsMatrix(16, p.taus, p.reversed);
    const [A, B] = Hd.headMatrices(R, W);
    const [pop, smp] = Hd.thresholds(R, W, p.delta, p.gamma);
    const sp = Hd.signalSpikes(R, W, p.delta, p.gamma, p.mu2);
    return {thr_pop: pop.map(num), thr_smp: smp.map(num), pop_eig: sp.population_eigenvalue.map(num),
            smp_eig: sp.sample_eigenvalue.map(num), pop_ov: sp.population_overlap, smp_ov: sp.sample_overlap,
            edge: Hd.bulkUpperEdge(B, p.delta, p.gamma), pop_edge: Hd.populationEdge(B, p.delta),
            y_star: Hd.criticalPoint(B, p.delta, p.gamma)};
  });
}
"""


def heads_points() -> list[dict]:
    from attnlib.model import heads as model_heads
    from attnlib.theory import heads as theory_heads

    rng = np.random.default_rng(20261206)
    out = []
    for _ in range(N_HEADS):
        H = int(rng.integers(1, 5))
        p = {"family": str(rng.choice(positional.FAMILIES)), "r": float(rng.uniform(0, 0.95)),
             "L": int(rng.integers(1, 9)), "taus": [float(t) for t in rng.choice(np.arange(-4, 8.5, 0.5), H)],
             "reversed": [j for j in (1, 3) if j < H] if rng.random() < 0.5 else [],
             "delta": float(10 ** rng.uniform(np.log10(0.05), np.log10(2))),
             "gamma": float(10 ** rng.uniform(-2, np.log10(3))), "mu2": float(rng.uniform(0, 4))}
        other_parameters(rng, 16, p)
        R = positional.family(p["family"], 16, **{k: p[k] for k in positional.PARAMETERS}).R
        W = model_heads.causal_heads(16, p["taus"], reversed_heads=tuple(p["reversed"]))
        A, B = theory_heads.head_matrices(R, W)
        pop, smp = theory_heads.head_thresholds(p["delta"], p["gamma"], R=R, W=W)
        sp = theory_heads.signal_spikes(p["delta"], p["gamma"], R=R, W=W, mu_norm2=p["mu2"])
        p["ref"] = {"thr_pop": pop, "thr_smp": smp, "pop_eig": sp.population_eigenvalue,
                    "smp_eig": sp.sample_eigenvalue, "pop_ov": sp.population_overlap, "smp_ov": sp.sample_overlap,
                    "edge": theory.HeadsBulk(p["delta"], p["gamma"], B).upper,
                    "pop_edge": theory_heads.population_edge(p["delta"], B=B),
                    "y_star": theory_heads.critical_point(B, p["delta"], p["gamma"])}
        out.append(p)
    return out


def heads_differences(js: list, points: list) -> dict:
    """The largest relative difference of each quantity; a nan (missing outlier), an inf (no threshold) or a
    zero must be the same in both (a mismatch counts as inf)."""
    worst: dict = {}
    for got, p in zip(js, points):
        for key, ref in p["ref"].items():
            a = np.array([np.nan if v is None else v for v in np.atleast_1d(got[key])], dtype=float)
            a[a == 1e308] = np.inf
            b = np.atleast_1d(np.asarray(ref, dtype=float))
            same = (np.isnan(a) == np.isnan(b)) & (np.isinf(a) == np.isinf(b)) & ((a == 0) == (b == 0))
            fin = np.isfinite(a) & np.isfinite(b) & (b != 0)
            rel = np.abs(a[fin] / b[fin] - 1) if fin.any() else np.zeros(1)
            worst[key] = max(worst.get(key, 0.0), float(rel.max()) if same.all() else float("inf"))
    return worst


@pytest.fixture(scope="module")
def head_cases():
    return heads_points()


def _evaluate_heads(browser, source: str, points: list) -> list:
    page = browser.new_page()
    try:
        page.add_script_tag(content=source)
        return evaluate_json(page, EVALUATE_HEADS_JS, [{k: v for k, v in p.items() if k != "ref"} for p in points])
    finally:
        page.close()


def test_js_heads_theory_matches_attnlib(head_cases, browser):
    spikes = sum(int(np.sum(np.isfinite(p["ref"]["smp_eig"]))) for p in head_cases)
    assert spikes > 100 and sum(len(p["taus"]) > 1 for p in head_cases) > 80  # outliers and many heads reached
    worst = heads_differences(_evaluate_heads(browser, theory_source() + HEADS_JS.read_text("utf-8"), head_cases),
                              head_cases)
    print("\nJS heads theory vs attnlib:", {k: f"{v:.3g}" for k, v in sorted(worst.items())})
    assert max(worst.values()) <= TOLERANCE, worst


@pytest.mark.parametrize("old, new", [
    ("return derivative ? 1.0 + gamma * s : y * (1.0 + gamma * s);",  # gamma, not H gamma: the heads' dimension
     "return derivative ? 1.0 + gamma * s / b.length : y * (1.0 + gamma * s / b.length);"),
    ("const psi = 2.0 / (a + r);", "const psi = (a + r) / (2.0 * delta);"),  # the other root of the quadratic
    ("pop = quad(matmul(Phi, Phi)) / -quad(dPhi);", "pop = 1.0 - delta / (l - delta) ** 2;"),
])
def test_a_wrong_heads_formula_is_caught(head_cases, browser, old, new):
    from playwright.sync_api import Error

    source = theory_source() + HEADS_JS.read_text("utf-8")
    assert source.count(old) == 1, old
    try:
        js = _evaluate_heads(browser, source.replace(old, new), head_cases[:40])
    except Error as err:  # the wrong formula broke the computation: caught as well
        assert "RangeError" in str(err) or "TypeError" in str(err), err
        return
    worst = heads_differences(js, head_cases[:40])
    assert max(worst.values()) > TOLERANCE, worst
