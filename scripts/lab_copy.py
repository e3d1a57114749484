#!/usr/bin/env python
"""Make the scratch copy of the book that ``make lab`` opens in JupyterLab.

Usage:
    python scripts/lab_copy.py [DEST]      # default: _build/lab/book (made afresh)

jupyterlab-myst renders MyST in JupyterLab's Markdown cells, but not what only the Sphinx build knows: glued
values, the book-wide numbers of theorems, equations and figures, the bibliography. This script copies
book/ to DEST and, in the copy only, writes the prose as the HTML book shows it: glue roles and directives
become the glued value (from the executed notebooks' ``scrapbook`` outputs, formatted by myst-nb; Markdown
inlined, images written to DEST/_glue/); ``prf:*`` and ``exercise`` blocks admonitions titled "Theorem 2.1
(...)", proofs folded admonitions, a solution a "Solution to Exercise N" line; citations "[Author, year]"
from references.bib; ``{ref}``, ``{numref}``, ``{prf:ref}``, ``{eq}``, ``{doc}`` the text the HTML book
shows (a link to the other notebook across chapters); labelled equations their number (``\\tag``); a
figure's numbered caption follows its cell. Each .ipynb is rewritten, then its paired .md written from it
by jupytext. book/ is never modified.
"""

from __future__ import annotations

import base64
import re
import shutil
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml
from myst_nb.core.variables import format_plain_text
from pybtex.database import parse_string
from pybtex.richtext import Text

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
DEFAULT_DEST = REPO / "_build" / "lab" / "book"
MARKER = ".lab-copy"  # marks a folder this script made (and may replace)
GLUE_PREFIX = "application/papermill.record/"
PROOF_KINDS = {"theorem", "definition", "proposition", "lemma", "corollary", "remark", "example", "conjecture"}
MYST_ROLES = {"math", "sub", "sup", "abbr", "kbd", "u", "del", "sc", "smallcaps", "term", "button", "icon"}
BOX_CLASS = {"definition": "note", "remark": "note", "example": "note"}  # other kinds: "important"
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[^}\s]+)\}[ \t]*(?P<arg>.*)$")
OPTION = re.compile(r"^[ \t]*:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
# A role, or an inline code span (left as it is): whichever starts first.
ROLE = re.compile(r"\{(?P<name>[A-Za-z][\w:.-]*)\}`(?P<content>[^`]*)`|(?P<code>(?P<tick>`+)[^`]+(?P=tick))")
TARGET = re.compile(r"^\((?P<label>[^)\s]+)\)=[ \t]*$")
HEADING = re.compile(r"^(?P<level>#{1,6})[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$")
LABELLED_MATH = re.compile(r"(?P<close>\$\$)[ \t]*\((?P<label>[^)\s]+)\)[ \t]*$", re.M)
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
CODE_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
# jupyterlab-myst numbers every displayed equation; the HTML book numbers the labelled ones only (\\tag).
FRONTMATTER = "---\nnumbering:\n  equation: false\n---\n"


def fail(argument, value, allowed):
    raise ValueError(f"{argument}={value!r}: {allowed}")


def chapter_numbers(toc: dict) -> dict[str, str]:
    """Document name (``02_bulk_law``) -> chapter number, counted across the numbered parts."""
    numbers, n = {}, 0
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            if part.get("numbered"):
                n += 1
                numbers[Path(chapter["file"]).name] = str(n)
    return numbers


def glue_data(nb) -> dict[str, dict]:
    """Every glued key of an executed notebook -> its mime bundle (myst-nb's ``scrapbook`` outputs)."""
    found = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            record = out.get("metadata", {}).get("scrapbook")
            if record:
                prefix = record.get("mime_prefix", GLUE_PREFIX)
                found[record["name"]] = {k.removeprefix(prefix): v for k, v in out["data"].items()}
    return found


def bib_entries(text: str) -> dict[str, dict[str, str]]:
    """BibTeX key -> {authors (as cited: "A", "A and B", "A *et al.*"), year, title}, by pybtex."""
    entries = {}
    for key, entry in parse_string(text, "bibtex").entries.items():
        last = [" ".join(n.render_as("text") for n in p.rich_prelast_names + p.rich_last_names)
                for p in entry.persons.get("author", [])]
        authors = f"{last[0]} *et al.*" if len(last) >= 3 else " and ".join(last) or "Anonymous"
        entries[key] = {"authors": authors, "year": entry.fields.get("year", "n.d."),
                        "title": Text.from_latex(entry.fields.get("title", "")).render_as("text")}
    return entries


def cite_text(keys: str, entries: dict, textual: bool) -> str:
    """``{cite:p}`` / ``{cite:t}`` as sphinxcontrib-bibtex's author_year style shows them."""
    found = []
    for key in (k.strip() for k in keys.split(",")):
        if key not in entries:
            fail("key", key, "a key of references.bib")
        found.append((entries[key]["authors"], entries[key]["year"]))
    found.sort()
    if textual:
        return ", ".join(f"{a} \\[{y}\\]" for a, y in found)
    return "\\[" + ", ".join(f"{a}, {y}" for a, y in found) + "\\]"


def _blocks(text: str):
    """(first line, fence match, options, body, last line) of each directive at the top level of ``text``."""
    lines, i = text.split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        char, n = m["fence"][0], len(m["fence"])
        close = re.compile(rf"^[ \t]*{re.escape(char)}{{{n},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        options, k = {}, i + 1
        while k < j and OPTION.match(lines[k]):
            o = OPTION.match(lines[k])
            options[o["key"]] = o["value"]
            k += 1
        yield i, m, options, "\n".join(lines[k:j]), j
        i = j + 1


class Book:
    """Every label of the book with the text the HTML book shows for it, and each chapter's glue."""

    def __init__(self, book: Path, toc: dict, bib_text: str):
        self.book, self.numbers, self.bib = book, chapter_numbers(toc), bib_entries(bib_text)
        self.labels: dict[str, dict] = {}  # label -> {doc, text ({ref}), number ({numref}, {eq}), title}
        self.titles: dict[str, str] = {}
        self.glue: dict[str, dict] = {}
        self.captions: dict[tuple[str, str], str] = {}  # (doc, figure name) -> "Fig. 2.1"
        for path in sorted(book.glob("*.md")):
            doc = path.stem
            notebook = path.with_suffix(".ipynb")
            nb = nbformat.read(notebook, as_version=4) if notebook.exists() else None
            self.glue[doc] = glue_data(nb) if nb else {}
            self._index(doc, nb.cells if nb else [nbformat.v4.new_markdown_cell(path.read_text("utf-8"))])

    def number(self, doc, counters, kind):
        """The next number of a ``kind`` block (figure, equation, theorem...) of ``doc``: "2.3"."""
        counters[kind] = counters.get(kind, 0) + 1
        prefix = self.numbers.get(doc)
        return f"{prefix}.{counters[kind]}" if prefix else str(counters[kind])

    def _index(self, doc, cells):
        counters, pending = {}, []
        for cell in cells:
            if cell.cell_type == "code":
                figure = cell.metadata.get("mystnb", {}).get("figure", {})
                if figure.get("name"):
                    number = f"Fig. {self.number(doc, counters, 'figure')}"
                    self.labels[figure["name"]] = {"doc": doc, "text": number, "number": number}
                    self.captions[(doc, figure["name"])] = number
                continue
            if cell.cell_type == "markdown":
                self._index_text(doc, cell.source, counters, pending)

    def _index_text(self, doc, text, counters, pending, math=True):
        for line in text.split("\n"):
            if t := TARGET.match(line):
                pending.append(t["label"])
            elif h := HEADING.match(line):
                if len(h["level"]) == 1 and doc not in self.titles:
                    self.titles[doc] = h["title"]
                for label in pending:
                    self.labels[label] = {"doc": doc, "text": h["title"]}
                pending.clear()
            elif line.strip():
                pending.clear()
        for m in LABELLED_MATH.finditer(text if math else ""):
            number = f"({self.number(doc, counters, 'equation')})"
            self.labels[m["label"]] = {"doc": doc, "text": number, "number": number}
        for _, m, options, body, _ in _blocks(text):
            name = m["name"]
            kind = name.removeprefix("prf:")
            if ((name.startswith("prf:") and kind in PROOF_KINDS) or name == "exercise") \
                    and "nonumber" not in options:
                number = f"{kind.capitalize()} {self.number(doc, counters, kind)}"
                entry = {"doc": doc, "text": number, "number": number, "title": m["arg"].strip()}
                if options.get("label"):
                    self.labels[options["label"]] = entry
            elif name in ("figure", "glue:figure") and options.get("name"):
                number = f"Fig. {self.number(doc, counters, 'figure')}"
                self.labels[options["name"]] = {"doc": doc, "text": number, "number": number}
                self.captions[(doc, options["name"])] = number
            self._index_text(doc, body, counters, [], math=False)

    def label(self, label: str) -> dict:
        if label not in self.labels:
            fail("label", label, "a label defined in book/ (a target, a figure name, an equation, a block)")
        return self.labels[label]


class Page:
    """Rewrites the Markdown of one document (``doc``) of the copy, as the HTML book shows it."""

    def __init__(self, book: Book, doc: str, dest: Path | None = None):
        self.book, self.doc, self.dest = book, doc, dest
        self.counters: dict[str, int] = {}  # numbered blocks seen so far, counted as Book._index does

    def link(self, text: str, label: str) -> str:
        target = self.book.label(label)["doc"]
        if target == self.doc:
            return text
        suffix = ".ipynb" if (self.book.book / f"{target}.ipynb").exists() else ".md"
        return f"[{text}]({target}{suffix})"

    def glued(self, content: str, inline: bool = True, fmt: str | None = None) -> str:
        doc, key = self.doc, content.strip()
        if "::" in key:
            path, key = key.split("::", 1)
            doc = Path(path).stem
        if fmt is not None and ":" in key:
            key, fmt = key.rsplit(":", 1)
        data = self.book.glue.get(doc, {}).get(key)
        if data is None:
            fail("glue key", f"{doc}::{key}", "a key glued by the executed notebook")
        if fmt is not None:
            return format_plain_text(data["text/plain"], fmt or "s")
        if "text/markdown" in data:
            return self.transform(data["text/markdown"]).strip()
        for mime in ("image/png", "image/jpeg", "image/svg+xml"):
            if mime in data and self.dest is not None:
                name = f"{doc}-{key}.{mime.split('/')[1].split('+')[0]}"
                (self.dest / "_glue").mkdir(exist_ok=True)
                raw = data[mime].encode() if mime.endswith("xml") else base64.b64decode(data[mime])
                (self.dest / "_glue" / name).write_bytes(raw)
                return f"![{key}](_glue/{name})"
        if "text/html" in data and not inline:
            return data["text/html"]
        return data["text/plain"]

    def role(self, m: re.Match) -> str:
        if m["code"]:
            return m["code"]
        name, content = m["name"], m["content"]
        explicit = EXPLICIT.match(content)
        text, target = (explicit["text"], explicit["target"]) if explicit else (None, content.strip())
        if name == "glue:text":
            return self.glued(content, fmt="s")
        if name in ("glue", "glue:", "glue:any", "glue:md"):
            return self.glued(content)
        if name in ("cite", "cite:p", "cite:ps", "cite:t", "cite:ts"):
            return cite_text(content, self.book.bib, textual=name.startswith("cite:t"))
        if name == "doc":
            doc = Path(target).stem
            return f"[{text or self.book.titles.get(doc, doc)}]({doc}.md)"
        if name in ("ref", "numref", "prf:ref", "eq"):
            entry = self.book.label(target)
            shown = entry["text"] if name != "numref" else entry.get("number", entry["text"])
            if text and "%s" in text:
                shown = text.replace("%s", shown.split(" ")[-1])
            elif text:
                shown = text
            return self.link(shown, target)
        if name in MYST_ROLES:
            return m.group(0)
        return text or content  # a role of the book's own Sphinx extensions: its text

    def inline(self, text: str) -> str:
        """Roles and labelled equations of prose; fenced code is left alone."""
        out, code = [], None
        for line in text.split("\n"):
            fence = CODE_FENCE.match(line)
            if fence and code is None and not FENCE.match(line):
                code = fence.group(1)
            elif code is not None and line.strip().startswith(code):
                code = None
                out.append(line)
                continue
            out.append(line if code else ROLE.sub(self.role, line))
        text = "\n".join(out)
        return LABELLED_MATH.sub(
            lambda m: f"\\tag{{{self.book.label(m['label'])['number'].strip('()')}}} $$", text)

    def block(self, m: re.Match, options: dict, body: str) -> str:
        name, arg, indent = m["name"], m["arg"].strip(), m["indent"]
        kind = name.removeprefix("prf:")
        if (name.startswith("prf:") and kind in PROOF_KINDS) or name == "exercise":
            title = kind.capitalize()
            if "nonumber" not in options:
                title += " " + self.book.number(self.doc, self.counters, kind)
            title += f" ({self.inline(arg)})" if arg else ""
            body = self.transform(body)
            return self.box(indent, title, BOX_CLASS.get(kind, "important"), body)
        body = self.transform(body)
        if name == "prf:proof":
            cls = "note dropdown" if "dropdown" in options.get("class", "") else "note"
            return self.box(indent, self.inline(arg) or "Proof", cls, body)
        if name == "solution-start":
            entry = self.book.label(arg)
            title = f" ({self.inline(entry['title'])})" if entry.get("title") else ""
            return f"{indent}**Solution to {self.link(entry['text'], arg)}{title}**"
        if name == "solution-end":
            return ""
        if name.startswith("glue"):
            return indent + self.glued(arg, inline=False, fmt="s" if name == "glue:text" else None)
        if name == "bibliography":
            return "\n".join(f"{indent}- {e['authors']}. {e['title']}. {e['year']}."
                             for e in sorted(self.book.bib.values(), key=lambda e: e["authors"]))
        if name == "eval-rst":
            mods = re.findall(r"^\.\. (?:automodule|py:\w+):: (\S+)", body, re.M)
            return self.box(indent, "API", "note", "The HTML book shows here the docstrings of "
                            + ", ".join(f"`{x}`" for x in mods) + f"; in a cell, run `help({(mods or ['attnlib'])[0]})`.")
        return self.box(indent, self.inline(arg), None, body, name=name, options=options)

    @staticmethod
    def box(indent, title, cls, body, name="admonition", options=None):
        options = dict(options or {})
        if cls:
            options["class"] = cls
        # Backtick fences, longer than any inside (jupytext reads a page with a line starting ":::" as Pandoc).
        fence = "`" * max([3] + [len(f) + 1 for f in re.findall(r"^[ \t]*(`{3,})", body, re.M)])
        head = [f"{fence}{{{name}}} {title}".rstrip()] + [f":{k}: {v}" for k, v in options.items()]
        body = body.strip("\n")
        lines = head + ([""] if body.strip() else []) + body.split("\n") + [fence]
        return "\n".join(indent + line if line else line for line in lines)

    def transform(self, text: str) -> str:
        """The Markdown ``text`` (one cell, or a whole .md page) as the HTML book shows it."""
        lines, out, last = text.split("\n"), [], 0
        for start, m, options, body, end in _blocks(text):
            if start > last:
                out.append(self.inline("\n".join(lines[last:start])))
            dedented = "\n".join(line[len(m["indent"]):] for line in body.split("\n"))
            out.append(self.block(m, options, dedented))
            last = end + 1
        if last < len(lines) or not out:
            out.append(self.inline("\n".join(lines[last:])))
        return "\n".join(out)


def transform_notebook(page: Page, nb):
    """Rewrite the Markdown cells of ``nb`` and put each figure's numbered caption after its cell."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = page.transform(cell.source).strip("\n")
            if not cell.source:
                continue  # only a solution-end: jupytext would not keep an empty cell
        cells.append(cell)
        figure = cell.metadata.get("mystnb", {}).get("figure", {}) if cell.cell_type == "code" else {}
        if figure.get("name"):
            number = page.book.captions[(page.doc, figure["name"])]
            caption = page.transform(figure.get("caption", "").strip())
            new = nbformat.v4.new_markdown_cell(f"**{number}.** {caption}")
            new.id = f"{cell.get('id', 'cell')}-caption"
            cells.append(new)
    if not cells or cells[0].cell_type != "markdown":
        cells.insert(0, nbformat.v4.new_markdown_cell(""))
        cells[0].id = "lab-frontmatter"
    cells[0].source = FRONTMATTER + cells[0].source
    nb.cells = cells
    return nb


def make_copy(dest: Path = DEFAULT_DEST, book: Path = BOOK) -> Path:
    """Copy ``book`` to ``dest`` and rewrite the copy's prose; returns ``dest``. ``dest`` must be missing,
    empty or an earlier copy (it is replaced), never a folder holding anything else."""
    dest, book = Path(dest).resolve(), Path(book).resolve()
    if dest.exists() and any(dest.iterdir()) and not (dest / MARKER).exists():
        fail("dest", str(dest), "a missing or empty folder, or an earlier copy made by this script")
    if book in dest.parents:
        fail("dest", str(dest), "a folder outside book/")
    index = Book(book, yaml.safe_load((book.parent / "_toc.yml").read_text("utf-8")),
                 (book.parent / "references.bib").read_text("utf-8"))
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(book, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "_build"))
    (dest / MARKER).write_text("Made by scripts/lab_copy.py; replaced by the next `make lab`.\n")
    for md in sorted(dest.glob("*.md")):
        page = Page(index, md.stem, dest)
        ipynb = md.with_suffix(".ipynb")
        try:
            if ipynb.exists():
                nb = transform_notebook(page, nbformat.read(ipynb, as_version=4))
                nbformat.write(nb, ipynb)
                jupytext.write(nb, md, fmt="md:myst")
            else:
                md.write_text(page.transform(md.read_text("utf-8")), encoding="utf-8")
        except ValueError as exc:
            raise ValueError(f"book/{md.name}: {exc}") from exc
    return dest


if __name__ == "__main__":
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    print(make_copy(Path(sys.argv[1]) if len(sys.argv) == 2 else DEFAULT_DEST))
