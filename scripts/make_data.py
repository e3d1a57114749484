#!/usr/bin/env python
"""Regenerate book/data/finite_size.npz, the large-d simulations of the chapter "How large is large?".

Usage:
    python scripts/make_data.py                      # every section, then assemble the file (`make data`)
    python scripts/make_data.py window table         # some sections (kept in _build/finite_size/)
    python scripts/make_data.py --assemble           # assemble the file from the sections already run

Sections (each draw is one call of attnlib's engine on its own random stream; see ``describe`` below):

* ``edge``: the top eigenvalue without an outlier (independent signs, mu = 0, mean pooling) at d = 250 ... 4000;
* ``outlier``: nested draws (K vocabularies x J sample draws) of two weightings with the same alpha/kappa;
* ``window``: the top eigenpair near the sample threshold, on a grid of distances in window widths, at
  d = 250 ... 16,000 (common random numbers: draw j at every distance uses the same stream, hence the same
  noise and sequences, and one block Krylov space serves all distances: ``finite_size.signal_scan``);
* ``table``: the book's reference settings (prefix L = 4, T = 16, delta = 0.5, gamma = 0.25, ||mu||^2 = 0.5;
  mean, causal and optimal weights) at d = 250 ... 8000 (16,000 for mean pooling), top two eigenpairs, and
  the L1 distance of the spectrum to the bulk law (all eigenvalues up to d = 4000, stochastic Lanczos
  quadrature beyond).

The file records the seeds, sizes, versions (attnlib, numpy, scipy, python), the load average and the wall time
of every section. Draws run in a process pool (``--workers``, default 2) on one thread each; every draw
is a pure function of its setting and stream, so the numbers do not depend on the number of workers.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "ATTNLIB_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("ATTNLIB_PROGRESS", "0")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy  # noqa: E402
from scipy.optimize import brentq  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import attnlib  # noqa: E402
from attnlib import Setting, theory  # noqa: E402
from attnlib.engine import compare
from attnlib.theory import fluctuations
from attnlib.studies import finite_size
from attnlib.model import positional, weights
from attnlib.engine.slq import SLQ  # noqa: E402
from attnlib.engine.montecarlo import streams  # noqa: E402

OUT = REPO / "book" / "data" / "finite_size.npz"
PARTS = REPO / "_build" / "finite_size"
SECTIONS = ("edge", "outlier", "window", "table")
T = 16
DELTA, GAMMA = 0.5, 0.25

# edge: no outlier (theta = delta, x = 0 < sqrt(delta))
EDGE = dict(ds=(250, 500, 1000, 2000, 4000), trials=(2000, 1000, 500, 250, 100), seed=9100)
# outlier: same alpha/kappa = 4, different beta4; delta = gamma = 0.5, ||mu||^2 = 0.5 (theta = 4)
OUTLIER = dict(ds=(400, 1600), nested=((120, 8), (40, 6)), seed=9200, gamma=0.5, mu_norm2=0.5, snr=4.0)
# window: prefix(16, 4), mean pooling, theta = delta + x* + t w_d
WINDOW_T = (-2.5, -1.5, -0.75, 0.0, 0.75, 1.5, 2.5, 4.0)
WINDOW = dict(ds=(250, 500, 1000, 2000, 4000, 8000, 16000), trials=(400, 300, 160, 80, 32, 10, 5),
              t=(WINDOW_T,) * 5 + (WINDOW_T[1:7], WINDOW_T[2:6]), seed=9300)
# table: the reference settings
TABLE = dict(ds=(250, 500, 1000, 2000, 4000, 8000, 16000), trials=(200, 100, 50, 24, 12, 6, 4), seed=9500,
             schemes=("mean", "causal", "optimal"), mu_norm2=0.5, big_only="mean",
             density_ds=(250, 500, 1000, 2000, 4000, 8000, 16000), density_trials=(8, 6, 4, 3, 2, 2, 1))


def reference(weights_name: str, d: int = 250) -> Setting:
    """A reference setting of the chapter at dimension d."""
    base = Setting(d=250, V=500, N=1000, mu_norm2=TABLE["mu_norm2"], process=positional.prefix(T, 4),
                   weights=weights_name)
    return base.at_dimension(d)


def edge_setting(d: int) -> Setting:
    return Setting(d=250, V=500, N=1000, mu_norm2=0.0, process=positional.independent(T),
                   weights="mean").at_dimension(d)


def markov_r(snr: float = OUTLIER["snr"]) -> float:
    """The Markov correlation r whose mean pooling has alpha/kappa = snr."""
    return float(brentq(lambda r: weights.snr(weights.mean(T), positional.markov(T, r).R) - snr, 0.01, 0.99,
                        xtol=1e-14))


def outlier_setting(name: str, d: int) -> Setting:
    process, w = (positional.prefix(T, 4), "optimal") if name == "optimal" else (positional.markov(T, markov_r()),
                                                                                    "mean")
    base = Setting(d=400, V=800, N=800, mu_norm2=OUTLIER["mu_norm2"], process=process, weights=w)
    return base.at_dimension(d)


def window_setting(d: int, t: float) -> Setting:
    x_star = theory.critical_x(DELTA, GAMMA)[0]
    theta = DELTA + x_star + t * fluctuations.window_width(DELTA, GAMMA, d)
    return reference("mean", d).with_theta(theta)


# ------------------------------------------------------------------------------------------------ jobs


def _draw(setting: Setting, stream, k: int, spectrum):
    """One draw: (top k eigenvalues, overlaps with h, ||h||^2, L1 distance of the spectrum to the law or nan)."""
    draw, h2 = finite_size.centroid_draw(setting, np.random.default_rng(stream), k=k, spectrum=spectrum)
    l1 = np.nan
    if spectrum is not None:
        law = theory.Bulk(setting.delta, setting.gamma, setting.kappa)
        l1 = compare.histogram_l1(draw.spectrum if spectrum == "exact" else draw.density, law)
    return draw.top_eigenvalues, draw.overlaps[1], h2, l1


def _nested(name: str, d: int, K: int, J: int, seed: int):
    nest = finite_size.nested_draws(outlier_setting(name, d), seed, K, J)
    return nest.top, nest.overlap_h, nest.h_norm2


def _run(pool, jobs):
    """Submit (key, fn, args) jobs, largest first; return {key: result}."""
    futures = {key: pool.submit(fn, *args) for key, fn, args in jobs}
    return {key: f.result() for key, f in futures.items()}


def _stack(results, keys):
    tops, ovs, h2s, l1s = zip(*(results[k] for k in keys))
    return np.array(tops), np.array(ovs), np.array(h2s), np.array(l1s)


# ------------------------------------------------------------------------------------------------ sections


def run_edge(pool):
    out, jobs = {}, []
    for i, (d, n) in enumerate(zip(EDGE["ds"], EDGE["trials"])):
        s = edge_setting(d)
        jobs += [((d, j), _draw, (s, st, 1, None)) for j, st in enumerate(streams(EDGE["seed"] + i, n))]
    res = _run(pool, sorted(jobs, key=lambda j: -j[0][0]))
    for d, n in zip(EDGE["ds"], EDGE["trials"]):
        out[f"edge_top_{d}"] = _stack(res, [(d, j) for j in range(n)])[0][:, 0]
    return out, {"edge": {**EDGE, "setting": describe(edge_setting(250))}}


def run_outlier(pool):
    jobs = []
    for i, (d, (K, J)) in enumerate(zip(OUTLIER["ds"], OUTLIER["nested"])):
        for m, name in enumerate(("optimal", "markov")):
            jobs.append(((name, d), _nested, (name, d, K, J, OUTLIER["seed"] + 10 * i + m)))
    res = _run(pool, sorted(jobs, key=lambda j: -j[0][1]))
    out = {}
    for (name, d), (top, ov, h2) in res.items():
        out.update({f"outlier_top_{name}_{d}": top, f"outlier_overlap_{name}_{d}": ov,
                    f"outlier_h2_{name}_{d}": h2})
    meta = {**OUTLIER, "markov_r": markov_r(), "seeds": {f"{name}_{d}": OUTLIER["seed"] + 10 * i + m
                                                         for i, d in enumerate(OUTLIER["ds"])
                                                         for m, name in enumerate(("optimal", "markov"))},
            "settings": {name: describe(outlier_setting(name, 400)) for name in ("optimal", "markov")}}
    return out, {"outlier": meta}


def _window(d: int, ts, stream):
    """Draw j of the window at every distance: one vocabulary noise and one set of sequences (common random
    numbers), all distances from one block Krylov space (finite_size.signal_scan)."""
    settings = [window_setting(d, t) for t in ts]
    return finite_size.signal_scan(settings[0], [s.mu_norm2 for s in settings], np.random.default_rng(stream))


def run_window(pool):
    jobs = []
    for i, (d, n, ts) in enumerate(zip(WINDOW["ds"], WINDOW["trials"], WINDOW["t"])):
        st = streams(WINDOW["seed"] + i, n)
        jobs += [((d, j), _window, (d, ts, st[j])) for j in range(n)]
    res = _run(pool, sorted(jobs, key=lambda j: -j[0][0]))
    out = {}
    for d, n, ts in zip(WINDOW["ds"], WINDOW["trials"], WINDOW["t"]):
        top, ov, h2 = (np.stack([res[(d, j)][q] for j in range(n)], axis=1) for q in range(3))  # (distances, n)
        out.update({f"window_t_{d}": np.array(ts), f"window_top_{d}": top, f"window_overlap_{d}": ov,
                    f"window_h2_{d}": h2})
    return out, {"window": {**WINDOW, "setting": describe(reference("mean"))}}


def run_table(pool):
    jobs = []
    for m, name in enumerate(TABLE["schemes"]):
        for i, (d, n) in enumerate(zip(TABLE["ds"], TABLE["trials"])):
            if d > 8000 and name != TABLE["big_only"]:
                continue
            st = streams(TABLE["seed"] + 10 * m + i, n)
            jobs += [(("top", name, d, j), _draw, (reference(name, d), st[j], 2, None)) for j in range(n)]
        for i, (d, n) in enumerate(zip(TABLE["density_ds"], TABLE["density_trials"])):
            spectrum = "exact" if d <= 4000 else SLQ()
            st = streams(TABLE["seed"] + 100 + 10 * m + i, n)
            jobs += [(("density", name, d, j), _draw, (reference(name, d), st[j], 1, spectrum)) for j in range(n)]
    res = _run(pool, sorted(jobs, key=lambda j: -j[0][2]))
    out = {}
    for name in TABLE["schemes"]:
        for d, n in zip(TABLE["ds"], TABLE["trials"]):
            if ("top", name, d, 0) in res:
                top, ov, h2, _ = _stack(res, [("top", name, d, j) for j in range(n)])
                out.update({f"table_top_{name}_{d}": top, f"table_overlap_{name}_{d}": ov[:, 0],
                            f"table_h2_{name}_{d}": h2})
        for d, n in zip(TABLE["density_ds"], TABLE["density_trials"]):
            out[f"table_l1_{name}_{d}"] = _stack(res, [("density", name, d, j) for j in range(n)])[3]
    slq = SLQ()
    meta = {**TABLE, "slq": {"probes": slq.probes, "degree": slq.degree},
            "settings": {name: describe(reference(name)) for name in TABLE["schemes"]}}
    return out, {"table": meta}


def describe(s: Setting) -> dict:
    return {"process": s.process.name, "weights": s.label, "T": s.T, "delta": s.delta, "gamma": s.gamma,
            "mu_norm2": s.mu_norm2, "alpha": s.alpha, "kappa": s.kappa}


RUNNERS = {"edge": run_edge, "outlier": run_outlier, "window": run_window, "table": run_table}


def versions() -> dict:
    from threadpoolctl import threadpool_info
    return {"attnlib": attnlib.__version__, "numpy": np.__version__, "scipy": scipy.__version__,
            "python": platform.python_version(), "machine": platform.machine(),
            "blas": sorted({f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
                            if i.get("user_api") == "blas"})}


def run_section(name: str, workers: int) -> None:
    PARTS.mkdir(parents=True, exist_ok=True)
    load0, start = os.getloadavg(), time.time()
    with ProcessPoolExecutor(workers) as pool:
        arrays, meta = RUNNERS[name](pool)
    seconds = time.time() - start
    meta[name].update(seconds=round(seconds, 1), workers=workers, load_start=[round(x, 2) for x in load0],
                      load_end=[round(x, 2) for x in os.getloadavg()],
                      finished=time.strftime("%Y-%m-%d %H:%M:%S"))
    np.savez_compressed(PARTS / f"{name}.npz", meta=np.array(json.dumps(meta)), **arrays)
    print(f"{name}: {seconds:.1f} s with {workers} workers, load {load0[0]:.2f} -> {os.getloadavg()[0]:.2f}",
          flush=True)


def assemble() -> None:
    arrays, meta = {}, {"versions": versions(), "sections": {}, "delta": DELTA, "gamma": GAMMA, "T": T,
                        "made_by": "scripts/make_data.py"}
    for name in SECTIONS:
        with np.load(PARTS / f"{name}.npz") as part:
            meta["sections"].update(json.loads(part["meta"].item()))
            arrays.update({k: part[k] for k in part.files if k != "meta"})
    meta["seconds"] = round(sum(s["seconds"] for s in meta["sections"].values()), 1)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB); sections took {meta['seconds']} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sections", nargs="*", help=f"sections to run, of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--assemble", action="store_true", help="only assemble the file from the sections run")
    args = parser.parse_args()
    unknown = sorted(set(args.sections) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections {unknown}; choose from {', '.join(SECTIONS)}")
    if not args.assemble:
        for name in args.sections or SECTIONS:
            run_section(name, args.workers)
    if args.assemble or not args.sections:
        assemble()


if __name__ == "__main__":
    main()
