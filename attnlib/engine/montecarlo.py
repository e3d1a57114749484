"""The Monte-Carlo engine: every repeated simulation of the book goes through :func:`sweep`.

Trial ``j`` of setting ``i`` draws from its own random stream, ``streams(seed, S * trials)[i * trials + j]``
(a fresh vocabulary, then fresh signs and tokens), so results do not depend on the order of evaluation or on
the executor, and a stream always gives the same draw as :func:`~attnlib.engine.simulation.simulate` with
``numpy.random.default_rng(stream)``. Every draw runs on one BLAS thread (and pools serially when draws run
side by side), so its arithmetic is that of a lone serial draw: results are bit-identical whatever the
executor and the number of workers.

Scale-out goes through a standard :class:`concurrent.futures.Executor`: the default is a thread pool with one
thread per usable core (the heavy steps release the GIL), fewer if that many draws at once would not fit in
the available memory (``attnlib.engine.cost.require_memory``); a ``ProcessPoolExecutor`` or a dask cluster's
``Client.get_executor()`` work the same way, because settings and streams pickle. Each draw takes the path
``method`` says (``attnlib.engine.cost``), decided from its setting alone, so the path does not depend on the
executor either.
"""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from attnlib.model.setting import check_setting
from attnlib.numerics import checks as _v
from attnlib.numerics import randomness
from attnlib.numerics.randomness import streams
from attnlib.engine import cost as _cost
from attnlib.engine.slq import SpectralDensity
from attnlib.numerics.linalg import BLAS, BLAS_THREAD
from attnlib.model.pooling import pool_workers
from attnlib.engine.progress import progress
from attnlib.model.setting import Setting
from attnlib.engine.simulation import LEVELS, METHODS, compatible, plan_draw, simulate, spectrum_option

__all__ = ["streams", "replicate", "Sweep", "sweep", "FiniteSizeScan", "finite_size_scan"]

_NAMES = ("eigenvalues", "overlap_u", "overlap_h", "overlap_g", "top", "second")


@dataclass(frozen=True, eq=False)
class Sweep:
    """Results of :func:`sweep`: arrays over (settings, trials, k) and the settings they belong to.

    ``eigenvalues``: the top ``k`` eigenvalues of each draw, descending; ``overlap_u``, ``overlap_h``,
    ``overlap_g``: squared cosines of the j-th eigenvector with u = mu/||mu|| (``nan`` for a setting with
    ||mu||^2 = 0, where u does not exist), the class centroid h = mu + Zs/V and the vocabulary mean g = Z1/V; ``spectra``: all d eigenvalues (settings, trials, d) when asked for, else
    None; ``densities``: with ``spectrum="slq"``, the ``attnlib.engine.slq.SpectralDensity`` of each draw as
    a tuple (settings) of tuples (trials), else None (:meth:`density` pools a setting's trials). ``top`` and
    ``second`` are ``eigenvalues[:, :, 0]`` and ``[:, :, 1]``.
    """

    settings: tuple
    eigenvalues: np.ndarray
    overlap_u: np.ndarray
    overlap_h: np.ndarray
    overlap_g: np.ndarray
    spectra: np.ndarray | None
    level: str
    centered: bool
    densities: tuple | None = None

    @property
    def trials(self) -> int:
        return self.eigenvalues.shape[1]

    def density(self, i: int = 0) -> SpectralDensity:
        """The density estimate of setting ``i``, all its trials pooled (needs ``spectrum="slq"``)."""
        if self.densities is None:
            raise ValueError("no density estimates: run sweep(..., spectrum='slq')")
        i = _v.positive_int("i", i, minimum=0)
        if i >= len(self.densities):
            raise ValueError(f"i must be < {len(self.densities)} (the number of settings), got {i}")
        return SpectralDensity.pooled(self.densities[i])

    @property
    def top(self) -> np.ndarray:
        return self.eigenvalues[:, :, 0]

    @property
    def second(self) -> np.ndarray:
        if self.eigenvalues.shape[2] < 2:
            raise ValueError("second needs k >= 2 eigenpairs; run sweep(..., k=2)")
        return self.eigenvalues[:, :, 1]

    def values(self, name: str, j: int = 0) -> np.ndarray:
        """The (settings, trials) array of ``name`` for the j-th eigenpair (``top``/``second`` ignore ``j``)."""
        name = _v.choice("name", name, _NAMES)
        if name in ("top", "second"):
            return getattr(self, name)
        k = self.eigenvalues.shape[2]
        j = _v.positive_int("j", j, minimum=0)
        if j >= k:
            raise ValueError(f"j must be < k = {k} (eigenpairs 0..{k - 1} were computed), got {j}")
        return getattr(self, name)[:, :, j]

    def mean(self, name: str, j: int = 0) -> np.ndarray:
        """Mean over trials, shape (settings,)."""
        return self.values(name, j).mean(axis=1)

    def sd(self, name: str, j: int = 0) -> np.ndarray:
        """Standard deviation over trials (ddof=1), shape (settings,)."""
        values = self.values(name, j)
        if values.shape[1] < 2:
            raise ValueError(f"the standard deviation needs at least 2 trials, got {values.shape[1]}")
        return values.std(axis=1, ddof=1)

    def sem(self, name: str, j: int = 0) -> np.ndarray:
        """Standard error of the mean over trials, shape (settings,)."""
        return self.sd(name, j) / np.sqrt(self.trials)


def replicate(draw, seed: int, count: int, *, threads: bool = False, desc: str | None = None) -> list:
    """The Monte-Carlo loop of the analyses that are not a :func:`sweep` over settings: ``[draw(rng_j, j) for j in
    range(count)]`` with ``rng_j = numpy.random.default_rng(streams(seed, count)[j])``.

    Draw ``j`` depends only on ``(seed, count, j)``, never on the order of evaluation. ``threads``: run the
    draws on a thread pool, each on one BLAS thread (the results are the same as in series).
    """
    seqs = streams(seed, count)
    if not threads:
        return [draw(randomness.generator(s), j) for j, s in progress(enumerate(seqs), total=count, desc=desc)]

    def job(j):
        BLAS_THREAD.serial = True
        try:
            return draw(randomness.generator(seqs[j]), j)
        finally:
            BLAS_THREAD.serial = False

    with BLAS.limit(limits=1, user_api="blas"), ThreadPoolExecutor(min(pool_workers(), count)) as pool:
        return list(progress(pool.map(job, range(count)), total=count, desc=desc))


def _job(setting, stream, k, level, spectrum, centered, method, parallel):
    """One draw from its stream (BLAS already limited to one thread by the caller)."""
    previous = getattr(BLAS_THREAD, "serial", False)
    BLAS_THREAD.serial = True
    try:
        out = simulate.__wrapped__(setting, randomness.generator(stream), k=k, level=level, spectrum=spectrum,
                                   centered=centered, method=method, workers=1 if parallel else None)
    finally:
        BLAS_THREAD.serial = previous
    return out.top_eigenvalues, out.overlaps, out.spectrum, out.density


def _remote_job(*args):
    """:func:`_job` in a worker of an external executor (another process or machine): one BLAS thread."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _job(*args)


def _check(settings, k, level, spectrum, method):
    if isinstance(settings, Setting):
        settings = (settings,)
    settings = tuple(settings)
    if not settings or not all(isinstance(s, Setting) for s in settings):
        raise ValueError("settings must be an attnlib.Setting or a non-empty sequence of them")
    k = _v.positive_int("k", k)
    level, method = _v.choices(level=(level, LEVELS), method=(method, METHODS))
    pair = spectrum_option(spectrum, level)
    kind = pair[0]
    if kind == "exact" and len({s.d for s in settings}) > 1:
        raise ValueError("spectrum='exact' needs settings of one dimension d; sweep each d separately")
    for s in settings:
        if k >= s.d - 1:
            raise ValueError(f"k must be < d - 1 = {s.d - 1} for every setting, got {k}")
        compatible(s, level)
    costs = [plan_draw(s, k=k, level=level, spectrum=pair, method=method) for s in settings]
    return settings, k, level, spectrum, method, max(costs, key=lambda c: c.peak)


def sweep(settings, seed: int, trials: int, *, k: int = 2, level: str = "sample", spectrum=None,
          centered: bool = True, method: str = "auto", executor: Executor | None = None,
          desc: str | None = None) -> Sweep:
    """Simulate every setting ``trials`` times, each trial with a fresh vocabulary (and fresh sequences).

    Parameters
    ----------
    settings : Setting or sequence of Setting
    seed : int
        Seed of the random streams (see the module docstring for the mapping).
    trials : int
        Independent draws per setting.
    k : int
        Eigenpairs kept per draw (default 2: the top two).
    level : {"sample", "population"}
        The sample covariance S of N sequences, or the population covariance given the vocabulary (no
        sequences drawn; N and the sign process are unused).
    spectrum : {None, "exact", "slq"}
        Also keep all d eigenvalues of every draw (``"exact"``, one d for all settings) or a spectral density
        estimate of every draw (``"slq"``: ``attnlib.engine.slq.SLQ`` defaults; pass an ``SLQ(probes,
        degree)`` for other sizes), at sample level.
    centered : bool
        Centre the pooled vectors (default); the uncentered S has an extra spike along g.
    method : {"auto", "dense", "matrix-free"}
        Path of each draw (``attnlib.engine.cost``); "auto" takes the cheaper one for its setting.
    executor : concurrent.futures.Executor, optional
        Where the draws run (a process pool, or ``dask.distributed.Client(...).get_executor()``). Default:
        a thread pool with one thread per usable core (fewer if the draws would not fit in memory side by
        side). The results do not depend on it, bit for bit.
    desc : str, optional
        Label of the progress bar (shown unless ``ATTNLIB_PROGRESS=0``).

    Returns
    -------
    Sweep
    """
    settings, k, level, spectrum, method, largest = _check(settings, k, level, spectrum, method)
    trials = _v.positive_int("trials", trials)
    if executor is not None and not isinstance(executor, Executor):
        raise ValueError(f"executor must be a concurrent.futures.Executor (or None), got {executor!r}")
    keys = [(i, j) for i in range(len(settings)) for j in range(trials)]
    seqs = streams(seed, len(keys))
    options = (k, level, spectrum, centered, method)
    if executor is not None:
        futures = [executor.submit(_remote_job, settings[i], seqs[n], *options, True) for n, (i, _) in
                   enumerate(keys)]
        results = [f.result() for f in progress(futures, total=len(keys), desc=desc)]
    else:
        _cost.require_memory(largest)  # one draw must fit; then as many side by side as fit
        free = _cost.available_memory()
        fit = len(keys) if free is None else max(1, free // max(1, largest.peak))
        workers = min(pool_workers(), len(keys), fit)
        parallel = workers > 1
        with BLAS.limit(limits=1, user_api="blas"):
            if not parallel:
                results = [_job(settings[i], seqs[n], *options, False)
                           for n, (i, _) in progress(enumerate(keys), total=len(keys), desc=desc)]
            else:
                with ThreadPoolExecutor(workers) as pool:
                    futures = [pool.submit(_job, settings[i], seqs[n], *options, True) for n, (i, _) in
                               enumerate(keys)]
                    try:
                        results = [f.result() for f in progress(futures, total=len(keys), desc=desc)]
                    except BaseException:
                        for f in futures:
                            f.cancel()
                        raise
    return _collect(settings, trials, k, level, centered, results)


def _collect(settings, trials, k, level, centered, results) -> Sweep:
    n_set = len(settings)
    eig = np.empty((n_set, trials, k))
    ov = np.empty((3, n_set, trials, k))
    exact, dens = results[0][2] is not None, results[0][3] is not None
    spec = np.empty((n_set, trials, settings[0].d)) if exact else None
    for n, (vals, overlaps, spectrum_, _) in enumerate(results):
        i, j = divmod(n, trials)
        eig[i, j] = vals
        ov[:, i, j] = overlaps
        if spec is not None:
            spec[i, j] = spectrum_
    densities = tuple(tuple(r[3] for r in results[i * trials:(i + 1) * trials]) for i in range(n_set)) if dens else None
    return Sweep(settings=settings, eigenvalues=eig, overlap_u=ov[0], overlap_h=ov[1], overlap_g=ov[2],
                 spectra=spec, level=level, centered=centered, densities=densities)


@dataclass(frozen=True, eq=False)
class FiniteSizeScan:
    """One setting simulated at several d with fixed ratios: per d, the :class:`Sweep` of its trials."""

    base: Setting
    ds: tuple
    results: tuple

    def stat(self, name: str, j: int = 0):
        """(mean, sd, trials) arrays over d of ``name`` for the j-th eigenpair (sd is nan with 1 trial)."""
        rows = [res.values(name, j)[0] for res in self.results]
        return (np.array([r.mean() for r in rows]),
                np.array([r.std(ddof=1) if r.size > 1 else np.nan for r in rows]),
                np.array([r.size for r in rows]))


def finite_size_scan(base: Setting, ds, trials, seed: int, *, level: str = "sample", k: int = 1,
                     centered: bool = True, method: str = "auto", executor: Executor | None = None
                     ) -> FiniteSizeScan:
    """Simulate ``base`` at every d in ``ds`` with its ratios fixed (:meth:`~attnlib.model.setting.Setting.at_dimension`).

    ``trials``: one int for all d, or one per d (spend fewer trials where d is large). The sweep of size
    ``ds[i]`` uses the seed ``seed + i``.
    """
    check_setting(base, "base")
    ds = tuple(_v.positive_int("ds[i]", d, minimum=2) for d in np.atleast_1d(ds).tolist())
    if not ds:
        raise ValueError("ds must be a non-empty sequence of dimensions")
    counts = np.atleast_1d(trials).tolist()
    if len(counts) == 1:
        counts = counts * len(ds)
    if len(counts) != len(ds):
        raise ValueError(f"trials must be one int or one per d ({len(ds)} values), got {len(counts)}")
    counts = [_v.positive_int("trials[i]", t) for t in counts]
    seed = _v.positive_int("seed", seed, minimum=0)
    results = tuple(sweep([base.at_dimension(d)], seed + i, t, k=k, level=level, centered=centered, method=method,
                          executor=executor)
                    for i, (d, t) in enumerate(zip(ds, counts)))
    return FiniteSizeScan(base=base, ds=ds, results=results)
