"""The closing checks of book/04_sample_spike.md: the threshold root x*, and the sample outlier and overlaps
(and the population outlier) against the simulations far above the threshold.

``results`` (recorded by the page):

* ``d``, ``V``, ``N``, ``T``, ``L`` (prefix process), ``delta``, ``gamma``, ``trials``;
* the weights sweep: for each point its weighting ``weights`` and ``mu_norm2`` (the settings simulated), and
  ``mean/<stat>``, ``sd/<stat>`` over the draws for ``top``, ``overlap_h`` and ``overlap_u``;
* the population sweep alongside: ``theta_grid``, ``pop/mu_norm2``, ``pop/mean/top`` and ``pop/sd/top``.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import positional
from attnlib.views.tables import below

from checks import Report

ROOT_GRID = [(dl, gm) for dl in (0.01, 0.5, 1.0, 2.0) for gm in (0.01, 0.25, 1.0, 3.0)]


def _settings(r: dict, mu_norm2, weights) -> list:
    process = positional.prefix(int(r["T"]), int(r["L"]))
    return [Setting(d=int(r["d"]), V=int(r["V"]), N=int(r["N"]), mu_norm2=float(m), process=process,
                    weights=str(w)) for m, w in zip(mu_norm2, weights)]


def check(r: dict) -> Report:
    rep = Report()
    root_margin = float(min(theory.critical_x(dl, gm)[0] / max(np.sqrt(dl), np.sqrt(gm)) - 1
                            for dl, gm in ROOT_GRID))
    golden_gap = float(abs(theory.critical_x(0.5, 1.0)[0] - (1 + np.sqrt(5)) / 2))
    rep.row("x* above max(√δ, √γ), 16 pairs", root_margin, "> 0", "relative margin", root_margin > 0)
    rep.row("x* at δ = 1/2, γ = 1 against the golden ratio", below(golden_gap, 1e-14), 1e-12, "absolute",
            golden_gap < 1e-12)

    # weights sweep, far from the threshold; predictions go through the settings' theta
    settings = _settings(r, r["mu_norm2"], r["weights"])
    thetas = np.array([s.theta for s in settings])
    far = (thetas - r["delta"]) >= 2.4 * theory.critical_x(r["delta"], r["gamma"])[0]
    pred_h, pred_u = [s.signal_h() for s in settings], [s.signal() for s in settings]
    theorem = {"top": [p.sample_eigenvalue for p in pred_h], "overlap_h": [p.sample_overlap for p in pred_h],
               "overlap_u": [p.sample_overlap for p in pred_u]}
    root_n = np.sqrt(int(r["trials"]))
    for name, key in [("outlier", "top"), ("overlap with ĥ", "overlap_h"), ("overlap with u", "overlap_u")]:
        z = np.abs(r[f"mean/{key}"] - theorem[key]) / (r[f"sd/{key}"] / root_n)
        rep.row(f"sample {name} at θ ≥ 4.5, {far.sum()} points", float(z[far].max()), 4, "standard errors",
                z[far].max() < 4)

    # population level alongside: the population outlier of the same theta grid
    pop_far = r["theta_grid"] >= 4.5
    pop_settings = _settings(r, r["pop/mu_norm2"], ["mean"] * len(r["pop/mu_norm2"]))
    pop_theorem = [s.signal_h().population_eigenvalue for s in pop_settings]
    pop_z = (np.abs(r["pop/mean/top"] - pop_theorem) / (r["pop/sd/top"] / root_n))[pop_far]
    rep.row(f"population outlier at θ ≥ 4.5, {pop_far.sum()} points", float(pop_z.max()), 4,
            "standard errors", pop_z.max() < 4)
    rep.glue(w_sd_ov=float(max(r["sd/overlap_h"][far].max(), r["sd/overlap_u"][far].max())),
             w_sd_top=float((r["sd/top"] / r["mean/top"])[far].max()))
    return rep.done()
