"""The closing checks of book/05_optimal_weights.md: Theorem 5 and the best non-negative weights exactly, the
prefix closed forms, and recovery against the theory on every simulated point.

``results`` (recorded by the page):

* ``T``, ``d``, ``V``, ``N``, ``mu_norm2``, ``trials`` and the prefix lengths ``L_values`` simulated;
* for each group of simulated points (``family/<weighting>``: the six families of ``positional.catalogue``;
  ``prefix/<weighting>``: the prefix lengths; ``oscillating``: the four weightings of the oscillating
  process), ``<group>/mean`` and ``<group>/sd``: the overlap with h over the draws;
* ``family/<weighting>/overlap_u`` (families x draws): the overlaps with u, paired by vocabulary.

Everything else (the processes, the weights simulated, the random weightings and matrices of the exact
checks) is rebuilt here from attnlib, as the page builds it.
"""

from __future__ import annotations

import itertools

import numpy as np

from attnlib import Setting, theory
from attnlib.model import positional, weights

from checks import Report

SCHEMES = ("mean", "causal", "optimal")


def lam_max(R) -> float:
    return float(np.linalg.eigvalsh(R)[-1])


def mixed_processes(T: int) -> dict:
    """The three processes of the page with negative correlations."""
    lags = np.subtract.outer(np.arange(T), np.arange(T))
    oscillating = positional.gaussian_signs(np.cos(2 * np.pi * lags / 8) * 0.9 ** np.abs(lags))
    return {"oscillating": oscillating, "Markov r = −0.6": positional.markov(T, -0.6),
            "balanced": positional.balanced(T)}


def _sim_points(r: dict, catalogue: dict, oscillating) -> list:
    """Every simulated point: (setting, group, index, how its weights were named), as the page simulated it."""
    T, sizes = int(r["T"]), dict(d=int(r["d"]), V=int(r["V"]), N=int(r["N"]), mu_norm2=float(r["mu_norm2"]))
    points = [(Setting(process=proc, weights=w, **sizes), f"family/{w}", j, w) for w in SCHEMES
              for j, proc in enumerate(catalogue.values())]
    points += [(Setting(process=positional.prefix(T, int(L)), weights=w, **sizes), f"prefix/{w}", j, w)
               for w in ("mean", "optimal") for j, L in enumerate(r["L_values"])]
    osc = {"mean": weights.mean(T), "causal (τ = 0)": weights.causal(T),
           "best w ≥ 0": weights.optimal_nonnegative(oscillating.R)[0],
           "optimal (signed)": weights.optimal(oscillating.R, normalize="norm")}
    points += [(Setting(process=oscillating, weights=w, label=name, **sizes), "oscillating", j, "custom")
               for j, (name, w) in enumerate(osc.items())]
    return points


def _exact(r: dict, rep: Report, processes: dict, mixed: dict) -> None:
    """Theorem 5, lambda_+ and the prefix closed forms: no simulation."""
    T = int(r["T"])
    headers, rows = weights.snr_table(processes, taus=(0.0,), nonnegative=True)
    snr_all = {row[0]: dict(zip(headers[1:], row[1:])) for row in rows}
    rng = np.random.default_rng(4)  # the page's random weightings
    random_plus, random_signed = rng.dirichlet(np.ones(T), size=1000), rng.standard_normal((1000, T))
    nonneg = {name: weights.optimal_nonnegative(proc.R) for name, proc in mixed.items()}
    kkt = {}  # R w − λ₊ w: ≤ 0 everywhere, = 0 on the support
    for name, proc in mixed.items():
        w, value = nonneg[name]
        res = proc.R @ w - value * w
        kkt[name] = max(res.max(), np.abs(res[w > 0]).max())
    opt_error = {name: abs(weights.snr(weights.optimal(p.R, normalize="norm"), p.R) - lam_max(p.R))
                 for name, p in processes.items()}
    for name, proc in processes.items():
        values, top = snr_all[name], lam_max(proc.R)
        rep.require(weights.snr(random_signed, proc.R).max() <= top + 1e-12, f"no random w beats λ_max, {name}")
        rep.require(max(values["mean"], values["causal tau=0"]) <= top + 1e-12, f"mean, causal ≤ λ_max, {name}")
        rep.require(weights.snr(random_plus, proc.R).max() <= values["best w ≥ 0"] + 1e-12,
                    f"no random w ≥ 0 beats λ₊, {name}")
        if not np.all(proc.R >= 0):
            rep.require(values["best w ≥ 0"] < top - 1e-9, f"λ₊ < λ_max, {name}")
    # lambda_+ by brute force: 40 random 4 x 4 correlation matrices with negative entries, against every
    # non-negative weighting of the simplex grid of step 1/60
    rng_small, small_R = np.random.default_rng(8), []
    while len(small_R) < 40:
        A = rng_small.standard_normal((4, 4))
        C = A @ A.T / np.sqrt(np.outer(np.diag(A @ A.T), np.diag(A @ A.T)))
        if np.any(C < 0):
            small_R.append(C)
    simplex = np.array([c + (60 - sum(c),) for c in itertools.product(range(61), repeat=3) if sum(c) <= 60],
                       dtype=float) / 60
    small_plus = [weights.optimal_nonnegative(C) for C in small_R]
    grid_excess = max(weights.snr(simplex, C).max() - value for C, (_, value) in zip(small_R, small_plus))
    attained = max(abs(weights.snr(w, C) - value) + max(0.0, -w.min()) for C, (w, value) in zip(small_R, small_plus))
    prefix_errors = []
    for L in range(2, T + 1):
        R_L, causal_w = positional.prefix(T, L).R, weights.causal(T)
        prefix_errors += [abs(weights.snr(weights.mean(T), R_L) - weights.prefix_snr_mean(T, L)),
                          abs(weights.snr(weights.optimal(R_L), R_L) - L),
                          abs(weights.snr(causal_w, R_L) - weights.prefix_snr(causal_w, L)),
                          abs(weights.prefix_gain(T, L) * weights.prefix_snr_mean(T, L) - lam_max(R_L))]
    rep.require(np.argmax(weights.prefix_gain(T, np.arange(1, T + 1))) + 1 == round(np.sqrt(T)),
                "the prefix gain peaks at L = √T")

    worst = max(opt_error.values())
    rep.row("optimal weights attain λ_max(R), 9 processes", worst, "< 1e-12", "absolute", worst < 1e-12)
    plus_gap = max(abs(snr_all[n]["best w ≥ 0"] - lam_max(p.R)) for n, p in processes.items() if np.all(p.R >= 0))
    rep.row("λ₊ = λ_max where R ≥ 0", plus_gap, "< 1e-12", "absolute", plus_gap < 1e-12)
    rep.row("KKT residual of λ₊ where R has negative entries", max(kkt.values()), "< 1e-12", "absolute",
            max(kkt.values()) < 1e-12)
    rep.row("λ₊ of 40 random 4 × 4 R: attained by its weights", attained, "< 1e-12", "absolute", attained < 1e-12)
    rep.row("λ₊ of 40 random 4 × 4 R: best grid weighting beyond it", grid_excess, "< 1e-12", "absolute",
            grid_excess < 1e-12)
    gap_min = min(lam_max(p.R) - nonneg[n][1] for n, p in mixed.items())
    rep.row("λ_max − λ₊ where R has negative entries", gap_min, "> 1e-9", "absolute", gap_min > 1e-9)
    rep.row("prefix closed forms", max(prefix_errors), "< 1e-12", "absolute", max(prefix_errors) < 1e-12)
    rep.glue(gap_min=gap_min)


def check(r: dict) -> Report:
    rep = Report()
    T, trials = int(r["T"]), int(r["trials"])
    catalogue, mixed = positional.catalogue(T), mixed_processes(T)
    _exact(r, rep, {**catalogue, **mixed}, mixed)
    if rep.failed:  # wrong optimal weights may not even make the settings simulated (a sum of 0)
        return rep.done()

    points = _sim_points(r, catalogue, mixed["oscillating"])
    # per-draw spread of the overlap with h, pooled over the points of nearly the same theta
    # (the law of the overlap depends on the weights only through theta)
    theta_all = np.array([s.theta for s, *_ in points])
    sd_all = np.array([r[f"{group}/sd"][j] for _, group, j, _ in points])
    near = np.abs(theta_all[:, None] - theta_all[None, :]) <= 0.15 * theta_all[:, None]
    sd_band = np.sqrt((near * sd_all**2).sum(axis=1) / near.sum(axis=1))
    se_band = dict(zip(theta_all, sd_band / np.sqrt(trials)))  # keyed by theta
    reference = Setting(d=int(r["d"]), V=int(r["V"]), N=int(r["N"]), mu_norm2=float(r["mu_norm2"]),
                        process=positional.independent(T))
    theta_smp = reference.thresholds()[1]
    # simulation against theory; the optimal weights against lambda_max(R) itself
    z_above, below_max, checked = [], 0.0, 0
    for s, group, j, scheme in points:
        snr = lam_max(s.R) if scheme == "optimal" else s.snr
        theta = snr * (s.mu_norm2 + s.delta)
        predicted = theory.spike(s.delta, s.gamma, theta=theta).sample_overlap
        mean, se = r[f"{group}/mean"][j], max(r[f"{group}/sd"][j] / np.sqrt(trials), se_band[s.theta])
        if theta >= theta_smp + 0.5:
            rep.require(abs(mean - predicted) < 4 * se, f"overlap with ĥ, {s.label}, {s.process.name}")
            z_above.append((abs(mean - predicted) / se, 4 * se))
            checked += 1
        elif theta <= theta_smp - 0.3:
            rep.require(mean < 0.1, f"no overlap below the threshold, {s.label}, {s.process.name}")
            below_max = max(below_max, mean)
            checked += 1
    # ordering of the simulated overlaps with u, paired by vocabulary
    family = {w: [s for s, group, _, _ in points if group == f"family/{w}"] for w in SCHEMES}
    ordered_z = []
    for j, name in enumerate(catalogue):
        for a, b in itertools.product(SCHEMES, SCHEMES):
            if family[a][j].signal().sample_overlap - family[b][j].signal().sample_overlap > 0.05:
                diff = r[f"family/{a}/overlap_u"][j] - r[f"family/{b}/overlap_u"][j]
                ordered_z.append(diff.mean() / (diff.std(ddof=1) / np.sqrt(diff.size)))

    z_max = max(z for z, _ in z_above)
    rep.row(f"overlap with ĥ, {len(z_above)} points above the threshold", z_max, "< 4", "standard errors",
            z_max < 4)
    rep.row(f"overlap with ĥ, {checked - len(z_above)} points below the threshold", below_max, "< 0.1",
            "absolute (squared overlap)", below_max < 0.1)
    rep.row(f"ordering of the overlaps, {len(ordered_z)} pairs", min(ordered_z), "> 2", "paired standard errors",
            min(ordered_z) > 2)
    rep.glue(band_points=near.sum(axis=1).mean(), tol_min=min(t for _, t in z_above),
             tol_max=max(t for _, t in z_above), checked=checked, ordered=len(ordered_z),
             below_theory=float(reference.with_theta(theta_smp + 0.5).signal_h().sample_overlap))
    return rep.done()
