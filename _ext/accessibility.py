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
"""

from __future__ import annotations

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


def _configure(app, config) -> None:
    use_templates(config)


def _page(app, pagename, templatename, context, doctree) -> None:
    if "body" in context:
        context["body"] = accessible(context["body"])


def setup(app):
    app.connect("config-inited", _configure)
    app.connect("html-page-context", _page)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
