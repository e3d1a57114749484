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
every Lanczos vector (``PRODUCTS`` per eigenpair in the peak). ``method="auto"`` takes the path with the
smaller estimate. The
constants are rough on purpose: the paths differ by large factors except near the crossover, where either
choice costs about the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from attnlib.model.setting import check_setting
from attnlib.numerics import checks as _v
from attnlib.numerics.linalg import usable_cores

__all__ = ["METHODS", "FLOP_RATE", "BANDWIDTH", "PRODUCTS", "Cost", "estimate", "plan", "choose", "available_memory",
           "check_memory", "require_memory"]

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

    ``flops``: compute-bound work (BLAS-3 products and dense eigensolvers), in single-precision flops;
    ``traffic``: memory-bound work, bytes streamed; ``peak``: bytes the draw allocates at its peak (arrays it
    creates, not the interpreter); ``seconds``: the time these take at ``FLOP_RATE`` and ``BANDWIDTH``.
    """

    method: str
    level: str
    flops: float
    traffic: float
    peak: int
    setting: object = None

    @property
    def seconds(self) -> float:
        return self.flops / FLOP_RATE + self.traffic / BANDWIDTH


def _sizes(setting):
    return setting.d, setting.V, setting.N, setting.T


def estimate(setting, method: str, *, level: str = "sample", k: int = 1, spectrum=None,
             table_dtype=None, probes: int = 0, degree: int = 0) -> Cost:
    """The :class:`Cost` of one draw of ``setting`` by ``method`` ("dense" or "matrix-free").

    ``table_dtype``: the dtype of a vocabulary passed in (None: the draw draws its own, in the precision of the
    path, and its table counts in the peak). ``spectrum``: None, "exact" or "slq" (then ``probes`` and
    ``degree`` give the size of the density estimate). Inputs are assumed validated.
    """
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
            peak = table + (m + 4) * d * 8 + 4 * V * 8
        return Cost(method, level, flops, traffic, int(peak + block), setting)
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
        peak = table + tokens + 24 * NT + (m + 4) * d * 8 + 40 * V + partials
        if spectrum == "slq":
            flops += 4.0 * V * d * probes * degree
            traffic += degree * 48.0 * NT * probes
            peak += probes * (32 * V + 8 * N + 40 * d) + probes * degree * 16
    return Cost(method, level, flops, traffic, int(peak + block), setting)


def plan(setting, *, level: str = "sample", k: int = 1, spectrum=None, method: str = "auto", table_dtype=None,
         probes: int = 0, degree: int = 0) -> Cost:
    """The :class:`Cost` of the path a draw takes: ``method`` if forced, else the cheaper possible one.

    The matrix-free path needs ``k < d - 1`` (Lanczos) and cannot give all d eigenvalues; the dense path cannot
    give a density estimate (``spectrum="slq"``). Raises ValueError when the forced path cannot run.
    """
    check_setting(setting)
    method = _v.choice("method", method, METHODS)
    return choose(setting, level=level, k=k, spectrum=spectrum, method=method, table_dtype=table_dtype,
                  probes=probes, degree=degree)


def choose(setting, *, level: str = "sample", k: int = 1, spectrum=None, method: str = "auto", table_dtype=None,
           probes: int = 0, degree: int = 0) -> Cost:
    """:func:`plan` on validated arguments (the engine's call)."""
    possible = []
    if spectrum != "slq":
        possible.append("dense")
    if spectrum != "exact" and k < setting.d - 1:
        possible.append("matrix-free")
    if method != "auto" and method not in possible:
        why = ("all d eigenvalues (spectrum='exact') need the dense path" if spectrum == "exact" else
               "a density estimate (spectrum='slq') runs on the matrix-free operator" if spectrum == "slq" else
               f"Lanczos needs k < d - 1 = {setting.d - 1}, got k = {k}")
        raise ValueError(f"method={method!r} cannot run here: {why}; use method='auto'")
    costs = [estimate(setting, p, level=level, k=k, spectrum=spectrum, table_dtype=table_dtype, probes=probes,
                      degree=degree) for p in (possible if method == "auto" else [method])]
    return min(costs, key=lambda c: c.seconds)


def available_memory() -> int | None:
    """Bytes of memory available to new allocations: ``MemAvailable`` of /proc/meminfo, else the free physical
    pages (``os.sysconf``), else None (unknown: no check)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


def check_memory(cost: Cost, *, concurrent: int = 1) -> None:
    """Raise ValueError if ``concurrent`` draws of ``cost`` would not fit in :func:`available_memory`.

    The message names the sizes (d, V, N, T), the level and path, and the bytes needed and available.
    """
    if not isinstance(cost, Cost):
        raise ValueError(f"cost must be an attnlib.engine.cost.Cost, got {cost!r}")
    require_memory(cost, _v.positive_int("concurrent", concurrent))


def require_memory(cost: Cost, concurrent: int = 1) -> None:
    """:func:`check_memory` on validated arguments (the engine's call)."""
    free = available_memory()
    need = cost.peak * concurrent
    if free is None or need <= free:
        return
    sizes = "d={}, V={}, N={}, T={}, ".format(*_sizes(cost.setting)) if cost.setting is not None else ""
    many = f" ({concurrent} draws at once)" if concurrent > 1 else ""
    raise ValueError(
        f"not enough memory for this draw{many}: {sizes}level={cost.level!r}, "
        f"path={cost.method!r} needs about {need:,} bytes ({_gib(need)}) but {free:,} bytes ({_gib(free)}) are "
        "available; use a smaller d, the matrix-free path (method='matrix-free' or 'auto'), or fewer workers"
    )
