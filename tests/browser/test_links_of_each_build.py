"""No dead link in a built book, whichever of ``make book`` and ``make pdf`` ran first (issue 35).

The HTML links the PDF edition only if the PDF exists when the HTML is built (``_ext/edition.py``). ``make test``
runs this file on the build as ``make book`` makes it on a fresh clone (no PDF yet: ``ATTNLIB_BUILD=book``):
every page is opened in Chromium, every internal link resolves, and no link leads to the PDF, while the footer
says how to make it. The full browser stage then checks the build with the PDF (``make pdf`` rebuilds the HTML),
where every page links it and the link resolves (``test_book_in_browser.py``).
"""

import os

import pytest

from .test_book_in_browser import PAGES, resolve_internal

pytestmark = pytest.mark.skipif(os.environ.get("ATTNLIB_BUILD") != "book",
                                reason="the build of `make book` alone is checked when ATTNLIB_BUILD=book")

PDF_NAME = "how-does-attention-help.pdf"


def test_the_build_of_make_book_alone_has_no_dead_link(html_root, base_url, browser):
    assert not (html_root / PDF_NAME).exists(), "this check wants the build of `make book` alone, without the PDF"
    context = browser.new_context(java_script_enabled=False)  # the links are in the HTML; nothing else loads
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base_url)
                  and route.request.resource_type == "document" else route.abort())
    problems = []
    try:
        page = context.new_page()
        for path in PAGES:
            page.goto(base_url + path, wait_until="load")
            links = {u for u in page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
                     if u.startswith(base_url)}
            broken = [p for p in (resolve_internal(u, base_url, html_root) for u in sorted(links)) if p]
            to_pdf = sorted(u for u in links if PDF_NAME in u)
            footer = " ".join((page.text_content(".attnlib-edition") or "").split())
            if broken or to_pdf or "run make pdf" not in footer:
                problems.append(f"{path}: broken {broken}, links to the PDF {to_pdf}, footer {footer!r}")
    finally:
        context.close()
    assert len(PAGES) > 20 and not problems, "\n".join(problems)
