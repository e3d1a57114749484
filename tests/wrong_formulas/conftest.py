"""Wrong-formula tests: each page's closing checks (``book/checks/``) must reject a plausible wrong formula.

A page's ``WRONG`` maps a test id to ``(module, name, wrong)`` or a list of them: the test patches each (:func:`swap`)
and calls the page's ``check`` on the results it recorded (``book/checks/results/``), which must raise
``AssertionError``. No simulation runs again, except in ``redraw``: a wrong sampler, or a measurement redone."""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

BOOK = Path(__file__).resolve().parent.parent.parent / "book"
if str(BOOK) not in sys.path:
    sys.path.insert(0, str(BOOK))


def swap(monkeypatch, module, name: str, wrong) -> None:
    """Replace ``module.name`` (a class's attribute too) by ``wrong``, and wherever attnlib or the checks refer to
    that same object (a module that imported it by name keeps its own reference), for the test's duration."""
    original = getattr(module, name)
    monkeypatch.setattr(module, name, wrong)
    for mod in list(sys.modules.values()):
        if getattr(mod, "__name__", "").partition(".")[0] in ("attnlib", "checks"):
            for attr, value in list(vars(mod).items()):
                if value is original:
                    monkeypatch.setattr(mod, attr, wrong)


def rejects(check, results) -> None:
    """``check(results)`` must fail on an assertion (and not, say, on a TypeError of the wrong formula)."""
    with pytest.raises(AssertionError):
        check(results)


def page_tests(page, results, wrong: dict, redraw: dict | None = None):
    """A page's two tests: its check holds on ``results``, and rejects each entry of ``wrong`` (an entry of
    ``redraw`` on the results ``redraw[name](results)`` computes under the patch)."""
    def test_the_checks_hold_on_the_recorded_results():
        page.check(results)
    @pytest.mark.parametrize("name", wrong)
    def test_a_wrong_formula_is_rejected(monkeypatch, name):
        for target in wrong[name] if isinstance(wrong[name], list) else [wrong[name]]:
            swap(monkeypatch, *target)
        rejects(page.check, (redraw or {}).get(name, lambda r: r)(results))
    return test_the_checks_hold_on_the_recorded_results, test_a_wrong_formula_is_rejected


def replaced(function, **changes):
    """``function`` with fields of its (dataclass) result replaced: ``field=change(result, *args, **kwargs)``."""
    def wrong(*args, **kwargs):
        out = function(*args, **kwargs)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = {field: change(out, *args, **kwargs) for field, change in changes.items()}
        return dataclasses.replace(out, **{k: v if np.ndim(v) else float(v) for k, v in new.items()})
    return wrong


def spike_with(field, change):
    """``theory.spike`` with ``field`` replaced by ``change(spike, x, delta, gamma, kappa)``, x = theta - delta."""
    from attnlib.theory import _spikes
    return replaced(_spikes.spike, **{field: lambda sp, delta, gamma, theta, kappa=1.0, **_: change(
        sp, np.asarray(sp.theta, dtype=float) - delta, delta, gamma, kappa)})


def centroid_scaled(signal, fields, divide=False, zero=1.0):
    """``signal`` with ``fields`` times (``divide``: over) the centroid factor ||mu||^2 / (||mu||^2 + delta) from
    the overlap with h to that with mu (``zero`` where mu = 0)."""
    def change(field):
        def new(sp, delta, gamma, alpha, kappa, mu_norm2):
            m = np.asarray(mu_norm2, dtype=float)
            f = np.where(m > 0, m / (m + delta), zero)
            return getattr(sp, field) / f if divide else getattr(sp, field) * f
        return new
    return replaced(signal, **{field: change(field) for field in fields})
