"""Fixtures for the real-browser test of the built book (see test_book_in_browser.py).

The test needs the built HTML (``_build/html``), Debian's Chromium (``/usr/bin/chromium``) and Playwright for
Python (pinned in requirements.txt; it drives the system Chromium, no browser is downloaded). It runs only
when ``ATTNLIB_BROWSER_TEST=1`` (set by ``make test`` and ``make browser-test`` after the build), so that
``pytest tests/``, which runs *before* the build, skips it visibly instead of checking a stale build.

Full-page screenshots of every page (``_build/screenshots/``, at 1280 and 390 px) are taken only with
``ATTNLIB_FULL_SCREENSHOTS=1``: they check nothing and took about half of a page's time (18 of 21 s for the
API page). The first screen of the introduction, which the reading checks look at, is always saved, and so
are the reading checks' views of a phone (``_build/screenshots/phone/``: the introduction's lead figure,
Theorem 4.2, the API overview and the theory layer's page, at 390 px).

Under pytest-xdist each worker writes its measurements to ``<report>.<worker>.json``; the main process merges
them, page by page, into ``browser-report.json`` and ``reading-report.json`` and prints the summaries.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HTML = Path(os.environ.get("ATTNLIB_BOOK_HTML", REPO / "_build" / "html"))
SCREENSHOTS = Path(os.environ.get("ATTNLIB_SCREENSHOTS", REPO / "_build" / "screenshots"))
REPORT = SCREENSHOTS.parent / "browser-report.json"
CHROMIUM = os.environ.get("ATTNLIB_CHROMIUM", "/usr/bin/chromium")
ENABLED = os.environ.get("ATTNLIB_BROWSER_TEST") == "1"
FULL_SCREENSHOTS = os.environ.get("ATTNLIB_FULL_SCREENSHOTS") == "1"

# Headless Debian Chromium, as root (--no-sandbox), with the background services that phone home switched
# off, so that every request the test sees comes from the page itself.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]

# A waiter for the next frame, bounded: headless Chromium may stop producing frames for a page (a wait on
# requestAnimationFrame alone then never ends, with the renderer idle: seen once in make test). The checks read the
# layout directly (which forces it), so a frame that does not come costs one second, not the run. ``within`` bounds
# any other wait the same way (MathJax, fonts, image decoding, the end of an animation).
BOUNDED_WAITS_JS = """
  const within = (p, ms) => new Promise(r => { const t = setTimeout(r, ms);
    Promise.resolve(p).then(() => { clearTimeout(t); r(); }, () => { clearTimeout(t); r(); }); });
  const frame = () => within(new Promise(r => requestAnimationFrame(() => r())), 1000);
"""

RESULTS: dict[str, dict] = {}  # page -> measurements, written to REPORT and summarised at the end
READING: dict[str, dict] = {}  # chapter -> {width -> reading measurements}, written to READING_REPORT
READING_REPORT = SCREENSHOTS.parent / "reading-report.json"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


@pytest.fixture(scope="session")
def html_root() -> Path:
    if not (HTML / "index.html").exists():
        pytest.fail(f"{HTML}/index.html not found: build the book first (`make book`)")
    return HTML


@pytest.fixture(scope="session")
def base_url(html_root):
    """Serve the built book on 127.0.0.1 (a free port) for the whole session."""
    handler = functools.partial(_QuietHandler, directory=str(html_root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`apt-get install chromium`; .ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)  # emptied once per run, by pytest_sessionstart
    return SCREENSHOTS


def _is_worker(config) -> bool:
    """True inside a pytest-xdist worker (``make test`` runs the test files two at a time)."""
    return hasattr(config, "workerinput")


def pytest_sessionstart(session):
    """Start from no screenshots and no reports: once, in the main process, before any worker starts."""
    if ENABLED and not _is_worker(session.config):
        shutil.rmtree(SCREENSHOTS, ignore_errors=True)
        for report in (REPORT, READING_REPORT):
            report.unlink(missing_ok=True)
            for part in _parts(report):
                part.unlink()


def _parts(report: Path) -> list[Path]:
    """The reports the workers of a parallel run wrote (``<name>.<worker>.json``), one per worker."""
    return sorted(report.parent.glob(f"{report.stem}.*.json"))


def _collected(results: dict, report: Path) -> dict:
    """This process's measurements, or, in the main process of a parallel run, what the workers wrote."""
    if results or not ENABLED or not report.exists():
        return results
    return json.loads(report.read_text(encoding="utf-8"))


def _write(results: dict, report: Path, session) -> None:
    """A worker writes its own part; the main process merges the parts (page by page) into ``report``."""
    report.parent.mkdir(parents=True, exist_ok=True)
    if _is_worker(session.config):
        if results:
            worker = session.config.workerinput["workerid"]
            report.with_name(f"{report.stem}.{worker}.json").write_text(json.dumps(results), encoding="utf-8")
        return
    merged = dict(results)
    for part in _parts(report):
        for page, value in json.loads(part.read_text(encoding="utf-8")).items():
            merged.setdefault(page, {}).update(value)
        part.unlink()
    if merged:
        report.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def pytest_sessionfinish(session, exitstatus):
    if ENABLED:
        _write(RESULTS, REPORT, session)
        _write(READING, READING_REPORT, session)


def pytest_terminal_summary(terminalreporter):
    reading = _collected(READING, READING_REPORT)
    results = _collected(RESULTS, REPORT)
    if reading:
        terminalreporter.section("pages as a book: at 1280 px and on a phone (390 px)")
        terminalreporter.write_line(f"{'page':<30} {'scr@1280':>8} {'scr@390':>7} {'width':>5} {'eq>col':>6} "
                                    f"{'widest':>6} {'fig px 390/1280':>15} {'explorers':>14} {'problems':>8}")
        for doc, by_width in sorted(reading.items()):
            wide, narrow = by_width.get("1280", {}), by_width.get("390", {})
            text = narrow.get("figure_text_px") or {}
            text = f"{text.get('390', '-')}/{text.get('1280', '-')}" if text else "-"
            explorers = ",".join(str(h) for h in narrow.get("explorer_heights", [])) or "-"
            problems = sum(len(r.get("problems", [])) for r in by_width.values())
            terminalreporter.write_line(
                f"{doc:<30} {wide.get('screens', '-'):>8} {narrow.get('screens', '-'):>7} "
                f"{narrow.get('page_width', '-'):>5} {len(narrow.get('too_wide_equations', [])):>6} "
                f"{narrow.get('widest_equation', '-'):>6} {text:>15} {explorers:>14} {problems:>8}")
    if not results:
        return
    tr = terminalreporter
    tr.section("book in the browser")
    tr.write_line(f"{'page':<32} {'math':>5} {'mjx':>5} {'img':>4} {'links':>6} {'blocked':>8} {'errors':>7}  screenshot")
    for page, r in sorted(results.items()):
        tr.write_line(
            f"{page:<32} {r['math_elements']:>5} {r['mjx_containers']:>5} {r['images']:>4} "
            f"{r['internal_links']:>6} {len(r['blocked_requests']):>8} {len(r['console_errors']):>7}  "
            f"{r['screenshot'] or '-'}"
        )
    blocked = sum(len(r["blocked_requests"]) for r in results.values())
    errors = sum(len(r["console_errors"]) for r in results.values())
    tr.write_line(f"{len(results)} pages; blocked non-local requests: {blocked}; console errors: {errors}; "
                  f"report: {REPORT.relative_to(REPO) if REPORT.is_relative_to(REPO) else REPORT}")
