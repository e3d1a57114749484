"""The closing checks of book/07_experiments.md: outliers, edges, overlaps and thresholds of the simulated
spectra, and the downstream task (ridge ranking, Fisher ceiling, spectral classifier) against the theory.

``results`` (recorded by the page):

* ``T``, ``L`` (the prefix model; the four weightings are rebuilt here as the page builds them);
* gallery (``gallery/sizes`` d, V, N, ``gallery/mu_norm2``, ``gallery/trials``): ``gallery/<stat>/<key>``,
  the mean and sd over the draws of ``top`` and ``second``;
* transitions (``sweep/sizes``, ``mu_grid``, ``sweep/trials``; mean, causal, optimal in turn):
  ``sweep/<stat>/<key>``, the mean and sd over the draws of ``top`` and ``overlap_u``;
* downstream task (``task/sizes`` d, V, ``task/mu_norm2`` of the training-size sweep, ``n_grid``,
  ``mu_sweep`` at N = 800, ``n_anchor``): per vocabulary, ``n/<key>`` (training sizes x weightings x
  vocabularies) and ``mu/<key>`` (signal strengths x 1 x weightings x vocabularies) of ``ridge`` and
  ``spectral``, ``oracle`` without the training-size axis, and ``h_norm2`` (vocabularies).
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting
from attnlib.model import positional, weights
from attnlib.studies import downstream
from attnlib.numerics.statistics import standard_error as se_of

from checks import Report

MAIN = ("mean", "causal", "optimal")
REFERENCE_N = 800


def schemes(T: int, L: int):
    """The prefix process and the four weightings of the page."""
    process = positional.prefix(T, L)
    return process, {"mean": weights.mean(T), "causal": weights.causal(T), "optimal": weights.optimal(process.R),
                     "first token": np.eye(T)[0]}


def _mean(x):
    return x.mean(axis=-1)


def _spectra(r: dict, rep: Report, process, sch: dict) -> None:
    """Gallery and transitions: outliers, edges, overlaps and detection thresholds."""
    gd, gV, gN = (int(x) for x in r["gallery/sizes"])
    gallery = [Setting(d=gd, V=gV, N=gN, mu_norm2=float(r["gallery/mu_norm2"]), process=process, weights=sch[n],
                       label=n) for n in MAIN]
    g_sem = r["gallery/sd/top"] / np.sqrt(int(r["gallery/trials"]))
    z_top = [(r["gallery/mean/top"][i] - s.signal().sample_eigenvalue) / g_sem[i] for i, s in enumerate(gallery)]
    z_second = [(r["gallery/mean/second"][i] - s.bulk.upper) / r["gallery/sd/second"][i]
                for i, s in enumerate(gallery)]
    sd_, sV, sN = (int(x) for x in r["sweep/sizes"])
    mu_grid, trials, mu_fine = r["mu_grid"], int(r["sweep/trials"]), np.linspace(0.0, 1.0, 401)  # as the page
    settings = [Setting(d=sd_, V=sV, N=sN, mu_norm2=float(m), process=process, weights=sch[name], label=name)
                for name in MAIN for m in mu_grid]
    blocks = {name: slice(i * len(mu_grid), (i + 1) * len(mu_grid)) for i, name in enumerate(MAIN)}
    ratios = []
    for name in MAIN:
        block, lim = blocks[name], settings[blocks[name]][0].limit
        fine, edge = lim.replace(mu_norm2=mu_fine).signal(), lim.bulk.upper
        spread = r["sweep/sd/top"][block]
        top_theory = np.interp(mu_grid, mu_fine, np.where(np.isfinite(fine.sample_eigenvalue),
                                                          fine.sample_eigenvalue, edge))
        on_theory = downstream.empirical_threshold(mu_grid, top_theory, edge, spread)
        empirical = downstream.empirical_threshold(mu_grid, r["sweep/mean/top"][block], edge, spread)
        slope = np.interp(on_theory, mu_grid[1:], np.diff(top_theory) / np.diff(mu_grid))
        scale = np.interp(on_theory, mu_grid, spread) / np.sqrt(trials) / slope
        predicted = lim.thresholds()[1] * lim.kappa / lim.alpha - lim.delta
        rep.require(predicted < empirical, f"empirical threshold above the predicted one, {name}")
        ratios.append(abs(empirical - on_theory) / scale)
    window = np.array([downstream.in_critical_window(s) for s in settings])
    checked = np.array([s.signal().sample_detectable for s in settings]) & ~window
    ov_theory = np.array([s.signal().sample_overlap for s in settings])
    ov_z = ((r["sweep/mean/overlap_u"] - ov_theory) / (r["sweep/sd/overlap_u"] / np.sqrt(trials)))[checked]
    ov_z_scale = np.sqrt((trials - 1) / (trials - 3) / checked.sum())

    top_z, second_z = max(np.abs(z_top)), max(np.abs(z_second))
    rep.row("top eigenvalue against the predicted outlier", top_z, "< 4", "standard errors", top_z < 4)
    rep.row("second eigenvalue against the bulk edge", second_z, "< 3", "standard deviations", second_z < 3)
    rep.row(f"overlap with u, {ov_z.size} points", np.abs(ov_z).max(), "< 5", "standard errors",
            np.abs(ov_z).max() < 5)
    offset = abs(ov_z.mean()) / ov_z_scale
    rep.row("mean standardised overlap deviation", offset, "< 3", "its spread", offset < 3)
    rep.row("empirical threshold against the rule on theory", max(ratios), "< 3", "location uncertainties",
            max(ratios) < 3)


def _task(r: dict, rep: Report, process, sch: dict) -> None:
    """The downstream task: ridge ranking, the Fisher ceiling and the spectral classifier."""
    d, V = (int(x) for x in r["task/sizes"])
    names, n_grid, mu_sweep, n_anchor = list(sch), list(r["n_grid"]), list(r["mu_sweep"]), int(r["n_anchor"])

    def setting(j, n, mu):
        return Setting(d=d, V=V, N=int(n), mu_norm2=float(mu), process=process, weights=sch[names[j]],
                       label=names[j])

    mus = [float(r["task/mu_norm2"]), *mu_sweep]  # the training-size sweep, then each signal strength
    io, ic, im, i1 = (names.index(n) for n in ("optimal", "causal", "mean", "first token"))
    i800 = n_grid.index(REFERENCE_N)
    ridge = np.vstack([_mean(r["n/ridge"]), _mean(r["mu/ridge"])[:, 0]])
    ridge_se = np.vstack([se_of(r["n/ridge"]), se_of(r["mu/ridge"])[:, 0]])

    def margin(a, b):
        return ridge[:, a] - ridge[:, b] - ridge_se[:, a] - ridge_se[:, b]

    paired = []
    for a, b in ((io, ic), (ic, im), (i1, im)):
        diff = r["n/ridge"][..., a, :] - r["n/ridge"][..., b, :]
        paired.append(_mean(diff)[i800] / se_of(diff)[i800])
    late = np.concatenate([np.array(n_grid) >= 400, np.ones(len(mu_sweep), bool)])
    rep.require(setting(i1, REFERENCE_N, mus[0]).snr < setting(im, REFERENCE_N, mus[0]).snr,
                "first token: a lower α/κ than mean pooling")
    label_snrs = [downstream.label_snr(setting(j, REFERENCE_N, mus[0])) for j in range(4)]
    rep.require(np.array_equal(np.argsort(_mean(r["n/oracle"])), np.argsort(label_snrs)),
                "Fisher rules ordered as the label SNR")
    oracle_all = np.vstack([_mean(r["n/oracle"]), _mean(r["mu/oracle"])])
    oracle_se = np.vstack([se_of(r["n/oracle"]), se_of(r["mu/oracle"])])
    fisher_all = np.array([[downstream.fisher_accuracy(setting(j, REFERENCE_N, mu)) for j in range(4)]
                           for mu in mus])
    # finite d: E[h^T W'^-1 h] = ||h||^2 V / (V - d - 3) instead of ||h||^2 / (1 - delta)
    bias_all = np.array([[downstream.fisher_finite_d_shift(setting(j, REFERENCE_N, mu)) for j in range(4)]
                         for mu in mus])

    # the spectral classifier, fed with each vocabulary's own ||h||^2
    def given_h(j, n, mu, h_norm2):
        return np.mean([downstream.spectral_accuracy(setting(j, n, mu), n_anchor=n_anchor, h_norm2=h2).accuracy
                        for h2 in h_norm2])

    ok_n = np.array([[downstream.spectral_prediction_valid(setting(j, n, mus[0])) for j in range(3)] for n in n_grid])
    ok_mu = np.array([[downstream.spectral_prediction_valid(setting(j, REFERENCE_N, mu)) for j in range(3)]
                      for mu in mu_sweep])
    given_n = np.array([[given_h(j, n, mus[0], r["n/h_norm2"]) for j in range(3)] for n in n_grid])
    given_mu = np.array([[given_h(j, REFERENCE_N, mu, h2) for j in range(3)] for mu, h2 in zip(mu_sweep,
                                                                                               r["mu/h_norm2"])])
    sim_n, sim_mu = _mean(r["n/spectral"])[:, :3], _mean(r["mu/spectral"])[:, 0, :3]
    spec_err = np.concatenate([(sim_n - given_n)[ok_n], (sim_mu - given_mu)[ok_mu]])
    spec_se = np.concatenate([se_of(r["n/spectral"])[:, :3][ok_n], se_of(r["mu/spectral"])[:, 0, :3][ok_mu]])
    spectral_margin = min(np.min(_mean(r["n/ridge"]) - _mean(r["n/spectral"])),
                          np.min(_mean(r["mu/ridge"])[:, 0] - _mean(r["mu/spectral"])[:, 0]))
    rep.require(np.all(ridge[len(n_grid)] - 0.5 > 10 * ridge_se[len(n_grid)]), "ridge above chance at μ = 0")
    s_mean = setting(im, REFERENCE_N, mus[0])
    rep.require(s_mean.theta < s_mean.thresholds()[1] and downstream.in_critical_window(s_mean),
                "mean pooling at the reference point below the threshold, in the critical window")

    rank = min(np.min(margin(io, ic)), np.min(margin(ic, im)))
    rep.row("ridge ranking optimal > causal > mean (smallest margin)", rank, "> 0",
            "accuracy beyond 2 standard errors", rank > 0)
    rep.row("paired ridge differences at the reference point", min(paired), "> 5", "paired standard errors",
            min(paired) > 5)
    first = np.min(margin(i1, im)[late])
    rep.row("first token above mean pooling (smallest margin)", first, "> 0", "accuracy beyond 2 standard errors",
            first > 0)
    fisher = np.max((np.abs(oracle_all - fisher_all) - np.abs(bias_all)) / oracle_se)
    rep.row("Fisher rule against Φ(ς), beyond the finite-d bias", fisher, "< 5", "standard errors", fisher < 5)
    spec = np.abs(spec_err / spec_se).max()
    rep.row("spectral prediction with each vocabulary's ‖h‖²", spec, "< 5", "standard errors", spec < 5)
    rep.row("spectral classifier below ridge (smallest gap)", spectral_margin, "> 0", "accuracy",
            spectral_margin > 0)


def check(r: dict) -> Report:
    rep = Report()
    process, sch = schemes(int(r["T"]), int(r["L"]))
    _spectra(r, rep, process, sch)
    _task(r, rep, process, sch)
    return rep.done()
