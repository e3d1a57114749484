r"""What a draw costs before it runs: the work and peak memory of each path, the choice between the paths, and
the memory check that refuses a draw the machine cannot hold.

A draw at sample level computes the top eigenpairs of S by one of two paths (the vocabulary and the sequences
are drawn the same way by both and are not part of the comparison):

``"dense"``
    pool C = A E (N x d, double precision), centre it, form S = C^T C / N (the Gram C C^T / N when N < d;
    ``n`` is the smaller size) with BLAS-3 and run Lanczos on it: :math:`2 N d n` flops for S,
    :math:`8(NTd + 2Nd)` bytes for pooling and centring, :math:`8 n^2` bytes per Lanczos product. Peak: the
    table, C and S.
``"matrix-free"``
    Lanczos on S = E^T M E applied through the table and the sparse token matrix
    (:class:`attnlib.engine.operators.SampleCovariance`): per product two passes over the float32 table
    (:math:`8Vd` bytes), accumulated in double precision (:mod:`attnlib.numerics.products`), and the sparse
    products in double precision (about :math:`48NT` bytes). Peak: the table, A and its transpose
    (:math:`24NT` bytes), the Lanczos vectors.

With all d eigenvalues (``spectrum="exact"``) only the dense path applies (in double precision:
:math:`\tfrac43 n^3` more flops for ``eigvalsh``); a spectral density (``spectrum="slq"``) only the matrix-free
one, whose :math:`P` probes times :math:`m` Lanczos steps cost :math:`4VdPm` flops as BLAS-3 products. At
population level the dense path forms the covariance (:math:`V d^2` flops in double precision, peak two
(V, d) double-precision arrays and the d x d matrix) and the matrix-free one applies it through the table
(:class:`attnlib.engine.operators.PopulationCovariance`, :math:`16Vd` bytes per product).

The estimated time is ``flops / FLOP_RATE + traffic / BANDWIDTH`` with one core's rates, and the number of
Lanczos products is taken as ``PRODUCTS`` per eigenpair (measured at d = 2000-8000 with
:func:`attnlib.numerics.linalg.lanczos_top`: 12 products for one eigenpair well above the bulk, 21 near it,
45-85 when the top eigenvalue sits at the bulk edge; 70-100 for two eigenpairs). The matrix-free path keeps
every Lanczos vector, in a basis reserved for :data:`attnlib.numerics.linalg.MAX_STEPS` of them (all counted in
the peak: the reservation counts against an address-space limit). ``method="auto"`` takes the path with the
smaller estimate. The constants are rough on purpose: the paths differ by large factors except near the
crossover, where either choice costs about the same. The peak is what the check before a draw compares with
the tightest of the process's memory limits (:func:`memory_limits`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from attnlib.model.setting import Setting
from attnlib.numerics import checks as _v
from attnlib.numerics.linalg import MAX_STEPS, usable_cores

__all__ = ["METHODS", "FLOP_RATE", "BANDWIDTH", "PRODUCTS", "Cost", "path_cost", "plan", "paths", "memory_limits",
           "available_memory", "largest_dimension", "require_memory"]

#: The paths of a draw, the cheaper one by the estimate below or one forced.
METHODS = ("auto", "dense", "matrix-free")
#: Single-precision BLAS-3 flops per second on one core (double precision counts twice).
FLOP_RATE = 4e10
#: Bytes per second streamed through memory by one core (matrix-vector and sparse products).
BANDWIDTH = 1e10
#: Lanczos products per eigenpair assumed by the estimate.
PRODUCTS = 40
_NCV = 20  # eigsh's default number of Lanczos vectors for k <= 9 (the dense path)


@dataclass(frozen=True)
class Cost:
    """Estimated work of one draw by one path.

    ``options``: the keyword arguments of :func:`path_cost` besides the path, so that the same draw can be
    costed at another dimension (the memory check's "largest d that fits"). ``flops``: compute-bound work (BLAS-3 products and dense eigensolvers), in single-precision flops;
    ``traffic``: memory-bound work, bytes streamed; ``peak``: bytes the draw allocates at its peak (arrays it
    creates, not the interpreter); ``seconds``: the time these take at ``FLOP_RATE`` and ``BANDWIDTH``.
    """

    method: str
    level: str
    flops: float
    traffic: float
    peak: int
    setting: object = None
    options: tuple = ()  # (("k", 1), ("spectrum", None), ...): what :func:`path_cost` was given besides the path

    @property
    def seconds(self) -> float:
        return self.flops / FLOP_RATE + self.traffic / BANDWIDTH


def _sizes(setting):
    return setting.d, setting.V, setting.N, setting.T


def path_cost(setting, method: str, *, level: str = "sample", k: int = 1, spectrum=None,
              table_dtype=None, probes: int = 0, degree: int = 0) -> Cost:
    """The :class:`Cost` of one draw of ``setting`` by ``method`` ("dense" or "matrix-free").

    ``table_dtype``: the dtype of a vocabulary passed in (None: the draw draws its own, in the precision of the
    path, and its table counts in the peak). ``spectrum``: None, "exact" or "slq" (then ``probes`` and
    ``degree`` give the size of the density estimate). Inputs are assumed validated.
    """
    options = (("level", level), ("k", k), ("spectrum", spectrum), ("table_dtype", table_dtype),
               ("probes", probes), ("degree", degree))
    d, V, N, T = _sizes(setting)
    NT = N * T
    m = PRODUCTS * k
    given = table_dtype is not None
    double = spectrum == "exact" or level == "population"
    own = 8 if double else 4  # bytes per entry of the table the draw works on
    table = 0 if given and np.dtype(table_dtype).itemsize == own else V * d * own
    block = usable_cores() * (2**22 + 16 * d) if not given else 0  # each filling thread: a sub-block, two sums
    tokens = 21 * NT  # signs (int8), token ids (int64), the CSR arrays
    if level == "population":
        if method == "dense":
            flops, traffic = 2.0 * V * d * d, 24.0 * V * d + m * 8.0 * d * d
            peak = table + 2 * V * d * 8 + 4 * d * d * 8
        else:
            flops, traffic = 0.0, m * 16.0 * V * d
            peak = table + (MAX_STEPS + 4) * d * 8 + 4 * V * 8
        return Cost(method, level, flops, traffic, int(peak + block), setting, options)
    n = min(N, d)
    if method == "dense":  # in double precision, from a table of either precision
        flops = 2.0 * N * d * n
        traffic = 8 * (NT * d + 2.0 * N * d) + m * 8.0 * n * n
        convert = 0 if double else 8 * (V + N) * max(1, 2**19 // V)  # pool_table's column blocks
        peak = table + tokens + N * d * 8 + n * n * 8 + _NCV * n * 8 + convert
        if spectrum == "exact":
            flops += 2 * 4.0 / 3.0 * n**3
            peak += n * n * 8
    else:
        flops = 0.0
        traffic = m * (8.0 * V * d + 48.0 * NT)
        partials = 8 * d * (V * d // 2**23 + 1)  # E^T W by chunks (attnlib.numerics.products)
        peak = table + tokens + 24 * NT + (MAX_STEPS + 4) * d * 8 + 40 * V + partials
        if spectrum == "slq":
            flops += 4.0 * V * d * probes * degree
            traffic += degree * 48.0 * NT * probes
            peak += probes * (32 * V + 8 * N + 40 * d) + probes * degree * 16
    return Cost(method, level, flops, traffic, int(peak + block), setting, options)


def paths(d: int, *, k: int = 1, spectrum=None) -> list[str]:
    """The paths that can give ``k`` top eigenpairs (and ``spectrum``) at dimension ``d``: the matrix-free one
    needs k < d - 1 and cannot give all d eigenvalues; the dense one cannot give a density estimate."""
    return (["dense"] if spectrum != "slq" else []) + (["matrix-free"] if spectrum != "exact" and k < d - 1 else [])


@_v.validated(setting=Setting, method=METHODS)
def plan(setting, *, level: str = "sample", k: int = 1, spectrum=None, method: str = "auto", table_dtype=None,
         probes: int = 0, degree: int = 0) -> Cost:
    """The :class:`Cost` of the path a draw takes: ``method`` if forced, else the cheaper possible one.

    The matrix-free path needs ``k < d - 1`` (Lanczos) and cannot give all d eigenvalues; the dense path cannot
    give a density estimate (``spectrum="slq"``). Raises ValueError when the forced path cannot run.
    ``plan.__wrapped__`` is the engine's call, on arguments a draw has checked.
    """
    possible = paths(setting.d, k=k, spectrum=spectrum)
    if method != "auto" and method not in possible:
        why = ("all d eigenvalues (spectrum='exact') need the dense path" if spectrum == "exact" else
               "a density estimate (spectrum='slq') runs on the matrix-free operator" if spectrum == "slq" else
               f"Lanczos needs k < d - 1 = {setting.d - 1}, got k = {k}")
        raise ValueError(f"method={method!r} cannot run here: {why}; use method='auto'")
    costs = [path_cost(setting, p, level=level, k=k, spectrum=spectrum, table_dtype=table_dtype, probes=probes,
                       degree=degree) for p in (possible if method == "auto" else [method])]
    return min(costs, key=lambda c: c.seconds)


#: Address space each working thread maps beyond the arrays: a 64 MiB malloc arena, OpenBLAS's 32 MiB buffer for
#: a thread that calls it, and an 8 MiB stack (measured: two threads of the products add 208 MiB to VmSize);
#: one more is kept for the calling thread's own heap. It counts against RLIMIT_AS only, which limits address
#: space rather than memory in use (measured at d = 17,237 under ``ulimit -v 3000000``: a draw whose arrays the
#: estimate puts at 2.33 GiB maps 2.52 GiB, within the 2.53 GiB left).
THREAD_ADDRESS_SPACE = 104 * 2**20
#: Where the memory limits of a process are read (a parameter for the tests).
PROC, CGROUP = "/proc", "/sys/fs/cgroup"
_NO_LIMIT = 2**60  # cgroup v1 writes "no limit" as a number near 2^63


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _status_bytes(text: str | None, key: str) -> int | None:
    for line in (text or "").splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return None


def _cgroup_limits() -> list[tuple[str, int]]:
    """Room left under the memory limit of this process's cgroup and of each of its ancestors (v2), or of its
    memory controller (v1): limit minus usage."""
    out = []
    for line in (_read(f"{PROC}/self/cgroup") or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":  # cgroup v2: memory.max along the path, up to the root
            path = parts[2].strip("/")
            while True:
                base = f"{CGROUP}/{path}".rstrip("/")
                limit, used = _read(f"{base}/memory.max"), _read(f"{base}/memory.current")
                if limit and used and limit.strip() != "max":
                    out.append((f"the cgroup limit {base}/memory.max", int(limit) - int(used)))
                if not path:
                    break
                path = path.rpartition("/")[0]
        elif "memory" in parts[1].split(","):  # cgroup v1
            base = f"{CGROUP}/memory/{parts[2].strip('/')}".rstrip("/")
            limit, used = _read(f"{base}/memory.limit_in_bytes"), _read(f"{base}/memory.usage_in_bytes")
            if limit and used and int(limit) < _NO_LIMIT:
                out.append((f"the cgroup limit {base}/memory.limit_in_bytes", int(limit) - int(used)))
    return out


def memory_limits() -> list[tuple[str, int]]:
    """Every limit on new allocations that applies to this process, as ``(what it is, bytes left under it)``:
    the machine's available memory (``MemAvailable``), the address-space limit (``RLIMIT_AS``, ``ulimit -v``:
    the limit minus the address space in use, ``VmSize``), and cgroup v1/v2 memory limits (containers, CI
    runners, JupyterHub: the limit minus the cgroup's usage). Empty when none can be read."""
    import resource

    out = []
    meminfo = _status_bytes(_read(f"{PROC}/meminfo"), "MemAvailable")
    if meminfo is not None:
        out.append(("the available memory (MemAvailable)", meminfo))
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        used = _status_bytes(_read(f"{PROC}/self/status"), "VmSize") or 0
        threads = (usable_cores() + 1) * THREAD_ADDRESS_SPACE
        out.append((f"the address-space limit RLIMIT_AS (ulimit -v) of {_gib(soft)}, {_gib(used)} in use and "
                    f"{_gib(threads)} kept for the threads", soft - used - threads))
    return out + _cgroup_limits()


def available_memory() -> int | None:
    """Bytes left for new allocations under the tightest of :func:`memory_limits`, else the free physical pages
    (``os.sysconf``), else None (unknown: no check)."""
    limits = memory_limits()
    if limits:
        return max(0, min(free for _, free in limits))
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def largest_dimension(cost: Cost, method: str, free: int, concurrent: int = 1) -> int | None:
    """The largest d at which ``concurrent`` draws of ``cost``'s setting (the same ratios, by
    ``Setting.at_dimension``) and options, by ``method``, fit in ``free`` bytes; None if not even d = 2 does."""
    opts = dict(cost.options)

    def fits(d):
        return (method in paths(d, k=opts.get("k", 1), spectrum=opts.get("spectrum"))
                and path_cost(cost.setting.at_dimension(d), method, **opts).peak * concurrent <= free)

    lo, hi = 1, cost.setting.d
    while lo < hi:  # the peak grows with d
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo if lo >= 2 and fits(lo) else None


def require_memory(cost: Cost, concurrent: int = 1) -> None:
    """Raise ValueError if ``concurrent`` draws of ``cost`` (a :class:`Cost` from :func:`plan`) would not fit
    under the tightest of :func:`memory_limits`; the engine's check before it allocates.

    The message names the sizes (d, V, N, T), the level and path, the bytes needed and available and the limit
    that binds; then the other path if it would fit, and the largest d that fits at the same ratios on each
    path that can give what was asked.
    """
    free = available_memory()
    need = cost.peak * concurrent
    if free is None or need <= free:
        return
    limits = memory_limits()
    binding = min(limits, key=lambda item: item[1])[0] if limits else "the free physical memory"
    many = f" ({concurrent} draws at once)" if concurrent > 1 else ""
    head = (f"not enough memory for this draw{many}: "
            + ("d={}, V={}, N={}, T={}, ".format(*_sizes(cost.setting)) if cost.setting is not None else "")
            + f"level={cost.level!r}, path={cost.method!r} needs about {need:,} bytes ({_gib(need)}) but "
            f"{max(free, 0):,} bytes ({_gib(max(free, 0))}) are available under {binding}")
    if cost.setting is None or not cost.options:
        raise ValueError(head)
    opts = dict(cost.options)
    possible = paths(cost.setting.d, k=opts["k"], spectrum=opts["spectrum"]) if cost.level == "sample" else [
        "dense", "matrix-free"]
    advice = []
    for other in (p for p in possible if p != cost.method):
        if path_cost(cost.setting, other, **opts).peak * concurrent <= free:
            advice.append(f"the {other} path fits: method={other!r}")
    sizes = []
    for path in [cost.method] + [p for p in possible if p != cost.method]:
        d = largest_dimension(cost, path, free, concurrent)
        sizes.append(f"d = {d:,} on the {path} path" if d else f"no d on the {path} path")
    ratios = f"delta = {cost.setting.delta:.3g}, gamma = {cost.setting.gamma:.3g}"
    advice.append(f"at these ratios ({ratios}) the largest that fits is " + ", ".join(sizes))
    if cost.level == "sample" and opts["spectrum"] == "exact":
        advice.append("all d eigenvalues (spectrum='exact') need the dense path")
    if concurrent > 1:
        advice.append("or run fewer draws at once")
    raise ValueError(head + "; " + "; ".join(advice))
