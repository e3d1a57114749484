r"""The simulated overlays of the live figures (:mod:`attnlib.views.webexplorer`), computed when a chapter executes.

What a browser cannot recompute, the simulation, is done here with :func:`attnlib.sweep` (and, for the spectrum,
the explorers' own :func:`attnlib.views.figures.spectrum.spectrum_simulation`), with fixed seeds, for a figure's default
setting and a few single changes of it. Every number is rounded to 6 significant digits, so that the payload
is stable text. Each function here takes a figure's starting ``state`` and fixed parameters ``fixed`` and
returns the overlay of its kinds as a JSON-ready dict; the record of a kind
(:data:`attnlib.views.webexplorer.KINDS`) names its function.

Each overlay stores the settings it was simulated at under ``state``, holding only the fields that define
them (``relevant``: the Markov ``r`` only for the Markov family, the block length ``L`` only for the block
families), so that a live figure shows an overlay exactly when its controls sit on that setting.
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import randomness
from attnlib.views import controls, webstills
from attnlib.engine import heads as _engine_heads
from attnlib.model import heads as _heads
from attnlib.views.figures.spectrum import SpectrumState, spectrum_simulation
from attnlib.model import positional
from attnlib.model import weights as _w
from attnlib.numerics.linalg import zero_mask
from attnlib.engine.montecarlo import sweep
from attnlib.model.setting import Setting, sizes_for

__all__ = ["spectrum_draws", "bulk_draws", "spike_draws", "recovery_draws", "sign_draws", "family_draws",
           "heads_draws", "relevant", "MU2_GRID", "RECOVERY_D", "RECOVERY_TRIALS"]

# Sizes and seeds (one chapter's budget: every kind embeds in a few seconds).
_SPECTRUM_D, _SPECTRUM_SEED = 400, 0  # the ipywidgets explorer's "simulate" button: d = 400, seed 0
_BULK_D, _BULK_DRAWS, _BULK_T, _BULK_SEED, _BINS = 400, 2, 16, 2, 50
_RATIO_GRID = (0.25, 0.5, 1.0, 2.0)
_THETA_GRID = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
_SPIKE_D, _SPIKE_T, _SPIKE_TRIALS, _SPIKE_SEED = 300, 16, 4, 401
_SIGNS_N, _SIGNS_SEED = 20000, 5
_CAUSAL_TAUS = (0.0, 1.0, 2.0, 4.0, 8.0)
_FAMILY_D, _FAMILY_TRIALS, _FAMILY_SEED = 300, 4, 52  # chapter 05: d = 300, V = 600, N = 1200
#: The values of ||mu||^2 simulated by the recovery kinds ``population_recovery`` and ``sample_recovery``
#: (their d and draws per point follow).
MU2_GRID = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0)
RECOVERY_D, RECOVERY_TRIALS = 300, 4
_RECOVERY_SEED = {"population": 303, "sample": 403}
_RECOVERY_CHANGES = {"delta": (0.25, 1.0), "gamma": (0.5, 2.0)}
_HEADS_D, _HEADS_TRIALS, _HEADS_SEED, _HEADS_MU2 = 300, 2, 1501, (0.5, 1.0, 2.0, 3.0)
_HEADS_FIELDS = ("family", *positional.PARAMETERS, "heads", "anticausal", "tau1", "tau2", "tau3", "tau4", "delta",
                 "gamma")


def _r(x) -> float | None:
    """A float rounded to 6 significant digits (stable text), or None for nan / inf."""
    x = float(x)
    return float(f"{x:.6g}") if np.isfinite(x) else None


def _stat(values) -> list:
    """[mean, sd] of a setting's trials, rounded."""
    return [_r(np.mean(values)), _r(np.std(values, ddof=1))]


def relevant(state: dict, names) -> dict:
    """The fields ``names`` of ``state`` whose control applies to it (``r`` only for the Markov family, ``L``
    only for the block families: the control's ``shown_when``)."""
    out = {}
    for name in names:
        when = controls.CONTROLS[name].shown_when
        if not when or state.get(when[0]) in when[1]:
            out[name] = state[name]
    return out


def _process(params: dict) -> positional.SignProcess:
    return positional.family(params["family"], params["T"], **controls.family_parameters(params))


def _histogram(eigenvalues, scale: float = 1.0) -> dict:
    """Counts of the non-zero eigenvalues (attnlib's zero rule, :func:`attnlib.numerics.linalg.zero_mask`) divided by
    ``scale``, in _BINS bins from 0 to just above the largest; ``zeros``: the fraction of zeros."""
    ev = np.asarray(eigenvalues, dtype=float)
    zeros = zero_mask(ev)
    nonzero = ev[~zeros] / scale
    hi = _r(1.02 * nonzero.max()) if nonzero.size else 1.0
    counts, _ = np.histogram(nonzero, bins=_BINS, range=(0.0, hi))
    return {"range": [0.0, hi], "counts": counts.tolist(), "n": int(nonzero.size), "zeros": _r(zeros.mean())}


def spectrum_draws(state: dict, fixed: dict) -> dict:
    """One simulated spectrum (d = 400, default_rng(0)) for the state and for single changes of it (kind
    "spectrum")."""

    variants = [{}, {"delta": 0.25}, {"delta": 1.0}, {"gamma": 0.5}, {"gamma": 1.0}, {"mu_norm2": 0.0},
                {"weighting": "causal"}, {"weighting": "optimal"}, {"family": "independent"}, {"centered": False}]
    draws, seen = [], []
    for change in variants:
        s = {**state, **change}
        if s in seen:
            continue
        seen.append(s)
        dr = spectrum_simulation(SpectrumState(**s), d=_SPECTRUM_D, seed=_SPECTRUM_SEED)
        draws.append({"state": s, "V": dr.setting.V, "N": dr.setting.N, "hist": _histogram(dr.spectrum),
                      "top": [_r(v) for v in dr.top_eigenvalues[:2]], "overlap_u": _r(dr.overlap_u),
                      "overlap_h": _r(dr.overlap_h), "overlap_g": _r(dr.overlap_g)})
    return {"d": _SPECTRUM_D, "seed": _SPECTRUM_SEED, "draws": draws}


def bulk_draws(state: dict, fixed: dict) -> dict:
    """One spectrum per (delta, gamma) of the grid (and the state's): no signal, independent signs, mean pooling
    (kind "bulk")."""
    pairs = [(a, b) for a in _RATIO_GRID for b in _RATIO_GRID]
    if (state["delta"], state["gamma"]) not in pairs:
        pairs.insert(0, (state["delta"], state["gamma"]))
    draws = []
    for i, (delta, gamma) in enumerate(pairs):
        V, N = sizes_for(_BULK_D, delta, gamma)
        setting = Setting(d=_BULK_D, V=V, N=N, mu_norm2=0.0, process=positional.independent(_BULK_T))
        res = sweep(setting, seed=_BULK_SEED + i, trials=_BULK_DRAWS, k=1, spectrum="exact")
        draws.append({"state": {"delta": delta, "gamma": gamma}, "V": V, "N": N,
                      "hist": _histogram(res.spectra.ravel(), setting.kappa)})
    return {"d": _BULK_D, "T": _BULK_T, "draws_per_setting": _BULK_DRAWS, "draws": draws}


def _spike_points(delta: float, gammas) -> list:
    """Mean and sd over the trials of the top eigenvalue of S (in units of kappa) and its cos^2 with h, along
    _THETA_GRID, for each gamma.

    Independent signs and mean pooling (alpha/kappa = 1), so theta = ||mu||^2 + delta (theta >= delta).
    """
    out = []
    for gamma in gammas:
        V, N = sizes_for(_SPIKE_D, delta, gamma)
        base = Setting(d=_SPIKE_D, V=V, N=N, mu_norm2=0.0, process=positional.independent(_SPIKE_T))
        thetas = [th for th in _THETA_GRID if th >= delta]
        res = sweep([base.with_theta(th) for th in thetas], seed=_SPIKE_SEED, trials=_SPIKE_TRIALS, k=1,
                    level="sample")
        top, ov = res.values("top") / base.kappa, res.values("overlap_h")
        out.append({"gamma": gamma, "V": V, "N": N, "points": [
            {"theta": th, "top": _stat(top[i]), "overlap_h": _stat(ov[i])} for i, th in enumerate(thetas)]})
    return out


def spike_draws(state: dict, fixed: dict) -> dict:
    """The simulated points along theta of the kind "phase" (at the default delta only)."""
    delta = state["delta"]
    out = {"d": _SPIKE_D, "trials": _SPIKE_TRIALS, "delta": delta, "curves": []}
    if delta == controls.CONTROLS["delta"].default:
        out["curves"] = _spike_points(delta, sorted(set(_RATIO_GRID) | {state["gamma"]}))
    return out


def recovery_draws(level: str, state: dict, fixed: dict) -> dict:
    """cos^2 with u and the top eigenvalue (units of kappa) of mean, causal and optimal pooling along MU2_GRID,
    at the population or sample ``level``, for the state's R and ratios and for single changes of them (kinds
    "population_recovery" and "sample_recovery")."""
    names = ("family", *positional.PARAMETERS, "delta") + (("gamma",) if level == "sample" else ())
    changes = [{}] + [{"family": f} for f in positional.FAMILIES]
    changes += [{name: v} for name, values in _RECOVERY_CHANGES.items() if name in names for v in values]
    keys = []
    for change in changes:
        key = relevant({**state, **change}, names)
        if key not in keys:
            keys.append(key)
    settings, index = [], []
    for key in keys:
        V, N = sizes_for(RECOVERY_D, key["delta"], key.get("gamma", 1.0))
        process = _process({**state, **fixed, **key})
        for name in _w.NAMED:
            for mu2 in MU2_GRID:
                settings.append(Setting(d=RECOVERY_D, V=V, N=N, mu_norm2=mu2, process=process, weights=name,
                                        tau=fixed["tau"]))
                index.append((len(index) // (len(_w.NAMED) * len(MU2_GRID)), name))
    res = sweep(settings, seed=_RECOVERY_SEED[level], trials=RECOVERY_TRIALS, k=1, level=level)
    top, ov = res.values("top"), res.values("overlap_u")
    out = [{"state": key, "V": settings[i * len(_w.NAMED) * len(MU2_GRID)].V,
            "N": settings[i * len(_w.NAMED) * len(MU2_GRID)].N, "curves": {name: [] for name in _w.NAMED}}
           for i, key in enumerate(keys)]
    for j, ((i, name), s) in enumerate(zip(index, settings)):
        out[i]["curves"][name].append([s.mu_norm2, *_stat(top[j] / s.kappa), *_stat(ov[j])])
    return {"d": RECOVERY_D, "trials": RECOVERY_TRIALS, "level": level, "settings": out}


def sign_draws(state: dict, fixed: dict) -> dict:
    """alpha/kappa measured on sampled sign sequences (w^T R_hat w / ||w||^2), for every family at the state's
    T, r, L: mean, optimal and causal pooling along a few tau (kind "weights")."""
    out = []
    for i, family in enumerate(positional.FAMILIES):
        params = {**state, "family": family}
        process = _process(params)
        xi = process.sample(_SIGNS_N, randomness.generator([_SIGNS_SEED, i]))
        R_hat = positional.empirical_correlation(xi)
        out.append({"state": {k: params[k] for k in controls.FAMILY_FIELDS},
                    "mean": _r(_w.snr(_w.mean(process.T), R_hat)),
                    "optimal": _r(_w.snr(_w.optimal(process.R), R_hat)),
                    "causal": [[tau, _r(_w.snr(_w.causal(process.T, tau), R_hat))] for tau in _CAUSAL_TAUS]})
    return {"n": _SIGNS_N, "families": out}


def family_draws(state: dict, fixed: dict) -> dict:
    """Simulated overlap with u of mean / causal / optimal pooling, for every family at the state's r and L
    (chapter 05's sizes; kind "family")."""
    V, N = sizes_for(_FAMILY_D, fixed["delta"], fixed["gamma"])
    keys = [relevant({**state, "family": family}, ("family", *positional.PARAMETERS))
            for family in positional.FAMILIES]
    pairs = [(key, name) for key in keys for name in _w.NAMED]
    settings = [Setting(d=_FAMILY_D, V=V, N=N, mu_norm2=fixed["mu_norm2"],
                        process=_process({**state, **fixed, **key}), weights=name) for key, name in pairs]
    res = sweep(settings, seed=_FAMILY_SEED, trials=_FAMILY_TRIALS, k=1)
    ov = res.values("overlap_u")
    points = [{"state": key, "weighting": name, "snr": _r(s.snr), "overlap_u": _stat(ov[i])}
              for i, ((key, name), s) in enumerate(zip(pairs, settings))]
    return {"d": _FAMILY_D, "V": V, "N": N, "trials": _FAMILY_TRIALS, "points": points}


def heads_draws(state: dict, fixed: dict) -> dict:
    """The top eigenvalues of S (one per spike of the theory, mean and sd over trials) along _HEADS_MU2, for
    the state's heads and for one head fewer and the heads all causal (kind "heads")."""
    out = []
    for change in ({}, {"heads": str(max(1, int(state["heads"]) - 1))},
                   {"anticausal": not state["anticausal"]}):
        s = {**state, **change}
        key = relevant(s, _HEADS_FIELDS)
        if any(x["state"] == key for x in out):
            continue
        W = webstills.heads_matrix(s, fixed["T"])
        V, N = sizes_for(_HEADS_D, s["delta"], s["gamma"])
        base = Setting(d=_HEADS_D, V=V, N=N, mu_norm2=0.0, process=_process({**s, **fixed}))
        points = []
        for i, mu2 in enumerate(_HEADS_MU2):
            hs = _heads.HeadsSetting(base.replace(mu_norm2=mu2), W)
            k = max(1, hs.spikes().count)
            draws = _engine_heads.heads_sweep([hs], seed=_HEADS_SEED + i, trials=_HEADS_TRIALS, k=k)[0]
            tops = np.array([dr.top for dr in draws])
            points.append([mu2, [_stat(tops[:, j]) for j in range(k)]])
        out.append({"state": key, "V": V, "N": N, "points": points})
    return {"d": _HEADS_D, "trials": _HEADS_TRIALS, "settings": out}
