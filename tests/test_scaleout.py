"""Scale-out of the Monte-Carlo engine: sweep gives the same numbers, bit for bit, whatever runs the draws.

Serial, the default thread pool, an explicit ThreadPoolExecutor, a ProcessPoolExecutor and a dask LocalCluster
(two worker processes with one thread each, on loopback) must all agree exactly, on both paths of a draw and
on density estimates: every draw depends only on its setting and its random stream and runs on one BLAS thread.
"""

import dataclasses
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from attnlib import Setting, sweep
from attnlib.engine import slq, montecarlo
from attnlib.model import positional as P

BASE = Setting(d=80, V=160, N=320, mu_norm2=1.0, process=P.markov(8, 0.5), weights="mean")
SETTINGS = [BASE, BASE.replace(weights="optimal", mu_norm2=0.3), BASE.at_dimension(160)]
SLQ = slq.SLQ(probes=4, degree=10)


def _runs(executor=None):  # each path of a draw (at these sizes "auto" takes the dense one), then densities
    return [sweep(SETTINGS, seed=11, trials=2, k=2, executor=executor),
            sweep(SETTINGS, seed=12, trials=2, k=2, method="matrix-free", executor=executor),
            sweep(BASE.at_dimension(300), seed=13, trials=2, k=1, spectrum=SLQ, executor=executor)]


def _same(a, b):
    """Every run, every field and every density equal, and as many of each (zip alone would stop at the
    shorter list and pass a run that lost a sweep or a density)."""
    assert len(a) == len(b), (len(a), len(b))
    for x, y in zip(a, b, strict=True):
        for name in ("eigenvalues", "overlap_u", "overlap_h", "overlap_g"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name))  # shapes too
        assert (x.densities is None) == (y.densities is None)
        if x.densities is not None:
            assert [len(t) for t in x.densities] == [len(t) for t in y.densities]
            for dx, dy in zip(sum(x.densities, ()), sum(y.densities, ()), strict=True):
                np.testing.assert_array_equal(dx.nodes, dy.nodes)
                np.testing.assert_array_equal(dx.weights, dy.weights)


def test_same_counts_lengths():
    """_same can fail on a run that lost a sweep, or a density, which zip alone would not notice."""
    run = [sweep(SETTINGS[:1], seed=1, trials=1, k=1), sweep([BASE], seed=2, trials=2, k=1, spectrum=SLQ)]
    _same(run, run)
    with pytest.raises(AssertionError):
        _same(run, run[:1])
    fewer = dataclasses.replace(run[1], densities=tuple(t[:-1] for t in run[1].densities))
    with pytest.raises(AssertionError):
        _same(run, [run[0], fewer])


@pytest.fixture(scope="module")
def serial():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(montecarlo, "pool_workers", lambda: 1)
        return _runs()


def test_thread_pools_equal_serial(serial, monkeypatch):
    monkeypatch.setattr(montecarlo, "pool_workers", lambda: 3)
    _same(_runs(), serial)  # the default pool, three threads
    with ThreadPoolExecutor(2) as pool:
        _same(_runs(pool), serial)


def test_process_pool_equals_serial(serial):
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        _same(_runs(pool), serial)


def test_dask_local_cluster_equals_serial(serial):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install "
                                      "-e '.[dask]'; requirements.txt pins it)")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        _same(_runs(client.get_executor()), serial)
