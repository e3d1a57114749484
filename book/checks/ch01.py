"""The closing checks of book/01_model.md: the sign processes' R against sampled signs, the covariance identity
against Monte-Carlo, and the population spikes of one vocabulary against their limits.

``results`` (recorded by the page):

* ``n_seq``, ``seed_R`` and ``R_empirical/<process>``: the correlation of sampled signs of :func:`processes`
  (:func:`sampled_correlations` draws them again);
* the Monte-Carlo identity: a vocabulary of ``mc_d`` x ``mc_V`` tokens (``||mu||^2 = 1``, drawn first from the
  generator of seed ``mc_seed``, and drawn again here), Markov signs (``mc_T``, ``mc_r``), the weights
  ``mc_w``, and the second moments ``empirical/uncentred`` and ``empirical/centred`` of the pooled vectors;
* ``pop_sizes`` (d, V, N): one vocabulary with ||mu||^2 = 1, Markov signs (T = 16, r = 0.6) and mean pooling,
  and what its exact population covariance has: the top two eigenvalues centred (``eig_c``) and uncentred
  (``eig_u``), the top one with pooling by sum (``eig_u_sum``), the squared overlap of the top centred
  eigenvector with h-hat (``pop_overlap``) and the vocabulary's ``h2`` = ||h||^2 and ``g2`` = ||g||^2. That
  matrix is the identity of the chapter, built by ``generative.population_covariance``, whose formula the
  Monte-Carlo check tests; the checks here test the limits against it;
* ``low_sizes`` and ``low_mu_norm2``: the setting of the answer's claim about theta and the paper's rho.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import generative, positional
from attnlib.theory import fluctuations
from attnlib.views.tables import sig

from checks import Report

T = 16


def processes() -> dict:
    """The three sign processes of the chapter's figure of R: a Markov chain, a prefix block, and the signs of a
    Gaussian kernel chosen so that R_ts = (-0.5)^|t-s| (Gamma = sin(pi R / 2))."""
    Gamma = np.sin(np.pi / 2 * positional.markov(T, -0.5).R)
    return {"Markov, r = 0.6": positional.markov(T, 0.6), "prefix, L = 4": positional.prefix(T, 4),
            "Gaussian signs": positional.gaussian_signs(Gamma)}


def sampled_correlations(n: int, seed: int) -> dict:
    """The empirical correlation of ``n`` sampled sign sequences of each of :func:`processes`, one generator."""
    rng = np.random.default_rng(seed)
    return {name: positional.empirical_correlation(p.sample(n, rng)) for name, p in processes().items()}


def _identity_errors(r: dict) -> dict:
    """Relative Frobenius error of the Monte-Carlo second moments against the identity (uncentred, centred)."""
    vocab = generative.draw_vocabulary(int(r["mc_d"]), int(r["mc_V"]), 1.0, np.random.default_rng(int(r["mc_seed"])))
    R, w = positional.markov(int(r["mc_T"]), float(r["mc_r"])).R, r["mc_w"]
    out = {}
    for centered, key in ((False, "uncentred"), (True, "centred")):
        formula = generative.population_covariance(vocab, w, R, centered=centered)
        out[centered] = np.linalg.norm(r[f"empirical/{key}"] - formula) / np.linalg.norm(formula)
    return out


def check(r: dict) -> Report:
    rep = Report()
    n_seq = int(r["n_seq"])
    max_err = max(float(np.max(np.abs(r[f"R_empirical/{name}"] - p.R))) for name, p in processes().items())
    rep.row("empirical R (worst entry)", max_err, f"5/√n = {sig(5 / np.sqrt(n_seq), 2)}", "absolute",
            max_err < 5 / np.sqrt(n_seq))
    rel_err = max(_identity_errors(r).values())
    rep.row("covariance identity vs Monte-Carlo", rel_err, 1e-2, "relative (Frobenius)", rel_err < 1e-2)

    d, V, N = (int(x) for x in r["pop_sizes"])
    pop = Setting(d=d, V=V, N=N, mu_norm2=1.0, process=positional.markov(T, 0.6), weights="mean")
    sig_th, g_th = pop.signal_h(), pop.mean_spike()
    kap, dl = pop.kappa, pop.delta
    predicted = np.isfinite([sig_th.population_eigenvalue, g_th.population_eigenvalue]).all()
    rep.require(predicted, "both outliers predicted")
    if not predicted:  # no spread to compute
        return rep.done()
    sig_th_here = theory.spike(dl, pop.gamma, theta=pop.alpha * r["h2"] / kap, kappa=kap)
    g_th_here = theory.spike(dl, pop.gamma, theta=pop.weight_sum**2 * r["g2"] / kap, kappa=kap)
    # relative spread of each outlier over vocabularies: ||h||^2 (||g||^2), quadratic form
    sd_sig, sd_g = {}, {}
    for sd, strength, m2, outlier in [(sd_sig, pop.theta, pop.mu_norm2, sig_th), (sd_g, pop.theta_g, 0.0, g_th)]:
        var = fluctuations.outlier_variance(dl, 0.0, strength, d, kappa=kap, mu_norm2=m2)
        sd["limit"] = var.sd / outlier.population_eigenvalue
        sd["own"] = np.sqrt(var.vocabulary_direction) / outlier.population_eigenvalue
    eig_c, eig_u = r["eig_c"], r["eig_u"]  # top two, descending
    sum_limit = pop.replace(weights=np.ones(T)).mean_spike().population_eigenvalue
    spike_dev = {  # relative deviation of each outlier, and 4 of its standard deviations
        "signal spike vs limit": (eig_c[0] / sig_th.population_eigenvalue - 1, 4 * sd_sig["limit"]),
        "signal spike, this vocabulary's ‖h‖²":
            (eig_c[0] / sig_th_here.population_eigenvalue - 1, 4 * sd_sig["own"]),
        "signal spike, uncentred, vs limit": (eig_u[1] / sig_th.population_eigenvalue - 1, 4 * sd_sig["limit"]),
        "mean spike vs limit, mean pooling": (eig_u[0] / g_th.population_eigenvalue - 1, 4 * sd_g["limit"]),
        "mean spike, this vocabulary's ‖g‖²": (eig_u[0] / g_th_here.population_eigenvalue - 1, 4 * sd_g["own"]),
        "mean spike vs limit, sum pooling": (r["eig_u_sum"] / sum_limit - 1, 4 * sd_g["limit"]),
    }
    for name, (dev, tol) in spike_dev.items():
        rep.row(name, abs(dev), f"4 sd = {sig(tol, 2)}", "relative error", abs(dev) < tol)
    overlap_err = abs(r["pop_overlap"] - sig_th.population_overlap)
    rep.row("signal spike overlap with ĥ", overlap_err, 0.03, "absolute", overlap_err < 0.03)
    edge = theory.MarchenkoPastur(dl, kap).upper
    # the largest bulk eigenvalue in Tracy-Widom scales of kappa MP_delta (the delta -> 0 form of the scale)
    edge_tw = abs(eig_c[1] - edge) / fluctuations.edge_scale(1e-10, dl, kap, d)
    rep.row("largest bulk eigenvalue vs edge", edge_tw, 4, "Tracy–Widom scales", edge_tw < 4)

    ld, lV, lN = (int(x) for x in r["low_sizes"])
    low = pop.replace(d=ld, V=lV, N=lN, mu_norm2=float(r["low_mu_norm2"]))
    rep.require(low.rho < low.thresholds()[0] < low.theta, "theta clears the population threshold, rho does not")
    rep.glue(sd_sig=sd_sig, sd_g=sd_g)
    return rep.done()
