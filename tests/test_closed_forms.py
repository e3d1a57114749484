"""Every closed form of the limit theory lives in ``attnlib.theory`` (CONTRIBUTING.md, "A formula").

A closed form is a formula of the limit theory: numbers in, numbers out, no simulation and no data. ``MOVED``
lists those that once lived in ``attnlib.studies`` or ``attnlib.model``: each must be defined in its ``theory``
module and named in its ``__all__``, and no module of ``studies`` or ``model`` may define a function or class
of that name again. ``ADAPTERS`` lists the functions that stay in a study or the model because users call them
with a ``Setting``: they pass the setting's numbers to the theory and may hold no arithmetic (no binary or unary
operator in their body). ``EXCEPTIONS`` lists the formula-like functions left outside ``theory`` on purpose, each
with its reason (also written in its docstring, or its module's).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest

import attnlib

MOVED = {  # name: the theory module that defines it (formerly in the module of the comment)
    # studies.token_mixing
    "free_cumulants": "attnlib.theory.tokens",
    "m4_shift": "attnlib.theory.tokens",
    "heavy_token_term": "attnlib.theory.tokens",
    "HeavyToken": "attnlib.theory.tokens",
    "heavy_token_thresholds": "attnlib.theory.tokens",
    # studies.causal_attention
    "deviation_second_moment": "attnlib.theory.finite_attention",
    "deviation_rms": "attnlib.theory.finite_attention",
    "repeated_pairs": "attnlib.theory.finite_attention",
    "deviation_mean": "attnlib.theory.finite_attention",
    # studies.downstream (label_snr, fisher_accuracy, spectral_accuracy and samples_threshold stay as adapters)
    "label_separation": "attnlib.theory.classification",
    "fisher_ceiling": "attnlib.theory.classification",
    "SpectralPrediction": "attnlib.theory.classification",
    "spectral_prediction": "attnlib.theory.classification",
    "sample_size_threshold": "attnlib.theory.classification",
    # model.k_classes.spikes
    "class_spikes": "attnlib.theory._spikes",
    # studies.real_layer
    "score_tilt": "attnlib.theory.finite_attention",
    "softmax_row_second_moment": "attnlib.theory.finite_attention",
    "random_row_moments": "attnlib.theory.finite_attention",
    # studies.finite_size
    "overlap_slope": "attnlib.theory.window",
    "window_dimension": "attnlib.theory.window",
}

ADAPTERS = {  # "module:qualified name": the theory function it calls
    "attnlib.studies.downstream:label_snr": "label_separation",
    "attnlib.studies.downstream:fisher_accuracy": "fisher_ceiling",
    "attnlib.studies.downstream:spectral_accuracy": "spectral_prediction",
    "attnlib.studies.downstream:samples_threshold": "sample_size_threshold",
    "attnlib.model.k_classes:ClassSetting.spikes": "class_spikes",
}

EXCEPTIONS = {  # "module:name": why it stays outside theory
    "attnlib.studies.downstream:label_signal": "a = (Rw)_b is a property of the task's parameters, as alpha is; "
                                               "no limit is taken",
    "attnlib.model.k_classes:scatter_eigenvalues": "the scatter of the class means is a property of the model's "
                                                   "parameters; no limit is taken",
    "attnlib.model.weights:causal": "the weights the model is run with (the d -> infinity attention weights "
                                    "define the 'causal' weighting of a Setting)",
    "attnlib.model.weights:prefix_snr_mean": "alpha/kappa of a weighting: a function of the parameters w and R",
    "attnlib.model.weights:prefix_snr_optimal": "alpha/kappa of a weighting: a function of the parameters w and R",
    "attnlib.model.weights:prefix_gain": "alpha/kappa of a weighting: a function of the parameters w and R",
    "attnlib.model.weights:prefix_snr": "alpha/kappa of a weighting: a function of the parameters w and R",
    "attnlib.model.frequencies:effective_vocabulary": "Kish's effective size of the model's own frequencies, "
                                                       "read through the model's check of a frequency vector",
    "attnlib.model.frequencies:centroid_shift": "d / V_eff, read through the model's check of a frequency vector",
    "attnlib.studies.learning:shortfall_constant": "a property of one maximiser found by the study's search",
    "attnlib.studies.learning:bounded_gap": "needs the maximisers the study's search finds",
    "attnlib.studies.finite_size:overlap_dimension": "an empirical rule: its envelope constants OVERLAP_PEAK and "
                                                     "OVERLAP_TAIL are measured by chapter 9's simulations",
}

LAYERS = ("attnlib.studies", "attnlib.model")


def _modules(package: str) -> list[str]:
    pkg = importlib.import_module(package)
    return [m.name for m in pkgutil.walk_packages(pkg.__path__, package + ".")]


def _top_level_definitions(module_name: str) -> set[str]:
    tree = ast.parse(inspect.getsource(importlib.import_module(module_name)))
    return {node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _resolve(target: str):
    module_name, _, qualname = target.partition(":")
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("name", MOVED)
def test_a_moved_closed_form_lives_in_theory(name):
    module = importlib.import_module(MOVED[name])
    assert name in module.__all__, f"{MOVED[name]}.__all__ does not name {name}"
    assert getattr(module, name).__module__ == MOVED[name]


@pytest.mark.parametrize("layer", LAYERS)
def test_no_moved_closed_form_is_defined_again_outside_theory(layer):
    again = {m: sorted(_top_level_definitions(m) & set(MOVED)) for m in _modules(layer)}
    assert not {m: names for m, names in again.items() if names}


def _arithmetic(func) -> list[str]:
    """The binary and unary operators in the body of ``func`` (not in its signature's annotations)."""
    body = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0].body
    return [ast.unparse(node) for stmt in body for node in ast.walk(stmt) if isinstance(node, (ast.BinOp, ast.UnaryOp))]


@pytest.mark.parametrize("target", ADAPTERS)
def test_an_adapter_holds_no_formula(target):
    func = _resolve(target)
    assert not _arithmetic(func), f"{target} computes {_arithmetic(func)}: move that into attnlib.theory"
    assert ADAPTERS[target] in inspect.getsource(func), f"{target} does not call theory's {ADAPTERS[target]}"


def test_the_adapter_check_finds_a_formula():
    def adapter(setting):
        return setting.alpha / setting.kappa

    assert _arithmetic(adapter) == ["setting.alpha / setting.kappa"]


@pytest.mark.parametrize("target", EXCEPTIONS)
def test_an_exception_exists_and_says_why_where_it_lives(target):
    obj = _resolve(target)
    module = importlib.import_module(target.partition(":")[0])
    docs = (obj.__doc__ or "") + (module.__doc__ or "")
    assert "exception" in docs, f"{target} stays outside theory: say so (and why) in its docstring or its module's"
