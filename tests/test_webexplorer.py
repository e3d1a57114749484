"""attnlib.webexplorer: the live figures' payloads (controls, state, simulated overlays) and their HTML."""

from __future__ import annotations

import html.parser
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from attnlib import explorers, positional, theory, webexplorer

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "_ext"))
import live_explorers  # noqa: E402  (the Sphinx extension that serves the scripts)


@pytest.fixture
def no_simulation(monkeypatch):
    """Payloads without the (slower) simulations, for the tests of controls and validation."""
    monkeypatch.setattr(webexplorer, "_simulations", lambda kind, state, fixed: {})


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
            high = data["state"][spec["high"]] if isinstance(spec["high"], str) else spec["high"]
            assert spec["low"] <= value <= high
        elif spec["kind"] in ("dropdown", "toggle"):
            assert value in [option[0] for option in spec["options"]]


def test_controls_are_the_ipywidgets_explorers(no_simulation):
    """Same rows, ranges, steps, defaults and labels as attnlib.explorers (one control table)."""
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


def test_state_overrides_and_fixed_parameters(no_simulation):
    data = webexplorer.payload("sample", theta=2.5, gamma=0.5, delta=0.25)
    assert data["state"] == {"theta": 2.5, "gamma": 0.5}
    assert data["fixed"] == {"delta": 0.25}
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
    ("sample", {"delta": 0.0}, "delta"),
])
def test_bad_input_names_the_argument(kind, state, name, no_simulation):
    with pytest.raises(ValueError, match=name):
        webexplorer.payload(kind, **state)


def test_embed_writes_one_block_with_its_data():
    out = webexplorer.embed("weights")
    text = out._repr_html_()
    parser = _Blocks()
    parser.feed(text)
    assert len(parser.divs) == 1 and parser.divs[0]["data-kind"] == "weights"
    assert parser.divs[0]["id"].startswith("attnlib-explorer-")
    assert len(parser.scripts) == 1 and "<" not in parser.scripts[0]
    data = json.loads(parser.scripts[0])
    assert data == json.loads(json.dumps(out.payload))
    assert data["state"] == {"family": "markov", "T": 16, "r": 0.6, "L": 4, "tau": 0.0}
    assert "attnlib-explorer-fallback" in text  # what a notebook shows instead of the live figure
    assert repr(out) == "LiveExplorer('weights', family='markov', T=16, r=0.6, L=4, tau=0.0)"
    from IPython.core.formatters import DisplayFormatter

    bundle, _ = DisplayFormatter().format(out)
    assert set(bundle) == {"text/plain", "text/html"} and bundle["text/plain"] == repr(out)


def test_embed_is_deterministic():
    assert webexplorer.embed("weights")._repr_html_() == webexplorer.embed("weights")._repr_html_()
    assert webexplorer.embed("population")._repr_html_() == webexplorer.embed("population")._repr_html_()


def test_sign_simulations_estimate_the_families_alpha_over_kappa():
    data = webexplorer.embed("weights").payload["simulations"]
    assert [f["state"]["family"] for f in data["families"]] == list(positional.FAMILIES)
    from attnlib import weights

    for f in data["families"]:
        R = positional.family(f["state"]["family"], 16, r=0.6, L=4).R
        for name, value in (("mean", f["mean"]), ("optimal", f["optimal"])):
            exact = weights.snr(weights.mean(16) if name == "mean" else weights.optimal(R), R)
            assert abs(value - exact) < 0.1 * exact  # 20,000 sequences: a few percent at most


def test_population_points_follow_the_theory():
    data = webexplorer.embed("population").payload["simulations"]
    assert data["delta"] == 0.5 and data["trials"] >= 2
    points = data["curves"][0]["points"]
    assert [p["theta"] for p in points] == [th for th in webexplorer._THETA_GRID if th >= 0.5]
    for p in points:
        sp = theory.spike(p["theta"], 0.5, 1.0)
        if p["theta"] >= 2.0:  # well above the threshold 1.21: the outlier, within a few sd
            assert abs(p["top"][0] - sp.population_eigenvalue) < 4 * p["top"][1] + 0.05 * sp.population_eigenvalue
            assert abs(p["overlap_h"][0] - sp.population_overlap) < 4 * p["overlap_h"][1] + 0.05


def test_scripts_are_small_and_only_on_explorer_pages():
    assert live_explorers.asset_bytes() <= 300_000
    assert live_explorers.has_explorer(webexplorer.embed("weights")._repr_html_())
    assert not live_explorers.has_explorer("<p>no explorer here</p>")
    assert {p.name for p in live_explorers.WEB_DIR.glob("*.js")} == set(live_explorers.SCRIPTS)  # all served
    assert live_explorers.SCRIPTS[-1] == "attnlib-explorers.js"  # the widget, which boots the figures, runs last
    for name in live_explorers.SCRIPTS:
        source = (live_explorers.WEB_DIR / name).read_text(encoding="utf-8")
        assert "import " not in source.split("*/", 1)[1] and "export " not in source, name  # classic (file://)
        assert source.count("\n") <= 400, f"{name}: more than 400 lines"
