"""The import contract of attnlib: layers that import only downward, no cycles, no private names across modules.

The imports are read with :mod:`ast` from the source (every ``import`` statement, also those inside functions:
a lazy import is no way around a cycle). Each rule is a function of a ``{module: source}`` map, run on attnlib
and, to show that it can fail, on a small synthetic package that breaks it. The same layers and the absence
of cycles are also checked by import-linter (the contracts of ``.importlinter``, which ``lint-imports`` runs),
and shown to fail on a copy of attnlib with one lazy upward import or one lazy import that closes a cycle.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "attnlib"
# bottom to top: a module may import its own layer and the layers below it
LAYERS = ("numerics", "theory", "model", "engine", "studies", "views")
# modules of the HTML book's live explorers: never the ipywidgets explorers
WEB = ("attnlib.views.webexplorer", "attnlib.views.weboverlays", "attnlib.views.webstills")
# where random streams are made (numpy's SeedSequence / default_rng)
RANDOMNESS = "attnlib.numerics.randomness"
MAX_TOP_LEVEL = 6


def package_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    """``{dotted module name: (source, is_package)}`` of every .py file under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path.read_text(encoding="utf-8"), is_package)
    return out


def imports(modules: dict[str, tuple[str, bool]]) -> list[tuple[str, str, str | None]]:
    """Every import between the modules: ``(importer, imported module, imported name or None)``.

    ``from a.b import c`` imports module ``a.b.c`` when that is a module, else name ``c`` of ``a.b``.
    """
    edges = []
    for name, (source, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                edges += [(name, a.name, None) for a in node.names if a.name in modules]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    child = f"{target}.{alias.name}"
                    if child in modules:
                        edges.append((name, child, None))
                    elif target in modules:
                        edges.append((name, target, alias.name))
    return [e for e in edges if e[0] != e[1]]


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def upward_imports(modules) -> list[tuple[str, str]]:
    """Imports from a lower layer into a higher one (the top-level ``attnlib`` facade is exempt)."""
    bad = []
    for src, dst, _ in imports(modules):
        a, b = layer_of(src), layer_of(dst)
        if src != "attnlib" and a is not None and b is not None and b > a:
            bad.append((src, dst))
    return bad


def cycles(modules) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), package-to-child imports included."""
    graph = {m: set() for m in modules}
    for src, dst, _ in imports(modules):
        graph[src].add(dst)
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def private_imports(modules) -> list[tuple[str, str]]:
    """Private names imported from another module, and private modules imported from outside their package."""
    bad = []
    for src, dst, name in imports(modules):
        if name is not None and name.startswith("_"):
            bad.append((src, f"{dst}.{name}"))
        leaf = dst.rpartition(".")[2]
        if name is None and leaf.startswith("_") and not leaf.startswith("__"):
            if not (src == dst.rpartition(".")[0] or src.rpartition(".")[0] == dst.rpartition(".")[0]):
                bad.append((src, dst))
    return bad


def forbidden_imports(modules, sources=WEB, target="attnlib.views.explorers") -> list[tuple[str, str]]:
    return [(s, d) for s, d, _ in imports(modules) if s in sources and (d == target or d.startswith(target + "."))]


def random_stream_makers(modules) -> list[str]:
    """Modules other than :data:`RANDOMNESS` that call ``default_rng`` or ``SeedSequence``."""
    bad = []
    for name, (source, _) in modules.items():
        for node in ast.walk(ast.parse(source)):
            called = node.func if isinstance(node, ast.Call) else None
            attr = getattr(called, "attr", getattr(called, "id", None))
            if attr in ("default_rng", "SeedSequence") and name != RANDOMNESS:
                bad.append(name)
    return sorted(set(bad))


def top_level_modules(root: Path = ROOT) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists())


MODULES = package_sources()


def test_every_module_belongs_to_a_layer():
    assert [m for m in MODULES if m != "attnlib" and layer_of(m) is None] == []
    assert len(top_level_modules()) <= MAX_TOP_LEVEL + 1  # the six layers and __init__.py


def test_imports_point_downward():
    assert upward_imports(MODULES) == []


def test_no_import_cycles():
    assert cycles(MODULES) == []


def test_no_private_names_across_modules():
    assert private_imports(MODULES) == []


def test_live_explorers_do_not_need_ipywidgets():
    assert forbidden_imports(MODULES) == []


def test_random_streams_are_made_in_one_module():
    assert random_stream_makers(MODULES) == []


# Each rule fails on a synthetic package that breaks it.

def _fake(**files):
    return {name.replace("__", "."): (src, name.endswith("__init__")) for name, src in files.items()}


def test_an_upward_import_is_caught():
    mods = {"attnlib.theory.a": ("from attnlib.engine import b\n", False),
            "attnlib.engine.b": ("import numpy\n", False)}
    assert upward_imports(mods) == [("attnlib.theory.a", "attnlib.engine.b")]


def test_a_lazy_cycle_is_caught():
    mods = {"attnlib.model.a": ("from attnlib.model import b\n", False),
            "attnlib.model.b": ("def f():\n    from attnlib.model.a import g\n", False)}
    assert cycles(mods) == [["attnlib.model.a", "attnlib.model.b"]]


def test_a_cycle_through_a_package_init_is_caught():
    mods = {"attnlib.theory": ("from attnlib.theory import a\n", True),
            "attnlib.theory.a": ("from attnlib import theory\n", False),
            "attnlib": ("", True)}
    assert cycles(mods) == [["attnlib.theory", "attnlib.theory.a"]]


@pytest.mark.parametrize("source", ["from attnlib.model.a import _helper\n", "from .a import _helper\n",
                                    "from attnlib.theory import _law\n"])
def test_a_private_import_is_caught(source):
    mods = {"attnlib.model": ("", True), "attnlib.model.a": ("def _helper():\n    pass\n", False),
            "attnlib.theory": ("", True), "attnlib.theory._law": ("", False), "attnlib.model.b": (source, False)}
    assert private_imports(mods) != []


def test_a_private_module_inside_its_package_is_allowed():
    mods = {"attnlib.theory": ("from attnlib.theory import _law\n", True), "attnlib.theory._law": ("", False),
            "attnlib.theory.laws": ("from attnlib.theory import _law\n", False)}
    assert private_imports(mods) == []


def test_a_live_explorer_importing_the_widget_explorers_is_caught():
    mods = {"attnlib.views.webstills": ("def f():\n    from attnlib.views import explorers\n", False),
            "attnlib.views.explorers": ("", True)}
    assert forbidden_imports(mods) == [("attnlib.views.webstills", "attnlib.views.explorers")]


def test_a_stream_made_outside_randomness_is_caught():
    mods = {"attnlib.studies.a": ("import numpy as np\nrng = np.random.default_rng(0)\n", False),
            RANDOMNESS: ("import numpy as np\nnp.random.SeedSequence(0)\n", False)}
    assert random_stream_makers(mods) == ["attnlib.studies.a"]


# ------------------------------------------------------------------ the same contract, by import-linter

CONFIG = ROOT.parent / ".importlinter"


def lint_imports(package_parent: Path) -> subprocess.CompletedProcess:
    """import-linter's ``lint-imports`` on the contracts of .importlinter, with attnlib found in
    ``package_parent``."""
    lint = Path(sys.executable).parent / "lint-imports"
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run([str(lint), "--config", str(CONFIG), "--no-cache"], capture_output=True, text=True,
                          env=env, cwd=package_parent)


def test_import_linter_keeps_the_contracts():
    result = lint_imports(ROOT.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


@pytest.mark.parametrize("module, line, contract", [
    # a lazy upward import: the bottom layer reaching for a view
    ("numerics/checks.py", "def _late():\n    from attnlib.views import plotting\n", "import only downward"),
    # a lazy import that closes a cycle (fluctuations imports tracy_widom)
    ("theory/tracy_widom.py", "def _late():\n    from attnlib.theory import fluctuations\n", "no import cycles"),
])
def test_import_linter_catches_a_broken_contract(tmp_path, module, line, contract):
    import shutil

    shutil.copytree(ROOT, tmp_path / "attnlib", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "attnlib" / module).open("a").write("\n\n" + line)
    result = lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    assert any(contract in line and line.rstrip().endswith("BROKEN") for line in result.stdout.splitlines()), \
        result.stdout
