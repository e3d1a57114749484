#!/usr/bin/env python
"""Benchmarks of attnlib's speed, as ratios measured side by side in one run.

Usage (from the repository root):

    .venv/bin/python bench/run.py                 # density, draw, stages, precision, sweep; writes bench/results.md
    .venv/bin/python bench/run.py all             # the same plus the whole book (nbval + HTML build)
    .venv/bin/python bench/run.py draw sweep      # a selection
    .venv/bin/python bench/run.py --quick         # tiny sizes, a few seconds: the smoke run of tests/test_bench_smoke.py

Benchmarks (issue 8):

density     attnlib.theory.bulk_density on 10^5 points against (a) freealg's AlgebraicForm fitted to the exact
            Stieltjes transform of the same law (bench extra, skipped if not installed) and (b) a Monte-Carlo
            histogram (50 bins, L1 distance) from the model's own simulation; exactness against a 50-digit
            mpmath reference (bench extra; long-double Newton refinement if mpmath is missing).
draw        one simulation draw (vocabulary + pooling + top eigenpair + overlaps), V = 2d, N = 4d, T = 16:
            attnlib.simulate against the naive path (fancy-indexing pooling loop, dense eigh with vectors) and
            against the floor S = C^T C / N plus eigsh(S, k=1) on an already pooled C.
stages      per-stage breakdown of one draw at d = 1000 (k = 2, as in sweep): the path before issue 8 (replayed
            here) and the current one.
precision   simulate's single-precision Lanczos path against the same draws in double precision.
sweep       30 signal strengths x 10 trials at d = 1000 through attnlib.sweep (wall time).
book        wall time of nbval over every chapter and of the strict HTML build (into a temporary folder).

The machine may be shared: every timing is the minimum over repeats, cases of one comparison are run in
rotating order within each round, and the load average is recorded with the results.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(REPO))
os.environ.setdefault("ATTNLIB_PROGRESS", "0")

import scipy  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from scipy.integrate import quad  # noqa: E402
from scipy.sparse.linalg import eigsh  # noqa: E402

import attnlib  # noqa: E402
from attnlib import Setting, model, positional as P, simulation, theory  # noqa: E402

DEFAULT = ("density", "draw", "stages", "precision", "sweep")
ALL = DEFAULT + ("book",)
DELTA, GAMMA = 0.5, 0.25  # V = 2d, N = 4d throughout


# ----------------------------------------------------------------------------- timing helpers


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
    if r >= 100:
        return f"{r:,.0f}×"
    return f"{r:.3g}×"


def md_table(header, rows) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


class Report:
    """Summary rows (the table of ratios) and per-benchmark detail sections."""

    def __init__(self):
        self.rows = []
        self.sections = []

    def row(self, item, what, measured, ratio="–", target="–", met="–"):
        self.rows.append((item, what, measured, ratio, target, met))

    def section(self, title, text):
        self.sections.append((title, text))
        print(f"\n## {title}\n\n{text}\n", flush=True)

    def summary(self) -> str:
        return md_table(("#", "benchmark", "measured", "ratio", "target", "met"), self.rows)


def verdict(ok: bool) -> str:
    return "yes" if ok else "NO"


def loadavg() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


# ----------------------------------------------------------------------------- 1. bulk density


def _freealg_stieltjes(delta, gamma):
    """Exact Stieltjes transform m(z) = int rho(x) / (x - z) dx of MP_delta ⊠ MP_gamma (freealg's sign
    convention), vectorised over complex z: root psi = z G - 1 of delta gamma psi^3 + sigma_2 psi^2 +
    (sigma_1 - z) psi + 1 = 0 with Im m of the sign of Im z, the branch ~ -1/z at infinity."""
    s1, s2, s3 = 1 + delta + gamma, delta + gamma + delta * gamma, delta * gamma

    def stieltjes(z):
        z = np.asarray(z, dtype=complex)
        shape, z = z.shape, z.ravel()
        comp = np.zeros((z.size, 3, 3), complex)  # companion matrix of the monic cubic in psi
        comp[:, 0, 0], comp[:, 0, 1], comp[:, 0, 2] = -s2 / s3, -(s1 - z) / s3, -1 / s3
        comp[:, 1, 0] = comp[:, 2, 1] = 1
        psi = np.linalg.eigvals(comp)
        m = -(psi + 1) / z[:, None]
        score = np.where(m.imag * z.imag[:, None] > 0, 0.0, 1e300) + np.abs(psi)
        return m[np.arange(z.size), np.argmin(score, axis=1)].reshape(shape)

    return stieltjes


def _reference_density(x, delta, gamma):
    """Independent high-precision density: the complex root psi of s3 psi^3 + s2 psi^2 + (s1 - x) psi + 1,
    rho = |Im psi| / (pi x). mpmath polyroots at 50 digits if available, else numpy roots refined by Newton
    in long double. Returns (rho, name of the method)."""
    try:
        import mpmath
    except ImportError:
        mpmath = None
    if mpmath is not None:
        mpmath.mp.dps = 50
        d, g = mpmath.mpf(delta), mpmath.mpf(gamma)
        s1, s2, s3 = 1 + d + g, d + g + d * g, d * g
        out = []
        for xv in x:
            xm = mpmath.mpf(float(xv))
            roots = mpmath.polyroots([s3, s2, s1 - xm, 1], maxsteps=200, extraprec=200)
            im = max(abs(mpmath.im(r)) for r in roots)
            out.append(float(im / (mpmath.pi * xm)) if im > mpmath.mpf(10) ** -40 else 0.0)
        return np.array(out), "mpmath polyroots, 50 digits"
    s1, s2, s3 = 1 + delta + gamma, delta + gamma + delta * gamma, delta * gamma
    out = []
    for xv in x:
        roots = np.roots([s3, s2, s1 - xv, 1]).astype(np.clongdouble)
        c = [np.longdouble(s3), np.longdouble(s2), np.longdouble(s1) - np.longdouble(xv), np.longdouble(1)]
        for _ in range(8):  # Newton in long double from numpy's roots
            f = ((c[0] * roots + c[1]) * roots + c[2]) * roots + c[3]
            df = (3 * c[0] * roots + 2 * c[1]) * roots + c[2]
            roots = roots - f / df
        im = np.max(np.abs(roots.imag))
        out.append(float(im / (np.pi * np.longdouble(xv))) if im > 1e-15 else 0.0)
    return np.array(out), "numpy roots + long-double Newton (mpmath not installed)"


def _bin_masses(edges, delta, gamma):
    return np.array([quad(lambda t: theory.bulk_density(t, delta, gamma), a, b, epsabs=1e-13, limit=200)[0]
                     for a, b in zip(edges[:-1], edges[1:])])


def bench_density(rep: Report, quick: bool, repeats: int):
    lo, hi = theory.bulk_edges(DELTA, GAMMA)
    n_big, n_small = (10_000, 2_000) if quick else (100_000, 2_000)
    x_big = np.linspace(lo, hi, n_big + 2)[1:-1]
    x_small = np.linspace(lo, hi, n_small + 2)[1:-1]
    bulk_density = theory.bulk_density
    t = side_by_side({"big": lambda: bulk_density(x_big, DELTA, GAMMA),
                      "small": lambda: bulk_density(x_small, DELTA, GAMMA)}, max(repeats, 5) * 4)
    t_big, t_small = t["big"], t["small"]

    # exactness against an independent high-precision reference, including points close to both edges
    width = hi - lo
    near = np.concatenate([[lo + e * width, hi - e * width] for e in 10.0 ** -np.arange(2, 10)])
    outside = np.array([0.5 * lo, hi + 0.01 * width, 2 * hi])
    x_ref = np.concatenate([np.linspace(lo, hi, (40 if quick else 300) + 2)[1:-1], near, outside])
    ref, ref_name = _reference_density(x_ref, DELTA, GAMMA)
    err = np.abs(bulk_density(x_ref, DELTA, GAMMA) - ref)
    max_err = float(err.max())
    rep.row(1, f"`bulk_density`, {n_big:,} points", fmt_time(t_big))
    rep.row(1, f"`bulk_density` exactness ({len(x_ref)} points, edges to 1e-9 of the width)",
            f"max abs error {max_err:.1e}", "–", "≤ 1e-10", verdict(max_err <= 1e-10))
    lines = [f"(δ, γ) = ({DELTA}, {GAMMA}), support [{lo:.4f}, {hi:.4f}].",
             f"`bulk_density` (vectorised Cardano): {fmt_time(t_small)} for {n_small:,} points, "
             f"{fmt_time(t_big)} for {n_big:,} points.",
             f"Exactness: max |error| = {max_err:.2e} against {ref_name} on {len(x_ref)} points "
             f"({len(near)} of them between 1e-2 and 1e-9 of the support width from an edge, 3 outside).", ""]

    # freealg's AlgebraicForm, fitted to the exact Stieltjes transform of the same law
    try:
        import freealg
    except ImportError:
        freealg = None
    if quick or freealg is None:
        why = "quick run" if quick else "freealg not installed (`pip install -e .[bench]`)"
        rep.row(1, "freealg AlgebraicForm, same curve", f"skipped ({why})", "–", "≥ 1000× slower", "–")
        lines.append(f"freealg: skipped ({why}).")
    else:
        import warnings

        stieltjes = _freealg_stieltjes(DELTA, GAMMA)

        def fa(x):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                af = freealg.AlgebraicForm(stieltjes, support=[(lo, hi)])
                af.fit(deg_m=3, deg_z=3)
                return af.density(x)

        t_cold, rho = timed(lambda: fa(x_small))  # first call: numba compiles
        fa_err = float(np.abs(rho - bulk_density(x_small, DELTA, GAMMA)).max())
        t_warm = side_by_side({"fa": lambda: fa(x_small)}, repeats)["fa"]
        ratio = t_warm / t_small
        rep.row(1, f"freealg AlgebraicForm (fit + density), {n_small:,} points, warm",
                f"{fmt_time(t_warm)} (first call {fmt_time(t_cold)}); max abs error {fa_err:.1e}",
                f"{fmt_ratio(ratio)} slower than `bulk_density`", "≥ 1000×", verdict(ratio >= 1000))
        lines.append(f"freealg {freealg.__version__} AlgebraicForm(exact Stieltjes transform, support), "
                     f"fit(deg_m=3, deg_z=3) + density: first call {fmt_time(t_cold)} (numba compilation), warm "
                     f"{fmt_time(t_warm)} for {n_small:,} points (max abs error {fa_err:.1e} against "
                     f"`bulk_density`): {fmt_ratio(ratio)} the time of `bulk_density` on the same points.")
        t_fa_big, rho_big = timed(lambda: fa(x_big))
        ratio_big = t_fa_big / t_big
        rep.row(1, f"freealg AlgebraicForm, {n_big:,} points, warm", fmt_time(t_fa_big),
                f"{fmt_ratio(ratio_big)} slower than `bulk_density`", "≥ 1000×", verdict(ratio_big >= 1000))
        lines.append(f"On {n_big:,} points (one warm run): {fmt_time(t_fa_big)}, {fmt_ratio(ratio_big)}.")
    lines.append("")

    # Monte-Carlo histogram from the model's own simulation (no signal, T = 16 independent signs, mean pooling)
    edges = np.linspace(lo, hi, 51)
    masses = _bin_masses(edges, DELTA, GAMMA)
    draws = 2
    sizes = (40, 80) if quick else (250, 500, 1000, 2000)
    mc_rows, l1s, per_draw = [], [], []
    for d in sizes:
        s = Setting(d=d, V=2 * d, N=4 * d, mu_norm2=0.0, process=P.independent(16), weights="mean")
        rng = np.random.default_rng(20260530 + d)
        counts, best = np.zeros(50), math.inf
        for _ in range(draws):
            t_mc, dr = timed(lambda: attnlib.simulate(s, rng, full_spectrum=True))
            best = min(best, t_mc)
            counts += np.histogram(np.clip(dr.eigenvalues / s.kappa, lo, hi), bins=edges)[0]
        l1 = float(np.abs(counts / (draws * d) - masses).sum())
        l1s.append(l1)
        per_draw.append(best)
        mc_rows.append((d, draws, fmt_time(best), f"{l1:.4f}"))
    # L1 (seeded, so free of timing noise) against d; the cost of a draw grows like d^3 (S and its spectrum)
    slope = -np.polyfit(np.log(sizes), np.log(l1s), 1)[0]
    d_star = sizes[-1] * (l1s[-1] / 1e-3) ** (1.0 / slope) if slope > 0 else math.inf
    t_target = draws * per_draw[-1] * (d_star / sizes[-1]) ** 3
    t_largest = draws * per_draw[-1]
    rep.row(1, f"Monte-Carlo histogram (50 bins), {draws} draws at d = {sizes[-1]}",
            f"{fmt_time(t_largest)} for L1 = {l1s[-1]:.3f}", f"{fmt_ratio(t_largest / t_big)} slower than `bulk_density`")
    if not quick:  # two tiny runs say nothing about the asymptotic rate
        rep.row(1, f"Monte-Carlo histogram to L1 = 1e-3 (extrapolated: d ≈ {d_star:,.0f})", fmt_time(t_target),
                f"{fmt_ratio(t_target / t_big)} slower than `bulk_density`")
    gb = 4 * d_star * d_star * 8 / 2**30
    lines += ["Monte-Carlo: eigenvalue histogram (50 bins on the support, eigenvalues clipped into it) of S from "
              "`attnlib.simulate(..., full_spectrum=True)` with no signal, T = 16 independent signs, mean pooling, "
              f"{draws} draws per size pooled; L1 = sum over bins of |histogram fraction - exact bin mass| (bin masses "
              "by adaptive quadrature of `bulk_density`). Time: per draw, minimum of the draws.", "",
              md_table(("d", "draws", "time per draw", "L1"), mc_rows)]
    if not quick:
        lines += ["", f"L1 falls like d^-{slope:.2f} over these sizes; L1 = 1e-3 would need d ≈ {d_star:,.0f} "
                  f"({draws} draws; the pooled matrix alone would take {gb:,.0f} GiB in double precision), about "
                  f"{fmt_time(t_target)} if the cost of a draw keeps growing like d^3 from the largest size "
                  f"measured: {fmt_ratio(t_target / t_big)} the time of `bulk_density` on {n_big:,} points, which is "
                  "exact to the precision above."]
    rep.section("1. Bulk density", "\n".join(lines))


# ----------------------------------------------------------------------------- 2. one draw


def draw_setting(d: int) -> Setting:
    return Setting(d=d, V=2 * d, N=4 * d, mu_norm2=1.0, process=P.markov(16, 0.6), weights="mean")


def naive_draw(setting: Setting, rng):
    """The straightforward path: same random draws as attnlib.simulate, pooling by a loop over positions with
    fancy indexing, centering by a copy, S = C^T C / N in double precision and a dense eigh with eigenvectors."""
    voc = model.draw_vocabulary(setting.d, setting.V, setting.mu_norm2, rng)
    xi = setting.process.sample(setting.N, rng)
    tokens = model.sample_tokens(xi, setting.V, rng)
    C = np.zeros((setting.N, setting.d))
    for t, w in enumerate(setting.weights):
        C += w * voc.table[tokens[:, t]]
    C = C - C.mean(axis=0)
    S = C.T @ C / setting.N
    vals, vecs = np.linalg.eigh(S)
    top = vecs[:, -1]
    return vals[-1], [simulation.squared_cosine(top, v) for v in (voc.u, voc.h, voc.g)]


def bench_draw(rep: Report, quick: bool, repeats: int):
    sizes = (64, 128) if quick else (1000, 2000, 4000)
    rows = []
    for d in sizes:
        s = draw_setting(d)
        seed = 7
        fast = attnlib.simulate(s, np.random.default_rng(seed))
        top_naive, ov_naive = naive_draw(s, np.random.default_rng(seed))
        agree_val = abs(fast.top - top_naive) / top_naive
        agree_ov = max(abs(a - b) for a, b in zip((fast.overlap_u, fast.overlap_h, fast.overlap_g), ov_naive))
        # the floor: an already pooled and centred C (double precision), then S = C^T C / N and eigsh(S, k=1)
        C = model.draw_pooled(model.draw_vocabulary(s.d, s.V, s.mu_norm2, np.random.default_rng(seed)),
                              s.process, s.weights, s.N, np.random.default_rng(seed + 1))[0]
        C -= C.mean(axis=0)
        C32 = C.astype(np.float32)
        v0 = simulation._start_vector(d)

        def floor():
            S = C.T @ C / s.N
            return eigsh(S, k=1, which="LA", v0=v0)

        def floor32():
            S = C32.T @ C32 / s.N
            with simulation.one_blas_thread():
                return eigsh(S, k=1, which="LA", v0=v0.astype(np.float32))

        reps = repeats if d < 4000 else max(2, repeats - 1)
        t = side_by_side({"fast": lambda: attnlib.simulate(s, np.random.default_rng(seed)),
                          "naive": lambda: naive_draw(s, np.random.default_rng(seed)),
                          "floor": floor, "floor32": floor32}, reps)
        del C, C32
        speedup, vs_floor = t["naive"] / t["fast"], t["fast"] / t["floor"]
        rows.append((d, fmt_time(t["fast"]), fmt_time(t["naive"]), fmt_time(t["floor"]), fmt_time(t["floor32"]),
                     fmt_ratio(speedup), f"{vs_floor:.2f}", f"{agree_val:.1e}", f"{agree_ov:.1e}"))
        big = d == 4000
        rep.row(2, f"one draw d = {d}: naive / fast", f"fast {fmt_time(t['fast'])}, naive {fmt_time(t['naive'])}",
                fmt_ratio(speedup), "≥ 5× at d = 4000" if big else "–", verdict(speedup >= 5) if big else "–")
        rep.row(2, f"one draw d = {d}: fast / floor", f"floor {fmt_time(t['floor'])}", f"{vs_floor:.2f}",
                "≤ 2", verdict(vs_floor <= 2))
    text = ("One draw of the model (V = 2d, N = 4d, T = 16, Markov signs r = 0.6, mean pooling, ||mu||^2 = 1): "
            "vocabulary, sequences, pooling, top eigenpair, overlaps with u, h, g. *fast* = `attnlib.simulate(s, "
            "rng)`; *naive* = same draws, pooling by a loop over positions with fancy indexing, centring by a copy, "
            "S in double precision and `numpy.linalg.eigh` with all eigenvectors; *floor* = `S = C.T @ C / N` "
            "plus `eigsh(S, k=1)` on an already pooled, centred double-precision C (no vocabulary, sampling, "
            "pooling or overlaps); *floor32* = the same in single precision with Lanczos on one BLAS thread, as "
            "the fast path does. Minimum over rounds, cases in rotating order. The last two columns: relative "
            "difference of the top eigenvalue and largest absolute difference of the overlaps between fast and "
            "naive on the same seed.\n\n"
            + md_table(("d", "fast", "naive", "floor", "floor32", "naive/fast", "fast/floor", "Δ top (rel)",
                        "Δ overlaps (abs)"), rows))
    rep.section("2. One simulation draw", text)


# ----------------------------------------------------------------------------- per-stage breakdown


def stages_before(s: Setting, seed: int, k: int) -> dict:
    """The draw as attnlib did it before issue 8 (double precision, COO -> CSR, centring copy, default BLAS
    threads in Lanczos, h and g by two passes)."""
    c = time.perf_counter
    out = {}
    rng = np.random.default_rng(seed)
    t0 = c(); voc = model.draw_vocabulary(s.d, s.V, s.mu_norm2, rng); t1 = c(); out["vocabulary draw"] = t1 - t0
    xi = s.process.sample(s.N, rng); t2 = c(); out["signs"] = t2 - t1
    tok = model.sample_tokens(xi, s.V, rng); t3 = c(); out["tokens"] = t3 - t2
    out["cast to float32"] = 0.0
    N, T = tok.shape
    A = sp.csr_matrix((np.tile(s.weights, N), (np.repeat(np.arange(N), T), tok.ravel())), shape=(N, s.V))
    t4 = c(); out["token matrix"] = t4 - t3
    C = np.asarray(A @ voc.table); t5 = c(); out["pooling"] = t5 - t4
    C = C - C.mean(axis=0); t6 = c(); out["centring"] = t6 - t5
    M = C.T @ C / N; t7 = c(); out["S = CᵀC/N"] = t7 - t6
    vals, vecs = eigsh(M, k=k, which="LA", v0=simulation._start_vector(s.d)); t8 = c(); out["eigsh"] = t8 - t7
    top = vecs[:, np.argmax(vals)]
    [simulation.squared_cosine(top, v) for v in (voc.u, voc.h, voc.g)]; t9 = c(); out["overlaps"] = t9 - t8
    out["total"] = t9 - t0
    return out


def stages_after(s: Setting, seed: int, k: int) -> dict:
    """The current attnlib.simulate, step by step (same private helpers, same order)."""
    c = time.perf_counter
    out = {}
    rng = np.random.default_rng(seed)
    dt = simulation.LANCZOS_DTYPE
    t0 = c(); voc = model.draw_vocabulary(s.d, s.V, s.mu_norm2, rng); t1 = c(); out["vocabulary draw"] = t1 - t0
    xi = s.process.sample(s.N, rng); t2 = c(); out["signs"] = t2 - t1
    tok = model.sample_tokens(xi, s.V, rng); t3 = c(); out["tokens"] = t3 - t2
    E = voc.table.astype(dt); t3b = c(); out["cast to float32"] = t3b - t3
    A = model._token_csr(tok, s.weights, s.V, dtype=dt); t4 = c(); out["token matrix"] = t4 - t3b
    C = model._sparse_times_dense(A, E); t5 = c(); out["pooling"] = t5 - t4
    C -= C.mean(axis=0, dtype=np.float64).astype(dt); t6 = c(); out["centring"] = t6 - t5
    M, _ = simulation._second_moment(C); t7 = c(); out["S = CᵀC/N"] = t7 - t6
    with simulation.one_blas_thread():
        vals, vecs = eigsh(M, k=k, which="LA", v0=simulation._start_vector(s.d).astype(dt))
    t8 = c(); out["eigsh"] = t8 - t7
    top = vecs[:, np.argmax(vals)].astype(float)
    with simulation.one_blas_thread():
        h = voc.signs.astype(float) @ voc.table / voc.V
        g = np.ones(voc.V) @ voc.table / voc.V
    [simulation.squared_cosine(top, v) for v in (voc.u, h, g)]; t9 = c(); out["overlaps"] = t9 - t8
    out["total"] = t9 - t0
    return out


def bench_stages(rep: Report, quick: bool, repeats: int):
    d, k = (128, 2) if quick else (1000, 2)
    s = draw_setting(d)
    best = {"before": {}, "after": {}}
    t_sim = math.inf
    for r in range(max(repeats, 3) + 2):
        for name, fn in ((("before", stages_before), ("after", stages_after))[:: 1 if r % 2 else -1]):
            for stage, t in fn(s, 3, k).items():
                best[name][stage] = min(best[name].get(stage, math.inf), t)
        t_sim = min(t_sim, timed(lambda: attnlib.simulate(s, np.random.default_rng(3), k=k))[0])
    rows = [(stage, fmt_time(best["before"][stage]) if best["before"][stage] else "–",
             fmt_time(best["after"][stage]) if best["after"][stage] else "–") for stage in best["before"]]
    rows.append(("`attnlib.simulate(..., k=2)` as a whole", "–", fmt_time(t_sim)))
    ratio = best["before"]["total"] / best["after"]["total"]
    rep.row(3, f"one draw d = {d}, k = 2 (as in sweep): before / after issue 8",
            f"{fmt_time(best['before']['total'])} → {fmt_time(best['after']['total'])}", fmt_ratio(ratio))
    text = (f"One draw at d = {d} (V = 2d, N = 4d, T = 16), k = {k} eigenpairs as `sweep` asks: each stage's minimum "
            "over rounds (so the stages need not add up to the total's minimum). *before* replays the path "
            "attnlib had before issue 8 (double precision, COO → CSR token matrix, centring by a copy, Lanczos "
            "with default BLAS threads, h and g in two passes); *after* is the current `simulate` step by step.\n\n"
            + md_table(("stage", "before", "after"), rows))
    rep.section("Per-stage breakdown of one draw", text)


# ----------------------------------------------------------------------------- precision of the fast path


def bench_precision(rep: Report, quick: bool, repeats: int):
    d = 100 if quick else 1000
    base = draw_setting(d)
    cases = {
        "strong signal, k=2": (base, dict(k=2)),
        "below threshold, k=2": (base.replace(mu_norm2=0.05, process=P.independent(16)), dict(k=2)),
        "uncentred, k=2": (base, dict(k=2, centered=False)),
        "optimal weights, k=3": (base.replace(weights="optimal", mu_norm2=0.5), dict(k=3)),
        "Gram path N < d, k=2": (base.replace(N=d // 2), dict(k=2)),
    }
    rows, worst_val, worst_ov = [], 0.0, 0.0
    saved = simulation.LANCZOS_DTYPE
    for name, (s, kw) in cases.items():
        draws = {}
        for dt in (np.float32, np.float64):
            simulation.LANCZOS_DTYPE = dt
            try:
                draws[dt] = attnlib.simulate(s, np.random.default_rng(11), **kw)
            finally:
                simulation.LANCZOS_DTYPE = saved
        a, b = draws[np.float32], draws[np.float64]
        dv = float(np.max(np.abs(a.eigenvalues - b.eigenvalues) / np.abs(b.eigenvalues)))
        do = max(abs(getattr(a, f) - getattr(b, f)) for f in ("overlap_u", "overlap_h", "overlap_g"))
        worst_val, worst_ov = max(worst_val, dv), max(worst_ov, do)
        rows.append((name, f"{dv:.1e}", f"{do:.1e}", f"{b.overlap_h:.3f}"))
    rep.row(2, f"float32 fast path vs float64, same draws, d = {d}",
            f"eigenvalues ≤ {worst_val:.1e} rel, overlaps ≤ {worst_ov:.1e} abs", "–", "≤ 1e-5",
            verdict(worst_val <= 1e-5 and worst_ov <= 1e-5))
    text = (f"`simulate` at d = {d} on seed 11 with `simulation.LANCZOS_DTYPE` = float32 (the default) and float64: "
            "same random draws, so the differences are rounding only.\n\n"
            + md_table(("case", "eigenvalues: max rel. diff", "overlaps: max abs. diff", "overlap with h"), rows))
    rep.section("Precision of the single-precision path", text)


# ----------------------------------------------------------------------------- 3. sweep


def bench_sweep(rep: Report, quick: bool, repeats: int):
    d, points, trials = (64, 3, 2) if quick else (1000, 30, 10)
    base = Setting(d=d, V=2 * d, N=4 * d, mu_norm2=0.0, process=P.independent(16), weights="mean")
    x_star = theory.critical_x(base.delta, base.gamma)[0]  # threshold ||mu||^2 for snr = 1
    settings = [base.replace(mu_norm2=m) for m in np.linspace(0.0, 3.0 * x_star, points)]
    cpu0 = time.process_time()
    t, res = timed(lambda: attnlib.sweep(settings, seed=2026, trials=trials))
    cpu = time.process_time() - cpu0
    n = points * trials
    target = 60.0
    work = math.nan
    if not quick:  # single-core work: one trial per point with every BLAS call and the pooling on one thread
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:
            threadpool_limits = None
        if threadpool_limits is not None:
            saved = model._workers
            model._workers = simulation._workers = lambda: 1  # serial draws and serial pooling
            try:
                with threadpool_limits(1):
                    cpu1 = time.process_time()
                    attnlib.sweep(settings, seed=2026, trials=1)
                    work = (time.process_time() - cpu1) * trials
            finally:
                model._workers = simulation._workers = saved
    rep.row(3, f"sweep: {points} signal strengths × {trials} trials at d = {d}", f"{fmt_time(t)} (CPU {fmt_time(cpu)}" + (f"; single-core work {fmt_time(work)})" if math.isfinite(work) else ")"),
            f"{fmt_time(t / n)} per draw", "≤ 60 s" if not quick else "–",
            "–" if quick else verdict(t <= target) + (f" (single-core work: {verdict(work <= target)})"
                                                      if math.isfinite(work) else ""))
    ov = res.mean("overlap_u")
    text = (f"`attnlib.sweep` (draws in parallel threads, one per core, each with one BLAS thread) over {points} values of ||mu||^2 from 0 to 3 x* = {3 * x_star:.3g} (the sample "
            f"threshold is ||mu||^2 = x* for independent signs and mean pooling), {trials} trials each, d = {d}, "
            f"V = 2d, N = 4d, T = 16: {fmt_time(t)} wall time for {n} draws ({fmt_time(t / n)} per draw), "
            f"{fmt_time(cpu)} of CPU time in this process (all its threads; on a machine shared with other jobs the "
            "wall time exceeds what the sweep alone would take). "
            + (f"Single-core work: {fmt_time(work)} (the CPU time of one trial per point with one thread for BLAS "
               f"and pooling, times {trials}): an upper bound for the sweep alone on one idle core. "
               if math.isfinite(work) else "")
            + "Mean "
            f"overlap with u: {ov[0]:.3f} at ||mu||^2 = 0, {ov[-1]:.3f} at 3 x*.")
    rep.section("3. Transition sweep", text)


# ----------------------------------------------------------------------------- 4. the whole book


def bench_book(rep: Report, quick: bool, repeats: int, venv_bin: Path):
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
            rep.row(4, f"{name} ({len(chapters)} chapters)",
                    f"{fmt_time(t)} (CPU {fmt_time(cpu)}, exit {proc.returncode})", "–",
                    f"≤ {fmt_time(target)}", verdict(t <= target and proc.returncode == 0))
    text = (f"Chapters: {', '.join(chapters)}.\n\n"
            + md_table(("step", "wall time", "CPU time (children)", "exit code", "last line of output"),
                       [(n, fmt_time(t), fmt_time(c), rc, f"`{tail[:120]}`") for n, t, c, rc, tail in results]))
    rep.section("4. The whole book", text)


# ----------------------------------------------------------------------------- main


def environment() -> str:
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(f"{i['internal_api']} {i.get('version') or ''} ({i['num_threads']} threads)".replace("  ", " ")
                         for i in threadpool_info() if i["user_api"] == "blas")
    except ImportError:
        blas = "threadpoolctl not installed (Lanczos runs with the default BLAS threads)"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                text=True).stdout.strip() or "n/a"
    except OSError:
        commit = "n/a"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}, commit {commit} (plus uncommitted changes, if any), "
            f"{platform.machine()} with {cores} cores, Python {platform.python_version()}, numpy {np.__version__}, "
            f"scipy {scipy.__version__}, BLAS: {blas}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("benchmarks", nargs="*", metavar="BENCHMARK",
                        help=f"any of {', '.join(ALL)}, or all (default: {' '.join(DEFAULT)})")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run of a few seconds")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per timing (minimum is kept); default 3")
    parser.add_argument("--output", type=Path, default=None,
                        help="markdown file for the results (default: bench/results.md, none with --quick)")
    parser.add_argument("--venv-bin", type=Path, default=REPO / ".venv" / "bin",
                        help="folder with the pytest and jupyter-book executables for the book benchmark")
    args = parser.parse_args(argv)
    unknown = [b for b in args.benchmarks if b not in (*ALL, "all")]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}: choose from {', '.join(ALL)}, all")
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
    runners = {"density": bench_density, "draw": bench_draw, "stages": bench_stages, "precision": bench_precision,
               "sweep": bench_sweep}
    t_all = time.perf_counter()
    for name in chosen:
        if name == "book":
            bench_book(rep, args.quick, args.repeats, args.venv_bin)
        else:
            runners[name](rep, args.quick, args.repeats)
    wall = time.perf_counter() - t_all
    head = (f"# attnlib benchmarks{' (quick run, tiny sizes)' if args.quick else ''}\n\n"
            f"Command: `python bench/run.py {' '.join(argv if argv is not None else sys.argv[1:])}`. {env}. "
            f"Load average (1, 5, 15 min) at start {load_start}, at end {loadavg()}; benchmarks took {fmt_time(wall)}.")
    summary = "## Summary\n\n" + rep.summary()
    print(f"\n{summary}\n", flush=True)
    if output is not None:
        body = "\n\n".join(f"## {title}\n\n{text}" for title, text in rep.sections)
        output.write_text(f"{head}\n\n{summary}\n\n{body}\n", encoding="utf-8")
        print(f"written to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
