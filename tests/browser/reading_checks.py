"""The built book reads as a book, at a desktop width (1280 px) and on a phone (390 px): the reading checks of a
page open in the browser (``read``, called by test_book_in_browser.py, which opens every page once for all its
checks, served from 127.0.0.1 with the network cut off, at 1280 x 900).

The introduction, the primer and every numbered page of ``_toc.yml`` (chapters 1-11 and the derivation pages,
``CHAPTER_PAGES``) are read at 1280 x 900 and then, resized in place, at 390 x 844 (``reading.py``). The other
pages of ``_toc.yml`` (the "Start here" pages, the verification page, the API pages and the references,
``OTHER_PAGES``) are read at 390 x 844 only, resized in place too, and held to the same phone rules; an API page
(``book/api*``) must take at most ``API_SCREENS`` screens at 1280 x 900 (scrollHeight / 900).

At 1280 px (the chapters):

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

At 390 px, every page of ``_toc.yml`` (``reading.phone_problems``): the page is no wider than the screen; a
display equation wider than its box scrolls in it with a visible cue and its number never sits over it; no
table loses a column (it fits, is stacked by ``_ext/style/book.js``, or scrolls in its box with a cue; an
explorer's read-out always fits); figure text is at least 8 px; code that scrolls sideways shows a cue; an
explorer has its controls above a plot no taller than the screen and is at most 1.5 screens tall. Besides, on
the main line (the introduction, the primer and Part I) no display equation is wider than its column at all.

The screens of each page (scrollHeight / 900 at 1280 x 900) go to ``_build/reading-report.json`` (``READING``),
and the introduction, the primer and Part I together must fit in ``SCREEN_BUDGET`` screens, and each other
numbered page in ``PAGE_BUDGET``. Screenshots, in ``_build/screenshots/``: the first screen of the introduction
at both widths (``book/intro.first.1280.png``, ``book/intro.first.390.png``); at 390 px the lead figure of the
introduction (``phone/intro-lead-figure.390.png``), Theorem 4.2 with its overlap formula
(``phone/theorem-4.2.390.png``) and the first screens of the API overview and of the theory layer's page
(``phone/api.390.png``, ``phone/api_theory.390.png``); at 1280 px, elements of the reading apparatus of the
model chapter (``examples/``: a folded code cell with its toggle, a captioned numbered figure, a proposition
block, an exercise, the answers box); with ``ATTNLIB_FULL_SCREENSHOTS=1``, full pages too.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import FULL_SCREENSHOTS, READING
from .offline import chapter_documents, toc_documents
from .reading import (DESKTOP, DESKTOP_JS, PHONE, SETTLED_JS, TIMEOUT_MS, figure_text_problems, look, phone_problems,
                      resize, shoot)

INTRO = "book/intro"
PRIMER = "book/primer"
CHAPTER_PAGES = [INTRO] + [doc for doc in (PRIMER,) if doc in toc_documents()] + chapter_documents()
PART_ONE = [doc for doc in CHAPTER_PAGES if Path(doc).name[:2] in {f"{i:02d}" for i in range(1, 9)}]
MAIN_LINE = [doc for doc in CHAPTER_PAGES if doc in (INTRO, PRIMER) or doc in PART_ONE]
PART_TWO = [doc for doc in CHAPTER_PAGES if doc not in MAIN_LINE]
OTHER_PAGES = [doc for doc in toc_documents() if doc not in CHAPTER_PAGES]
SCREEN = DESKTOP[1]
SCREEN_BUDGET = 85  # screens at 1280 x 900 for the introduction, the primer and Part I together
PAGE_BUDGET = 15  # screens at 1280 x 900 for each page of Part II and each derivation page
API_SCREENS = 30  # at 1280 x 900
MIN_CONTRAST = 4.5
# Element screenshots at 390 px, for the closing note: page -> {file: selector}.
PHONE_SHOTS = {
    INTRO: {"phone/intro-lead-figure.390.png": "#fig-intro-lead"},
    "book/04_sample_spike": {"phone/theorem-4.2.390.png": "div.theorem:has(#equation-eq-smp-overlap)"},
}
FIRST_SCREENS = {"book/api": "phone/api.390.png", "book/api_theory": "phone/api_theory.390.png"}  # at 390 px
# Element screenshots of the reading apparatus at 1280 px (CI artifacts): file -> selector, on EXAMPLES_PAGE.
EXAMPLES_PAGE = "book/01_model"
EXAMPLES = {
    "answers-box.png": "div.admonition.answers",
    "folded-code.png": "div.cell.tag_hide-input",
    "captioned-figure.png": "figure",
    "proposition-block.png": "div.proof.proposition, div.proposition",
    "exercise.png": "div.exercise",
}
MISSING_EXAMPLES: list[str] = []  # the EXAMPLES not found on EXAMPLES_PAGE, as 'file: selector'


def is_api(doc: str) -> bool:
    return doc.split("/")[-1].startswith("api")


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


def read(page, doc: str, screenshots_dir: Path, between) -> list[str]:
    """Read ``doc`` (a page of ``_toc.yml``) on its open ``page``, loaded at 1280 x 900 and measured as loaded:
    at 1280 px, then ``between(page)`` (which must leave the page as it found it), then resized in place to
    390 x 844. The measurements and the problems found go to ``READING[doc]``; returns ``between``'s result."""
    page.set_default_timeout(TIMEOUT_MS)
    page.evaluate(SETTLED_JS)
    wide = figures_wide = None
    height = page.evaluate("() => document.documentElement.scrollHeight")
    if doc in CHAPTER_PAGES:
        wide = page.evaluate(DESKTOP_JS)
        wide["height"] = page.evaluate("() => document.documentElement.scrollHeight")
        figures_wide = look(page)
        if doc == INTRO:
            shoot(page, screenshots_dir / f"{doc}.first.1280.png")
        if FULL_SCREENSHOTS:
            page.screenshot(path=str(screenshots_dir / f"{doc}.1280.png"), full_page=True)
        if doc == EXAMPLES_PAGE:
            shoot_examples(page, screenshots_dir / "examples")
    page.evaluate("() => window.scrollTo(0, 0)")
    found = between(page)
    resize(page, PHONE)
    narrow = look(page)
    if doc == INTRO:
        shoot(page, screenshots_dir / f"{doc}.first.390.png")
    for name, selector in PHONE_SHOTS.get(doc, {}).items():
        shoot(page, screenshots_dir / name, selector)
    if doc in FIRST_SCREENS:
        shoot(page, screenshots_dir / FIRST_SCREENS[doc])
    if FULL_SCREENSHOTS:
        page.screenshot(path=str(screenshots_dir / f"{doc}.390.png"), full_page=True)
    if wide is not None:
        record_chapter(doc, wide, figures_wide, narrow)
    else:
        record_other(doc, height, narrow)
    return found


def shoot_examples(page, out: Path) -> None:
    for name, selector in EXAMPLES.items():
        if page.query_selector(selector) is None:
            MISSING_EXAMPLES.append(f"{name}: {selector}")
        else:
            shoot(page, out / name, selector)


def record_chapter(doc: str, wide: dict, figures_wide: dict, narrow: dict) -> None:
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


def record_other(doc: str, height: int, m: dict) -> None:
    problems = []
    if is_api(doc):
        READING.setdefault(doc, {})["1280"] = {"height": height, "screens": round(height / DESKTOP[1], 2)}
        if height / DESKTOP[1] > API_SCREENS:
            problems.append(f"{height / DESKTOP[1]:.1f} screens at 1280 x 900 (at most {API_SCREENS})")
    problems += phone_problems(m)
    READING.setdefault(doc, {})["390"] = {
        "height": m["height"], "screens": round(m["height"] / PHONE[1], 2), "page_width": m["pageWidth"],
        "tables": len(m["tables"]), "equations": len(m["equations"]), "images": len(m["images"]),
        "widest_equation": round(max((eq["width"] for eq in m["equations"]), default=0)),
        "too_wide_equations": too_wide(m),
        "explorer_heights": [round(e["height"]) for e in m["explorers"]], "problems": problems}
