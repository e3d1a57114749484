"""The fast simulation path (issue 8) computes the same thing as the straightforward one.

* the CSR token matrix built directly (repeated token ids kept as separate entries) gives the same products as
  the canonical one, and `token_matrix` still returns the canonical matrix;
* pooling split into row blocks over threads equals the serial product bit for bit;
* `simulate`'s single-precision table moves the eigenpairs of the double-precision one within the bounds of
  Weyl (eigenvalues) and Davis-Kahan (overlaps).
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


@pytest.mark.parametrize("kw", [dict(k=2), dict(k=2, centered=False), dict(k=3), dict(k=2, mu_norm2=0.12)])
def test_single_precision_table_moves_the_eigenpairs_within_weyl_and_davis_kahan(monkeypatch, kw):
    """The float32 table is the float64 one with its first column rounded; S moves by dS, and then each
    eigenvalue by at most ||dS|| (Weyl) and each squared overlap by at most 2 ||dS|| / g, g the eigenvalue's gap
    to the rest of the spectrum (Davis-Kahan). The last case sits at the sample threshold, where the top two
    eigenvalues nearly tie (g is 5 % of the top eigenvalue). Measured: ||dS|| / ||S|| = 9e-9 to 1.5e-8."""
    kw = dict(kw)
    s = Setting(d=150, V=300, N=600, mu_norm2=kw.pop("mu_norm2", 1.0), process=P.markov(8, 0.5),
                weights="optimal")
    single = simulate(s, np.random.default_rng(4), method="dense", **kw)
    monkeypatch.setattr(simulation, "TABLE_DTYPE", np.float64)
    double = simulate(s, np.random.default_rng(4), method="dense", **kw)
    S = {}
    for dtype in (np.float32, np.float64):
        rng = np.random.default_rng(4)
        voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng, dtype=dtype)
        C, _ = pooling.draw_pooled(voc, s.process, s.weights, s.N, rng)
        C = np.asarray(C, dtype=float)  # S in double precision, centred or not as the draw
        C = C - C.mean(axis=0) if kw.get("centered", True) else C
        S[dtype] = C.T @ C / C.shape[0]
    dS = np.abs(np.linalg.eigvalsh(S[np.float32] - S[np.float64])).max()
    spectrum = np.linalg.eigvalsh(S[np.float64])[::-1]
    assert dS / spectrum[0] < 1e-7
    k = single.top_eigenvalues.size
    assert np.all(np.abs(single.top_eigenvalues - double.top_eigenvalues) <= dS + 1e-12 * spectrum[0])
    gaps = [np.abs(np.delete(spectrum, i) - spectrum[i]).min() for i in range(k)]
    assert np.all(np.abs(single.overlaps - double.overlaps) <= 2 * dS / np.array(gaps) + 1e-12)


def test_full_spectrum_path_stays_double_and_matches_eigvalsh():
    s = Setting(d=80, V=160, N=320, mu_norm2=1.0, process=P.markov(8, 0.5), weights="mean")
    dr = simulate(s, np.random.default_rng(5), spectrum="exact")
    rng = np.random.default_rng(5)
    voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, rng)
    C, _ = pooling.draw_pooled(voc, s.process, s.weights, s.N, rng)
    S = np.cov(C, rowvar=False, bias=True)  # numpy's S, an independent route
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
