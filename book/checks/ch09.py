"""The closing checks of book/09_finite_size.md: the edge on the Tracy-Widom scale, the variance of the outlier by
source, the critical window and its envelope, the table's outlier variance and density, against the stored runs.

``results`` (recorded by the page; the draws are those of ``book/data/finite_size.npz`` that a check standardises
with a formula, the rest statistics):

* ``T``, ``delta``, ``gamma``: the book's reference ratios; :func:`reference` and :func:`no_signal` the settings;
* ``rerun_err``, ``rerun_w_err``: the largest differences between a stored draw (and window curve) and its re-run;
* ``edge_top/<d>``: the top eigenvalues without an outlier;
* ``tok/<d>/<T>``: the edges given the tokens, in units of kappa (:func:`token_edge_draws` draws them again);
* ``outlier/<name>/<d>``: within, its s.e., between, its s.e. (variances of the outlier over kappa,
  :func:`attnlib.studies.finite_size.variance_split`), the mean, the numbers of vocabularies and draws;
  ``overlap/<name>/<d>``: within, between, mean, vocabularies, draws of the squared overlap; ``kurt_seeds``,
  ``kurt_draws``: the sign sequences the pooled sign's kurtosis is estimated from (drawn again here, 0.2 s);
* ``pop_d``, ``pop_theta``, ``pop_var``, ``pop_se``: the population outlier's variance over vocabularies;
* ``window_t/<d>``, ``window_overlap/<d>`` (distances x draws), ``window_top/<d>`` at the distances
  ``window_top_t/<d>``; ``boot_seed``, ``boot_resamples``: the bootstrap of the collapse exponent;
* ``table_outlier/<name>/<d>`` (d >= 1000), ``table_l1/<name>/<d>`` (d <= 4000), ``kurt_seeds``, ``kurt_draws``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq
from scipy.stats import chi2 as chi2_law

from attnlib import Setting, theory
from attnlib.engine import compare
from attnlib.model import positional, weights
from attnlib.numerics.statistics import proportional_fit
from attnlib.studies import finite_size, token_mixing
from attnlib.theory import fluctuations, tracy_widom
from attnlib.views.tables import below

from checks import Report

SE = "standard errors"
MARGIN_T = (-2.5, 0.75, 1.5)  # the distances at which the window's margin is checked


def reference(name: str, d: int = 250, T: int = 16) -> Setting:
    """The reference family at dimension ``d``: prefix L = 4, delta = 1/2, gamma = 1/4, ||mu||^2 = 1/2."""
    return Setting(d=250, V=500, N=1000, mu_norm2=0.5, process=positional.prefix(T, 4),
                   weights=name).at_dimension(d)


def no_signal(d: int, T: int = 16) -> Setting:
    """The edge runs: independent signs, mu = 0, mean pooling, delta = 1/2, gamma = 1/4."""
    return Setting(d=250, V=500, N=1000, mu_norm2=0.0, process=positional.independent(T),
                   weights="mean").at_dimension(d)


def se_sd(sd, n):
    """Standard error of a standard deviation over n draws of TW_1 (from its excess kurtosis)."""
    return sd * np.sqrt((tracy_widom.TracyWidom(1).stats().excess_kurtosis + 2) / (4 * n))


def var_se(e):
    """Standard error of the variance of the draws ``e``, from their kurtosis."""
    return e.var(ddof=1) * np.sqrt((np.mean((e - e.mean()) ** 4) / np.var(e) ** 2 - 1) / e.size)


def binom(p, n):
    return np.sqrt(p * (1 - p) / n)


def data_results(data, sections) -> dict:
    """The stored draws of ``book/data/finite_size.npz`` that the check standardises with a formula."""
    out = {f"edge_top/{d}": data[f"edge_top_{d}"] for d in sections["edge"]["ds"]}
    for d in sections["window"]["ds"]:
        t = list(data[f"window_t_{d}"])
        rows = [t.index(x) for x in MARGIN_T if x in t]
        out |= {f"window_t/{d}": data[f"window_t_{d}"], f"window_overlap/{d}": data[f"window_overlap_{d}"],
                f"window_top/{d}": data[f"window_top_{d}"][rows], f"window_top_t/{d}": np.take(t, rows)}
    table = sections["table"]
    for name in table["schemes"]:
        out |= {f"table_outlier/{name}/{d}": data[f"table_top_{name}_{d}"][:, 0] for d in table["ds"]
                if d >= 1000 and f"table_top_{name}_{d}" in data.files}
        out |= {f"table_l1/{name}/{d}": data[f"table_l1_{name}_{d}"] for d in table["density_ds"] if d <= 4000}
    return out


def _keys(r: dict, prefix: str) -> list:
    """The dimensions (or names) that follow ``prefix/`` in the keys of ``r``, in order of recording."""
    return list(dict.fromkeys(k[len(prefix) + 1:].split("/")[0] for k in r if k.startswith(prefix + "/")))


def token_edge_draws(r: dict) -> dict:
    """The page's draws of the edge given the tokens (seeds [tok_seed, d, T], as many as recorded), again."""
    out = {}
    for key, e in ((k, v) for k, v in r.items() if k.startswith("tok/")):
        d, t = (int(x) for x in key.split("/")[1:])
        out[key] = token_mixing.token_edges(d, int(d / r["delta"]), int(d / r["gamma"]), weights.mean(t),
                                            np.random.default_rng([int(r["tok_seed"]), d, t]), e.size)
    return out


def _edge(r: dict, rep: Report) -> None:
    T, TW = int(r["T"]), tracy_widom.TracyWidom(1).stats()
    q95, stats, exceed = fluctuations.edge_quantile(0.95), [], []
    for d in (int(x) for x in _keys(r, "edge_top")):
        s, top = no_signal(d, T), r[f"edge_top/{d}"]
        z = fluctuations.standardize(s.delta, s.gamma, top=top, kappa=s.kappa, d=d)
        dl_f, gm_f, kp_f = compare.finite_size_parameters(s)
        z_dof = fluctuations.standardize(dl_f, gm_f, top=top, kappa=kp_f, d=d)
        sd, n = z.std(ddof=1), top.size
        stats.append([d, n, z.mean(), sd / np.sqrt(n), z_dof.mean(), sd, se_sd(sd, n)])
        exceed.append(np.mean(z > q95))
    stats, exceed = np.array(stats), np.array(exceed)
    d_e, off, se_off = stats[:, 0], stats[:, 2] - tracy_widom.MEAN, stats[:, 3]

    train, held = d_e <= 1000, d_e > 1000  # weighted least squares of offset = A d^(-1/3)
    A_off, A_se = proportional_fit(d_e[train] ** (-1 / 3), off[train], se_off[train])
    A_all = proportional_fit(d_e ** (-1 / 3), off, se_off)[0]
    A_dof = proportional_fit(d_e[train] ** (-1 / 3), (stats[:, 4] - tracy_widom.MEAN)[train], se_off[train])[0]
    held_z = (off - A_off * d_e ** (-1 / 3)) / np.hypot(se_off, A_se * d_e ** (-1 / 3))
    edge_p = chi2_law.sf(np.sum(((off - A_all * d_e ** (-1 / 3)) / se_off) ** 2), len(d_e) - 1)
    sd_z = np.abs(stats[:, 5] - tracy_widom.SD) / stats[:, 6]
    rep.row("edge sd vs TW₁ (worst d)", np.max(sd_z), 4, SE, np.all(sd_z < 4))
    rep.row("edge mean, held-out d vs fitted offset", np.abs(held_z[held]).max(), 4, SE,
            np.all(np.abs(held_z[held]) < 4))
    rep.row("edge offset fit over all d: X² p-value", edge_p, "≥ 0.001", "probability", edge_p > 1e-3)
    rep.row("offset removed by N − 1, V − 1", (abs(A_off) - abs(A_dof)) / A_se, "≥ 2", SE,
            abs(A_off) - abs(A_dof) > 2 * A_se)
    exceed_z = (exceed - 0.05) / binom(0.05, stats[:, 1])
    rep.row("exceedance of TW₁⁻¹(0.95) (worst d)", np.max(exceed_z), 3, "binomial s.e.",
            np.all(exceed < 0.05 + 3 * binom(0.05, stats[:, 1])))


def _tokens(r: dict, rep: Report) -> None:
    ds = [int(d) for d in _keys(r, "tok")]
    tok = {d: {t: r[f"tok/{d}/{t}"] for t in (4, 16)} for d in ds}
    if not all(np.ptp(e) > 0 for v in tok.values() for e in v.values()):  # no spread: no variance to compare
        rep.require(False, "the edges given the tokens vary from draw to draw")
        return
    excess = {d: tok[d][4].var(ddof=1) - tok[d][16].var(ddof=1) for d in ds}
    excess_se = {d: np.hypot(var_se(tok[d][4]), var_se(tok[d][16])) for d in ds}
    per_T2 = 1 / 16 - 1 / 256
    c_tok, c_se = ({d: d * v[d] / per_T2 for d in ds} for v in (excess, excess_se))
    rep.row("edge given the tokens: variance added at T = 4 (smaller of d = 125, 250)",
            min(excess[d] / excess_se[d] for d in ds), "≥ 4", SE, all(excess[d] > 4 * excess_se[d] for d in ds))
    c_z = abs(c_tok[125] - c_tok[250]) / np.hypot(c_se[125], c_se[250])
    rep.row("that variance × d T²: d = 125 against d = 250", c_z, 4, SE,
            abs(c_tok[125] - c_tok[250]) < 4 * np.hypot(c_se[125], c_se[250]))


def _outlier_settings(T: int) -> dict:
    """The two weightings with alpha/kappa = 4: optimal on the prefix, mean pooling of a Markov chain."""
    r_markov = brentq(lambda x: weights.snr(weights.mean(T), positional.markov(T, x).R) - 4, 0.01, 0.99,
                      xtol=1e-14)
    procs = {"optimal": (positional.prefix(T, 4), "optimal"), "markov": (positional.markov(T, r_markov), "mean")}
    return {name: Setting(d=400, V=800, N=800, mu_norm2=0.5, process=p, weights=w) for name, (p, w) in procs.items()}


def _kurtosis(settings: dict, seed: int, n: int) -> dict:
    """The kurtosis of the pooled sign of each setting, from n sign sequences each drawn in turn from ``seed``."""
    rng = np.random.default_rng(seed)
    return {name: fluctuations.fourth_moment_ratio(s.weights, s.process.sample(n, rng))
            for name, s in settings.items()}


def _outlier(r: dict, rep: Report) -> None:
    T = int(r["T"])
    out_set = _outlier_settings(T)
    kurt = _kurtosis(out_set, int(r["kurt_seeds"][0]), int(r["kurt_draws"][0]))
    out_z, voc_z, gauss_z = [], [], []
    for key in (k for k in r if k.startswith("outlier/")):
        name, d = key.split("/")[1], int(key.split("/")[2])
        within, within_se, between, between_se, mean, K, J = r[key]
        s = out_set[name]
        pred, gauss = (fluctuations.outlier_variance(s.delta, s.gamma, s.theta, d, kappa=1.0, mu_norm2=0.5,
                                                     beta4=b) for b in (kurt[name], 3.0))
        out_z.append((within - pred.sampling) / within_se)
        voc_z.append((between - pred.vocabulary) / between_se)
        s_d = s.at_dimension(d)
        lam = s_d.signal_h().sample_eigenvalue / s_d.kappa
        se_mean = np.sqrt(between / K + within / (K * J))
        rep.require(abs(mean - lam) < 4 * se_mean + 2 * lam / d, f"mean outlier, {name}, d = {d}")
        ov_within, ov_between, ov_mean, ov_K, ov_J = r[f"overlap/{name}/{d}"]
        se_ov = np.sqrt(max(ov_between, 0) / ov_K + ov_within / (ov_K * ov_J))
        o_lim = s_d.signal_h().sample_overlap
        rep.require(abs(ov_mean - o_lim) < 4 * se_ov + 2 * o_lim / d, f"mean overlap, {name}, d = {d}")
        if name == "optimal":
            gauss_z.append((gauss.sampling - within) / within_se)
    rep.row("outlier sampling variance vs eq.", max(np.abs(out_z)), 4, "bootstrap s.e.", np.all(np.abs(out_z) < 4))
    rep.row("outlier vocabulary variance vs eq.", max(np.abs(voc_z)), 4, "bootstrap s.e.",
            np.all(np.abs(voc_z) < 4))
    pop = reference("mean", int(r["pop_d"]), T).with_theta(float(r["pop_theta"]))
    pop_pred = fluctuations.outlier_variance(r["delta"], 0.0, pop.theta, pop.d, mu_norm2=pop.mu_norm2)
    pop_z = (r["pop_var"] - pop_pred.vocabulary) / r["pop_se"]
    rep.row("population outlier over vocabularies (γ = 0) vs eq.", abs(pop_z), 4, SE, abs(pop_z) < 4)
    rep.row("Gaussian sampling variance, optimal weights", min(gauss_z), "≥ 4", "bootstrap s.e.",
            min(gauss_z) > 4)


def _window(r: dict, rep: Report) -> None:
    T, DELTA, GAMMA = int(r["T"]), r["delta"], r["gamma"]
    x_star, q95 = theory.critical_x(DELTA, GAMMA)[0], fluctuations.edge_quantile(0.95)
    slope, w_1 = theory.window.overlap_slope(DELTA, GAMMA), fluctuations.window_width(DELTA, GAMMA, 1)
    ds = [int(d) for d in _keys(r, "window_t")]
    offsets, draws, limits, R_w, above = [], [], [], [], []
    for d in ds:
        t, ov = r[f"window_t/{d}"], r[f"window_overlap/{d}"]
        w_d = fluctuations.window_width(DELTA, GAMMA, d)
        lim = np.array([reference("mean", d, T).with_theta(DELTA + x_star + x * w_d).signal_h().sample_overlap
                        for x in t])
        offsets.append(t * w_d)
        draws.append(ov)
        limits.append(lim)
        R_w.append(np.sqrt(np.mean((ov - lim[:, None]) ** 2, axis=1)) / (slope * w_d))
        s_d = reference("mean", d, T)
        z_top = fluctuations.standardize(s_d.delta, s_d.gamma, top=r[f"window_top/{d}"], kappa=s_d.kappa, d=d)
        above.append(dict(zip(r[f"window_top_t/{d}"], np.mean(z_top > q95, axis=1))))
    nu, nu_boot = finite_size.bootstrap_exponent(ds, offsets, draws, limits,
                                                 np.random.default_rng(int(r["boot_seed"])),
                                                 resamples=int(r["boot_resamples"]))
    nu_sd = nu_boot.std(ddof=1)
    at0 = [list(r[f"window_t/{d}"]).index(0.0) for d in ds]
    m0 = np.array([dw[i].mean() for dw, i in zip(draws, at0)])
    s0 = np.array([dw[i].std(ddof=1) / np.sqrt(dw.shape[1]) for dw, i in zip(draws, at0)])
    X = np.vstack([np.ones(len(m0)), np.log(ds)]).T
    cov0 = np.linalg.inv(X.T @ (X * ((m0 / s0) ** 2)[:, None]))
    nu0, nu0_se = -(cov0 @ X.T @ ((m0 / s0) ** 2 * np.log(m0)))[1], np.sqrt(cov0[1, 1])
    rep.row("collapse exponent vs 1/3", abs(nu - 1 / 3) / nu_sd, 3, "bootstrap sd", abs(nu - 1 / 3) < 3 * nu_sd)
    rep.row("threshold exponent vs 1/3", abs(nu0 - 1 / 3) / nu0_se, 3, SE, abs(nu0 - 1 / 3) < 3 * nu0_se)

    n_w, half = [dw.shape[1] for dw in draws], fluctuations.window_half_width(0.95)
    below_t = [(a[-2.5] - 0.05) / binom(0.05, n) for a, n in zip(above, n_w) if -2.5 in a]
    at_edge = [(0.95 - (a[0.75] + (a[1.5] - a[0.75]) * (half - 0.75) / 0.75)) / binom(0.95, n)
               for a, n in zip(above, n_w) if 0.75 in a and 1.5 in a and n >= 30]
    rep.row("margin passed below threshold (x̃ = −2.5) vs 5%", np.max(np.abs(below_t)), 4, "binomial s.e.",
            np.all(np.abs(below_t) < 4))
    rep.row("margin passed at the window edge, below 95% by", min(at_edge), "≥ 4", "binomial s.e.",
            min(at_edge) > 4)

    t_all = [o / (w_1 * d ** (-1 / 3)) for o, d in zip(offsets, ds)]
    fitted = np.array(ds) <= 2000  # the envelope's sizes; the larger ones are held out
    R0 = np.array([R[list(t).index(0.0)] for R, t in zip(R_w, t_all)])
    tails = [R[t >= 1] * np.sqrt(t[t >= 1]) for R, t in zip(R_w, t_all)]
    tail_max = [tl.max() if tl.size else np.nan for tl in tails]  # nan: no distance beyond x~ = 1
    R0_fit, tail_fit = R0[fitted].max(), max(m for m, f in zip(tail_max, fitted) if f)
    peak, tail = finite_size.OVERLAP_PEAK, finite_size.OVERLAP_TAIL
    rep.require(peak == np.ceil(10 * R0_fit) / 10, "OVERLAP_PEAK: the largest value at d <= 2000, rounded up")
    rep.require(tail == np.ceil(10 * tail_fit) / 10, "OVERLAP_TAIL: the largest value at d <= 2000, rounded up")
    held_R0 = [(v - peak) / (v / np.sqrt(2 * n)) for v, n, f in zip(R0, n_w, fitted) if not f]
    held_tail = [(v - tail) / (v / np.sqrt(2 * n)) for tl, n, f in zip(tails, n_w, fitted) if not f for v in tl]
    rep.row("envelope: held-out values above it", max(held_R0 + held_tail), 3, SE, max(held_R0 + held_tail) < 3)
    largest = [max((v, d) for v, d, f in zip(R0, ds, fitted) if not f),
               max((m, d) for m, d, f in zip(tail_max, ds, fitted) if not f)]
    loose = [(c - m) / (m / np.sqrt(2 * dict(zip(ds, n_w))[d])) for c, (m, d) in zip((peak, tail), largest)]
    rep.row("envelope: above the largest held-out value by", max(loose), 4, SE, max(loose) < 4)


def _table(r: dict, rep: Report) -> None:
    T, DELTA, GAMMA = int(r["T"]), r["delta"], r["gamma"]
    names = _keys(r, "table_l1")
    ref = {name: reference(name, 250, T) for name in names}
    kurt = _kurtosis(ref, int(r["kurt_seeds"][1]), int(r["kurt_draws"][1]))
    worst = []
    for name, s in ref.items():
        lam = s.signal_h().sample_eigenvalue
        var_ref = fluctuations.outlier_variance(DELTA, GAMMA, s.theta, 1, kappa=s.kappa, mu_norm2=0.5,
                                                beta4=kurt[name]).total / lam**2
        large = [(int(d), r[f"table_outlier/{name}/{d}"] / lam - 1) for d in _keys(r, f"table_outlier/{name}")]
        n_ref = sum(e.size for _, e in large)
        ratio = sum(d * np.sum(e**2) for d, e in large) / n_ref / var_ref
        rep.require(n_ref >= 90, f"at least 90 draws at d >= 1000, {name}")
        worst.append((abs(ratio - 1) * np.sqrt(2 * n_ref), abs(ratio - 1) < 4 / np.sqrt(2 * n_ref)))
    rep.row("table: outlier variance, d ≥ 1000 (worst)", max(w for w, _ in worst), 4,
            "relative, in units of 1/√(2n)", all(h for _, h in worst))
    l1_last = []
    for name in names:
        exact_ds = [int(d) for d in _keys(r, f"table_l1/{name}")]
        l1_means = [r[f"table_l1/{name}/{d}"].mean() for d in exact_ds]
        power = -np.polyfit(np.log(exact_ds), np.log(l1_means), 1)[0]
        rep.require(bool(np.all(np.diff(l1_means) < 0)), f"density L1 decreasing with d, {name}")
        rep.require(0.7 < power < 1.3, f"density L1 power between 0.7 and 1.3, {name}")
        l1_last.append(l1_means[-1])
    rep.row("density L1 at d = 4000 (worst)", max(l1_last), "0.02 (1% out of place)", "absolute",
            max(l1_last) < 0.02)


def check(r: dict) -> Report:
    rep = Report()
    rep.row("reproduction of a stored draw", below(r["rerun_err"], 1e-9), 1e-9, "relative", r["rerun_err"] < 1e-9)
    rep.row("reproduction of a stored window curve", below(r["rerun_w_err"], 1e-9), 1e-9,
            "relative (overlaps absolute)", r["rerun_w_err"] < 1e-9)
    for part in (_edge, _tokens, _outlier, _window, _table):
        try:
            part(r, rep)
        except ValueError as err:  # a formula that leaves a part without a valid setting fails that part
            rep.require(False, f"{part.__name__[1:]}: {err}")
    return rep.done()
