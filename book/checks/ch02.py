"""The closing checks of book/02_bulk_law.md: the bulk law's edges against its density, the simulated spectra
of six regimes against the law and against three Marchenko-Pastur laws, the spectra of three weightings divided
by kappa, and the most-used token's threshold by two routes.

``results`` (recorded by the page):

* ``regimes`` (delta, gamma pairs), ``d_grid`` and ``grid/<i>`` (draws x d): the eigenvalues of S for regime
  i (T independent signs, mean pooling, mu = 0, sizes from ``sizes_for``);
* ``scale_sizes`` (d, V, N), ``scale_r`` and ``scale/<weighting>`` (draws x d): the eigenvalues of S, not
  divided by kappa, for Markov signs and each of :data:`WEIGHTINGS`;
* ``heavy`` (delta, gamma) and ``d_max``: where the most-used token's threshold is checked, and the book's
  largest dimension.
"""

from __future__ import annotations

import numpy as np

from attnlib import Setting, theory
from attnlib.engine import compare
from attnlib.model import positional, weights
from attnlib.model.setting import sizes_for
from attnlib.views.tables import below

from checks import Report

T = 16
WEIGHTINGS = ("mean", "causal", "optimal")
RATIO = "distance to law / between draws"


def _edges_bound_the_density(delta: float, gamma: float) -> bool:
    """The density is positive just inside each edge and zero just outside (1e-6 of the upper edge), and the
    lower edge is 0 exactly when a ratio is 1."""
    law = theory.Bulk(delta, gamma)
    lower, upper = law.support
    step = 1e-6 * upper
    inside = law.density(np.array([lower + step, upper - step]))
    outside = law.density(np.array([lower - step, upper + step]))
    return bool(inside.min() > 0 and outside.max() == 0 and (lower == 0) == (delta == 1 or gamma == 1))


def _regimes(r: dict) -> list:
    """(setting, spectra) of each regime."""
    d, out = int(r["d_grid"]), []
    for i, (delta, gamma) in enumerate(r["regimes"]):
        V, N = sizes_for(d, delta, gamma)
        s = Setting(d=d, V=V, N=N, mu_norm2=0.0, process=positional.independent(T), weights="mean")
        out.append((s, r[f"grid/{i}"]))
    return out


def _most_used_token(r: dict) -> tuple[list, object]:
    """The relative gaps of the two routes to the most-used token's outlier threshold, and the thresholds."""
    delta, gamma = (float(x) for x in r["heavy"])
    heavy = theory.tokens.heavy_token_thresholds(delta, gamma, weights.mean(T))
    eta = gamma / delta
    at = theory.spike(eta, 1 / delta, theta=theory.thresholds(eta, 1 / delta)[1])
    share = eta * heavy.outlier_uses / T  # the token's share of the mixing bulk
    edge = delta * theory.outlier_map(theory.critical_x(eta, 1 / delta)[0], eta, 1 / delta)  # its outlier of S/kappa
    return [abs(share / at.population_eigenvalue - 1), abs(edge / theory.Bulk(delta, gamma).upper - 1)], heavy


def check(r: dict) -> Report:
    rep = Report()
    support = [_edges_bound_the_density(float(dl), float(gm)) for dl, gm in r["regimes"]]
    rep.row("edges: density > 0 inside, = 0 outside (regimes passing)", sum(support), 6, "of 6", all(support))

    ratios, zero_err, cand = {"l1": [], "ks": []}, [], []
    for s, ev in _regimes(r):
        law = compare.finite_size_law(s)
        for m in ratios:
            ratios[m].append(compare.distance_floor(ev, law, metric=m).ratio)
        rank_deficit = 1 - min(s.d, s.V - 1, s.N - 1) / s.d
        zero_err.append(max(abs(compare.zero_fraction(e) - rank_deficit) for e in ev))
        dl, gm, kap = compare.finite_size_parameters(s)
        candidates = [law, theory.MarchenkoPastur(gm, kap), theory.MarchenkoPastur(dl, kap),
                      theory.MarchenkoPastur(dl + gm, kap)]
        cand.append([compare.distance_floor(ev, c, metric="ks").ratio for c in candidates])
    cand, d = np.array(cand), int(r["d_grid"])
    rep.row("six regimes: L1 (worst)", max(ratios["l1"]), 1, RATIO, max(ratios["l1"]) < 1)
    rep.row("six regimes: KS (worst)", max(ratios["ks"]), 1, RATIO, max(ratios["ks"]) < 1)
    rep.row("six regimes: zero fraction vs rank deficit", max(zero_err) * d, 0.5, "eigenvalues",
            all(e < 0.5 / d for e in zero_err))
    rep.require(np.all(cand[:, 0] < 1), "the bulk law passes among the candidates")
    rep.row("MP candidates rejected (closest)", cand[:, 1:].min(), 1, RATIO + " (must exceed)",
            np.all(cand[:, 1:] > 1))

    d, V, N = (int(x) for x in r["scale_sizes"])
    markov = positional.markov(T, float(r["scale_r"]))
    scale = {w: Setting(d=d, V=V, N=N, mu_norm2=0.0, process=markov, weights=w) for w in WEIGHTINGS}
    unit_law = theory.Bulk(*compare.finite_size_parameters(scale["mean"])[:2])
    scaled = np.concatenate([r[f"scale/{w}"] / compare.finite_size_parameters(s)[2] for w, s in scale.items()])
    floor = compare.distance_floor(scaled, unit_law, metric="ks")
    per_weighting = floor.to_law.reshape(len(WEIGHTINGS), -1).mean(axis=1) / floor.pairs.mean()
    rep.row("three weightings after dividing by κ (worst)", per_weighting.max(), 1, RATIO,
            np.all(per_weighting < 1))

    gaps, heavy = _most_used_token(r)
    rep.row("most-used token: outlier threshold, two routes", below(max(gaps), 1e-14), 1e-12, "relative",
            max(gaps) < 1e-12)
    rep.require(np.log10(float(r["d_max"])) < heavy.outlier_log10_d < heavy.edge_log10_d,
                "the most-used token's dimensions above the book's largest d")
    return rep.done()
