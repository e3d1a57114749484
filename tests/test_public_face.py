"""The public face of attnlib: every module's ``__all__`` names what exists, ``import *`` works from each package,
and the short module names the package docstring documents import."""

import importlib
import pkgutil
import subprocess
import sys

import pytest

import attnlib

PACKAGES = ["attnlib"] + [m.name for m in pkgutil.walk_packages(attnlib.__path__, "attnlib.") if m.ispkg]
MODULES = [m.name for m in pkgutil.walk_packages(attnlib.__path__, "attnlib.") if not m.ispkg]


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
