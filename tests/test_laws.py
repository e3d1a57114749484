"""One shape for a law: every law of attnlib.theory is a SpectralLaw whose CDF, moments and Stieltjes transform
agree with its density, validates its parameters at construction, and no flat law function is left."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import numpy as np
import pytest

import attnlib.theory as theory
from attnlib.theory import population

H_NOISE = population.Population([0.5, 1.0, 2.0], [0.2, 0.5, 0.3])
H_TOKENS = population.Population([0.5, 1.5], [0.5, 0.5], side="tokens")

# law, tolerance of its CDF (against quadrature of its density), of its moments, of its Stieltjes transform
LAWS = {
    "bulk": (lambda: theory.Bulk(0.5, 0.25, 1.3), 1e-7, 1e-9, 1e-9),
    "bulk with an atom": (lambda: theory.Bulk(2.0, 0.4), 1e-7, 1e-8, 1e-9),
    "bulk, hard edge": (lambda: theory.Bulk(1.0, 0.3), 1e-7, 1e-6, 1e-7),
    "MP": (lambda: theory.MarchenkoPastur(0.5, 2.0), 1e-7, 1e-9, 1e-9),
    "MP with an atom": (lambda: theory.MarchenkoPastur(2.5), 1e-7, 1e-9, 1e-9),
    "one token": (lambda: theory.OneToken(0.25, 0.5, 1.3), 1e-4, 1e-4, 1e-6),  # interior edges, far clusters
    "population, noise side": (lambda: theory.PopulationBulk(0.5, 0.25, H_NOISE, 1.4), 1e-4, 1e-6, 1e-6),
    "population, token side": (lambda: theory.PopulationBulk(0.5, 0.25, H_TOKENS), 1e-4, 1e-6, 1e-6),
    "Tracy-Widom": (lambda: theory.TracyWidom(1), 1e-10, 1e-9, 1e-9),
}


def _range(law):
    lo, hi = law.support
    return (-12.0, 12.0) if np.isinf(hi) else (lo, hi)


_S, _W = np.polynomial.legendre.leggauss(48)
_S, _W = (_S + 1) / 2, _W / 2


def _quadrature(law, a=None, b=None, panels=12):
    """Nodes x and weights (times the density) of the integral over [a, b] (default: the support), by
    Gauss-Legendre on panels, each through s -> 3 s^2 - 2 s^3 (flat at both ends of a panel: square-root and hard
    edges become smooth). The density is evaluated once, whatever is integrated against it."""
    lo, hi = _range(law)
    a, b = lo if a is None else a, hi if b is None else b
    knots = np.linspace(a, b, panels + 1)
    g, dg = 3 * _S**2 - 2 * _S**3, 6 * _S * (1 - _S)
    x = (knots[:-1, None] + np.diff(knots)[:, None] * g).ravel()
    w = (np.diff(knots)[:, None] * dg * _W).ravel()
    return x, w * law.density(x)


def _integral(law, f, a=None, b=None):
    """Integral of f(x) times the density over [a, b] (default: the support)."""
    x, wd = _quadrature(law, a, b)
    return np.sum(wd * f(x))


@pytest.mark.parametrize("name", LAWS)
def test_cdf_from_the_one_integrator_matches_quadrature_of_the_density(name):
    make, tol, _, _ = LAWS[name]
    law = make()
    lo, hi = _range(law)
    for x in lo + (hi - lo) * np.array([0.1, 0.35, 0.6, 0.9]):
        below = _integral(law, np.ones_like, lo, x)
        assert law.cdf(x) == pytest.approx(law.atom + below, abs=tol)
    assert isinstance(law.cdf(float(lo + 0.5 * (hi - lo))), float)


@pytest.mark.parametrize("name", LAWS)
def test_moments_are_the_density_s_integrals(name):
    make, _, tol, _ = LAWS[name]
    law = make()
    k = 3
    m = law.moments(k)
    assert m.shape == (k,)
    x, wd = _quadrature(law)
    for j in range(1, k + 1):
        assert m[j - 1] == pytest.approx(np.sum(wd * x**j), rel=tol, abs=tol)


@pytest.mark.parametrize("name", LAWS)
def test_stieltjes_is_the_density_s_transform(name):
    make, _, _, tol = LAWS[name]
    law = make()
    lo, hi = _range(law)
    x, wd = _quadrature(law)
    for z in [lo + 0.3 * (hi - lo) + 0.4j * (hi - lo), hi + 1.0 + 0.2j, lo - 0.5 + 1.0j]:
        assert law.stieltjes(z) == pytest.approx(np.sum(wd / (x - z)) - law.atom / z, abs=tol)


def test_heads_bulk_density_has_its_two_moments():
    B = np.array([[1.0, 0.3], [0.3, 0.5]])
    law = theory.HeadsBulk(0.5, 0.5, B)
    x = law.upper * (0.5 - 0.5 * np.cos(np.linspace(0.0, np.pi, 4001)))[1:]
    f = law.density(x)
    m = law.moments(2)
    assert np.trapezoid(x * f, x) == pytest.approx(m[0], rel=2e-3)
    assert np.trapezoid(x * x * f, x) == pytest.approx(m[1], rel=2e-3)
    for missing in (lambda: law.atom, lambda: law.cdf(1.0), lambda: law.stieltjes(1j)):
        with pytest.raises(NotImplementedError):
            missing()
    with pytest.raises(ValueError, match="k must be 1 or 2"):
        law.moments(3)


def test_array_parameters_broadcast_and_the_cdf_asks_for_scalars():
    law = theory.Bulk([0.5, 2.0], 0.25)
    lo, hi = law.support
    assert lo.shape == hi.shape == law.atom.shape == (2,)
    np.testing.assert_array_equal(law.density(np.array([1.0, 2.0])),
                                  [theory.Bulk(0.5, 0.25).density(1.0), theory.Bulk(2.0, 0.25).density(2.0)])
    with pytest.raises(ValueError, match="scalar parameters"):
        law.cdf(1.0)


BAD = [
    (lambda: theory.Bulk(-1.0, 0.5), "delta"),
    (lambda: theory.Bulk(0.5, np.nan), "gamma"),
    (lambda: theory.Bulk(0.5, 0.5, 0.0), "kappa"),
    (lambda: theory.Bulk([0.5, 0.6], [0.1, 0.2, 0.3]), "delta and gamma must broadcast"),
    (lambda: theory.MarchenkoPastur(0.0), "ratio"),
    (lambda: theory.MarchenkoPastur(0.5, -1.0), "scale"),
    (lambda: theory.OneToken(0.7, 0.7), "1 - exp"),
    (lambda: theory.OneToken(0.25, 0.5, points=3), "points"),
    (lambda: theory.PopulationBulk(0.5, 0.25, "H"), "population"),
    (lambda: theory.PopulationBulk(0.5, -0.25, H_NOISE), "gamma"),
    (lambda: theory.HeadsBulk(0.5, 0.5, [[np.nan]]), "B"),
    (lambda: theory.TracyWidom(3), "beta"),
    (lambda: theory.Bulk(0.5, 0.25).density([1.0, np.nan]), "x"),
    (lambda: theory.Bulk(0.5, 0.25).cdf("one"), "x must be a real number"),
    (lambda: theory.TracyWidom().cdf([0.0, np.nan]), "NaN"),
    (lambda: theory.Bulk(0.5, 0.25).moments(0), "k"),
    (lambda: theory.Bulk(0.5, 0.25).stieltjes(1.0), "Im z > 0"),
    (lambda: theory.Bulk(0.5, 0.25).grid(1), "points"),
]


@pytest.mark.parametrize("call,match", BAD)
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


LAW_NAMES = ("density", "cdf", "pdf", "stieltjes", "lower_edge", "upper_edge", "moments")


def _public_modules():
    yield theory
    for info in pkgutil.iter_modules(theory.__path__):
        if not info.name.startswith("_"):
            yield importlib.import_module(f"attnlib.theory.{info.name}")


def _is_law_function(name: str) -> bool:
    return name in LAW_NAMES or name.endswith(("_density", "_edges"))


def test_every_public_law_of_theory_is_a_spectral_law():
    classes = [getattr(theory, n) for n in theory.__all__ if inspect.isclass(getattr(theory, n))]
    laws = [c for c in classes if hasattr(c, "density")]
    assert {c.__name__ for c in laws} == {"SpectralLaw", "Bulk", "MarchenkoPastur", "OneToken", "PopulationBulk",
                                          "HeadsBulk", "TracyWidom"}
    assert all(issubclass(c, theory.SpectralLaw) for c in laws)
    flat = sorted(f"{m.__name__}.{n}" for m in _public_modules() for n in getattr(m, "__all__", [])
                  if callable(getattr(m, n, None)) and not inspect.isclass(getattr(m, n)) and _is_law_function(n))
    assert not flat, f"law functions outside the law classes: {flat}"


def test_no_public_module_of_theory_defines_a_flat_law_function():
    root = Path(theory.__file__).parent
    found = []
    for path in sorted(root.glob("*.py")):
        if path.name.startswith("_") and path.name != "__init__.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # module level only: methods are the hooks
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and _is_law_function(node.name):
                found.append(f"{path.name}:{node.name}")
    assert not found, f"public law functions: {found}"
