"""The live explorers of the built book, driven in headless Chromium like a reader would.

Every page of ``_build/html`` holding ``attnlib.webexplorer`` blocks is opened with the network cut off (from
the local server, and once from ``file://``), and so is a page of all seven kinds made here (from ``file://``,
with the build's scripts), so that kinds no chapter embeds yet are checked too. For every live figure:

* it starts (``data-ready``), every control shows its default exactly, and no console error appears;
* every control is moved once (a slider by one step with the keyboard, a dropdown or toggle to another value,
  a checkbox flipped; a control hidden in the current state is first revealed by the control it depends on):
  the figure's pixels change, the state follows, and every number of the read-out equals attnlib's value for
  the new state (relative difference <= 1e-9, computed here in Python with attnlib) and is printed as attnlib's
  explorers print it (3 significant digits);
* a slider is then dragged along 30 steps and back to time the redraws.

Redraw times (``performance.now()`` around each redraw, in the page) are reported, not asserted, in
``_build/live-explorers-report.json``, with the bytes the explorers add to the build; screenshots of the
spectrum explorer before and after a slider move are saved under ``_build/screenshots/``.
"""

from __future__ import annotations

import json
import statistics
import sys

import numpy as np
import pytest

from attnlib import explorers, positional, theory, weights
from attnlib.explorers._widgets import fmt

from .conftest import ENABLED, HTML, REPO, SCREENSHOTS

if not ENABLED:
    pytest.skip("browser test of the built book (ATTNLIB_BROWSER_TEST=1)", allow_module_level=True)

sys.path.insert(0, str(REPO / "_ext"))
import live_explorers  # noqa: E402

REPORT = SCREENSHOTS.parent / "live-explorers-report.json"
TOLERANCE = 1e-9
DRAG_STEPS = 30
TIMINGS: dict[str, list[float]] = {}
SUMMARY: dict[str, object] = {}


def explorer_pages() -> list[str]:
    if not HTML.exists():
        return []
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
                  if p.relative_to(HTML).parts[0] != "_static"
                  and live_explorers.has_explorer(p.read_text(encoding="utf-8", errors="replace")))


PAGES = explorer_pages()


# ------------------------------------------------------------------------------- attnlib's expected read-out


def _process(s):
    return positional.family(s["family"], s["T"], r=s["r"], L=s["L"])


def expected(kind: str, s: dict, f: dict) -> dict:
    """The read-out rows' numbers (key -> list) that attnlib gives for the state ``s`` (fixed parameters ``f``)."""
    if kind == "spectrum":
        th = explorers.spectrum_theory(explorers.SpectrumState(**s))
        out = {"alpha_kappa": [th["alpha"], th["kappa"]], "theta": [th["theta"]], "thresholds": list(th["thresholds"]),
               "edges": list(th["edges"]), "outlier": [th["signal"].sample_eigenvalue],
               "overlaps": [th["signal_h"].sample_overlap, th["signal"].sample_overlap]}
        if th["mean"] is not None:
            out["mean_spike"] = [th["mean"].theta, th["mean"].sample_eigenvalue]
        return out
    if kind == "phase":
        th = explorers.phase_theory(explorers.PhaseState(**s))
        sp = th["spike"]
        return {"region": [th["region_code"]], "thresholds": list(th["thresholds_here"]),
                "population": [sp.population_eigenvalue, sp.population_overlap],
                "sample": [sp.sample_eigenvalue, sp.sample_overlap],
                "edge": [theory.bulk_edges(s["delta"], s["gamma"])[1]]}
    if kind == "weights":
        th = explorers.weights_theory(explorers.WeightsState(**s))
        return {**{name: list(v) for name, v in th["scalars"].items()}, "lambda_max": [th["lambda_max"]]}
    if kind == "bulk":
        return {"edges": list(theory.bulk_edges(s["delta"], s["gamma"])),
                "atom": [theory.zero_atom(s["delta"], s["gamma"])]}
    if kind == "population":
        sp = theory.spike(s["theta"], f["delta"], 1.0)
        return {"threshold": [theory.thresholds(f["delta"], 1.0)[0]], "outlier": [sp.population_eigenvalue],
                "overlap": [sp.population_overlap], "edge": [theory.mp_edges(f["delta"])[1]]}
    if kind == "sample":
        sp = theory.spike(s["theta"], f["delta"], s["gamma"])
        return {"thresholds": list(theory.thresholds(f["delta"], s["gamma"])),
                "sample": [sp.sample_eigenvalue, sp.sample_overlap],
                "population": [sp.population_eigenvalue, sp.population_overlap],
                "edge": [theory.bulk_edges(f["delta"], s["gamma"])[1]]}
    assert kind == "family", kind
    process = _process({**f, "family": s["family"]})
    out = {}
    for name in weights.NAMED:
        w, _ = weights.named(name, process)
        a, k = weights.alpha(w, process.R), weights.kappa(w)
        out[name] = [a, k, a / k, theory.signal(f["delta"], f["gamma"], a, k, f["mu_norm2"]).sample_overlap]
    out["lambda_max"] = [float(np.linalg.eigvalsh(process.R)[-1])]
    return out


def readout_problems(kind: str, state: dict, fixed: dict, rows: list[dict]) -> list[str]:
    """Differences between the page's read-out (data-values and text) and attnlib's numbers."""
    shown = {row["key"]: row for row in rows}
    problems = []
    for key, values in expected(kind, state, fixed).items():
        if key not in shown:
            problems.append(f"{kind}: read-out row {key!r} missing")
            continue
        js = shown[key]["values"]
        if len(js) != len(values):
            problems.append(f"{kind}: {key} has {len(js)} values, attnlib {len(values)}")
            continue
        for v_js, v in zip(js, values):
            v = float(v)
            if not np.isfinite(v):
                if v_js is not None:
                    problems.append(f"{kind}: {key}: page shows {v_js}, attnlib has no value")
            elif v_js is None or abs(v_js - v) > TOLERANCE * abs(v):
                problems.append(f"{kind}: {key}: page {v_js!r} != attnlib {v!r}")
            elif kind != "phase" or key != "region":
                if fmt(v) not in shown[key]["text"]:
                    problems.append(f"{kind}: {key}: text {shown[key]['text']!r} lacks attnlib's {fmt(v)!r}")
    return problems


# ------------------------------------------------------------------------------------------- page driving

READOUT_JS = """
(root) => Array.from(root.querySelectorAll('table.ax-readout tr[data-key]')).map(tr => ({
  key: tr.dataset.key, values: JSON.parse(tr.dataset.values), text: tr.innerText}))
"""
PIXELS_JS = "(root) => Array.from(root.querySelectorAll('canvas')).map(c => c.toDataURL()).join('|')"
TIMINGS_JS = """
() => window.attnlibExplorers.instances.map(e => ({id: e.root.id, kind: e.data.kind, timings: e.timings}))
"""


def open_page(browser, url: str, is_local):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    blocked, errors = [], []

    def gate(route):
        if is_local(route.request.url):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort("blockedbyclient")

    context.route("**/*", gate)
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.goto(url, wait_until="load")
    page.wait_for_function("() => document.querySelectorAll('.attnlib-explorer').length > 0 && "
                           "Array.from(document.querySelectorAll('.attnlib-explorer')).every(e => e.dataset.ready)")
    return context, page, blocked, errors


class Figure:
    """One live figure of a page: its payload, its state, its controls."""

    def __init__(self, page, root_id: str):
        self.page = page
        self.root = page.locator(f"#{root_id}")
        self.data = json.loads(self.root.locator("script.attnlib-explorer-data").text_content())
        self.kind = self.data["kind"]
        self.specs = {spec["name"]: spec for row in self.data["controls"] for spec in row}

    def state(self) -> dict:
        return json.loads(self.root.get_attribute("data-state"))

    def pixels(self) -> str:
        return self.root.evaluate(PIXELS_JS)

    def readout(self) -> list[dict]:
        return self.root.evaluate(READOUT_JS)

    def control(self, name: str):
        return self.root.locator(f'[data-control="{name}"]')

    def move(self, name: str) -> None:
        """Move control ``name`` once (revealing it first if the state hides it)."""
        spec = self.specs[name]
        box = self.control(name)
        if box.is_hidden():
            field, values = spec["shown_when"]
            self.set_choice(field, values[0])
        state = self.state()
        if spec["kind"] in ("float", "int"):
            slider = box.locator("input[type=range]")
            at_end = int(slider.input_value()) >= int(slider.get_attribute("max"))
            slider.press("ArrowLeft" if at_end else "ArrowRight")
        elif spec["kind"] == "check":
            box.locator("input[type=checkbox]").click()
        else:
            other = next(v for v, _ in spec["options"] if v != state[name])
            self.set_choice(name, other)

    def set_choice(self, name: str, value) -> None:
        spec = self.specs[name]
        box = self.control(name)
        if spec["kind"] == "dropdown":
            box.locator("select").select_option(value)
        else:
            box.locator(f'button[data-value="{value}"]').click()

    def reset(self) -> None:
        self.root.locator("button.ax-reset").click()


def figures(page) -> list[Figure]:
    ids = page.evaluate("() => Array.from(document.querySelectorAll('.attnlib-explorer')).map(e => e.id)")
    return [Figure(page, i) for i in ids]


def drive(browser, url: str, is_local, label: str, screenshots_dir=None) -> list[str]:
    """Open ``url``, check and move every control of every live figure; returns the problems found."""
    context, page, blocked, errors = open_page(browser, url, is_local)
    problems = []
    try:
        for fig in figures(page):
            state = fig.state()
            assert state == fig.data["state"], f"{fig.kind}: starts at {state}, not at its payload's state"
            for name, spec in fig.specs.items():  # every slider shows its default, exactly
                box = fig.control(name)
                if spec["kind"] in ("float", "int") and box.is_visible():
                    shown = box.locator("output").text_content()
                    if float(shown) != fig.data["state"][name]:
                        problems.append(f"{fig.kind}: slider {name} shows {shown}, default {fig.data['state'][name]}")
            problems += readout_problems(fig.kind, state, fig.data["fixed"], fig.readout())
            shoot = screenshots_dir is not None and fig.kind == "spectrum"
            if shoot:
                fig.root.screenshot(path=str(screenshots_dir / "explorer-spectrum-before.png"))
            for name in fig.specs:
                before_state, before_pixels = fig.state(), fig.pixels()
                fig.move(name)
                after = fig.state()
                if after[name] == before_state[name]:
                    problems.append(f"{fig.kind}: moving {name} left it at {after[name]!r}")
                if fig.pixels() == before_pixels:
                    problems.append(f"{fig.kind}: moving {name} ({before_state[name]!r} -> {after[name]!r}) "
                                    "did not change the figure")
                problems += readout_problems(fig.kind, after, fig.data["fixed"], fig.readout())
            if shoot:  # gamma 0.25 -> 0.5: a simulated setting again, so a histogram is drawn
                fig.reset()
                slider = fig.control("gamma").locator("input[type=range]")
                for _ in range(25):
                    slider.press("ArrowRight")
                assert fig.state()["gamma"] == 0.5
                fig.root.screenshot(path=str(screenshots_dir / "explorer-spectrum-after.png"))
            fig.reset()
            first = next((n for n, spec in fig.specs.items()
                          if spec["kind"] in ("float", "int") and fig.control(n).is_visible()), None)
            if first is not None:  # drag a slider along DRAG_STEPS steps and back
                slider = fig.control(first).locator("input[type=range]")
                for key in ["ArrowRight"] * DRAG_STEPS + ["ArrowLeft"] * DRAG_STEPS:
                    slider.press(key)
            else:  # no slider: go through the choices of the first control a few times
                name, spec = next(iter(fig.specs.items()))
                for value in [v for v, _ in spec["options"]] * 4:
                    fig.set_choice(name, value)
            problems += readout_problems(fig.kind, fig.state(), fig.data["fixed"], fig.readout())
        for item in page.evaluate(TIMINGS_JS):
            key = f"{label}#{item['kind']}"
            TIMINGS[key if key not in TIMINGS else f"{key}-{item['id']}"] = item["timings"]
    finally:
        context.close()
    if blocked:
        problems.append(f"non-local requests: {blocked}")
    if errors:
        problems.append(f"console errors: {errors}")
    return problems


@pytest.mark.parametrize("page_path", PAGES)
def test_every_control_moves_the_figure_and_the_readout_follows_attnlib(page_path, base_url, browser,
                                                                        screenshots_dir):
    shots = screenshots_dir if page_path == next((p for p in PAGES if "explore" in p), None) else None
    problems = drive(browser, base_url + page_path, lambda u: u.startswith(base_url), page_path, shots)
    assert not problems, f"{page_path}:\n  " + "\n  ".join(problems)


def test_every_kind_in_a_page_of_its_own(html_root, browser, tmp_path):
    """All seven kinds (also those meant for chapters that do not embed them yet), in one page opened from
    file://, loading the scripts and stylesheet of the build."""
    from attnlib import webexplorer

    static = (html_root / "_static").resolve().as_uri()
    head = "".join([f'<link rel="stylesheet" href="{static}/{live_explorers.STYLESHEET}">']
                   + [f'<script defer src="{static}/{name}"></script>' for name in live_explorers.SCRIPTS])
    body = "".join(f"<h2>{kind}</h2>{webexplorer.embed(kind)._repr_html_()}" for kind in webexplorer.KINDS)
    page = tmp_path / "kinds.html"
    page.write_text(f'<!doctype html><html><head><meta charset="utf-8">{head}</head>'
                    f'<body style="width:760px">{body}</body></html>', encoding="utf-8")
    problems = drive(browser, page.as_uri(), lambda u: u.startswith(("file:", "data:")), "every-kind")
    assert not problems, "every kind:\n  " + "\n  ".join(problems)


def test_explorers_work_from_the_file_system(browser):
    """Opened as a file (no server): the scripts load as classic scripts, a slider redraws the figure."""
    if not PAGES:
        pytest.skip("no page with a live explorer in the build")
    root = HTML.resolve().as_uri() + "/"
    context, page, blocked, errors = open_page(browser, root + PAGES[0], lambda u: u.startswith(("file:", "data:")))
    try:
        fig = figures(page)[0]
        name = next(n for n, s in fig.specs.items() if s["kind"] in ("float", "int") and fig.control(n).is_visible())
        before = fig.pixels()
        fig.move(name)
        assert fig.pixels() != before
        assert not readout_problems(fig.kind, fig.state(), fig.data["fixed"], fig.readout())
        SUMMARY["file_url"] = {"page": PAGES[0], "figures": len(figures(page)), "moved": name}
    finally:
        context.close()
    assert not blocked and not errors, f"file://: blocked {blocked}, errors {errors}"


def test_report(html_root):
    """Redraw times, bytes added to the build, screenshots (written to _build/live-explorers-report.json)."""
    if not TIMINGS:
        pytest.skip("no redraws were timed (no explorer page, or the driving test did not run)")
    every = [t for values in TIMINGS.values() for t in values]
    q = statistics.quantiles(every, n=20, method="inclusive")  # q[18] is the 95th percentile

    def stats(values):
        return {"redraws": len(values), "median_ms": round(statistics.median(values), 3),
                "p95_ms": round(statistics.quantiles(values, n=20, method="inclusive")[18], 3),
                "max_ms": round(max(values), 3)}

    assets = {name: (html_root / "_static" / name).stat().st_size
              for name in (*live_explorers.SCRIPTS, live_explorers.STYLESHEET)}
    payload = {}
    for page in PAGES:
        text = (html_root / page).read_text(encoding="utf-8")
        payload[page] = sum(len(block.split("</script>", 1)[0].encode("utf-8"))
                            for block in text.split('class="attnlib-explorer-data">')[1:])
    report = {
        "redraw": {"all": {"redraws": len(every), "median_ms": round(statistics.median(every), 3),
                           "p95_ms": round(q[18], 3), "max_ms": round(max(every), 3)},
                   **{key: stats(values) for key, values in sorted(TIMINGS.items())}},
        "bytes_added": {"static_assets": assets, "static_total": sum(assets.values()),
                        "inline_json_per_page": payload, "total": sum(assets.values()) + sum(payload.values())},
        "screenshots": sorted(str(p.relative_to(REPO)) for p in SCREENSHOTS.glob("explorer-*.png")),
        **SUMMARY,
    }
    REPORT.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"\nlive explorers: {len(every)} redraws, median {report['redraw']['all']['median_ms']} ms, "
          f"p95 {report['redraw']['all']['p95_ms']} ms; {report['bytes_added']['total']} bytes added; {REPORT}")
