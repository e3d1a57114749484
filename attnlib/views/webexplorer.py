r"""Live explorers for the HTML book: sliders that recompute the theory in the reader's browser, and a still
image of the same figure for print.

:func:`embed` returns a :class:`LiveExplorer`, a display object with two forms:

* HTML: a ``<div class="attnlib-explorer">`` block holding its settings as inline JSON. In the HTML book small
  scripts (``_ext/web/attnlib-explorers.js`` and its parts, with the closed forms of :mod:`attnlib.theory` and
  :mod:`attnlib.model.weights` ported to ``attnlib-theory-*.js``) turn every such block into a live figure: moving a
  control recomputes the theory with no kernel, offline, even from ``file://``.
* PNG: the still image of the figure in its starting state (:mod:`attnlib.views.webstills`), which the book's LaTeX
  (PDF) builder prints instead, with the cell's caption. (MyST-NB picks one form per builder:
  ``nb_mime_priority_overrides`` in ``_config.yml``.)

What cannot be recomputed in a browser, the simulation, is done when the chapter executes
(:mod:`attnlib.views.weboverlays`): each block carries simulated overlays for its starting setting and a few single
changes of it, and the figure shows them whenever the controls sit on one of those settings. The output is
deterministic (fixed seeds, rounded numbers).

Kinds (``KINDS``): the three explorers of :mod:`attnlib.views.explorers` with their controls ("spectrum", "phase",
"weights"), and figures for single chapters: "bulk" (delta, gamma); "population_recovery" and
"sample_recovery" (recovery cos^2(v_hat, u) and the outlier against ||mu||^2 for mean, causal and optimal
pooling, at the population or the sample level; controls: the R family and its parameter, delta, gamma for the
sample level, and the ||mu||^2 of the read-out); "family" (the weights of an R family, its parameter, and the
recovery they give); "primer" (the primer page's figure: a ``view`` switch between the Marchenko-Pastur law
MP_delta with its Stieltjes transform, a spike of strength theta on it with the secular equation, and
MP_delta ⊠ MP_gamma against its two factors; controls delta, gamma, theta, each shown in the views it acts
in); and "heads" (concatenated causal heads: their number, each head's tau, anti-causal even heads; the
outliers of S along ||mu||^2 and the threshold as heads are added, ``attnlib.theory.heads``).

A kind is one record, a :class:`Kind` of ``KINDS``: its controls, its overlay, its still and the script of its
renderer, named together. A new kind is that record, its overlay and still functions (in
:mod:`attnlib.views.weboverlays` and :mod:`attnlib.views.webstills`, or none), its renderer (a file of
``_ext/web/``, listed in ``_ext/live_explorers.py`` if new) and the page that embeds it.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from IPython.display import HTML

from attnlib.numerics import checks as _v
from attnlib.views import controls, weboverlays, webstills
from attnlib import theory
from attnlib.views.figures import phase
from attnlib.views.plotting import COLORS

__all__ = ["Kind", "KINDS", "LiveExplorer", "embed", "payload"]

@dataclass(frozen=True)
class Kind:
    """One kind of live figure, with every part of it named here.

    ``rows``: its controls, rows of state fields (:data:`attnlib.views.controls.CONTROLS`); ``overlay``: the
    function ``(state, fixed) -> dict`` that simulates its overlay when a chapter executes
    (:mod:`attnlib.views.weboverlays`), or None (theory only); ``still``: the function ``payload -> figure`` that
    draws it for print (:mod:`attnlib.views.webstills`); ``script``: the file of ``_ext/web/`` whose renderer
    draws it live (the script sets ``window.attnlibWeb.kinds[kind]``; tests/browser/test_js_kinds.py checks
    that each kind's renderer is there and nowhere else). Optional: state fields set only here (``fixed``), new
    defaults and labels, and ``shown``: (control, (field, values)) pairs that show a control only while the
    state's field is one of the values, for this kind alone (as a control's own ``shown_when``).
    """

    rows: tuple
    overlay: Callable[[dict, dict], dict] | None
    still: Callable[[dict], object]
    script: str
    fixed: tuple = ()
    defaults: tuple = ()
    labels: tuple = ()
    shown: tuple = ()


_R_FAMILY = tuple(f for f in controls.FAMILY_FIELDS if f != "T")  # T is fixed in these kinds
_RECOVERY = dict(fixed=(("T", 16), ("tau", 0.0)), labels=(("mu_norm2", "‖μ‖² (read-out)"),))
_O, _S = weboverlays, webstills
#: The kinds of live figure, by name. The first three are the ipywidgets explorers (their rows:
#: :data:`attnlib.views.controls.LAYOUTS`).
KINDS: dict[str, Kind] = {
    "spectrum": Kind(controls.LAYOUTS["spectrum"], _O.spectrum_draws, _S.spectrum_still, "attnlib-kinds-spectrum.js"),
    "phase": Kind(controls.LAYOUTS["phase"], _O.spike_draws, _S.phase_still, "attnlib-kinds-spikes.js"),
    "weights": Kind(controls.LAYOUTS["weights"], _O.sign_draws, _S.weights_still, "attnlib-kinds-weights.js"),
    "bulk": Kind((("delta", "gamma"),), _O.bulk_draws, _S.bulk_still, "attnlib-kinds-spectrum.js"),
    "population_recovery": Kind((_R_FAMILY, ("delta", "mu_norm2")), partial(_O.recovery_draws, "population"),
                                _S.recovery_still, "attnlib-kinds-recovery.js",
                                defaults=(("family", "prefix"), ("mu_norm2", 0.5)), **_RECOVERY),
    "sample_recovery": Kind((_R_FAMILY, ("delta", "gamma", "mu_norm2")), partial(_O.recovery_draws, "sample"),
                            _S.recovery_still, "attnlib-kinds-recovery.js",
                            defaults=(("family", "prefix"), ("gamma", 1.0), ("mu_norm2", 0.5)), **_RECOVERY),
    "family": Kind((_R_FAMILY,), _O.family_draws, _S.family_still, "attnlib-kinds-weights.js",
                   fixed=(("T", 16), ("delta", 0.5), ("gamma", 0.25), ("mu_norm2", 0.5))),
    "primer": Kind((("view",), ("delta", "gamma", "theta")), None, _S.primer_still, "attnlib-kinds-primer.js",
                   defaults=(("theta", 2.0),), labels=(("theta", "θ (spike)"),),
                   shown=(("gamma", ("view", controls.PRIMER_VIEWS[2:])),
                          ("theta", ("view", controls.PRIMER_VIEWS[1:])))),
    "heads": Kind((_R_FAMILY, ("heads", "anticausal"), ("tau1", "tau2", "tau3", "tau4"),
                   ("delta", "gamma", "mu_norm2")), _O.heads_draws, _S.heads_still, "attnlib-kinds-heads.js",
                  fixed=(("T", 16),), defaults=(("family", "blocks"), ("gamma", 1.0), ("mu_norm2", 1.5)),
                  labels=(("mu_norm2", "‖μ‖² (read-out)"),)),
}
_PRINT_DPI = 150  # the still images are for print
# How a fixed parameter given to payload() is checked.
_FIXED_CHECKS = {"T": lambda v: _v.positive_int("T", v, minimum=2), "tau": lambda v: _v.finite_scalar("tau", v),
                 "delta": lambda v: _v.positive("delta", v), "gamma": lambda v: _v.positive("gamma", v),
                 "mu_norm2": lambda v: _v.nonnegative("mu_norm2", v)}


def _grid(control) -> list:
    """The values of a slider, exact decimals: low, low + step, ..., high."""
    count = int(round((control.high - control.low) / control.step)) + 1
    digits = max(0, -int(np.floor(np.log10(control.step))) + 2)
    return [round(control.low + k * control.step, digits) for k in range(count)]


def _spec(name: str, kind: str) -> dict:
    """The JSON description of one control (the JS builds the widget from it)."""
    control = controls.CONTROLS[name]
    spec = {"name": name, "kind": control.kind, "label": dict(KINDS[kind].labels).get(name, control.label),
            "help": control.help}
    if control.kind == "float":
        spec["values"] = _grid(control)
    elif control.kind == "int":
        spec.update(low=int(control.low), high=control.high if isinstance(control.high, str) else int(control.high))
    elif control.options:
        spec["options"] = [[value, text] for value, text in control.options]
    when = dict(KINDS[kind].shown).get(name, control.shown_when)
    if when:
        spec["shown_when"] = [when[0], list(when[1])]
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
    info = KINDS[kind]
    rows = [[_spec(name, kind) for name in row] for row in info.rows]
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
            fixed[name] = _FIXED_CHECKS[name](overrides[name])
    state.update({k: v for k, v in overrides.items() if k in specs})
    for name in sorted(specs, key=lambda n: isinstance(specs[n].get("high"), str)):  # L after T: its range
        state[name] = _check_value(name, state[name], specs[name], {**fixed, **state})
    return state, fixed, rows


# ------------------------------------------------------------------------------------------------- output


def payload(kind: str, **state) -> dict:
    """Everything the live figure of ``kind`` needs, as a JSON-ready dict (deterministic).

    Parameters
    ----------
    kind : str
        One of ``KINDS``.
    **state
        Settings of the figure's controls (each on its slider's grid or among its options) and of its fixed
        parameters (``T`` and ``tau`` for the recovery kinds; ``T``, ``delta``, ``gamma``, ``mu_norm2`` for
        "family"); the rest take their defaults.

    Returns
    -------
    dict
        ``kind``, ``controls`` (rows of control descriptions), ``state`` (the starting values), ``fixed``,
        ``colors``, ``regions`` (the phase diagram's, for "phase") and ``simulations`` (the precomputed
        overlays, by the kind's ``overlay``; empty if it has none).
    """
    state, fixed, rows = _state(kind, state)
    data = {"kind": kind, "controls": rows, "state": state, "fixed": fixed, "colors": dict(COLORS)}
    if kind == "phase":
        # the region names and colours of the phase figure
        data["regions"] = [[name, phase.REGION_DESCRIPTIONS[key], color] for name, key, color in
                           zip(theory.REGIONS, phase.REGION_KEYS, phase.REGION_COLORS)]
    overlay = KINDS[kind].overlay
    data["simulations"] = overlay(state, fixed) if overlay is not None else {}
    return data


class LiveExplorer(HTML):
    """A live figure: HTML for the HTML book, a PNG still of its starting state for print, and one short,
    stable line of text (``repr``).

    Attributes: ``kind``, ``state`` (the controls' and fixed parameters' values it starts from), ``payload``
    (the :func:`payload` embedded in the HTML) and ``figure`` (the still, a matplotlib figure, or None if the
    kind's still function returns none).
    """

    def __init__(self, kind: str, data: dict, html: str, figure=None):
        super().__init__(html)
        self.kind = kind
        self.state = {**data["state"], **data["fixed"]}
        self.payload = data
        self.figure = figure
        self._png = None
        if figure is not None:
            out = io.BytesIO()
            figure.savefig(out, format="png", dpi=_PRINT_DPI)
            self._png = out.getvalue()

    def _repr_png_(self) -> bytes | None:
        return self._png

    def __repr__(self) -> str:
        args = ", ".join(f"{name}={value!r}" for name, value in self.state.items())
        return f"LiveExplorer({self.kind!r}, {args})"


def embed(kind: str, **state) -> LiveExplorer:
    """A live figure of ``kind`` with its still image (see :func:`payload` for the arguments).

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
    return LiveExplorer(kind, data, html, KINDS[kind].still(data))
