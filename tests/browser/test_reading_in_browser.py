"""The built book reads as a book, at a desktop width (1280 px) and on a phone (390 px).

The introduction, the primer and every numbered page of ``_toc.yml`` (chapters 1-11 and the derivation pages)
are each loaded once, served from 127.0.0.1 with the network cut off as in test_book_in_browser.py, at 1280 x
900 and then, resized in place, at 390 x 844 (``reading.py``). The other pages are read at 390 px by
test_reading_other_pages.py, with the same phone rules.

At 1280 px:

* equations: no display equation is wider than its box (none scrolls);
* no stray ``$`` in the rendered prose (outside code, math and outputs), and no raw TeX in the page title,
  the sidebar or the table of contents;
* every image of the page is inside a ``<figure>`` with a numbered caption, is not shrunk by the browser,
  and its smallest text is at least 8 px tall as shown (its font size in points and its dpi are recorded by
  ``attnlib.views.rendering``: ``pt * dpi / 72 * shown / natural`` pixels);
* every proof is folded (a working toggle: see ``_ext/fold_proofs.py``), and no output shows as its Python
  repr (a Markdown table glued from another notebook renders: see ``_ext/glue_markdown.py``);
* the code a reader sees without opening a toggle holds no cell over 25 lines and no line over 88
  characters, and such lines do not overflow their box;
* the answer first: every Part I chapter (1-8) shows, right after its title and the italic line naming the
  paper's result, a box of class ``answers`` that starts on the first screen, and whose text has a contrast
  of at least 4.5:1 against its background in light and in dark mode;
* the introduction's first screen states alpha/kappa and lambda_max(R) and shows the top of the lead figure
  or of the model schematic.

At 390 px (``reading.phone_problems``): the page is no wider than the screen; a display equation wider than
its box scrolls in it with a visible cue and its number never sits over it; no table loses a column (it fits,
is stacked by ``_ext/style/book.js``, or scrolls in its box with a cue; an explorer's read-out always fits);
figure text is at least 8 px; code that scrolls sideways shows a cue; an explorer has its controls above a
plot no taller than the screen and is at most 1.5 screens tall. Besides, on the main line (the introduction,
the primer and Part I) no display equation is wider than its column at all
(:func:`test_main_line_equations_fit_a_phone`, one test per page, naming the equations that do not fit).

The screens of each page (scrollHeight / 900 at 1280 x 900) go to ``_build/reading-report.json``, and the
introduction, the primer and Part I together must fit in ``SCREEN_BUDGET`` screens, and each other numbered page
in ``PAGE_BUDGET``. Screenshots, in ``_build/screenshots/``:
the first screen of the introduction at both widths (``book/intro.first.1280.png``, ``book/intro.first.390.png``),
and at 390 px the lead figure of the introduction (``phone/intro-lead-figure.390.png``) and Theorem 4.2 with
its overlap formula (``phone/theorem-4.2.390.png``); with ``ATTNLIB_FULL_SCREENSHOTS=1``, full pages too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ENABLED, FULL_SCREENSHOTS, READING
from .reading import DESKTOP, DESKTOP_JS, PHONE, figure_text_problems, look, open_page, phone_problems, resize, shoot
from .test_book_in_browser import chapter_documents, toc_documents

if not ENABLED:
    pytest.skip("browser test of the built book: runs after the build (ATTNLIB_BROWSER_TEST=1)",
                allow_module_level=True)

INTRO = "book/intro"
PRIMER = "book/primer"
PAGES = [INTRO] + [doc for doc in (PRIMER,) if doc in toc_documents()] + chapter_documents()
PART_ONE = [doc for doc in PAGES if Path(doc).name[:2] in {f"{i:02d}" for i in range(1, 9)}]
MAIN_LINE = [doc for doc in PAGES if doc in (INTRO, PRIMER) or doc in PART_ONE]
SCREEN = DESKTOP[1]
SCREEN_BUDGET = 85  # screens at 1280 x 900 for the introduction, the primer and Part I together
PAGE_BUDGET = 15  # screens at 1280 x 900 for each page of Part II and each derivation page
PART_TWO = [doc for doc in PAGES if doc not in MAIN_LINE]
MIN_CONTRAST = 4.5
# Element screenshots at 390 px, for the closing note: page -> {file: selector}.
PHONE_SHOTS = {
    INTRO: {"phone/intro-lead-figure.390.png": "#fig-intro-lead"},
    "book/04_sample_spike": {"phone/theorem-4.2.390.png": "div.theorem:has(#equation-eq-smp-overlap)"},
}


def desktop_problems(doc: str, m: dict) -> list[str]:
    """Everything a reader would trip on at 1280 px."""
    problems = []
    for eq in m["equations"]:
        if eq["width"] > m["column"] + 1 or eq["width"] > eq["box"] + 1:
            problems.append(f"display equation scrolls at 1280 px ({eq['width']:.0f} px in {eq['box']:.0f}): "
                            f"{eq['text']}")
    for table in m["tables"]:
        if table["overflows"] and not (table["scrolls"] and table["cue"]):
            problems.append(f"table does not fit at 1280 px and shows no scroll cue: {table['text']!r}")
    problems += [f"proof shown open: {t!r}" for t in m["openProofs"]]
    if m["reprs"]:
        problems.append(f"{m['reprs']} output(s) shown as '<IPython.core.display... object>' instead of rendered")
    problems += [f"stray $ in the prose: {t!r}" for t in m["prose"]]
    problems += [f"raw TeX in a title or navigation entry: {t!r}" for t in m["rawTitles"]]
    for img in m["images"]:
        if not img["captioned"] or not img["numbered"]:
            problems.append(f"image without a numbered caption: {img['src']}")
        if img["shown"] + 1 < img["natural"]:
            problems.append(f"image shrunk at 1280 px ({img['natural']} -> {img['shown']:.0f} px): {img['src']}")
    for cell in m["code"]:
        if cell["lines"] > 25:
            problems.append(f"visible code cell of {cell['lines']} lines")
        if cell["longest"] > 88:
            problems.append(f"visible code line of {cell['longest']} characters")
        if cell["longest"] <= 88 and cell["overflow"] > 1:
            problems.append(f"a code line of {cell['longest']} characters overflows its box by {cell['overflow']} px")
    if doc in PART_ONE:
        box = m["answerBox"]
        if box is None:
            problems.append(f"the first block after the title is {m['first']!r}, not the answers box")
        else:
            if box["top"] > SCREEN:
                problems.append(f"the answers box starts below the first screen (at {box['top']:.0f} px)")
            for mode in ("light", "dark"):
                if box[mode] < MIN_CONTRAST:
                    problems.append(f"answers box text contrast {box[mode]:.2f}:1 in {mode} mode (< {MIN_CONTRAST})")
    if doc == INTRO:
        tex = " ".join(m["firstScreenMath"])
        if not ("\\alpha" in tex and "\\kappa" in tex and "\\lambda_{\\max}" in tex):
            problems.append("the first screen of the introduction does not state alpha/kappa <= lambda_max(R)")
        if m["figureTop"] is None or m["figureTop"] > SCREEN:
            problems.append(f"no figure starts on the first screen of the introduction (top at {m['figureTop']})")
    return problems


def too_wide(m: dict) -> list[str]:
    """The display equations wider than the column (those that must scroll), as '(number) text (width)'."""
    return [f"{eq['text']} ({eq['width']:.0f} px in {eq['box']:.0f})" for eq in m["equations"]
            if eq["width"] > eq["box"] + 1]


@pytest.mark.parametrize("doc", PAGES)
def test_page_reads_as_a_book(doc, base_url, browser, screenshots_dir):
    context, page = open_page(browser, f"{base_url}{doc}.html", DESKTOP)
    try:
        wide = page.evaluate(DESKTOP_JS)
        wide["height"] = page.evaluate("() => document.documentElement.scrollHeight")
        figures_wide = look(page)
        if doc == INTRO:
            shoot(page, screenshots_dir / f"{doc}.first.1280.png")
        if FULL_SCREENSHOTS:
            page.screenshot(path=str(screenshots_dir / f"{doc}.1280.png"), full_page=True)
        resize(page, PHONE)
        narrow = look(page)
        if doc == INTRO:
            shoot(page, screenshots_dir / f"{doc}.first.390.png")
        for name, selector in PHONE_SHOTS.get(doc, {}).items():
            shoot(page, screenshots_dir / name, selector)
        if FULL_SCREENSHOTS:
            page.screenshot(path=str(screenshots_dir / f"{doc}.390.png"), full_page=True)
    finally:
        context.close()
    problems = {"1280": desktop_problems(doc, wide) + figure_text_problems(figures_wide, "1280"),
                "390": phone_problems(narrow)}
    for width, m in (("1280", wide), ("390", narrow)):
        READING.setdefault(doc, {})[width] = {
            "equations": len(m["equations"]), "images": len(m["images"]),
            "visible_code_cells": len(m["code"]), "visible_code_lines": sum(c["lines"] for c in m["code"]),
            "height": m["height"], "screens": round(m["height"] / (SCREEN if width == "1280" else PHONE[1]), 2),
            "tables": len(m["tables"]), "problems": problems[width]}
    READING[doc]["1280"]["answers_contrast"] = wide["answerBox"] and {
        k: round(wide["answerBox"][k], 2) for k in ("light", "dark")}
    READING[doc]["390"].update(
        page_width=narrow["pageWidth"], too_wide_equations=too_wide(narrow),
        widest_equation=round(max((eq["width"] for eq in narrow["equations"]), default=0)),
        figure_text_px={w: min((round(i["textPx"], 1) for i in x["images"] if i["textPx"]), default="-")
                        for w, x in (("1280", figures_wide), ("390", narrow))},
        explorer_heights=[round(e["height"]) for e in narrow["explorers"]])
    report = [f"{doc} at {w} px: {p}" for w, ps in problems.items() for p in ps]
    assert not report, "\n  ".join(["what a reader trips on:"] + report)


# The main line (the introduction, the primer and Part I) fits a phone: no visible display equation scrolls.
@pytest.mark.parametrize("doc", MAIN_LINE)
def test_main_line_equations_fit_a_phone(doc):
    """Runs after the page tests of this file (same worker): no display equation of the introduction, the
    primer or Part I is wider than its column at 390 px (outside folded proofs)."""
    measured = READING.get(doc, {}).get("390")
    if measured is None:
        pytest.skip(f"{doc} not measured in this run")
    offenders = measured["too_wide_equations"]
    assert not offenders, f"{doc}: {len(offenders)} display equation(s) wider than the column at 390 px:\n  " + \
        "\n  ".join(offenders)


def test_introduction_and_part_one_fit_the_budget():
    """Runs after the page tests of this file (same worker): the screens they measured, summed."""
    measured = {doc: READING.get(doc, {}).get("1280", {}).get("height") for doc in MAIN_LINE}
    missing = [doc for doc, h in measured.items() if h is None]
    if missing:
        pytest.skip(f"pages not measured in this run: {missing}")
    screens = {doc: h / SCREEN for doc, h in measured.items()}
    total = sum(screens.values())
    table = "\n  ".join(f"{doc:<30} {s:5.1f}" for doc, s in screens.items())
    assert total <= SCREEN_BUDGET, (f"the introduction, the primer and Part I take {total:.1f} screens at "
                                    f"1280 x 900, more than {SCREEN_BUDGET}:\n  {table}")


def test_part_two_and_derivation_pages_fit_their_budget():
    """Each page of Part II and each derivation page within ``PAGE_BUDGET`` screens at 1280 x 900."""
    measured = {doc: READING.get(doc, {}).get("1280", {}).get("height") for doc in PART_TWO}
    if any(h is None for h in measured.values()):
        pytest.skip("pages not measured in this run")
    over = {doc: round(h / SCREEN, 1) for doc, h in measured.items() if h / SCREEN > PAGE_BUDGET}
    assert len(measured) >= 7 and not over, f"pages over {PAGE_BUDGET} screens at 1280 x 900: {over}"


def test_example_screenshots(base_url, browser, screenshots_dir):
    """Element screenshots of the reading apparatus, from the model chapter at 1280 px (CI artifacts):
    a folded code cell with its toggle, a captioned numbered figure, a proposition block and an exercise."""
    context, page = open_page(browser, f"{base_url}book/01_model.html", DESKTOP)
    out = screenshots_dir / "examples"
    targets = {
        "answers-box.png": "div.admonition.answers",
        "folded-code.png": "div.cell.tag_hide-input",
        "captioned-figure.png": "figure",
        "proposition-block.png": "div.proof.proposition, div.proposition",
        "exercise.png": "div.exercise",
    }
    missing = []
    try:
        for name, selector in targets.items():
            if page.query_selector(selector) is None:
                missing.append(f"{name}: {selector}")
            else:
                shoot(page, out / name, selector)
    finally:
        context.close()
    assert not missing, f"elements not found on the model chapter: {missing}"
