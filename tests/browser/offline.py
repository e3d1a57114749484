"""A page of the built book opened in headless Chromium with the network cut off, and what it must do offline
(used by test_book_in_browser.py, which opens every page once for all its checks).

For every page of the built HTML (chapters discovered from ``_toc.yml`` and from the files in
``_build/html``, so new chapters are picked up without editing a test), served from 127.0.0.1:

* every request that is not to the local server is aborted and recorded, and the page fails if there was
  any (no CDN script, font, widget manager, thebe, analytics...);
* every local request succeeds (no 4xx/5xx: a missing MathJax component or font would show up here);
* MathJax finishes typesetting (``MathJax.startup.promise``) and every math element of the page holds a
  rendered ``mjx-container`` and no TeX error (parse error or undefined macro);
* every ``<img>`` has loaded with a non-zero natural size;
* the console has no errors and the page threw no exception;
* every internal ``<a href>`` resolves to a built file, and its ``#fragment`` to an element id there;
* no Markdown reached the page unrendered (a table output shown as raw ``| a | b |`` text);
* the footer names the authors and the copyright year, and nothing links to a wrong repository;
* no dead link, whichever of ``make book`` and ``make pdf`` ran first: a build without the PDF (``make book``,
  and ``make test``) links none and its footer says how to make it; after ``make pdf`` the links to the PDF
  resolve like every internal link (accessibility.py).

Each page's counts go to ``_build/browser-report.json`` (``RESULTS``).
"""

from __future__ import annotations

import html.parser
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

import yaml

from . import accessibility
from .conftest import HTML, REPO, RESULTS

SKIP_DIRS = {"_static", "_sources", "_images", "_downloads", ".doctrees"}
TIMEOUT_MS = 60_000
FOOTER_MUST_CONTAIN = ("The attnlib authors", "2026")
WRONG_REPOSITORIES = ("executablebooks/jupyter-book", "binder-examples", "mybinder.org")


def toc_documents() -> list[str]:
    """Document names listed in _toc.yml (root, chapters, sections), e.g. 'book/01_model'."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            found.extend(str(node[k]).removesuffix(".ipynb").removesuffix(".md") for k in ("root", "file") if k in node)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8")))
    return found


def chapter_documents() -> list[str]:
    """The numbered chapters of _toc.yml (e.g. 'book/01_model'): the pages the reading test measures."""
    return [doc for doc in toc_documents() if Path(doc).name[:2].isdigit()]


def built_pages() -> list[str]:
    """Every HTML page of the build (relative paths), except the root redirect index.html."""
    rels = [p.relative_to(HTML) for p in HTML.rglob("*.html")] if HTML.exists() else []
    return sorted(r.as_posix() for r in rels if r.parts[0] not in SKIP_DIRS and r.as_posix() != "index.html")



class _IdCollector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "id" or (tag == "a" and name == "name"):
                if value:
                    self.ids.add(value)


@lru_cache(maxsize=None)
def ids_in(path: Path) -> frozenset[str]:
    parser = _IdCollector()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.ids)


def resolve_internal(url: str, base_url: str, html_root: Path) -> str | None:
    """None if the internal link resolves, else what is wrong with it."""
    target, fragment = urldefrag(url)
    rel = unquote(urlsplit(target).path)[len(urlsplit(base_url).path):]
    path = html_root / rel
    if rel == "" or rel.endswith("/"):
        path = path / "index.html"
    if not path.is_file():
        return f"{url}: no file {path.relative_to(html_root) if path.is_relative_to(html_root) else path}"
    if fragment and path.suffix == ".html" and unquote(fragment) not in ids_in(path):
        return f"{url}: no element with id {unquote(fragment)!r} in {path.relative_to(html_root)}"
    return None


# JavaScript run in the page once it has loaded.
MATH_STATE_JS = """
() => {
  const math = Array.from(document.querySelectorAll('.math'));
  return {
    math_elements: math.length,
    unrendered: math.filter(el => !el.querySelector('mjx-container'))
                    .map(el => el.textContent.trim().slice(0, 80)),
    mjx_containers: document.querySelectorAll('mjx-container').length,
    merrors: Array.from(document.querySelectorAll('mjx-merror'))
                  .map(el => (el.getAttribute('data-mjx-error') || el.textContent).slice(0, 120)),
    has_mathjax: typeof window.MathJax === 'object' && !!window.MathJax.startup,
    tex_errors: tex_errors(),
  };
  // TeX that MathJax could not interpret: parse errors (merror) and, with its default `noundefined`
  // package, undefined macros, which it typesets as red text instead of failing.
  function tex_errors() {
    const mj = window.MathJax;
    if (!mj || !mj.startup || !mj.startup.document || !mj.startup.toMML) return [];
    const bad = [];
    for (const item of mj.startup.document.math) {
      const mml = mj.startup.toMML(item.root);
      if (/<merror|mathcolor="red"/.test(mml)) bad.push(String(item.math).slice(0, 120));
    }
    return bad;
  }
}
"""
IMAGES_JS = """
async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(img => img.complete ? null :
      new Promise(done => { img.addEventListener('load', done); img.addEventListener('error', done); })));
  return imgs.map(img => ({src: img.getAttribute('src'), complete: img.complete,
                           width: img.naturalWidth, height: img.naturalHeight}));
}
"""
LINKS_JS = "() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"
# Markdown that reached the page unrendered, e.g. a table output shown as "| a | b |\n|---|---|" text.
RAW_MARKDOWN_JS = r"""
() => Array.from(document.querySelectorAll('article p, article li'))
  .map(p => p.textContent.trim())
  .filter(t => /^\|.*\|/.test(t) && /\|\s*(:?-{3,}:?|—+)\s*\|/.test(t))
  .map(t => t.slice(0, 100))
"""
FOOTER_JS = """
() => {
  const f = document.querySelector('footer.bd-footer-content');
  return f ? f.innerText : null;
}
"""


def wait_until_quiet(page, inflight: dict, quiet_ms: int = 500, timeout_ms: int = TIMEOUT_MS) -> list[str]:
    """Let the page run until no request has been in flight for ``quiet_ms`` (so late requests are seen).

    Returns the URLs still in flight if that does not happen within ``timeout_ms`` (empty list: quiet).
    Playwright's own "networkidle" wait proved flaky on a loaded 2-core machine and says nothing on timeout.
    """
    quiet_since = None
    waited = 0
    step = 100
    while waited < timeout_ms:
        if inflight:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = waited
        elif waited - quiet_since >= quiet_ms:
            return []
        page.wait_for_timeout(step)  # lets Playwright dispatch the request events
        waited += step
    return sorted(inflight.values())


@dataclass
class Visit:
    """What one page did in the browser."""

    blocked: list[str] = field(default_factory=list)  # non-local requests (aborted)
    requested: list[str] = field(default_factory=list)  # local requests
    local_failures: list[str] = field(default_factory=list)  # local responses >= 400, failed local loads
    console_errors: list[str] = field(default_factory=list)  # console.error and uncaught exceptions
    console_warnings: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # requests still in flight at the time-out
    has_math_markup: bool = False
    mathjax_script: bool = False
    math: dict = field(default_factory=dict)
    images: list[dict] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    raw_markdown: list[str] = field(default_factory=list)
    later: list[str] = field(default_factory=list)  # problems found by ``visit(then=...)``
    footer: str | None = None

    def problems(self) -> list[str]:
        out = []
        if self.pending:
            out.append(f"requests still pending after {TIMEOUT_MS} ms: {self.pending}")
        if self.blocked:
            out.append(f"non-local requests attempted (blocked): {self.blocked}")
        if self.local_failures:
            out.append(f"local requests failed: {self.local_failures}")
        if self.console_errors:
            out.append(f"console errors: {self.console_errors}")
        if self.has_math_markup:
            if not self.mathjax_script:
                out.append("page has math (e.g. a chapter title in the navigation) but no MathJax script")
            elif not self.math["has_mathjax"]:
                out.append("page has math but MathJax did not load")
            if self.math["mjx_containers"] == 0 or self.math["unrendered"]:
                out.append(f"math not rendered by MathJax: {self.math['unrendered'][:5]}")
            if self.math["merrors"] or self.math["tex_errors"]:
                out.append(f"TeX errors (MathJax): {self.math['merrors'] + self.math['tex_errors']}")
        bad_images = [i for i in self.images if not i["complete"] or not i["width"] or not i["height"]]
        if bad_images:
            out.append(f"images not loaded: {bad_images}")
        if self.raw_markdown:
            out.append(f"unrendered Markdown tables: {self.raw_markdown}")
        return out


def visit(browser, url: str, is_local, redirect_to: str | None = None, init_script: str | None = None,
          then=None) -> Visit:
    """Open ``url`` with every request for which ``is_local(url)`` is false aborted; measure the page.

    ``redirect_to``: the URL the page is expected to redirect to (waited for before measuring).
    ``init_script``: JavaScript run in the page before its own scripts (e.g. to set localStorage).
    ``then``: a function of the open page run after the measures; its problems join the visit's.
    """
    v = Visit()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    inflight: dict[object, str] = {}

    def gate(route):
        if is_local(route.request.url):
            v.requested.append(route.request.url)
            route.continue_()
        else:
            v.blocked.append(route.request.url)
            route.abort("blockedbyclient")

    def on_request(request):
        inflight[request] = request.url
        if not is_local(request.url) and request.url not in v.blocked:  # bypassed the route (never seen)
            v.blocked.append(request.url)

    def on_failed(request):
        inflight.pop(request, None)
        if is_local(request.url):
            v.local_failures.append(f"{request.failure} {request.url}")

    def on_response(response):
        if response.status >= 400:
            v.local_failures.append(f"{response.status} {response.url}")

    def on_console(msg):
        text = f"{msg.text} ({msg.location.get('url', '')}:{msg.location.get('lineNumber', '')})"
        if msg.type == "error":
            v.console_errors.append(text)
        elif msg.type == "warning":
            v.console_warnings.append(text)

    if init_script:
        context.add_init_script(init_script)
    context.route("**/*", gate)
    context.on("request", on_request)
    context.on("requestfinished", lambda request: inflight.pop(request, None))
    context.on("requestfailed", on_failed)
    page = context.new_page()
    page.on("response", on_response)
    page.on("console", on_console)
    page.on("pageerror", lambda exc: v.console_errors.append(f"uncaught exception: {exc}"))
    page.on("websocket", lambda ws: v.blocked.append(ws.url))
    try:
        page.goto(url, wait_until="load")
        if redirect_to is not None:
            page.wait_for_url(redirect_to, wait_until="load")
        v.has_math_markup = page.evaluate("() => document.querySelectorAll('.math').length") > 0
        v.mathjax_script = page.evaluate("() => !!document.querySelector('script[src*=\"mathjax\"]')")
        if v.has_math_markup and v.mathjax_script:
            page.wait_for_function(
                "() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise"
            )
            page.evaluate("() => window.MathJax.startup.promise.then(() => true)")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        v.pending = wait_until_quiet(page, inflight)
        v.math = page.evaluate(MATH_STATE_JS)
        v.images = page.evaluate(IMAGES_JS)
        v.links = page.evaluate(LINKS_JS)
        v.raw_markdown = page.evaluate(RAW_MARKDOWN_JS)
        v.footer = page.evaluate(FOOTER_JS)
        if then is not None:
            v.later = then(page)
    finally:
        context.close()
    return v


def offline_problems(v: Visit, page_path: str, base_url: str, html_root: Path, shot: Path | None) -> list[str]:
    """What the visit ``v`` of ``page_path`` found wrong, with its links resolved; its counts go to ``RESULTS``
    (``shot``: the full-page screenshot taken of it, if any)."""
    internal = sorted({u for u in v.links if u.startswith(base_url)})
    external = sorted({u for u in v.links if not u.startswith(base_url) and urlsplit(u).scheme in ("http", "https")})
    broken_links = [p for p in (resolve_internal(u, base_url, html_root) for u in internal) if p]
    wrong_repo = [u for u in v.links if any(w in u for w in WRONG_REPOSITORIES)]

    RESULTS[page_path] = {
        "math_elements": v.math["math_elements"],
        "mjx_containers": v.math["mjx_containers"],
        "images": len(v.images),
        "internal_links": len(internal),
        "external_links": external,
        "blocked_requests": v.blocked,
        "local_failures": v.local_failures,
        "console_errors": v.console_errors,
        "console_warnings": v.console_warnings,
        "screenshot": shot and str(shot.relative_to(REPO) if shot.is_relative_to(REPO) else shot),
    }

    problems = v.problems() + v.later
    if broken_links:
        problems.append(f"broken internal links: {broken_links}")
    if wrong_repo:
        problems.append(f"links to another project's repository: {wrong_repo}")
    if v.footer is None or not all(s in v.footer for s in FOOTER_MUST_CONTAIN):
        problems.append(f"footer should contain {FOOTER_MUST_CONTAIN}, got {v.footer!r}")
    return problems + accessibility.pdf_links(v.links, v.footer, html_root)
