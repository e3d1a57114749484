"""scripts/check_pdf.py: each rule finds its fault in a small fake log, source or listing, and passes a clean one."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("check_pdf", ROOT / "scripts" / "check_pdf.py")
check_pdf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_pdf)

CLEAN_LOG = """This is XeTeX, Version 3.141592653-2.6-0.999995 (TeX Live 2022/Debian)
LaTeX Warning: Float too large for page by 3.5pt on input line 120.
Overfull \\hbox (2.1pt too wide) in paragraph at lines 10--12
Output written on book.pdf (275 pages).
"""
FIGURE = ("\\begin{figure}[htbp]\n\\centering\n\\noindent\\sphinxincludegraphics{{a}.png}\n"
          "\\caption{A.}\\label{\\detokenize{book/02_bulk_law:fig-a}}\\end{figure}\n")
EMPTY_FIGURE = ("\\begin{figure}[htbp]\n\\centering\n\\begin{sphinxVerbatim}\nLiveExplorer('bulk')\n"
                "\\end{sphinxVerbatim}\n\\caption{B.}\\label{\\detokenize{book/03_x:fig-b}}\\end{figure}\n")
PDFIMAGES = """page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio
--------------------------------------------------------------------------------------------
   7     0 image     582   295  rgb     3   8  image  no       195  0   100   100 36.4K 7.2%
   7     1 smask     582   295  gray    1   8  image  no       195  0   100   100  531B 0.3%
"""
PDFFONTS = """name                                 type              encoding         emb sub uni object ID
------------------------------------ ----------------- ---------------- --- --- --- ---------
ANZGWT+DejaVuSans-Bold               CID TrueType      Identity-H       yes yes yes      4  0
Helvetica                            Type 1            WinAnsi          no  no  no      12  0
"""


def test_clean_log_passes_every_log_rule():
    assert check_pdf.latex_errors(CLEAN_LOG) == []
    assert check_pdf.missing_glyphs(CLEAN_LOG) == []
    assert check_pdf.undefined_references(CLEAN_LOG) == []


def test_latex_error_is_found_with_its_line():
    log = CLEAN_LOG + "! Missing { inserted.\n<to be read again>\n\\mathop\nl.859 \\(\\lambda_\\max\n"
    assert check_pdf.latex_errors(log) == ["Missing { inserted. l.859"]


def test_missing_glyph_is_found_once_even_when_tex_wraps_the_line():
    line = "Missing character: There is no ⊠ (U+22A0) in font DejaVu Sans Mono/OT:script=latn;language=dflt;!"
    wrapped = line[:79] + "\n" + line[79:]
    log = CLEAN_LOG + wrapped + "\n" + wrapped + "\n"
    assert check_pdf.missing_glyphs(log) == ["⊠ (U+22A0) in DejaVu Sans Mono"]


@pytest.mark.parametrize("kind", ["Reference", "Hyper reference", "Citation"])
def test_undefined_reference_is_found(kind):
    log = CLEAN_LOG + f"LaTeX Warning: {kind} `book/14_w:ex-exp-prefix' on page 71 undefined on input line 9.\n"
    assert check_pdf.undefined_references(log) == ["book/14_w:ex-exp-prefix"]


def test_repr_in_the_text_is_found_but_a_signature_is_not():
    text = "Fig. 3.1\nLiveExplorer('population', theta=2.0)\nclass LiveExplorer(kind, data, html)\n"
    assert check_pdf.reprs(text) == ["LiveExplorer('population', theta=2.0)"]
    assert check_pdf.reprs("<Figure size 660x300 with 1 Axes>") == ["<Figure size 660x300 with 1 Axes>"]


def test_figure_without_an_image_is_named():
    assert check_pdf.figures(FIGURE + FIGURE) == (2, 2, [])
    assert check_pdf.figures(FIGURE + EMPTY_FIGURE) == (2, 1, ["book/03_x:fig-b"])


def test_images_are_counted_without_their_masks():
    assert check_pdf.pdf_images(PDFIMAGES) == 1


def test_a_font_not_embedded_is_named():
    assert check_pdf.unembedded_fonts(PDFFONTS) == ["Helvetica"]
    assert check_pdf.unembedded_fonts("\n".join(PDFFONTS.splitlines()[:3])) == []


def test_check_without_a_pdf_fails_and_counts_the_source(tmp_path):
    problems, counts = check_pdf.check(CLEAN_LOG, FIGURE, tmp_path / "book.pdf")
    assert counts == {"figures": 1, "images included": 1}
    assert problems == [f"no PDF: {tmp_path / 'book.pdf'}"]


def test_main_fails_on_a_missing_log(tmp_path, capsys):
    assert check_pdf.main([str(tmp_path / "book.log"), str(tmp_path / "book.pdf"),
                           "--tex", str(tmp_path / "book.tex")]) == 1
    assert "does not exist" in capsys.readouterr().err
