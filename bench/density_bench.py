"""Benchmark ``slq``: spectral densities by stochastic Lanczos quadrature (public attnlib API only).

(a) At d = 2000, the SLQ density of one draw against the exact eigenvalues of the same draw (L1 between the
binned densities, 50 bins on the law's support), for several numbers of probes, and both against the law.
(b) Against the law as d grows, up to d = 16,000, each size in a fresh interpreter (time, peak memory).
No signal, T = 16 independent signs, mean pooling, V = 2d, N = 4d.
"""

from __future__ import annotations

import numpy as np

import attnlib
from attnlib import Setting
from attnlib.engine import compare, slq
from attnlib.model import positional as P
from attnlib.views.tables import markdown_text
from timing import fmt_bytes, fmt_time, fresh_process, timed, verdict

SEED = 11


def null_setting(d: int) -> Setting:
    return Setting(d=d, V=2 * d, N=4 * d, mu_norm2=0.0, process=P.independent(16), weights="mean")


_GROWING = """
from attnlib.engine import compare, operators
from attnlib.model import generative
s = attnlib.Setting(d={d}, V={V}, N={N}, mu_norm2=0.0, process=attnlib.model.positional.independent(16), weights="mean")
c = time.perf_counter
rng = np.random.default_rng({seed})
t0 = c(); voc = generative.draw_vocabulary(s.d, s.V, 0.0, rng, dtype=np.float32); t1 = c()
op = operators.SampleCovariance.from_tokens(voc.table, generative.sample_tokens(s.process.sample(s.N, rng), s.V, rng),
                                            s.weights)
t2 = c(); est = attnlib.engine.slq.SLQ().estimate(op, rng); t3 = c()
l1 = est.histogram_l1(attnlib.theory.Bulk(s.delta, s.gamma, s.kappa))
report(draw=t1 - t0, sequences=t2 - t1, slq=t3 - t2, l1=l1, probes=est.probes, degree=est.degree)
"""


def bench_slq(rep, quick: bool, repeats: int):
    d = 200 if quick else 2000
    s = null_setting(d)
    law = attnlib.theory.Bulk(s.delta, s.gamma, s.kappa)
    edges = np.linspace(law.lower, law.upper, 51)
    t_exact, exact = timed(lambda: attnlib.simulate(s, np.random.default_rng(SEED), spectrum="exact"))
    hist = np.histogram(exact.spectrum, bins=edges)[0] / d
    l1_exact = compare.histogram_l1(exact.spectrum, law)
    rows = [("exact eigenvalues (dense, float64)", "–", fmt_time(t_exact), "0", f"{l1_exact:.4f}")]
    sizes = ((8, 20),) if quick else ((8, 30), (32, 30), (128, 30))
    default = slq.SLQ()
    l1_default = None
    for probes, degree in sizes + ((default.probes, default.degree),) * (not quick):
        est_spec = slq.SLQ(probes, degree)
        t, dr = timed(lambda: attnlib.simulate(s, np.random.default_rng(SEED), spectrum=est_spec))
        between = float(np.abs(dr.density.masses(edges) - hist).sum())
        rows.append((f"SLQ, {probes} probes × {degree} steps", f"{probes * degree:,}", fmt_time(t), f"{between:.4f}",
                     f"{dr.density.histogram_l1(law):.4f}"))
        if (probes, degree) == (default.probes, default.degree):
            l1_default = between
    if l1_default is not None:
        rep.row(4, f"SLQ density vs exact eigenvalues, same draw, d = {d} (default {default.probes} probes × "
                f"{default.degree} steps)", f"L1 = {l1_default:.4f} (50 bins)", "–", "–", "–")
    text_a = (f"(a) d = {d}, V = 2d, N = 4d, T = 16 independent signs, mean pooling, no signal, seed {SEED}: one draw, "
              "its exact eigenvalues (`simulate(..., spectrum=\"exact\")`) and its SLQ density "
              "(`simulate(..., spectrum=SLQ(probes, degree))`, the same random numbers in single precision). "
              "*between*: sum over 50 bins on the law's support of |SLQ bin mass - exact histogram fraction|; "
              "*vs law*: `SpectralDensity.histogram_l1`, the convention of `compare.histogram_l1` (mass outside the "
              "support counts). Time: the whole draw (the exact one includes forming S and all its "
              "eigenvalues).\n\n"
              + markdown_text(("estimate", "products", "time", "L1 between", "L1 vs law"), rows))
    grow = (128, 256) if quick else (2000, 4000, 8000, 16000)
    rows = []
    for dd in grow:
        out = fresh_process(_GROWING.format(d=dd, V=2 * dd, N=4 * dd, seed=SEED))
        rows.append((f"{dd:,}", fmt_time(out["draw"]), fmt_time(out["sequences"]), fmt_time(out["slq"]),
                     fmt_bytes(out["peak_rss"]), f"{out['l1']:.4f}"))
        if dd == grow[-1]:
            big = not quick
            rep.row(4, f"SLQ density at d = {dd:,} ({out['probes']} probes × {out['degree']} steps): time",
                    f"{fmt_time(out['slq'])} (draw {fmt_time(out['draw'])}, peak {fmt_bytes(out['peak_rss'])})", "–",
                    "≤ 60 s" if big else "–", verdict(out["slq"] <= 60) if big else "–")
            rep.row(4, f"SLQ density at d = {dd:,}: L1 against the law (50 bins)", f"{out['l1']:.4f}", "–",
                    "≤ 0.01" if big else "–", verdict(out["l1"] <= 0.01) if big else "–")
    text_b = (f"(b) The default `slq.SLQ()` ({default.probes} probes × {default.degree} Lanczos steps) against "
              "the "
              "law as d grows, each size in a fresh interpreter: the float32 vocabulary, the sequences and the "
              "operator, then the density estimate; peak resident memory of that interpreter.\n\n"
              + markdown_text(("d", "vocabulary", "sequences", "density (SLQ)", "peak memory", "L1 vs law"), rows))
    rep.section("4. Spectral density without eigendecomposition (SLQ)", text_a + "\n\n" + text_b)
