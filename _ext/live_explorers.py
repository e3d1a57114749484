"""Serve the book's live explorers: the scripts that turn ``attnlib.views.webexplorer`` outputs into live figures.

A local Sphinx extension (listed in ``_config.yml`` under ``sphinx: config: extensions``; ``_ext/`` is on the
path through ``local_extensions``):

1. **Assets from the build.** The files of ``_ext/web/`` are added to ``html_static_path``, so the HTML build
   copies them into ``_static/``: the closed forms (``THEORY_SCRIPTS``: ``attnlib-theory-*.js``, one concept
   each, and ``attnlib-theory.js``, which defines ``window.attnlibTheory``), the explorers
   (``EXPLORER_SCRIPTS``: numbers and text, canvas plots, the kinds (a file per group), and
   ``attnlib-explorers.js``, the widget, which defines ``window.attnlibExplorers`` and boots the figures) and
   ``attnlib-explorers.css``. Classic scripts, no modules and no library: the pages work offline and from
   ``file://`` (where browsers refuse ES modules); they share code through one global, ``window.attnlibWeb``.
2. **Only on pages that have an explorer.** At ``html-page-context`` the scripts (deferred, so they run in the
   order of ``SCRIPTS``: each one uses only those before it) and the stylesheet are added to the pages whose
   body holds an ``attnlib-explorer`` block, and to no other page. They are deliberately not in a source
   ``_static/`` folder: Jupyter Book would inject every ``.js`` file found there into every page.
3. **Size budget.** The scripts and stylesheet together must stay under ``live_explorers_budget`` bytes
   (default 300 000); a larger total is a build warning (an error under ``--warningiserror``).
"""

from __future__ import annotations

from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

WEB_DIR = Path(__file__).resolve().parent / "web"
THEORY_SCRIPTS = (  # window.attnlibTheory, the closed forms
    "attnlib-theory-checks.js",  # argument checks
    "attnlib-theory-libm.js",  # cbrt and x**3 as numpy computes them
    "attnlib-theory-law.js",  # the bulk law: density, edges, atom, thresholds
    "attnlib-theory-spikes.js",  # outliers and overlaps of a spike
    "attnlib-theory-eigen.js",  # symmetric eigen-decomposition
    "attnlib-theory-weights.js",  # pooling weights, alpha, kappa
    "attnlib-theory-families.js",  # the R of the explorers' families
    "attnlib-theory-mp.js",  # the Marchenko-Pastur density and its Stieltjes transform (the primer)
    "attnlib-theory.js",  # defines window.attnlibTheory
)
EXPLORER_SCRIPTS = (  # window.attnlibExplorers, the live figures (they use the theory)
    "attnlib-format.js",  # numbers, text, DOM elements
    "attnlib-plot.js",  # canvas panels, ticks, axis limits
    "attnlib-kinds-weights.js",  # kinds weights and family, the cached theory of a family's R
    "attnlib-kinds-spectrum.js",  # kinds spectrum and bulk (use the cached theory)
    "attnlib-kinds-spikes.js",  # kind phase (the phase diagram, the overlaps along theta)
    "attnlib-kinds-recovery.js",  # kinds population_recovery and sample_recovery (use the cached theory)
    "attnlib-kinds-primer.js",  # kind primer (the MP law and its transform, a spike, MP ⊠ MP)
    "attnlib-kinds-heads.js",  # kind heads, and the port of attnlib.theory.heads (window.attnlibWeb.heads)
    "attnlib-explorers.js",  # the widget; defines window.attnlibExplorers and boots the figures
)
SCRIPTS = (*THEORY_SCRIPTS, *EXPLORER_SCRIPTS)  # in this order: each script uses only those before it
STYLESHEET = "attnlib-explorers.css"
MARKER = 'class="attnlib-explorer"'


def asset_bytes() -> int:
    """Total size of the files the explorers add to a page."""
    return sum((WEB_DIR / name).stat().st_size for name in (*SCRIPTS, STYLESHEET))


def has_explorer(body: str) -> bool:
    """Whether a page body holds a live explorer block (written by ``attnlib.views.webexplorer.embed``)."""
    return MARKER in (body or "")


def _check(app, config) -> None:
    missing = [name for name in (*SCRIPTS, STYLESHEET) if not (WEB_DIR / name).is_file()]
    if missing:
        raise FileNotFoundError(f"[live_explorers] missing in {WEB_DIR}: {', '.join(missing)}")
    config.html_static_path.append(str(WEB_DIR))
    size = asset_bytes()
    if size > config.live_explorers_budget:
        logger.warning(f"[live_explorers] the explorers' scripts and stylesheet take {size} bytes, over the "
                       f"budget of {config.live_explorers_budget}", type="live_explorers")


def _add_to_page(app, pagename, templatename, context, doctree) -> None:
    if app.builder.format != "html" or not has_explorer(context.get("body", "")):
        return
    app.builder.add_css_file(STYLESHEET)
    for name in SCRIPTS:
        app.builder.add_js_file(name, defer="defer")


def setup(app):
    app.add_config_value("live_explorers_budget", 300_000, "html")
    app.connect("config-inited", _check)
    app.connect("html-page-context", _add_to_page)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
