"""The API pages: for each layer of attnlib, a summary table of its public names, then their details.

A local Sphinx extension (listed in ``_config.yml``). In a page (``book/api_*.md``, inside ``{eval-rst}``)::

    .. api-layer:: attnlib.model
       :exclude-members: attnlib.views.explorers.*: plot_class

writes, for the package ``attnlib.model``:

1. **a summary table**: one row per module, then one row per public name of that module, each its name
   (linked to its details) and the first sentence of its docstring;
2. **the details**: a section per module (its name as title, so that the page's contents list them), holding
   ``automodule`` with ``:members:``.

``.. api-top-level:: attnlib`` writes an entry for each name the package itself exports (``attnlib.Setting``,
``attnlib.simulate``...), linked to its full documentation.

A layer too long for one page is split: ``:modules:`` (names relative to the package, ``fnmatch`` patterns,
``.`` for the package's own names) picks the modules whose details a page holds, ``:modules-except:`` all
the others (so that a new module lands on the layer's second page), and ``:no-summary:`` leaves the table to
the layer's first page. A public module that no page of its layer documents is a build warning.

Module data is documented by its ``#:`` comment as written: napoleon would read a first line ``a: b`` as
"type a, description b" (and the type as a class to link); the comment autodoc passes is kept when napoleon
found such a type in it.

What is public follows the code, never a list kept here: a package's names are its ``__all__`` (a name that
is a module, or a subpackage whose modules are taken in turn, and the names re-exported from private modules,
documented as the package's own) and its public submodules (no leading underscore: a module made private
leaves the page); a module's names are its ``__all__``, those with a docstring (data: with a ``#:`` comment,
which is what autodoc documents). A name of ``__all__`` that the package does not define is left out and
named in the build log.
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import pkgutil
import re

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

SENTENCE = re.compile(r"(?<=[a-z0-9)\]])\.(?=\s+[A-Z(]|\s*$)")  # a full stop before a capital: not "e.g. the"


def summary_line(obj, doc: str | None = None) -> str:
    """The first sentence of ``obj``'s docstring, or of ``doc`` (its first paragraph when no sentence ends
    inside it), on one line, ending in a full stop; empty if it has none."""
    doc = inspect.getdoc(obj) or "" if doc is None else doc
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    if not paragraph:
        return ""
    outside = re.sub(r"``.*?``|`[^`]*`|\$[^$]*\$", lambda m: "x" * len(m.group()), paragraph)  # no stop inside markup
    end = SENTENCE.search(outside)
    line = paragraph[: end.start() + 1] if end else paragraph
    return line if line.endswith((".", ":", "?", "!")) else line + "."


def _documented_data(modname: str) -> dict[str, str]:
    """The module's data documented by a ``#:`` comment: name -> the comment."""
    try:
        analyzer = ModuleAnalyzer.for_module(modname)
        return {name: "\n".join(doc) for (scope, name), doc in analyzer.find_attr_docs().items() if scope == ""}
    except Exception:  # noqa: BLE001 - no source: no data documented
        return {}


def line_of(module, name: str) -> str:
    """The summary line of ``module.name``: from its docstring, or from its ``#:`` comment if it is data."""
    obj = getattr(module, name)
    if inspect.isclass(obj) or callable(obj) or inspect.ismodule(obj):
        return summary_line(obj)
    return summary_line(obj, _documented_data(module.__name__).get(name, ""))


def _home(obj, module) -> bool:
    """Whether ``module`` is where ``obj`` is documented: where it is defined, or the public face of the
    private module that defines it (``attnlib.theory`` for ``attnlib.theory._law``)."""
    where = getattr(obj, "__module__", None) or ""
    if where == module.__name__:
        return True
    return where.startswith(module.__name__ + ".") and any(p.startswith("_") for p in where.split(".")[1:])


def public_names(module) -> list[str]:
    """The names of ``module``'s ``__all__`` that autodoc documents here: modules and names without a
    docstring left out, and in a package, the names it re-exports from a public module (documented there)."""
    package = hasattr(module, "__path__")
    data = None
    kept = []
    for name in getattr(module, "__all__", []):
        if not hasattr(module, name):
            continue
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        if inspect.isclass(obj) or callable(obj):
            if inspect.getdoc(obj) and (_home(obj, module) or not package):
                kept.append(name)
        else:
            data = _documented_data(module.__name__) if data is None else data
            if name in data:
                kept.append(name)
    return kept


def layer_modules(package) -> list:
    """The modules of a layer, in the order of the package's ``__all__``, then its other public submodules;
    a subpackage is followed by its own modules."""
    found, seen = [], set()

    def add(module):
        if module.__name__ in seen:
            return
        seen.add(module.__name__)
        found.append(module)
        if hasattr(module, "__path__"):
            for sub in _submodules(module):
                add(sub)

    for sub in _submodules(package):
        add(sub)
    return found


def _submodules(package) -> list:
    listed = [getattr(package, name) for name in getattr(package, "__all__", [])
              if inspect.ismodule(getattr(package, name, None))]
    on_disk = sorted(info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_"))
    for name in on_disk:
        module = importlib.import_module(f"{package.__name__}.{name}")
        if module not in listed:
            listed.append(module)
    return [m for m in listed if m.__name__.startswith(package.__name__ + ".")]


def missing_names(package) -> list[str]:
    """The names of the package's ``__all__`` that it does not define."""
    return [name for name in getattr(package, "__all__", []) if not hasattr(package, name)]


def summary_rows(package, modules, exclude) -> list[tuple[str, str, str, str]]:
    """The rows of a layer's summary table: (context: the module, and the class for a class's row; role;
    target; one line)."""
    rows = []
    for module in ([package] if public_names(package) else []) + modules:
        rows.append((module.__name__, "mod", module.__name__, summary_line(module)))
        for name in public_names(module):
            if not excluded(module.__name__, name, exclude):
                context = f"{module.__name__}::{name}" if inspect.isclass(getattr(module, name)) else module.__name__
                rows.append((context, "obj", f"{module.__name__}.{name}", line_of(module, name)))
    return rows


def excluded(modname: str, name: str, exclude: dict[str, list[str]]) -> bool:
    return any(fnmatch.fnmatch(modname, pattern) and name in names for pattern, names in exclude.items())


def _exclude_option(text: str | None) -> dict[str, list[str]]:
    """``pattern: name, name; pattern: name`` -> {pattern: [names]}."""
    out: dict[str, list[str]] = {}
    for part in (text or "").split(";"):
        if ":" in part:
            pattern, names = part.split(":", 1)
            out[pattern.strip()] = [n.strip() for n in names.split(",") if n.strip()]
    return out


class ApiLayer(SphinxDirective):
    """``.. api-layer:: attnlib.X``: the summary table and the details of one layer (see the module)."""

    required_arguments = 1
    option_spec = {"exclude-members": directives.unchanged, "modules": directives.unchanged,
                   "modules-except": directives.unchanged, "no-summary": directives.flag}

    def parse(self, lines: list[str], module: str | None = None) -> list[nodes.Node]:
        """``lines`` of reStructuredText parsed, with short Python names resolved in ``module`` (or, written
        ``module::Class``, in that class of it)."""
        box = nodes.container()
        context = self.env.ref_context
        saved = {key: context.get(key) for key in ("py:module", "py:class")}
        if module:
            context["py:module"], _, cls = module.partition("::")
            context["py:class"] = cls or None
        try:
            self.state.nested_parse(StringList(lines, self.get_source_info()[0]), self.content_offset, box)
        finally:
            for key, value in saved.items():
                if value is None:
                    context.pop(key, None)
                else:
                    context[key] = value
        return box.children

    def table(self, rows) -> nodes.table:
        """The summary table: a name (linked to its details) and its line, each row."""
        table = nodes.table(classes=["api-summary"])
        group = nodes.tgroup(cols=2)
        table += group
        group += [nodes.colspec(colwidth=1), nodes.colspec(colwidth=3)]
        head, body = nodes.thead(), nodes.tbody()
        head += nodes.row("", *(nodes.entry("", nodes.paragraph(text=t)) for t in ("name", "what it is")))
        for module, role, target, line in rows:
            name = self.parse([f":py:{role}:`~{target}`"], module)
            row = nodes.row(classes=["api-module"] if role == "mod" else [])
            row += nodes.entry("", *name)
            row += nodes.entry("", *self.parse([line], module)) if line else nodes.entry()
            body += row
        group += [head, body]
        return table

    def run(self) -> list[nodes.Node]:
        package = importlib.import_module(self.arguments[0])
        exclude = _exclude_option(self.options.get("exclude-members"))
        missing = missing_names(package)
        if missing:
            logger.info(f"[api_pages] {package.__name__}.__all__ lists {missing}, which it does not define: "
                        "left out of the API page")
        modules = layer_modules(package)
        here = [m for m in ([package] if public_names(package) else []) + modules
                if on_this_page(package, m, self.options.get("modules"), self.options.get("modules-except"))]
        documented = self.env.temp_data.setdefault("attnlib_api", {})  # moved to the env at doctree-read
        documented.setdefault(package.__name__, set()).update(m.__name__ for m in here)
        out = [] if "no-summary" in self.options else [self.table(summary_rows(package, modules, exclude))]
        for module in here:
            names = public_names(module)
            section = nodes.section(ids=[f"api-{module.__name__.replace('.', '-')}"])
            section += nodes.title("", "", nodes.literal(text=module.__name__))
            lines = [f".. automodule:: {module.__name__}"] + ([f"   :members: {', '.join(names)}"] if names else [])
            skip = [n for pattern, ns in exclude.items() if fnmatch.fnmatch(module.__name__, pattern) for n in ns]
            if skip:
                lines.append(f"   :exclude-members: {', '.join(skip)}")
            section += self.parse(lines)
            out.append(section)
        return out


class ApiTopLevel(ApiLayer):
    """``.. api-top-level:: attnlib``: an entry for each name of the package's ``__all__`` that is not a
    module (``attnlib.Setting``, ``attnlib.simulate``...), saying what it is and linking where it is
    documented in full."""

    option_spec = {}

    def run(self) -> list[nodes.Node]:
        package = importlib.import_module(self.arguments[0])
        out = []
        for name in getattr(package, "__all__", []):
            obj = getattr(package, name, None)
            if obj is None or inspect.ismodule(obj) or not (inspect.isclass(obj) or callable(obj)):
                continue
            kind, role = ("class", "class") if inspect.isclass(obj) else ("function", "func")
            home = f"{obj.__module__}.{obj.__qualname__}"
            out += self.parse([f".. py:{kind}:: {name}", f"   :module: {package.__name__}", "",
                               f"   The {kind} :py:{role}:`{home}`: {summary_line(obj)}"], obj.__module__)
        return out


def on_this_page(package, module, only: str | None, but: str | None = None) -> bool:
    """Whether ``module`` (or the package itself, ``"."``) is among the patterns of ``:modules:`` (all if
    none) and not among those of ``:modules-except:``."""
    name = "." if module is package else module.__name__[len(package.__name__) + 1:]
    matches = lambda option: any(fnmatch.fnmatch(name, p.strip()) for p in option.split(","))  # noqa: E731
    return (not only or matches(only)) and not (but and matches(but))


def _read(app, doctree) -> None:
    found = app.env.temp_data.pop("attnlib_api", None)
    if found:
        store = app.env.__dict__.setdefault("attnlib_api", {})
        store[app.env.docname] = found


def _purge(app, env, docname) -> None:
    env.__dict__.get("attnlib_api", {}).pop(docname, None)


def _merge(app, env, docnames, other) -> None:
    env.__dict__.setdefault("attnlib_api", {}).update(other.__dict__.get("attnlib_api", {}))


def _check(app, env) -> None:
    """Every public module of a layer that has an API page is documented on one of its pages."""
    documented: dict[str, set[str]] = {}
    for found in env.__dict__.get("attnlib_api", {}).values():
        for layer, names in found.items():
            documented.setdefault(layer, set()).update(names)
    for layer, names in documented.items():
        package = importlib.import_module(layer)
        expected = {m.__name__ for m in layer_modules(package)} | ({layer} if public_names(package) else set())
        if expected - names:
            logger.warning(f"[api_pages] modules of {layer} on no API page: {sorted(expected - names)} (add them "
                           "to the :modules: of an api-layer directive)", type="api_pages")


def _keep_comment(app, what, name, obj, options, lines) -> None:
    if what in ("data", "attribute"):
        app.env.temp_data.setdefault("attnlib_api_comments", {})[name] = list(lines)


def _comment_as_written(app, what, name, obj, options, lines) -> None:
    """Undo napoleon's reading of a data comment's ``a: b`` as a type (it runs between these two)."""
    written = app.env.temp_data.get("attnlib_api_comments", {}).pop(name, None)
    typed = lambda text: any(line.startswith(":type:") for line in text)  # noqa: E731
    if written is not None and typed(lines) and not typed(written):
        lines[:] = written


def setup(app):
    app.add_directive("api-layer", ApiLayer)
    app.add_directive("api-top-level", ApiTopLevel)
    app.connect("autodoc-process-docstring", _keep_comment, priority=400)  # napoleon's runs at 500
    app.connect("autodoc-process-docstring", _comment_as_written, priority=600)
    app.connect("doctree-read", _read)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
