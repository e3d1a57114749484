"""The built chapters read as a book, at a desktop width (1280 px) and a phone width (390 px).

For every chapter page listed in ``_toc.yml`` (served from 127.0.0.1, network cut off as in
test_book_in_browser.py):

* no display equation is wider than the text column at 1280 px, and at 390 px every display equation that
  does not fit sits in a box that scrolls horizontally instead of clipping;
* no stray ``$`` in the rendered prose (outside code, math and outputs), and no raw TeX in the page title,
  the sidebar or the table of contents;
* every image of the chapter is inside a ``<figure>`` with a numbered caption, and is not shrunk by the
  browser at 1280 px (so the figure text keeps the size it was drawn at, 8 pt or more);
* the code a reader sees without opening a toggle holds no cell over 25 lines and no line over 88
  characters, and such lines do not overflow their box at 1280 px.

Full-page screenshots at both widths are saved as ``<chapter>.1280.png`` and ``<chapter>.390.png``, and the
measurements (page height, visible code lines, figures, equations) in ``_build/reading-report.json``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ENABLED, READING
from .test_book_in_browser import chapter_documents

if not ENABLED:
    pytest.skip("browser test of the built book: runs after the build (ATTNLIB_BROWSER_TEST=1)",
                allow_module_level=True)

CHAPTERS = chapter_documents()
WIDTHS = (1280, 390)

MEASURE_JS = r"""
() => {
  const article = document.querySelector('article.bd-article');
  const column = article.getBoundingClientRect().width;
  const visible = el => !el.closest('details:not([open])') && el.offsetParent !== null;
  const scrolls = el => {
    for (let a = el; a && a !== article; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if ((o === 'auto' || o === 'scroll') && a.clientWidth < a.scrollWidth + 1) return true;
    }
    return false;
  };
  const equations = [...article.querySelectorAll('mjx-container[display="true"]')].filter(visible)
    .map(m => {
      const r = m.getBoundingClientRect();
      const inner = m.firstElementChild ? m.firstElementChild.getBoundingClientRect().width : r.width;
      return {width: Math.max(inner, m.scrollWidth), box: r.width, scrolls: scrolls(m),
              text: (m.getAttribute('aria-label') || m.textContent).slice(0, 60)};
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
  return {column, equations, prose, rawTitles, images, code};
}
"""


def measure(browser, url: str, width: int, screenshot: Path | None):
    context = browser.new_context(viewport={"width": width, "height": 900}, service_workers="block")
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url.split("book/")[0])
                  else route.abort("blockedbyclient"))
    page = context.new_page()
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function("() => !window.MathJax || (window.MathJax.startup && window.MathJax.startup.promise)")
        page.evaluate("() => window.MathJax ? window.MathJax.startup.promise.then(() => true) : true")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        page.wait_for_timeout(200)
        result = page.evaluate(MEASURE_JS)
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
            result["height"] = page.evaluate("() => document.documentElement.scrollHeight")
    finally:
        context.close()
    return result


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("doc", CHAPTERS)
def test_chapter_reads_as_a_book(doc, width, base_url, browser, screenshots_dir):
    shot = screenshots_dir / f"{doc}.{width}.png"
    m = measure(browser, f"{base_url}{doc}.html", width, shot)
    problems = []
    for eq in m["equations"]:
        if width == 1280 and eq["width"] > m["column"] + 1:
            problems.append(f"display equation wider than the column ({eq['width']:.0f} > {m['column']:.0f} px): "
                            f"{eq['text']}")
        if width == 390 and eq["width"] > eq["box"] + 1 and not eq["scrolls"]:
            problems.append(f"display equation clipped at 390 px: {eq['text']}")
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
    READING.setdefault(doc, {})[str(width)] = {
        "equations": len(m["equations"]), "images": len(m["images"]), "visible_code_cells": len(m["code"]),
        "visible_code_lines": sum(c["lines"] for c in m["code"]), "height": m.get("height"),
        "problems": problems}
    assert not problems, f"{doc} at {width} px:\n  " + "\n  ".join(problems)


def test_example_screenshots(base_url, browser, screenshots_dir):
    """Element screenshots of the reading apparatus, from the model chapter at 1280 px (CI artifacts):
    a folded code cell with its toggle, a captioned numbered figure, a proposition block and an exercise."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    page = context.new_page()
    out = screenshots_dir / "examples"
    out.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(f"{base_url}book/01_model.html", wait_until="load")
        page.evaluate("() => window.MathJax ? window.MathJax.startup.promise.then(() => true) : true")
        targets = {
            "folded-code.png": "div.cell.tag_hide-input",
            "captioned-figure.png": "figure#fig-model-population",
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
