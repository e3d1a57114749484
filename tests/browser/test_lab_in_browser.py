"""The ``make lab`` copy in a real JupyterLab: chapters 02 and 05 read as in the HTML book, no raw MyST.

Builds the scratch copy with scripts/lab_copy.py (into a temporary folder), starts ``jupyter lab`` headless on
a free port of 127.0.0.1 (no token, no browser), opens ``02_bulk_law.md`` and ``05_optimal_weights.md`` as
notebooks (Jupytext Notebook, as a double-click does), renders every Markdown cell and counts, in their rendered
text, what a reader would see as MyST source: roles (``{name}`` followed by a backtick), directive fences
(```` ```{ ```` / ``:::{``, also as a code block's language), ``{glue`` and labels written as ``(name)=``;
and what jupyterlab-myst shows in place of what it cannot resolve (a reference or citation "not found", an
unknown directive, an unknown role's bare content: a glue role's key). Both counts must be 0. Screenshots
of a theorem box and of a paragraph with glued numbers go to _build/screenshots/. The copy's glued values,
numbers and citations are also checked against the built HTML book.

Runs only with ``ATTNLIB_BROWSER_TEST=1`` (see conftest.py). ``ATTNLIB_LAB_COPY=plain`` opens a plain copy of
book/ instead, and ``ATTNLIB_LAB_MYST=0`` disables jupyterlab-myst: with them the test measures the prose as it
read before the copy was rewritten (it then fails, and prints the counts).
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jupytext
import nbformat
import pytest

from .conftest import ENABLED, REPO

pytestmark = pytest.mark.skipif(not ENABLED, reason="real-browser test: set ATTNLIB_BROWSER_TEST=1")

CHAPTERS = ("02_bulk_law", "05_optimal_weights")
START_TIMEOUT = 60  # s for JupyterLab to answer (a start takes about 5 s on an idle machine)
RENDER_TIMEOUT_MS = 60_000
SOURCE = Path(os.environ.get("ATTNLIB_LAB_BOOK", REPO / "book"))  # another checkout's book/, to compare

# The rendered text of each Markdown cell, maths removed (its TeX braces are not MyST), inline code put back
# between backticks and a code block's language written as its fence, then searched for MyST source.
COUNT_JS = r"""
() => {
  const pattern = /\{[A-Za-z][\w:.-]*\}`|(```|:::)\{|\{glue|(^|\s)\([\w:.-]+\)=(\s|$)/g;
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell')];
  const fragments = [];
  let unrendered = 0, errors = 0;
  for (const cell of cells) {
    if (!cell.classList.contains('jp-mod-rendered')) { unrendered++; continue; }
    const out = cell.querySelector('.jp-InputArea > .myst, .jp-InputArea > .jp-MarkdownOutput');
    if (!out) { unrendered++; continue; }
    const copy = out.cloneNode(true);
    copy.querySelectorAll('mjx-container, .MathJax, .katex, .math, script, style').forEach(e => e.remove());
    // jupyterlab-myst: a reference or citation it cannot resolve, a directive it does not know, and a role it
    // does not know (shown as its bare content, a span with no attribute: a glue role shows its key).
    const bare = [...copy.querySelectorAll('span:not([class]):not([title]):not([style])')];
    errors += copy.querySelectorAll('[title$="Not Found"]').length
      + bare.filter(e => e.textContent.trim() && !e.closest('pre, code')).length;
    errors += (copy.textContent.match(/Unknown (Directive|Role)/g) || []).length;
    copy.querySelectorAll('pre code, pre').forEach(e => {
      const lang = [...e.classList].find(c => c.startsWith('language-{'));
      if (lang) e.textContent = '```' + lang.slice(9) + '\n' + e.textContent;
    });
    copy.querySelectorAll(':not(pre) > code').forEach(e => { e.textContent = '`' + e.textContent + '`'; });
    const text = copy.textContent;
    for (const m of text.matchAll(pattern)) {
      fragments.push(text.slice(Math.max(0, m.index - 30), m.index + 40).replace(/\s+/g, ' '));
    }
  }
  return JSON.stringify({cells: cells.length, unrendered, errors, fragments});
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _script():
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import lab_copy
    finally:
        sys.path.remove(str(REPO / "scripts"))
    return lab_copy


@pytest.fixture(scope="module")
def lab_book(tmp_path_factory) -> Path:
    """The ``make lab`` copy of the book (or, with ATTNLIB_LAB_COPY=plain, book/ as it is)."""
    dest = tmp_path_factory.mktemp("lab") / "book"
    if os.environ.get("ATTNLIB_LAB_COPY") == "plain":
        return Path(shutil.copytree(SOURCE, dest))
    return _script().make_copy(dest, SOURCE)


@pytest.fixture(scope="module")
def lab(lab_book):
    """(base URL, folder of the copy) of a JupyterLab serving the lab copy of the book."""
    root, book = lab_book.parent, lab_book
    settings = root / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Render every cell at once (JupyterLab 4 otherwise renders only the cells scrolled into view).
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    # A chapter's .md opens as a notebook, as `make install` sets it up for `make lab`.
    viewers = {"defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}}
    docmanager = root / "settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text(json.dumps(viewers))
    config = root / "config"
    (config / "labconfig").mkdir(parents=True)
    disabled = {"jupyterlab-myst": True} if os.environ.get("ATTNLIB_LAB_MYST") == "0" else {}
    (config / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": disabled}))
    port = _free_port()
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--port-retries=0",
           "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
           f"--ServerApp.root_dir={book}", f"--LabApp.user_settings_dir={root / 'settings'}",
           f"--LabApp.workspaces_dir={root / 'workspaces'}"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), JUPYTER_RUNTIME_DIR=str(root / "runtime"))
    log = (root / "lab.log").open("w")
    proc = subprocess.Popen(cmd, cwd=book, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start: {(root / 'lab.log').read_text()[-2000:]}")
                time.sleep(0.3)
        yield url, book
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _open_chapter(browser, url, chapter):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    # A workspace of its own, reset: JupyterLab would otherwise reopen what an earlier page opened.
    page.goto(f"{url}/lab/workspaces/{chapter}/tree/{chapter}.md?reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell",
                           timeout=RENDER_TIMEOUT_MS)
    # Every Markdown cell rendered (jupyterlab-myst renders asynchronously): wait until the count is stable.
    last, stable = None, 0
    while stable < 3:
        now = page.evaluate(COUNT_JS)
        stable = stable + 1 if now == last else 0
        last = now
        page.wait_for_timeout(500)
    return page, json.loads(last)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_prose_has_no_raw_myst(browser, lab, screenshots_dir, chapter):
    url, book = lab
    page, found = _open_chapter(browser, url, chapter)
    try:
        print(f"{chapter}: {found['cells']} Markdown cells, {len(found['fragments'])} raw MyST fragments, "
              f"{found['errors']} MyST errors, {found['unrendered']} unrendered")
        if chapter == CHAPTERS[0] and not found["fragments"]:
            _screenshots(page, book, chapter, screenshots_dir)
    finally:
        page.close()
    assert found["cells"] > 10 and found["unrendered"] == 0, found
    assert found["errors"] == 0, f"{chapter}: jupyterlab-myst reports {found['errors']} errors"
    assert found["fragments"] == [], (f"{chapter}: {len(found['fragments'])} raw MyST fragments in the "
                                      f"rendered prose, e.g. {found['fragments'][:5]}")


def _screenshots(page, book, chapter, screenshots_dir):
    """A theorem box and a paragraph holding at least two of the chapter's glued numbers."""
    title = page.locator(".myst-admonition-header-text", has_text=re.compile(r"^\s*Theorem \d"))
    theorem = page.locator(".jp-MarkdownCell aside.myst-admonition").filter(has=title).first
    theorem.scroll_into_view_if_needed(timeout=5_000)
    theorem.screenshot(path=str(screenshots_dir / f"lab-{chapter}-theorem.png"))
    values = [v["text/plain"] for v in _script().glue_data(
        nbformat.read(SOURCE / f"{chapter}.ipynb", as_version=4)).values()
        if "text/markdown" not in v and len(v["text/plain"]) >= 3]
    paragraphs = page.locator(".jp-MarkdownCell p")
    for i in range(paragraphs.count()):
        p = paragraphs.nth(i)
        text = p.inner_text()
        if sum(v in text for v in values) >= 2:
            p.scroll_into_view_if_needed()
            p.screenshot(path=str(screenshots_dir / f"lab-{chapter}-glued-numbers.png"))
            return
    pytest.fail(f"{chapter}: no paragraph shows two glued numbers")


def _html_and_copy(html_root, lab_book, chapter):
    html = (html_root / "book" / f"{chapter}.html").read_text(encoding="utf-8")
    cells = jupytext.read(lab_book / f"{chapter}.md").cells
    return html, "\n".join(c.source for c in cells if c.cell_type == "markdown")


def _plain(fragment: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_copy_shows_what_the_html_book_shows(html_root, lab_book, chapter):
    """The copy's glued values, block titles, equation and figure numbers and citations against the built
    HTML book: every glued value, in the HTML's order for the rest."""
    html, text = _html_and_copy(html_root, lab_book, chapter)
    glued = [_plain(v) for v in re.findall(r'<span class="pasted-text">(.*?)</span>', html, re.S)]
    missing = [v for v in set(glued) if text.count(v) < glued.count(v)]
    assert len(glued) > 10 and missing == [], f"{chapter}: glued values not in the copy: {missing}"
    kinds = r"(?:Theorem|Definition|Proposition|Lemma|Corollary|Remark|Exercise) [\d.]+"
    titles = [_plain(t) for t in re.findall(r'<p class="admonition-title">(.*?)</p>', html, re.S)]
    assert [m for t in titles for m in re.findall(f"^{kinds}", t)] == \
        re.findall(rf"^[ \t]*[`:]{{3,}}\{{admonition\}} ({kinds})", text, re.M)
    assert re.findall(r'<span class="eqno">\(([\d.]+)\)', html) == re.findall(r"\\tag\{([\d.]+)\}", text)
    assert re.findall(r'<span class="caption-number">Fig\. ([\d.]+)', html) == \
        re.findall(r"^\*\*Fig\. ([\d.]+)\.\*\*", text, re.M)
    cites = [_plain(c) for c in re.findall(r'<span class="bibtex-citation"[^>]*>(.*?)</span>', html, re.S)]
    shown = [c.replace("*et al.*", "et al.") for c in re.findall(r"\\\[(.*?)\\\]", text)]
    assert [re.search(r"\[(.*)\]", c).group(1) for c in cites] == shown
