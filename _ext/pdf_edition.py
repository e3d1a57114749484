"""The PDF edition: what Sphinx's LaTeX builder needs to print this book as the HTML shows it.

A local Sphinx extension (listed in ``_config.yml``); it acts on LaTeX builds only (``make pdf``):

1. **Fonts.** DejaVu Serif, Sans and Sans Mono (Debian's fonts-dejavu), which carry most characters the book
   writes in text and code (ᵀ, ⊠, ⟨⟩, subscripts, Greek), instead of Sphinx's FreeFont default. A character
   of the text that one of them lacks (script and fraktur letters such as 𝓔, 𝔯) is typeset in DejaVu Math TeX
   Gyre (fonts-dejavu-extra), through ``\newunicodechar``; the coverage comes from fontconfig (``fc-match``).
2. **The title page** gives the edition: version, commit and build date (from :mod:`edition`).
3. **Parts and numbering as in the HTML.** The introduction is one unnumbered chapter (its sections are
   sections, not chapters); each caption of ``_toc.yml`` becomes a part; chapters of unnumbered parts are
   unnumbered and their figures and equations numbered 1, 2, ... as in the HTML; chapters of numbered parts
   carry on the HTML's chapter numbers (1-14), with figures and equations numbered chapter.n.
4. **What the HTML folds away is not printed**: inputs of ``hide-input`` cells, outputs of ``hide-output``
   cells and whole ``hide-cell`` cells (MyST-NB already drops the ``remove-*`` ones).
5. **Live explorers print as their still image** (``nb_mime_priority_overrides`` in ``_config.yml`` picks the
   PNG); an explorer without a still prints a sentence saying that it is interactive, never its repr (which
   ``scripts/check_pdf.py`` rejects, as it rejects a figure without an image).
"""

from __future__ import annotations

import subprocess

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

FONTS = r"""
\setmainfont{DejaVu Serif}[Scale=0.9]
\setsansfont{DejaVu Sans}[Scale=0.9]
\setmonofont{DejaVu Sans Mono}[Scale=0.8]
"""

# \attnUnnumbered / \attnNumbered switch between the unnumbered front and back matter and the numbered parts.
PREAMBLE = r"""
\newcounter{attnsecnumdepth}
\newcommand{\attnUnnumbered}{%
  \setcounter{secnumdepth}{-1}%
  \renewcommand{\thefigure}{\arabic{figure}}%
  \renewcommand{\theequation}{\arabic{equation}}%
  \renewcommand{\thetable}{\arabic{table}}}
\newcommand{\attnNumbered}{%
  \setcounter{secnumdepth}{\value{attnsecnumdepth}}%
  \renewcommand{\thefigure}{\thechapter.\arabic{figure}}%
  \renewcommand{\theequation}{\thechapter.\arabic{equation}}%
  \renewcommand{\thetable}{\thechapter.\arabic{table}}}
\newcommand{\attnPart}[2]{% #1: numbered (1) or not (0); #2: the caption
  \ifnum#1=1 \attnNumbered\part{#2}%
  \else \attnUnnumbered\part*{#2}\phantomsection\addcontentsline{toc}{part}{#2}\fi}
"""

TEXT_FONTS = ("DejaVu Serif", "DejaVu Sans", "DejaVu Sans Mono")
FALLBACK_FONT = "DejaVu Math TeX Gyre"

#: What an explorer without a still image prints in place of its figure.
NO_STILL = "Interactive figure: its controls work in the HTML version of this book."
HIDDEN = {"tag_hide-input": "cell_input", "tag_hide-output": "cell_output"}


def _raw(text: str, inline: bool = False) -> nodes.raw:
    return nodes.raw("", text, format="latex", classes=["inline"] if inline else [])


def _latex(text: str) -> str:
    """Plain text for a LaTeX argument."""
    for char, escaped in (("\\", r"\textbackslash{}"), ("{", r"\{"), ("}", r"\}"), ("&", r"\&"),
                          ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_")):
        text = text.replace(char, escaped)
    return text


def charset(font: str) -> set[int]:
    """The code points of ``font`` (fontconfig's best match), empty if fontconfig is missing."""
    try:
        out = subprocess.run(["fc-match", "--format=%{charset}", font], capture_output=True, text=True,
                             timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return set()
    points = set()
    for span in out.split():
        lo, _, hi = span.partition("-")
        points.update(range(int(lo, 16), int(hi or lo, 16) + 1))
    return points


def fallback_preamble(chars: set[str]) -> str:
    """``\\newunicodechar`` lines: each of ``chars`` that a text font lacks and the fallback font has."""
    text = [charset(font) for font in TEXT_FONTS]
    fallback = charset(FALLBACK_FONT)
    lines = [f"\\newfontfamily\\attnfallbackfont{{{FALLBACK_FONT}}}"]
    for char in sorted(chars):
        point = ord(char)
        if point > 0x7F and point in fallback and any(point not in font for font in text):
            lines.append(f'\\newunicodechar{{{char}}}{{{{\\attnfallbackfont\\char"{point:X}\\relax}}}}')
    return "\\usepackage{newunicodechar}\n" + "\n".join(lines) + "\n"


def parts(site_map) -> dict[str, tuple[bool, str | None]]:
    """Each chapter of the table of contents -> (in a numbered part, the part's caption if it opens it)."""
    chapters = {}
    for tree in site_map.root.subtrees:
        docs = [item for item in tree.items if isinstance(item, str)]
        for i, doc in enumerate(docs):
            chapters[doc] = (bool(tree.numbered), tree.caption if i == 0 else None)
    return chapters


def numbering_mismatches(order: list[str], chapters: dict, secnumbers: dict) -> list[str]:
    """Chapters (in the PDF's ``order``) whose LaTeX number, counted over the numbered parts, is not the HTML's
    (``secnumbers``: Sphinx's ``env.toc_secnumbers``)."""
    problems, number = [], 0
    for doc in order:
        numbered = chapters[doc][0]
        number += numbered
        pdf = (number,) if numbered else ()
        html = tuple(secnumbers.get(doc, {}).get("", ()))[:1]
        if pdf != html:
            problems.append(f"{doc} is chapter {pdf or '(none)'} in the PDF but {html or '(none)'} in the HTML")
    return problems


class PrintLayout(SphinxPostTransform):
    """On the assembled LaTeX doctree of the whole book: parts, the introduction chapter, hidden cells."""

    builders = ("latex",)
    default_priority = 900

    def run(self, **kwargs) -> None:
        if self.env.docname != self.config.root_doc:
            return
        self._hide_cells()
        self._explorers_without_still()
        self._fallback_glyphs()
        self._exercise_references()
        self._introduction()
        site_map = getattr(self.config, "external_site_map", None)
        if site_map is not None:
            self._parts(parts(site_map))

    def _hide_cells(self) -> None:
        for cell in list(self.document.findall(nodes.container)):
            classes = cell.get("classes", [])
            if "cell" not in classes:
                continue
            if "tag_hide-cell" in classes:
                cell.parent.remove(cell)
                continue
            for tag, part in HIDDEN.items():
                if tag in classes:
                    for child in [c for c in cell.children if part in c.get("classes", [])]:
                        cell.remove(child)

    def _explorers_without_still(self) -> None:
        for block in list(self.document.findall(nodes.literal_block)):
            if block.astext().startswith("LiveExplorer("):
                block.replace_self(nodes.paragraph("", "", nodes.emphasis(NO_STILL, NO_STILL)))

    def _exercise_references(self) -> None:
        """sphinx-exercise labels an exercise ``exercise:LABEL`` in LaTeX, where Sphinx's numbered reference
        looks for ``DOCNAME:LABEL`` and a LaTeX counter the exercise does not have: link to its label, with
        the number the HTML shows."""
        exercises = getattr(self.env, "sphinx_exercise_registry", {})
        for ref in list(self.document.findall(addnodes.number_reference)):
            label = ref.get("refid") or ref.get("refuri", "").rpartition("#")[2]
            if label in exercises:
                text = _latex(ref.astext())
                ref.replace_self(_raw(f"\\hyperref[exercise:{label}]{{{text}}}", inline=True))

    def _fallback_glyphs(self) -> None:
        chars = set()
        for node in self.document.findall(nodes.Text):
            if not isinstance(node.parent, (nodes.math, nodes.math_block)):
                chars.update(c for c in node.astext() if ord(c) > 0x7F)
        self.app.builder.context["preamble"] += fallback_preamble(chars)

    def _introduction(self) -> None:
        """The root document's content (all but its title and toctrees) as one chapter under its title."""
        top = next(iter(self.document.findall(nodes.section)), None)
        if top is None or not isinstance(top[0], nodes.title):
            return
        # the document's own labels (such as "intro") move to the chapter: the title section prints no heading
        chapter = nodes.section("", top[0].deepcopy(), ids=top["ids"], names=top["names"])
        top["ids"], top["names"] = [], []
        for child in list(top.children[1:]):
            if "toctree-wrapper" in child.get("classes", []):
                continue
            top.remove(child)
            chapter.append(child)
        top.insert(1, chapter)
        top.insert(1, _raw("\\setcounter{attnsecnumdepth}{\\value{secnumdepth}}\\attnUnnumbered\n"))

    def _parts(self, chapters: dict[str, tuple[bool, str | None]]) -> None:
        """A part before the first chapter of each; and the check that LaTeX numbers the chapters as the HTML."""
        order = []
        for start in list(self.document.findall(addnodes.start_of_file)):
            if start["docname"] not in chapters:
                continue
            order.append(start["docname"])
            numbered, caption = chapters[start["docname"]]
            if caption:
                start.parent.insert(start.parent.index(start),
                                    _raw(f"\\attnPart{{{int(numbered)}}}{{{_latex(caption)}}}\n"))
        for problem in numbering_mismatches(order, chapters, self.env.toc_secnumbers):
            logger.warning(f"[pdf_edition] {problem}")


def _configure(app, config) -> None:
    edition = getattr(config, "attnlib_edition", None) or {}
    elements = config.latex_elements
    elements.setdefault("fontpkg", FONTS)
    elements.setdefault("papersize", "a4paper")
    elements.setdefault("pointsize", "10pt")
    elements["preamble"] = elements.get("preamble", "") + PREAMBLE
    # makeindex (texlive-binaries) builds the index: xindy is a separate package
    config.latex_use_xindy = False
    if edition:
        elements.setdefault("releasename", "Version")


def _title_date(app) -> None:
    # LaTeX builds only: set here, after the environment's config check, so that HTML builds stay incremental
    edition = getattr(app.config, "attnlib_edition", None) or {}
    if app.builder.name != "latex":
        return
    if edition:
        app.builder.context["date"] = f"{edition['date']}, commit {edition['commit']}"
    # Sphinx titles the table of contents with the first toctree's caption ("Start here"), a part's name here
    app.builder.get_contentsname = lambda indexfile: "Contents"


def setup(app):
    app.setup_extension("edition")
    # after edition's config-inited handler, which reads the version
    app.connect("config-inited", _configure, priority=600)
    app.connect("builder-inited", _title_date)
    app.add_post_transform(PrintLayout)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
