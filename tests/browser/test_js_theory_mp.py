"""The JavaScript port of the Marchenko-Pastur law of the primer's explorer (``_ext/web/attnlib-theory-mp.js``)
against attnlib, in Chromium, as test_js_theory.py does for the other closed forms.

3,000 random points (fixed seed): ratios log-uniform on [1e-3, 1e2] (with and without an atom at 0), and x
inside the support, within 1e-6..1e-2 of either edge (both sides), beyond the upper edge and below 0. At each,
``mp_density`` and the real and imaginary parts of ``mp_stieltjes_complex`` (the boundary value G(x + i0) on
the real axis) must agree with attnlib to a relative difference of at most 1e-9 (a zero must be a zero in
both), evaluated point by point and, as the explorer draws its curves, as rows of 8 points of one ratio. The
comparison must reject two plausible wrong formulas swapped into the JS (``MUTATIONS``).
"""

from __future__ import annotations

import numpy as np
import pytest

from attnlib import theory

from .conftest import ENABLED

if not ENABLED:
    pytest.skip("browser test (ATTNLIB_BROWSER_TEST=1)", allow_module_level=True)

from .test_js_theory import TOLERANCE, _log_uniform, evaluate_json, rel_diff, theory_source  # noqa: E402

N_POINTS = 3_000
ROWS, ROW = 200, 8

EVALUATE_JS = """
({x, ratio, row_x, row_ratio}) => {
  const T = window.attnlibTheory;
  const out = {density: [], re: [], im: [], row_density: [], row_re: [], row_im: []};
  for (let i = 0; i < x.length; i++) {
    out.density.push(T.mp_density(x[i], ratio[i]));
    const [re, im] = T.mp_stieltjes_complex(x[i], ratio[i]);
    out.re.push(re); out.im.push(im);
  }
  for (let i = 0; i < row_x.length; i++) {  // x an array, as the explorer's curves
    out.row_density.push(...T.mp_density(row_x[i], row_ratio[i]));
    const [re, im] = T.mp_stieltjes_complex(row_x[i], row_ratio[i]);
    out.row_re.push(...re); out.row_im.push(...im);
  }
  return out;
}
"""

# One formula replaced by a plausible wrong one: the comparison must notice each.
MUTATIONS = {
    "density over pi ratio x, not 2 pi ratio x": ("/ (2.0 * Math.PI * ratio * scale * x)",
                                                 "/ (Math.PI * ratio * scale * x)"),
    "Stieltjes transform: the other root of the quadratic": ("(x + c - 1.0 - rootRe) * scale",
                                                             "(x + c - 1.0 + rootRe) * scale"),
}


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(20261205)
    n = N_POINTS
    ratio = _log_uniform(rng, 1e-3, 1e2, n)
    lo, hi = theory.MarchenkoPastur(ratio).support
    where = rng.choice(5, size=n, p=[0.4, 0.2, 0.2, 0.1, 0.1])
    gap = 10.0 ** rng.uniform(-6, -2, n) * rng.choice([-1.0, 1.0], n)
    x = np.select(
        [where == 0, where == 1, where == 2, where == 3],
        [lo + rng.uniform(0, 1, n) * (hi - lo),  # inside
         hi * (1.0 + gap),  # near the upper edge, either side
         lo * (1.0 + gap),  # near the lower edge, either side
         hi * (1.0 + 10.0 ** rng.uniform(-2, 1, n))],  # beyond the upper edge
        default=-rng.uniform(1e-3, 1, n) * hi,  # below 0
    )
    x = np.where(x == 0, 1e-3, x)  # G has its pole or branch point at 0
    arg = {"x": x, "ratio": ratio, "row_ratio": ratio[:ROWS],
           "row_x": np.stack([x[(np.arange(ROWS) * ROW + k) % n] for k in range(ROW)], axis=1)}
    G = np.array([theory.mp_stieltjes_complex(v, r) for v, r in zip(x, ratio)])
    G_rows = np.concatenate([theory.mp_stieltjes_complex(row, r) for row, r in zip(arg["row_x"], arg["row_ratio"])])
    ref = {"density": theory.MarchenkoPastur(ratio).density(x), "re": G.real, "im": G.imag,
           "row_density": np.concatenate([theory.MarchenkoPastur(r).density(row) for row, r in zip(arg["row_x"], arg["row_ratio"])]),
           "row_re": G_rows.real, "row_im": G_rows.imag}
    return arg, ref


def evaluate(browser, source: str, arg: dict) -> dict:
    page = browser.new_page()
    try:
        page.add_script_tag(content=source)
        return evaluate_json(page, EVALUATE_JS, {k: np.asarray(v).tolist() for k, v in arg.items()})
    finally:
        page.close()


def worst(js: dict, ref: dict) -> dict:
    return {key: float(rel_diff(js[key], ref[key]).max()) for key in ref}


def test_points_cover_the_ranges(points):
    arg, ref = points
    assert np.sum(ref["density"] > 0) > 1000 and np.sum(ref["density"] == 0) > 1000
    assert np.sum(ref["im"] == 0) > 1000 and np.sum(ref["im"] < 0) > 1000
    assert np.sum(arg["ratio"] > 1) > 1000 and np.sum(arg["x"] < 0) > 200


def test_js_marchenko_pastur_matches_attnlib(points, browser):
    arg, ref = points
    diff = worst(evaluate(browser, theory_source(), arg), ref)
    print(f"\nJS Marchenko-Pastur vs attnlib on {arg['x'].size + arg['row_x'].size} values, largest relative "
          f"differences: {diff}")
    bad = {key: value for key, value in diff.items() if not value <= TOLERANCE}
    assert not bad, f"JS and attnlib differ by more than {TOLERANCE:g} (relative): {bad}"


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_a_wrong_formula_is_caught(points, browser, mutation):
    arg, ref = points
    old, new = MUTATIONS[mutation]
    source = theory_source()
    assert source.count(old) == 1, f"the mutation's target is not (uniquely) in the JS scripts: {old!r}"
    diff = worst(evaluate(browser, source.replace(old, new), arg), ref)
    assert max(diff.values()) > TOLERANCE, f"a JS module with {mutation} passed the comparison: {diff}"
