"""attnlib's numbers for the read-out of every live figure kind, and the comparison with what a page shows.

Used by test_live_explorers.py: each read-out row of a live figure carries ``data-key`` and ``data-values`` (the
full-precision numbers behind its text); :func:`readout_problems` compares them with :func:`expected`, computed
here from attnlib alone, to a relative difference of ``TOLERANCE``, and checks that the text prints each number
as attnlib's explorers print it (3 significant digits).
"""

from __future__ import annotations

import numpy as np

from attnlib.views import explorers
from attnlib.model import positional, weights
from attnlib import theory
from attnlib.views.figures.canvas import fmt

TOLERANCE = 1e-9


def _process(s):
    return positional.family(s["family"], s["T"], **{k: s[k] for k in positional.PARAMETERS if k in s})


def expected(kind: str, s: dict, f: dict) -> dict:
    """The read-out rows' numbers (key -> list) that attnlib gives for the state ``s`` (fixed parameters ``f``)."""
    if kind == "spectrum":
        th = explorers.spectrum_theory(explorers.SpectrumState(**s))
        out = {"alpha_kappa": [th["alpha"], th["kappa"]], "theta": [th["theta"]], "thresholds": list(th["thresholds"]),
               "edges": list(th["edges"]), "outlier": [th["signal"].sample_eigenvalue],
               "overlaps": [th["signal_h"].sample_overlap, th["signal"].sample_overlap]}
        if th["mean"] is not None:
            out["mean_spike"] = [th["mean"].theta, th["mean"].sample_eigenvalue]
        return out
    if kind == "phase":
        th = explorers.phase_theory(explorers.PhaseState(**s))
        sp = th["spike"]
        return {"region": [th["region_code"]], "thresholds": list(th["thresholds_here"]),
                "population": [sp.population_eigenvalue, sp.population_overlap],
                "sample": [sp.sample_eigenvalue, sp.sample_overlap],
                "edge": [theory.Bulk(s["delta"], s["gamma"]).upper]}
    if kind == "weights":
        th = explorers.weights_theory(explorers.WeightsState(**s))
        return {**{name: list(v) for name, v in th["scalars"].items()}, "lambda_max": [th["lambda_max"]]}
    if kind == "bulk":
        return {"edges": list(theory.Bulk(s["delta"], s["gamma"]).support),
                "atom": [theory.Bulk(s["delta"], s["gamma"]).atom]}
    if kind in ("population_recovery", "sample_recovery"):
        population = kind == "population_recovery"
        gamma = 1.0 if population else s["gamma"]
        process = _process({**s, **f})
        out = {}
        for name in weights.NAMED:
            w, _ = weights.named(name, process, f["tau"])
            a, k = weights.alpha(w, process.R), weights.kappa(w)
            sp = theory.signal(s["delta"], gamma, a, k, s["mu_norm2"])
            out[name] = [a / k, theory.signal_thresholds(s["delta"], gamma, a, k)[0 if population else 1],
                         (sp.population_eigenvalue if population else sp.sample_eigenvalue) / k,
                         sp.population_overlap if population else sp.sample_overlap]
        edge = theory.MarchenkoPastur(s["delta"]).upper if population else theory.Bulk(s["delta"], gamma).upper
        out["edge"] = [edge, s["mu_norm2"] / (s["mu_norm2"] + s["delta"])]
        return out
    if kind == "primer":
        return _primer(s)
    if kind == "heads":  # the "heads" explorer: each spike's threshold, outlier and overlap, the bulk edge
        from attnlib.theory import heads as theory_heads
        from attnlib.views import webstills

        R, W = _process({**s, **f}).R, webstills.heads_matrix(s, f["T"])
        thr = theory_heads.head_thresholds(s["delta"], s["gamma"], R=R, W=W)[1]
        sp = theory_heads.signal_spikes(s["delta"], s["gamma"], R=R, W=W, mu_norm2=s["mu_norm2"])
        out = {f"spike-{k + 1}": [thr[k], sp.sample_eigenvalue[k], sp.sample_overlap[k]] for k in range(thr.size)}
        out["edge"] = [theory.HeadsBulk(s["delta"], s["gamma"], W.T @ W).upper]
        return out
    assert kind == "family", kind
    process = _process({**f, **s})
    out = {}
    for name in weights.NAMED:
        w, _ = weights.named(name, process)
        a, k = weights.alpha(w, process.R), weights.kappa(w)
        out[name] = [a, k, a / k, theory.signal(f["delta"], f["gamma"], a, k, f["mu_norm2"]).sample_overlap]
    out["lambda_max"] = [float(np.linalg.eigvalsh(process.R)[-1])]
    return out


def _primer(s: dict) -> dict:
    """The primer's read-out, which depends on its view (the Marchenko-Pastur law, a spike, the free product)."""
    view, delta, gamma = s["view"], s["delta"], s["gamma"]
    if view == "MP law":
        lo, hi = theory.MarchenkoPastur(delta).support
        return {"edges": [lo, hi], "g_edge": [theory.mp_stieltjes_complex(hi, delta).real]}
    sp = theory.spike(delta, gamma, theta=s["theta"])
    if view == "spike":
        return {"threshold": [theory.thresholds(delta, gamma)[0]], "outlier": [sp.population_eigenvalue],
                "overlap": [sp.population_overlap]}
    assert view == "MP ⊠ MP", view
    return {"edges": list(theory.Bulk(delta, gamma).support), "thresholds": list(theory.thresholds(delta, gamma)),
            "sample": [sp.sample_eigenvalue, sp.sample_overlap]}


def readout_problems(kind: str, state: dict, fixed: dict, rows: list[dict]) -> list[str]:
    """Differences between the page's read-out (data-values and text) and attnlib's numbers."""
    shown = {row["key"]: row for row in rows}
    problems = []
    for key, values in expected(kind, state, fixed).items():
        if key not in shown:
            problems.append(f"{kind}: read-out row {key!r} missing")
            continue
        js = shown[key]["values"]
        if len(js) != len(values):
            problems.append(f"{kind}: {key} has {len(js)} values, attnlib {len(values)}")
            continue
        for v_js, v in zip(js, values):
            v = float(v)
            if not np.isfinite(v):
                if v_js is not None:
                    problems.append(f"{kind}: {key}: page shows {v_js}, attnlib has no value")
            elif v_js is None or abs(v_js - v) > TOLERANCE * abs(v):
                problems.append(f"{kind}: {key}: page {v_js!r} != attnlib {v!r}")
            elif kind != "phase" or key != "region":
                if fmt(v) not in shown[key]["text"]:
                    problems.append(f"{kind}: {key}: text {shown[key]['text']!r} lacks attnlib's {fmt(v)!r}")
    return problems
