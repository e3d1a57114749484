"""Make the HTML book render with no network.

A tiny local Sphinx extension (registered in ``_config.yml`` under ``sphinx: local_extensions``):

1. **MathJax served from the build.** ``mathjax_path`` points at ``_static/mathjax/tex-mml-chtml.js``; at
   ``build-finished`` this extension copies the parts of an installed MathJax 3 that the page can load
   (the combined ``tex-mml-chtml`` component, the TeX extensions it autoloads, the CHTML web fonts, the
   accessibility components and speech maps of its context menu) from ``node_modules/mathjax/es5`` (the
   npm package pinned in ``package.json`` / ``package-lock.json``, installed by ``make install`` with
   ``npm ci``; never committed) into ``<outdir>/_static/mathjax/``. MathJax is deliberately *not* put in a
   source ``_static/`` folder: Jupyter Book injects every ``.js`` file found there into every page.
2. **MathJax on every page** (Sphinx's HTML assets policy "always"): the navigation shows chapter titles,
   some with math, on every page, including pages without equations of their own (search, index).
3. **The book's stylesheet and script** (``_ext/style/book.css``: code cells that fit 88 characters at 1280
   px, display equations, tables and code that scroll with a cue instead of clipping on narrow screens,
   figures for the width of the screen; ``_ext/style/book.js``: narrow tables stacked on a phone) are served
   from the build on every page. Like MathJax they are not in a source ``_static/`` folder.
4. **No remote assets.** At ``html-page-context`` every script and stylesheet the page links, and every
   ``<script src>`` / ``<link href>`` / ``<iframe src>`` in its body, must be local; a remote URL is a build
   warning, hence an error under ``jupyter-book build --warningiserror``.

Configuration values (``sphinx: config:`` in ``_config.yml``):

``offline_mathjax_source``
    Folder holding MathJax's ``es5`` build, relative to the book root (default
    ``node_modules/mathjax/es5``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

MATHJAX_DIR = "mathjax"  # under <outdir>/_static/
MATHJAX_ENTRY = "tex-mml-chtml.js"
# What tex-mml-chtml.js can request at run time, relative to MathJax's es5/ folder.
MATHJAX_PARTS = (
    MATHJAX_ENTRY,
    "input/tex/extensions",  # \require and autoloaded packages (e.g. \boldsymbol, \cancel)
    "input/mml/entities.js",  # loaded for unknown MathML entities
    "output/chtml/fonts/woff-v2",  # the CHTML web fonts
    "a11y",  # context menu -> Accessibility (explorer, semantic enrichment, speech)
    "sre",  # speech-rule-engine locale maps used by the explorer
)

_REMOTE = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.IGNORECASE)
_BODY_REMOTE = re.compile(
    r"<(?:script|iframe|img)\b[^>]*\bsrc\s*=\s*[\"']?((?:[a-z][a-z0-9+.-]*:)?//[^\"'\s>]+)"
    r"|<link\b[^>]*\bhref\s*=\s*[\"']?((?:[a-z][a-z0-9+.-]*:)?//[^\"'\s>]+)",
    re.IGNORECASE,
)


def _is_remote(url: str) -> bool:
    return bool(url) and bool(_REMOTE.match(url.strip()))


def mathjax_source(app) -> Path:
    return (Path(app.confdir) / app.config.offline_mathjax_source).resolve()


STYLE_DIR = Path(__file__).resolve().parent / "style"
STYLESHEET = "book.css"
SCRIPT = "book.js"


def _check_config(app, config) -> None:
    config.html_static_path.append(str(STYLE_DIR))
    if _is_remote(config.mathjax_path or ""):
        logger.warning(
            f"[offline_assets] mathjax_path is remote ({config.mathjax_path}); set it to "
            f"'{MATHJAX_DIR}/{MATHJAX_ENTRY}' so that MathJax is served from the build",
            type="offline_assets",
        )


def _check_source(app) -> None:
    if app.builder.format != "html":
        return
    src = mathjax_source(app)
    missing = [part for part in MATHJAX_PARTS if not (src / part).exists()]
    if missing:
        raise FileNotFoundError(
            f"[offline_assets] MathJax not found in {src} (missing {', '.join(missing)}). "
            "Install the pinned front-end assets with `make install` (runs `npm ci`)."
        )


def remote_resources(context: dict) -> list[str]:
    """Remote URLs a page would load: its script and stylesheet files and the src/href of its body's
    <script>, <iframe>, <img> and <link> tags (links the reader may follow, <a href>, are not loads)."""
    remote = []
    for key in ("script_files", "css_files"):
        for asset in context.get(key, []):
            url = getattr(asset, "filename", asset)
            if isinstance(url, str) and _is_remote(url):
                remote.append(url)
    for match in _BODY_REMOTE.finditer(context.get("body", "") or ""):
        remote.append(match.group(1) or match.group(2))
    return remote


def _check_page(app, pagename, templatename, context, doctree) -> None:
    """Warn (an error under -W) about any remote script, stylesheet or embedded resource on the page."""
    for url in remote_resources(context):
        logger.warning(
            f"[offline_assets] page {pagename!r} links a remote resource: {url}",
            type="offline_assets",
        )


def copy_mathjax(app, exception) -> None:
    """Copy MathJax's run-time files into <outdir>/_static/mathjax (HTML builds only)."""
    if exception is not None or app.builder.format != "html":
        return
    src = mathjax_source(app)
    dest = Path(app.outdir) / "_static" / MATHJAX_DIR
    if dest.exists():
        shutil.rmtree(dest)
    for part in MATHJAX_PARTS:
        target = dest / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if (src / part).is_dir():
            shutil.copytree(src / part, target)
        else:
            shutil.copy2(src / part, target)
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    logger.info(f"[offline_assets] MathJax copied to {dest} ({size / 2**20:.1f} MiB)")


def setup(app):
    app.add_config_value("offline_mathjax_source", "node_modules/mathjax/es5", "html")
    # MathJax on every page, not only on pages with equations of their own: chapter titles with math appear
    # in the navigation of every page (search and index pages included), and would stay raw TeX there.
    app.set_html_assets_policy("always")
    app.connect("config-inited", _check_config)
    app.add_css_file(STYLESHEET)
    app.add_js_file(SCRIPT, defer="defer")
    app.connect("builder-inited", _check_source)
    app.connect("html-page-context", _check_page, priority=900)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
