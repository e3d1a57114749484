"""The matrix-free engine: the operators equal the matrices they stand for, both paths of a draw give the same
eigenpairs on the same draw, the path choice and the memory check, and the vocabulary drawn by blocks.

Tolerances: the two sample-level paths see the same (single-precision) table and sum in double precision; they
differ by the Lanczos tolerance only (relative residual 1e-6 on the matrix-free path, machine precision on the
dense one): measured at d = 150, eigenvalues <= 3e-12 relative and overlaps <= 1.2e-7 absolute, so the checks are
1e-10 and 1e-6 (a residual r moves an eigenvalue by about r^2 and an eigenvector by about r, over the gap).
The population paths run in double precision (measured: 2e-15).
"""

import re

import numpy as np
import pytest

from attnlib import Setting, simulate, sweep
from attnlib.engine import cost, operators, simulation
from attnlib.numerics import linalg, products
from attnlib.model import generative, pooling, positional as P

BASE = Setting(d=150, V=300, N=600, mu_norm2=1.0, process=P.markov(8, 0.5), weights="mean")


def _reference_table(d, V, mu_norm2, rng, rows):
    """The book's table built by hand: float32 normals, block j (``rows`` rows) from stream j spawned from
    four 63-bit integers drawn from ``rng``, and s_v mu added to the first column in double precision."""
    seed = rng.integers(2**63, size=4, dtype=np.uint64)
    starts = range(0, V, rows)
    kids = np.random.SeedSequence(seed).spawn(len(starts))
    noise = np.concatenate([np.random.default_rng(k).standard_normal((min(rows, V - a), d), dtype=np.float32)
                            for k, a in zip(kids, starts)])
    table = noise.astype(np.float64)
    table[:, 0] += np.repeat([1.0, -1.0], V // 2) * np.sqrt(mu_norm2)
    return table


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("entries", [2**12, generative.FILL_ENTRIES])  # 91 blocks; one block of 2 sub-blocks
def test_block_draw_is_the_same_on_any_number_of_threads(monkeypatch, dtype, entries):
    d, V = 37, 2 * 5000
    monkeypatch.setattr(generative, "FILL_ENTRIES", entries)
    rng = np.random.default_rng(3)
    one = _reference_table(d, V, 0.3, rng, generative.fill_rows(d))
    after = rng.standard_normal(4)
    for workers in (1, 2, 3):
        rng = np.random.default_rng(3)
        voc = generative.draw_vocabulary(d, V, 0.3, rng, dtype=dtype, workers=workers)
        assert voc.table.dtype == dtype
        np.testing.assert_array_equal(voc.table, one.astype(dtype))  # a float32 table: the float64 one rounded
        np.testing.assert_array_equal(rng.standard_normal(4), after)  # the stream advanced by one draw
        s, table = voc.signs.astype(float), voc.table.astype(np.float64)
        np.testing.assert_allclose(voc.h, s @ table / V, rtol=0, atol=1e-13)  # summed in double precision
        np.testing.assert_allclose(voc.g, table.mean(axis=0), rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="dtype must be"):
        generative.draw_vocabulary(d, V, 0.3, rng, dtype=np.int32)
    with pytest.raises(ValueError, match="workers"):
        generative.draw_vocabulary(d, V, 0.3, rng, workers=0)


def test_sample_operator_is_the_sample_covariance():
    rng = np.random.default_rng(1)
    voc = generative.draw_vocabulary(40, 60, 0.5, rng)
    tokens = rng.integers(0, 60, size=(90, 5))
    w = rng.uniform(size=5)
    C = pooling.pool(voc, tokens, w)
    for centered in (True, False):
        op = operators.SampleCovariance.from_tokens(voc.table, tokens, w, centered=centered)
        S = np.cov(C, rowvar=False, bias=True) if centered else C.T @ C / C.shape[0]  # numpy's, independent
        np.testing.assert_allclose(op @ np.eye(40), S, atol=1e-12)
    with pytest.raises(ValueError, match="tokens must lie"):
        operators.SampleCovariance.from_tokens(voc.table, tokens + 60, w)
    with pytest.raises(ValueError, match="table must be"):
        operators.SampleCovariance.from_tokens(voc.table.astype(int), tokens, w)


@pytest.mark.parametrize("centered", [True, False])
def test_population_operator_is_the_population_covariance(centered):
    s = BASE.replace(d=30, V=50, weights="causal", tau=0.5)
    voc = generative.draw_vocabulary(s.d, s.V, s.mu_norm2, np.random.default_rng(2))
    op = operators.PopulationCovariance(voc, s.alpha, s.kappa, s.weight_sum, centered=centered)
    M = generative.population_covariance(voc, s.weights, s.R, centered=centered)
    np.testing.assert_allclose(op @ np.eye(30), M, atol=1e-12)


@pytest.mark.parametrize("case", [dict(k=1), dict(k=2), dict(k=3, weights="optimal"), dict(k=2, centered=False),
                                  dict(k=2, N=100, mu_norm2=0.3)])
def test_paths_agree_on_the_same_draw(case):
    case = dict(case)
    kw = {name: case.pop(name) for name in ("k", "centered") if name in case}
    s = BASE.replace(**case)
    dense = simulate(s, np.random.default_rng(4), method="dense", **kw)
    free = simulate(s, np.random.default_rng(4), method="matrix-free", **kw)
    assert (dense.method, free.method) == ("dense", "matrix-free")
    np.testing.assert_allclose(free.top_eigenvalues, dense.top_eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(free.overlaps, dense.overlaps, atol=1e-6)


def test_population_paths_agree():
    for centered in (True, False):
        a = simulate(BASE, np.random.default_rng(6), k=3, level="population", method="dense", centered=centered)
        b = simulate(BASE, np.random.default_rng(6), k=3, level="population", method="matrix-free",
                     centered=centered)
        np.testing.assert_allclose(b.top_eigenvalues, a.top_eigenvalues, rtol=1e-10)
        np.testing.assert_allclose(b.overlaps, a.overlaps, atol=1e-9)


def test_auto_takes_the_cheaper_path_and_forced_paths_are_checked():
    small, large = BASE.replace(d=50, V=100, N=200), BASE.at_dimension(2000)
    for s in (small, large):
        costs = {m: cost.path_cost(s, m, k=2) for m in ("dense", "matrix-free")}
        assert cost.plan(s, k=2).method == min(costs, key=lambda m: costs[m].seconds)
    assert cost.plan(small, k=2).method == "dense" and cost.plan(large, k=2).method == "matrix-free"
    assert cost.plan(large, k=2, spectrum="exact").method == "dense"
    assert simulate(small, np.random.default_rng(0), spectrum="slq").method == "matrix-free"
    with pytest.raises(ValueError, match="all d eigenvalues"):
        simulate(small, np.random.default_rng(0), spectrum="exact", method="matrix-free")
    with pytest.raises(ValueError, match="matrix-free operator"):
        simulate(small, np.random.default_rng(0), spectrum="slq", method="dense")
    with pytest.raises(ValueError, match="k < d - 1"):
        cost.plan(BASE.replace(d=4), k=3, method="matrix-free")
    with pytest.raises(ValueError, match="method must be one of"):
        simulate(small, np.random.default_rng(0), method="sparse")
    assert simulate(BASE.replace(d=4), np.random.default_rng(0), k=3).top_eigenvalues.size == 3  # dense eigh


def test_memory_check_refuses_a_draw_that_does_not_fit(monkeypatch):
    s = BASE.at_dimension(16_000)
    need = cost.plan(s).peak
    assert 2e9 < need < 3.2e9  # the matrix-free draw at d = 16,000: a float32 table of 2 GB and little else
    monkeypatch.setattr(cost, "memory_limits", lambda: [("a test limit", 10**9)])
    msg = (r"d=16000, V=32000, N=64000, T=8, level='sample', path='matrix-free' needs about [\d,]+ bytes .* "
           r"under a test limit; at these ratios \(delta = 0.5, gamma = 0.25\) the largest that fits is "
           r"d = [\d,]+ on the matrix-free path, d = [\d,]+ on the dense path$")
    with pytest.raises(ValueError, match=msg):
        simulate(s, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"path='dense' needs .*; the matrix-free path fits: "
                                         r"method='matrix-free'; at these ratios"):
        simulate(s.at_dimension(6000), np.random.default_rng(0), method="dense")
    with pytest.raises(ValueError, match=r"path='dense' needs .* on the dense path; all d eigenvalues "
                                         r"\(spectrum='exact'\) need the dense path$"):
        simulate(s, np.random.default_rng(0), spectrum="exact")
    with pytest.raises(ValueError, match="not enough memory"):
        sweep([BASE, s], seed=1, trials=1)
    monkeypatch.setattr(cost, "memory_limits", lambda: [])  # unknown: the free physical pages, or no check
    monkeypatch.setattr(cost.os, "sysconf", lambda name: (_ for _ in ()).throw(ValueError(name)))
    cost.require_memory(cost.plan(s))


def test_the_largest_d_that_fits_does_fit(monkeypatch):
    s = BASE.at_dimension(16_000)
    monkeypatch.setattr(cost, "memory_limits", lambda: [("a test limit", 10**9)])
    for method in ("matrix-free", "dense"):
        c = cost.plan(s, method=method)
        d = cost.largest_dimension(c, method, 10**9)
        assert cost.plan(s.at_dimension(d), method=method).peak <= 10**9
        assert cost.plan(s.at_dimension(d + 1), method=method).peak > 10**9


def _fake_system(tmp_path, cgroup: str, files: dict) -> None:
    (tmp_path / "proc" / "self").mkdir(parents=True)
    (tmp_path / "proc" / "meminfo").write_text("MemTotal: 100 kB\nMemAvailable:  8000000 kB\n")
    (tmp_path / "proc" / "self" / "status").write_text("VmSize:   300000 kB\n")
    (tmp_path / "proc" / "self" / "cgroup").write_text(cgroup)
    for name, text in files.items():
        path = tmp_path / "cg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize("version", ["v2", "v1"])
def test_memory_limits_read_cgroups(monkeypatch, tmp_path, version):
    if version == "v2":  # the job's own limit, under a parent whose limit is looser
        _fake_system(tmp_path, "0::/user.slice/job\n", {
            "user.slice/job/memory.max": "2000000000\n", "user.slice/job/memory.current": "500000000\n",
            "user.slice/memory.max": "max\n", "user.slice/memory.current": "900000000\n",
            "memory.max": "6000000000\n", "memory.current": "1000000000\n"})
    else:
        _fake_system(tmp_path, "12:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n", {
            "memory/docker/abc/memory.limit_in_bytes": "2000000000\n",
            "memory/docker/abc/memory.usage_in_bytes": "500000000\n"})
    monkeypatch.setattr(cost, "PROC", str(tmp_path / "proc"))
    monkeypatch.setattr(cost, "CGROUP", str(tmp_path / "cg"))
    limits = dict(cost.memory_limits())
    assert limits["the available memory (MemAvailable)"] == 8_000_000 * 1024
    cgroup = {name: free for name, free in limits.items() if "cgroup" in name}
    assert sorted(cgroup.values())[0] == 1_500_000_000
    assert cost.available_memory() == 1_500_000_000
    s = BASE.at_dimension(16_000)  # 2.5 GB: refused under the cgroup limit, which the message names
    with pytest.raises(ValueError, match=r"under the cgroup limit .*job/memory.max|limit_in_bytes"):
        simulate(s, np.random.default_rng(0))


def test_an_address_space_limit_refuses_a_draw_before_it_allocates():
    """Under ``ulimit -v 3000000`` a d = 20,000 draw raises ValueError at once, naming the limit and the largest
    d that fits; the process's address space does not grow by the draw's gigabytes first."""
    code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (3_000_000 * 1024, resource.RLIM_INFINITY))
import numpy as np, attnlib
from attnlib import Setting
from attnlib.model import positional as P
def vm(key):
    return int([l for l in open("/proc/self/status") if l.startswith(key)][0].split()[1]) * 1024
s = Setting(d=20000, V=40000, N=80000, mu_norm2=1.0, process=P.markov(16, 0.6), weights="mean")
try:
    attnlib.simulate(s, np.random.default_rng(0))
except ValueError as e:
    print(e)
print(vm("VmPeak") - vm("VmSize"))
"""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    message, grown = done.stdout.strip().rsplit("\n", 1)
    assert "under the address-space limit RLIMIT_AS (ulimit -v) of 2.86 GiB" in message
    assert re.search(r"the largest that fits is d = 1\d,\d{3} on the matrix-free path", message), message
    assert int(grown) < 50 * 2**20  # nothing of the draw was allocated


def test_sweep_runs_fewer_draws_at_once_when_memory_is_short(monkeypatch):
    from attnlib.engine import montecarlo

    settings = [BASE, BASE.replace(mu_norm2=0.2)]
    monkeypatch.setattr(montecarlo, "pool_workers", lambda: 2)
    both = sweep(settings, seed=5, trials=2)
    one = cost.plan(BASE, k=2).peak
    monkeypatch.setattr(cost, "available_memory", lambda: int(1.5 * one))  # one draw fits, two do not
    alone = sweep(settings, seed=5, trials=2)
    np.testing.assert_array_equal(alone.eigenvalues, both.eigenvalues)
    np.testing.assert_array_equal(alone.overlap_h, both.overlap_h)


def test_default_sample_draw_is_single_precision_and_exact_spectra_double(monkeypatch):
    dtypes = []
    original = simulation.draw_vocabulary.__wrapped__

    def spy(*args, **kwargs):
        out = original(*args, **kwargs)
        dtypes.append(out.table.dtype)
        return out

    monkeypatch.setattr(simulation.draw_vocabulary, "__wrapped__", spy)
    simulate(BASE, np.random.default_rng(0))
    simulate(BASE, np.random.default_rng(0), spectrum="exact")
    simulate(BASE, np.random.default_rng(0), level="population")
    assert dtypes == [np.float32, np.float64, np.float64]


def test_lanczos_finds_the_top_eigenpairs_of_a_matrix(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 120))
    M = X.T @ X / 300
    M += 2.0 * np.outer(X[0], X[0]) / 120  # one outlier above a Marchenko-Pastur bulk
    vals, vecs = np.linalg.eigh(M)
    for k in (1, 2, 3):
        got, v, steps = linalg.lanczos_top(lambda x: M @ x, 120, k, 1e-10, linalg.start_vector(120))
        np.testing.assert_allclose(got, vals[::-1][:k], rtol=1e-12)
        np.testing.assert_allclose(np.abs(np.sum(v * vecs[:, ::-1][:, :k], axis=0)), 1.0, atol=1e-9)
        assert steps < 120
    low = X[:5].T @ X[:5]  # rank 5: the Krylov space (5 directions in the range, 1 in the kernel) is invariant
    got, _, steps = linalg.lanczos_top(lambda x: low @ x, 120, 2, 1e-12, linalg.start_vector(120))
    assert steps <= 7  # found at the 6th step, or at the 7th once rounding leaves a residual of ~1e-15
    np.testing.assert_allclose(got, np.linalg.eigvalsh(low)[::-1][:2], rtol=1e-12)
    monkeypatch.setattr(linalg, "MAX_STEPS", 3)
    with pytest.raises(ValueError, match="did not reach relative residual"):
        linalg.lanczos_top(lambda x: M @ x, 120, 1, 1e-10, linalg.start_vector(120))


def test_threaded_products_equal_one_thread(monkeypatch):
    """Above THREADED_ENTRIES the products run on several threads, by chunks of rows whose partial sums are
    added in a fixed order (attnlib.numerics.products): the same numbers, bit for bit, on 1, 2 and 3 threads."""
    voc = generative.draw_vocabulary(BASE.d, BASE.V, 1.0, np.random.default_rng(5), dtype=np.float32)
    tokens = np.random.default_rng(6).integers(0, BASE.V, size=(BASE.N, 8))
    monkeypatch.setattr(products, "CHUNK_ENTRIES", 40 * BASE.d)  # 8 chunks of 40 rows
    one = operators.SampleCovariance.from_tokens(voc.table, tokens, np.ones(8) / 8, workers=1)
    assert one.threads == 1
    monkeypatch.setattr(operators, "THREADED_ENTRIES", voc.table.size)
    X = np.random.default_rng(7).standard_normal((BASE.d, 3))
    for workers in (2, 3):
        many = operators.SampleCovariance.from_tokens(voc.table, tokens, np.ones(8) / 8, workers=workers)
        assert many.threads == workers and operators.product_threads(voc.table[:-1], workers) == 1
        np.testing.assert_array_equal(many @ X, one @ X)
    exact = voc.table.astype(np.float64)  # the sums are double-precision sums of the float32 numbers
    np.testing.assert_allclose(products.times(voc.table, X, 3), exact @ X, rtol=1e-12, atol=1e-12)
    W = np.random.default_rng(8).standard_normal((BASE.V, 2))
    np.testing.assert_allclose(products.transpose_times(voc.table, W, 3), exact.T @ W, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_thread_count_from_the_environment_is_checked(monkeypatch, value):
    monkeypatch.setenv("ATTNLIB_THREADS", "3")
    assert linalg.usable_cores() == 3
    monkeypatch.setenv("ATTNLIB_THREADS", value)
    with pytest.raises(ValueError, match="ATTNLIB_THREADS must be a positive integer"):
        linalg.usable_cores()
