"""The closing checks of book/15_heads_and_layers.md: the covariance, spikes and bulk of concatenated heads, the
identities of their theory, and stacked causal layers.

``results`` (recorded by the page):

* ``T``, ``delta``, ``gamma``; the sampled covariance of two heads ``cov_heads`` (the heads) on the Markov chain
  (``markov_r``): its mean ``cov/mean`` and standard errors ``cov/se`` over the sequences, for the vocabulary
  ``cov_d``, ``cov_V``, ``cov_mu_norm2`` drawn first from ``default_rng(cov_seed)``, drawn again here;
* the three cases at ``d_big``: their heads ``W/<case>`` and ``mu_norm2``; the top eigenvalues and overlaps of
  ``S`` (``runs/<case>/top``, ``runs/<case>/overlap_h``: draws x outliers) and of the population covariance
  (``pops/<case>/...``, with each draw's ``h_norm2``);
* the bulk at ``bulk_d`` (``bulk_draws`` draws, mu = 0): the largest eigenvalue, the sum and the sum of squares
  of the non-zero eigenvalues (``bulk/max``, ``bulk/sum``, ``bulk/sum2``: one per case);
* the real two-layer stacks at ``tau`` (``stack_dims``, ``stack_mu_norm2``): for each process,
  ``stack/<process>/<field>`` (dims x draws x modes [x layer or limit]) for the fields ``alpha``, ``kappa``,
  ``alpha_limit`` and ``top`` of ``stacked_layers.StackDraw``;
* ``span_search``: the best alpha/kappa over the span of each case's heads, found by a direct search (the
  independent route to the top of the pencil).
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import generative, heads, positional, weights
from attnlib.studies import stacked_layers
from attnlib.theory import heads as theory_heads, layers
from attnlib.views.tables import below, sig
from attnlib.numerics.statistics import standard_error as se_of

from checks import Report

SE = "standard errors"


def processes(T: int) -> dict:
    """The sign process of each case of heads, and the three processes of the stacks."""
    markov = positional.markov(T, 0.6)
    two_ended = positional.blocks([4] + [1] * 8 + [4])  # a prefix block and a suffix block
    return {"causal + anti-causal": two_ended, "causal τ = 8, 0, −4": markov, "three random": markov,
            "prefix (L = 4)": positional.prefix(T, 4), "suffix (L = 4)": positional.suffix(T, 4),
            "Markov (r = 0.6)": markov}


def _spikes(r, rep, procs, cases):
    T, delta, gamma = r["T"], r["delta"], r["gamma"]
    vocab = generative.draw_vocabulary(r["cov_d"], r["cov_V"], r["cov_mu_norm2"],
                                       np.random.default_rng(r["cov_seed"]))  # the page's first draw
    cov_z = (r["cov/mean"] - heads.heads_population_covariance(vocab, positional.markov(T, r["markov_r"]).R,
                                                               r["cov_heads"])) / r["cov/se"]
    d = r["d_big"]
    z_big = []
    for name, mu2 in zip(cases, r["mu_norm2"]):
        s = heads.HeadsSetting(Setting(d=d, V=int(d / delta), N=int(d / gamma), mu_norm2=mu2,
                                       process=procs[name]), r[f"W/{name}"], name)
        th_, (A, B) = s.spikes("h"), s.matrices
        top, ov = r[f"runs/{name}/top"], r[f"runs/{name}/overlap_h"]
        # population: each draw against the theory at its own ||h||^2 (the covariance given E)
        th_pop = [theory_heads.spikes(delta, gamma, h_norm2=h2, A=A, B=B) for h2 in r[f"pops/{name}/h_norm2"]]
        rel = np.array([t_ / t.population_eigenvalue[:t_.size] - 1 for t_, t in zip(r[f"pops/{name}/top"], th_pop)])
        rel_ov = np.array([o / t.population_overlap[:o.size] - 1 for o, t in zip(r[f"pops/{name}/overlap_h"], th_pop)])
        for k in range(th_.count):
            z_big += [(top[:, k].mean() - th_.sample_eigenvalue[k]) / se_of(top[:, k]),
                      (ov[:, k].mean() - th_.sample_overlap[k]) / se_of(ov[:, k]),
                      rel[:, k].mean() / se_of(rel[:, k]), rel_ov[:, k].mean() / se_of(rel_ov[:, k])]
    z_big = np.abs(z_big)
    B_of = {name: r[f"W/{name}"].T @ r[f"W/{name}"] for name in cases}
    edge_gap = [m / theory.HeadsBulk(delta, gamma, B_of[name]).upper - 1
                for name, m in zip(cases, r["bulk/max"])]
    n = r["bulk_draws"] * r["bulk_d"]
    m_gap = [np.array([s1 / (n * B_of[name].shape[0]), s2 / (n * B_of[name].shape[0])])
             / theory.HeadsBulk(delta, gamma, B_of[name]).moments(2) - 1
             for name, s1, s2 in zip(cases, r["bulk/sum"], r["bulk/sum2"])]
    edge_tol = 3 * r["bulk_d"] ** (-2 / 3)
    rep.row("sampled covariance vs eq. (worst entry)", np.abs(cov_z).max(), 4, SE, np.abs(cov_z).max() < 4)
    rep.row("d = 2000: outliers, overlaps, population (worst)", z_big.max(), 4, SE, z_big.max() < 4)
    rep.row("bulk: largest eigenvalue vs edge (worst)", max(abs(e) for e in edge_gap), sig(edge_tol, 2),
            "relative", max(abs(e) for e in edge_gap) < edge_tol)
    worst_m = max(np.abs(m).max() for m in m_gap)
    rep.row("bulk: m₁, m₂ vs formula (worst)", worst_m, 0.02, "relative", worst_m < 0.02)
    return B_of


def _identities(r, rep, procs, cases, B_of):
    T, delta, gamma, markov = r["T"], r["delta"], r["gamma"], procs["Markov (r = 0.6)"]
    # the reductions: H = 1 and orthonormal heads against the one-head theory
    w1 = weights.causal(T, 1.0)
    one = theory_heads.signal_spikes(delta, gamma, R=markov.R, W=w1, mu_norm2=1.0)
    ref1 = theory.signal(delta, gamma, weights.alpha(w1, markov.R), weights.kappa(w1), 1.0)
    red_err = max(abs(one.sample_eigenvalue[0] - ref1.sample_eigenvalue),
                  abs(one.sample_overlap[0] - ref1.sample_overlap))
    W_on = theory_heads.whiten(r["W/three random"])
    multi = theory_heads.signal_spikes(delta, gamma, R=markov.R, W=W_on, mu_norm2=3.0)
    ref_on = theory.signal(delta, 3 * gamma, theory_heads.pencil(markov.R, W_on)[0], 1.0, 3.0)
    red_err = max(red_err, abs(multi.sample_eigenvalue[0] - ref_on.sample_eigenvalue))
    pairs = [(procs[name].R, r[f"W/{name}"]) for name in cases]
    span_ok = all(theory_heads.span_bound(R, W).top <= theory_heads.span_bound(R, W).lambda_max + 1e-12
                  for R, W in pairs)
    # the thresholds bracket the outliers: spike k present 1% above its threshold, absent 1% below
    thr_side = []
    for R, W in pairs:
        for k, m2 in enumerate(theory_heads.head_thresholds(delta, gamma, R=R, W=W)[1]):
            if np.isfinite(m2) and m2 > 0:
                sides = [theory_heads.signal_spikes(delta, gamma, R=R, W=W, mu_norm2=f * m2).sample_eigenvalue[k]
                         for f in (1.01, 0.99)]
                thr_side.append(bool(np.isfinite(sides[0]) and np.isnan(sides[1])))
    # the pencil against the page's direct search of the span
    pencil_err = max(abs(theory_heads.pencil(R, W)[0] - s) for (R, W), s in zip(pairs, r["span_search"]))
    # the bulk density integrates to its mass 1/(H gamma) and has the mean of the formula
    B_r = B_of["three random"]
    x_r = theory.HeadsBulk(delta, gamma, B_r).upper * (0.5 - 0.5 * np.cos(np.linspace(0, np.pi, 1500)))[1:]
    f_r = theory.HeadsBulk(delta, gamma, B_r).density(x_r)
    mass_err = max(abs(np.trapezoid(f_r, x_r) * B_r.shape[0] * gamma - 1),
                   abs(np.trapezoid(x_r * f_r, x_r) / theory.HeadsBulk(delta, gamma, B_r).moments(2)[0] - 1))
    rep.row("H = 1 and orthonormal heads vs one-head formulas", below(red_err, 1e-9), 1e-9, "absolute",
            red_err < 1e-9)
    rep.require(span_ok, "the span bound holds for the chapter's heads")
    rep.row("thresholds: spikes not on the right side of theirs", len(thr_side) - sum(thr_side), 0, "cases",
            all(thr_side) and len(thr_side) >= 4)
    rep.row("pencil vs a direct search of the span", below(pencil_err, 1e-8), 1e-8, "absolute", pencil_err < 1e-8)
    rep.row("bulk density: mass × Hγ and mean vs formula", mass_err, 2e-3, "relative", mass_err < 2e-3)


def _stacks(r, rep, procs):
    T, tau, delta, gamma, dims = r["T"], r["tau"], r["delta"], r["gamma"], r["stack_dims"]
    rec_err = np.abs(layers.stacked_weights(T, [tau]) - weights.causal(T, tau)).max()
    deep_err = np.abs(layers.stacked_weights(T, [tau] * 60) - np.eye(T)[0]).max()
    e2e_z, paired, snr_scaled = [], {}, []
    for name in ("prefix (L = 4)", "suffix (L = 4)", "Markov (r = 0.6)"):
        p, st = procs[name], {f: r[f"stack/{name}/{f}"] for f in ("alpha", "kappa", "alpha_limit", "top")}
        for m, mode in enumerate(stacked_layers.MODES):
            w_lim = layers.stacked_weights(T, [tau, tau], residual=m == 1)
            lim = Setting(d=dims[-1], V=int(dims[-1] / delta), N=int(dims[-1] / gamma),
                          mu_norm2=r["stack_mu_norm2"], process=p, weights=w_lim)
            for i, d in enumerate(dims):
                # alpha/kappa of the stack's own weights, minus that of the limit weights on the same signs
                snr_gap = st["alpha"][i, :, m] / st["kappa"][i, :, m] - st["alpha_limit"][i, :, m] / (w_lim @ w_lim)
                top = st["top"][i, :, m]  # (draw, layer / limit weights)
                paired[name, mode, d] = top[:, 0] / top[:, 1] - 1
                snr_scaled.append(d * abs(snr_gap.mean()) / weights.snr(w_lim, p.R))
                th_top = lim.signal_h().sample_eigenvalue
                if d == dims[-1] and np.isfinite(th_top):
                    e2e_z.append((top[:, 0].mean() - th_top) / se_of(top[:, 0]))
    e2e_z = np.abs(e2e_z)
    paired_ratio = np.array([np.abs(paired[n, m, dims[0]]).mean() / np.abs(paired[n, m, dims[-1]]).mean()
                             for n, m, d in paired if d == dims[0]])
    rep.row("one layer of the recursion vs w∞", below(rec_err, 1e-12), 1e-12, "absolute", rec_err < 1e-12)
    rep.row("60 plain layers vs e₁", below(deep_err, 1e-6), 1e-6, "absolute", deep_err < 1e-6)
    rep.row("real two-layer stacks: λ₁ vs spike formula (worst)", e2e_z.max(), 4, SE, e2e_z.max() < 4)
    rep.row("real two-layer stacks: d × relative α/κ gap (worst)", max(snr_scaled), 2, "d × relative",
            max(snr_scaled) < 2)
    rep.row("paired gap, d = 250 over d = 1000 (median)", np.median(paired_ratio), "≥ 2", "ratio",
            np.median(paired_ratio) >= 2)


def check(r: dict) -> Report:
    rep = Report()
    procs = processes(r["T"])
    cases = ("causal + anti-causal", "causal τ = 8, 0, −4", "three random")
    B_of = _spikes(r, rep, procs, cases)
    _identities(r, rep, procs, cases, B_of)
    _stacks(r, rep, procs)
    return rep.done()
