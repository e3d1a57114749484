r"""The still images of the live figures (:mod:`attnlib.views.webexplorer`): what a printed book shows instead.

Each ``*_still`` function draws the figure of a payload (:func:`attnlib.views.webexplorer.payload`) in its
starting state, as a matplotlib figure: the same curves as the live figure (from :mod:`attnlib.theory` and
:mod:`attnlib.model.weights`) and the same simulated overlay (the payload's, at that state); the record of a kind
(:data:`attnlib.views.webexplorer.KINDS`) names its function. The three explorers ("spectrum", "phase",
"weights") are drawn by :mod:`attnlib.views.figures` (the explorers' figures); the other kinds here.

Figures are made without pyplot (or closed from it at once), so that a notebook cell that builds one does not
also show it; legends sit below the axes, clear of the titles.
"""

from __future__ import annotations

import numpy as np

from attnlib.model import heads as _heads
from attnlib.model import positional
from attnlib import theory
from attnlib.theory import heads as _theory_heads
from attnlib.model import weights as _w
from attnlib.views import controls, figures
from attnlib.views.plotting import COLORS

__all__ = ["spectrum_still", "phase_still", "weights_still", "bulk_still", "recovery_still", "family_still",
           "primer_still", "heads_still", "recovery_curves", "MU2_MAX", "heads_matrix", "heads_curves"]

#: Right end of the ||mu||^2 axis of the recovery figures (the read-out's ||mu||^2 widens it).
MU2_MAX = 2.0
_SIM_COLOR = "#9ecae1"
_WIDTH = 6.6


def _figure(ncols: int, height: float = 3.0):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(_WIDTH, height), dpi=100, layout="constrained")
    return fig, np.atleast_1d(fig.subplots(1, ncols))


def _legend(fig, ncols: int = 3) -> None:
    handles, labels = [], []
    for ax in fig.axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(h)
                labels.append(label)
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=8)


def _from_pyplot(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)  # drawn, saved, but never shown by the notebook on its own
    return fig


def spectrum_still(data: dict):
    """The spectrum explorer's figure (:mod:`attnlib.views.figures.spectrum`), with the payload's simulation."""
    s, sims = data["state"], data["simulations"]
    spectrum = figures.spectrum
    return _from_pyplot(spectrum.spectrum_figure(spectrum.SpectrumState(**s), simulate_d=sims["d"],
                                                 seed=sims["seed"])[0])


def phase_still(data: dict):
    """The phase explorer's figure (:mod:`attnlib.views.figures.phase`)."""
    return _from_pyplot(figures.phase.phase_figure(figures.phase.PhaseState(**data["state"]))[0])


def weights_still(data: dict):
    """The weights explorer's figure (:mod:`attnlib.views.figures.weights`)."""
    return _from_pyplot(figures.weights.weights_figure(figures.weights.WeightsState(**data["state"]))[0])


def bulk_still(data: dict):
    """The bulk law MP_delta ⊠ MP_gamma over the payload's simulated spectrum."""
    s, sims = data["state"], data["simulations"]
    law = theory.Bulk(s["delta"], s["gamma"])
    (lo, hi), atom = law.support, law.atom
    x = np.linspace(lo, hi, 600)
    fig, (ax,) = _figure(1, 3.2)
    draw = next((d for d in sims["draws"] if d["state"] == {"delta": s["delta"], "gamma": s["gamma"]}), None)
    if draw is not None:
        h = draw["hist"]
        edges = np.linspace(*h["range"], len(h["counts"]) + 1)
        heights = np.asarray(h["counts"]) / (h["n"] * np.diff(edges))
        ax.bar(edges[:-1], heights, width=np.diff(edges), align="edge", color=_SIM_COLOR, edgecolor="white",
               linewidth=0.3, label=f"simulated non-zero eigenvalues / κ (d = {sims['d']})")
    ax.plot(x, law.density(x) / (1 - atom), color=COLORS["theory"],
            label=r"$\mathrm{MP}_\delta\boxtimes\mathrm{MP}_\gamma$, continuous part")
    for i, edge in enumerate((lo, hi)):
        ax.axvline(edge, color=COLORS["edge"], ls=":", lw=1.2, label="edges" if i == 0 else None)
    ax.set(xlabel="eigenvalue / κ", ylabel="density (non-zero part)", xlim=(0, 1.08 * hi),
           title=f"δ = {s['delta']:g}, γ = {s['gamma']:g}: atom at 0 of mass {atom:.3g}")
    _legend(fig)
    return fig


def recovery_curves(level: str, state: dict, fixed: dict, mu2) -> dict:
    """What the recovery figures draw, from attnlib: for each of mean, causal and optimal pooling (R of the
    state's family, ``fixed`` T and tau), alpha/kappa, the ||mu||^2 threshold at the ``level`` ("population"
    or "sample") and, along ``mu2``, the outlier in units of kappa and cos^2 with u."""
    level = 0 if level == "population" else 1
    gamma = state.get("gamma", 1.0)
    process = positional.family(state["family"], fixed["T"], **controls.family_parameters(state))
    out = {}
    for name in _w.NAMED:
        w, _ = _w.named(name, process, fixed["tau"])
        alpha, kappa = _w.alpha(w, process.R), _w.kappa(w)
        sig = theory.signal(state["delta"], gamma, alpha, kappa, mu2)
        out[name] = {"snr": alpha / kappa,
                     "threshold": theory.signal_thresholds(state["delta"], gamma, alpha, kappa)[level],
                     "outlier": (sig.population_eigenvalue if level == 0 else sig.sample_eigenvalue) / kappa,
                     "overlap": sig.population_overlap if level == 0 else sig.sample_overlap}
    return out


def recovery_still(data: dict):
    """The recovery figure (population or sample level, the payload's): outliers and cos^2 with u along
    ||mu||^2 for mean, causal and optimal pooling (:func:`recovery_curves`), with the simulated points."""
    s, f, sims = data["state"], data["fixed"], data["simulations"]
    level = sims["level"]
    population = level == "population"
    mu2 = np.linspace(0.0, max(MU2_MAX, s["mu_norm2"]), 400)
    curves = recovery_curves(level, s, f, mu2)
    gamma = s.get("gamma", 1.0)
    edge = theory.MarchenkoPastur(s["delta"]).upper if population else theory.Bulk(s["delta"], gamma).upper
    sim = next((x for x in sims["settings"] if x["state"] == {k: s[k] for k in x["state"]}), None)
    fig, (left, right) = _figure(2, 3.4)
    left.axhline(edge, color=COLORS["edge"], ls=":", lw=1.2, label="bulk edge")
    right.plot(mu2, mu2 / (mu2 + s["delta"]), color=COLORS["edge"], ls="--", lw=1.2,
               label="ceiling ‖μ‖²/(‖μ‖²+δ)")
    for name, c in curves.items():
        color = COLORS[name]
        label = f"{name}{' (τ = %g)' % f['tau'] if name == 'causal' else ''}: α/κ = {c['snr']:.3g}"
        left.plot(mu2, c["outlier"], color=color, label=label, gid=f"outlier-{name}")
        right.plot(mu2, c["overlap"], color=color, gid=f"overlap-{name}")
        right.axvline(c["threshold"], color=color, ls=":", lw=1.0, gid=f"threshold-{name}")
        if sim is not None:
            pts = np.asarray(sim["curves"][name], dtype=float)
            for ax, col in ((left, 1), (right, 3)):
                ax.errorbar(pts[:, 0], pts[:, col], yerr=pts[:, col + 1], fmt="s", ms=3.5, color=color,
                            mfc="white", lw=1)
    threshold = r"$\|\mu\|^2_{\rm pop}$" if population else r"$\|\mu\|^2_{\rm smp}$"
    right.plot([], [], color="#555555", ls=":", lw=1.0, label=f"{threshold}: its outlier appears")
    if sim is not None:
        right.plot([], [], ls="none", marker="s", ms=4, color="#555555", mfc="white",
                   label=f"simulated (d = {sims['d']}), mean ± sd")
    stage = "the population covariance" if population else "S"
    family = positional.family(s["family"], f["T"], **controls.family_parameters(s)).name
    left.set(xlabel="‖μ‖²", ylabel="λ_pop / κ" if population else "λ₁ / κ", title=f"top eigenvalue of {stage}")
    right.set(xlabel="‖μ‖²", ylabel=f"cos²({'v_pop' if population else 'v̂'}, u)", ylim=(0, 1.02),
              title=f"{family}, δ = {s['delta']:g}" + ("" if population else f", γ = {gamma:g}"))
    for ax in (left, right):
        ax.set_xlim(0, mu2[-1])
        ax.title.set_fontsize(9)
    _legend(fig)
    return fig


def family_still(data: dict):
    """The weights of an R family and the recovery cos^2(v_hat, u) they give, with the simulated points."""
    from matplotlib.ticker import MaxNLocator

    s, f, sims = data["state"], data["fixed"], data["simulations"]
    process = positional.family(s["family"], f["T"], **controls.family_parameters(s))
    lam = float(np.linalg.eigvalsh(process.R)[-1])
    grid = np.linspace(0, 1.15 * lam, 300)
    fig, (prof, curve) = _figure(2, 3.3)
    pos = np.arange(1, f["T"] + 1)
    curve.plot(grid, theory.signal(f["delta"], f["gamma"], grid, 1.0, f["mu_norm2"]).sample_overlap,
               color=COLORS["theory"], label="predicted cos²(v̂, u)")
    curve.axvline(lam, color=COLORS["optimal"], ls=":", lw=1.2, label="λmax(R)")
    for name in _w.NAMED:
        w, _ = _w.named(name, process)
        snr = _w.snr(w, process.R)
        prof.plot(pos, w, "o-", ms=3, lw=1.2, color=COLORS[name], label=name)
        curve.plot([snr], [theory.signal(f["delta"], f["gamma"], snr, 1.0, f["mu_norm2"]).sample_overlap], "o",
                   color=COLORS[name], ms=6)
        for p in sims["points"]:
            if p["weighting"] == name and p["state"] == {k: s[k] for k in p["state"]}:
                curve.errorbar(p["snr"], p["overlap_u"][0], yerr=p["overlap_u"][1], fmt="s", ms=4, mfc="white",
                               color=COLORS[name], label=f"simulated, d = {sims['d']}" if name == "optimal" else None)
    prof.xaxis.set_major_locator(MaxNLocator(integer=True))
    prof.set(xlabel="position t", ylabel="weight w_t (sum 1)", title=process.name)
    curve.set(xlabel="α/κ", ylabel="cos²(v̂, u)", ylim=(0, 1.02), xlim=(0, grid[-1]),
              title=f"δ = {f['delta']:g}, γ = {f['gamma']:g}, ‖μ‖² = {f['mu_norm2']:g}")
    for ax in (prof, curve):
        ax.title.set_fontsize(9)
    _legend(fig)
    return fig


def _primer_law(left, right, delta):
    law = theory.MarchenkoPastur(delta)
    lo, hi = law.support
    x = lo + (hi - lo) * (1 - np.cos(np.pi * np.linspace(0, 1, 400))) / 2  # dense near the edges
    axis = np.linspace(-0.25 * hi, 1.3 * hi, 601)
    axis = axis[axis != 0]  # G has its pole or branch point at 0
    G = theory.mp_stieltjes_complex(axis, delta)
    left.plot(x, law.density(x), color=COLORS["theory"], label="MP_δ density; Re G(λ + i0)")
    right.plot(axis, G.real, color=COLORS["theory"])
    right.plot(axis, -G.imag / np.pi, color=COLORS["mean"], ls="--", label="−Im G(λ + i0)/π")
    right.axhline(0, color=COLORS["edge"], lw=1)
    g_edge = theory.mp_stieltjes_complex(hi, delta).real
    right.set(ylim=(-1.3 * g_edge, 1.3 * g_edge), xlabel="λ (real axis)", ylabel="G(λ + i0)",
              title="its Stieltjes transform on the real axis")
    left.set(xlabel="eigenvalue λ of W", ylabel="density", title=f"MP_δ, δ = {delta:g}")


def _primer_spike(left, right, delta, theta):
    law = theory.MarchenkoPastur(delta)
    lo, hi = law.support
    x = np.linspace(lo, hi, 400)
    top = theory.spike(delta, 1.0, theta=theta).population_eigenvalue  # nan below the threshold
    axis = np.linspace(hi, 1.08 * np.nanmax([1.6 * hi, top]), 300)
    left.plot(x, law.density(x), color=COLORS["theory"], label="MP_δ density; G(λ) above the bulk")
    left.axvline(top, color=COLORS["causal"], ls="--", lw=1.5, label="outlier λ_pop; the level 1/θ")
    right.plot(axis, theory.mp_stieltjes_complex(axis, delta).real, color=COLORS["theory"])
    if theta > 0:
        right.axhline(1 / theta, color=COLORS["causal"], ls="--", lw=1.5)
    left.set(xlabel="eigenvalue λ of W + θĥĥᵀ", ylabel="density", title=f"θ = {theta:g}, δ = {delta:g}")
    right.set(xlabel="λ above the bulk", ylabel="G(λ)", title="the secular equation G(λ) = 1/θ")


def _primer_product(left, right, delta, gamma, theta):
    sp = theory.spike(delta, gamma, theta=theta)
    mp_d, mp_g, bulk = theory.MarchenkoPastur(delta), theory.MarchenkoPastur(gamma), theory.Bulk(delta, gamma)
    right_end = np.nanmax([bulk.upper, mp_d.upper, mp_g.upper, sp.sample_eigenvalue])
    grid = np.linspace(0, 1.08 * right_end, 700)
    left.plot(grid, mp_d.density(grid), color=COLORS["mean"], ls="--", label="MP_δ")
    left.plot(grid, mp_g.density(grid), color=COLORS["optimal"], ls="-.", label="MP_γ")
    left.plot(grid, bulk.density(grid), color=COLORS["theory"], lw=2, label="MP_δ ⊠ MP_γ")
    left.axvline(sp.sample_eigenvalue, color=COLORS["causal"], ls="--", lw=1.5, label="outlier of S")
    thetas = np.linspace(0, controls.THETA_MAX, 400)
    curves = theory.spike(delta, gamma, theta=thetas)
    right.plot(thetas, curves.population_overlap, color=COLORS["mean"], ls="--", label="cos²(v_pop, ĥ)")
    right.plot(thetas, curves.sample_overlap, color=COLORS["causal"], label="cos²(v̂, ĥ)")
    right.axvline(theta, color="black", ls="--", lw=1)
    left.set(xlabel="eigenvalue λ", ylabel="density", title=f"δ = {delta:g}, γ = {gamma:g}")
    right.set(xlabel="θ", ylabel="squared overlap with ĥ", ylim=(0, 1.02), title="sampling delays the transition")


def primer_still(data: dict):
    """The primer's figure in its starting view (the same curves as the live figure, from attnlib.theory)."""
    s = data["state"]
    fig, (left, right) = _figure(2, 3.2)
    if s["view"] == controls.PRIMER_VIEWS[0]:
        _primer_law(left, right, s["delta"])
    elif s["view"] == controls.PRIMER_VIEWS[1]:
        _primer_spike(left, right, s["delta"], s["theta"])
    else:
        _primer_product(left, right, s["delta"], s["gamma"], s["theta"])
    for ax in (left, right):
        ax.title.set_fontsize(9)
    _legend(fig)
    return fig


def heads_matrix(state: dict, T: int) -> np.ndarray:
    """The heads (T x H) of the "heads" explorer: causal limit weights at tau1..tauH, heads 2 and 4 reversed
    (anti-causal) when ``anticausal``."""
    H = int(state["heads"])
    reversed_heads = tuple(j for j in (1, 3) if j < H) if state["anticausal"] else ()
    return _heads.causal_heads(T, [state[f"tau{j}"] for j in range(1, H + 1)], reversed_heads=reversed_heads)


def heads_curves(state: dict, fixed: dict, points: int = 200) -> dict:
    """The theory of the "heads" figure: each spike's sample outlier along ||mu||^2 (parametrised by the
    population outlier, ``attnlib.theory.heads.spike_curves``), the thresholds, the bulk edge, and the top
    spike's threshold with the first 1..H heads."""
    R = positional.family(state["family"], fixed["T"], **controls.family_parameters(state)).R
    W = heads_matrix(state, fixed["T"])
    delta, gamma = state["delta"], state["gamma"]
    A, B = _theory_heads.head_matrices(R, W)
    y_star = _theory_heads.critical_point(B, delta, gamma)
    top = max(2.0 * y_star, 2.0 * np.linalg.eigvalsh(A)[-1] * (max(MU2_MAX, state["mu_norm2"]) + delta))
    ells = y_star * (1.0 + np.geomspace(1e-8, top / y_star - 1.0, points))
    curves = _theory_heads.spike_curves(delta, gamma, R=R, W=W, ells=ells)
    nested = [_theory_heads.head_thresholds(delta, gamma, R=R, W=W[:, :h])[1] for h in range(1, W.shape[1] + 1)]
    return {"W": W, "curves": curves, "thresholds": _theory_heads.head_thresholds(delta, gamma, R=R, W=W)[1],
            "edge": theory.HeadsBulk(delta, gamma, B).upper, "nested": nested,
            "spikes": _theory_heads.signal_spikes(delta, gamma, R=R, W=W, mu_norm2=state["mu_norm2"])}


def heads_still(data: dict):
    """The spikes of concatenated causal heads along ||mu||^2 (:func:`heads_curves`) and the threshold as heads
    are added, with the simulated outliers."""
    s, f, sims = data["state"], data["fixed"], data["simulations"]
    th = heads_curves(s, f)
    colors = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")
    fig, (left, right) = _figure(2, 3.4)
    left.axhline(th["edge"], color=COLORS["edge"], ls=":", lw=1.2, label="bulk edge")
    for k in range(th["curves"]["mu2"].shape[0]):
        left.plot(th["curves"]["mu2"][k], th["curves"]["sample"][k], color=colors[k], label=f"spike {k + 1}")
        if np.isfinite(th["thresholds"][k]):
            left.axvline(th["thresholds"][k], color=colors[k], ls=":", lw=1.0)
    sim = next((x for x in sims["settings"] if x["state"] == {k: s[k] for k in x["state"]}), None)
    if sim is not None:
        for mu2, tops in sim["points"]:
            for k, (mean, sd) in enumerate(tops):
                left.errorbar(mu2, mean, yerr=sd, fmt="s", ms=3.5, color="#555555", mfc="white", lw=1,
                              label=f"simulated (d = {sims['d']})" if k == 0 and mu2 == sim["points"][0][0] else None)
    left.axvline(s["mu_norm2"], color="#000000", ls="--", lw=1)
    left.set(xlim=(0, max(MU2_MAX, s["mu_norm2"]) * 1.5), xlabel="‖μ‖²", ylabel="outliers of S",
             title="the spikes of the concatenated heads")
    heads = np.arange(1, len(th["nested"]) + 1)
    for k in range(min(2, len(th["nested"]))):
        right.plot(heads[k:], [t[k] for t in th["nested"][k:]], "o-", color=colors[k], ms=4)
    right.set(xlabel="heads used (the first H)", ylabel="‖μ‖² threshold", xticks=heads,
              title=f"{s['family']}, δ = {s['delta']:g}, γ = {s['gamma']:g}")
    for ax in (left, right):
        ax.title.set_fontsize(9)
    _legend(fig, 4)
    return fig
