"""The closing checks of book/intro.md: the lead figure against the theory, its caption's point, and the claims
of the answer box.

``results`` (recorded by the page):

* ``T``, ``delta``, ``gamma``, ``d`` and ``mu_grid``: the settings of the lead figure, one per panel (a prefix,
  then a suffix, of 4 correlated signs out of T), weighting (:data:`SCHEMES`) and ||mu||^2, in that order;
* ``mean_u``, ``sem_u``: the mean simulated overlap with u and its standard error, ``mean_h``: the mean
  overlap with h-hat, one per setting.

The answer box's numbers are pure theory: :func:`answer` computes them for the page and for the check.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.model import positional, weights
from attnlib.studies import downstream
from attnlib.theory import fluctuations
from attnlib.views.tables import sig

from checks import Report

PANELS = ("prefix", "suffix")
SCHEMES = ("optimal", "causal", "mean")


def processes(T: int) -> dict:
    """The sign processes of the answer: a prefix and a suffix of 4 shared signs, a Markov chain (r = 0.6)."""
    return {"prefix": positional.prefix(T, 4), "suffix": positional.suffix(T, 4),
            "markov": positional.markov(T, 0.6)}


def answer(T: int) -> dict:
    """The answer box's theory: alpha/kappa of mean pooling and of the causal limit on each process
    (``snr[process, weighting]``), the softmax cap lambda_+ against lambda_max(R) of an oscillating Gaussian kernel
    (``lam_plus``, ``lam_max``), and the labelled task (the prefix's sign as the label) for the first token and
    for mean pooling (``task`` settings and their label SNR ``label``)."""
    procs = processes(T)
    snr = {(key, name): weights.snr(getattr(weights, name)(T), proc.R)
           for key, proc in procs.items() for name in ("mean", "causal")}
    lags = np.subtract.outer(np.arange(T), np.arange(T))
    oscillating = positional.gaussian_signs(np.cos(2 * np.pi * lags / 8) * 0.9 ** np.abs(lags))
    task = {name: Setting(d=400, V=800, N=800, mu_norm2=0.5, process=procs["prefix"], weights=w)
            for name, w in (("first", np.eye(T)[0]), ("mean", weights.mean(T)))}
    return {"snr": snr, "lam_plus": weights.optimal_nonnegative(oscillating.R)[1],
            "lam_max": np.linalg.eigvalsh(oscillating.R)[-1], "task": task,
            "label": {name: downstream.label_snr(s) for name, s in task.items()}}


def lead_settings(r: dict) -> tuple[dict, list]:
    """The base setting of each panel of the lead figure, and its settings in the order of the recorded arrays."""
    procs, d = processes(int(r["T"])), int(r["d"])
    bases = {key: Setting(d=d, V=int(d / r["delta"]), N=int(d / r["gamma"]), mu_norm2=1.0, process=procs[key])
             for key in PANELS}
    return bases, [bases[key].replace(weights=n, mu_norm2=float(m)) for key in PANELS for n in SCHEMES
                   for m in r["mu_grid"]]


def onsets(bases: dict, delta: float, gamma: float) -> dict:
    """The sample threshold in ||mu||^2 (0 if crossed at ||mu||^2 = 0) of each panel's base setting with each
    weighting: ``{(panel, weighting): ||mu||^2}``."""
    theta_smp = theory.thresholds(delta, gamma)[1]
    return {(key, n): max(0.0, theta_smp / bases[key].replace(weights=n).snr - delta)
            for key in bases for n in SCHEMES}


def caption_point(settings: list, mean_u) -> tuple[int, float]:
    """The point whose simulated mean recovery lies furthest above the theory (u is undefined at mu = 0, a nan
    there), and its distance to the sample threshold in window widths."""
    pred = np.array([s.signal().sample_overlap for s in settings])
    miss = int(np.nanargmax(np.asarray(mean_u) - pred))
    s = settings[miss]
    return miss, abs(fluctuations.window_position(s.delta, s.gamma, theta=s.theta, d=s.d))


def check(r: dict) -> Report:
    rep = Report()
    delta, gamma, d = float(r["delta"]), float(r["gamma"]), int(r["d"])
    bases, settings = lead_settings(r)
    pred = np.array([s.signal().sample_overlap for s in settings])
    x = np.array([s.theta - delta for s in settings])
    x_star = theory.critical_x(delta, gamma)[0]
    far, below = x >= 1.5 * x_star, x <= 0.8 * x_star
    z = (r["mean_u"] - pred) / r["sem_u"]
    worst = float(np.abs(z[far]).max())
    rep.row("lead figure: recovery against theory, x ≥ 1.5 x*", worst, 4, "standard errors", worst < 4)
    edge = np.array([theory.edge_overlap_ratio(delta, gamma, theta=s.theta) / d
                     for s, b in zip(settings, below) if b])
    below_ratio = float((r["mean_h"][below] / (2 * edge)).max())
    rep.row("lead figure: overlap with ĥ for x ≤ 0.8 x*, over 2 𝔯(θ)/d", below_ratio, 1, "ratio",
            below_ratio < 1)
    miss, miss_t = caption_point(settings, r["mean_u"])
    miss_z = float((r["mean_u"][miss] - pred[miss]) / r["sem_u"][miss])
    rep.row("caption's point: recovery above the theory", miss_z, "> 2", "standard errors", miss_z > 2)
    rep.row("caption's point: distance to the threshold", miss_t, sig(fluctuations.window_half_width(), 2),
            "window widths", downstream.in_critical_window(settings[miss]))

    a = answer(int(r["T"]))
    snr = a["snr"]
    onset = onsets(bases, delta, gamma)
    rep.require(snr["suffix", "causal"] < snr["suffix", "mean"], "causal below mean on the suffix")
    rep.require(snr["markov", "causal"] < snr["markov", "mean"], "causal below mean on the Markov chain")
    rep.require(onset["suffix", "causal"] > onset["suffix", "mean"], "causal later than mean on the suffix")
    rep.require(a["lam_plus"] < a["lam_max"] - 1e-9, "lambda_+ < lambda_max(R), oscillating kernel")
    rep.require(a["task"]["first"].snr < a["task"]["mean"].snr and a["label"]["first"] > a["label"]["mean"],
                "the first token: below mean pooling in alpha/kappa, above it in the label SNR")
    rep.glue(worst_z=worst, points=int(far.sum()), below_max=below_ratio, miss=miss, miss_t=miss_t)
    return rep.done()
