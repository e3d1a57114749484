"""Every random stream of attnlib is made here, and only here.

A computation that repeats draws takes one ``seed`` and splits it with :func:`streams`
(``numpy.random.SeedSequence(seed).spawn(count)``): draw ``j`` uses stream ``j`` whatever the order of
evaluation or the executor. :func:`generator` turns a seed or a stream into a ``numpy.random.Generator``;
:func:`fixed_normal` is a fixed Gaussian vector (the Lanczos start vector), drawn without touching any
caller's stream. Functions that draw once take a ``numpy.random.Generator`` from the caller instead;
:func:`spawned` splits one such draw into independent streams (the row blocks of a vocabulary table), so that
the pieces can be filled in any order, on any number of threads, with the same numbers.
"""

from __future__ import annotations

import numpy as np

from attnlib.numerics import checks as _v

__all__ = ["streams", "spawned", "generator", "fixed_normal"]


def streams(seed: int, count: int) -> list:
    """The ``count`` independent random streams of ``seed``: ``SeedSequence(seed).spawn(count)``."""
    seed = _v.positive_int("seed", seed, minimum=0)
    count = _v.positive_int("count", count)
    return np.random.SeedSequence(seed).spawn(count)


def spawned(rng: np.random.Generator, count: int) -> list:
    """``count`` independent streams spawned from one seed taken from ``rng`` (four 63-bit integers: ``rng``
    advances by that one draw): ``SeedSequence(seed).spawn(count)``. Arguments are assumed validated."""
    return np.random.SeedSequence(rng.integers(2**63, size=4, dtype=np.uint64)).spawn(count)


def generator(seed) -> np.random.Generator:
    """``numpy.random.default_rng(seed)``: the generator of a stream of :func:`streams`, or of a plain seed."""
    return np.random.default_rng(seed)


def fixed_normal(seed: int, n: int) -> np.ndarray:
    """``n`` standard normal numbers from ``default_rng(seed)``, the same at every call."""
    return np.random.default_rng(seed).standard_normal(n)
