"""The closing checks of book/06_causal_attention.md: the limit weights of causal self-attention against the
finite-d layer, who wins in alpha/kappa, and recovery against the theory.

``results`` (recorded by the page):

* ``dims``, ``taus``, ``strict`` and the layer's mean weights ``mean_weights`` with their standard errors
  ``sem_weights`` (dims x taus x masks x T), Markov signs ``markov_r``;
* ``layer_sizes``, ``layer_seed``: the 64 sequences at d = 100 on which the finite-d layer at tau = 0 is
  compared with the harmonic weights (their embeddings are drawn again here: a few milliseconds);
* ``mu_values``, ``d``, ``V``, ``N``, ``T``, ``L`` and, for each model (prefix, suffix) and weighting (mean,
  causal, optimal), ``overlap_u/<model>/<weighting>`` (points x trials): the simulated overlaps with u.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting
from attnlib.model import positional, weights
from attnlib.studies import causal_attention
from attnlib.theory import finite_attention

from checks import Report

MODELS = ("prefix L=4", "suffix L=4")
SCHEMES = ("mean", "causal", "optimal")


def limit_gaps(r: dict) -> np.ndarray:
    """The largest standardised gap, over the keys, of the layer's mean weights from the limit plus its 1/d
    bias, for each d, tau and mask (dims x taus x masks)."""
    T, R = int(r["T"]), positional.markov(int(r["T"]), float(r["markov_r"])).R
    strict = [bool(s) for s in r["strict"]]
    limit = np.array([[weights.causal(T, tau, strict=s) for s in strict] for tau in r["taus"]])
    bias = np.array([[[finite_attention.deviation_mean(T, tau, int(d), mu_norm2=1.0, R=R, strict=s)
                       for s in strict] for tau in r["taus"]] for d in r["dims"]])
    live = r["sem_weights"] > 0  # the strict mask gives the last key weight 0 at every d
    gap = np.abs(r["mean_weights"] - limit[None] - bias)
    return np.where(live, gap / np.where(live, r["sem_weights"], 1), 0).max(axis=-1)


def _settings(r: dict) -> dict:
    T, L = int(r["T"]), int(r["L"])
    procs = {"prefix L=4": positional.prefix(T, L), "suffix L=4": positional.suffix(T, L)}
    sizes = dict(d=int(r["d"]), V=int(r["V"]), N=int(r["N"]))
    return {(m, w): [Setting(mu_norm2=float(mu), process=procs[m], weights=w, **sizes) for mu in r["mu_values"]]
            for m in MODELS for w in SCHEMES}


def check(r: dict) -> Report:
    rep = Report()
    z_mean = limit_gaps(r)
    rep.row("mean finite-d weights against the limit + bias", float(z_mean.max()), "< 5", "standard errors",
            z_mean.max() < 5)
    T = int(r["T"])
    H = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, T + 1))])  # H[k] = H_k
    harmonic = (H[T] - H[:T]) / T
    strict_closed = (H[T - 1] - H[:T]) / (T - 1)
    n, d, V = (int(x) for x in r["layer_sizes"])
    X0, _, _ = causal_attention.sample_embeddings(positional.markov(T, float(r["markov_r"])), n, d, V, 1.0,
                                                  np.random.default_rng(int(r["layer_seed"])))
    closed = max(np.max(np.abs(causal_attention.causal_attention_weights(X0, 0.0) - harmonic)),
                 np.max(np.abs(weights.causal(T, 0.0) - harmonic)),
                 np.max(np.abs(weights.causal(T, 3.0, strict=True) - strict_closed)))
    closed = float(closed)
    rep.row("finite-d layer and closed forms at τ = 0", closed, "< 1e-14", "absolute", closed < 1e-14)

    procs = {"prefix L=4": positional.prefix(T, int(r["L"])), "Markov r=0.6": positional.markov(T, 0.6),
             "suffix L=4": positional.suffix(T, int(r["L"]))}
    stack = np.array([weights.causal(T, tau) for tau in np.linspace(-3, 10, 131)])
    mean_snr = {name: weights.snr(weights.mean(T), p.R) for name, p in procs.items()}
    margins = [np.min(weights.snr(stack, procs["prefix L=4"].R) / mean_snr["prefix L=4"]) - 1]
    margins += [1 - np.max(weights.snr(stack, procs[n].R)) / mean_snr[n] for n in ("suffix L=4", "Markov r=0.6")]
    rep.row("who wins in α/κ, every τ of the grid (smallest relative margin)", float(min(margins)), "> 0",
            "relative", min(margins) > 0)

    settings = _settings(r)
    theta_smp = settings["prefix L=4", "mean"][0].thresholds()[1]
    separated, z_overlap, below_max = [], [], 0.0
    for name, winner, loser in [("prefix L=4", "causal", "mean"), ("suffix L=4", "mean", "causal")]:
        for j in range(len(r["mu_values"])):
            gap = (settings[name, winner][j].signal().sample_overlap
                   - settings[name, loser][j].signal().sample_overlap)
            rep.require(gap >= 0, f"{winner} ahead of {loser} in theory, {name}, point {j}")
            if gap > 0.05:
                diff = r[f"overlap_u/{name}/{winner}"][j] - r[f"overlap_u/{name}/{loser}"][j]
                separated.append(diff.mean() / (np.std(diff, ddof=1) / np.sqrt(diff.size)))
    for (name, wname), sets in settings.items():
        runs = r[f"overlap_u/{name}/{wname}"]
        for j, s in enumerate(sets):
            mean, sem = runs[j].mean(), np.std(runs[j], ddof=1) / np.sqrt(runs[j].size)
            if s.theta >= theta_smp + 0.5:
                z_overlap.append(abs(mean - s.signal().sample_overlap) / sem)
            elif s.theta <= theta_smp - 0.3:
                below_max = max(below_max, float(mean))
    rep.require(len(separated) >= 4, "at least 4 separated pairs")
    rep.row(f"paired overlap differences, {len(separated)} separated pairs", float(min(separated)), "> 2",
            "paired standard errors", min(separated) > 2)
    rep.row(f"overlap with u above the threshold, {len(z_overlap)} points", float(max(z_overlap)), "< 4",
            "standard errors", max(z_overlap) < 4)
    rep.row("overlap with u below the threshold", below_max, "< 0.05", "absolute (squared overlap)",
            below_max < 0.05)
    rep.glue(z_mean_max=float(z_mean.max()), separated=len(separated), points_above=len(z_overlap))
    return rep.done()
