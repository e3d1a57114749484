"""Benchmark ``density``: the bulk law computed exactly against general-purpose and Monte-Carlo routes.

attnlib.theory.Bulk.density on 10^5 points against (a) freealg's AlgebraicForm fitted to the exact Stieltjes
transform of the same law (bench extra, skipped if not installed) and (b) a Monte-Carlo histogram (50 bins, L1
distance) from the model's own simulation; exactness against a 50-digit mpmath reference (bench extra;
long-double Newton refinement if mpmath is missing).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad

import attnlib
from attnlib import Setting, theory
from attnlib.model import positional as P
from attnlib.views.tables import markdown_text
from timing import fmt_ratio, fmt_time, side_by_side, timed, verdict

DELTA, GAMMA = 0.5, 0.25  # V = 2d, N = 4d throughout


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
    return np.array([quad(lambda t: theory.Bulk(delta, gamma).density(t), a, b, epsabs=1e-13, limit=200)[0]
                     for a, b in zip(edges[:-1], edges[1:])])


def bench_density(rep, quick: bool, repeats: int):
    lo, hi = theory.Bulk(DELTA, GAMMA).support
    n_big, n_small = (10_000, 2_000) if quick else (100_000, 2_000)
    x_big = np.linspace(lo, hi, n_big + 2)[1:-1]
    x_small = np.linspace(lo, hi, n_small + 2)[1:-1]
    bulk_density = lambda x, delta, gamma: theory.Bulk(delta, gamma).density(x)  # noqa: E731
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
            t_mc, dr = timed(lambda: attnlib.simulate(s, rng, spectrum="exact"))
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
            f"{fmt_time(t_largest)} for L1 = {l1s[-1]:.3f}",
            f"{fmt_ratio(t_largest / t_big)} slower than `bulk_density`")
    if not quick:  # two tiny runs say nothing about the asymptotic rate
        rep.row(1, f"Monte-Carlo histogram to L1 = 1e-3 (extrapolated: d ≈ {d_star:,.0f})", fmt_time(t_target),
                f"{fmt_ratio(t_target / t_big)} slower than `bulk_density`")
    gb = 4 * d_star * d_star * 8 / 2**30
    lines += ["Monte-Carlo: eigenvalue histogram (50 bins on the support, eigenvalues clipped into it) of S from "
              "`attnlib.simulate(..., spectrum='exact')` with no signal, T = 16 independent signs, mean pooling, "
              f"{draws} draws per size pooled; L1 = sum over bins of |histogram fraction - exact bin mass| (bin masses "
              "by adaptive quadrature of `bulk_density`). Time: per draw, minimum of the draws.", "",
              markdown_text(("d", "draws", "time per draw", "L1"), mc_rows)]
    if not quick:
        lines += ["", f"L1 falls like d^-{slope:.2f} over these sizes; L1 = 1e-3 would need d ≈ {d_star:,.0f} "
                  f"({draws} draws; the pooled matrix alone would take {gb:,.0f} GiB in double precision), about "
                  f"{fmt_time(t_target)} if the cost of a draw keeps growing like d^3 from the largest size "
                  f"measured: {fmt_ratio(t_target / t_big)} the time of `bulk_density` on {n_big:,} points, which is "
                  "exact to the precision above."]
    rep.section("1. Bulk density", "\n".join(lines))
