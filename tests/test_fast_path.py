"""The fast simulation path (issue 8) computes the same thing as the straightforward one.

* the CSR token matrix built directly (repeated token ids kept as separate entries) gives the same products as
  the canonical one, and `token_matrix` still returns the canonical matrix;
* pooling split into row blocks over threads equals the serial product bit for bit;
* `simulate`'s single-precision Lanczos path agrees with double precision on the same draws: eigenvalues to
  1e-5 relative, overlaps to 1e-5 absolute (measured: <= 7e-7 and <= 3e-7 at d = 100-1000, see bench/results.md).
"""

import numpy as np
import pytest

from attnlib import Setting, simulate
from attnlib.numerics import linalg
from attnlib.model import generative, pooling, positional as P
from attnlib.engine import simulation


def test_direct_csr_equals_canonical_token_matrix():
    rng = np.random.default_rng(0)
    tok = rng.integers(0, 6, size=(40, 9))  # few token ids: many repeats within a row
    w = rng.standard_normal(9)
    A = pooling.token_csr(tok, w, 6)
    dense = np.zeros((40, 6))
    for n in range(40):
        for t in range(9):
            dense[n, tok[n, t]] += w[t]
    np.testing.assert_allclose(A.toarray(), dense, atol=1e-14)
    B = pooling.token_matrix(tok, w, 6)
    assert B.has_canonical_format and B.nnz == np.count_nonzero(dense)
    np.testing.assert_allclose(B.toarray(), dense, atol=1e-14)
    E = rng.standard_normal((6, 5))
    np.testing.assert_allclose(A @ E, dense @ E, atol=1e-12)


def test_threaded_pooling_equals_serial_product(monkeypatch):
    rng = np.random.default_rng(1)
    tok = rng.integers(0, 300, size=(4000, 8))
    A = pooling.token_csr(tok, rng.uniform(size=8), 300, dtype=np.float32)
    E = rng.standard_normal((300, 400)).astype(np.float32)
    serial = np.asarray(A @ E)
    monkeypatch.setattr(pooling, "pool_workers", lambda: 3)
    threaded = pooling.sparse_times_dense(A, E)
    assert threaded.dtype == np.float32
    np.testing.assert_array_equal(threaded, serial)


@pytest.mark.parametrize("kw", [dict(k=2), dict(k=2, centered=False), dict(k=3)])
def test_single_precision_path_matches_double(monkeypatch, kw):
    s = Setting(d=150, V=300, N=600, mu_norm2=1.0, process=P.markov(8, 0.5), weights="optimal")
    single = simulate(s, np.random.default_rng(4), **kw)
    monkeypatch.setattr(simulation, "LANCZOS_DTYPE", np.float64)
    double = simulate(s, np.random.default_rng(4), **kw)
    assert single.eigenvalues.dtype == np.float64
    np.testing.assert_allclose(single.eigenvalues, double.eigenvalues, rtol=1e-5)
    for name in ("overlap_u", "overlap_h", "overlap_g"):
        assert getattr(single, name) == pytest.approx(getattr(double, name), abs=1e-5)


def test_full_spectrum_path_stays_double_and_matches_eigvalsh():
    s = Setting(d=80, V=160, N=320, mu_norm2=1.0, process=P.markov(8, 0.5), weights="mean")
    dr = simulate(s, np.random.default_rng(5), spectrum="exact")
    rng = np.random.default_rng(5)
    voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
    C, _ = pooling.draw_pooled(voc, s.process, s.weights, s.N, rng)
    S = linalg.sample_covariance(C)
    np.testing.assert_allclose(dr.eigenvalues, np.clip(np.linalg.eigvalsh(S)[::-1], 0, None), atol=1e-12)
    top = np.linalg.eigh(S)[1][:, -1]
    assert dr.overlap_h == pytest.approx(linalg.squared_cosine(top, voc.h), abs=1e-10)


def test_parallel_sweep_equals_serial_single_thread_draws(monkeypatch):
    """sweep runs draws in parallel threads; each must compute exactly what a serial one-BLAS-thread draw does."""
    from attnlib.engine import montecarlo
    from attnlib import sweep

    base = Setting(d=120, V=240, N=480, mu_norm2=1.0, process=P.markov(8, 0.5), weights="mean")
    settings = [base, base.replace(mu_norm2=0.2), base.replace(weights="optimal")]
    monkeypatch.setattr(montecarlo, "pool_workers", lambda: 3)
    parallel = sweep(settings, seed=9, trials=3)
    again = sweep(settings, seed=9, trials=3)
    monkeypatch.setattr(montecarlo, "pool_workers", lambda: 1)
    with linalg.one_blas_thread():
        serial = sweep(settings, seed=9, trials=3)
    for name in ("top", "second", "overlap_u", "overlap_h", "overlap_g"):
        np.testing.assert_array_equal(getattr(parallel, name), getattr(again, name))
        np.testing.assert_array_equal(getattr(parallel, name), getattr(serial, name))
