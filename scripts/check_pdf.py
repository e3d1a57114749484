"""Check the PDF edition (``make pdf``): its LaTeX log, its LaTeX source and the PDF itself.

Fails (exit status 1, each problem on its own line) on:

- a LaTeX error (a log line starting with ``!``) or no PDF at all;
- a missing glyph (``Missing character: There is no ...``): a character printed as nothing;
- an undefined reference or citation (LaTeX's ``Reference/Hyper reference/Citation ... undefined``);
- a display repr in the PDF's text (``LiveExplorer('``, ``<Figure size``, ``object at 0x``): an output that
  should have printed as a figure;
- a figure without an image (a ``figure`` environment of the LaTeX source with no ``\\includegraphics``), or
  fewer images in the PDF (``pdfimages -list``) than the source includes;
- a font that is not embedded (``pdffonts``).

Prints the page count and the figure count. Needs poppler-utils (pdfinfo, pdftotext, pdfimages, pdffonts).

Usage: ``python scripts/check_pdf.py _build/latex/book.log _build/latex/book.pdf --tex _build/latex/book.tex``
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

#: Text that only a display object's repr prints.
REPRS = ("LiveExplorer('", "<Figure size", " object at 0x", "<IPython.core.display")
_MISSING = re.compile(r"Missing character: There is no (.+?) in font (.+?)!?$")
_UNDEFINED = re.compile(r"(?:LaTeX|pdfTeX) Warning: (?:Hyper reference|Reference|Citation) `([^']+)'"
                        r".*?undefined")
_FIGURE = re.compile(r"\\begin\{figure\}(.*?)\\end\{figure\}", re.S)
_LABEL = re.compile(r"\\label\{(?:\\detokenize\{)?([^}]+)\}")
_GRAPHICS = re.compile(r"\\(?:sphinx)?includegraphics")


def _unwrap(log: str) -> str:
    """TeX wraps log lines at 79 characters: join the continuation lines back."""
    return re.sub(r"(?m)^(.{79})\n", r"\1", log)


def latex_errors(log: str) -> list[str]:
    """Each LaTeX error of the log, with the source line it names (``l.NNN``) when there is one."""
    lines = log.splitlines()
    errors = []
    for i, line in enumerate(lines):
        if line.startswith("! "):
            where = next((s.split(" ", 1)[0] for s in lines[i + 1:i + 12] if s.startswith("l.")), "")
            errors.append(f"{line[2:].strip()} {where}".strip())
    return errors


def missing_glyphs(log: str) -> list[str]:
    """Distinct "character in font" pairs that LaTeX could not print."""
    found = []
    for line in _unwrap(log).splitlines():
        match = _MISSING.search(line)
        if match:
            entry = f"{match.group(1)} in {match.group(2).split('/')[0]}"
            if entry not in found:
                found.append(entry)
    return found


def undefined_references(log: str) -> list[str]:
    """Distinct labels that a reference or citation of the last LaTeX run did not find."""
    found = []
    for line in _unwrap(log).splitlines():
        match = _UNDEFINED.search(line)
        if match and match.group(1) not in found:
            found.append(match.group(1))
    return found


def reprs(text: str) -> list[str]:
    """Lines of the PDF's text that hold a display object's repr."""
    return [line.strip() for line in text.splitlines() if any(r in line for r in REPRS)]


def figures(tex: str) -> tuple[int, int, list[str]]:
    """(figures, included images, labels of the figures without an image) of the LaTeX source."""
    missing, count = [], 0
    for body in _FIGURE.findall(tex):
        count += 1
        if not _GRAPHICS.search(body):
            labels = _LABEL.findall(body)
            missing.append(labels[-1] if labels else f"figure {count} (no label)")
    return count, len(_GRAPHICS.findall(tex)), missing


def pdf_images(listing: str) -> int:
    """Images in a ``pdfimages -list`` listing (not counting their soft masks)."""
    return sum(1 for line in listing.splitlines()[2:] if line.split()[2:3] == ["image"])


def unembedded_fonts(pdffonts: str) -> list[str]:
    """Fonts that ``pdffonts`` lists as not embedded (its "emb" column)."""
    lines = pdffonts.splitlines()
    if len(lines) < 2 or not lines[1].startswith("---"):
        return []
    # the columns are fixed-width: name, type, encoding, emb, sub, uni, object ID
    emb = lines[0].index("emb")
    return [line.split()[0] for line in lines[2:] if line[emb:emb + 3].strip() == "no"]


def _run(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def check(log: str, tex: str, pdf: Path | None) -> tuple[list[str], dict]:
    """Problems and counts (pages, figures, images) of a LaTeX log and source and of the PDF (None: none)."""
    problems = [f"LaTeX error: {e}" for e in latex_errors(log)]
    problems += [f"missing glyph: {g}" for g in missing_glyphs(log)]
    problems += [f"undefined reference: {r}" for r in undefined_references(log)]
    n_figures, n_graphics, without = figures(tex)
    problems += [f"figure without an image: {label}" for label in without]
    counts = {"figures": n_figures, "images included": n_graphics}
    if pdf is None or not pdf.is_file():
        problems.append(f"no PDF: {pdf}")
        return problems, counts
    info = _run("pdfinfo", str(pdf))
    counts["pages"] = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    problems += [f"repr in the PDF: {line}" for line in reprs(_run("pdftotext", "-q", str(pdf), "-"))]
    images = pdf_images(_run("pdfimages", "-list", str(pdf)))
    counts["images in the PDF"] = images
    if images < n_graphics:
        problems.append(f"the PDF holds {images} images, fewer than the {n_graphics} the source includes")
    problems += [f"font not embedded: {f}" for f in unembedded_fonts(_run("pdffonts", str(pdf)))]
    return problems, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path, help="the LaTeX log (book.log)")
    parser.add_argument("pdf", type=Path, help="the PDF (book.pdf)")
    parser.add_argument("--tex", type=Path, required=True, help="the LaTeX source (book.tex)")
    args = parser.parse_args(argv)
    for path in (args.log, args.tex):
        if not path.is_file():
            print(f"check_pdf: {path} does not exist (run `make pdf`)", file=sys.stderr)
            return 1
    log = args.log.read_text(encoding="utf-8", errors="replace")
    tex = args.tex.read_text(encoding="utf-8", errors="replace")
    problems, counts = check(log, tex, args.pdf)
    print("PDF edition: " + ", ".join(f"{value} {name}" for name, value in counts.items()))
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        print(f"check_pdf: {len(problems)} problems in {args.pdf}", file=sys.stderr)
        return 1
    print("check_pdf: no LaTeX error, no missing glyph, no undefined reference, no repr, every figure drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
