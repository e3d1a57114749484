"""The built book in headless Chromium with the network cut off: every page opened once, for all its checks.

Every page of the built HTML (chapters discovered from ``_toc.yml`` and from the files in ``_build/html``, so new
chapters are picked up without editing this test) is served from 127.0.0.1 and loaded once, at 1280 x 900, by
``test_page_renders_offline``. On that one open page, in this order:

1. the offline checks, on the page as loaded (offline.py): no request off the local server, every local request
   served, MathJax typeset without TeX errors, every image loaded, no console error, every internal link and
   fragment resolving, no unrendered Markdown, the footer's authors and year, no link to another project's
   repository, no dead link to a PDF the build does not have;
2. on a page of ``_toc.yml``, the reading checks at 1280 px (reading_checks.py: equations, stray ``$`` and raw
   TeX, numbered captions, figure text, folded proofs, visible code, the answers box and its contrast, the
   introduction's first screen; an API page's height), as loaded;
3. the accessibility audit (accessibility.py): axe-core finds no serious or critical violation in light and in
   dark mode, and the footer gives the edition; it leaves the page in light mode, as it found it;
4. on a page of ``_toc.yml``, the page resized in place to 390 x 844 and the phone checks (reading_checks.py).

The offline, accessibility and edition problems fail ``test_page_renders_offline``; the reading problems, recorded
in ``_build/reading-report.json``, fail ``test_page_reads_as_a_book`` (the introduction, the primer and the
numbered pages) or ``test_page_reads_on_a_phone`` (the other pages of ``_toc.yml``), which run after the page
tests of their class. The pages are in four classes, each a unit of work under ``--dist loadscope`` (``make
test``), defined longest first: Part II and the derivation pages (with their ``PAGE_BUDGET`` test), the API pages,
the main line (the introduction, the primer and Part I, with the ``SCREEN_BUDGET`` test, which sums their screens,
the test that their display equations fit a phone, and the example screenshots of the model chapter), and the
other pages. A class runs on one worker, its page tests (inherited from ``PageTests``) first and then its own in
the order they are defined, so each reading and budget test sees the measurements of its whole class.

With ``ATTNLIB_FULL_SCREENSHOTS=1``, a full-page screenshot of the pages that are not numbered chapters at 1280 px
(``_build/screenshots/<page>.png``; the reading checks save the pages they read at 1280 and 390 px).

Besides: the root ``index.html`` opened from the file system (``file://``, no server) redirects and renders
the same way, and MathJax's accessibility features (menu: explorer, speech) load entirely from the build.
Run with ``make browser-test`` (after ``make book``), or as the last step of ``make test``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from . import accessibility
from . import reading_checks as rc
from .conftest import ENABLED, FULL_SCREENSHOTS, READING
from .offline import built_pages, chapter_documents, offline_problems, toc_documents, visit

if not ENABLED:
    pytest.skip("browser test of the built book: runs after the build, via `make test` or `make browser-test` "
                "(ATTNLIB_BROWSER_TEST=1)", allow_module_level=True)

PAGES = built_pages()
CHAPTERS = set(chapter_documents())  # their full screenshots are the reading checks'
READ = set(rc.CHAPTER_PAGES) | set(rc.OTHER_PAGES)  # the pages of _toc.yml
# The pages of each class (a unit of work): every built page is in one.
MAIN_LINE = [f"{doc}.html" for doc in rc.MAIN_LINE]
PART_TWO = [f"{doc}.html" for doc in rc.PART_TWO]
API = [f"{doc}.html" for doc in rc.OTHER_PAGES if rc.is_api(doc)]
OTHERS = [page for page in PAGES if page not in MAIN_LINE + PART_TWO + API]


def check_page(page_path, html_root, base_url, browser, screenshots_dir):
    """Open ``page_path`` once: the offline measures, then the reading checks at 1280 px, the audit, and the
    reading checks at 390 px (the reading checks on the pages of ``_toc.yml`` only)."""
    doc = page_path.removesuffix(".html")
    shot = screenshots_dir / f"{doc}.png" if FULL_SCREENSHOTS and doc not in CHAPTERS else None

    def audit(page):
        return accessibility.audit(page, page_path)  # axe in both modes, the edition

    def on_open(page):
        if shot is not None:
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=True)
        return rc.read(page, doc, screenshots_dir, between=audit) if doc in READ else audit(page)

    v = visit(browser, base_url + page_path, lambda url: url.startswith(base_url), then=on_open)
    problems = offline_problems(v, page_path, base_url, html_root, shot)
    assert not problems, f"{page_path}:\n  " + "\n  ".join(problems)


def reads_as_a_book(doc: str) -> None:
    by_width = READING.get(doc, {})
    if not {"1280", "390"} <= set(by_width):
        pytest.fail(f"{doc} was not read: its page did not open (test_page_renders_offline[{doc}.html])")
    report = [f"{doc} at {w} px: {p}" for w in ("1280", "390") for p in by_width[w]["problems"]]
    assert not report, "\n  ".join(["what a reader trips on:"] + report)


def reads_on_a_phone(doc: str) -> None:
    measured = READING.get(doc, {}).get("390")
    if measured is None:
        pytest.fail(f"{doc} was not read: its page did not open (test_page_renders_offline[{doc}.html])")
    problems = measured["problems"]
    assert not problems, f"{doc} on a phone:\n  " + "\n  ".join(problems)


class PageTests:
    """The pages of ``pages``, each opened once for all its checks (``check_page``); a subclass adds the test of
    their reading (recorded on that visit), which pytest runs after the page tests: the base's tests come first."""

    pages: list[str] = []

    def test_page_renders_offline(self, page_path, html_root, base_url, browser, screenshots_dir):
        check_page(page_path, html_root, base_url, browser, screenshots_dir)


class ChapterTests(PageTests):
    def test_page_reads_as_a_book(self, doc):
        reads_as_a_book(doc)


class OtherPageTests(PageTests):
    def test_page_reads_on_a_phone(self, doc):
        reads_on_a_phone(doc)


def pytest_generate_tests(metafunc):
    """A class's tests of a page (``page_path``) or of its reading (``doc``) run on the class's ``pages``."""
    if metafunc.cls is not None and issubclass(metafunc.cls, PageTests):
        if "page_path" in metafunc.fixturenames:
            metafunc.parametrize("page_path", metafunc.cls.pages)
        if "doc" in metafunc.fixturenames:
            metafunc.parametrize("doc", [p.removesuffix(".html") for p in metafunc.cls.pages
                                         if p.removesuffix(".html") in READ])


class TestPartTwoAndDerivationPages(ChapterTests):
    pages = PART_TWO

    def test_part_two_and_derivation_pages_fit_their_budget(self):
        """Each page of Part II and each derivation page within ``PAGE_BUDGET`` screens at 1280 x 900."""
        measured = {doc: READING.get(doc, {}).get("1280", {}).get("height") for doc in rc.PART_TWO}
        if any(h is None for h in measured.values()):
            pytest.skip("pages not measured in this run")
        over = {doc: round(h / rc.SCREEN, 1) for doc, h in measured.items() if h / rc.SCREEN > rc.PAGE_BUDGET}
        assert len(measured) >= 7 and not over, f"pages over {rc.PAGE_BUDGET} screens at 1280 x 900: {over}"


class TestApiPages(OtherPageTests):
    pages = API


class TestMainLine(ChapterTests):
    pages = MAIN_LINE

    # The main line fits a phone: no visible display equation scrolls.
    def test_main_line_equations_fit_a_phone(self, doc):
        """No display equation of the introduction, the primer or Part I is wider than its column at 390 px
        (outside folded proofs)."""
        measured = READING.get(doc, {}).get("390")
        if measured is None:
            pytest.skip(f"{doc} not measured in this run")
        offenders = measured["too_wide_equations"]
        assert not offenders, f"{doc}: {len(offenders)} display equation(s) wider than the column at 390 px:\n  " + \
            "\n  ".join(offenders)

    def test_introduction_and_part_one_fit_the_budget(self):
        """The screens of the main line's pages, measured by this class's page tests, summed."""
        measured = {doc: READING.get(doc, {}).get("1280", {}).get("height") for doc in rc.MAIN_LINE}
        missing = [doc for doc, h in measured.items() if h is None]
        if missing:
            pytest.skip(f"pages not measured in this run: {missing}")
        screens = {doc: h / rc.SCREEN for doc, h in measured.items()}
        total = sum(screens.values())
        table = "\n  ".join(f"{doc:<30} {s:5.1f}" for doc, s in screens.items())
        assert total <= rc.SCREEN_BUDGET, (f"the introduction, the primer and Part I take {total:.1f} screens at "
                                           f"1280 x 900, more than {rc.SCREEN_BUDGET}:\n  {table}")

    def test_example_screenshots(self):
        """Element screenshots of the reading apparatus, from the model chapter at 1280 px (CI artifacts):
        a folded code cell with its toggle, a captioned numbered figure, a proposition block and an exercise."""
        if rc.EXAMPLES_PAGE not in READING:
            pytest.fail(f"{rc.EXAMPLES_PAGE} was not read: its page did not open")
        assert not rc.MISSING_EXAMPLES, f"elements not found on the model chapter: {rc.MISSING_EXAMPLES}"


class TestOtherPages(OtherPageTests):
    pages = OTHERS


def test_every_toc_document_was_built(html_root):
    missing = [doc for doc in toc_documents() if not (html_root / f"{doc}.html").is_file()]
    assert not missing, f"documents in _toc.yml without a built page: {missing}"
    assert PAGES, "no pages found in the build"
    redirect = (html_root / "index.html").read_text(encoding="utf-8")
    root = toc_documents()[0]
    assert f"url={root}.html" in redirect, "index.html does not redirect to the toc root"
    in_classes = MAIN_LINE + PART_TWO + API + OTHERS
    assert len(in_classes) == len(set(in_classes)) and set(PAGES) <= set(in_classes), "a page in no class or two"


def test_book_opens_from_the_file_system(html_root, browser):
    """`open _build/html/index.html` (file://, no server) also renders: redirect, math, fonts, no errors."""
    root = html_root.resolve().as_uri() + "/"
    v = visit(browser, root + "index.html", lambda url: url.startswith(root) or url.startswith("data:"),
              redirect_to=f"{root}{toc_documents()[0]}.html")
    problems = v.problems()
    if not v.has_math_markup:
        problems.append("the root page (redirect target) was expected to contain math")
    assert not problems, "file:// " + "\n  ".join(problems)


def test_mathjax_accessibility_works_offline(base_url, browser):
    """MathJax's menu options load more of MathJax (explorer, speech rules in every menu language): all of
    it is served by the build. Turn the explorer and speech on, as a reader would in the menu."""
    settings = "localStorage.setItem('MathJax-Menu-Settings', JSON.stringify({explorer: true, speech: true}))"
    root = toc_documents()[0]
    v = visit(browser, f"{base_url}{root}.html", lambda url: url.startswith(base_url), init_script=settings)
    loaded = {urlsplit(u).path.rsplit("/", 1)[-1] for u in v.requested}
    problems = v.problems()
    missing = {"explorer.js", "sre.js", "en.json"} - loaded
    if missing:
        problems.append(f"the accessibility components were not loaded: {sorted(missing)}")
    assert not problems, "\n  ".join(problems)
