"""Validation once: a public entry checks its arguments in one call, and nothing inside checks them again.

A validator call is one entry of control into :mod:`attnlib.numerics.checks` from code outside it (what a
validator does inside, e.g. one argument after another, is part of that call). Counted with
``sys.setprofile``. Before the decorator ``checks.validated``, one ``simulate`` made 3 such calls on the dense
path (5 counting the validators a validator calls), 6 on the matrix-free path, 8 at population level by the
matrix-free path and 13 with a density estimate, because the operators, the token sampler, Lanczos and the
density estimate checked their inputs again. Now it makes 1 (2 with a density: the SpectralDensity it returns).
Building a Setting made 6 (one per field, and the mean weights' T); now 1.
"""

import sys

import numpy as np
import pytest

import attnlib
from attnlib import Setting, positional
from attnlib.engine import cost, simulation, slq
from attnlib.model import generative
from attnlib.numerics import checks

CHECKS = checks.__file__
SETTING = Setting(d=60, V=120, N=240, mu_norm2=1.0, process=positional.markov(8, 0.6))


def validator_calls(run) -> tuple[int, int]:
    """(entries into numerics.checks from outside it, every call of a function of numerics.checks) in run()."""
    entries, calls = [0], [0]

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == CHECKS:
            calls[0] += 1
            if frame.f_back is None or frame.f_back.f_code.co_filename != CHECKS:
                entries[0] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return entries[0], calls[0]


PATHS = [{}, {"method": "dense"}, {"method": "matrix-free"}, {"k": 2}, {"k": 2, "method": "matrix-free"},
         {"spectrum": "exact"}, {"spectrum": "slq"}, {"level": "population"},
         {"level": "population", "method": "matrix-free"}, {"centered": False}]


@pytest.mark.parametrize("options", PATHS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_one_simulate_makes_at_most_two_validator_calls(options):
    entries, calls = validator_calls(lambda: attnlib.simulate(SETTING, np.random.default_rng(0), **options))
    assert entries <= 2, f"{entries} validator calls in one simulate({options})"
    # the entry itself and k's positive_int (and, for a density, the SpectralDensity it returns)
    assert calls <= (3 if options.get("spectrum") == "slq" else 2)


def test_building_the_setting_and_simulating_make_two_validator_calls():
    process = positional.markov(8, 0.6)

    def run():
        attnlib.simulate(Setting(d=60, V=120, N=240, mu_norm2=1.0, process=process), np.random.default_rng(0))

    assert validator_calls(run)[0] == 2  # one for the Setting's fields (valid once built), one for simulate's


def test_the_counter_sees_a_check_made_inside(monkeypatch):
    original = simulation.draw_tokens

    def rechecking(process, V, N, rng, frequencies=None):
        checks.rng(rng)
        checks.positive_int("N", N)
        return original(process, V, N, rng, frequencies)

    monkeypatch.setattr(simulation, "draw_tokens", rechecking)
    entries, _ = validator_calls(lambda: attnlib.simulate(SETTING, np.random.default_rng(0)))
    assert entries == 3


def test_a_sweep_checks_once_and_not_per_draw():
    many, _ = validator_calls(lambda: attnlib.sweep(SETTING, seed=0, trials=4))
    one, _ = validator_calls(lambda: attnlib.sweep(SETTING, seed=0, trials=1))
    assert many == one


def test_bad_input_still_fails_at_the_entry():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"rng must be a numpy.random.Generator .*got 3"):
        attnlib.simulate(SETTING, 3)
    with pytest.raises(ValueError, match=r"setting must be an attnlib.model.setting.Setting, got 'a setting'"):
        attnlib.simulate("a setting", rng)
    with pytest.raises(ValueError, match=r"k must be an integer >= 1, got 0"):
        attnlib.simulate(SETTING, rng, k=0)
    with pytest.raises(ValueError, match=r"workers must be an integer >= 1"):
        attnlib.simulate(SETTING, rng, workers=0)
    with pytest.raises(ValueError, match=r"vocabulary .* does not match the setting"):
        attnlib.simulate(SETTING, rng, vocabulary=generative.draw_vocabulary(60, 100, 1.0, rng))
    with pytest.raises(ValueError, match=r"dtype must be numpy.float64 or numpy.float32"):
        generative.draw_vocabulary(6, 10, 1.0, rng, dtype=int)
    with pytest.raises(ValueError, match=r"n must be an integer >= 1, got 0"):
        positional.markov(4, 0.5).sample(0, rng)
    with pytest.raises(TypeError, match="has no argument"):
        checks.validated(x=int)(lambda y: y)


def test_no_checked_and_trusted_twins():
    gone = {simulation: ["draw", "population_eigenpairs"], cost: ["choose", "check_memory"],
            generative: ["make_vocabulary", "class_tokens"], positional.SignProcess: ["draw"]}
    for owner, names in gone.items():
        for name in names:
            assert not hasattr(owner, name), f"{owner.__name__}.{name} is back"
    # one function each, checked at its entry; the library calls the same function without the check
    for entry in [attnlib.simulate, simulation.population_top, cost.plan, generative.draw_vocabulary,
                  positional.SignProcess.sample, slq.slq, slq.lanczos_quadrature]:
        assert entry.__wrapped__.__name__ == entry.__name__
