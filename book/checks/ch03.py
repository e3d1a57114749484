"""The closing checks of book/03_population_spike.md: the population outlier and its overlaps against the
theorem, in three families of sign processes and weightings, and the band where the paper's strength predicts
no outlier.

``results`` (recorded by the page):

* ``delta`` and ``sizes`` (d, V, N): the base setting (T = 16 independent signs, mean pooling);
* ``mu2/<family>``: the ||mu||^2 of each family of :data:`FAMILIES` (the prefix families: the first 4 of 16
  positions share a sign, pooled by mean or by the optimal weights);
* ``top/<family>``, ``overlap_h/<family>``, ``overlap_u/<family>`` (points x vocabularies): the top eigenvalue
  of each vocabulary's population covariance and the squared overlaps of its eigenvector with h-hat and u;
  ``second/R = I``: the second eigenvalue for R = I.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import positional
from attnlib.views.tables import sig

from checks import Report

FAMILIES = ("R = I", "prefix, mean", "prefix, optimal")


def band(mu2, top, second, kappa: float, delta: float) -> dict:
    """The band where the paper's strength predicts no outlier but theta does, clear of the theta threshold
    (1 <= ||mu||^2 < delta + sqrt(delta)), against the points below that threshold (||mu||^2 <= 0.55, where
    x < 0.78 sqrt(delta)): ``in_band`` (a mask of the points), the top-two gaps of their draws in units of kappa
    (``gap_band``, ``gap_null``) and how many standard errors apart their means are (``gap_z``)."""
    mu2 = np.asarray(mu2)
    in_band = (mu2 >= 1.0) & (mu2 < delta + np.sqrt(delta))
    gaps = (np.asarray(top) - np.asarray(second)) / kappa  # (points, draws)
    gap_band, gap_null = gaps[in_band].ravel(), gaps[mu2 <= 0.55].ravel()
    gap_z = (gap_band.mean() - gap_null.mean()) / np.sqrt(
        gap_band.var(ddof=1) / gap_band.size + gap_null.var(ddof=1) / gap_null.size)
    return {"in_band": in_band, "gap_band": gap_band, "gap_null": gap_null, "gap_z": float(gap_z)}


def _families(r: dict) -> dict:
    d, V, N = (int(x) for x in r["sizes"])
    base = Setting(d=d, V=V, N=N, mu_norm2=1.0, process=positional.independent(16))
    bases = {"R = I": base, **{f"prefix, {w}": base.replace(process=positional.prefix(16, 4), weights=w)
                               for w in ("mean", "optimal")}}
    return {name: [b.replace(mu_norm2=float(m)) for m in r[f"mu2/{name}"]] for name, b in bases.items()}


def _mean_sem(x) -> tuple[np.ndarray, np.ndarray]:
    return x.mean(axis=1), x.std(axis=1, ddof=1) / np.sqrt(x.shape[1])


def check(r: dict) -> Report:
    rep = Report()
    delta, families = float(r["delta"]), _families(r)
    outlier_z, overlap_err, overlap_sd = [], [], []
    for name, fam in families.items():
        checked = np.array([(s.theta - delta) / np.sqrt(delta) >= 2 for s in fam])
        has_u = np.array([s.mu_norm2 > 0 for s in fam])  # u is undefined at mu = 0
        pred_e = np.array([s.signal_h().population_eigenvalue for s in fam])
        pred_h = np.array([s.signal_h().population_overlap for s in fam])
        pred_u = np.array([s.signal().population_overlap for s in fam])
        top, se = _mean_sem(r[f"top/{name}"])
        outlier_z.append((np.abs(top - pred_e) / se)[checked])
        ov_h, ov_u = r[f"overlap_h/{name}"], r[f"overlap_u/{name}"]
        overlap_err += [np.abs(ov_h.mean(1) - pred_h)[checked], np.abs(ov_u.mean(1) - pred_u)[checked & has_u]]
        overlap_sd += [ov_h.std(1, ddof=1)[checked], ov_u.std(1, ddof=1)[checked & has_u]]
    outlier_z, overlap_err = np.concatenate(outlier_z), np.concatenate(overlap_err)
    sd_ov = float(np.concatenate(overlap_sd).max())
    tol_ov = 4 * sd_ov / np.sqrt(r["top/R = I"].shape[1])  # 4 standard errors of the noisiest point
    rep.row(f"outlier, {outlier_z.size} points at x ≥ 2√δ", float(outlier_z.max()), 4, "standard errors",
            outlier_z.max() < 4)
    rep.row("overlaps with ĥ and u, same points", float(overlap_err.max()),
            f"4 s.e. = {sig(tol_ov, 2)}", "absolute error",
            overlap_err.max() < tol_ov)

    settings, kappa = families["R = I"], families["R = I"][0].kappa
    found = band(r["mu2/R = I"], r["top/R = I"], r["second/R = I"], kappa, delta)
    in_band = found["in_band"]
    top, se = _mean_sem(r["top/R = I"])
    pred = np.array([s.signal_h().population_eigenvalue for s in settings]) / kappa
    band_z = float((np.abs(top / kappa - pred) / (se / kappa))[in_band].max())
    rep.row("outlier in the band of the paper's statement", band_z, 4, "standard errors", band_z < 4)
    rho_outliers = theory.spike(delta, 1.0, theta=np.array([s.rho for s in settings]))
    rep.row("top-two gap, band against below threshold", found["gap_z"], "> 4", "standard errors",
            found["gap_z"] > 4)
    rep.require(np.all(np.isnan(rho_outliers.population_eigenvalue[in_band])),
                "the paper's strength predicts no outlier in the band")
    rep.glue(sd_ov=sd_ov, tol_ov=tol_ov)
    return rep.done()
