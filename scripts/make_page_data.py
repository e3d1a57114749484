#!/usr/bin/env python
"""Regenerate the stored runs of four pages: book/data/downstream.npz, attention_layer.npz and token_edges.npz.

Usage:
    python scripts/make_page_data.py                # the three files, in two processes (`make data` runs it)
    python scripts/make_page_data.py token_edges    # some of them

* ``downstream.npz``: the downstream experiment of Section 6 (:func:`attnlib.studies.experiment.run_experiment`)
  that the chapter "Experiments" shows, and the weights derivations page again for three of its weightings:
  a sweep of the training size (key prefix ``n/``) and one of ||mu||^2 (``mu0/``, ``mu1/``, ...).
* ``attention_layer.npz``: the scan of a real attention layer against its limit weights over d
  (:func:`attnlib.studies.real_layer.layer_scan`) of the chapter "Attention in practice" (``scan/``).
* ``token_edges.npz``: the edge of the bulk given the tokens of each draw
  (:func:`attnlib.studies.token_mixing.token_edges`) of the chapter "How large is large?" (``tok/<d>_<T>``).

Both run as the pages run (one BLAS thread, attnlib on one thread, a fixed hash seed), so a page that reads a
file prints what it printed when it ran the same call itself, bit for bit on the machine that made the file.
Each page re-runs the first draw (a vocabulary, a layer draw) from its seed and compares. Every file records
its settings, the versions it was made with and the time it took.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "ATTNLIB_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("ATTNLIB_PROGRESS", "0")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from attnlib.model import positional, weights  # noqa: E402
from attnlib.studies import experiment, real_layer, token_mixing  # noqa: E402
from scripts.make_data import versions  # noqa: E402

DATA = REPO / "book" / "data"
T, L = 16, 4
# The chapter "Experiments": four weightings, d = 400, V = 800, 3000 test and 20 anchor sequences, 8 vocabularies.
DOWNSTREAM = dict(d=400, V=800, n_test=3000, vocabularies=8, n_anchor=20, mu_norm2=0.5,
                  n_train=(100, 200, 400, 800, 1600, 3200), seed_n=3, mu_sweep=(0.0, 0.25, 0.5, 1.0, 1.5),
                  n_train_mu=800, seed_mu=4)
# The chapter "Attention in practice": the layer at tau = 1 against its limit weights, 8 draws per d.
LAYER = dict(tau=1.0, mu_norm2=1.0, delta=0.5, gamma=2.0, dims=(250, 500, 1000, 2000, 4000), draws=8, seed=1001)
# The chapter "How large is large?": mean pooling of T tokens, no signal, draws at each d from rng [seed, d, T].
TOKENS = dict(ds=(125, 250), Ts=(4, 16), draws=(300, 150), delta=0.5, gamma=0.25, seed=95)


def schemes() -> dict:
    process = positional.prefix(T, L)
    return {"mean": weights.mean(T), "causal": weights.causal(T), "optimal": weights.optimal(process.R),
            "first token": np.eye(T)[0]}


def downstream() -> dict:
    process, c = positional.prefix(T, L), DOWNSTREAM
    base = dict(d=c["d"], V=c["V"], n_test=c["n_test"], vocabularies=c["vocabularies"], n_anchor=c["n_anchor"])
    out = experiment.run_experiment(process, schemes(), mu_norm2=c["mu_norm2"], n_train=list(c["n_train"]),
                                    seed=c["seed_n"], **base).arrays("n/")
    for i, m in enumerate(c["mu_sweep"]):
        out.update(experiment.run_experiment(process, schemes(), mu_norm2=m, n_train=[c["n_train_mu"]],
                                             seed=c["seed_mu"], **base).arrays(f"mu{i}/"))
    return out


def attention_layer() -> dict:
    c = LAYER
    scan = real_layer.layer_scan(positional.prefix(T, L), np.array(c["dims"]), c["tau"], draws=c["draws"],
                                 seed=c["seed"], reference=weights.causal(T, c["tau"]), delta=c["delta"],
                                 gamma=c["gamma"], mu_norm2=c["mu_norm2"])
    return scan.arrays("scan/")


def token_edges() -> dict:
    c = TOKENS
    return {f"tok/{d}_{t}": token_mixing.token_edges(d, int(d / c["delta"]), int(d / c["gamma"]), weights.mean(t),
                                                     np.random.default_rng([c["seed"], d, t]), n)
            for d, n in zip(c["ds"], c["draws"]) for t in c["Ts"]}


RUNS = {"downstream": (downstream, DOWNSTREAM), "attention_layer": (attention_layer, LAYER),
        "token_edges": (token_edges, TOKENS)}


def timed(name: str):
    start = time.time()
    arrays = RUNS[name][0]()
    return arrays, time.time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", help=f"files to make, of {', '.join(RUNS)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.files) - set(RUNS))
    if unknown:
        parser.error(f"unknown files {unknown}; choose from {', '.join(RUNS)}")
    runs = {name: settings for name, (_, settings) in RUNS.items() if name in (args.files or RUNS)}
    DATA.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(2) as pool:
        futures = {name: pool.submit(timed, name) for name in runs}
        for name, future in futures.items():
            arrays, seconds = future.result()
            own = {"T": T, "L": L, "process": "prefix"} if name != "token_edges" else {"process": "independent"}
            meta = {"settings": {**runs[name], **own}, "versions": versions(),
                    "seconds": round(seconds, 1), "made_by": "scripts/make_page_data.py"}
            out = DATA / f"{name}.npz"
            np.savez_compressed(out, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)
            print(f"wrote {out.relative_to(REPO)} ({out.stat().st_size / 1e3:.0f} kB) in {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
