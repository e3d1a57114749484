"""The live explorers of the built book, driven in headless Chromium like a reader would.

Every page of ``_build/html`` holding ``attnlib.views.webexplorer`` blocks is opened with the network cut off (from
the local server, and once from ``file://``); every kind is embedded by a page (tests/test_webexplorer.py), so
every kind is checked. For every live figure:

* it starts (``data-ready``), every control shows its default exactly, and no console error appears;
* every control is moved once (a slider by one step with the keyboard, a dropdown or toggle to another value,
  a checkbox flipped; a control hidden in the current state is first revealed by the control it depends on):
  the figure's pixels change, the state follows, and every number of the read-out equals attnlib's value for
  the new state (relative difference <= 1e-9, computed here in Python with attnlib) and is printed as attnlib's
  explorers print it (3 significant digits);
* a slider is then dragged along 10 steps and back to time the redraws.

On one page the theme's colour-mode switch is pressed: every figure redraws in dark colours (and back), with
readable contrast.

Redraw times (``performance.now()`` around each redraw, in the page) are reported, not asserted, in
``_build/live-explorers-report.json``, with the bytes the explorers add to the build; screenshots of the
spectrum explorer before and after a slider move are saved under ``_build/screenshots/``.
"""

from __future__ import annotations

import json
import re
import statistics
import sys

import pytest

from .conftest import ENABLED, HTML, REPO, SCREENSHOTS
from .live_readout import readout_problems

if not ENABLED:
    pytest.skip("browser test of the built book (ATTNLIB_BROWSER_TEST=1)", allow_module_level=True)

sys.path.insert(0, str(REPO / "_ext"))
import live_explorers  # noqa: E402

REPORT = SCREENSHOTS.parent / "live-explorers-report.json"
DRAG_STEPS = 10  # steps of the timed drag, there and back: ~20 redraws a figure, ~200 a run (reported only)
TIMINGS: dict[str, list[float]] = {}
SUMMARY: dict[str, object] = {}


def explorer_pages() -> list[str]:
    if not HTML.exists():
        return []
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
                  if p.relative_to(HTML).parts[0] != "_static"
                  and live_explorers.has_explorer(p.read_text(encoding="utf-8", errors="replace")))


PAGES = explorer_pages()


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


THEME_JS = """
() => ({theme: document.documentElement.dataset.theme, page: getComputedStyle(document.body).backgroundColor,
  figures: Array.from(document.querySelectorAll('.attnlib-explorer')).map(e => ({
    theme: e.dataset.theme, redraws: Number(e.dataset.redraws),
    paper: Array.from(e.querySelector('canvas').getContext('2d').getImageData(1, 1, 1, 1).data).slice(0, 3),
    output: getComputedStyle(e.closest('div.text_html') || e).backgroundColor,
    text: getComputedStyle(e.querySelector('table.ax-readout td')).color,
    button: [getComputedStyle(e.querySelector('button.ax-reset')).color,
             getComputedStyle(e.querySelector('button.ax-reset')).backgroundColor]}))})
"""


def _luminance(css: str) -> float:
    """Relative luminance (WCAG) of a CSS rgb()/rgba() colour."""
    r, g, b = (float(v) / 255 for v in re.findall(r"[\d.]+", css)[:3])
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_figures_follow_the_dark_theme(base_url, browser, screenshots_dir):
    """The theme's colour-mode switch (pydata-sphinx-theme: data-theme on <html>) redraws every live figure of a
    page in dark colours and back: the canvases' paper turns dark, the output area takes the page's background
    instead of the theme's light one for HTML outputs, and the read-out and buttons keep a contrast of 4.5:1."""
    page_path = next((p for p in PAGES if "explore" in p), PAGES[0] if PAGES else None)
    if page_path is None:
        pytest.skip("no page with a live explorer in the build")
    context, page, blocked, errors = open_page(browser, base_url + page_path, lambda u: u.startswith(base_url))
    try:
        seen = {}
        for mode in ("dark", "light"):
            before = page.evaluate(THEME_JS)
            for _ in range(3):  # the switch cycles light -> dark -> auto (auto is light here)
                if page.evaluate("document.documentElement.dataset.theme") == mode:
                    break
                page.locator(".theme-switch-button").first.click()
            page.wait_for_function(f"() => Array.from(document.querySelectorAll('.attnlib-explorer'))"
                                   f".every(e => e.dataset.theme === '{mode}')")
            seen[mode] = now = page.evaluate(THEME_JS)
            assert now["theme"] == mode
            for old, fig in zip(before["figures"], now["figures"]):
                assert fig["redraws"] > old["redraws"], f"{mode}: a figure did not redraw"
                assert (max(fig["paper"]) < 40) if mode == "dark" else (min(fig["paper"]) > 240), (mode, fig)
                assert _contrast(fig["text"], now["page"]) >= 4.5, (mode, fig["text"], now["page"])
                assert _contrast(*fig["button"]) >= 4.5, (mode, fig["button"])
                if mode == "dark":
                    assert fig["output"] in ("rgba(0, 0, 0, 0)", "transparent"), fig["output"]
            page.locator(".attnlib-explorer").first.screenshot(path=str(screenshots_dir / f"explorer-{mode}.png"))
        SUMMARY["dark_mode"] = {"page": page_path, "figures": len(seen["dark"]["figures"])}
    finally:
        context.close()
    assert not blocked and not errors, f"blocked {blocked}, errors {errors}"


def test_explorers_work_from_the_file_system(browser):
    """Opened as a file (no server): the scripts load as classic scripts, a slider redraws the figure."""
    if not PAGES:
        pytest.skip("no page with a live explorer in the build")
    root = HTML.resolve().as_uri() + "/"
    smallest = min(PAGES, key=lambda p: (HTML / p).stat().st_size)  # the file-system path, not the page, is tested
    context, page, blocked, errors = open_page(browser, root + smallest, lambda u: u.startswith(("file:", "data:")))
    try:
        fig = figures(page)[0]
        name = next(n for n, s in fig.specs.items() if s["kind"] in ("float", "int") and fig.control(n).is_visible())
        before = fig.pixels()
        fig.move(name)
        assert fig.pixels() != before
        assert not readout_problems(fig.kind, fig.state(), fig.data["fixed"], fig.readout())
        SUMMARY["file_url"] = {"page": smallest, "figures": len(figures(page)), "moved": name}
    finally:
        context.close()
    assert not blocked and not errors, f"file://: blocked {blocked}, errors {errors}"


def test_report(html_root):
    """Redraw times, bytes added to the build, screenshots (written to _build/live-explorers-report.json); the
    report is complete: every redraw timed, every asset and every explorer page's data non-empty."""
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
    assert all(t >= 0 and t == t for t in every), "a redraw time is negative or NaN"  # no speed is asserted
    assert all(size > 0 for size in assets.values()), f"an explorer asset is empty: {assets}"
    assert all(payload[page] > 0 for page in PAGES), f"a page embeds no explorer data: {payload}"
    assert json.loads(REPORT.read_text(encoding="utf-8"))["redraw"]["all"]["redraws"] == len(every)
    print(f"\nlive explorers: {len(every)} redraws, median {report['redraw']['all']['median_ms']} ms, "
          f"p95 {report['redraw']['all']['p95_ms']} ms; {report['bytes_added']['total']} bytes added; {REPORT}")
