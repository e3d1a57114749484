"""Accessible HTML pages: the fixes for what axe-core finds (tests/browser/test_publication_in_browser.py).

A local Sphinx extension (listed in ``_config.yml``); its CSS side is in ``_ext/style/book.css``:

1. **Theme templates** (``_ext/templates/``, put first on ``templates_path`` so that they replace the theme's
   components): the search button's accessible name is its visible text, and the colour-mode button's icons
   are decorative (both were axe's ``label-content-name-mismatch``).
2. **Folded code cells**: MyST-NB labels the ``<summary>`` of a hidden cell "Toggle hidden content" while it
   shows "Show code cell source"; without the label, the name is the visible text.
3. **The bibliography**: sphinxcontrib-bibtex marks its list ``role="list"`` and each entry
   ``role="doc-biblioentry"``, which ARIA 1.2 deprecates and which is not a list item (axe's
   ``aria-required-children``); each entry becomes a ``listitem``.
4. **The sidebar's folds**: an entry of the table of contents with sections (the API reference) folds them
   behind a ``<summary>`` that holds only an icon (axe's ``summary-name``); it is named "Sections of <entry>".
   The sidebar is written by the theme's ``generate_toctree_html``, which is wrapped for that.
"""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Markup of the built pages -> its accessible replacement.
REPLACEMENTS = {
    '<summary aria-label="Toggle hidden content">': "<summary>",
    'role="doc-biblioentry"': 'role="listitem"',
}


def use_templates(config) -> None:
    """Put ``_ext/templates`` first on the template path (before the theme's components)."""
    path = str(TEMPLATES)
    if path in config.templates_path:
        config.templates_path.remove(path)
    config.templates_path.insert(0, path)


def accessible(body: str) -> str:
    """The page body with :data:`REPLACEMENTS` applied."""
    for old, new in REPLACEMENTS.items():
        body = body.replace(old, new)
    return body


_FOLD = re.compile(r'(<a class="[^"]*reference internal[^"]*" href="[^"]*">([^<]*)</a><details[^>]*>)<summary>')


def named_folds(toctree: str) -> str:
    """The sidebar's table of contents with each fold's ``<summary>`` named after its entry (or "Sections"
    when the entry's text holds markup)."""
    toctree = _FOLD.sub(lambda m: f'{m.group(1)}<summary aria-label="Sections of {m.group(2).strip()}">', toctree)
    return re.sub(r"(<details[^>]*>)<summary>", r'\1<summary aria-label="Sections">', toctree)


def _configure(app, config) -> None:
    use_templates(config)


def _page(app, pagename, templatename, context, doctree) -> None:
    if "body" in context:
        context["body"] = accessible(context["body"])
    toctree = context.get("generate_toctree_html")
    if callable(toctree):
        def named(*args, **kwargs):
            html = toctree(*args, **kwargs)
            if isinstance(html, str):  # a str stays a str, markupsafe's Markup stays Markup
                return type(html)(named_folds(html))
            return type(html)(named_folds(str(html)), "html.parser")  # the theme's BeautifulSoup

        context["generate_toctree_html"] = named


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _page, priority=600)  # after the theme adds generate_toctree_html
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
