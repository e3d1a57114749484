"""How the reading checks look at a page (reading_checks.py, on the page that test_book_in_browser.py opens once).

A page is loaded once, served from 127.0.0.1 with the network cut off, at a desktop width (1280 x 900), read
there if it is a chapter, and then at a phone's (390 x 844): the viewport is resized in the same page, and the
checks wait until the figures have switched to their narrow rendering, the explorers have laid themselves out
again and the tables have been refitted (``_ext/style/book.js``). :func:`look` returns what the rules need.
"""

from __future__ import annotations

from pathlib import Path

from .conftest import BOUNDED_WAITS_JS

DESKTOP = (1280, 900)
PHONE = (390, 844)
TIMEOUT_MS = 120_000  # generous: a loaded machine is slow, a quiet one never waits this long
MIN_TEXT_PX = 8.0  # figure text as rendered, at either width
EXPLORER_SCREENS = 1.5  # an explorer's height, in screens of the phone

# The desktop rules' measurements (1280 px): equations, tables, images and code as the page shows them, stray
# $ and raw TeX, folded proofs, outputs shown as reprs, the answers box and its contrast, the first screen.
DESKTOP_JS = r"""
() => {
  const article = document.querySelector('article.bd-article');
  const column = article.getBoundingClientRect().width;
  const visible = el => !el.closest('details:not([open])') && el.offsetParent !== null
    && getComputedStyle(el).visibility !== 'hidden';  // a folded toggle's content is laid out, but hidden
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

# What a page shows at the current width. Visible: not in a closed <details> or a folded toggle.
LOOK_JS = r"""
() => {
  const article = document.querySelector('article.bd-article');
  const column = article.getBoundingClientRect();
  const visible = el => !el.closest('details:not([open])') && el.offsetParent !== null
    && getComputedStyle(el).visibility !== 'hidden';  // a folded toggle's content is laid out, but hidden
  const scroller = el => {
    for (let a = el; a && a !== article; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o !== 'visible') return a;
    }
    return null;
  };
  const scrolls = s => !!s && ['auto', 'scroll'].includes(getComputedStyle(s).overflowX);
  const cue = el => !!el && /gradient/.test(getComputedStyle(el).backgroundImage);
  const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
  const opaque = el => { const c = rgb(getComputedStyle(el).backgroundColor);
    return c.length === 3 || (c.length === 4 && c[3] > 0.5); };
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
    * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const label = el => (el.getAttribute('aria-label') || (el.closest('[id]') || {}).id || el.textContent || '')
    .trim().replace(/\s+/g, ' ').slice(0, 70);
  const tex = new Map((window.MathJax && MathJax.startup && MathJax.startup.document
    ? Array.from(MathJax.startup.document.math) : []).map(item => [item.typesetRoot, item.math]));
  const equations = [...article.querySelectorAll('mjx-container[display="true"]')].filter(visible).map(m => {
    const r = m.getBoundingClientRect();
    const inner = m.firstElementChild ? m.firstElementChild.getBoundingClientRect().width : r.width;
    const s = scroller(m);
    const block = m.closest('div.math');
    const number = block && block.querySelector('.eqno');
    const source = (tex.get(m) || label(m)).trim().replace(/\s+/g, ' ');
    return {width: Math.max(inner, m.scrollWidth), box: r.width, scrolls: scrolls(s), cue: cue(s),
            numbered: !!number, numberOver: number ? overlap(number.getBoundingClientRect(), r) > 1 : false,
            text: (number ? number.textContent.replace('#', '').trim() + ' ' : '') + source.slice(0, 70)};
  });
  const tables = [...article.querySelectorAll('table')].filter(visible).map(t => {
    const s = scroller(t);
    const room = s ? s.getBoundingClientRect() : column;
    const hidden = [t, ...t.querySelectorAll('thead, tbody, tr, th, td')].some(opaque);
    const explorer = t.closest('.attnlib-explorer');
    const width = Math.max(t.getBoundingClientRect().width, t.scrollWidth);
    return {overflows: t.getBoundingClientRect().right > room.right + 1 || width > room.width + 1,
            scrolls: scrolls(s), cue: cue(s) && !hidden, columns: (t.rows[0] || {cells: []}).cells.length,
            explorer: !!explorer, fits: !explorer || width <= explorer.clientWidth + 1,
            text: t.textContent.trim().replace(/\s+/g, ' ').slice(0, 50)};
  });
  const images = [...article.querySelectorAll('img')].filter(visible).map(img => {
    const fig = img.closest('figure');
    const cap = fig && fig.querySelector('figcaption');
    const picture = img.closest('picture');
    const source = picture && [...picture.querySelectorAll('source')].find(s => s.srcset === img.currentSrc);
    const data = (source || img).dataset;
    const shown = img.getBoundingClientRect().width;
    const pt = Number(data.fontPt), dpi = Number(data.dpi);
    return {src: (img.getAttribute('src') || '').slice(0, 60), captioned: !!(cap && /\S/.test(cap.textContent)),
            numbered: !!(cap && cap.querySelector('.caption-number')), natural: img.naturalWidth, shown,
            narrow: !!source, textPx: pt && dpi && img.naturalWidth ? pt * dpi / 72 * shown / img.naturalWidth : null,
            figure: fig && fig.id, narrowFailed: picture ? picture.dataset.narrowFailed || null : null};
  });
  const code = [...article.querySelectorAll('div.cell_input pre, div.cell .highlight pre')]
    .filter(visible).filter(p => !p.closest('div.cell_output'))
    .map(p => {
      const lines = p.innerText.replace(/\n$/, '').split('\n');
      return {lines: lines.length, longest: Math.max(...lines.map(l => l.length)),
              overflow: p.scrollWidth - p.clientWidth, cue: cue(scroller(p)) && scrolls(scroller(p))};
    });
  const explorers = [...article.querySelectorAll('.attnlib-explorer')].map(e => {
    const part = sel => e.querySelector(sel) ? e.querySelector(sel).getBoundingClientRect() : null;
    const controls = part('.ax-controls'), figure = part('.ax-figure');
    return {ready: e.dataset.ready === '1', height: e.getBoundingClientRect().height,
            plot: figure ? figure.height : 0, controlsAbove: !controls || !figure || controls.bottom <= figure.top + 1,
            overflow: e.scrollWidth - e.clientWidth, id: (e.closest('figure') || e).id || e.id};
  });
  return {column: column.width, pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth,
          height: document.documentElement.scrollHeight, equations, tables, images, code, explorers};
}
"""

# Everything settled at the current width: images decoded (a <picture> may just have switched source), the
# explorers drawn at their width, two frames for the resize observers and book.js's refit.
SETTLED_JS = """async () => {""" + BOUNDED_WAITS_JS + """
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await within(MathJax.startup.promise, 30000);
  await within(document.fonts.ready, 10000);
  await within(Promise.all([...document.images].map(i => i.decode().catch(() => null))), 10000);
  for (let k = 0; k < 3; k++) await frame();
  // transitions started by a resize (the theme slides its sidebars away at a phone's width) run to their end
  const finite = document.getAnimations().filter(a => a.effect && a.effect.getComputedTiming().endTime < Infinity);
  await within(Promise.all(finite.map(a => a.finished.catch(() => null))), 5000);
  await frame();
  return true;
}"""


def resize(page, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate(SETTLED_JS)


def look(page) -> dict:
    return page.evaluate(LOOK_JS)


def shoot(page, path: Path, selector: str | None = None) -> None:
    """A screenshot of the first screen, or of the element ``selector`` (scrolled into view)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if selector is None:
        page.evaluate("() => window.scrollTo(0, 0)")
        page.screenshot(path=str(path), full_page=False)
        return
    element = page.query_selector(selector)
    if element is None:
        raise AssertionError(f"{selector} not found for the screenshot {path.name}")
    element.scroll_into_view_if_needed()
    # an element taller than the screen is shot in parts: the sticky header and the skip link would land on it
    element.screenshot(path=str(path), style=".bd-header, .bd-header-article, #pst-skip-link { visibility: hidden !important; }")


def phone_problems(m: dict, screen_height: int = PHONE[1]) -> list[str]:
    """What a reader trips on at a phone's width: the page wider than the screen, a display equation that
    scrolls without a cue or under its number, a table that loses a column, figure text under 8 px, code that
    scrolls without a cue, an explorer taller than 1.5 screens, wider than the column or with its plot above
    its controls."""
    problems = []
    if m["pageWidth"] > m["viewport"] + 1:
        problems.append(f"the page is {m['pageWidth']} px wide at {m['viewport']} px: it scrolls sideways")
    for eq in m["equations"]:
        if eq["width"] > eq["box"] + 1 and not (eq["scrolls"] and eq["cue"]):
            problems.append(f"display equation wider than its box ({eq['width']:.0f} px in {eq['box']:.0f}) "
                            f"shows no scroll cue: {eq['text']}")
        if eq["numberOver"]:
            problems.append(f"an equation number sits over its equation: {eq['text']}")
    problems += table_problems(m, "390")
    problems += figure_text_problems(m, "390")
    for cell in m["code"]:
        if cell["overflow"] > 1 and not cell["cue"]:
            problems.append(f"a code cell scrolls sideways ({cell['overflow']} px) without a scroll cue")
    for ex in m["explorers"]:
        where = f"explorer {ex['id']}"
        if not ex["ready"]:
            problems.append(f"{where} did not start")
        if ex["height"] > EXPLORER_SCREENS * screen_height:
            problems.append(f"{where} is {ex['height']:.0f} px tall, over {EXPLORER_SCREENS} screens "
                            f"({EXPLORER_SCREENS * screen_height:.0f} px)")
        if ex["plot"] > screen_height:
            problems.append(f"{where}: its plot is {ex['plot']:.0f} px tall, more than a screen")
        if not ex["controlsAbove"]:
            problems.append(f"{where}: its controls are not above its plot")
        if ex["overflow"] > 1:
            problems.append(f"{where} is {ex['overflow']} px wider than the column")
    return problems


def table_problems(m: dict, width: str) -> list[str]:
    """A table wider than its box must scroll in it with a visible cue; an explorer's read-out must fit."""
    problems = []
    for table in m["tables"]:
        if table["explorer"]:
            if not table["fits"]:
                problems.append(f"an explorer's table is wider than the explorer at {width} px (a column is cut "
                                f"off): {table['text']!r}")
        elif table["overflows"] and not table["scrolls"]:
            problems.append(f"table cut off at {width} px (its box does not scroll): {table['text']!r}")
        elif table["overflows"] and not table["cue"]:
            problems.append(f"table does not fit at {width} px and shows no scroll cue: {table['text']!r}")
    return problems


def figure_text_problems(m: dict, width: str) -> list[str]:
    problems = []
    for img in m["images"]:
        if img["textPx"] is None:
            problems.append(f"figure {img['figure']}: no font size recorded (draw it through "
                            "attnlib.views.plotting.use_book_style)")
        elif img["textPx"] < MIN_TEXT_PX:
            why = f"; its narrow rendering failed: {img['narrowFailed']}" if img["narrowFailed"] else ""
            problems.append(f"figure {img['figure']}: its smallest text is {img['textPx']:.1f} px at {width} px "
                            f"(< {MIN_TEXT_PX:g}){why}")
    return problems
