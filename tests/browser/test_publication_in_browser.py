"""The published book: its pinned accessibility checker, printable, linking its PDF.

Every page's accessibility (axe-core in light and dark mode) and edition footer are checked where the page is
opened for all its checks, in test_book_in_browser.py (with tests/browser/accessibility.py). Here: axe-core is
the pinned one; on the introduction, in print media the sidebars and header are hidden and the article takes the
page's width (the print stylesheet in ``_ext/style/book.css``); and its link to the PDF, opened from the file
system (``file://``), names a PDF that exists in the build (after ``make pdf``; skipped on the build of ``make book``).
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from .accessibility import AXE, edition
from .conftest import ENABLED, HTML, REPO

if not ENABLED:
    pytest.skip("browser test of the built book (ATTNLIB_BROWSER_TEST=1, after the build)", allow_module_level=True)

TIMEOUT_MS = 120_000

PRINT_JS = """() => {
  const shown = s => { const e = document.querySelector(s); return !!e && getComputedStyle(e).display !== 'none'; };
  const article = document.querySelector('.bd-article-container') || document.querySelector('main');
  return JSON.stringify({sidebar: shown('.bd-sidebar-primary'), toc: shown('.bd-sidebar-secondary'),
    header: shown('header.bd-header'), width: article.getBoundingClientRect().width,
    page: document.documentElement.clientWidth});
}"""


def _open(browser, base_url: str, page_path: str, mode: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=mode)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base_url)
                  or route.request.url.startswith("data:") else route.abort())
    page = context.new_page()
    page.goto(base_url + page_path, wait_until="load", timeout=TIMEOUT_MS)
    return context, page


def test_axe_is_vendored():
    assert AXE.is_file(), f"{AXE} missing: run `npm ci` (make install)"
    pinned = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["devDependencies"]["axe-core"]
    installed = json.loads((AXE.parent / "package.json").read_text(encoding="utf-8"))["version"]
    assert installed == pinned


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
    if not (HTML / edition.PDF_NAME).is_file():
        pytest.skip("this build has no PDF (the build of `make book`; `make pdf` makes one and links it)")
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
