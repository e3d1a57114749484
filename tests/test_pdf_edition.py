"""_ext/pdf_edition.py: the pure parts of the PDF layout (parts, chapter numbers, glyph fallback, escaping)."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("pdf_edition", ROOT / "_ext" / "pdf_edition.py")
pdf_edition = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pdf_edition)


def _site_map():
    tree = SimpleNamespace
    return tree(root=tree(subtrees=[tree(caption="Start here", numbered=False, items=["a", "b"]),
                                    tree(caption="Part one", numbered=True, items=["c", "d"]),
                                    tree(caption="Appendix", numbered=False, items=["e"])]))


def test_parts_mark_the_first_chapter_of_each_part():
    assert pdf_edition.parts(_site_map()) == {"a": (False, "Start here"), "b": (False, None),
                                              "c": (True, "Part one"), "d": (True, None),
                                              "e": (False, "Appendix")}


def test_numbering_agrees_with_the_html_or_says_where_not():
    chapters = pdf_edition.parts(_site_map())
    html = {"c": {"": (1,)}, "d": {"": (2,), "#s": (2, 1)}}
    assert pdf_edition.numbering_mismatches(list("abcde"), chapters, html) == []
    shifted = {"c": {"": (2,)}, "d": {"": (3,)}}
    assert pdf_edition.numbering_mismatches(list("abcde"), chapters, shifted) == [
        "c is chapter (1,) in the PDF but (2,) in the HTML", "d is chapter (2,) in the PDF but (3,) in the HTML"]
    assert pdf_edition.numbering_mismatches(list("abcde"), chapters, {**html, "e": {"": (3,)}}) == [
        "e is chapter (none) in the PDF but (3,) in the HTML"]


def test_fallback_covers_only_what_a_text_font_lacks(monkeypatch):
    fonts = {"DejaVu Serif": {0xE9, 0x22A0}, "DejaVu Sans": {0xE9, 0x22A0}, "DejaVu Sans Mono": {0xE9},
             "DejaVu Math TeX Gyre": {0x22A0, 0x1D4D4}}
    monkeypatch.setattr(pdf_edition, "charset", lambda font: fonts[font])
    preamble = pdf_edition.fallback_preamble({"é", "⊠", "𝓔", "☃"})
    assert '\\newunicodechar{⊠}{{\\attnfallbackfont\\char"22A0\\relax}}' in preamble
    assert '"1D4D4' in preamble
    assert "{é}" not in preamble and "☃" not in preamble  # in every text font; in no font


def test_captions_are_escaped_for_latex():
    assert pdf_edition._latex("50% of R&D_1 {x}") == r"50\% of R\&D\_1 \{x\}"
