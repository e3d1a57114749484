"""The pages that are not chapters read on a phone too; the API pages are short enough to read.

Every page of ``_toc.yml`` that test_reading_in_browser.py does not read (the "Start here" pages, the
verification page, the API pages and the references) is loaded once at 390 x 844 and held to the same phone
rules (``reading.phone_problems``: no page wider than the screen, no table or explorer that loses a column,
equations and code that scroll only with a cue, figure text of 8 px or more). An API page (``book/api*``) is
loaded at 1280 x 900 first: it must take at most ``API_SCREENS`` screens there (scrollHeight / 900); the
first screens of the API overview and of the theory layer's page at 390 px are saved as
``phone/api.390.png`` and ``phone/api_theory.390.png`` under ``_build/screenshots/``.

A file of its own, so that these pages are read on the other worker while the chapters are read on the first.
"""

from __future__ import annotations

import pytest

from .conftest import ENABLED, FULL_SCREENSHOTS, READING
from .reading import DESKTOP, PHONE, look, open_page, phone_problems, resize, shoot
from .test_reading_in_browser import PAGES as CHAPTER_PAGES, too_wide
from .test_book_in_browser import toc_documents

if not ENABLED:
    pytest.skip("browser test of the built book: runs after the build (ATTNLIB_BROWSER_TEST=1)",
                allow_module_level=True)

PAGES = [doc for doc in toc_documents() if doc not in CHAPTER_PAGES]
API_SCREENS = 30  # at 1280 x 900
SHOTS = {"book/api": "phone/api.390.png", "book/api_theory": "phone/api_theory.390.png"}


def is_api(doc: str) -> bool:
    return doc.split("/")[-1].startswith("api")


@pytest.mark.parametrize("doc", PAGES)
def test_page_reads_on_a_phone(doc, base_url, browser, screenshots_dir):
    problems = []
    context, page = open_page(browser, f"{base_url}{doc}.html", DESKTOP if is_api(doc) else PHONE)
    try:
        if is_api(doc):
            height = page.evaluate("() => document.documentElement.scrollHeight")
            READING.setdefault(doc, {})["1280"] = {"height": height, "screens": round(height / DESKTOP[1], 2)}
            if height / DESKTOP[1] > API_SCREENS:
                problems.append(f"{height / DESKTOP[1]:.1f} screens at 1280 x 900 (at most {API_SCREENS})")
            resize(page, PHONE)
        m = look(page)
        if doc in SHOTS:
            shoot(page, screenshots_dir / SHOTS[doc])
        if FULL_SCREENSHOTS:
            page.screenshot(path=str(screenshots_dir / f"{doc}.390.png"), full_page=True)
    finally:
        context.close()
    problems += phone_problems(m)
    READING.setdefault(doc, {})["390"] = {
        "height": m["height"], "screens": round(m["height"] / PHONE[1], 2), "page_width": m["pageWidth"],
        "tables": len(m["tables"]), "equations": len(m["equations"]), "images": len(m["images"]),
        "widest_equation": round(max((eq["width"] for eq in m["equations"]), default=0)),
        "too_wide_equations": too_wide(m),
        "explorer_heights": [round(e["height"]) for e in m["explorers"]], "problems": problems}
    assert not problems, f"{doc} on a phone:\n  " + "\n  ".join(problems)
