"""The closing checks of book/your_problem.md: the thresholds the recipe reads, R estimated from data, the
comparison of a sweep with the theory, the predicted standard deviations of one draw, and the scale-out.

``results`` (recorded by the page):

* ``d``, ``V``, ``N``, ``mu_norm2``, ``T``, ``r``: the example (Markov signs, R_ts = r^|t-s|);
* ``R_estimated`` from ``n_data`` sequences of the chain;
* ``compare/<quantity>`` (weightings x trials, weightings in the order of :data:`WEIGHTINGS`): the draws of
  the comparison at dimension d;
* ``spread_d`` and ``spread/<quantity>``: the draws of the optimal weights at that dimension;
* ``pool_equal``: whether the process pool gave the serial numbers.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import positional
from attnlib.model.kurtosis import pooled_kurtosis
from attnlib.studies.agreement import QUANTITIES, prediction
from attnlib.theory import fluctuations

from checks import Report

WEIGHTINGS = ("optimal", "mean", "causal")


def _predicted(s: Setting, quantity: str) -> tuple[float, float]:
    """(limit, predicted sd of one draw) of ``quantity`` for ``s``, with its pooled sign's exact kurtosis."""
    return prediction(s, quantity, pooled_kurtosis(s.process, s.weights).value)[:2]


def check(r: dict) -> Report:
    rep = Report()
    process = positional.markov(int(r["T"]), float(r["r"]))
    setting = Setting(d=int(r["d"]), V=int(r["V"]), N=int(r["N"]), mu_norm2=float(r["mu_norm2"]),
                      process=process, weights="optimal")
    for name in WEIGHTINGS:
        s = setting.replace(weights=name)
        found, thr = s.signal_thresholds(), s.thresholds()[1]
        raw = theory.signal_thresholds(s.delta, s.gamma, s.alpha, s.kappa, clip=False)[1]
        rep.require(found.always_detectable and found.theta_at_zero > thr, f"{name}: outlier at every ||mu||^2")
        rep.require(raw < 0 and abs(raw - (thr * s.kappa / s.alpha - s.delta)) < 1e-12,
                    f"{name}: the unclipped threshold")

    T, n = process.T, int(r["n_data"])
    off = ~np.eye(T, dtype=bool)
    R_z = (np.abs(r["R_estimated"] - process.R) / np.sqrt((1 - process.R**2 + np.eye(T)) / n))[off]
    rep.row("R from data, off-diagonal entries", float(R_z.max()), 4.5, "standard deviations", R_z.max() < 4.5)

    zs = []
    for i, name in enumerate(WEIGHTINGS):
        for q in QUANTITIES:
            v = r[f"compare/{q}"][i]
            limit, sd = _predicted(setting.replace(weights=name), q)
            if np.isfinite(sd):
                zs.append((v.mean() - limit) / (sd / np.sqrt(v.size)))
    worst_z = float(np.abs(zs).max())
    rep.row("comparison at d = 2000, every row", worst_z, 4, "predicted standard errors", worst_z < 4)
    rep.require(len(zs) == 9, "a prediction for every row of the comparison")

    small = setting.at_dimension(int(r["spread_d"]))
    dev = {}
    for q in QUANTITIES:
        v = r[f"spread/{q}"]
        k = np.mean((v - v.mean()) ** 4) / v.var() ** 2
        se = v.std(ddof=1) * np.sqrt((k - 1) / (4 * v.size))
        dev[q] = (v.std(ddof=1) - _predicted(small, q)[1]) / se, se
    worst = float(max(abs(z) for z, _ in dev.values()))
    rep.row("sd of 200 draws at d = 200 against the prediction", worst, 4, "standard errors", worst < 4)
    rep.require(bool(r["pool_equal"]), "the process pool gives the serial numbers")

    # the sampling part of the outlier's variance alone (a fixed vocabulary), in the same standard errors
    lim, beta4 = small.limit, pooled_kurtosis(process, small.weights).value
    sampling = fluctuations.outlier_variance(lim.delta, lim.gamma, small.theta, small.d, kappa=lim.kappa,
                                             mu_norm2=lim.mu_norm2, beta4=beta4)
    v = r["spread/top"]
    rep.glue(R_z_max=float(R_z.max()), worst_z=worst_z, spread_worst=worst,
             wrong_top=float(abs(v.std(ddof=1) - np.sqrt(sampling.sampling)) / dev["top"][1]))
    return rep.done()
