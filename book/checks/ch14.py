"""The closing checks of book/14_weights_derivations.md: equal alpha/kappa, the sign samplers, the degenerate
cases, the fluctuations and bias of causal attention, the alpha/kappa table, the one-token bulk and the spectral
classifier.

``results`` (recorded by the page): ``T``, ``sizes`` (d, V, N of the recovery runs), ``mu2``;

* ``same_weights`` (3 x T) and, for each, ``same_h``, ``same_eig`` (per vocabulary: overlap with h, lambda_1/kappa);
* ``R_emp`` (the catalogue's families and the oscillating round trip, T x T each) and ``R_emp_balanced4``, from
  ``n_sampler`` sequences each (:func:`sampler_correlations` draws them again);
* ``deg_case``, ``deg_mu2``, ``deg_weights`` and ``deg_overlap`` (weightings x vocabularies);
* ``rate_dims``, ``rate_taus``, ``rate_strict``, ``rate_rms`` (d x replicate x tau x mask) and ``rate_slopes``
  (replicate x tau x mask): the root-mean-square deviations of the layer's weights and their log-log slopes;
  ``bias_mean``, ``bias_se``: the mean weights of the bias run (tau = 1, d = 200, ||mu||^2 = 4) and their s.e.;
* ``first_spectra``: all eigenvalues of the first-token draws (d = 600, V = 2400, N = 1200, ||mu||^2 = 1);
* ``plugin_diff`` (points x vocabularies): simulated accuracy minus the Gaussian approximation that
  :func:`attnlib.studies.experiment.run_experiment` evaluates in each draw at the draw's measured overlap and
  quadratic form; ``scheme_weights`` (3 x T) and ``anchor_ratio`` (3 x vocabularies): lambda_1 over the held-out
  second moment at N = 3200; ``few`` (vocabulary x (wrong-sign probability, accuracy)) with two anchors and the
  vocabularies' ``few_h2``.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.engine import compare
from attnlib.model import generative, pooling, positional, weights
from attnlib.studies import downstream
from attnlib.theory import finite_attention
from attnlib.theory import classification, single_token
from attnlib.views.tables import below, sig
from attnlib.numerics.statistics import standard_error as se_of

from checks import Report

SE = "standard errors"


def oscillating(T: int) -> positional.SignProcess:
    """Gaussian signs of the oscillating kernel cos(2 pi (t - s) / 8) 0.9^|t - s|."""
    lags = np.subtract.outer(np.arange(T), np.arange(T))
    return positional.gaussian_signs(np.cos(2 * np.pi * lags / 8) * 0.9 ** np.abs(lags))


def sampler_correlations(T: int, n: int) -> dict:
    """The page's empirical correlations: each family of the catalogue (seed 1, in turn), the round trip of the
    oscillating R through ``from_correlation`` (seed 2) and ``balanced(4)`` (seed 3), n sequences each."""
    rng = np.random.default_rng(1)
    R = [positional.empirical_correlation(p.sample(n, rng)) for p in positional.catalogue(T).values()]
    R.append(positional.empirical_correlation(positional.from_correlation(oscillating(T).R).sample(
        n, np.random.default_rng(2))))
    return {"R_emp": np.array(R), "R_emp_balanced4": positional.empirical_correlation(
        positional.balanced(4).sample(n, np.random.default_rng(3)))}


def few_norms(process, w, seed: int, vocabularies: int, n: int) -> np.ndarray:
    """||h||^2 of the vocabularies of the page's few-anchors cell (which keeps only the last), drawn again from
    its seed: each vocabulary, then its n pooled sequences, in the order of the stream."""
    rng, out = np.random.default_rng(seed), []
    for _ in range(vocabularies):
        voc = generative.draw_vocabulary(400, 800, 0.5, rng)
        pooling.draw_pooled(voc, process, w, n, rng)
        h = generative.population_covariance(voc, w, process.R, parts=True)["h"]
        out.append(float(h @ h))
    return np.array(out)


def _t_eff(s: Setting) -> float:
    return s.kappa**2 / np.sum(s.weights**4)  # tokens a pooled vector mixes


def _recovery(r: dict, rep: Report) -> int:
    T, (d, V, N), mu2 = int(r["T"]), r["sizes"], r["mu2"]
    sizes = dict(d=int(d), V=int(V), N=int(N))
    prefix4 = positional.prefix(T, 4)
    target = weights.snr(weights.causal(T), prefix4.R)
    rep.require(all(abs(weights.snr(w, prefix4.R) - target) < 1e-10 for w in r["same_weights"]),
                "equal alpha/kappa: the three weightings have the causal limit's")
    paired = [r[key][1:] - r[key][0] for key in ("same_h", "same_eig")]
    rep.row("equal α/κ: paired overlap and λ₁/κ differences",
            max(np.max(np.abs(p.mean(axis=1)) / se_of(p)) for p in paired), "< 4", "paired standard errors",
            all(np.all(np.abs(p.mean(axis=1)) < 4 * se_of(p)) for p in paired))

    catalogue, n = positional.catalogue(T), int(r["n_sampler"])
    targets = [p.R for p in catalogue.values()] + [oscillating(T).R]
    errors = [float(np.max(np.abs(e - R))) for e, R in zip(r["R_emp"], targets)]
    errors.append(float(np.max(np.abs(r["R_emp_balanced4"] - positional.balanced(4).R))))
    rep.row("samplers against R", max(errors) * np.sqrt(n), "< 5", "units of 1/√n", max(errors) < 5 / np.sqrt(n))
    rep.require(all(positional.triangle_violation(p.R) <= 1e-12 for p in catalogue.values()),
                "the catalogue satisfies the triangle inequalities")
    impossible_R = np.full((3, 3), -0.45) + 1.45 * np.eye(3)
    rep.require(abs(positional.triangle_violation(impossible_R) - 0.35) < 1e-12, "the impossible R violates by 0.35")

    procs = {"R = I": positional.independent(T), "4 blocks of 4": positional.blocks([4, 4, 4, 4]),
             "balanced(16)": positional.balanced(T)}
    cases = [str(c) for c in r["deg_case"]]
    deg = [Setting(mu_norm2=float(m), process=procs[c], weights=w, **sizes)
           for c, m, w in zip(cases, r["deg_mu2"], r["deg_weights"])]
    ov = r["deg_overlap"]
    mean, sd = ov.mean(axis=1), ov.std(axis=1, ddof=1)
    trials = ov.shape[1]
    theta_smp = Setting(mu_norm2=mu2, process=positional.independent(T), **sizes).thresholds()[1]
    for c, s in zip(cases, deg):
        rep.require(s.snr <= np.linalg.eigvalsh(s.R)[-1] + 1e-12, f"{c}: alpha/kappa at most lambda_max")
        if c != "balanced(16)":
            rep.require(abs(s.snr - np.linalg.eigvalsh(s.R)[-1]) < 1e-12, f"{c}: the eigenspace attains lambda_max")
    groups = {}  # equal theta within a case: the same law of the overlap (prop-snr-only); one token left out
    for i, (c, s) in enumerate(zip(cases, deg)):
        if _t_eff(s) >= 2:
            groups.setdefault((c, round(float(s.theta), 9)), []).append(i)
    sd_pool = {i: np.sqrt(np.mean(sd[idx] ** 2)) for idx in groups.values() for i in idx}
    deg_z, deg_below, above_ok, below_ok = [], 0.0, True, True
    below_tol = 1 + 3 * np.sqrt(2 / trials)  # 3 s.e. above the edge level r(theta)/d
    for i in sd_pool:
        s, se = deg[i], max(sd[i] / np.sqrt(trials), sd_pool[i] / np.sqrt(trials))
        if s.theta >= theta_smp + 0.5:
            deg_z.append(abs(mean[i] - s.signal_h().sample_overlap) / se)
            above_ok &= bool(deg_z[-1] < 4)
        elif s.theta <= theta_smp - 0.3:  # an edge eigenvector: overlap r(theta)/d, per-draw sd sqrt(2) times it
            r_d = theory.edge_overlap_ratio(s.delta, s.gamma, theta=s.theta) / s.d
            deg_below = max(deg_below, mean[i] / r_d)
            below_ok &= bool(mean[i] < below_tol * r_d)
    rep.row(f"degenerate cases, {len(deg_z)} points above the threshold", max(deg_z), "< 4", SE, above_ok)
    rep.row("degenerate cases below the threshold", deg_below, f"< 1 + 3 s.e. = {sig(below_tol, 3)}",
            "units of 𝔯(θ)/d", below_ok)
    return len(deg_z)


def _causal(r: dict, rep: Report) -> dict:
    T, dims, taus, masks = int(r["T"]), r["rate_dims"], r["rate_taus"], [bool(m) for m in r["rate_strict"]]
    predicted = np.array([[[finite_attention.deviation_rms(T, tau, int(d), strict=m) for m in masks]
                           for tau in taus] for d in dims])
    ratio = r["rate_rms"] / predicted[:, None]  # (d, replicate, tau, mask)
    ratio_mean, ratio_se = ratio.mean(axis=1), se_of(ratio, axis=1)
    slopes = r["rate_slopes"]
    slope_mean, slope_se = slopes.mean(axis=0), se_of(slopes, axis=0)
    # the largest tilt that a departure from the theory decaying like 1/d from the smallest d gives the fit
    x = np.log(dims) - np.log(dims).mean()
    departure = np.abs(ratio_mean[0] - 1).max()
    tilt = float(np.abs(x @ np.log1p(departure * dims[0] / dims)) / (x @ x))
    slope_tol = 4 * slope_se + tilt
    rep.row("causal RMS / theory − 1", np.max(np.abs(ratio_mean - 1) / ratio_se), "< 4", SE,
            np.all(np.abs(ratio_mean - 1) < 4 * ratio_se))
    rep.row("causal rate: slope + 1/2", np.max(np.abs(slope_mean + 0.5) / slope_tol), "< 1", "units of 4 s.e. + tilt",
            np.all(np.abs(slope_mean + 0.5) < slope_tol))
    tau, d, mu2 = 1.0, 200, 4.0  # the bias run
    pred = finite_attention.deviation_mean(T, tau, d, mu_norm2=mu2, R=positional.markov(T, 0.6).R)
    meas = r["bias_mean"] - weights.causal(T, tau)
    z_bias, z_zero = np.abs(meas - pred) / r["bias_se"], np.abs(meas) / r["bias_se"]
    rep.row("causal bias of order 1/d: measured against predicted", z_bias.max(), "< 5", SE, z_bias.max() < 5)
    rep.row("causal bias of order 1/d: measured against 0", z_zero.max(), "> 10", SE, z_zero.max() > 10)
    return dict(departure=departure, tilt=tilt, slope_tol_max=float(slope_tol.max()),
                ratio_se_max=float(ratio_se.max()))


def _table(r: dict, rep: Report) -> None:
    T = int(r["T"])
    lam_max = lambda R: float(np.linalg.eigvalsh(R)[-1])  # noqa: E731
    families = {**positional.catalogue(T), "oscillating": oscillating(T),
                "Markov r = −0.6": positional.markov(T, -0.6), "balanced": positional.balanced(T)}
    headers, rows = weights.snr_table(families, taus=(0.0, 2.0), nonnegative=True)
    column = {h: i for i, h in enumerate(headers)}
    errors = []
    for row in rows:
        R = families[row[0]].R
        errors.append(abs(row[column["optimal"]] - lam_max(R)))
        rep.require(row[column["best w ≥ 0"]] <= lam_max(R) + 1e-12, f"{row[0]}: best w >= 0 at most lambda_max")
        if np.all(R >= 0):
            errors.append(abs(row[column["best w ≥ 0"]] - lam_max(R)))
    rep.row("α/κ table: optimal and best w ≥ 0 against λ_max", below(max(errors), 1e-12), "< 1e-12", "absolute",
            max(errors) < 1e-12)
    # the crossover by two routes: the map (prefix_snr) against prefix_crossover (R itself)
    tau_grid, L_all, crossover_taus = np.linspace(-3, 10, 131), np.arange(2, T + 1), [0.0, 1.0, 2.0, 4.0, 8.0]
    prefix_ratio = np.array([weights.prefix_snr(weights.causal(T, tau), L_all) / weights.prefix_snr_mean(T, L_all)
                             for tau in tau_grid])
    on_map = [int(L_all[prefix_ratio[np.argmin(np.abs(tau_grid - tau))] > 1 + 1e-12].max(initial=0))
              for tau in crossover_taus]
    mismatch = int(on_map != [weights.prefix_crossover(T, tau) for tau in crossover_taus])
    rep.row("prefix crossover: map against prefix_crossover", mismatch, "0", "mismatches", mismatch == 0)


def _one_token(r: dict, rep: Report) -> None:
    T = int(r["T"])
    first = Setting(d=600, V=2400, N=1200, mu_norm2=1.0, process=positional.prefix(T, 4), weights=np.eye(T)[0])
    spectra = r["first_spectra"]  # (draw, eigenvalue)
    one_token = single_token.OneToken(first.delta, first.gamma, first.kappa)
    book_law = theory.Bulk(first.delta, first.gamma, first.kappa)
    smallest = spectra.min(axis=1)
    edge_z_one = (smallest.mean() - one_token.lower) / smallest.std(ddof=1)
    edge_z_book = (smallest.mean() - book_law.lower) / smallest.std(ddof=1)
    ks_draws = np.array([compare.ks_distance(row, one_token) for row in spectra])
    ks_one, ks_book = (compare.ks_distance(spectra, law) for law in (one_token, book_law))
    m4_one = single_token.OneToken(first.delta, first.gamma).moments(4)[3]
    m4_book = theory.Bulk(first.delta, first.gamma).moments(4)[3]
    m4_shift = theory.tokens.m4_shift(first.delta, first.gamma, first.weights)
    rep.row("one token: smallest eigenvalue against the edge", abs(edge_z_one), "< 3", "standard deviations",
            abs(edge_z_one) < 3)
    rep.require(abs(edge_z_book) > 3, "one token: the smallest eigenvalue more than 3 sd from the bulk law's edge")
    rep.row("one token: pooled KS over mean single-draw KS", ks_one / ks_draws.mean(), "< 1", "ratio",
            ks_one < ks_draws.mean())
    rep.require(ks_book > 5 * ks_one, "one token: the bulk law at least 5 times as far in KS distance")
    rep.row("one token: fourth-moment excess, two derivations", abs(m4_one - m4_book - m4_shift) / m4_one, "< 1e-9",
            "relative error", abs(m4_one - m4_book - m4_shift) < 1e-9 * m4_one)


def plugin_gap(r: dict) -> np.ndarray:
    """Simulated accuracy of the spectral classifier minus the Gaussian formula (``projection_accuracy``) at each
    draw's measured <u_hat, h>^2, u_hat^T Sigma u_hat and anchor sign (one row a point, one column a vocabulary;
    the points are the weightings of ``scheme_weights`` in turn, on the label process prefix(T, 4))."""
    process = positional.prefix(int(r["T"]), 4)
    position = downstream.label_position(process)
    a = np.array([abs(downstream.label_signal(w, process.R, position)) for w in r["scheme_weights"]])
    a = np.tile(a, len(r["plugin_spectral"]) // len(a))[:, None]
    class_mean = a * np.sqrt(r["plugin_eta2"]) * (1 - 2 * r["plugin_sign_error"])  # a <u_hat, h>, anchor-signed
    return r["plugin_spectral"] - classification.projection_accuracy(class_mean, r["plugin_quad"])


def plugin_errors(r: dict) -> tuple[np.ndarray, np.ndarray]:
    """Mean over vocabularies of :func:`plugin_gap` at each point, and its paired standard error."""
    gap = plugin_gap(r)
    return gap.mean(axis=1), se_of(gap)


def _classifier(r: dict, rep: Report) -> None:
    T, (plugin_err, plugin_se) = int(r["T"]), plugin_errors(r)
    rep.row("spectral classifier: plug-in against simulation", np.max(np.abs(plugin_err) / plugin_se), "< 5",
            "paired standard errors", np.all(np.abs(plugin_err) < 5 * plugin_se))
    ref = dict(d=400, V=800, N=3200, mu_norm2=0.5, process=positional.prefix(T, 4))
    sp = [Setting(weights=w, **ref).signal_h() for w in r["scheme_weights"]]
    theory_ratio = np.array([(p.sample_eigenvalue / p.population_eigenvalue) ** 2 for p in sp])
    sim = r["anchor_ratio"]
    ratio_z = (sim.mean(axis=1) - theory_ratio) / (sim.std(axis=1, ddof=1) / np.sqrt(sim.shape[1]))
    rep.row("held-out second moment: ratio against (λ₁/λ_pop)²", np.max(np.abs(ratio_z)), "< 4", SE,
            np.all(np.abs(ratio_z) < 4))
    few_setting = Setting(weights=weights.mean(T), **ref)
    pred = [downstream.spectral_accuracy(few_setting, n_anchor=2, h_norm2=float(h2)) for h2 in r["few_h2"]]
    gap = r["few"] - np.array([[p.sign_error, p.accuracy] for p in pred])  # measured - predicted, per vocabulary
    few_z = np.abs(gap.mean(axis=0)) / (gap.std(axis=0, ddof=1) / np.sqrt(len(gap)))
    rep.row("two anchors: wrong-sign probability and accuracy against the prediction", few_z.max(), "< 5", SE,
            np.all(few_z < 5))


def check(r: dict) -> Report:
    rep = Report()
    deg_points = _recovery(r, rep)
    rep.glue(**_causal(r, rep), deg_points=deg_points)
    for part in (_table, _one_token, _classifier):
        part(r, rep)
    return rep.done()
