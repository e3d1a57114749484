r"""Live explorers for the static HTML book: sliders that recompute the theory in the reader's browser.

:func:`embed` returns an HTML block, ``<div class="attnlib-explorer">`` holding its settings as inline JSON. In
the HTML book small scripts (``_ext/web/attnlib-explorers.js`` and its parts, with the closed forms of
:mod:`attnlib.theory` and :mod:`attnlib.weights` ported to ``attnlib-theory-*.js``) turn every such block into a
live figure: moving a control recomputes the theory with no kernel, offline, even from ``file://``. Elsewhere
(a notebook, a printout) the block shows one line of text instead.

What cannot be recomputed in a browser, the simulation, is done here, when the chapter executes: each block
carries simulated overlays (histograms and points, from :func:`attnlib.simulate` and :func:`attnlib.sweep` with
fixed seeds) for its default setting and a small grid of others, and the figure shows them whenever the
controls sit on one of those settings. The output is deterministic (fixed seeds, rounded numbers).

Kinds (``KINDS``): the three explorers of :mod:`attnlib.explorers` with their controls ("spectrum", "phase",
"weights"), and one-knob figures for single chapters: "bulk" (delta, gamma), "population" (theta), "sample"
(theta, gamma) and "family" (the R family).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import numpy as np
from IPython.display import HTML

from . import _validate as _v
from . import controls, positional, theory
from . import weights as _w
from .linalg import zero_mask
from .montecarlo import sweep
from .plotting import COLORS
from .setting import Setting, sizes_for

__all__ = ["KINDS", "LiveExplorer", "embed", "payload"]

KINDS = ("spectrum", "phase", "weights", "bulk", "population", "sample", "family")


@dataclass(frozen=True)
class _Kind:
    """Controls (rows of state fields), state fields set only here (``fixed``), and new defaults."""

    rows: tuple
    fixed: tuple = ()
    defaults: tuple = ()
    labels: tuple = ()


_KINDS = {  # the rows of "spectrum", "phase" and "weights" are the ipywidgets explorers' (explorers.LAYOUTS)
    "spectrum": _Kind(()),
    "phase": _Kind(()),
    "weights": _Kind(()),
    "bulk": _Kind((("delta", "gamma"),)),
    "population": _Kind((("theta",),), fixed=(("delta", 0.5),), defaults=(("theta", 2.0),),
                        labels=(("theta", "θ (units of κ)"),)),
    "sample": _Kind((("theta", "gamma"),), fixed=(("delta", 0.5),), defaults=(("theta", 3.0), ("gamma", 1.0)),
                    labels=(("theta", "θ (units of κ)"),)),
    "family": _Kind((("family",),), fixed=(("T", 16), ("r", 0.6), ("L", 4), ("delta", 0.5), ("gamma", 0.25),
                                          ("mu_norm2", 0.5))),
}

# Simulation sizes and seeds (one chapter's budget: every kind embeds in a few seconds).
_SPECTRUM_D, _SPECTRUM_SEED = 400, 0  # the ipywidgets explorer's "simulate" button: d = 400, seed 0
_BULK_D, _BULK_DRAWS, _BULK_T, _BULK_SEED, _BINS = 400, 2, 16, 2, 50
_RATIO_GRID = (0.25, 0.5, 1.0, 2.0)
_THETA_GRID = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0)
_SPIKE_D, _SPIKE_T, _SPIKE_TRIALS = 300, 16, 4
_POP_D, _POP_TRIALS = 300, 4
_SIGNS_N, _SIGNS_SEED = 20000, 5
_CAUSAL_TAUS = (0.0, 1.0, 2.0, 4.0, 8.0)
_FAMILY_D, _FAMILY_TRIALS, _FAMILY_SEED = 300, 4, 52  # chapter 05: d = 300, V = 600, N = 1200


def _explorers():
    """:mod:`attnlib.explorers` (imported on demand): the explorers' simulation of a state and their region
    names, shared with the ipywidgets version (the controls themselves come from :mod:`attnlib.controls`)."""
    from . import explorers

    return explorers


def _r(x) -> float | None:
    """A float rounded to 6 significant digits (stable text), or None for nan / inf."""
    x = float(x)
    return float(f"{x:.6g}") if np.isfinite(x) else None


def _grid(control) -> list:
    """The values of a slider, exact decimals: low, low + step, ..., high."""
    count = int(round((control.high - control.low) / control.step)) + 1
    digits = max(0, -int(np.floor(np.log10(control.step))) + 2)
    return [round(control.low + k * control.step, digits) for k in range(count)]


def _spec(name: str, kind: str) -> dict:
    """The JSON description of one control (the JS builds the widget from it)."""
    control = controls.CONTROLS[name]
    spec = {"name": name, "kind": control.kind, "label": dict(_KINDS[kind].labels).get(name, control.label),
            "help": control.help}
    if control.kind == "float":
        spec["values"] = _grid(control)
    elif control.kind == "int":
        spec.update(low=int(control.low), high=control.high if isinstance(control.high, str) else int(control.high))
    elif control.options:
        spec["options"] = [[value, text] for value, text in control.options]
    if control.shown_when:
        spec["shown_when"] = [control.shown_when[0], list(control.shown_when[1])]
    return spec


def _check_value(name: str, value, spec: dict, state: dict):
    """``value`` as the control ``spec`` holds it (a slider value snapped to its exact grid value)."""
    if spec["kind"] == "float":
        value = _v.finite_scalar(name, value)
        grid = np.asarray(spec["values"])
        k = int(np.argmin(np.abs(grid - value)))
        if abs(grid[k] - value) > 1e-9:
            raise ValueError(f"{name} must be on its slider's grid {grid[0]:g}, {grid[1]:g}, ..., {grid[-1]:g}, "
                             f"got {value!r}")
        return spec["values"][k]
    if spec["kind"] == "int":
        value = _v.positive_int(name, value, minimum=spec["low"])
        high = state.get(spec["high"]) if isinstance(spec["high"], str) else spec["high"]
        if high is not None and value > high:
            raise ValueError(f"{name} must be between {spec['low']} and {high}, got {value}")
        return value
    if spec["kind"] == "check":
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError(f"{name} must be True or False, got {value!r}")
        return bool(value)
    return _v.choice(name, value, [option[0] for option in spec["options"]])


def _state(kind: str, overrides: dict) -> tuple[dict, dict, list]:
    """(state, fixed, control rows) of ``kind`` with ``overrides`` validated and applied."""
    _v.choice("kind", kind, KINDS)
    info = _KINDS[kind]
    rows = [[_spec(name, kind) for name in row] for row in (info.rows or controls.LAYOUTS[kind])]
    specs = {spec["name"]: spec for row in rows for spec in row}
    fixed = dict(info.fixed)
    allowed = list(specs) + list(fixed)
    unknown = sorted(set(overrides) - set(allowed))
    if unknown:
        raise ValueError(f"the {kind!r} explorer has no setting {', '.join(map(repr, unknown))}; "
                         f"allowed: {', '.join(allowed)}")
    state = {name: controls.CONTROLS[name].default for name in specs}
    state.update(dict(info.defaults))
    for name in fixed:
        if name in overrides:
            fixed[name] = (_v.positive_int(name, overrides[name]) if name in ("T", "L")
                           else _v.nonnegative(name, overrides[name]))
    state.update({k: v for k, v in overrides.items() if k in specs})
    for name in sorted(specs, key=lambda n: n == "L"):  # L last: its range depends on T
        state[name] = _check_value(name, state[name], specs[name], {**fixed, **state})
    for name in ("delta", "gamma"):
        if name in fixed:
            _v.positive(name, fixed[name])
    return state, fixed, rows


# ------------------------------------------------------------------------------------------- simulations


def _process(params: dict) -> positional.SignProcess:
    return positional.family(params["family"], params["T"], r=params["r"], L=params["L"])


def _histogram(eigenvalues, scale: float = 1.0) -> dict:
    """Counts of the non-zero eigenvalues (attnlib's zero rule, :func:`attnlib.linalg.zero_mask`) divided by
    ``scale``, in _BINS bins from 0 to just above the largest; ``zeros``: the fraction of zeros."""
    ev = np.asarray(eigenvalues, dtype=float)
    zeros = zero_mask(ev)
    nonzero = ev[~zeros] / scale
    hi = _r(1.02 * nonzero.max()) if nonzero.size else 1.0
    counts, _ = np.histogram(nonzero, bins=_BINS, range=(0.0, hi))
    return {"range": [0.0, hi], "counts": counts.tolist(), "n": int(nonzero.size), "zeros": _r(zeros.mean())}


def _spectrum_draws(state: dict) -> dict:
    """One simulated spectrum (d = 400, default_rng(0)) for the state and for single changes of it."""
    variants = [{}, {"delta": 0.25}, {"delta": 1.0}, {"gamma": 0.5}, {"gamma": 1.0}, {"mu_norm2": 0.0},
                {"weighting": "causal"}, {"weighting": "optimal"}, {"family": "independent"}, {"centered": False}]
    draws, seen = [], []
    for change in variants:
        s = {**state, **change}
        if s in seen:
            continue
        seen.append(s)
        ex = _explorers()
        dr = ex.spectrum_simulation(ex.SpectrumState(**s), d=_SPECTRUM_D, seed=_SPECTRUM_SEED)
        draws.append({"state": s, "V": dr.setting.V, "N": dr.setting.N, "hist": _histogram(dr.spectrum),
                      "top": [_r(v) for v in dr.top_eigenvalues[:2]], "overlap_u": _r(dr.overlap_u),
                      "overlap_h": _r(dr.overlap_h), "overlap_g": _r(dr.overlap_g)})
    return {"d": _SPECTRUM_D, "seed": _SPECTRUM_SEED, "draws": draws}


def _bulk_draws(state: dict) -> dict:
    """One spectrum per (delta, gamma) of the grid (and the state's): no signal, independent signs, mean pooling."""
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


def _spike_points(delta: float, gammas, level: str, d: int, trials: int, seed: int) -> list:
    """Mean and sd over trials of the top eigenvalue (in units of kappa) and cos^2 with h, along _THETA_GRID.

    Independent signs and mean pooling (alpha/kappa = 1), so theta = ||mu||^2 + delta (theta >= delta).
    """
    out = []
    for gamma in gammas:
        V, N = sizes_for(d, delta, gamma)
        base = Setting(d=d, V=V, N=N, mu_norm2=0.0, process=positional.independent(_SPIKE_T))
        thetas = [th for th in _THETA_GRID if th >= delta]
        res = sweep([base.with_theta(th) for th in thetas], seed=seed, trials=trials, k=1, level=level)
        top, ov = res.values("top") / base.kappa, res.values("overlap_h")
        points = [{"theta": th, "top": [_r(top[i].mean()), _r(top[i].std(ddof=1))],
                   "overlap_h": [_r(ov[i].mean()), _r(ov[i].std(ddof=1))]} for i, th in enumerate(thetas)]
        out.append({"gamma": gamma, "V": V, "N": N, "points": points})
    return out


def _spike_draws(kind: str, state: dict, fixed: dict) -> dict:
    delta = fixed.get("delta", state.get("delta"))
    if kind == "population":
        return {"d": _POP_D, "trials": _POP_TRIALS, "delta": delta,
                "curves": _spike_points(delta, [1.0], "population", _POP_D, _POP_TRIALS, 301)}
    gammas = sorted(set(_RATIO_GRID) | {state["gamma"]})
    if kind == "phase" and delta != controls.CONTROLS["delta"].default:
        return {"d": _SPIKE_D, "trials": _SPIKE_TRIALS, "delta": delta, "curves": []}
    return {"d": _SPIKE_D, "trials": _SPIKE_TRIALS, "delta": delta,
            "curves": _spike_points(delta, gammas, "sample", _SPIKE_D, _SPIKE_TRIALS, 401)}


def _sign_draws(state: dict) -> dict:
    """alpha/kappa measured on sampled sign sequences (w^T R_hat w / ||w||^2), for every family at the state's
    T, r, L: mean, optimal and causal pooling along a few tau."""
    out = []
    for i, family in enumerate(positional.FAMILIES):
        params = {**state, "family": family}
        process = _process(params)
        xi = process.sample(_SIGNS_N, np.random.default_rng([_SIGNS_SEED, i]))
        R_hat = positional.empirical_correlation(xi)
        out.append({"state": {k: params[k] for k in ("family", "T", "r", "L")},
                    "mean": _r(_w.snr(_w.mean(process.T), R_hat)),
                    "optimal": _r(_w.snr(_w.optimal(process.R), R_hat)),
                    "causal": [[tau, _r(_w.snr(_w.causal(process.T, tau), R_hat))] for tau in _CAUSAL_TAUS]})
    return {"n": _SIGNS_N, "families": out}


def _family_draws(fixed: dict) -> dict:
    """Simulated overlap with u of mean / causal / optimal pooling, for every family (chapter 05's sizes)."""
    V, N = sizes_for(_FAMILY_D, fixed["delta"], fixed["gamma"])
    pairs = [(family, name) for family in positional.FAMILIES for name in _w.NAMED]
    settings = [Setting(d=_FAMILY_D, V=V, N=N, mu_norm2=fixed["mu_norm2"],
                        process=_process({**fixed, "family": family}), weights=name) for family, name in pairs]
    res = sweep(settings, seed=_FAMILY_SEED, trials=_FAMILY_TRIALS, k=1)
    ov = res.values("overlap_u")
    points = [{"family": family, "weighting": name, "snr": _r(s.snr),
               "overlap_u": [_r(ov[i].mean()), _r(ov[i].std(ddof=1))]}
              for i, ((family, name), s) in enumerate(zip(pairs, settings))]
    return {"d": _FAMILY_D, "V": V, "N": N, "trials": _FAMILY_TRIALS, "points": points}


def _simulations(kind: str, state: dict, fixed: dict) -> dict:
    if kind == "spectrum":
        return _spectrum_draws(state)
    if kind == "bulk":
        return _bulk_draws(state)
    if kind in ("phase", "population", "sample"):
        return _spike_draws(kind, state, fixed)
    if kind == "weights":
        return _sign_draws(state)
    return _family_draws(fixed)


# ------------------------------------------------------------------------------------------------- output


def payload(kind: str, **state) -> dict:
    """Everything the live figure of ``kind`` needs, as a JSON-ready dict (deterministic).

    Parameters
    ----------
    kind : str
        One of ``KINDS``.
    **state
        Settings of the figure's controls (each on its slider's grid or among its options) and of its fixed
        parameters (e.g. ``delta`` for "population" and "sample"); the rest take their defaults.

    Returns
    -------
    dict
        ``kind``, ``controls`` (rows of control descriptions), ``state`` (the starting values), ``fixed``,
        ``colors``, ``regions`` and ``simulations`` (the precomputed overlays).
    """
    state, fixed, rows = _state(kind, state)
    ex = _explorers()
    regions = [[name, ex.REGIONS[key], color] for name, key, color in
               zip(theory.REGIONS, ex.phase.REGION_KEYS, ex.REGION_COLORS)]
    return {"kind": kind, "controls": rows, "state": state, "fixed": fixed, "colors": dict(COLORS),
            "regions": regions, "simulations": _simulations(kind, state, fixed)}


class LiveExplorer(HTML):
    """An HTML output holding one live figure; its text form (``repr``) is one short, stable line.

    Attributes: ``kind``, ``state`` (the controls' and fixed parameters' values it starts from) and ``payload``
    (the :func:`payload` embedded in the HTML).
    """

    def __init__(self, kind: str, data: dict, html: str):
        super().__init__(html)
        self.kind = kind
        self.state = {**data["state"], **data["fixed"]}
        self.payload = data

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self.state.items())
        return f"LiveExplorer({self.kind!r}, {args})"


def embed(kind: str, **state) -> LiveExplorer:
    """A live figure of ``kind`` for the HTML book (see :func:`payload` for the arguments).

    Examples
    --------
    >>> webexplorer.embed("bulk", delta=0.5, gamma=0.25)  # doctest: +SKIP
    """
    data = payload(kind, **state)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    ident = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    html = (f'<div class="attnlib-explorer" id="attnlib-explorer-{ident}" data-kind="{kind}">'
            '<p class="attnlib-explorer-fallback">Interactive figure: its controls work in the HTML version of '
            'this book, with no Python needed.</p>'
            f'<script type="application/json" class="attnlib-explorer-data">{text}</script></div>')
    return LiveExplorer(kind, data, html)
