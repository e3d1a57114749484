"""The closing checks of book/primer.md: simulated spectra against the Marchenko-Pastur laws and their free
product, the Stieltjes transform, and the BBP transition of a spike.

``results`` (recorded by the page):

* ``mp_spectra/<delta>`` (draws x d, for delta = 0.1 and 0.5): the eigenvalues of W = ZZ^T/V;
* ``delta_p``, ``gamma_p`` and ``product`` (draws x d): the eigenvalues of the sampled product;
* ``lam``, ``eps``: the points lambda + i eps where the transform of the delta = 0.5 spectra is compared;
* ``delta_s``, ``thetas`` and ``top``, ``overlap`` (thetas x draws): the top eigenvalue of W + theta h h^T and
  the squared overlap of its eigenvector with h.
"""

from __future__ import annotations

import numpy as np

from attnlib import theory
from attnlib.engine import compare
from attnlib.views.tables import below

from checks import Report

MP_DELTAS = (0.1, 0.5)
RATIO = "distance to law / between draws"


def product_laws(delta: float, gamma: float) -> dict:
    """The free product MP_delta ⊠ MP_gamma and three Marchenko-Pastur laws it is not (its two factors and the
    moment-matched MP_(delta+gamma))."""
    return {"⊠": theory.Bulk(delta, gamma), "MP_δ": theory.MarchenkoPastur(delta),
            "MP_γ": theory.MarchenkoPastur(gamma), "MP_δ+γ": theory.MarchenkoPastur(delta + gamma)}


def stieltjes(spectra, lam, eps: float) -> np.ndarray:
    """G(lambda + i eps) of each simulated spectrum (rows), at each point of ``lam``."""
    return np.array([np.mean(1 / (lam[:, None] + 1j * eps - ev), axis=1) for ev in spectra])


def check(r: dict) -> Report:
    rep = Report()
    floors = {(f"MP_{delta:g}", m): compare.distance_floor(r[f"mp_spectra/{delta:g}"],
                                                           theory.MarchenkoPastur(delta), m)
              for delta in MP_DELTAS for m in ("ks", "l1")}
    laws = product_laws(r["delta_p"], r["gamma_p"])
    floors.update({(name, m): compare.distance_floor(r["product"], laws[name], m)
                   for name in laws for m in ("ks", "l1")})
    mp = max(v.ratio for k, v in floors.items() if k[0] in ("MP_0.1", "MP_0.5"))
    prod = max(v.ratio for k, v in floors.items() if k[0] == "⊠")
    far = min(v.ratio for k, v in floors.items() if k[0] in ("MP_δ", "MP_γ", "MP_δ+γ"))
    rep.row("MP spectra, δ = 0.1 and 0.5 (worst of KS, L1)", mp, 1, RATIO, mp < 1)
    rep.row("product spectra against MP_δ ⊠ MP_γ (worst)", prod, 1, RATIO, prod < 1)
    rep.row("MP_δ, MP_γ, MP_δ+γ rejected (closest)", far, "> 1", RATIO, far > 1)

    lam, eps = r["lam"], float(r["eps"])
    G_sim = stieltjes(r["mp_spectra/0.5"], lam, eps)
    to_law = np.abs(G_sim - theory.mp_stieltjes_complex(lam + 1j * eps, 0.5)).max(axis=1)
    between = [np.abs(G_sim[i] - G_sim[j]).max() for i in range(len(G_sim)) for j in range(i)]
    g_ratio = float(to_law.mean() / np.mean(between))
    rep.row("G(λ + iε) of the spectra", g_ratio, 1, RATIO, g_ratio < 1)

    thetas, delta_s, top, overlap = r["thetas"], float(r["delta_s"]), r["top"], r["overlap"]
    spike = theory.spike(delta_s, 1.0, theta=thetas)  # gamma plays no role at this level
    above = thetas - delta_s >= 2 * np.sqrt(delta_s)
    trials = top.shape[1]
    z_top = (top.mean(1) - spike.population_eigenvalue) / (top.std(1, ddof=1) / np.sqrt(trials))
    z_ov = (overlap.mean(1) - spike.population_overlap) / (overlap.std(1, ddof=1) / np.sqrt(trials))
    z_worst = float(max(np.abs(z_top[above]).max(), np.abs(z_ov[above]).max()))
    rep.row("outlier and overlap at x ≥ 2√δ (worst)", z_worst, 4, "standard errors", z_worst < 4)
    roots = [theory.population_outlier_numeric(delta_s, theta=t)[0] for t in thetas[above]]
    secular = float(np.max(np.abs(roots / spike.population_eigenvalue[above] - 1)))
    rep.row("outlier against the root of G(λ) = 1/θ", below(secular, 1e-9), 1e-9, "relative error",
            secular < 1e-9)
    return rep.done()
