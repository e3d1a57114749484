"""The built book reads as a book, at a desktop width (1280 px) and a phone width (390 px).

For the introduction and every numbered page listed in ``_toc.yml`` (chapters 1-11 and the derivation pages),
and at 390 px for the table pages (results, notation, verification), served from 127.0.0.1 with the network
cut off as in test_book_in_browser.py, in ONE page load per width:

* equations: at 1280 px no display equation is wider than its box (none scrolls); at 390 px every display
  equation that does not fit sits in a box that scrolls sideways and shows a visible scroll cue (a shadow at
  the hidden side, ``_ext/style/book.css``), and so does every table that does not fit;
* no stray ``$`` in the rendered prose (outside code, math and outputs), and no raw TeX in the page title,
  the sidebar or the table of contents;
* every image of the page is inside a ``<figure>`` with a numbered caption, and is not shrunk by the
  browser at 1280 px (so the figure text keeps the size it was drawn at, 8 pt or more);
* every proof is folded (a working toggle: see ``_ext/fold_proofs.py``), and no output shows as its Python
  repr (a Markdown table glued from another notebook renders: see ``_ext/glue_markdown.py``);
* the code a reader sees without opening a toggle holds no cell over 25 lines and no line over 88
  characters, and such lines do not overflow their box at 1280 px;
* the answer first: every Part I chapter (1-8) shows, right after its title and the italic line naming the
  paper's result, a box of class ``answers`` that starts on the first screen at 1280 x 900, and whose text
  has a contrast of at least 4.5:1 against its background in light and in dark mode;
* the introduction's first screen at 1280 x 900 states alpha/kappa and lambda_max(R) and shows the top of the
  lead figure or of the model schematic.

The screens of each page (scrollHeight / 900 at 1280 x 900) go to ``_build/reading-report.json``, and the
introduction and Part I together must fit in ``SCREEN_BUDGET`` screens: a layout budget, not a timing.
The first screen of the introduction is saved as ``book/intro.first.1280.png`` and
``book/intro.first.390.png``; with ``ATTNLIB_FULL_SCREENSHOTS=1`` full-page screenshots at both widths too,
as ``<page>.1280.png`` and ``<page>.390.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ENABLED, FULL_SCREENSHOTS, READING
from .test_book_in_browser import chapter_documents

if not ENABLED:
    pytest.skip("browser test of the built book: runs after the build (ATTNLIB_BROWSER_TEST=1)",
                allow_module_level=True)

INTRO = "book/intro"
PAGES = [INTRO] + chapter_documents()
PART_ONE = [doc for doc in PAGES if Path(doc).name[:2] in {f"{i:02d}" for i in range(1, 9)}]
WIDTHS = (1280, 390)
# The tables of the "Start here" and appendix pages, read where they are at risk: at 390 px only.
TABLE_PAGES = ["book/results", "book/notation", "book/verification"]
CASES = [(doc, width) for doc in PAGES for width in WIDTHS] + [(doc, 390) for doc in TABLE_PAGES]
SCREEN = 900
SCREEN_BUDGET = 80  # screens at 1280 x 900 for the introduction and Part I together
MIN_CONTRAST = 4.5
TIMEOUT_MS = 120_000  # generous: a loaded machine is slow, a quiet one never waits this long

MEASURE_JS = r"""
() => {
  const article = document.querySelector('article.bd-article');
  const column = article.getBoundingClientRect().width;
  const visible = el => !el.closest('details:not([open])') && el.offsetParent !== null;
  const scroller = el => {
    for (let a = el; a && a !== article; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return a;
    }
    return null;
  };
  const cue = el => !!el && /gradient/.test(getComputedStyle(el).backgroundImage);
  const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
  const opaque = el => { const c = rgb(getComputedStyle(el).backgroundColor);
    return c.length === 3 || (c.length === 4 && c[3] > 0.5); };
  const equations = [...article.querySelectorAll('mjx-container[display="true"]')].filter(visible)
    .map(m => {
      const r = m.getBoundingClientRect();
      const inner = m.firstElementChild ? m.firstElementChild.getBoundingClientRect().width : r.width;
      const s = scroller(m);
      return {width: Math.max(inner, m.scrollWidth), box: r.width,
              scrolls: !!s && s.clientWidth < s.scrollWidth + 1, cue: cue(s),
              numbered: !!m.closest('div.math') && !!m.closest('div.math').querySelector('.eqno'),
              text: (m.getAttribute('aria-label') || m.closest('[id]').id || '').slice(0, 60)};
    });
  const tables = [...article.querySelectorAll('table')].filter(visible).map(t => {
    const s = scroller(t);
    const room = s ? s.clientWidth : column;
    // the cue is the scrolling box's background: an opaque row or cell would hide it
    const hidden = [t, ...t.querySelectorAll('thead, tbody, tr, th, td')].some(opaque);
    return {overflows: t.getBoundingClientRect().width > room + 1, scrolls: !!s, cue: cue(s) && !hidden,
            text: t.textContent.trim().slice(0, 50)};
  });
  const prose = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode: n => n.parentElement.closest('pre, code, mjx-container, .cell_output, script, style, '
                                             + '.MathJax, math, .math') ? NodeFilter.FILTER_REJECT
                                                                         : NodeFilter.FILTER_ACCEPT});
  while (walker.nextNode()) { if (walker.currentNode.textContent.includes('$')) prose.push(
    walker.currentNode.textContent.trim().slice(0, 80)); }
  const titles = [document.title,
    ...[...document.querySelectorAll('.bd-sidebar a, .bd-toc a, nav a')].map(a => a.textContent)];
  const rawTitles = titles.filter(t => /\$|\\[a-zA-Z]+/.test(t)).map(t => t.trim().slice(0, 80));
  const images = [...article.querySelectorAll('img')].map(img => {
    const fig = img.closest('figure');
    const cap = fig && fig.querySelector('figcaption');
    return {src: img.getAttribute('src'), captioned: !!(cap && /\S/.test(cap.textContent)),
            numbered: !!(cap && cap.querySelector('.caption-number')),
            natural: img.naturalWidth, shown: img.getBoundingClientRect().width};
  });
  const code = [...article.querySelectorAll('div.cell_input pre, div.cell .highlight pre')]
    .filter(visible).filter(p => !p.closest('div.cell_output'))
    .map(p => {
      const lines = p.innerText.replace(/\n$/, '').split('\n');
      return {lines: lines.length, longest: Math.max(...lines.map(l => l.length)),
              overflow: p.scrollWidth - p.clientWidth};
    });
  // The block right after the title, skipping anchors, hidden cells and the italic line naming the paper.
  const h1 = article.querySelector('h1');
  let first = h1 && h1.nextElementSibling, italic = '';
  while (first && (first.tagName === 'SPAN' || getComputedStyle(first).display === 'none'
                   || (first.tagName === 'P' && !italic && first.children.length === 1
                       && first.firstElementChild.tagName === 'EM'
                       && first.textContent.trim() === first.firstElementChild.textContent.trim()))) {
    if (first.tagName === 'P') italic = first.textContent.trim();
    first = first.nextElementSibling;
  }
  const answers = first && first.matches('div.admonition.answers') ? first : null;
  // Contrast of the answers box, light and dark (WCAG relative luminance).
  const lum = c => { const v = c.slice(0, 3).map(x => { x /= 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const background = el => { for (let a = el; a; a = a.parentElement) { const c = rgb(getComputedStyle(a).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c; } return [255, 255, 255]; };
  const contrast = el => { const a = lum(rgb(getComputedStyle(el).color)), b = lum(background(el));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  const contrasts = theme => {
    if (!answers) return null;
    document.documentElement.dataset.theme = theme;
    const parts = [answers.querySelector('.admonition-title'), ...answers.querySelectorAll('p:not(.admonition-title)'),
                   ...answers.querySelectorAll('a')].filter(Boolean);
    return Math.min(...parts.map(contrast));
  };
  const mode = document.documentElement.dataset.theme;
  const answerBox = answers ? {top: answers.getBoundingClientRect().top + window.scrollY,
                               light: contrasts('light'), dark: contrasts('dark')} : null;
  document.documentElement.dataset.theme = mode;
  // What the first screen states: the TeX of the math on it, and the top of its first figure.
  const items = window.MathJax && MathJax.startup.document ? Array.from(MathJax.startup.document.math) : [];
  const firstScreenMath = items.filter(m => m.typesetRoot && m.typesetRoot.getBoundingClientRect
    && m.typesetRoot.getBoundingClientRect().bottom + window.scrollY <= 900).map(m => m.math);
  const figure = article.querySelector('figure');
  const figureTop = figure ? figure.getBoundingClientRect().top + window.scrollY : null;
  // Proofs (sphinx-proof gives them ids proof, proof-1, ...) must be folded by sphinx-togglebutton.
  const openProofs = [...article.querySelectorAll('div.proof[id^="proof"]')]
    .filter(p => !p.classList.contains('toggle-hidden')).map(p => p.textContent.trim().slice(0, 60));
  // An output pasted as its Python repr instead of rendered (a glued Markdown table from another notebook).
  const reprs = (article.innerText.match(/<IPython\.core\.display\.\w+ object>/g) || []).length;
  return {column, equations, tables, prose, rawTitles, images, code, italic, openProofs, reprs,
          first: first ? (first.className || first.tagName) : null, answerBox, firstScreenMath, figureTop};
}
"""


def measure(browser, url: str, width: int, screenshot: Path | None, first_screen: Path | None = None):
    context = browser.new_context(viewport={"width": width, "height": SCREEN}, service_workers="block")
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url.split("book/")[0])
                  else route.abort("blockedbyclient"))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
        page.evaluate("() => window.MathJax ? window.MathJax.startup.promise.then(() => true) : true")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        page.wait_for_timeout(200)
        result = page.evaluate(MEASURE_JS)
        if first_screen is not None:
            first_screen.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(first_screen), full_page=False)
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
        result["height"] = page.evaluate("() => document.documentElement.scrollHeight")
    finally:
        context.close()
    return result


def reading_problems(doc: str, width: int, m: dict) -> list[str]:
    """Everything a reader would trip on, from the measurements of one page at one width."""
    problems = []
    for eq in m["equations"]:
        if width == 1280 and (eq["width"] > m["column"] + 1 or eq["width"] > eq["box"] + 1):
            problems.append(f"display equation scrolls at 1280 px ({eq['width']:.0f} px in {eq['box']:.0f}): "
                            f"{eq['text']}")
        if width == 390 and eq["width"] > eq["box"] + 1 and not (eq["scrolls"] and eq["cue"]):
            kind = "numbered equation" if eq["numbered"] else "display equation"
            problems.append(f"{kind} does not fit at 390 px and shows no scroll cue: {eq['text']}")
    for table in m["tables"]:
        if table["overflows"] and not (table["scrolls"] and table["cue"]):
            problems.append(f"table does not fit at {width} px and shows no scroll cue: {table['text']!r}")
    problems += [f"proof shown open: {t!r}" for t in m["openProofs"]]
    if m["reprs"]:
        problems.append(f"{m['reprs']} output(s) shown as '<IPython.core.display... object>' instead of rendered")
    problems += [f"stray $ in the prose: {t!r}" for t in m["prose"]]
    problems += [f"raw TeX in a title or navigation entry: {t!r}" for t in m["rawTitles"]]
    for img in m["images"]:
        if not img["captioned"] or not img["numbered"]:
            problems.append(f"image without a numbered caption: {img['src']}")
        if width == 1280 and img["shown"] + 1 < img["natural"]:
            problems.append(f"image shrunk at 1280 px ({img['natural']} -> {img['shown']:.0f} px): {img['src']}")
    for cell in m["code"]:
        if cell["lines"] > 25:
            problems.append(f"visible code cell of {cell['lines']} lines")
        if cell["longest"] > 88:
            problems.append(f"visible code line of {cell['longest']} characters")
        if width == 1280 and cell["longest"] <= 88 and cell["overflow"] > 1:
            problems.append(f"a code line of {cell['longest']} characters overflows its box by {cell['overflow']} px")
    if doc in PART_ONE:
        box = m["answerBox"]
        if box is None:
            problems.append(f"the first block after the title is {m['first']!r}, not the answers box")
        else:
            if width == 1280 and box["top"] > SCREEN:
                problems.append(f"the answers box starts below the first screen (at {box['top']:.0f} px)")
            for mode in ("light", "dark"):
                if box[mode] < MIN_CONTRAST:
                    problems.append(f"answers box text contrast {box[mode]:.2f}:1 in {mode} mode (< {MIN_CONTRAST})")
    if doc == INTRO and width == 1280:
        tex = " ".join(m["firstScreenMath"])
        if not ("\\alpha" in tex and "\\kappa" in tex and "\\lambda_{\\max}" in tex):
            problems.append("the first screen of the introduction does not state alpha/kappa <= lambda_max(R)")
        if m["figureTop"] is None or m["figureTop"] > SCREEN:
            problems.append(f"no figure starts on the first screen of the introduction (top at {m['figureTop']})")
    return problems


@pytest.mark.parametrize(("doc", "width"), CASES, ids=[f"{d}-{w}" for d, w in CASES])
def test_page_reads_as_a_book(doc, width, base_url, browser, screenshots_dir):
    first = screenshots_dir / f"{doc}.first.{width}.png" if doc == INTRO else None
    full = screenshots_dir / f"{doc}.{width}.png" if FULL_SCREENSHOTS else None
    m = measure(browser, f"{base_url}{doc}.html", width, full, first)
    problems = reading_problems(doc, width, m)
    READING.setdefault(doc, {})[str(width)] = {
        "equations": len(m["equations"]), "images": len(m["images"]), "visible_code_cells": len(m["code"]),
        "visible_code_lines": sum(c["lines"] for c in m["code"]), "height": m["height"],
        "screens": round(m["height"] / SCREEN, 2), "tables": len(m["tables"]),
        "answers_contrast": m["answerBox"] and {k: round(m["answerBox"][k], 2) for k in ("light", "dark")},
        "problems": problems}
    assert not problems, f"{doc} at {width} px:\n  " + "\n  ".join(problems)


def test_introduction_and_part_one_fit_the_budget():
    """Runs after the page tests of this file (same worker): the screens they measured, summed."""
    measured = {doc: READING.get(doc, {}).get("1280", {}).get("height") for doc in [INTRO] + PART_ONE}
    missing = [doc for doc, h in measured.items() if h is None]
    if missing:
        pytest.skip(f"pages not measured in this run: {missing}")
    screens = {doc: h / SCREEN for doc, h in measured.items()}
    total = sum(screens.values())
    table = "\n  ".join(f"{doc:<30} {s:5.1f}" for doc, s in screens.items())
    assert total <= SCREEN_BUDGET, (f"the introduction and Part I take {total:.1f} screens at 1280 x 900, more "
                                    f"than {SCREEN_BUDGET}:\n  {table}")


def test_example_screenshots(base_url, browser, screenshots_dir):
    """Element screenshots of the reading apparatus, from the model chapter at 1280 px (CI artifacts):
    a folded code cell with its toggle, a captioned numbered figure, a proposition block and an exercise."""
    context = browser.new_context(viewport={"width": 1280, "height": SCREEN}, service_workers="block")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    out = screenshots_dir / "examples"
    out.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(f"{base_url}book/01_model.html", wait_until="load")
        page.evaluate("() => window.MathJax ? window.MathJax.startup.promise.then(() => true) : true")
        targets = {
            "answers-box.png": "div.admonition.answers",
            "folded-code.png": "div.cell.tag_hide-input",
            "captioned-figure.png": "figure",
            "proposition-block.png": "div.proof.proposition, div.proposition",
            "exercise.png": "div.exercise",
        }
        missing = []
        for name, selector in targets.items():
            element = page.query_selector(selector)
            if element is None:
                missing.append(f"{name}: {selector}")
                continue
            element.scroll_into_view_if_needed()
            element.screenshot(path=str(out / name))
        assert not missing, f"elements not found on the model chapter: {missing}"
    finally:
        context.close()
