"""The closing checks of book/08_explore.md: what the three explorers show in their checked start states
against the theory, and the spectrum explorer's simulated draw against further draws.

``results`` (recorded by the page):

* the start states of the three explorers, field by field: ``spectrum/<field>``, ``phase/<field>``,
  ``weights/<field>`` (:func:`fields`);
* what the page showed: the spectrum explorer's density curve ``x``, ``explorer`` and its still's ``still``;
  the figure's draw at ``sim_d`` (``draw/top``, ``draw/overlap_h``) and the live figure's ``live/top``; the
  phase explorer's thresholds ``phase/thresholds``; ``mismatches``, the live figures whose start state differs
  from the checked one;
* ``n_spread`` further draws at ``sim_d``: ``mean/<stat>`` and ``sd/<stat>`` of ``top``, ``second``,
  ``overlap_h``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from attnlib import theory
from attnlib.views import explorers

from checks import Report

STATES = {"spectrum": explorers.SpectrumState, "phase": explorers.PhaseState, "weights": explorers.WeightsState}


def fields(kind: str, state) -> dict:
    """The fields of an explorer's state, keyed ``<kind>/<field>`` (what :func:`check` rebuilds it from)."""
    return {f"{kind}/{f.name}": getattr(state, f.name) for f in dataclasses.fields(state)}


def _state(r: dict, kind: str):
    cls = STATES[kind]
    return cls(**{f.name: r[f"{kind}/{f.name}"] for f in dataclasses.fields(cls)})


def check(r: dict) -> Report:
    rep = Report()
    state, n, root_n = _state(r, "spectrum"), int(r["n_spread"]), np.sqrt(int(r["n_spread"]))
    spec = explorers.spectrum_theory(state)
    exact = theory.Bulk(state.delta, state.gamma, spec["kappa"]).density(r["x"]) / (1 - spec["atom"])
    bulk_gap = max(np.abs(r["explorer"] - exact).max(), np.abs(r["still"] - exact).max()) / exact.max()
    sim = explorers.simulation_setting(state, int(r["sim_d"]))
    predicted = sim.signal().sample_eigenvalue
    rho_spike = theory.spike(sim.delta, sim.gamma, theta=theory.paper_rho(sim.alpha, sim.kappa, sim.mu_norm2),
                             kappa=sim.kappa)
    draw_top = abs(r["draw/top"] - predicted) / r["sd/top"]
    draw_overlap = abs(r["draw/overlap_h"] - spec["signal_h"].sample_overlap) / r["sd/overlap_h"]
    mean_top = abs(r["mean/top"] - predicted) / (r["sd/top"] / root_n)
    rho_gap = abs(r["mean/top"] - rho_spike.sample_eigenvalue) / (r["sd/top"] / root_n)
    edge_gap = abs(r["mean/second"] - spec["edges"][1]) / r["sd/second"]
    live_gap = abs(r["live/top"] - r["draw/top"]) / r["draw/top"]
    phase_state = _state(r, "phase")
    thresholds = theory.thresholds(phase_state.delta, phase_state.gamma)
    phase_gap = np.abs(np.subtract(r["phase/thresholds"], thresholds)).max()
    region = explorers.phase_theory(phase_state)["region"]
    weights_state = _state(r, "weights")
    lam_max = np.linalg.eigvalsh(weights_state.process().R)[-1]
    scalars = explorers.weights_theory(weights_state)["scalars"]
    optimal_gap = abs(scalars["optimal"][2] - lam_max) / lam_max
    beat = max(s[2] for s in scalars.values()) - lam_max

    sd = f"sd of {n} draws"
    rep.row("explorer and still draw the bulk law", bulk_gap, 1e-12, "relative", bulk_gap <= 1e-12)
    rep.row("figure's draw: top eigenvalue", draw_top, 5, sd, draw_top < 5)
    rep.row("figure's draw: cos² with h", draw_overlap, 5, sd, draw_overlap < 5)
    rep.row(f"{n} draws: mean top eigenvalue vs outlier", mean_top, 4, "standard errors", mean_top < 4)
    rep.row(f"{n} draws vs the paper's ρ (must exceed)", rho_gap, "> 4", "standard errors", rho_gap > 4)
    rep.row(f"{n} draws: mean second eigenvalue vs edge", edge_gap, 4, sd, edge_gap < 4)
    rep.row("live figure carries the figure's draw", live_gap, 1e-5, "relative (6 digits)", live_gap <= 1e-5)
    rep.row("phase diagram: thresholds", phase_gap, 0, "absolute", phase_gap == 0)
    rep.require(region == "sample", "the phase explorer's start point in the sample region")
    rep.row("optimal α/κ vs λmax(R)", optimal_gap, 1e-12, "relative", optimal_gap <= 1e-12)
    rep.row("largest α/κ above λmax(R)", beat, 1e-12, "absolute", beat <= 1e-12)
    rep.row("live figures off their checked states", int(r["mismatches"]), 0, "count", r["mismatches"] == 0)
    rep.glue(edge_gap=edge_gap)
    return rep.done()
