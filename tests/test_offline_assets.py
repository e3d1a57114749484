"""The configuration that keeps the HTML book offline-complete (fast checks; the real-browser test of the
built book is tests/browser/, run after the build)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def _load_extension():
    spec = importlib.util.spec_from_file_location("offline_assets", REPO / "_ext" / "offline_assets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


offline_assets = _load_extension()


def _config() -> dict:
    return yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))


def test_remote_detection():
    is_remote = offline_assets._is_remote
    for url in ("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js", "http://x.org/a.css",
                "//unpkg.com/thebe", "HTTPS://EXAMPLE.COM"):
        assert is_remote(url), url
    for url in ("mathjax/tex-mml-chtml.js", "_static/x.js", "../_static/y.css", "", "data.js"):
        assert not is_remote(url), url


class _Asset(str):
    def __new__(cls, filename):
        obj = super().__new__(cls, filename)
        obj.filename = filename
        return obj


def test_remote_resources_of_a_page():
    context = {
        "script_files": [_Asset("_static/doctools.js"), _Asset("https://unpkg.com/thebe@0.8.2/lib/index.js"),
                         _Asset("")],
        "css_files": [_Asset("_static/pygments.css"), _Asset("//fonts.example.org/font.css")],
        "body": (
            '<p><a href="https://arxiv.org/abs/2605.06826">paper</a></p>'  # a link, not a load: allowed
            '<img src="../_images/fig.png"/><img src="https://example.org/fig.png"/>'
            '<script src="https://cdn.example.org/require.min.js"></script>'
            "<iframe src='https://example.org/embed'></iframe>"
            '<link rel="stylesheet" href="http://example.org/x.css"/>'
        ),
    }
    assert offline_assets.remote_resources(context) == [
        "https://unpkg.com/thebe@0.8.2/lib/index.js",
        "//fonts.example.org/font.css",
        "https://example.org/fig.png",
        "https://cdn.example.org/require.min.js",
        "https://example.org/embed",
        "http://example.org/x.css",
    ]
    assert offline_assets.remote_resources({"script_files": [], "body": "<p>$x$</p>"}) == []


def test_config_serves_everything_from_the_build():
    cfg = _config()
    sphinx = cfg["sphinx"]
    assert sphinx["local_extensions"] == {"offline_assets": "_ext"}
    conf = sphinx["config"]
    assert "offline_assets" in conf["extensions"]
    # Jupyter Book always loads sphinx_thebe (CDN script, duplicate-const console error) unless the
    # extension list is given explicitly without it.
    assert "sphinx_thebe" not in conf["extensions"]
    assert not offline_assets._is_remote(conf["mathjax_path"])
    assert conf["mathjax_path"] == f"{offline_assets.MATHJAX_DIR}/{offline_assets.MATHJAX_ENTRY}"
    assert conf["nb_ipywidgets_js"] == {}
    assert conf["html_context"]["default_mode"] in ("light", "dark", "auto")
    assert cfg["launch_buttons"]["thebe"] is False
    assert not cfg["repository"]["url"]
    assert not any(cfg["html"][k] for k in ("use_repository_button", "use_issues_button", "use_edit_page_button"))
    assert {"node_modules", "node_modules/**"} <= set(cfg["exclude_patterns"])
    # No source _static/: Jupyter Book would inject every .js in it into every page.
    assert not (REPO / "_static").exists()


def test_mathjax_is_pinned_and_not_committed():
    package = json.loads((REPO / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((REPO / "package-lock.json").read_text(encoding="utf-8"))
    version = package["dependencies"]["mathjax"]
    assert version.split(".")[0] == "3" and version.count(".") == 2, "pin an exact MathJax 3 version"
    assert lock["packages"]["node_modules/mathjax"]["version"] == version
    assert lock["packages"]["node_modules/mathjax"]["integrity"].startswith("sha512-")
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").split()
    assert "node_modules/" in ignored


def test_markdown_outputs_render_as_tables():
    # attnlib.views.tables.markdown_table returns GitHub-flavoured Markdown; myst-nb's default ("commonmark") has no
    # tables and shows them as raw pipes (the browser test checks the rendered pages for that too).
    assert _config()["sphinx"]["config"]["nb_render_markdown_format"] == "gfm"
