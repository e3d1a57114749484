"""Accessibility of a page open in the browser: axe-core in light mode and in dark mode, and the edition in the
footer (used by tests/browser/test_book_in_browser.py, which opens every page once for all its checks: the
audit leaves the page as it found it, in light mode, for the reading checks that follow it).

* **axe-core** (pinned in package.json, run from ``node_modules/axe-core/axe.min.js``, never a CDN) finds no
  serious or critical violation, with the theme in light mode (every rule) and in dark mode (the rules that
  read colours; dark mode is set as the theme's colour-mode button sets it, and checked on ``<html
  data-theme>``). Every violation found, of any impact, is written to ``_build/accessibility-report.json``;
  the test fails on the serious and critical ones, naming rule, mode and the first elements.
* **The footer** gives the version of pyproject.toml (read by ``_ext/edition.py``), a commit and a date; in a
  build without the PDF (``make book``) it says how to make it, and no link leads to the missing PDF.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import re

from .conftest import BOUNDED_WAITS_JS, REPO, SCREENSHOTS

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
REPORT = SCREENSHOTS.parent / "accessibility-report.json"  # next to the other browser reports
FAILING_IMPACTS = ("serious", "critical")
MODES = ("light", "dark")

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
SWITCH_JS = """async (mode) => {""" + BOUNDED_WAITS_JS + """
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
  await frame(); await frame();
}"""
# After the audit: the page's transitions back on (SWITCH_JS turned them off).
RESTORE_JS = "() => { const style = document.getElementById('attn-no-transitions'); if (style) style.remove(); }"
FOOTER_JS = "() => (document.querySelector('.attnlib-edition') || {}).innerText || ''"
FOUND: dict[str, dict[str, list]] = {}  # page -> mode -> violations (all impacts)


def write_report() -> None:
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


def audit(page, page_path: str) -> list[str]:
    """The problems of the open ``page`` (loaded in light mode): axe's serious and critical violations in light
    and then dark mode, and a footer without the edition. Leaves the page as it found it: in the mode it was
    in (as the colour-mode button sets it), with its transitions on (the reading checks go on on the page)."""
    problems = []
    page.add_script_tag(path=str(AXE))
    loaded = page.evaluate("() => document.documentElement.dataset.theme")
    try:
        for mode in MODES:
            page.evaluate(SWITCH_JS, mode)
            theme = page.evaluate("() => document.documentElement.dataset.theme")
            if theme != mode:
                return [f"the theme did not switch to {mode} mode (data-theme={theme!r})"]
            violations = json.loads(page.evaluate(AXE_JS, None if mode == MODES[0] else list(COLOUR_RULES)))
            FOUND.setdefault(page_path, {})[mode] = violations
            problems += [f"{mode}: {v['impact']} {v['id']} on {v['nodes']} nodes, e.g. {v['targets']}"
                         for v in violations if v["impact"] in FAILING_IMPACTS]
    finally:
        page.evaluate(SWITCH_JS, loaded)
        page.evaluate(RESTORE_JS)
    footer = page.evaluate(FOOTER_JS)
    version = edition.book_version()
    if not re.search(rf"Version {re.escape(version)}, commit \S+, built \d{{4}}-\d{{2}}-\d{{2}}", footer):
        problems.append(f"the footer should give version {version}, a commit and a date: {footer!r}")
    write_report()
    return problems


def pdf_links(links: list[str], footer: str | None, html_root) -> list[str]:
    """No dead link whichever of ``make book`` and ``make pdf`` ran first (issue 35): a build without the PDF
    links none and its footer says how to make it; after ``make pdf`` the links to the PDF are internal links,
    resolved with the others by the caller."""
    if (html_root / edition.PDF_NAME).is_file():
        return []
    to_pdf = sorted({u for u in links if edition.PDF_NAME in u})
    footer = " ".join((footer or "").split())
    return ([f"links to a PDF the build does not have: {to_pdf}"] if to_pdf else []) + (
        [] if "run make pdf" in footer else [f"the footer of a build without the PDF should say 'run make pdf': "
                                             f"{footer!r}"])
