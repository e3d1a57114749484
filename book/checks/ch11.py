"""The closing checks of book/11_universality.md: noise laws, anisotropic noise, Zipf tokens and K classes, each
against the extended theory (or its expected failure).

``results`` (recorded by the page), for ``d`` and ``T``:

* noise laws (:func:`laws`), Markov signs ``markov_r``, strengths ``theta_band`` and ``theta_above``: the
  spectra (float32) and top eigenvalues of the spike-free sweep (``edge/spectra``, ``edge/top``: laws x draws
  [x d]); the top eigenvalues and overlaps with h (``<sweep>/top``, ``<sweep>/overlap_h``: laws x draws) of the
  population covariance at theta_band (``pop``), of S at theta_band (``band``) and at theta_above (``far``); the
  largest x = X^2/V of each draw's vocabulary for the heavy-tailed law (``x_max``);
* anisotropic noise: the variances ``var/crowded`` and ``var/thin``, the signal ``aniso_mu_norm2``; the
  population and sample sweeps of the crowded level, signal in the high then the low level (``aniso_pop/...``,
  ``aniso_smp/...``), the spectra of S with the signal in the high level, top eigenvalue left out
  (``aniso_smp/spectra``, float32), and the thin level then isotropic noise (``thin/...``);
* Zipf tokens (``zipf_T`` positions, ``zipf_mu_norm2``, exponents ``zipf_b`` simulated and ``b_grid``): the
  sweep's top eigenvalues and overlaps with h and u (``zipf/...``), the spectra at the second exponent
  (``zipf/spectra``, float32), and ||q||^2 of each draw's vocabulary (``q2``);
* K classes (``class_p``, ``class_V``, means ``class_means/<i>``): the sweep's top eigenvalues, overlaps and
  eigenvalues of B (``classes/<i>/eigenvalues``, ``.../overlaps``, ``.../strengths``: draws x ...).
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.engine import compare
from attnlib.model import frequencies, k_classes, noise, positional
from attnlib.theory import fluctuations, population, tracy_widom
from attnlib.views.tables import sig
from attnlib.numerics.statistics import standard_error as se_of

from checks import Report

SE, TW_UNITS = "standard errors", "Tracy–Widom units"


def laws() -> list:
    """The five noise laws, in the page's order (the last without a finite fourth moment)."""
    return [noise.gaussian(), noise.rademacher(), noise.sparse(0.1), noise.student(5), noise.student(2.5)]


def _ks(spectra, law) -> float:
    return compare.distance_floor(np.asarray(spectra, dtype=float), law, metric="ks").ratio


def _noise_laws(r, rep, iid, markov):
    D, draws = r["d"], r["edge/top"].shape[1]
    finite = np.array([np.isfinite(law.fourth_moment) for law in laws()])
    heavy = int(np.flatnonzero(~finite)[0])
    band_set, far_set = markov.with_theta(r["theta_band"]), markov.with_theta(r["theta_above"])
    fs = compare.finite_size_parameters(iid)  # the bulk law matched to a finite centred S
    law0 = theory.Bulk(*fs)
    ks_ratio = np.array([_ks(ev, law0) for ev in r["edge/spectra"]])
    z_dev = np.abs(fluctuations.standardize(fs[0], fs[1], top=r["edge/top"], kappa=fs[2], d=D).mean(axis=1)
                   - tracy_widom.MEAN)
    tw_tol = 4 * tracy_widom.SD / np.sqrt(draws)
    spike_band, spike_above = band_set.signal_h(), far_set.signal_h()
    pop_top, far_top = r["pop/top"], r["far/top"]
    dev = [(pop_top.mean(1) - spike_band.population_eigenvalue) / se_of(pop_top),
           (r["pop/overlap_h"].mean(1) - spike_band.population_overlap) / se_of(r["pop/overlap_h"]),
           (far_top.mean(1) - spike_above.sample_eigenvalue) / se_of(far_top),
           (r["far/overlap_h"].mean(1) - spike_above.sample_overlap) / se_of(r["far/overlap_h"])]
    worst_se = np.max(np.abs(np.stack(dev)), axis=0)  # per law
    r_band = theory.edge_overlap_ratio(band_set.delta, band_set.gamma, theta=r["theta_band"]) / D
    band_ov = r["band/overlap_h"].mean(1)
    entry_pred = theory.spike(band_set.delta, band_set.gamma, theta=r["x_max"] + band_set.delta,
                              kappa=band_set.kappa).population_eigenvalue
    entry_ratio = pop_top[heavy] / entry_pred
    rep.row("KS / floor, finite fourth moment (worst)", max(ks_ratio[finite]), 1, "ratio", all(ks_ratio[finite] < 1))
    rep.row("KS / floor, Student-t 2.5", ks_ratio[heavy], "≥ 1", "ratio", ks_ratio[heavy] > 1)
    rep.require(np.all(pop_top[heavy] > spike_band.population_eigenvalue), "heavy tails: entry spikes on top")
    rep.require(np.all(band_ov[finite] < 2 * r_band), "band overlaps below 2𝔯/d")
    return finite, heavy, [
        ["edge mean vs TW₁, finite fourth moment", z_dev[finite].max(), f"4 s.e. = {sig(tw_tol, 3)}", TW_UNITS,
         np.all(z_dev[finite] < tw_tol)],
        ["edge mean vs TW₁, Student-t 2.5", z_dev[heavy], f"≥ 40 s.e. = {sig(10 * tw_tol, 3)}", TW_UNITS,
         z_dev[heavy] > 10 * tw_tol],
        ["outliers and overlaps, finite fourth moment", worst_se[finite].max(), 4, SE, np.all(worst_se[finite] < 4)],
        ["outliers and overlaps, Student-t 2.5", worst_se[heavy], "≥ 20", SE, worst_se[heavy] > 20],
        ["largest-entry spike, median ratio − 1", abs(np.median(entry_ratio) - 1),
         f"3/√d = {sig(3 / np.sqrt(D), 2)}", "relative", abs(np.median(entry_ratio) - 1) < 3 / np.sqrt(D)],
        ["band overlap / (2𝔯/d), worst law", max(band_ov[finite] / r_band) / 2, 1, "ratio",
         np.all(band_ov[finite] < 2 * r_band)]]


def _anisotropic(r, iid, markov):
    D, mu2 = r["d"], r["aniso_mu_norm2"]
    examples = {"crowded": (r["var/crowded"], markov.replace(V=2 * D, N=2 * D, mu_norm2=mu2)),
                "thin": (r["var/thin"], iid.replace(V=2 * D, N=2 * D, mu_norm2=mu2))}
    pops = {k: population.Population.from_covariance(c) for k, (c, _) in examples.items()}
    high_low = (("high", np.array([0.0, 1.0])), ("low", np.array([1.0, 0.0])))
    crit = {}
    for k, (_, s) in examples.items():
        crit[k, "isotropic"] = np.maximum(np.array(s.thresholds()) / s.snr - s.delta, 0)  # on ||mu||^2
        for where, f in high_low:
            crit[k, where] = population.critical_mu_norm2(s.delta, s.gamma, snr=s.snr, population=pops[k],
                                                          mu_fractions=f)
    H2, aniso = pops["crowded"], examples["crowded"][1]
    aniso_th = [population.population_signal(aniso.delta, aniso.gamma, snr=aniso.snr, population=H2, kappa=aniso.kappa,
                                             mu_norm2=mu2, mu_weights=mu2 * f) for _, f in high_low]
    thin = examples["thin"][1]
    thin_th = [population.population_signal(
        thin.delta, thin.gamma, snr=thin.snr, population=pops["thin"], kappa=thin.kappa, mu_norm2=mu2,
        mu_weights=np.array([0.0, mu2])), thin.signal_h()]
    dl_f, gm_f, kap_f = compare.finite_size_parameters(aniso)  # finite-S match
    aniso_law = population.PopulationBulk(dl_f, gm_f, H2, kap_f)
    aniso_ks = _ks(r["aniso_smp/spectra"], aniso_law)
    upper2 = population.PopulationBulk(aniso.delta, aniso.gamma, H2, aniso.kappa).upper
    pop_top, pop_ov, smp_top, smp_ov, thin_top, thin_ov = (r[f"{k}/{f}"] for k in ("aniso_pop", "aniso_smp", "thin")
                                                           for f in ("top", "overlap_h"))
    aniso_dev = [[(pop_top[i].mean() - t.population_eigenvalue) / se_of(pop_top[i]) for i, t in enumerate(aniso_th)],
                 [(pop_ov[i].mean() - t.population_overlap) / se_of(pop_ov[i]) for i, t in enumerate(aniso_th)],
                 [(smp_top[0].mean() - aniso_th[0].sample_eigenvalue) / se_of(smp_top[0]),
                  (thin_top[0].mean() - thin_th[0].sample_eigenvalue) / se_of(thin_top[0])],
                 [(smp_ov[0].mean() - aniso_th[0].sample_overlap) / se_of(smp_ov[0]),
                  (thin_ov[0].mean() - thin_th[0].sample_overlap) / se_of(thin_ov[0])]]
    aniso_worst = max(np.max(np.abs(v)) for v in aniso_dev)
    r_iso_thin = theory.edge_overlap_ratio(thin.delta, thin.gamma, theta=thin.theta) / D
    # the thresholds of eq-univ-aniso-threshold against population.population_signal on either side (1%)
    thr_route = []
    for k, (_, s) in examples.items():
        for where, f in high_low:
            m2 = crit[k, where][1]
            sides = [population.population_signal(s.delta, s.gamma, snr=s.snr, population=pops[k], mu_norm2=m,
                                                  mu_weights=m * f).sample_eigenvalue for m in (1.01 * m2, 0.99 * m2)]
            thr_route.append(bool(np.isfinite(sides[0]) and np.isnan(sides[1])))
    iso_pop = population.Population.from_covariance(np.ones(10))
    iso_check = max(abs(np.array(population.critical_mu_norm2(s.delta, s.gamma, snr=s.snr, population=iso_pop))
                        - crit[k, "isotropic"]).max() for k, (_, s) in examples.items())
    order_ok = (crit["thin", "high"][1] < crit["thin", "isotropic"][1] < crit["thin", "low"][1]
                and crit["crowded", "isotropic"][1] < crit["crowded", "high"][1] < crit["crowded", "low"][1])
    # both generalised maps reduce to the book's for uniform tokens and Sigma = I (here at delta != gamma)
    xs = np.linspace(1.2, 3.0, 7)
    book_map = theory.outlier_map(xs, 0.5, 0.25)
    reduce_err = max(
        np.abs(population.PopulationBulk(0.5, 0.25, frequencies.population(np.full(D, 1 / D))).law_map((xs + 0.5) / 0.5)[0]
               - book_map).max(),
        np.abs(population.PopulationBulk(0.5, 0.25, iso_pop).law_map(1 + xs)[0] - book_map).max())
    checks = [
        [smp_ov[1].mean() < aniso_th[0].sample_overlap / 5, "low level: the signal hidden"],
        [smp_top[1].mean() < upper2 * (1 + 3 * D ** (-2 / 3)), "low level: top eigenvalue at the edge"],
        [aniso_th[0].sample_eigenvalue > upper2, "high level: an outlier predicted"],
        [np.isnan(aniso_th[1].sample_eigenvalue), "low level: no outlier predicted"]]
    return aniso_ks, checks, [
        ["anisotropic outliers and overlaps", aniso_worst, 4, SE, aniso_worst < 4],
        ["thresholds: cases where the outlier is not on the right side", len(thr_route) - sum(thr_route), 0,
         "cases", all(thr_route)],
        ["thresholds for Σ = I vs the book's", iso_check, 1e-9, "absolute", iso_check < 1e-9],
        ["maps for uniform tokens and Σ = I vs the book's (δ ≠ γ)", reduce_err, 1e-9, "absolute",
         reduce_err < 1e-9],
        ["thin lowers, crowded raises: orderings that fail", int(not order_ok), 0, "cases", order_ok],
        ["isotropic overlap at the thin example / (2𝔯/d)", thin_ov[1].mean() / (2 * r_iso_thin), 1, "ratio",
         thin_ov[1].mean() < 2 * r_iso_thin]]


def _zipf(r):
    D, mu2 = r["d"], r["zipf_mu_norm2"]
    zbase = Setting(d=D, V=2 * D, N=2 * D, mu_norm2=mu2, process=positional.markov(r["zipf_T"], r["markov_r"]))
    zipf_pop = lambda b: frequencies.population(frequencies.zipf(D, b))  # noqa: E731
    crit_b = np.array([population.critical_snr(zbase.delta, zbase.gamma, population=zipf_pop(b), mu_norm2=mu2)
                       for b in r["b_grid"]])  # (population, sample) thresholds on alpha/kappa
    zipf_pops = [zipf_pop(b) for b in r["zipf_b"]]
    zipf_th, zipf_mu = ([population.population_signal(
        zbase.delta, zbase.gamma, snr=zbase.snr, population=p, kappa=zbase.kappa, mu_norm2=mu2, direction=direction)
        for p in zipf_pops] for direction in ("h", "mu"))
    q2, top, ov_h, ov_u = r["q2"], r["zipf/top"], r["zipf/overlap_h"], r["zipf/overlap_u"]
    q2_th = np.array([frequencies.centroid_shift(D, frequencies.zipf(D, b)) for b in r["zipf_b"]])
    naive = [theory.spike(zbase.delta, zbase.gamma, theta=zbase.snr * (mu2 + q), kappa=zbase.kappa) for q in q2_th]
    cos_hmu = mu2 / (mu2 + q2_th)
    zipf_dev = [[(top[i].mean() - t.sample_eigenvalue) / se_of(top[i]) for i, t in enumerate(zipf_th)],
                [(ov_h[i].mean() - t.sample_overlap) / se_of(ov_h[i]) for i, t in enumerate(zipf_th)],
                [(ov_u[i].mean() - t.sample_overlap) / se_of(ov_u[i]) for i, t in enumerate(zipf_mu)],
                (q2.mean(1) - q2_th) / se_of(q2)]
    zipf_worst = max(np.max(np.abs(v)) for v in zipf_dev)
    naive_gap = [(top[i].mean() - naive[i].sample_eigenvalue) / se_of(top[i]) for i in (1, 2)]
    i_max = int(np.argmax(crit_b[:, 1]))
    dl_f, gm_f, kap_f = compare.finite_size_parameters(zbase)
    zipf_law = population.PopulationBulk(dl_f, gm_f, zipf_pops[1], kap_f, points=1001)
    zipf_ks = _ks(r["zipf/spectra"], zipf_law)
    product_gap = (ov_u[1].mean() - zipf_th[1].sample_overlap * cos_hmu[1]) / se_of(ov_u[1])
    checks = [[crit_b[i_max, 1] > crit_b[0, 1] > crit_b[-1, 1], "the Zipf threshold is not monotone in b"]]
    return zipf_ks, checks, [
        ["Zipf outliers, overlaps and ‖q‖²", zipf_worst, 4, SE, zipf_worst < 4],
        ["independence formula for Zipf", min(np.abs(naive_gap)), "≥ 10", SE, min(np.abs(naive_gap)) > 10],
        ["product formula for the overlap with μ", abs(product_gap), "≥ 10", SE, abs(product_gap) > 10]]


def _classes(r):
    D, T = r["d"], r["T"]
    cls_dev, cls_hidden, cls_strength = [], [], []
    for i, V in enumerate(r["class_V"]):
        M = r[f"class_means/{i}"]
        cs = k_classes.ClassSetting(d=D, V=V, N=2 * D, means=M, chain=k_classes.LabelChain(len(M), T, r["class_p"]),
                                    weights=np.full(T, 1 / T))
        eigenvalues, overlaps, strengths = (r[f"classes/{i}/{f}"] for f in ("eigenvalues", "overlaps", "strengths"))
        sp = cs.spikes()
        cls_strength += list((strengths.mean(0) - (k_classes.scatter_eigenvalues(cs.means) + cs.delta))
                             / se_of(strengths, 0))
        for j in range(cs.K - 1):
            ev, ov = eigenvalues[:, j], overlaps[:, j, j]
            if np.isfinite(sp.sample_eigenvalue[j]):
                cls_dev += [(ev.mean() - sp.sample_eigenvalue[j]) / se_of(ev),
                            (ov.mean() - sp.sample_overlap[j]) / se_of(ov)]
            else:  # below the sample threshold: an edge eigenvector, overlap ~ r(theta)/d
                cls_hidden.append((ov.mean(), theory.edge_overlap_ratio(cs.delta, cs.gamma, theta=sp.theta[j]) / cs.d))
    cls_worst = max(np.max(np.abs(cls_dev)), np.max(np.abs(cls_strength)))
    checks = [[all(o < 2 * h for o, h in cls_hidden), "hidden class directions at the edge level"]]
    return checks, [["K classes: outliers, overlaps, eigenvalues of B", cls_worst, 4, SE, cls_worst < 4]]


def check(r: dict) -> Report:
    rep = Report()
    iid = Setting(d=r["d"], V=4 * r["d"], N=r["d"], mu_norm2=0.0, process=positional.independent(r["T"]))
    markov = iid.replace(process=positional.markov(r["T"], r["markov_r"]))
    finite, heavy, noise_rows = _noise_laws(r, rep, iid, markov)
    aniso_ks, aniso_checks, aniso_rows = _anisotropic(r, iid, markov)
    zipf_ks, zipf_checks, zipf_rows = _zipf(r)
    class_checks, class_rows = _classes(r)
    rep.row("KS / floor, anisotropic and Zipf (worst)", max(aniso_ks, zipf_ks), 1, "ratio",
            aniso_ks < 1 and zipf_ks < 1)
    for row in noise_rows + aniso_rows + zipf_rows + class_rows:
        rep.row(*row)
    for held, what in aniso_checks + zipf_checks + class_checks:
        rep.require(held, what)
    return rep.done()
