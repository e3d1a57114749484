"""The edition of the book: one version on every page and in the PDF, and links to the PDF edition.

A local Sphinx extension (listed in ``_config.yml``; ``_ext/`` is on the path through ``local_extensions``):

1. **One version.** :func:`book_version` reads it where ``pyproject.toml`` says it lives (a static
   ``version`` or, as here, ``[tool.setuptools.dynamic] version = {attr = ...}``, the string assigned in
   ``attnlib/__init__.py``), without importing the package. It becomes Sphinx's ``version`` and ``release``
   (the PDF's title page prints the release).
2. **Footer.** Every HTML page's footer says the version, the commit (``git rev-parse --short HEAD``; "unknown"
   outside a git checkout) and the build date (UTC; ``SOURCE_DATE_EPOCH`` if set), and links the PDF
   (template ``_ext/templates/edition-footer.html``).
3. **The PDF edition.** ``make pdf`` builds the PDF, copies it to ``_build/html/`` as :data:`PDF_NAME` and
   rebuilds the HTML, so that the links to it work offline and from ``file://``: an entry in each page's
   download menu, the footer link, and the role ``{pdf-edition}`text``` for a link in the text (plain text in
   the PDF itself). The HTML links the PDF only if it exists when the HTML is built (:func:`pdf_source`):
   after ``make book`` alone there is no PDF, and then no link to it, but the footer says how to make it; a
   built book never has a dead link, whichever of ``make book`` and ``make pdf`` ran first.
"""

from __future__ import annotations

import ast
import datetime
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = Path(__file__).resolve().parent / "templates"
#: The PDF edition's file name, at the root of the HTML build.
PDF_NAME = "how-does-attention-help.pdf"
#: Where ``make pdf`` leaves the PDF before copying it into the HTML build.
LATEX_PDF = ROOT / "_build" / "latex" / "book.pdf"


def pdf_source(outdir: Path) -> Path | None:
    """The PDF the HTML build at ``outdir`` can link: the copy already there, else the LaTeX build's (copied
    when the build finishes), else None (no PDF has been built)."""
    for path in (Path(outdir) / PDF_NAME, LATEX_PDF):
        if path.is_file():
            return path
    return None


def book_version(root: Path = ROOT) -> str:
    """The version that ``pyproject.toml`` declares (static, or the ``attr`` string it names)."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    if "version" in project.get("project", {}):
        return project["project"]["version"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    module, _, name = attr.rpartition(".")
    path = root / Path(*module.split("."))
    source = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"pyproject.toml names the version {attr!r}, which {source} does not assign")


def commit(root: Path = ROOT) -> str:
    """The short hash of the checked-out commit, or "unknown"."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                             text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def build_date() -> str:
    """Today (UTC), or the date of ``SOURCE_DATE_EPOCH`` for reproducible builds."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    now = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
           else datetime.datetime.now(datetime.timezone.utc))
    return now.date().isoformat()


class pdf_link(nodes.reference):
    """A link to the PDF edition (resolved per builder by :class:`ResolvePdfLinks`)."""


def pdf_edition_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [pdf_link(rawtext, text)], []


class ResolvePdfLinks(SphinxPostTransform):
    """HTML: a relative link to the PDF at the root of the build, or, if none was built, the text and how to
    build it. Elsewhere (the PDF itself): the text."""

    default_priority = 5

    def run(self, **kwargs) -> None:
        for node in list(self.document.findall(pdf_link)):
            if self.app.builder.format == "html" and self.app.config.attnlib_edition.get("pdf"):
                depth = self.app.builder.get_target_uri(self.env.docname).count("/")
                link = nodes.reference(node.rawsource, node.astext(), refuri="../" * depth + PDF_NAME,
                                       classes=["attnlib-pdf-link"])
                node.replace_self(link)
            elif self.app.builder.format == "html":
                node.replace_self([nodes.Text(node.astext() + " ("), nodes.literal("", "make pdf"),
                                   nodes.Text(" builds it)")])
            else:
                node.replace_self(nodes.Text(node.astext()))


def _configure(app, config) -> None:
    edition = {"version": book_version(), "commit": commit(), "date": build_date(), "pdf": None}
    config.version = config.release = edition["version"]
    config.attnlib_edition = edition
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path.append(str(TEMPLATES))
    items = config.html_theme_options.get("footer_content_items")
    if items is None:  # sphinx-book-theme's default, plus the edition line
        items = ["author.html", "copyright.html", "last-updated.html", "extra-footer.html"]
    config.html_theme_options["footer_content_items"] = [*items, "edition-footer.html"]


def _find_pdf(app) -> None:
    """Once the builder is known: an HTML build links the PDF if there is one to link (:func:`pdf_source`)."""
    if app.builder.format == "html" and pdf_source(app.outdir) is not None:
        app.config.attnlib_edition["pdf"] = PDF_NAME


def _page(app, pagename, templatename, context, doctree) -> None:
    context["attnlib_edition"] = app.config.attnlib_edition
    if not app.config.attnlib_edition.get("pdf"):
        return
    pdf = context["pathto"](PDF_NAME, 1)
    for group in context.get("header_buttons", []):
        if group.get("label") == "download-buttons":
            group["buttons"].append({"type": "link", "url": pdf, "text": "book (PDF)", "icon": "fas fa-book",
                                     "tooltip": "Download the whole book as one PDF",
                                     "label": "download-book-pdf-button"})


def _copy_pdf(app, exception) -> None:
    """After an HTML build that links the PDF, make sure the PDF is there (copied from the LaTeX build)."""
    if exception is None and app.builder.format == "html" and app.config.attnlib_edition.get("pdf"):
        target, source = Path(app.outdir) / PDF_NAME, pdf_source(app.outdir)
        if source is not None and source != target:
            shutil.copyfile(source, target)


def setup(app):
    app.add_config_value("attnlib_edition", {}, "html")
    app.add_role("pdf-edition", pdf_edition_role)
    app.add_node(pdf_link)
    app.add_post_transform(ResolvePdfLinks)
    app.connect("config-inited", _configure)
    app.connect("builder-inited", _find_pdf)
    # after sphinx-book-theme's add_header_buttons (priority 501), which builds the download menu
    app.connect("html-page-context", _page, priority=502)
    app.connect("build-finished", _copy_pdf)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
