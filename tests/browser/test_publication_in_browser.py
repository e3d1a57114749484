"""The published book: accessible in light and dark mode, versioned on every page, printable, linking its PDF.

For every page of the built HTML (served from 127.0.0.1, network cut off as in test_book_in_browser.py):

* **axe-core** (pinned in package.json, run from ``node_modules/axe-core/axe.min.js``, never a CDN) finds no
  serious or critical violation, with the theme in light mode (every rule) and in dark mode (the rules that
  read colours; the page loads in light mode, dark mode is then set as the theme's colour-mode button sets it,
  and checked on ``<html data-theme>``). Every violation found, of any impact, is written to
  ``_build/accessibility-report.json``; the test fails on the serious and critical ones, naming rule, mode
  and the first elements.
* **The footer** gives the version of pyproject.toml (read by ``_ext/edition.py``), a commit and a date, and
  links the PDF.

Besides, on the introduction: in print media the sidebars and header are hidden and the article takes the
page's width (the print stylesheet in ``_ext/style/book.css``); and its link to the PDF, opened from the file
system (``file://``), names a PDF that exists in the build (``make pdf`` puts it there; ``make test`` runs it
before the browser tests).
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from .conftest import ENABLED, HTML, REPO, SCREENSHOTS

if not ENABLED:
    pytest.skip("browser test of the built book (ATTNLIB_BROWSER_TEST=1, after the build)", allow_module_level=True)

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
REPORT = SCREENSHOTS.parent / "accessibility-report.json"  # next to the other browser reports
FAILING_IMPACTS = ("serious", "critical")
MODES = ("light", "dark")
TIMEOUT_MS = 120_000
SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", ".doctrees"}

_spec = importlib.util.spec_from_file_location("edition", REPO / "_ext" / "edition.py")
edition = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(edition)

# MathJax done (when the page has it), then axe on the whole document; impacts and a few targets per rule.
# In dark mode only the rules that read colours run: the switch changes colours and nothing else, so every other
# rule gives what it gave in light mode (and costs a second the page).
COLOUR_RULES = ("color-contrast", "link-in-text-block")
AXE_JS = """async (rules) => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const only = rules ? {runOnly: {type: 'rule', values: rules}} : {};
  const r = await axe.run(document, {...only, resultTypes: ['violations']});
  return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 3).map(n => n.target.join(' '))})));
}"""
# What the theme's colour-mode button does (pydata-sphinx-theme): data-mode and data-theme on <html>, the
# stored choice, dark dropdown menus; with CSS transitions off, and two frames for the explorers' redraws.
SWITCH_JS = """async (mode) => {
  if (!document.getElementById('attn-no-transitions')) {  // measure the settled colours, not a transition
    const style = document.createElement('style');
    style.id = 'attn-no-transitions';
    style.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
    document.head.appendChild(style);
  }
  const html = document.documentElement;
  html.dataset.mode = mode; html.dataset.theme = mode;
  localStorage.setItem('mode', mode); localStorage.setItem('theme', mode);
  document.querySelectorAll('.dropdown-menu').forEach(e => e.classList.toggle('dropdown-menu-dark', mode === 'dark'));
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""
FOOTER_JS = "() => (document.querySelector('.attnlib-edition') || {}).innerText || ''"
PRINT_JS = """() => {
  const shown = s => { const e = document.querySelector(s); return !!e && getComputedStyle(e).display !== 'none'; };
  const article = document.querySelector('.bd-article-container') || document.querySelector('main');
  return JSON.stringify({sidebar: shown('.bd-sidebar-primary'), toc: shown('.bd-sidebar-secondary'),
    header: shown('header.bd-header'), width: article.getBoundingClientRect().width,
    page: document.documentElement.clientWidth});
}"""


def built_pages() -> list[str]:
    if not HTML.exists():
        return []
    return sorted(p.relative_to(HTML).as_posix() for p in HTML.rglob("*.html")
                  if p.relative_to(HTML).parts[0] not in SKIP_DIRS and p.relative_to(HTML).as_posix() != "index.html")


PAGES = built_pages()
FOUND: dict[str, dict[str, list]] = {}  # page -> mode -> violations (all impacts)


def _open(browser, base_url: str, page_path: str, mode: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base_url)
                  or route.request.url.startswith("data:") else route.abort())
    page = context.new_page()
    page.goto(base_url + page_path, wait_until="load", timeout=TIMEOUT_MS)
    return context, page


def _write_report() -> None:
    """Merge this worker's findings into the report: the pages' tests run on several workers (conftest.py),
    each adding its pages under a lock, so that none overwrites another's."""
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    with open(REPORT.with_suffix(".lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = json.loads(REPORT.read_text(encoding="utf-8")) if REPORT.is_file() else {}
        merged.update(FOUND)
        tmp = REPORT.with_suffix(".tmp")
        tmp.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(REPORT)


def test_axe_is_vendored():
    assert AXE.is_file(), f"{AXE} missing: run `npm ci` (make install)"
    pinned = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["devDependencies"]["axe-core"]
    installed = json.loads((AXE.parent / "package.json").read_text(encoding="utf-8"))["version"]
    assert installed == pinned


@pytest.mark.parametrize("page_path", PAGES)
def test_page_is_accessible_in_both_modes_and_shows_its_edition(browser, base_url, page_path):
    """One load in light mode, then the theme's own switch to dark mode (as its colour-mode button does)."""
    problems = []
    context, page = _open(browser, base_url, page_path, MODES[0])
    try:
        page.add_script_tag(path=str(AXE))
        for mode in MODES:
            page.evaluate(SWITCH_JS, mode)
            theme = page.evaluate("() => document.documentElement.dataset.theme")
            assert theme == mode, f"{page_path}: the theme did not switch to {mode} mode (data-theme={theme!r})"
            violations = json.loads(page.evaluate(AXE_JS, None if mode == MODES[0] else list(COLOUR_RULES)))
            FOUND.setdefault(page_path, {})[mode] = violations
            problems += [f"{mode}: {v['impact']} {v['id']} on {v['nodes']} nodes, e.g. {v['targets']}"
                         for v in violations if v["impact"] in FAILING_IMPACTS]
        footer = page.evaluate(FOOTER_JS)
    finally:
        context.close()
    version = edition.book_version()
    if not re.search(rf"Version {re.escape(version)}, commit \S+, built \d{{4}}-\d{{2}}-\d{{2}}", footer):
        problems.append(f"the footer should give version {version}, a commit and a date: {footer!r}")
    _write_report()
    assert not problems, f"{page_path}:\n" + "\n".join(problems)


def test_print_layout_is_one_full_width_column(browser, base_url):
    context, page = _open(browser, base_url, "book/intro.html", "light")
    try:
        page.emulate_media(media="print")
        layout = json.loads(page.evaluate(PRINT_JS))
    finally:
        context.close()
    assert not (layout["sidebar"] or layout["toc"] or layout["header"]), layout
    assert layout["width"] >= 0.9 * layout["page"], layout


def test_pdf_link_works_from_the_file_system(browser):
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto((HTML / "book" / "intro.html").as_uri(), wait_until="load", timeout=TIMEOUT_MS)
        hrefs = page.evaluate("() => Array.from(document.querySelectorAll('a')).map(a => a.href)"
                              ".filter(h => h.endsWith('.pdf'))")
    finally:
        context.close()
    assert hrefs, "the introduction links no PDF"
    for href in set(hrefs):
        assert urlsplit(href).scheme == "file"
        target = Path(unquote(urlsplit(href).path))
        assert target.name == edition.PDF_NAME and target.is_file(), f"{href}: no PDF there (run `make pdf`)"
        assert target.read_bytes()[:5] == b"%PDF-"
