r"""The two BBP transitions: independent numerical routes to the spike formulas, and the simulations behind them.

:mod:`attnlib.theory` codes the closed forms once. This module holds what the chapters on the transitions need
around them:

* **Independent numerical routes** to the same numbers, used to check the closed forms: the Stieltjes transform
  of :math:`\mathrm{MP}_\delta` (:func:`mp_stieltjes`), the population outlier as the root of
  :math:`G(\ell) = 1/\theta` (:func:`population_outlier_numeric`), and the Baik–Silverstein map
  :math:`\psi(\ell) = \ell\,(1 + \gamma\int t\,dH(t)/(\ell - t))` with its overlap factor
  :math:`\ell\psi'(\ell)/\psi(\ell)`, by quadrature over :math:`H = \kappa\,\mathrm{MP}_\delta`
  (:func:`baik_silverstein`).
* **Regions of the phase diagram** (:func:`regions`): undetectable / population-only / detectable.
* **Settings at a prescribed spike strength** (:func:`setting_for_theta`) and at a prescribed size with fixed
  ratios (:func:`scaled`).
* **Simulations that return the top-k eigenvectors' overlaps**: of the *population* covariance given the
  vocabulary (:func:`population_sweep`), and of the sample covariance
  (:func:`pairs_sweep`, the same draws as :func:`attnlib.sweep` for the same seed, plus the second eigenvector).
* **Finite-size scans** at fixed ratios (:func:`finite_size_scan`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.sparse.linalg import eigsh

from . import _validate as _v
from . import theory
from .model import Vocabulary, draw_pooled, draw_vocabulary
from .progress import progress
from .setting import Setting
from .simulation import one_blas_thread, simulate, top_eigenpairs

__all__ = [
    "mp_stieltjes",
    "population_outlier_numeric",
    "baik_silverstein",
    "REGION_NAMES",
    "regions",
    "setting_for_theta",
    "scaled",
    "population_top",
    "PairSweep",
    "population_sweep",
    "pairs_sweep",
    "FiniteSizeScan",
    "finite_size_scan",
]


# --------------------------------------------------------------------------------------- numerical routes


def mp_stieltjes(z, ratio, *, derivative: bool = False):
    r"""Stieltjes transform :math:`G(z) = \int d\mathrm{MP}_\text{ratio}(t)/(z - t)` for real z above the support.

    Closed form :math:`G(z) = \big(z + c - 1 - \sqrt{(z - 1 - c)^2 - 4c}\big)/(2cz)` (c = ratio, mean-1 law,
    atom at 0 included when c > 1). With ``derivative=True`` returns :math:`G'(z)` instead (negative).
    """
    c = _v.positive("ratio", ratio)
    z = np.asarray(z, dtype=float)
    upper = (1.0 + np.sqrt(c)) ** 2
    if not np.all(np.isfinite(z)) or np.any(z <= upper):
        raise ValueError(f"z must be finite and above the upper edge (1 + sqrt(ratio))^2 = {upper:.6g}, got {z!r}")
    root = np.sqrt((z - 1.0 - c) ** 2 - 4.0 * c)
    G = (z + c - 1.0 - root) / (2.0 * c * z)
    if not derivative:
        return G if G.ndim else float(G)
    # differentiate 2 c z G = z + c - 1 - root
    droot = (z - 1.0 - c) / root
    dG = ((1.0 - droot) - 2.0 * c * G) / (2.0 * c * z)
    return dG if dG.ndim else float(dG)


def population_outlier_numeric(theta, delta) -> tuple[float, float]:
    r"""Outlier of :math:`W' + \theta\,\hat h\hat h^\top` with :math:`W'\sim\mathrm{MP}_\delta`, by root finding.

    Solves the secular equation :math:`G(\ell) = 1/\theta` with Brent's method and returns
    ``(ell, overlap)`` with overlap :math:`1/(\theta^2\,(-G'(\ell)))`, the squared cosine between the outlier's
    eigenvector and :math:`\hat h`. Raises ValueError below the threshold, where no root exists
    (:math:`1/\theta \ge G(\text{edge})`). An independent check of :func:`attnlib.theory.spike`.
    """
    theta = _v.positive("theta", theta)
    delta = _v.positive("delta", delta)
    edge = (1.0 + np.sqrt(delta)) ** 2
    g_edge = 1.0 / (np.sqrt(delta) * (1.0 + np.sqrt(delta)))  # G at the upper edge
    if 1.0 / theta >= g_edge:
        raise ValueError(
            f"theta must exceed the population threshold delta + sqrt(delta) = {delta + np.sqrt(delta):.6g}, "
            f"got {theta:.6g}: G(l) = 1/theta has no root above the bulk"
        )
    f = lambda ell: mp_stieltjes(ell, delta) - 1.0 / theta  # noqa: E731
    hi = edge + 1.0
    while f(hi) > 0:
        hi = edge + 2.0 * (hi - edge)
    ell = brentq(f, edge * (1.0 + 1e-12) + 1e-12, hi, xtol=1e-14, rtol=1e-13)
    overlap = 1.0 / (theta**2 * -mp_stieltjes(ell, delta, derivative=True))
    return float(ell), float(overlap)


def _mp_integral(fn, delta, kappa):
    """Integral of fn(t) against kappa MP_delta, atom at 0 included (mass max(0, 1 - 1/delta), where fn(0) counts).

    The continuous part has density sqrt((b - t)(t - a)) / (2 pi delta kappa t) on [a, b]; the square-root end
    points are handled exactly by QUADPACK's algebraic weight (t - a)^(1/2) (b - t)^(1/2) (and t^(-1/2) (b - t)^(1/2)
    when delta = 1, where a = 0).
    """
    a, b = theory.mp_edges(delta, kappa)
    c = 2.0 * np.pi * delta * kappa
    if a > 1e-12 * b:
        val, _ = quad(lambda t: fn(t) / (c * t), a, b, weight="alg", wvar=(0.5, 0.5), epsabs=1e-13, epsrel=1e-12,
                      limit=200)
    else:  # delta = 1: the lower edge is 0 and the density behaves like t^(-1/2) there
        val, _ = quad(lambda t: fn(t) / c, 0.0, b, weight="alg", wvar=(-0.5, 0.5), epsabs=1e-13, epsrel=1e-12,
                      limit=200)
    atom = max(0.0, 1.0 - 1.0 / delta)
    return val + atom * fn(0.0)


def baik_silverstein(ell, delta, gamma, kappa=1.0, *, step: float = 1e-5) -> tuple[float, float]:
    r"""Sample outlier and overlap factor of a population spike at ``ell`` on the bulk :math:`H = \kappa\,\mathrm{MP}_\delta`.

    By quadrature over H (independent of the closed forms):
    :math:`\psi(\ell) = \ell\,\big(1 + \gamma\int t\,dH(t)/(\ell - t)\big)` and, by a central difference,
    the factor :math:`\ell\,\psi'(\ell)/\psi(\ell)`, the squared cosine between the sample outlier's
    eigenvector and the population spike's eigenvector. Returns ``(psi, factor)``. The sample outlier exists
    when ``factor > 0`` (psi increasing); ``ell`` must lie above the bulk of H.
    """
    delta, gamma, kappa = (_v.positive("delta", delta), _v.positive("gamma", gamma), _v.positive("kappa", kappa))
    ell = _v.positive("ell", ell)
    edge = theory.mp_edges(delta, kappa)[1]
    if ell <= edge * (1.0 + 10 * step):
        raise ValueError(f"ell must lie above the bulk edge kappa (1 + sqrt(delta))^2 = {edge:.6g}, got {ell:.6g}")

    def psi(e):
        return e * (1.0 + gamma * _mp_integral(lambda t: t / (e - t), delta, kappa))

    h = step * ell
    value = psi(ell)
    slope = (psi(ell + h) - psi(ell - h)) / (2.0 * h)
    return float(value), float(ell * slope / value)


# --------------------------------------------------------------------------------------- phase diagram

REGION_NAMES = ("undetectable", "population only", "detectable")


def regions(theta, gamma, delta):
    """Region code of each (theta, gamma): 0 undetectable, 1 population outlier only, 2 sample outlier.

    0: theta <= delta + sqrt(delta) (no outlier even in the population covariance); 1: the population
    covariance has an outlier but S, from N = d/gamma samples, does not (theta <= delta + x*(delta, gamma));
    2: S has an outlier. ``theta`` and ``gamma`` broadcast together; names in :data:`REGION_NAMES`.
    """
    delta = _v.positive("delta", delta)
    th = _v.nonnegative("theta", theta, allow_array=True)
    gm = _v.positive("gamma", gamma, allow_array=True)
    th, gm = np.broadcast_arrays(np.asarray(th, dtype=float), np.asarray(gm, dtype=float))
    unique_g, inverse = np.unique(gm, return_inverse=True)
    smp = np.array([theory.thresholds(delta, float(g))[1] for g in unique_g])[inverse].reshape(gm.shape)
    out = (th > delta + np.sqrt(delta)).astype(int) + (th > smp).astype(int)
    return out if out.ndim else int(out)


# --------------------------------------------------------------------------------------- settings


def setting_for_theta(base: Setting, theta) -> Setting:
    """``base`` with ||mu||^2 chosen so that its spike strength alpha (||mu||^2 + delta)/kappa equals ``theta``.

    The weights, process and sizes are kept. Raises ValueError if theta < (alpha/kappa) delta, the strength
    the vocabulary's own class split gives at mu = 0.
    """
    if not isinstance(base, Setting):
        raise ValueError(f"base must be an attnlib.Setting, got {base!r}")
    theta = _v.nonnegative("theta", theta)
    floor = base.snr * base.delta
    if theta < floor - 1e-12:
        raise ValueError(
            f"theta must be >= (alpha/kappa) delta = {floor:.6g} for this setting (reached at ||mu||^2 = 0), "
            f"got {theta:.6g}"
        )
    return base.replace(mu_norm2=max(0.0, theta / base.snr - base.delta))


def scaled(base: Setting, d: int) -> Setting:
    """``base`` at dimension ``d`` with the same ratios: V = d/delta (rounded to even), N = d/gamma (rounded)."""
    if not isinstance(base, Setting):
        raise ValueError(f"base must be an attnlib.Setting, got {base!r}")
    d = _v.positive_int("d", d, minimum=2)
    V = max(2, 2 * int(round(d / base.delta / 2.0)))
    N = max(2, int(round(d / base.gamma)))
    return base.replace(d=d, V=V, N=N)


# --------------------------------------------------------------------------------------- simulations


def _start_vector(n: int) -> np.ndarray:
    # fixed start vector: Lanczos stays deterministic without touching the caller's random stream
    return np.random.default_rng(20260531).standard_normal(n)


def _squared_cosines(vecs: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """cos^2 between each column of vecs (unit) and ref."""
    return (ref @ vecs) ** 2 / (ref @ ref)


def population_top(vocab: Vocabulary, setting: Setting, k: int = 2, *, centered: bool = True):
    r"""Top ``k`` eigenpairs of the population covariance given the vocabulary (Lanczos on the exact matrix).

    The matrix is :math:`\kappa W' + \alpha hh^\top` (``centered``) or :math:`+ (\sum w)^2 gg^\top` (uncentered
    second moment), with :math:`W' = ZPZ^\top/V = ZZ^\top/V - qq^\top - gg^\top`. It is formed with one BLAS-3
    product (cost d^2 V): measured faster than a matrix-free operator, whose ~100 Lanczos steps each stream
    the d x V noise twice, and far less sensitive to BLAS threads competing for the cores (all of it runs on one
    BLAS thread). Only the top
    ``k`` eigenpairs are computed (``eigsh``). Returns ``(eigenvalues (k,), eigenvectors (d, k))``, descending.
    """
    if not isinstance(vocab, Vocabulary):
        raise ValueError(f"vocab must be an attnlib.model.Vocabulary, got {vocab!r}")
    if not isinstance(setting, Setting):
        raise ValueError(f"setting must be an attnlib.Setting, got {setting!r}")
    k = _v.positive_int("k", k)
    d, V = vocab.d, vocab.V
    if k >= d - 1:
        raise ValueError(f"k must be < d - 1 = {d - 1} for Lanczos, got {k}")
    # one BLAS thread: at these sizes a second thread gains little on 2 cores and loses a lot when the cores are
    # shared (measured at d = 400: 20 ms vs 67 ms for the Gram product on a loaded 2-core machine)
    with one_blas_thread():
        Z = vocab.noise  # (V, d)
        q, g, h = vocab.q, vocab.g, vocab.h
        M = Z.T @ Z
        M /= V
        M -= np.outer(q, q) + np.outer(g, g)  # W' (P removes s/sqrt(V) and 1/sqrt(V); s is orthogonal to 1)
        M *= setting.kappa
        M += setting.alpha * np.outer(h, h)
        if not centered:
            M += setting.weight_sum**2 * np.outer(g, g)
        vals, vecs = eigsh(M, k=k, which="LA", v0=_start_vector(d), tol=1e-10)
    order = np.argsort(vals)[::-1]
    return vals[order], vecs[:, order]


@dataclass(frozen=True, eq=False)
class PairSweep:
    """Top-k eigenvalues and eigenvector overlaps over settings and trials: arrays of shape (n_settings, trials, k).

    ``overlap_u``, ``overlap_h``, ``overlap_g``: cos^2 of the j-th eigenvector with u = mu/||mu||, the class
    centroid h = mu + Zs/V and the vocabulary mean g = Z1/V. ``level`` is "population" or "sample".
    """

    settings: tuple
    eigenvalues: np.ndarray
    overlap_u: np.ndarray
    overlap_h: np.ndarray
    overlap_g: np.ndarray
    centered: bool
    level: str

    def mean(self, name: str, j: int = 0) -> np.ndarray:
        """Mean over trials of ``name`` for the j-th eigenpair, shape (n_settings,)."""
        return getattr(self, name)[:, :, j].mean(axis=1)

    def sd(self, name: str, j: int = 0) -> np.ndarray:
        """Standard deviation over trials (ddof=1) for the j-th eigenpair."""
        values = getattr(self, name)[:, :, j]
        if values.shape[1] < 2:
            raise ValueError(f"the standard deviation needs at least 2 trials, got {values.shape[1]}")
        return values.std(axis=1, ddof=1)

    def sem(self, name: str, j: int = 0) -> np.ndarray:
        """Standard error of the mean over trials for the j-th eigenpair."""
        return self.sd(name, j) / np.sqrt(getattr(self, name).shape[1])


def _check_sweep_args(settings, seed, trials, k):
    settings = tuple(settings)
    if not settings or not all(isinstance(s, Setting) for s in settings):
        raise ValueError("settings must be a non-empty sequence of attnlib.Setting")
    trials = _v.positive_int("trials", trials)
    seed = _v.positive_int("seed", seed, minimum=0)
    k = _v.positive_int("k", k)
    return settings, seed, trials, k


def _run(settings, seed, trials, k, centered, level, one_draw, desc):
    """Loop over settings and trials; ``one_draw(setting, vocab, rng)`` returns (eigenvalues (k,), overlaps with
    u, h, g (each (k,))) for a fresh vocabulary ``vocab`` drawn from ``rng``."""
    streams = np.random.SeedSequence(seed).spawn(len(settings) * trials)
    out = np.empty((4, len(settings), trials, k))
    jobs = [(i, j) for i in range(len(settings)) for j in range(trials)]
    for i, j in progress(jobs, total=len(jobs), desc=desc):
        rng = np.random.default_rng(streams[i * trials + j])
        vocab = draw_vocabulary(settings[i].d, settings[i].V, settings[i].mu_norm2, rng)
        out[:, i, j] = one_draw(settings[i], vocab, rng)
    return PairSweep(settings, *out, centered=centered, level=level)


def _overlaps(vals, vecs, vocab):
    return vals, _squared_cosines(vecs, vocab.u), _squared_cosines(vecs, vocab.h), _squared_cosines(vecs, vocab.g)


def population_sweep(settings, seed: int, trials: int, *, k: int = 1, centered: bool = True,
                     desc: str | None = None) -> PairSweep:
    """Top-k eigenpairs of the population covariance given a fresh vocabulary, per setting and trial.

    Only d, V, ||mu||^2 and the weights' alpha, kappa, sum matter (N and the sign sampler are unused: there is
    no sampling of sequences at population level). Streams as in :func:`attnlib.sweep`.
    """
    settings, seed, trials, k = _check_sweep_args(settings, seed, trials, k)

    def one_draw(s, vocab, rng):
        return _overlaps(*population_top(vocab, s, k, centered=centered), vocab)

    return _run(settings, seed, trials, k, centered, "population", one_draw, desc)


def pairs_sweep(settings, seed: int, trials: int, *, k: int = 2, centered: bool = True,
                desc: str | None = None) -> PairSweep:
    """Top-k eigenpairs of the sample covariance S, per setting and trial (fresh vocabulary and sequences).

    Uses the same random streams and draw order as :func:`attnlib.sweep` (vocabulary, signs, tokens), so for
    the same seed it sees the same data. With ``k = 1`` each draw is :func:`attnlib.simulate` itself (its fast
    single-precision Lanczos path); with ``k >= 2`` the pooled vectors are diagonalised in double precision
    (:func:`attnlib.simulation.top_eigenpairs`) to keep the overlaps of eigenvectors 2..k, needed when two
    outliers compete (uncentered S). The two paths agree to single precision (about 1e-6).
    """
    settings, seed, trials, k = _check_sweep_args(settings, seed, trials, k)

    def one_draw(s, vocab, rng):
        if k == 1:
            dr = simulate(s, rng, centered=centered, k=1, vocabulary=vocab)
            return np.array([[dr.eigenvalues[0]], [dr.overlap_u], [dr.overlap_h], [dr.overlap_g]])
        C, _ = draw_pooled(vocab, s.process, s.weights, s.N, rng)
        return _overlaps(*top_eigenpairs(C, k, centered=centered), vocab)

    return _run(settings, seed, trials, k, centered, "sample", one_draw, desc)


@dataclass(frozen=True, eq=False)
class FiniteSizeScan:
    """One setting simulated at several d with fixed ratios: per d, the :class:`PairSweep` of its trials."""

    base: Setting
    ds: tuple
    results: tuple

    def stat(self, name: str, j: int = 0):
        """(mean, sd, trials) arrays over d of ``name`` for the j-th eigenpair (sd is nan with 1 trial)."""
        means, sds, counts = [], [], []
        for res in self.results:
            values = getattr(res, name)[0, :, j]
            means.append(values.mean())
            sds.append(values.std(ddof=1) if values.size > 1 else np.nan)
            counts.append(values.size)
        return np.array(means), np.array(sds), np.array(counts)


def finite_size_scan(base: Setting, ds, trials, seed: int, *, level: str = "sample", k: int = 1,
                     centered: bool = True) -> FiniteSizeScan:
    """Simulate ``base`` at every d in ``ds`` with V = d/delta, N = d/gamma (ratios fixed).

    ``trials``: one int for all d, or one per d (spend fewer trials where d is large: a draw costs ~ d^3).
    ``level``: "sample" (:func:`pairs_sweep`) or "population" (:func:`population_sweep`). The seed of size
    ``ds[i]`` is ``seed + i``.
    """
    if not isinstance(base, Setting):
        raise ValueError(f"base must be an attnlib.Setting, got {base!r}")
    ds = tuple(_v.positive_int("ds[i]", d, minimum=2) for d in np.atleast_1d(ds).tolist())
    if not ds:
        raise ValueError("ds must be a non-empty sequence of dimensions")
    counts = np.atleast_1d(trials).tolist()
    if len(counts) == 1:
        counts = counts * len(ds)
    if len(counts) != len(ds):
        raise ValueError(f"trials must be one int or one per d ({len(ds)} values), got {len(counts)}")
    counts = [_v.positive_int("trials[i]", t) for t in counts]
    if level not in ("sample", "population"):
        raise ValueError(f"level must be 'sample' or 'population', got {level!r}")
    seed = _v.positive_int("seed", seed, minimum=0)
    run = pairs_sweep if level == "sample" else population_sweep
    results = tuple(run([scaled(base, d)], seed + i, t, k=k, centered=centered) for i, (d, t) in enumerate(zip(ds, counts)))
    return FiniteSizeScan(base=base, ds=ds, results=results)
