"""attnlib.views.webexplorer: the live figures' payloads (controls, state, simulated overlays), their HTML and their
still images (attnlib.views.webstills)."""

from __future__ import annotations

import dataclasses
import functools
import html.parser
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from attnlib.views import explorers, weboverlays, webexplorer, webstills
from attnlib.model import positional, weights
from attnlib import theory

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "_ext"))
import live_explorers  # noqa: E402  (the Sphinx extension that serves the scripts)


@functools.cache
def embedded(kind: str):
    """The default live figure of ``kind`` (built once per test run: the simulations take a few seconds)."""
    return webexplorer.embed(kind)


@pytest.fixture
def no_simulation(monkeypatch):
    """Payloads without the (slower) simulations, for the tests of controls and validation."""
    for name, kind in list(webexplorer.KINDS.items()):
        monkeypatch.setitem(webexplorer.KINDS, name, dataclasses.replace(kind, overlay=None))


class _Blocks(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.divs, self.scripts, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "div" and "attnlib-explorer" in attrs.get("class", "").split():
            self.divs.append(attrs)
        self._in_script = tag == "script" and attrs.get("type") == "application/json"

    def handle_data(self, data):
        if self._in_script:
            self.scripts.append(data)

    def handle_endtag(self, tag):
        self._in_script = False


@pytest.mark.parametrize("kind", webexplorer.KINDS)
def test_every_slider_holds_its_default(kind, no_simulation):
    data = webexplorer.payload(kind)
    for spec in (spec for row in data["controls"] for spec in row):
        value = data["state"][spec["name"]]
        if spec["kind"] == "float":
            assert value in spec["values"], f"{kind}: {spec['name']} = {value} is not on its slider"
            grid = np.asarray(spec["values"])
            assert np.allclose(np.diff(grid), grid[1] - grid[0])
        elif spec["kind"] == "int":
            bounds = {**data["fixed"], **data["state"]}  # L is at most T, a control or a fixed parameter
            high = bounds[spec["high"]] if isinstance(spec["high"], str) else spec["high"]
            assert spec["low"] <= value <= high
        elif spec["kind"] in ("dropdown", "toggle"):
            assert value in [option[0] for option in spec["options"]]


def test_controls_are_the_ipywidgets_explorers(no_simulation):
    """Same rows, ranges, steps, defaults and labels as attnlib.views.explorers (one control table)."""
    for kind in ("spectrum", "phase", "weights"):
        data = webexplorer.payload(kind)
        assert [[c["name"] for c in row] for row in data["controls"]] == [list(r) for r in explorers.LAYOUTS[kind]]
        for spec in (spec for row in data["controls"] for spec in row):
            control = explorers.CONTROLS[spec["name"]]
            assert data["state"][spec["name"]] == control.default
            assert spec["label"] == control.label
            if spec["kind"] == "float":
                assert spec["values"][0] == control.low and spec["values"][-1] == pytest.approx(control.high)
                assert spec["values"][1] - spec["values"][0] == pytest.approx(control.step)
    gamma = next(c for row in webexplorer.payload("phase")["controls"] for c in row if c["name"] == "gamma")
    assert 0.25 in gamma["values"]  # the phase explorer's default gamma, exactly


#: The default of every family parameter (r = 0.6, L = 4, and those of any family added later).
_PARAMETERS = {p.name: p.default for p in positional.PARAMETERS.values()}


def test_state_overrides_and_fixed_parameters(no_simulation):
    data = webexplorer.payload("family", r=0.3, delta=0.25)
    assert data["state"] == {"family": "markov", **_PARAMETERS, "r": 0.3}
    assert data["fixed"] == {"T": 16, "delta": 0.25, "gamma": 0.25, "mu_norm2": 0.5}
    data = webexplorer.payload("sample_recovery", family="markov", r=0.3, gamma=0.5, T=8, L=8)
    assert data["state"] == {"family": "markov", **_PARAMETERS, "r": 0.3, "L": 8, "delta": 0.5, "gamma": 0.5,
                             "mu_norm2": 0.5}
    assert data["fixed"] == {"T": 8, "tau": 0.0}
    assert [[c["name"] for c in row] for row in data["controls"]] == [["family", *positional.PARAMETERS],
                                                                     ["delta", "gamma", "mu_norm2"]]
    assert "gamma" not in webexplorer.payload("population_recovery")["state"]
    # a value equal to a grid value up to rounding is stored as the grid's exact value
    assert webexplorer.payload("bulk", delta=0.1 + 0.2)["state"]["delta"] == 0.3
    assert webexplorer.payload("weights", family="prefix", T=8, L=8)["state"]["L"] == 8


@pytest.mark.parametrize("kind, state, name", [
    ("nonsense", {}, "kind"),
    ("bulk", {"delta": 0.333}, "delta"),
    ("bulk", {"gamma": -1.0}, "gamma"),
    ("bulk", {"theta": 1.0}, "theta"),
    ("phase", {"gamma": 5.0}, "gamma"),
    ("weights", {"family": "fractal"}, "family"),
    ("weights", {"T": 8, "L": 9}, "L"),
    ("weights", {"T": 1.5}, "T"),
    ("spectrum", {"centered": "yes"}, "centered"),
    ("spectrum", {"weighting": "max"}, "weighting"),
    ("family", {"delta": 0.0}, "delta"),
    ("population_recovery", {"theta": 2.0}, "theta"),
    ("sample_recovery", {"T": 1}, "T"),
    ("sample_recovery", {"L": 17}, "L"),
    ("population_recovery", {"tau": float("nan")}, "tau"),
    ("family", {"r": 0.97}, "r"),
])
def test_bad_input_names_the_argument(kind, state, name, no_simulation):
    with pytest.raises(ValueError, match=name):
        webexplorer.payload(kind, **state)


def test_embed_writes_one_block_with_its_data():
    out = embedded("weights")
    text = out._repr_html_()
    parser = _Blocks()
    parser.feed(text)
    assert len(parser.divs) == 1 and parser.divs[0]["data-kind"] == "weights"
    assert parser.divs[0]["id"].startswith("attnlib-explorer-")
    assert len(parser.scripts) == 1 and "<" not in parser.scripts[0]
    data = json.loads(parser.scripts[0])
    assert data == json.loads(json.dumps(out.payload))
    assert data["state"] == {"family": "markov", "T": 16, **_PARAMETERS, "tau": 0.0}
    assert "attnlib-explorer-fallback" in text  # what a notebook shows instead of the live figure
    shown = ", ".join(f"{k}={v!r}" for k, v in {"family": "markov", "T": 16, **_PARAMETERS, "tau": 0.0}.items())
    assert repr(out) == f"LiveExplorer('weights', {shown})"  # LiveExplorer('weights', family='markov', T=16, r=0.6, ...
    from IPython.core.formatters import DisplayFormatter

    # HTML for the HTML book, the still PNG for print (the builders' mime priorities pick one), text otherwise
    bundle, _ = DisplayFormatter().format(out)
    assert set(bundle) == {"text/plain", "text/html", "image/png"} and bundle["text/plain"] == repr(out)
    assert out._repr_png_().startswith(b"\x89PNG")


def test_every_kind_names_its_parts():
    """Each record: controls that exist, an overlay of weboverlays (or none), a still of webstills and a renderer
    script the extension serves (tests/browser/test_js_kinds.py checks the renderer is in it)."""
    for name, kind in webexplorer.KINDS.items():
        assert kind.rows and {n for row in kind.rows for n in row} <= set(explorers.CONTROLS), name
        overlay = getattr(kind.overlay, "func", kind.overlay)  # a partial names its function
        assert overlay is None or overlay.__module__ == weboverlays.__name__, name
        assert kind.still.__module__ == webstills.__name__ and callable(kind.still), name
        assert kind.script in live_explorers.EXPLORER_SCRIPTS and kind.script.startswith("attnlib-kinds-"), name
    assert {k.script for k in webexplorer.KINDS.values()} == {s for s in live_explorers.EXPLORER_SCRIPTS
                                                             if s.startswith("attnlib-kinds-")}


def test_every_kind_is_embedded_by_a_page():
    """No dead kinds: each kind is the live figure of some page of the book (which the browser tests drive)."""
    embedded = set()
    for page in (REPO / "book").glob("*.md"):
        embedded |= set(re.findall(r'webexplorer\.embed\("([a-z_]+)"', page.read_text(encoding="utf-8")))
    assert embedded == set(webexplorer.KINDS)


def test_embed_is_deterministic():
    a, b = embedded("sample_recovery"), webexplorer.embed("sample_recovery")
    assert a._repr_html_() == b._repr_html_() and a._repr_png_() == b._repr_png_()


def test_sign_simulations_estimate_the_families_alpha_over_kappa():
    data = embedded("weights").payload["simulations"]
    assert [f["state"]["family"] for f in data["families"]] == list(positional.FAMILIES)
    from attnlib.model import weights

    for f in data["families"]:
        R = positional.family(f["state"]["family"], 16, r=0.6, L=4).R
        for name, value in (("mean", f["mean"]), ("optimal", f["optimal"])):
            exact = weights.snr(weights.mean(16) if name == "mean" else weights.optimal(R), R)
            assert abs(value - exact) < 0.1 * exact  # 20,000 sequences: a few percent at most


def test_recovery_still_draws_attnlib_and_the_payload_points():
    """The still of the sample recovery figure: the curves are attnlib's, the squares the payload's points."""
    out = embedded("sample_recovery")
    data = out.payload
    left, right = out.figure.axes
    lines = {line.get_gid(): line for line in right.lines}
    mu2 = lines["overlap-mean"].get_xdata()
    curves = webstills.recovery_curves("sample", data["state"], data["fixed"], mu2)
    process = positional.prefix(16, 4)
    for name in weights.NAMED:
        w, _ = weights.named(name, process)
        a, k = weights.alpha(w, process.R), weights.kappa(w)
        sig = theory.signal(0.5, 1.0, a, k, mu2)
        assert np.array_equal(curves[name]["overlap"], sig.sample_overlap, equal_nan=True)
        assert np.array_equal(lines[f"overlap-{name}"].get_ydata(), sig.sample_overlap, equal_nan=True)
        assert lines[f"threshold-{name}"].get_xdata()[0] == theory.signal_thresholds(0.5, 1.0, a, k)[1]
    sim = data["simulations"]["settings"][0]
    assert sim["state"] == {"family": "prefix", "L": 4, "delta": 0.5, "gamma": 1.0}  # no r: not a prefix field
    points = np.asarray(sim["curves"]["optimal"])
    assert np.allclose(points[:, 0], weboverlays.MU2_GRID)


@pytest.mark.parametrize("delta, gamma, snr", [(0.5, 1.0, 1.75), (0.2, 0.3, 1.0), (2.0, 0.5, 3.0), (0.5, 1.0, 4.0)])
def test_signal_thresholds_are_where_the_outliers_appear(delta, gamma, snr):
    """theory.signal_thresholds (the dotted lines of the recovery figures): just below each ||mu||^2 threshold the
    signal has no outlier at that level, just above it has one; a threshold of 0 means one at every ||mu||^2."""
    kappa = 0.0625
    for level, mu2 in zip(("population", "sample"), theory.signal_thresholds(delta, gamma, snr * kappa, kappa)):
        at = [getattr(theory.signal(delta, gamma, snr * kappa, kappa, m), f"{level}_eigenvalue")
              for m in (mu2 * (1 - 1e-6), mu2 * (1 + 1e-6) + 1e-12)]
        assert np.isnan(at[0]) != (mu2 == 0) and np.isfinite(at[1]), (level, mu2, at)
    assert theory.signal_thresholds(0.5, 1.0, 0.0, 1.0) == (np.inf, np.inf)


def test_recovery_points_follow_the_theory():
    """Simulated cos^2(u_hat, u) of the sample recovery figure's first setting (d = 300, 4 draws per point) against
    the theory, where the outlier is well separated (||mu||^2 >= 1). Tolerance: 4 standard errors of the 4 draws,
    with the per-draw sd taken as at least 0.03 (the smallest sd over those points, measured, is 0.02-0.04;
    a mean of 4 draws with an sd that small can fall below its own spread by chance)."""
    data = embedded("sample_recovery").payload
    process = positional.prefix(16, 4)
    sim = data["simulations"]["settings"][0]
    for name in weights.NAMED:
        w, _ = weights.named(name, process)
        a, k = weights.alpha(w, process.R), weights.kappa(w)
        for mu2, _, _, mean, sd in sim["curves"][name]:
            if mu2 >= 1.0:
                predicted = theory.signal(0.5, 1.0, a, k, mu2).sample_overlap
                assert abs(mean - predicted) < 4 * max(sd, 0.03) / np.sqrt(4), (name, mu2, mean, predicted)


def test_phase_points_follow_the_theory():
    """The simulated spike points of the phase figure (d = 300, 4 draws each, at delta = 0.5): where theta is
    well above the sample threshold (twice it), the top eigenvalue of S and its cos^2 with h are attnlib's, within
    4 sd of the draws and a 5% (0.05) finite-size margin."""
    data = embedded("phase").payload["simulations"]
    assert data["delta"] == 0.5 and data["trials"] >= 2 and len(data["curves"]) == 4
    for curve in data["curves"]:
        points = curve["points"]
        assert [p["theta"] for p in points] == [th for th in weboverlays._THETA_GRID if th >= 0.5]
        for p in points:
            sp = theory.spike(0.5, curve["gamma"], theta=p["theta"])
            if p["theta"] >= 2 * theory.thresholds(0.5, curve["gamma"])[1]:
                assert abs(p["top"][0] - sp.sample_eigenvalue) < 4 * p["top"][1] + 0.05 * sp.sample_eigenvalue
                assert abs(p["overlap_h"][0] - sp.sample_overlap) < 4 * p["overlap_h"][1] + 0.05


def test_scripts_are_small_and_only_on_explorer_pages():
    assert live_explorers.asset_bytes() <= 300_000
    assert live_explorers.has_explorer(embedded("weights")._repr_html_())
    assert not live_explorers.has_explorer("<p>no explorer here</p>")
    assert {p.name for p in live_explorers.WEB_DIR.glob("*.js")} == set(live_explorers.SCRIPTS)  # all served
    assert live_explorers.SCRIPTS[-1] == "attnlib-explorers.js"  # the widget, which boots the figures, runs last
    for name in live_explorers.SCRIPTS:
        source = (live_explorers.WEB_DIR / name).read_text(encoding="utf-8")
        assert "import " not in source.split("*/", 1)[1] and "export " not in source, name  # classic (file://)
        assert source.count("\n") <= 400, f"{name}: more than 400 lines"
