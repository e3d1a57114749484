"""Markdown glued from another notebook renders as Markdown.

``{glue:}`NN_name.ipynb::key``` pastes an output of another notebook. myst-nb resolves such cross-document
references after parsing, for a few output types only (plain text, HTML, images): a Markdown output, such as
the table of ``attnlib.views.tables.markdown_table``, would show as ``<IPython.core.display.Markdown object>``.
This post-transform runs just before myst-nb's, and replaces every such reference whose output is Markdown
(and has no HTML) by that Markdown, parsed as MyST: tables, inline maths and code render as they do in the
notebook the output comes from. The appendix book/verification.md relies on it.
"""

from __future__ import annotations

from docutils import nodes
from docutils.utils import new_document
from sphinx.transforms.post_transforms import SphinxPostTransform

MARKDOWN = "text/markdown"


class RenderGluedMarkdown(SphinxPostTransform):
    default_priority = 4  # myst-nb's ReplacePendingGlueReferences has 5

    def apply(self, **kwargs):
        from myst_nb.ext.glue.crossref import read_glue_cache
        from myst_nb.ext.glue.utils import PendingGlueReference
        from myst_parser.parsers.sphinx_ import MystParser

        folder = self.env.mystnb_config.output_folder
        for node in list(self.document.findall(PendingGlueReference)):
            if node.gtype == "text":
                continue
            data = read_glue_cache(folder, node.refdoc).get(node.key, {}).get("data", {})
            if MARKDOWN not in data or "text/html" in data:
                continue
            parsed = new_document(self.document["source"], self.document.settings)
            MystParser().parse(data[MARKDOWN], parsed)
            target = node
            if isinstance(node.parent, nodes.paragraph) and len(node.parent.children) == 1:
                target = node.parent  # a block (a table) may not sit inside a paragraph
            target.replace_self(parsed.children)


def setup(app):
    app.add_post_transform(RenderGluedMarkdown)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
