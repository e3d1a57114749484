r"""Theory against simulation in one call: for each setting and each quantity, the simulated mean and sd, the
limit, the predicted finite-d sd and a z-score (:func:`agreement`; shown by :func:`attnlib.compare`).

The quantities are the top eigenvalue of the centred ``S`` (``"top"``) and the squared overlaps of its top
eigenvector with the class centroid h (``"overlap_h"``) and with u = mu/||mu|| (``"overlap_u"``). Their limits
are those of :meth:`~attnlib.model.setting.Setting.signal` and :meth:`~attnlib.model.setting.Setting.signal_h`,
at the setting's exact ratios. Their predicted per-draw sd is the leading finite-d fluctuation,
:func:`attnlib.theory.fluctuations.outlier_sd` for the eigenvalue and
:func:`attnlib.theory.overlap_fluctuations.spike_variance` for the overlaps, with the kurtosis of the pooled
sign from the sign process (:func:`attnlib.model.kurtosis.pooled_kurtosis`: exact by enumerating its law when it
lists at most 2^20 sequences, by sampling otherwise; the record says which). The z-score is
``(mean - limit) / (predicted sd / sqrt(trials))``: it needs no estimate of the spread, so that it holds with a
handful of trials, where the spread of the draws is itself uncertain.

No Gaussian prediction exists without an outlier (below the sample threshold, the top eigenvalue sits at the
bulk edge with Tracy-Widom fluctuations), within :data:`WINDOWS` window widths of the sample threshold (the
critical window, where the fluctuations are of order d^(-2/3) and not Gaussian) or for u at ||mu||^2 = 0
(there is no u), nor for a setting with model ``options`` (noise law, covariance, token frequencies): the row
then says why, and its predicted sd and z are ``nan``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnlib.engine.montecarlo import Sweep
from attnlib.engine.simulation import Draw
from attnlib.model.kurtosis import SAMPLES, pooled_kurtosis
from attnlib.model.setting import Setting
from attnlib.numerics import checks as _v
from attnlib.numerics import randomness
from attnlib.theory import fluctuations, overlap_fluctuations

__all__ = ["QUANTITIES", "WINDOWS", "Row", "Agreement", "agreement", "prediction", "prediction_curve"]

#: The quantities compared: the top eigenvalue and the squared overlaps of its eigenvector with h and u.
QUANTITIES = ("top", "overlap_h", "overlap_u")
#: Distance above the sample threshold, in window widths (:func:`attnlib.theory.fluctuations.window_position`),
#: from which the Gaussian fluctuations of the outlier are predicted.
WINDOWS = 3.0


@dataclass(frozen=True)
class Row:
    """One setting (index ``setting``) and one ``quantity``: ``trials`` draws of ``mean`` and ``sd`` (ddof=1),
    the ``limit``, the ``predicted_sd`` of one draw, ``z`` = (mean - limit) / (predicted_sd / sqrt(trials)),
    and ``note``: why there is no prediction ("" when there is one)."""

    setting: int
    quantity: str
    trials: int
    mean: float
    sd: float
    limit: float
    predicted_sd: float
    z: float
    note: str = ""


@dataclass(frozen=True, eq=False)
class Agreement:
    """Simulation against theory for ``settings``: ``rows`` (setting by setting, quantity by quantity),
    ``kurtosis`` (the pooled sign's, one :class:`~attnlib.model.kurtosis.Kurtosis` per setting) and
    ``values`` (quantity -> one array of the draws' values per setting)."""

    settings: tuple
    rows: tuple
    kurtosis: tuple
    values: dict

    def row(self, setting: int, quantity: str) -> Row:
        """The row of setting index ``setting`` and ``quantity``."""
        for r in self.rows:
            if r.setting == setting and r.quantity == quantity:
                return r
        raise ValueError(f"no row for setting {setting!r} and quantity {quantity!r}; settings 0.."
                         f"{len(self.settings) - 1}, quantities {sorted({r.quantity for r in self.rows})}")

    def column(self, field: str, quantity: str) -> np.ndarray:
        """``field`` of every setting's row of ``quantity`` (e.g. ``column("z", "top")``), as an array."""
        field = _v.choice("field", field, ("trials", "mean", "sd", "limit", "predicted_sd", "z"))
        return np.array([getattr(self.row(i, quantity), field) for i in range(len(self.settings))], dtype=float)


def prediction(setting: Setting, quantity: str, beta4: float) -> tuple[float, float, str]:
    """``(limit, predicted sd of one draw, note)`` of ``quantity`` for ``setting`` (the module docstring)."""
    quantity = _v.choice("quantity", quantity, QUANTITIES)
    spike = setting.signal_h() if quantity == "overlap_h" else setting.signal()
    if quantity == "overlap_u" and setting.mu_norm2 == 0:
        return float("nan"), float("nan"), "‖μ‖² = 0: there is no direction u = μ/‖μ‖"
    if not np.isfinite(spike.sample_eigenvalue):
        limit = setting.bulk.upper if quantity == "top" else 0.0
        return float(limit), float("nan"), "no outlier: below the sample threshold (limit: bulk edge or 0)"
    limit = float(spike.sample_eigenvalue if quantity == "top" else spike.sample_overlap)
    if setting.options is not None:
        return limit, float("nan"), "a model variant (options): the fluctuations are predicted for the book's model"
    delta, gamma, d = setting.delta, setting.gamma, setting.d
    if fluctuations.window_position(delta, gamma, theta=setting.theta, d=d) < WINDOWS:
        return limit, float("nan"), f"within {WINDOWS:g} window widths of the sample threshold: not Gaussian"
    args = dict(kappa=setting.kappa, mu_norm2=setting.mu_norm2, beta4=beta4)
    if quantity == "top":
        return limit, fluctuations.outlier_sd(delta, gamma, setting.theta, d, **args), ""
    var = overlap_fluctuations.spike_variance(delta, gamma, setting.theta, d, **args)
    return limit, float(np.sqrt(getattr(var, quantity))), ""


def prediction_curve(setting: Setting, mu_norm2s, quantity: str, beta4: float) -> tuple[np.ndarray, np.ndarray]:
    """``(limits, predicted sds)`` of ``quantity`` for ``setting`` at each ||mu||^2 of ``mu_norm2s`` (the theory
    curve and the band of a figure; ``nan`` where :func:`prediction` has none)."""
    grid = _v.finite_vector("mu_norm2s", mu_norm2s)
    out = np.array([prediction(setting.replace(mu_norm2=float(m)), quantity, beta4)[:2] for m in grid])
    return out[:, 0], out[:, 1]


def _grouped(results) -> tuple[tuple, dict]:
    """The settings and, per quantity, the values of their draws, from a Sweep or a sequence of Draws."""
    if isinstance(results, Sweep):
        if results.level != "sample" or not results.centered:
            raise ValueError("results must be a sample-level sweep of the centred S (level='sample', "
                             f"centered=True), got level={results.level!r}, centered={results.centered}")
        return results.settings, {q: tuple(results.values(q)) for q in QUANTITIES}
    draws = list(results) if isinstance(results, (list, tuple)) else None
    if not draws or not all(isinstance(x, Draw) for x in draws):
        raise ValueError("results must be an attnlib.sweep result or a non-empty list of attnlib.simulate draws, "
                         f"got {_v.short(results)}")
    if any(x.level != "sample" or not x.centered for x in draws):
        raise ValueError("every draw must be of the centred S at sample level (simulate(..., level='sample', "
                         "centered=True))")
    keys, settings, members = {}, [], []
    for x in draws:  # one group per setting, in order of first appearance
        key = (repr(x.setting), x.setting.weights.tobytes(), x.setting.R.tobytes())
        if key not in keys:
            keys[key] = len(settings)
            settings.append(x.setting)
            members.append([])
        members[keys[key]].append(x)
    return tuple(settings), {q: tuple(np.array([getattr(x, q) for x in group]) for group in members)
                             for q in QUANTITIES}


def agreement(results, *, quantities=QUANTITIES, seed: int = 0, samples: int = SAMPLES) -> Agreement:
    """Compare simulations with the theory, setting by setting (the module docstring).

    Parameters
    ----------
    results : Sweep or sequence of Draw
        An :func:`attnlib.sweep` result at sample level (centred), or draws of :func:`attnlib.simulate`
        (grouped by setting).
    quantities : sequence of str
        Among :data:`QUANTITIES`.
    seed : int
        Seed of the sign sequences drawn when a kurtosis is sampled rather than enumerated.
    samples : int
        Sequences drawn for a sampled kurtosis.
    """
    quantities = tuple(_v.choice("quantities[i]", q, QUANTITIES) for q in quantities)
    if not quantities:
        raise ValueError(f"quantities must name at least one of {', '.join(QUANTITIES)}")
    seed = _v.positive_int("seed", seed, minimum=0)
    settings, values = _grouped(results)
    known: dict = {}
    kurt, rows = [], []
    for i, s in enumerate(settings):
        key = (id(s.process), s.weights.tobytes())
        if key not in known:
            known[key] = pooled_kurtosis(s.process, s.weights, rng=randomness.generator(seed), samples=samples)
        kurt.append(known[key])
        for q in quantities:
            v = values[q][i]
            limit, sd_pred, note = prediction(s, q, known[key].value)
            sd = float(v.std(ddof=1)) if v.size > 1 else float("nan")
            z = (v.mean() - limit) / (sd_pred / np.sqrt(v.size)) if np.isfinite(sd_pred) else float("nan")
            rows.append(Row(i, q, int(v.size), float(v.mean()), sd, limit, sd_pred, float(z), note))
    return Agreement(settings, tuple(rows), tuple(kurt), {q: values[q] for q in quantities})

