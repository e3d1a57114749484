r"""Measuring finite-size effects: draws that keep their vocabulary's centroid, nested designs that split a
variance by source, and the scaling collapse of the critical window with its exponent.

The formulas these measurements are compared with are in :mod:`attnlib.theory.fluctuations` (edge scale, outlier
variance, window width); this module holds the estimators.

Draws
    :func:`centroid_draw` is the draw :func:`attnlib.simulate` makes from a random stream (bit for bit: the
    vocabulary is drawn from the stream first, in the precision of the path, then passed on), plus the squared
    norm ``||h||^2`` of its class centroid, which sets the draw's own spike strength
    :math:`\alpha\|h\|^2/\kappa`. :func:`nested_draws` draws K vocabularies and J sets of sequences on each.
    :func:`signal_scan`: the draws of one stream at several signal strengths (common random numbers), all
    from one block Krylov space.
Variance by source
    :func:`variance_split`: within-vocabulary (sampling) and between-vocabulary variances of a (K, J) array,
    with standard errors from a bootstrap over vocabularies.
The critical window
    :func:`collapse_misfit` measures how far curves measured at several d are from one another once both axes
    are multiplied by :math:`d^\nu`; :func:`collapse_exponent` finds the best :math:`\nu`, and
    :func:`bootstrap_exponent` its spread over resampled draws.
How large is large
    :func:`overlap_dimension`: the d from which a single draw's squared overlap is typically within eps of its
    limit, from the envelope (:data:`OVERLAP_PEAK`, :data:`OVERLAP_TAIL`) of the scaled error measured in the
    chapter "How large is large?" and the slope :func:`attnlib.theory.window.overlap_slope` of the limit overlap
    at the threshold (the d from which a spike strength is outside the critical window is
    :func:`attnlib.theory.window.window_dimension`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from attnlib.model.setting import check_setting
from attnlib.numerics import checks as _v
from attnlib.numerics import products
from attnlib.theory import fluctuations
from attnlib.theory.window import overlap_slope
from attnlib import theory
from attnlib.model.generative import draw_tokens, draw_vocabulary
from attnlib.engine.operators import TOL, SampleCovariance
from attnlib.numerics.linalg import blas_threads, lanczos_family, squared_cosines
from attnlib.model.setting import Setting
from attnlib.engine.montecarlo import replicate
from attnlib.engine.simulation import Draw, simulate

__all__ = ["centroid_draw", "signal_scan", "Nested", "nested_draws", "VarianceSplit", "variance_split",
           "collapse_misfit", "collapse_exponent", "bootstrap_exponent", "OVERLAP_PEAK", "OVERLAP_TAIL",
           "overlap_dimension"]

#: Envelope of the scaled root-mean-square error R(t) of a single draw's squared overlap with h near the sample
#: threshold, the error being a w_d R(t) with t = (x - x*) / w_d (see :func:`overlap_dimension`). R(t) is at most
#: OVERLAP_PEAK for all t, and at most OVERLAP_TAIL / sqrt(t) for t >= 1. Measured in the chapter "How large is
#: large?" (prefix L = 4, mean pooling, delta = 0.5, gamma = 0.25) on d = 250 to 2000 (largest values 0.558 and
#: 0.662, rounded up to the next tenth); the chapter checks them on every build against the held-out sizes
#: d = 4000 to 16,000.
OVERLAP_PEAK = 0.6
#: See :data:`OVERLAP_PEAK`.
OVERLAP_TAIL = 0.7


def _table_dtype(spectrum) -> type:
    """Precision in which :func:`attnlib.simulate` draws the table: double for all eigenvalues, else single."""
    return np.float64 if spectrum == "exact" else np.float32


def centroid_draw(setting: Setting, rng: np.random.Generator, *, k: int = 1, spectrum=None) -> tuple[Draw, float]:
    """``(draw, ||h||^2)``: :func:`attnlib.simulate` ``(setting, rng, k=k, spectrum=spectrum)`` and its centroid.

    The vocabulary is drawn first from ``rng`` (as :func:`~attnlib.simulate` does), in the precision of the path,
    and passed to :func:`~attnlib.simulate`: the draw is the same, bit for bit, as without it. With
    ``rng = numpy.random.default_rng(stream)`` it is the draw :func:`attnlib.sweep` makes from ``stream``.
    """
    check_setting(setting)
    rng = _v.rng(rng)
    vocab = draw_vocabulary(setting.d, setting.V, setting.mu_norm2, rng, dtype=_table_dtype(spectrum))
    h = vocab.h
    return simulate(setting, rng, k=k, spectrum=spectrum, vocabulary=vocab), float(h @ h)


def signal_scan(setting: Setting, mu_norm2s, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""``(top, overlap_h, h_norm2)``, arrays over ``mu_norm2s``: the draws :func:`centroid_draw` makes at
    ``setting.replace(mu_norm2=m)`` for each m, every one from a generator in the state of ``rng``.

    Those draws share their noise Z and their sequences (common random numbers): with E_0 = Z^T the table at
    mu = 0 and S_0 = E_0^T M E_0 (:class:`~attnlib.engine.operators.SampleCovariance`), the table at
    ||mu||^2 = m is E_0 + sqrt(m) s e_1^T, so

    .. math::

        S &= S_0 + \sqrt m\,(p e_1^\top + e_1 p^\top)

        &\quad {}+ m\,c\,e_1e_1^\top,

        p &= E_0^\top M s,\qquad c = s^\top M s,

    so every strength changes S_0 inside span(e_1, p). One block Lanczos run on S_0 from (e_1, p) serves them
    all (:func:`attnlib.numerics.linalg.lanczos_family`), to the tolerance of
    :func:`~attnlib.engine.operators.top_eigenpairs`: the results agree with separate draws to about 1e-6 (that
    tolerance, and the rounding of the table's first column to float32). ``rng`` is left as after one draw.
    Single precision, top eigenpair, centred S, uniform token frequencies (the book's model without options).
    """
    check_setting(setting)
    rng = _v.rng(rng)
    ms = np.asarray(mu_norm2s, dtype=float)
    if ms.ndim != 1 or ms.size == 0 or np.any(~np.isfinite(ms)) or np.any(ms < 0):
        raise ValueError(f"mu_norm2s must be a non-empty 1-D array of numbers >= 0, got {mu_norm2s!r}")
    if setting.options is not None:
        raise ValueError("signal_scan draws the book's model: setting.options must be None")
    vocab = draw_vocabulary(setting.d, setting.V, 0.0, rng, dtype=np.float32)
    _, tokens = draw_tokens(setting.process, setting.V, setting.N, rng)
    op = SampleCovariance.from_tokens(vocab.table, tokens, setting.weights)
    s = vocab.signs.astype(float)
    Ms = op.middle(s[:, None])
    p = products.transpose_times(vocab.table, Ms, op.threads).ravel()
    e1 = np.eye(setting.d)[0]
    roots = np.sqrt(ms)
    couplings = [np.array([[r * r * float(s @ Ms[:, 0]), r], [r, 0.0]]) for r in roots]
    with blas_threads(1):
        top, vectors, _ = lanczos_family(op.matmat, np.stack([e1, p], axis=1), couplings, TOL)
    h = vocab.h[:, None] + np.outer(e1, roots)  # (E_0 + sqrt(m) s e_1^T)^T s / V, one column per strength
    overlap = np.array([squared_cosines(vectors[:, [i]], h[:, i])[0] for i in range(ms.size)])
    return top, overlap, np.einsum("ij,ij->j", h, h)


@dataclass(frozen=True, eq=False)
class Nested:
    """K vocabularies x J sample draws of one setting: ``top`` and ``overlap_h`` (K, J), ``h_norm2`` (K,)."""

    setting: Setting
    top: np.ndarray
    overlap_h: np.ndarray
    h_norm2: np.ndarray


def nested_draws(setting: Setting, seed: int, vocabularies: int, sequences: int) -> Nested:
    """Draw ``vocabularies`` tables and, on each, ``sequences`` independent sets of N sequences.

    Vocabulary ``k`` and its draws come from ``default_rng(SeedSequence(seed).spawn(vocabularies)[k])``: the
    table first (as in :func:`centroid_draw`), then the J draws one after the other, each with fresh signs and
    tokens. The first draw of every vocabulary is therefore the draw :func:`attnlib.simulate` makes from that
    stream.
    """
    check_setting(setting)
    K = _v.positive_int("vocabularies", vocabularies)
    J = _v.positive_int("sequences", sequences, minimum=2)
    def vocabulary(rng, k):
        vocab = draw_vocabulary(setting.d, setting.V, setting.mu_norm2, rng, dtype=np.float32)
        draws = [simulate(setting, rng, vocabulary=vocab) for _ in range(J)]
        return [d.top for d in draws], [d.overlap_h for d in draws], vocab.h @ vocab.h

    runs = replicate(vocabulary, seed, K)
    top, ov = np.array([r[0] for r in runs], dtype=float), np.array([r[1] for r in runs], dtype=float)
    return Nested(setting, top, ov, np.array([r[2] for r in runs], dtype=float))


@dataclass(frozen=True)
class VarianceSplit:
    """Within- and between-vocabulary variances (each with a bootstrap standard error) and the total, their
    sum (the variance of one draw with a fresh vocabulary)."""

    within: float
    within_se: float
    between: float
    between_se: float
    total: float


def _split(values: np.ndarray) -> tuple[float, float]:
    J = values.shape[1]
    within = float(np.mean(np.var(values, axis=1, ddof=1)))
    return within, float(np.var(values.mean(axis=1), ddof=1) - within / J)


def variance_split(values, rng: np.random.Generator, *, resamples: int = 400) -> VarianceSplit:
    r"""Split the variance of a (K, J) array (vocabulary k, draw j) by source.

    Within: the mean over vocabularies of the variance over draws (the sampling part,
    :math:`\mathbb E\,\mathrm{Var}(\cdot\mid\text{vocabulary})`). Between: the variance of the vocabulary means
    minus within / J (the vocabulary part, :math:`\mathrm{Var}\,\mathbb E(\cdot\mid\text{vocabulary})`); both are
    unbiased. Standard errors: bootstrap over vocabularies (``resamples`` times).
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 2 or values.shape[0] < 3 or values.shape[1] < 2 or not np.all(np.isfinite(values)):
        raise ValueError(f"values must be a finite (K, J) array with K >= 3 and J >= 2, got shape {values.shape}")
    rng = _v.rng(rng)
    resamples = _v.positive_int("resamples", resamples, minimum=2)
    K = values.shape[0]
    boot = np.array([_split(values[rng.integers(0, K, K)]) for _ in range(resamples)])
    within, between = _split(values)
    return VarianceSplit(within, float(boot[:, 0].std(ddof=1)), between, float(boot[:, 1].std(ddof=1)),
                         within + between)


def _curves(ds, offsets, values, errors):
    ds = [_v.positive_int("ds[i]", d) for d in np.atleast_1d(ds).tolist()]
    out = [tuple(np.asarray(a, dtype=float) for a in row) for row in zip(offsets, values, errors)]
    if len(out) != len(ds) or len(ds) < 2:
        raise ValueError(f"need one (offsets, values, errors) per d and at least two d, got {len(out)} for {len(ds)}")
    for x, y, e in out:
        if not (x.shape == y.shape == e.shape and x.ndim == 1 and x.size >= 2 and np.all(np.diff(x) > 0)
                and np.all(e > 0) and np.all(np.isfinite(y))):
            raise ValueError("each curve needs increasing offsets, finite values and positive errors of one length")
    return ds, out


def collapse_misfit(nu, ds, offsets, values, errors) -> float:
    r"""Mean squared standardised distance between the curves after scaling both axes by :math:`d^\nu`.

    Curve i (dimension ``ds[i]``) has points ``(offsets[i], values[i])`` with standard errors ``errors[i]``;
    it becomes :math:`(d^\nu x, d^\nu y)`. For every ordered pair of curves, each point of the first that lies
    in the range of the second is compared with the second's linear interpolation there:
    :math:`(y_i - y_j)^2 / (e_i^2 + e_j^2)`, averaged over all such comparisons (about 1 for curves that
    collapse within their errors; Bhattacharjee and Seno 2001).
    """
    ds, curves = _curves(ds, offsets, values, errors)
    nu = float(nu)
    scaled = [(d**nu * x, d**nu * y, d**nu * e) for d, (x, y, e) in zip(ds, curves)]
    total, count = 0.0, 0
    for i, (xi, yi, ei) in enumerate(scaled):
        for j, (xj, yj, ej) in enumerate(scaled):
            inside = (xi >= xj[0]) & (xi <= xj[-1])
            if i == j or not inside.any():
                continue
            y, e = np.interp(xi[inside], xj, yj), np.interp(xi[inside], xj, ej)
            total += float(np.sum((yi[inside] - y) ** 2 / (ei[inside] ** 2 + e**2)))
            count += int(inside.sum())
    if count == 0:
        raise ValueError(f"no two curves overlap after scaling with nu = {nu}")
    return total / count


def collapse_exponent(ds, offsets, values, errors, *, bounds=(0.05, 0.75)) -> float:
    r"""The exponent :math:`\nu` in ``bounds`` that minimises :func:`collapse_misfit`."""
    lo, hi = (float(b) for b in bounds)
    if not 0 <= lo < hi:
        raise ValueError(f"bounds must be 0 <= low < high, got {bounds!r}")
    res = minimize_scalar(collapse_misfit, bounds=(lo, hi), method="bounded", args=(ds, offsets, values, errors),
                          options={"xatol": 1e-4})
    return float(res.x)


def bootstrap_exponent(ds, offsets, draws, limits, rng: np.random.Generator, *, resamples: int = 200,
                       bounds=(0.05, 0.75)) -> tuple[float, np.ndarray]:
    """``(nu, nu over resamples)``: the collapse exponent of the mean deviation from the limit, and its bootstrap.

    ``draws[i]`` is an array (points, draws) for dimension ``ds[i]``: column j holds draw j at every offset
    (common random numbers across the offsets), so a resample picks whole columns. The curve of ``ds[i]`` is
    the mean over draws minus ``limits[i]`` (the limit at each offset), weighted by the standard error of the
    mean of all the draws (kept fixed over the resamples, so that a resample repeating one draw stays usable).
    """
    rng = _v.rng(rng)
    resamples = _v.positive_int("resamples", resamples, minimum=2)
    draws = [np.asarray(a, dtype=float) for a in draws]
    limits = [np.asarray(a, dtype=float) for a in limits]

    errs = [a.std(axis=1, ddof=1) / np.sqrt(a.shape[1]) for a in draws]
    means = lambda cols: [a[:, c].mean(axis=1) - lim for a, c, lim in zip(draws, cols, limits)]  # noqa: E731
    nu = collapse_exponent(ds, offsets, means([np.arange(a.shape[1]) for a in draws]), errs, bounds=bounds)
    boot = [collapse_exponent(ds, offsets, means([rng.integers(0, a.shape[1], a.shape[1]) for a in draws]), errs,
                              bounds=bounds) for _ in range(resamples)]
    return nu, np.array(boot)


def overlap_dimension(theta, delta, gamma, eps, *, peak: float = OVERLAP_PEAK, tail: float = OVERLAP_TAIL) -> float:
    r"""The d from which a single draw's squared overlap with h is typically (root mean square) within ``eps``.

    Near the threshold the error scales as :math:`a\,w_d\,R(t)` with :math:`t = (x - x_*)/w_d`, ``a`` the slope
    of the limit (:func:`attnlib.theory.window.overlap_slope`) and :math:`w_d = w_1 d^{-1/3}` the window width. With the envelope
    :math:`R(t) \le \min(\text{peak}, \text{tail}/\sqrt t)` the error is below ``eps`` once

    .. math:: d \ge \min\Big(\Big(\frac{\text{peak}\,a\,w_1}{\varepsilon}\Big)^3,\;
              \frac{(\text{tail}\,a)^2\,w_1^3}{\varepsilon^2\,(x - x_*)}\Big)

    (the second term only above the threshold, x > x*). Valid near the threshold (x - x* of the order of the
    window at the d it returns, or a few times more); far above it the overlap saturates and its error is
    smaller than the second term says. ``eps`` is absolute (multiply a relative tolerance by the limit).

    It stays with the study, an exception to "every closed form in theory" (listed in
    tests/test_closed_forms.py): its envelope constants are measured by the chapter's simulations.
    """
    delta, gamma = _v.positive("delta", delta), _v.positive("gamma", gamma)
    eps, peak, tail = _v.positive("eps", eps), _v.positive("peak", peak), _v.positive("tail", tail)
    gap = _v.finite_scalar("theta", theta) - delta - theory.critical_x(delta, gamma)[0]
    a, w1 = overlap_slope(delta, gamma), fluctuations.window_width(delta, gamma, 1)
    inside = (peak * a * w1 / eps) ** 3
    return float(inside if gap <= 0 else min(inside, (tail * a) ** 2 * w1**3 / (eps**2 * gap)))
