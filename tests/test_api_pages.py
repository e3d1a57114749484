"""The API pages follow the code (_ext/api_pages.py): what a layer's summary table lists and how it is cut."""

from __future__ import annotations

import importlib.util
import types
from pathlib import Path

import attnlib

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("api_pages", REPO / "_ext" / "api_pages.py")
api_pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_pages)


def test_the_summary_line_is_the_first_sentence_and_never_cuts_inside_markup():
    def f():
        """Draw ``x.y`` rows, e.g. the first. Then more.

        Details."""

    assert api_pages.summary_line(f) == "Draw ``x.y`` rows, e.g. the first."
    assert api_pages.summary_line(f, "A constant: its meaning") == "A constant: its meaning."
    assert api_pages.summary_line(f, "") == ""


def test_public_names_are_documented_names_of_all():
    module = types.ModuleType("attnlib_fake")

    def documented():
        """A docstring."""

    def bare():
        pass

    module.documented, module.bare, module.sub = documented, bare, types.ModuleType("attnlib_fake.sub")
    documented.__module__ = bare.__module__ = "attnlib_fake"
    module.__all__ = ["documented", "bare", "sub", "missing"]
    assert api_pages.public_names(module) == ["documented"]
    assert api_pages.missing_names(module) == ["missing"]


def test_a_package_documents_what_its_private_modules_define_not_what_its_public_ones_do():
    names = api_pages.public_names(attnlib.theory)
    assert "critical_x" in names and "HeadsBulk" in names  # defined in private modules: documented as theory's
    assert "Bulk" not in names  # defined in the public module attnlib.theory.laws: documented there
    views_explorers = importlib.import_module("attnlib.views.explorers")
    assert "phase_figure" not in api_pages.public_names(views_explorers)  # documented in views.figures.phase


def test_every_public_module_of_a_layer_is_listed_and_private_ones_are_not():
    modules = [m.__name__ for m in api_pages.layer_modules(attnlib.numerics)]
    assert {"attnlib.numerics.checks", "attnlib.numerics.linalg", "attnlib.numerics.randomness"} <= set(modules)
    theory = [m.__name__ for m in api_pages.layer_modules(attnlib.theory)]
    assert not [name for name in theory if "._" in name]


def test_a_page_takes_the_modules_its_patterns_name():
    views = importlib.import_module("attnlib.views")
    figures = importlib.import_module("attnlib.views.figures.phase")
    assert api_pages.on_this_page(views, figures, "explorers*, figures*")
    assert not api_pages.on_this_page(views, figures, "plotting, tables")
    assert api_pages.on_this_page(attnlib.theory, attnlib.theory, ".")
    assert api_pages.on_this_page(views, figures, None)
    assert not api_pages.on_this_page(views, figures, None, "figures.*")  # a second page: all but these
    assert api_pages.on_this_page(views, figures, None, "plotting, tables")
