"""The closing checks of book/13_spike_derivations.md: the closed forms of both transitions against their other
routes, the correlated example, what S shows between the thresholds, the two stages of the sample overlap, the
uncentred S and both transitions at finite size.

The routes are theory only and are recomputed here in full. ``results`` (recorded by the page) holds what its
simulations measured, with the page's settings (:func:`settings`):

* ``markov_top_pop``, ``markov_top_smp``: the top eigenvalues of the correlated example's population covariance
  and of its S;
* ``pfar_mean``, ``pfar_sd``: mean and sd of the population overlap with h at the far point, d = 200, 400, 800;
* ``band_thetas``, ``band_top``, ``band_overlap`` (thetas x draws): top eigenvalue and overlap with h in the band;
* ``stage_x``, ``stages`` (x, draws, stage): the overlaps v_pop.h, v.v_pop, v.h;
* ``unc_mu``, ``unc_eig``, ``unc_ov_g``, ``unc_ov_u`` (settings x draws x 2 eigenpairs), ``cen_ov_u``: the
  uncentred S and the centred S of the same draws;
* ``far_ds``, ``far_mean``, ``far_sd``: the sample overlap with h at the far point (theta = 6), 10 draws per d.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import positional
from attnlib.theory import fluctuations, tracy_widom
from attnlib.views.tables import sig

from checks import Report

DELTA, GAMMA = 0.5, 1.0  # the ratios of both transition chapters
ROUTE_GRID = [(0.5, 1.0), (0.5, 0.25), (0.2, 2.0), (2.0, 0.5), (1.0, 0.05)]  # (delta, gamma) of the routes
PAIRS = [(0.5, 1.0), (0.5, 0.25), (0.5, 0.01), (0.01, 0.5), (1.0, 1.0), (2.0, 0.5), (1e-9, 0.5), (0.5, 1e-9)]


def settings() -> dict:
    """The page's settings: the sample chapter's (mean pooling of the prefix process), the correlated example,
    R = I for the population transition, and the two-stage setting (delta = 1, gamma = 0.05)."""
    base = Setting(d=300, V=600, N=300, mu_norm2=1.0, process=positional.prefix(16, 4))
    return {"mean": base.replace(weights="mean"),
            "markov": Setting(d=600, V=1200, N=2400, mu_norm2=0.3, process=positional.markov(16, 0.6)),
            "R = I": Setting(d=400, V=800, N=400, mu_norm2=1.0, process=positional.independent(16)),
            "stages": Setting(d=400, V=400, N=8000, mu_norm2=1.0, process=positional.independent(16))}


def outlier_spread(s: Setting) -> float:
    """Relative sd of the population outlier over vocabularies: that of ||h||^2, (2 delta^2 + 4 ||mu||^2 delta)/d
    over (||mu||^2 + delta)^2, times the elasticity of the outlier in theta."""
    h2_sd = np.sqrt((2 * s.delta**2 + 4 * s.mu_norm2 * s.delta) / s.d) / (s.mu_norm2 + s.delta)
    x = s.theta - s.delta
    return float(h2_sd * ((1 - s.delta / x**2) * s.theta / (s.signal_h().population_eigenvalue / s.kappa)))


def routes() -> dict:
    """The routes of the page's folded tables, all theory, with their largest gaps (glued by the page, checked by
    :func:`check`): ``population`` rows (theta, closed-form outlier, secular root, closed-form overlap, overlap from
    G') and ``route_gap``; ``rect_gap`` (R = I against the rectangular spiked model); ``sample`` rows (delta,
    gamma, theta, closed-form outlier, resolvent, closed-form overlap, resolvent) with ``resolvent_gap`` and
    ``bs_gap`` (against Baik-Silverstein); ``edge`` rows (delta, gamma, x*, sqrt(delta), sqrt(gamma), lambda(x*),
    end of the bulk support) and ``edge_gap``."""
    out = {"population": [], "sample": [], "edge": [], "route_gap": 0.0, "resolvent_gap": 0.0, "bs_gap": 0.0,
           "edge_gap": 0.0}
    for th in theory.thresholds(DELTA, 1.0)[0] * np.array([1.001, 1.05, 1.3, 2.0, 4.0, 10.0]):
        closed = theory.spike(DELTA, 1.0, theta=th)
        lam, overlap = theory.population_outlier_numeric(DELTA, theta=th)
        out["route_gap"] = max(out["route_gap"], abs(lam - closed.population_eigenvalue),
                               abs(overlap - closed.population_overlap))
        out["population"].append([th, closed.population_eigenvalue, lam, closed.population_overlap, overlap])
    mu2 = np.linspace(np.sqrt(DELTA) * 1.01, 5.0, 200)
    sig_RI = theory.signal(DELTA, 1.0, alpha=1.0, kappa=1.0, mu_norm2=mu2)
    out["rect_gap"] = max(np.max(np.abs(sig_RI.population_eigenvalue - (1 + mu2) * (DELTA + mu2) / mu2)),
                          np.max(np.abs(sig_RI.population_overlap - (mu2**2 - DELTA) / (mu2 * (mu2 + DELTA)))))
    for dl, gm in ROUTE_GRID:
        x_star = theory.critical_x(dl, gm)[0]
        for th in (dl + 1.05 * x_star, dl + 2 * x_star, dl + 5 * x_star):
            closed = theory.spike(dl, gm, theta=th)
            lam, ov = theory.sample_spike_resolvent(dl, gm, theta=th)
            lam_pop, pop_ov = theory.population_outlier_numeric(dl, theta=th)
            psi, factor = theory.baik_silverstein(dl, gm, ell=lam_pop)
            out["resolvent_gap"] = max(out["resolvent_gap"], abs(lam / closed.sample_eigenvalue - 1),
                                       abs(ov - closed.sample_overlap))
            out["bs_gap"] = max(out["bs_gap"], abs(psi / closed.sample_eigenvalue - 1),
                                abs(factor * pop_ov - closed.sample_overlap))
            out["sample"].append([dl, gm, th, closed.sample_eigenvalue, lam, closed.sample_overlap, ov])
    for dl, gm in PAIRS:
        x_star = theory.critical_x(dl, gm)[0]
        at_threshold = float(theory.outlier_map(x_star, dl, gm))
        xs = np.linspace(0.5 * at_threshold, 1.5 * at_threshold, 200_001)
        support_end = xs[theory.Bulk(dl, gm).density(xs) > 0].max()
        out["edge_gap"] = max(out["edge_gap"], abs(support_end / at_threshold - 1))
        out["edge"].append([dl, gm, x_star, np.sqrt(dl), np.sqrt(gm), at_threshold, support_end])
    return out


def _correlated(r: dict, rep: Report, m: Setting) -> float:
    """The correlated example's rows and the paper's strength against theta; returns the tolerance."""
    cases = [(positional.independent(16), "mean"), (positional.markov(16, 0.6), "mean"),
             (positional.markov(16, 0.6), "optimal"), (positional.prefix(16, 4), "mean"),
             (positional.prefix(16, 4), "causal"), (positional.prefix(16, 4), "optimal")]
    outlier = []  # (paper's strength above the threshold, theta above it) of each case
    for proc, wname in cases:
        s = Setting(d=600, V=1200, N=2400, mu_norm2=0.3, process=proc, weights=wname)
        outlier.append((s.rho > s.thresholds()[0], s.theta > s.thresholds()[0]))
    rep.require(all(a != b for a, b in outlier[1:]) and not outlier[0][1],
                "every correlated case: the paper's strength and theta disagree about the outlier")
    thr = m.thresholds()[0]
    rep.require(m.rho < thr < m.theta, "correlated example: the paper's strength below the threshold, theta above")
    pred = m.signal_h()
    pop_clear = r["markov_top_pop"] / theory.MarchenkoPastur(m.delta, m.kappa).upper - 1
    smp_clear = r["markov_top_smp"] / m.bulk.upper - 1
    err = abs(r["markov_top_pop"] / pred.population_eigenvalue - 1)
    tol = 3 * outlier_spread(m)  # 3 s.d. of the outlier over vocabularies
    rep.row("correlated example: outlier vs θ", sig(err, 2), f"3 s.d. = {sig(tol, 2)}", "relative error", err < tol)
    rep.row("correlated example: outliers clear the edge", sig(min(pop_clear, smp_clear), 2),
            f"> 3 s.d. = {sig(tol, 2)}", "relative margin", pop_clear > tol and smp_clear > tol)
    return tol


def _unc(r: dict, s: Setting, trials: int) -> dict:
    """The uncentred S away from the crossing, against the two spikes; the centred S against the signal spike."""
    mu = r["unc_mu"]
    unc_settings = [s.replace(mu_norm2=m) for m in mu]
    g_spike, s_spike = s.mean_spike(), [u.signal() for u in unc_settings]
    s_eig = np.array([p.sample_eigenvalue for p in s_spike])
    s_ov = np.array([p.sample_overlap for p in s_spike])
    on_top = np.array([u.theta for u in unc_settings]) > s.theta_g
    away = (mu <= 1.5) | (mu >= 6.0)
    rows_a = np.flatnonzero(away)
    x_unc = np.array([u.theta for u in unc_settings]) - DELTA
    rows_s = np.flatnonzero(away & (x_unc >= 2.4 * theory.critical_x(DELTA, GAMMA)[0]))
    g_at, s_at = np.where(on_top, 1, 0)[away], np.where(on_top, 0, 1)[rows_s]  # which eigenpair is which spike
    g_eig, g_ov = r["unc_eig"][rows_a, :, g_at], r["unc_ov_g"][rows_a, :, g_at]
    s_eig_d, s_ov_d = r["unc_eig"][rows_s, :, s_at], r["unc_ov_u"][rows_s, :, s_at]
    out = {"sd_eig": max((a.std(axis=1, ddof=1) / a.mean(axis=1)).max() for a in (g_eig, s_eig_d)),
           "sd_ov": max(a.std(axis=1, ddof=1).max() for a in (g_ov, s_ov_d))}
    out["outlier"] = max(np.abs(g_eig.mean(axis=1) / g_spike.sample_eigenvalue - 1).max(),
                         np.abs(s_eig_d.mean(axis=1) / s_eig[rows_s] - 1).max())
    out["overlap"] = max(np.abs(g_ov.mean(axis=1) - g_spike.sample_overlap).max(),
                         np.abs(s_ov_d.mean(axis=1) - s_ov[rows_s]).max())
    detect = np.isfinite(s_eig)
    below_cross = away & ~on_top & detect  # where the signal has its own outlier
    out["below"] = bool(below_cross.any())
    out["top_u"] = r["unc_ov_u"][:, :, 0].mean(axis=1)[below_cross].max(initial=-np.inf)
    out["top_u_tol"] = s_ov[below_cross].min(initial=np.inf) / 5  # a fifth of the signal eigenvector's
    cen = r["cen_ov_u"]
    out["cen_z"] = (np.abs(cen.mean(axis=1) - s_ov) / (cen.std(axis=1, ddof=1) / np.sqrt(trials)))[detect & away]
    return out


def check(r: dict) -> Report:
    rep, S = Report(), settings()
    gaps = routes()
    route_gap, rect_gap, resolvent_gap, bs_gap, edge_gap = (
        gaps[k] for k in ("route_gap", "rect_gap", "resolvent_gap", "bs_gap", "edge_gap"))
    rep.row("population outlier: closed form vs secular root", sig(route_gap, 1), 1e-8, "absolute",
            route_gap < 1e-8)
    rep.row("R = I vs the rectangular spiked model", sig(rect_gap, 1), 1e-10, "absolute", rect_gap < 1e-10)
    markov_tol = _correlated(r, rep, S["markov"])
    pfar_limit = S["R = I"].replace(mu_norm2=2.5 * np.sqrt(DELTA)).signal_h().population_overlap
    pfar_tol = 4 * r["pfar_sd"][-1] / np.sqrt(10)  # 4 s.e. of the mean of 10 vocabularies
    rep.row("population finite size, d = 800", sig(abs(r["pfar_mean"][-1] - pfar_limit), 2),
            f"4 s.e. = {sig(pfar_tol, 2)}", "absolute error", abs(r["pfar_mean"][-1] - pfar_limit) < pfar_tol)
    rep.row("sample spike: closed form vs resolvent", sig(resolvent_gap, 1), 1e-8, "relative / absolute",
            resolvent_gap < 1e-8)
    rep.row("sample spike: closed form vs Baik–Silverstein", sig(bs_gap, 1), 1e-5, "relative / absolute",
            bs_gap < 1e-5)
    rep.row("λ(x*) vs end of the bulk support", sig(edge_gap, 1), 1e-4, "relative error", edge_gap < 1e-4)
    for dl, gm in PAIRS:
        rep.require(theory.critical_x(dl, gm)[0] > max(np.sqrt(dl), np.sqrt(gm)) * (1 - 1e-6),
                    f"x* above sqrt(delta) and sqrt(gamma) at ({dl}, {gm})")

    base, thetas = S["mean"], r["band_thetas"]
    n_band, d = r["band_top"].shape[1], base.d
    z_band = (r["band_top"] - theory.Bulk(DELTA, GAMMA, base.kappa).upper) / fluctuations.edge_scale(
        DELTA, GAMMA, base.kappa, d)
    z_dev = np.abs(z_band.mean(axis=1) - tracy_widom.MEAN)  # in units of the TW scale
    ratio_b = np.array([theory.edge_overlap_ratio(DELTA, GAMMA, theta=t) for t in thetas])
    pop_ov_b = np.array([base.with_theta(t).signal_h().population_overlap for t in thetas])
    band_ov = r["band_overlap"].mean(axis=1)
    band_tol = 1 + 3 * np.sqrt(2 / n_band)  # 3 s.e. above r(theta)/d, the per-draw sd sqrt(2) times the mean
    rep.row("band: mean top eigenvalue vs TW₁ mean", sig(z_dev.max(), 2),
            f"4 s.e. = {sig(4 * tracy_widom.SD / np.sqrt(n_band), 2)}", "Tracy–Widom units",
            z_dev.max() < 4 * tracy_widom.SD / np.sqrt(n_band))
    rep.row("band: mean overlap / (𝔯(θ)/d)", sig((band_ov * d / ratio_b).max(), 2),
            f"1 + 3 s.e. = {sig(band_tol, 3)}", "ratio", np.all(band_ov < band_tol * ratio_b / d))
    in_band = theory.regions(DELTA, GAMMA, theta=thetas) == 1
    rep.require(np.all(band_ov[in_band] < pop_ov_b[in_band] / 5), "band: overlap below a fifth of the population's")

    stages = r["stages"]  # two stages, where the population factor matters
    tol_f = 4 * stages.std(axis=1, ddof=1).max() / np.sqrt(stages.shape[1])  # 4 s.e. (the largest per-draw sd)
    stage_err = 0.0
    for x, measured in zip(r["stage_x"], stages.mean(axis=1)):
        s_f = S["stages"].with_theta(S["stages"].delta + x)
        p = s_f.signal_h()
        gap = np.abs(measured - [p.population_overlap, p.sample_overlap / p.population_overlap, p.sample_overlap])
        stage_err = max(stage_err, gap.max())
        rep.require(np.all(gap < tol_f), f"two stages at x = {x}")
        rep.require(abs(theory.sample_spike_resolvent(s_f.delta, s_f.gamma, theta=s_f.theta)[1]
                        - p.sample_overlap) < 1e-8,
                    f"the resolvent route gives the two-stage overlap at x = {x}")
    rep.row("two stages, each against its prediction", sig(stage_err, 2), f"4 s.e. = {sig(tol_f, 2)}",
            "absolute error", stage_err < tol_f)

    trials = r["unc_eig"].shape[1]
    u = _unc(r, base, trials)
    tol_eig, tol_ov = 4 * u["sd_eig"] / np.sqrt(trials), 4 * u["sd_ov"] / np.sqrt(trials)  # 4 s.e., largest sd
    rep.row("uncentred S: both outliers", sig(u["outlier"], 2), f"4 s.e. = {sig(tol_eig, 2)}", "relative error",
            u["outlier"] < tol_eig)
    rep.row("uncentred S: both overlaps", sig(u["overlap"], 2), f"4 s.e. = {sig(tol_ov, 2)}", "absolute error",
            u["overlap"] < tol_ov)
    rep.require(u["below"], "uncentred S: a point below the crossing where the signal has an outlier")
    rep.row("uncentred S: μ in the top eigenvector below the crossing", sig(u["top_u"], 2),
            f"a fifth of the signal's = {sig(u['top_u_tol'], 2)}", "squared overlap", u["top_u"] < u["top_u_tol"])
    rep.row("centred S against the signal spike", sig(u["cen_z"].max(), 2), 4, "standard errors",
            u["cen_z"].max() < 4)
    far_lim = base.with_theta(6.0).signal_h().sample_overlap
    far_z = np.abs(r["far_mean"] - far_lim) / (r["far_sd"] / np.sqrt(10))  # 10 draws per size
    rep.row("sample finite size, far point", sig(far_z.max(), 2), 4, "standard errors", far_z.max() < 4)
    rep.glue(tol_f=tol_f, tol_u_eig=100 * tol_eig, tol_u_ov=tol_ov, unc_sd_eig=100 * u["sd_eig"],
             unc_sd_ov=u["sd_ov"], markov_tol=100 * markov_tol, pfar_tol=pfar_tol, band_ratio_tol=band_tol,
             top_u_tol=u["top_u_tol"])
    return rep.done()
