"""The swap runs' memo (tests/swap_memo.py) never decides a swap's outcome: a run with the memo gives exactly
what the run without it computes. Shown on a small package ``attnlib_probe`` written to a temporary directory
(the memo traces functions by the package's directory, here set to the probe's) with the shapes the book's
swaps have: a formula the engine calls, a formula only the chapter calls, engine calls nested in others, a
swap that plants another function of the package, one that wraps the original, a builtin, a cached function,
and a constant."""

from __future__ import annotations

import importlib
import sys
import textwrap

import numpy as np
import pytest

import swap_memo

PROBE = textwrap.dedent('''
    from functools import lru_cache

    import numpy as np

    SCALE = 1.0

    def formula(x):
        return x**2

    def other_formula(x):
        return x**3

    def closed_form(x):
        return 2 * x

    @lru_cache(maxsize=8)
    def table(n):
        return float(formula(np.arange(n)).sum())

    def engine(n, rng):
        return formula(rng.standard_normal(n)).mean() * SCALE

    def cached_engine(n, rng):
        return table(n) + rng.standard_normal()

    def inner(n, rng):
        return formula(rng.standard_normal(n))

    def outer(n, rng):
        return inner(n, rng).sum() + closed_form(1.0) + inner(n, rng).sum()

    def cached_outer(n, rng):
        return table(n) + cached_engine(n, rng)
''')


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A fresh run's view: the probe imported anew, the memo installed on it with ``store`` (or off)."""
    package = tmp_path / "attnlib_probe"
    package.mkdir()
    (package / "__init__.py").write_text(PROBE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(swap_memo, "PACKAGE", str(package) + "/")
    engines = ("engine", "cached_engine", "inner", "outer", "cached_outer")
    monkeypatch.setattr(swap_memo, "ENGINE", {"attnlib_probe": engines})
    store = tmp_path / "store"

    def run(engine: str, swap=None, memo: bool = True):
        """One run: the swap, then the engine twice on a seeded stream. Returns (values, stream state after,
        memo hits)."""
        sys.modules.pop("attnlib_probe", None)
        monkeypatch.setattr(swap_memo, "STATE", swap_memo._State())
        mod = importlib.import_module("attnlib_probe")
        if memo:
            swap_memo.install(store)
        before = swap_memo.snapshot()
        if swap:
            swap(mod)
        swap_memo.note_swap(before)
        rng = np.random.default_rng(7)
        values = [getattr(mod, engine)(5, rng) for _ in range(2)]
        mod.table.cache_clear()
        return values, rng.bit_generator.state, swap_memo.STATE.hits

    yield run
    sys.modules.pop("attnlib_probe", None)


def _plant_other(mod):  # another function of the package in place of the formula
    mod.formula = mod.other_formula


def _wrap(mod):  # the original with a changed argument
    original = mod.formula
    mod.formula = lambda x: original(2 * x)


def _new(mod):  # new code
    mod.formula = lambda x: abs(x)


def _builtin(mod):  # code the memo cannot trace
    mod.formula = np.abs


def _closed_form(mod):  # a formula the engine never calls
    mod.closed_form = lambda x: 3 * x


def _constant(mod):
    mod.SCALE = 2.0


@pytest.mark.parametrize("engine", ["engine", "cached_engine", "outer", "cached_outer"])
@pytest.mark.parametrize("swap", [_plant_other, _wrap, _new, _builtin, _closed_form, _constant])
@pytest.mark.parametrize("first", [None, _plant_other, _wrap, _new, _closed_form, _constant])
def test_a_memoised_run_computes_what_the_run_without_memo_computes(probe, engine, first, swap):
    """Whatever run filled the store first (no swap, or any swap), a later run with another swap gets the
    values and the stream state of its own computation without the memo."""
    probe(engine, first)
    with_memo = probe(engine, swap)
    without = probe(engine, swap, memo=False)
    assert with_memo[0] == without[0] and with_memo[1] == without[1]


def test_an_entry_made_from_reused_nested_entries_knows_what_they_executed(probe):
    """The outer call stored by the second run reused both inner draws: it must still count the formula they
    executed, or the third run (formula swapped) would reuse it."""
    probe("outer", _closed_form)  # stores the inner draws only (the outer call ran the planted closed form)
    assert probe("outer")[2] == 4  # each outer call reused its 2 inner draws, and was stored
    assert probe("outer", _wrap)[:2] == probe("outer", _wrap, memo=False)[:2]


def test_the_memo_is_used_where_the_swap_cannot_change_the_call(probe):
    """Without this the test above would pass with a memo that never hits."""
    probe("engine")
    values, state, hits = probe("engine", _closed_form)
    assert hits == 2
    assert (values, state) == probe("engine", memo=False)[:2]
    assert probe("engine", _new)[2] == 0
    assert probe("cached_engine", _closed_form)[2] == 0 and probe("cached_engine", _closed_form)[2] == 2
    probe("outer")
    assert probe("outer", _closed_form)[2] == 4  # the outer calls recomputed, the inner draws reused
