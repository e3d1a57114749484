"""Memoised Monte-Carlo results for the swap runs (tests/test_swaps.py): a swap that does not touch the code of
a simulation gets that simulation's stored result instead of recomputing it.

Most swaps replace a closed form (a spike formula, a threshold, a variance); the chapter's simulations do not
call it, so their results are the same with and without the swap, bit for bit. The engine functions in
``ENGINE`` are wrapped (in the swap run's process only) so that a call

1. builds a key from the function and its full arguments (pickled; every ``numpy.random.Generator`` among them
   by its state, so the seed and the stream position are part of the key);
2. looks the key up in the store (a directory of pickles). An entry holds the result, the Generators' states
   after the call and *every attnlib function the call executed* (traced in every thread when the entry was
   computed). It is used only if none of those functions was replaced by the swap: then the call would
   execute exactly the same code on the same data. The Generators are set to their stored states, so the
   chapter's random streams continue as if the call had run;
3. otherwise computes the result (tracing it), and stores it only if neither a replaced function nor one the
   swap planted ran and the call left its other arguments unchanged. Engine calls nested in it (in its
   thread) are memoised the same way, and an entry they reuse counts its functions as executed by the
   enclosing call: a swap of a closed form that a sweep applies to its draws recomputes the sweep, not the
   draws.

A swap counts as replacing a function when a binding of an attnlib module, or of a class defined in attnlib,
changes in the swap's cell (a function, method, property or ``functools`` cache is compared by its code). A
swap that changes anything else (a constant, an array) turns the memo off for its run: every call computes.
Functions behind a ``functools.lru_cache`` count as executed when their cache was consulted during the call.

The store's directory is named by a fingerprint of attnlib's sources, of ``book/data`` and of the numerical
libraries' versions, so a stale entry is never read.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import sys
import threading
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
PACKAGE = str(REPO / "attnlib") + os.sep

#: The engine: functions whose calls simulate (module -> names). Add a function here when a chapter spends
#: seconds in it; nothing else needs to change.
ENGINE = {
    "attnlib.engine.montecarlo": ("sweep", "finite_size_scan"),
    "attnlib.engine.simulation": ("simulate", "draw"),
    "attnlib.studies.k_class_sweep": ("sweep",),
    "attnlib.studies.real_layer": ("layer_scan", "layer_draw"),
    "attnlib.studies.causal_attention": ("deviation_scan", "sample_embeddings"),
    "attnlib.studies.learning": ("train_pooling", "bounded_optimum", "label_snr_optimum"),
    "attnlib.studies.token_mixing": ("t_departure", "token_mixing_spectrum", "token_mixing_moments", "token_edges"),
    "attnlib.studies.finite_size": ("nested_draws",),
    "attnlib.studies.experiment": ("run_experiment",),
    "attnlib.engine.compare": ("distance_floor",),
    "attnlib.engine.heads": ("heads_sweep", "simulate_heads"),
    "attnlib.studies.stacked_layers": ("stack_scan", "stack_draw"),
    "attnlib.views.webexplorer": ("embed",),
}


def fingerprint() -> str:
    """Hash of attnlib's sources, the stored data and the numerical libraries' versions."""
    import scipy

    h = hashlib.sha256(f"{sys.version}|{np.__version__}|{scipy.__version__}".encode())
    for path in sorted([*(REPO / "attnlib").rglob("*.py"), *(REPO / "book" / "data").glob("*")]):
        if path.is_file():
            h.update(str(path.relative_to(REPO)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


class _State:
    directory: Path | None = None  # the store; None: memo off
    replaced: frozenset = frozenset()  # code keys of the functions the swap replaced
    planted: frozenset = frozenset()  # code objects of the functions the swap put in their place
    traces: list  # (code objects executed, code keys reused) of each memoised call being computed
    owner = None  # the thread of the outermost call being computed: nested calls are memoised there only
    hits = misses = stored = 0

    def __init__(self):
        self.traces = []


STATE = _State()


def _code_key(code) -> tuple:
    return code.co_filename, code.co_firstlineno, code.co_name


# ------------------------------------------------------------------------------------------------ keys


class _KeyPickler(pickle.Pickler):
    """Pickles arguments with every Generator replaced by a placeholder; the Generators are collected."""

    def __init__(self, file, generators):
        super().__init__(file, protocol=5)
        self.generators = generators

    def reducer_override(self, obj):
        if isinstance(obj, np.random.Generator):
            self.generators.append(obj)
            return _Placeholder, (len(self.generators) - 1,)
        return NotImplemented


class _Placeholder:
    def __init__(self, index):
        self.index = index


def _arguments(args, kwargs) -> tuple[bytes, list]:
    generators: list = []
    buffer = io.BytesIO()
    _KeyPickler(buffer, generators).dump((args, sorted(kwargs.items())))
    return buffer.getvalue(), generators


def _states(generators) -> list:
    return [g.bit_generator.state for g in generators]


# ------------------------------------------------------------------------------------------------ tracing


def _lru_caches() -> list:
    """(cache wrapper, key of the cached function's code) for every functools cache in attnlib's modules."""
    found = {}
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("attnlib"):
            for value in list(vars(mod).values()):
                inner = getattr(value, "__wrapped__", None)
                if hasattr(value, "cache_info") and hasattr(inner, "__code__"):
                    found[id(value)] = (value, _code_key(inner.__code__))
    return list(found.values())


def _traced(fn, args, kwargs) -> tuple[object, set, bool]:
    """Call fn, returning its result, the code keys of every attnlib function executed (all threads; with
    those of the entries that nested memoised calls reused) and whether the result must not be stored (a
    function the swap planted ran, or see below). The outermost call empties attnlib's ``functools`` caches
    first, so that every function whose value it uses is computed, and traced, inside it."""
    codes: set = set()
    reused: set = set()
    planted = STATE.planted
    outermost = not STATE.traces
    STATE.traces.append((codes, reused))

    def trace(frame, event, arg):  # the global trace function: called on "call" events only
        if frame.f_code.co_filename.startswith(PACKAGE) or frame.f_code in planted:
            for active, _ in STATE.traces:
                active.add(frame.f_code)
        # None: no line events in the frame

    caches = _lru_caches()
    if outermost:  # a value cached before the call would hide what computing it executes
        for cache, _ in caches:
            cache.cache_clear()
    before = [c.cache_info()[:2] for c, _ in caches]
    if outermost:  # a trace function (unlike a profile function) is not called around C calls: cheaper
        STATE.owner = threading.get_ident()
        previous = sys.gettrace()
        threading.settrace(trace)
        sys.settrace(trace)
    try:
        result = fn(*args, **kwargs)
    finally:
        STATE.traces.pop()
        if outermost:
            sys.settrace(previous)
            threading.settrace(None)
    keys = {_code_key(c) for c in codes} | reused
    keys.update(key for (c, key), b in zip(caches, before) if c.cache_info()[:2] != b)
    # a nested call that reused a cached value (computed before it, maybe by code it did not trace) is not
    # stored; the outermost call emptied the caches, so what it reused was computed, and traced, inside it
    unsure = not outermost and any(c.cache_info()[0] != b[0] for (c, _), b in zip(caches, before))
    return result, keys, bool(codes & planted) or unsure


# ------------------------------------------------------------------------------------------------ the memo


def memoised(fn, name: str):
    """``fn`` with its results stored and reused as the module docstring describes."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if STATE.directory is None or (STATE.traces and threading.get_ident() != STATE.owner):
            return fn(*args, **kwargs)  # memo off, or a thread inside a traced call: traced, not memoised
        try:
            frozen, generators = _arguments(args, kwargs)
        except Exception:  # unpicklable arguments (a lambda, an executor): no memo for this call
            return fn(*args, **kwargs)
        h = hashlib.sha256(name.encode() + frozen)
        h.update(pickle.dumps(_states(generators)))
        path = STATE.directory / f"{h.hexdigest()}.pkl"
        if path.exists():
            try:
                with path.open("rb") as f:
                    codes, states, result = pickle.load(f)
            except Exception:
                codes = None
            if codes is not None and not (codes & STATE.replaced):
                for g, state in zip(generators, states):
                    g.bit_generator.state = state
                for _, reused in STATE.traces:  # the enclosing calls executed what this entry did
                    reused.update(codes)
                STATE.hits += 1
                return result
        STATE.misses += 1
        result, codes, unstorable = _traced(fn, args, kwargs)
        if unstorable or codes & STATE.replaced:  # the swap's code ran, or the original reached it
            return result
        try:
            after, _ = _arguments(args, kwargs)
            if after != frozen:  # the call changed an argument (other than a Generator): not a pure call
                return result
            data = pickle.dumps((codes, _states(generators), result), protocol=5)
        except Exception:
            return result
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:  # a store that cannot be written (removed, full) only costs the reuse
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError:
            return result
        STATE.stored += 1
        return result

    wrapper.memo_wrapped = fn
    return wrapper


def rebind(original, new) -> int:
    """Replace ``original`` by ``new`` in every attnlib module that refers to it; the number of bindings."""
    count = 0
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").startswith("attnlib"):
            for attr, value in list(vars(mod).items()):
                if value is original:
                    setattr(mod, attr, new)
                    count += 1
    return count


def install(directory: Path) -> None:
    """Wrap the engine functions (importing their modules) and use ``directory`` as the store."""
    import importlib

    for module_name, names in ENGINE.items():
        module = importlib.import_module(module_name)
        for name in names:
            original = getattr(module, name)
            if not hasattr(original, "memo_wrapped"):
                rebind(original, memoised(original, f"{module_name}.{name}"))
    directory.mkdir(parents=True, exist_ok=True)
    STATE.directory = directory


# ------------------------------------------------------------------------------------------------ swaps


def snapshot() -> dict:
    """Every binding of attnlib's modules and of the classes they define: {(owner, name): value}."""
    out = {}
    for mod in list(sys.modules.values()):
        modname = getattr(mod, "__name__", "")
        if not modname.startswith("attnlib"):
            continue
        for attr, value in list(vars(mod).items()):
            out[modname, attr] = value
            if isinstance(value, type) and getattr(value, "__module__", "").startswith("attnlib"):
                for cattr, cvalue in list(vars(value).items()):
                    out[f"{value.__module__}.{value.__qualname__}", cattr] = cvalue
    return out


def _functions(value) -> list | None:
    """The code objects behind a binding, or None if it is not a function-like object."""
    value = getattr(value, "memo_wrapped", value)
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        parts = [p for p in (value.fget, value.fset, value.fdel) if p is not None]
        codes = [_functions(p) for p in parts]
        return None if any(c is None for c in codes) else [c for cs in codes for c in cs]
    if isinstance(value, functools.partial):
        value = value.func
    value = getattr(value, "__wrapped__", value)
    code = getattr(value, "__code__", None)
    return None if code is None else [code]


def note_swap(before: dict) -> str:
    """Compare attnlib's bindings with ``before`` (taken before the swap's cell). A replaced function makes the
    entries that executed it unusable; a call that runs a function the swap planted (or the replaced one) is
    not stored. A change the memo cannot trace (a constant, an array, a builtin put in place of a function)
    turns the memo off. Returns a one-line summary."""
    after = snapshot()
    replaced, planted, other = set(), set(), []
    for key, old in before.items():
        if key in after and after[key] is not old:
            if isinstance(old, type(sys)) and isinstance(after[key], type(sys)):
                continue  # a submodule imported under the same name
            old_codes, new_codes = _functions(old), _functions(after[key])
            if old_codes is None or new_codes is None:
                other.append(".".join(key))
                continue
            replaced.update(_code_key(c) for c in old_codes)
            planted.update(new_codes)
    STATE.replaced, STATE.planted = frozenset(replaced), frozenset(planted)
    if other:
        STATE.directory = None
        return f"memo off (the swap changed {', '.join(sorted(other))})"
    return f"{len(replaced)} function(s) replaced"
