"""The closing checks of book/12_bulk_law_derivations.md: the vocabulary vectors, the coded law, the edge
constant and the Tracy-Widom scale, the edges and moments of six regimes, the most-used token, and the law at a
fixed number of tokens, each against the formulas of attnlib recomputed here.

``results`` (recorded by the page):

* ``qg/d``, ``qg/delta``, ``qg/mu_norm2``, ``qg/n_voc`` and ``qg/means``: the means of ||q||^2, ||g||^2 and
  cos^2(h, mu) over the vocabularies at d = 1600;
* ``mix/eta``, ``mix/V`` and ``mix/T=16``, ``mix/T=1``: the spectra of the token-mixing matrix M / kappa;
* ``regimes`` (delta, gamma): the six regimes; ``edge/regime`` (delta, gamma) and ``johnstone`` (gamma, d);
* ``tw/sizes`` (d, V, N, T) and ``tw/top``: the largest eigenvalues of the Tracy-Widom study;
* ``grid/sizes`` (d, T), ``grid/extremes`` (regimes x smallest non-zero / largest x draws) and
  ``grid/moments`` (regimes x draws x 3, in units of the finite-size kappa);
* ``load/params`` (d, delta, gamma, T), ``load/slope``, ``load/slope_se`` and ``load/max_counts``;
* ``tok/eta``, and for each weighting ``tok/<name>/w``, ``tok/<name>/mean``, ``tok/<name>/se``: the moments of
  the token-mixing matrix over the draws;
* ``dep/sizes`` (d, delta, gamma), ``dep/Ts``, ``dep/moments`` (Ts x draws x 4), ``dep/zeros`` (Ts x draws),
  and ``dep/ks/to_law``, ``dep/ks/pairs``: the KS distances of each draw to the law and between draws. These
  two are the one comparison with a law recorded rather than recomputed: recomputing it needs the 60,000
  eigenvalues of the T = 1 and T = 64 draws (200 KB even in single precision); the law itself is checked here
  (its mass) and in the bulk chapter;
* ``T1/extremes``: the extremes of the regime (0.5, 0.25) at T = 1.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate

from attnlib import Setting, theory
from attnlib.engine import compare
from attnlib.model import positional, weights
from attnlib.model.setting import sizes_for
from attnlib.numerics.statistics import standard_error as se_of
from attnlib.theory import fluctuations, tracy_widom

from checks import Report

SE = "standard errors"


def _independent(d, V, N, T) -> Setting:
    return Setting(d=int(d), V=int(V), N=int(N), mu_norm2=0.0, process=positional.independent(int(T)),
                   weights="mean")


def _vectors_and_law(r: dict, rep: Report) -> None:
    """q, g and cos^2(h, mu) at d = 1600; the coded law's mass; the edge constant and the small-delta scale."""
    delta, m_, n_voc, d = r["qg/delta"], r["qg/mu_norm2"], int(r["qg/n_voc"]), int(r["qg/d"])
    q_se = delta * np.sqrt(2 / d) / np.sqrt(n_voc)
    # cos²(h, μ) linearised in μᵀq ~ N(0, m/V) and ||q||² - δ ~ N(0, 2δ²/d)
    cos_se = np.sqrt(((2 * delta / (m_ + delta) ** 2) ** 2 * delta * m_
                      + (m_ / (m_ + delta) ** 2) ** 2 * 2 * delta**2) / d) / np.sqrt(n_voc)
    means = r["qg/means"]
    rep.row("‖q‖², ‖g‖² at d = 1600 vs δ", max(abs(means[0:2] - delta)) / q_se, 4, SE,
            max(abs(means[0:2] - delta)) < 4 * q_se)
    cos_dev = abs(means[2] - m_ / (m_ + delta)) / cos_se
    rep.row("cos²(h, μ) at d = 1600 vs limit", cos_dev, 4, SE, cos_dev < 4)
    # the token-mixing matrix against MP_eta: inside the 95% Kolmogorov band of V independent draws at T = 16
    # (eigenvalues repel: a spectrum whose law is right sits well inside it), outside it at T = 1 (a lattice)
    band, mix_law = 1.36 / np.sqrt(int(r["mix/V"])), theory.MarchenkoPastur(r["mix/eta"])
    ks = {T: compare.ks_distance(r[f"mix/T={T}"], mix_law) for T in (16, 1)}
    rep.row("token-mixing spectrum at T = 16 vs MP₂", ks[16], band, "KS distance (1.36/√V)", ks[16] < band)
    rep.row("token-mixing spectrum at T = 1 vs MP₂ (must exceed)", ks[1], band, "KS distance (1.36/√V)",
            ks[1] > band)
    mass_err, quad_err = [], []
    for dl, gm in r["regimes"]:
        law = theory.Bulk(float(dl), float(gm))
        # x = lower + u^2 removes a hard edge's x^(-1/2) singularity at 0
        quad, _ = integrate.quad(lambda u: 2 * u * law.density(law.lower + u**2), 0,
                                 np.sqrt(law.upper - law.lower), limit=400)
        mass_err.append(abs(law.cdf(law.upper) - law.atom - quad))
        quad_err.append(abs(quad - (1 - law.atom)))
    rep.require(max(quad_err) < 1e-6, "quadrature of the density = 1 - atom")
    rep.row("law's mass: CDF vs quadrature", max(mass_err), 1e-6, "absolute", max(mass_err) < 1e-6)
    delta0, gamma0 = (float(x) for x in r["edge/regime"])
    law0 = theory.Bulk(delta0, gamma0)
    hi0, crit = law0.upper, theory.critical_x(delta0, gamma0)
    s2, s3 = delta0 + gamma0 + delta0 * gamma0, delta0 * gamma0
    c_formula = 1 / (hi0 * np.sqrt(s2 * crit[0] + 3 * s3))
    c_code = fluctuations.edge_constant(delta0, gamma0)
    eps = 1e-6 * hi0
    c_density = np.pi * law0.density(hi0 - eps) / np.sqrt(eps)
    g_j, d_j = float(r["johnstone"][0]), int(r["johnstone"][1])
    johnstone = d_j ** (-2 / 3) * np.sqrt(g_j) * (1 + np.sqrt(g_j)) ** (4 / 3)
    scale_small_delta = fluctuations.edge_scale(1e-10, g_j, 1.0, d_j)
    for what, err, bound in [("edge constant: code vs formula", abs(c_code / c_formula - 1), 1e-10),
                             ("edge constant: vs density", abs(c_density / c_formula - 1), 1e-4),
                             ("δ → 0 scale vs Johnstone", abs(scale_small_delta / johnstone - 1), 1e-4)]:
        rep.row(what, err, bound, "relative error", err < bound)


def _edges(r: dict, rep: Report) -> float:
    """Tracy-Widom: the largest eigenvalue of 400 draws, the extremes and moments of the six regimes;
    returns the standard error of a mean of the regimes' draws in Tracy-Widom units."""
    tw_mean, tw_sd = tracy_widom.MEAN, tracy_widom.SD
    d_tw, V_tw, N_tw, T_tw = r["tw/sizes"]
    top = r["tw/top"]
    dl_tw, gm_tw, kp_tw = compare.finite_size_parameters(_independent(d_tw, V_tw, N_tw, T_tw))
    z_tw = fluctuations.standardize(dl_tw, gm_tw, top=top, kappa=kp_tw, d=int(d_tw))
    se_mean = tw_sd / np.sqrt(top.size)
    se_sd = tw_sd * np.sqrt((tracy_widom.TracyWidom(1).stats().excess_kurtosis + 2) / (4 * top.size))
    rep.row("largest eigenvalue: TW₁ mean", abs(z_tw.mean() - tw_mean) / se_mean, 4, SE,
            abs(z_tw.mean() - tw_mean) < 4 * se_mean)
    rep.row("largest eigenvalue: TW₁ sd", abs(z_tw.std(ddof=1) - tw_sd) / se_sd, 4, SE,
            abs(z_tw.std(ddof=1) - tw_sd) < 4 * se_sd)
    d_grid, T_grid = (int(x) for x in r["grid/sizes"])
    edge_dev, moment_dev = [], []
    for (delta, gamma), (lowest, highest), per_draw in zip(r["regimes"], r["grid/extremes"], r["grid/moments"]):
        s = _independent(d_grid, *sizes_for(d_grid, float(delta), float(gamma)), T_grid)
        dl, gm, kap = compare.finite_size_parameters(s)
        z_low, z_high = compare.standardize_extremes(lowest, highest, dl, gm, kap, s.d)
        soft_low = delta != 1 and gamma != 1
        edge_dev += [z_high.mean() - tw_mean] + ([z_low.mean() - tw_mean] if soft_low else [])
        moment_dev.append((per_draw.mean(axis=0) - theory.Bulk(dl, gm).moments(3)) / se_of(per_draw, axis=0))
    edge_se = tw_sd / np.sqrt(r["grid/extremes"].shape[-1])
    rep.row("six regimes: edges vs TW₁ mean", max(np.abs(edge_dev)) / edge_se, 4, SE,
            np.all(np.abs(edge_dev) < 4 * edge_se))
    rep.row("six regimes: m₁ to m₃", np.abs(moment_dev).max(), 4, SE, np.all(np.abs(moment_dev) < 4))
    return edge_se


def _tokens(r: dict, rep: Report) -> None:
    """The most-used token, and the moments of the token-mixing matrix at a fixed number of tokens."""
    d_h, dl_h, gm_h, T_h = r["load/params"]
    slope_dev = abs(r["load/slope"] - 1) / r["load/slope_se"]
    rep.row("most-used token: slope", slope_dev, 4, SE, slope_dev < 4)
    counts = r["load/max_counts"]
    predicted = theory.tokens.heavy_token_term(dl_h, gm_h, weights.mean(int(T_h)), int(d_h)) * T_h / gm_h
    count_dev = abs(np.mean(counts) - predicted) / (np.std(counts, ddof=1) / np.sqrt(len(counts)))
    rep.row("most-used token: largest count", count_dev, 4, SE, count_dev < 4)
    eta = r["tok/eta"]
    mp_tok = theory.MarchenkoPastur(eta).moments(4)
    names = sorted({key.split("/")[1] for key in r if key.startswith("tok/") and key.count("/") == 2})
    mom_dev, token_dev, token_res = [], [], []
    for name in names:
        mean, se = r[f"tok/{name}/mean"], r[f"tok/{name}/se"]
        excess, predicted = mean[3] - mp_tok[3], theory.tokens.m4_shift(1.0, eta, r[f"tok/{name}/w"])
        mom_dev.append(np.max(np.abs(mean[1:3] - mp_tok[1:3]) / se[1:3]))
        token_dev.append(abs(excess - predicted) / se[3])
        token_res.append(excess / se[3])
    rep.row("token mixing: m₂, m₃ vs MP₂", max(mom_dev), 4, SE, max(mom_dev) < 4)
    rep.row("token mixing: m₄ excess", max(token_dev), 4, SE, max(token_dev) < 4)
    rep.row("token mixing: m₄ excess resolved (at least)", min(token_res), 4, SE, min(token_res) > 4)


def _few_tokens(r: dict, rep: Report, edge_se: float) -> None:
    """The spectrum of S at T = 1, 2, 4, 64: zeros, the yardstick, R_4, and the lower edge at T = 1."""
    d, delta, gamma = r["dep/sizes"]
    V, N = sizes_for(int(d), delta, gamma)
    Ts, zeros = [int(T) for T in r["dep/Ts"]], r["dep/zeros"]
    used = V * (1 - (1 - 1 / V) ** N)  # expected number of distinct tokens, T = 1
    zero_pred = 1 - (used - 1) / d  # centring removes one more direction
    zero_dev = abs(zeros[0].mean() - zero_pred) / se_of(zeros[0])
    rep.row("zero fraction at T = 1", zero_dev, 4, SE, zero_dev < 4)
    ratio = r["dep/ks/to_law"].mean(axis=1) / r["dep/ks/pairs"].mean(axis=1)
    rep.row("yardstick at T = 1 (must exceed the bound)", ratio[0], 1, "KS ratio", ratio[0] > 1)
    rep.row("yardstick at T = 64", ratio[-1], 1, "KS ratio", ratio[-1] < 1)
    dl, gm, _ = compare.finite_size_parameters(_independent(d, V, N, Ts[-1]))
    m4_law = float(theory.Bulk(dl, gm).moments(4)[3])
    m4_pred = np.array([m4_law + theory.tokens.m4_shift(dl, gm, np.full(T, 1.0 / T)) for T in Ts])
    k4 = theory.tokens.free_cumulants(r["dep/moments"])[:, :, 3]  # (T, draws): 4th free cumulant
    k4_diff, k4_pred = k4 - k4[-1], m4_pred - m4_pred[-1]  # paired against the largest T
    k4_se = se_of(k4_diff)
    k4_dev = np.abs(k4_diff[:-1].mean(axis=1) - k4_pred[:-1]) / k4_se[:-1]
    rep.row("𝓡₄ differences vs δγ²/T_eff²", k4_dev.max(), 4, SE, np.all(k4_dev < 4))
    d_g, _ = (int(x) for x in r["grid/sizes"])
    s1 = _independent(d_g, *sizes_for(d_g, float(r["regimes"][0][0]), float(r["regimes"][0][1])), 1)
    z_T1 = compare.standardize_extremes(*r["T1/extremes"], *compare.finite_size_parameters(s1), s1.d)
    low_gap = abs(z_T1[0].mean() - tracy_widom.MEAN) / edge_se
    rep.row("T = 1 lower edge rejected (at least)", low_gap, 4, SE, low_gap > 4)  # so that the edge check can fail


def check(r: dict) -> Report:
    r = {key: np.asarray(value) if isinstance(value, (list, tuple)) else value for key, value in r.items()}
    rep = Report()
    _vectors_and_law(r, rep)
    edge_se = _edges(r, rep)
    _tokens(r, rep)
    _few_tokens(r, rep, edge_se)
    return rep.done()
