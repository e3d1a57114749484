"""The public face of attnlib: every module's ``__all__`` names what exists, ``import *`` works from each package,
the short module names the package docstring documents import, and one public name means one object."""

import collections
import importlib
import pkgutil
import subprocess
import sys

import pytest

import attnlib

PACKAGES = ["attnlib"] + [m.name for m in pkgutil.walk_packages(attnlib.__path__, "attnlib.") if m.ispkg]
MODULES = [m.name for m in pkgutil.walk_packages(attnlib.__path__, "attnlib.") if not m.ispkg]
PUBLIC = ["attnlib"] + [m.name for m in pkgutil.walk_packages(attnlib.__path__, "attnlib.")
                        if not any(part.startswith("_") for part in m.name.split("."))]


def stale(module) -> list[str]:
    """Names of ``module.__all__`` that the module does not define."""
    return [name for name in getattr(module, "__all__", ()) if not hasattr(module, name)]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_names_what_exists_and_star_import_works(package):
    module = importlib.import_module(package)
    assert hasattr(module, "__all__"), f"{package} has no __all__"
    assert not stale(module), f"{package}.__all__ names missing attributes: {stale(module)}"
    namespace: dict = {}
    exec(f"from {package} import *", namespace)  # noqa: S102 - the statement a user writes
    assert set(module.__all__) <= set(namespace)


@pytest.mark.parametrize("module", MODULES)
def test_every_module_all_names_what_it_has(module):
    mod = importlib.import_module(module)
    assert not stale(mod), f"{module}.__all__ names missing attributes: {stale(mod)}"


def test_a_stale_all_is_found():
    fake = type(sys)("fake")
    fake.__all__, fake.present = ["present", "spectra"], 1
    assert stale(fake) == ["spectra"]


def test_short_module_names_import_in_a_fresh_interpreter():
    code = ("import attnlib.weights, attnlib.positional; from attnlib.weights import optimal; "
            "assert attnlib.weights is attnlib.model.weights and attnlib.positional is attnlib.model.positional")
    subprocess.run([sys.executable, "-c", code], check=True)


def collisions(modules) -> dict[str, list[str]]:
    """Names that the ``__all__`` of two of ``modules`` binds to different objects: name -> the modules (a
    re-export of the same object is no collision)."""
    found = collections.defaultdict(dict)
    for module in modules:
        for name in getattr(module, "__all__", ()):
            found[name].setdefault(id(getattr(module, name)), []).append(module.__name__)
    return {name: [m for ms in objects.values() for m in ms] for name, objects in sorted(found.items())
            if len(objects) > 1}


def test_one_public_name_is_one_object():
    """No name is bound to two different objects by the ``__all__`` of two public modules (attnlib and every
    module whose dotted path has no part starting with ``_``)."""
    found = collisions([importlib.import_module(name) for name in PUBLIC])
    assert not found, f"{len(found)} public names bound to different objects: " + "; ".join(
        f"{name} in {', '.join(modules)}" for name, modules in found.items())


def test_a_collision_is_found_and_a_reexport_is_not():
    one, other, again = (type(sys)(name) for name in ("one", "other", "again"))
    one.__all__, other.__all__, again.__all__ = ["f", "g"], ["f"], ["g"]
    one.f, other.f, one.g, again.g = len, abs, min, min
    assert collisions([one, other, again]) == {"f": ["one", "other"]}
