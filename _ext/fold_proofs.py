"""Folded proofs: ``prf:proof`` with ``:class: dropdown`` becomes a working toggle.

sphinx-proof renders a proof as an admonition with no title (the word "Proof." is glued to the start of the
first paragraph) and with the same id ``proof`` on every proof of a page. sphinx-togglebutton folds an
``.admonition.dropdown`` behind its title; with no title its script stops with an error, and that proof and
every later dropdown of the page stay open. This extension, on every resolved doctree:

* gives each dropdown proof a title "Proof" (rendered ``<p class="admonition-title">``, the toggle's handle)
  and takes the leading "Proof. " off its first paragraph;
* gives every proof a unique id (``proof``, ``proof-1``, ``proof-2``, ...).

Proofs without the dropdown class are left as sphinx-proof renders them (tests/test_reading.py requires the
class on every proof of the book).
"""

from __future__ import annotations

from docutils import nodes

PREFIX = "Proof. "


def _fold(app, doctree, docname):
    from sphinx_proof.nodes import proof_node

    for number, proof in enumerate(doctree.findall(proof_node)):
        for box in proof.findall(nodes.admonition):
            box["ids"] = ["proof" if number == 0 else f"proof-{number}"]
            if "dropdown" not in box["classes"] or (box.children and isinstance(box[0], nodes.title)):
                break
            first = box.next_node(nodes.paragraph)
            text = first.next_node(nodes.Text) if first is not None else None
            if text is not None and str(text).startswith(PREFIX):
                text.parent.replace(text, nodes.Text(str(text)[len(PREFIX):]))
            box.insert(0, nodes.title("", "Proof"))
            break


def setup(app):
    app.connect("doctree-resolved", _fold)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
