"""The JS renderers of the live figures against their Python records (``attnlib.views.webexplorer.KINDS``), in
Chromium.

Each record names the script of ``_ext/web/`` whose renderer draws its kind. The scripts are loaded one by one,
in the order the book serves them, into a blank page; after each, the kinds it added to
``window.attnlibWeb.kinds`` are read. Every kind must be added by the script its record names, and no script may
add a kind that has no record (a renderer nothing embeds). A renderer must have the parts the widget calls.
Needs only the JS files (not the built book); runs with the browser tests (``ATTNLIB_BROWSER_TEST=1``).
"""

from __future__ import annotations

import pytest

from attnlib.views import webexplorer

from .conftest import ENABLED

if not ENABLED:
    pytest.skip("browser test (ATTNLIB_BROWSER_TEST=1)", allow_module_level=True)

from .test_js_theory import live_explorers  # noqa: E402

# What the widget (attnlib-explorers.js) calls on every renderer.
PARTS = ("panels", "theory", "draw", "legend", "readout")
KINDS_JS = "() => Object.fromEntries(Object.entries((window.attnlibWeb || {}).kinds || {}).map(([k, v]) => " \
           "[k, Object.keys(v)]))"


def loaded_kinds(browser) -> tuple[dict, dict]:
    """(kind -> the script that added it, kind -> the names of its renderer's parts)."""
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        added, parts = {}, {}
        # every script but the widget, which boots the figures of a page
        for name in live_explorers.SCRIPTS[:-1]:
            page.add_script_tag(content=(live_explorers.WEB_DIR / name).read_text(encoding="utf-8"))
            now = page.evaluate(KINDS_JS)
            for kind in set(now) - set(parts):
                added[kind] = name
            parts = now
        assert not errors, errors
        return added, parts
    finally:
        page.close()


def test_each_kind_is_drawn_by_the_script_its_record_names(browser):
    added, parts = loaded_kinds(browser)
    assert added == {name: kind.script for name, kind in webexplorer.KINDS.items()}
    for name in webexplorer.KINDS:
        assert set(PARTS) <= set(parts[name]), f"{name}: the renderer lacks {set(PARTS) - set(parts[name])}"
