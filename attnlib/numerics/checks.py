"""Argument checks shared by the public functions.

Every public function of ``attnlib`` validates its inputs with these helpers, so that bad input fails
early with a :class:`ValueError` that names the argument, shows the offending value and says what is
allowed, instead of propagating a NaN. The decorator :func:`validated` checks a public entry's arguments in
one call; the library's own calls go to the same function without the check (``f.__wrapped__``), so nothing
is checked twice.
"""

from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

__all__ = [
    "validated",
    "optional",
    "finite_scalar",
    "rng",
    "choice",
    "choices",
    "ratios",
    "short",
    "positive",
    "nonnegative",
    "positive_int",
    "probability_like",
    "finite_vector",
    "weights_vector",
    "correlation_matrix",
]


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _as_real_array(name: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or array of real numbers, got {short(value)}") from None
    return arr


def finite_scalar(name: str, value) -> float:
    """Return ``value`` as a float after checking it is one finite real number."""
    arr = _as_real_array(name, value)
    if arr.ndim or not np.isfinite(arr):
        raise ValueError(f"{name} must be a finite real number, got {short(value)}")
    return float(arr)


_KINDS = {np.random.Generator: "a numpy.random.Generator (numpy.random.default_rng(seed))", str: "a string"}


def _kind(cls: type) -> str:
    """How an error message names the class ``cls`` its argument must be an instance of (e.g. "an
    attnlib.model.setting.Setting")."""
    return _KINDS.get(cls) or f"an {cls.__module__}.{cls.__qualname__}"


def rng(value, name: str = "rng") -> np.random.Generator:
    """Return ``value`` after checking it is a ``numpy.random.Generator`` (the only source of randomness)."""
    if not isinstance(value, np.random.Generator):
        raise ValueError(f"{name} must be {_kind(np.random.Generator)}, got {short(value)}")
    return value


def _not_one_of(name: str, value, allowed) -> ValueError:
    return ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {short(value)}")


def choice(name: str, value, allowed) -> str:
    """Return ``value`` after checking it is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        raise _not_one_of(name, value, allowed)
    return value


class _Optional:
    """A spec of :func:`validated` that lets None through (see :func:`optional`)."""

    __slots__ = ("spec",)

    def __init__(self, spec):
        self.spec = spec


def optional(spec):
    """A spec of :func:`validated` that lets None through and checks any other value against ``spec``."""
    return _Optional(spec)


def validated(check=None, **specs):
    """Decorator: check a public function's arguments once, at its entry, before its body runs.

    Each keyword names an argument and how it is checked: a class (the value must be an instance of it), a
    tuple of strings (the value must be one of them) or a function ``(name, value) -> value`` such as
    :func:`positive_int` (its result replaces the value). ``check``, if given, is then called with the bound
    arguments (a dict it may update) for conditions that involve several of them. Bad input raises a
    ValueError that names the argument, the value and what is allowed.

    The function without its entry check is ``f.__wrapped__`` (as ``functools.wraps`` sets it): the
    library calls that where an outer entry has already checked the arguments, so nothing is checked twice.
    """
    def decorate(func):
        signature = inspect.signature(func)
        unknown = sorted(set(specs) - set(signature.parameters))
        if unknown:
            raise TypeError(f"validated: {func.__qualname__} has no argument {', '.join(unknown)}")

        @functools.wraps(func)
        def entry(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = bound.arguments
            for name, spec in specs.items():  # inline, so that checking is one call (see tests/test_validation_once.py)
                value = arguments[name]
                if type(spec) is _Optional:
                    if value is None:
                        continue
                    spec = spec.spec
                if isinstance(spec, type):
                    if not isinstance(value, spec):
                        raise ValueError(f"{name} must be {_kind(spec)}, got {short(value)}")
                elif isinstance(spec, tuple):
                    if not isinstance(value, str) or value not in spec:
                        raise _not_one_of(name, value, spec)
                else:
                    arguments[name] = spec(name, value)
            if check is not None:
                check(arguments)
            return func(*bound.args, **bound.kwargs)
        return entry
    return decorate


def ratios(delta, gamma, kappa=1.0, *, allow_array: bool = False):
    """Checked ``(delta, gamma, kappa)``: each finite and > 0 (scalars, or arrays with ``allow_array``)."""
    return (positive("delta", delta, allow_array=allow_array), positive("gamma", gamma, allow_array=allow_array),
            positive("kappa", kappa, allow_array=allow_array))


def choices(**named) -> tuple:
    """Several categorical arguments checked in one call: ``choices(level=(level, LEVELS), method=(method,
    METHODS))`` returns ``(level, method)``, each as :func:`choice` would."""
    return tuple(choice(name, value, allowed) for name, (value, allowed) in named.items())


def positive(name: str, value, *, allow_array: bool = False):
    """Return ``value`` as float (or float array) after checking it is finite and > 0."""
    arr = _as_real_array(name, value)
    if arr.ndim and not allow_array:
        raise ValueError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or not np.all(arr > 0):
        raise ValueError(f"{name} must be finite and > 0, got {short(value)}")
    return float(arr) if arr.ndim == 0 else arr


def nonnegative(name: str, value, *, allow_array: bool = False):
    """Return ``value`` as float (or float array) after checking it is finite and >= 0."""
    arr = _as_real_array(name, value)
    if arr.ndim and not allow_array:
        raise ValueError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or not np.all(arr >= 0):
        raise ValueError(f"{name} must be finite and >= 0, got {short(value)}")
    return float(arr) if arr.ndim == 0 else arr


def positive_int(name: str, value, *, even: bool = False, minimum: int = 1) -> int:
    """Return ``value`` as int after checking it is an integer >= ``minimum`` (and even if asked)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and np.isfinite(value) and float(value).is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {short(value)}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    if even and value % 2:
        why = " so that the two classes are balanced (V/2 tokens each)" if name == "V" else ""
        raise ValueError(f"{name} must be even{why}, got {value}")
    return value


def probability_like(name: str, value, low: float = -1.0, high: float = 1.0) -> float:
    """Return ``value`` as float after checking ``low <= value <= high``."""
    arr = _as_real_array(name, value)
    if arr.ndim or not np.isfinite(arr) or not (low <= arr <= high):
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {short(value)}")
    return float(arr)


def finite_array(name: str, value) -> np.ndarray:
    """Return ``value`` as a float array of any shape (a scalar gives a 0-d array) after checking it is finite."""
    arr = _as_real_array(name, value)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers, got {short(value)}")
    return arr


def finite_vector(name: str, value) -> np.ndarray:
    """Return a 1-D float array after checking it is non-empty and finite."""
    arr = _as_real_array(name, value)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers, got {short(value)}")
    return arr


def weights_vector(name: str, value, length: int | None = None) -> np.ndarray:
    """Pooling weights: finite, 1-D, not all zero, of the given length if one is given."""
    arr = finite_vector(name, value)
    if length is not None and arr.size != length:
        raise ValueError(f"{name} must have length T = {length} (one weight per position), got length {arr.size}")
    if not np.any(arr != 0):
        raise ValueError(f"{name} must not be all zero (kappa = ||w||^2 would vanish), got {short(value)}")
    return arr


def correlation_matrix(name: str, value, *, atol: float = 1e-10) -> np.ndarray:
    """A positional correlation matrix: square, symmetric, unit diagonal, entries in [-1, 1], PSD."""
    arr = _as_real_array(name, value)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    asym = float(np.max(np.abs(arr - arr.T)))
    if asym > atol:
        raise ValueError(f"{name} must be symmetric, got max |R - R^T| = {asym:.3g}")
    diag_err = float(np.max(np.abs(np.diag(arr) - 1.0)))
    if diag_err > atol:
        raise ValueError(f"{name} must have unit diagonal (R_tt = E[xi_t^2] = 1), got max |R_tt - 1| = {diag_err:.3g}")
    if np.max(np.abs(arr)) > 1 + atol:
        raise ValueError(f"{name} must have entries in [-1, 1], got max |R_ts| = {np.max(np.abs(arr)):.6g}")
    lam_min = float(np.linalg.eigvalsh((arr + arr.T) / 2)[0])
    if lam_min < -1e-8 * arr.shape[0]:
        raise ValueError(f"{name} must be positive semidefinite, got smallest eigenvalue {lam_min:.3g}")
    return (arr + arr.T) / 2
