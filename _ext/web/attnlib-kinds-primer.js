/*
 * attnlib-kinds-primer.js: the explorer kind "primer" of the random-matrix primer, one figure with a view
 * switch: "MP law" (the Marchenko-Pastur law MP_delta and its Stieltjes transform G on the real axis),
 * "spike" (a spike of strength theta on MP_delta: where its outlier sits, and the secular equation
 * G(lambda) = 1/theta that puts it there) and "MP ⊠ MP" (the free product MP_delta ⊠ MP_gamma against its
 * two factors, the outliers of the spike in it, and the overlaps along theta). Theory only: the primer's
 * own figures put the laws over simulated spectra.
 *
 * A classic script: it needs attnlib-theory.js, attnlib-format.js and attnlib-plot.js loaded first, and
 * adds the kind to window.attnlibWeb.kinds.
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { fmt, linspace, quantile, maxFinite } = web.format;
  const THETA_MAX = 8.0; // right end of the theta axis, as attnlib.views.controls.THETA_MAX

  /** n points on [lo, hi], dense near both ends (where a density has its square-root edges). */
  function edgeGrid(lo, hi, n) {
    return Float64Array.from(linspace(0.0, 1.0, n), (t) => lo + (hi - lo) * (1.0 - Math.cos(Math.PI * t)) / 2.0);
  }

  function labels(plot, xlabel, ylabel) {
    plot.opts = Object.assign({}, plot.opts, { xlabel, ylabel });
  }

  function outlierText(value, below) {
    return Number.isFinite(value) ? fmt(value) : `none: ${below}`;
  }

  // ------------------------------------------------------------------------------------------ the views

  const VIEWS = {
    "MP law": {
      theory(s, limits) {
        const [lo, hi] = TH.mp_edges(s.delta);
        const x = edgeGrid(lo, hi, 400);
        const axis = linspace(-0.25 * hi, 1.3 * hi, 601).filter((v) => v !== 0);
        const [re, im] = TH.mp_stieltjes_complex(axis, s.delta);
        const density = TH.mp_density(x, s.delta);
        const gEdge = TH.mp_stieltjes_complex(hi, s.delta)[0];
        const peak = 1.15 * quantile(density, 0.97);
        return {
          lo, hi, x, density, axis, re, minusImOverPi: im.map((v) => -v / Math.PI), gEdge, peak,
          atom: TH.zero_atom(s.delta, s.delta), // max(0, 1 - 1/delta): the atom of MP_delta at 0
          gMax: limits.get("g", Math.max(1.25 * gEdge, peak)),
        };
      },
      draw([left, right], th, s, colors, limits) {
        labels(left, "eigenvalue λ of W", "density");
        labels(right, "λ (real axis)", "G(λ + i0)");
        const atom = th.atom > 0 ? `, atom ${fmt(th.atom)} at 0` : "";
        left.begin([0, limits.get("x", 1.08 * th.hi)], [0, limits.get("y", th.peak)],
          { title: `MP_δ, δ = ${fmt(s.delta)}: support [${fmt(th.lo)}, ${fmt(th.hi)}]${atom}` });
        left.line(th.x, th.density, { color: colors.theory });
        [th.lo, th.hi].forEach((e) => left.vline(e, { color: colors.edge, dash: "dot", width: 1.2 }));
        left.end();
        right.begin([th.axis[0], th.axis[th.axis.length - 1]], [-th.gMax, th.gMax],
          { title: "its Stieltjes transform on the real axis" });
        right.hline(0, { color: colors.edge, width: 1 });
        [th.lo, th.hi].forEach((e) => right.vline(e, { color: colors.edge, dash: "dot", width: 1.2 }));
        right.line(th.axis, th.re, { color: colors.theory });
        right.line(th.axis, th.minusImOverPi, { color: colors.mean, dash: "dash" });
        right.marker(th.hi, th.gEdge, { size: 4, color: "#000", fill: "gold" });
        right.end();
      },
      legend(th, s, colors) {
        return [["line", colors.theory, "MP_δ density; Re G(λ + i0)"], ["dash", colors.mean, "−Im G(λ + i0)/π"],
          ["dot", colors.edge, "edges (1 ∓ √δ)²"], ["o", "gold", "G at the upper edge"]];
      },
      readout(th) {
        return [
          { cells: ["support of MP_δ, (1 ∓ √δ)²", `${fmt(th.lo)}, ${fmt(th.hi)}`], key: "edges",
            values: [th.lo, th.hi] },
          { cells: ["G at the upper edge, 1/(√δ(1 + √δ))", fmt(th.gEdge)], key: "g_edge", values: [th.gEdge] },
        ];
      },
    },

    spike: {
      theory(s, limits) {
        const [lo, hi] = TH.mp_edges(s.delta);
        const sp = TH.spike(s.theta, s.delta, s.gamma, 1.0);
        const outlier = sp.population_eigenvalue;
        const x = edgeGrid(lo, hi, 400);
        const right = limits.get("x", 1.08 * maxFinite([1.6 * hi, outlier]));
        const axis = linspace(hi, right, 300);
        const gEdge = TH.mp_stieltjes_complex(hi, s.delta)[0];
        return {
          lo, hi, x, density: TH.mp_density(x, s.delta), sp, outlier, right, axis,
          g: TH.mp_stieltjes_complex(axis, s.delta)[0], gEdge, threshold: TH.thresholds(s.delta, s.gamma)[0],
          peak: 1.15 * quantile(TH.mp_density(x, s.delta), 0.97),
          gMax: limits.get("g", 1.3 * Math.max(gEdge, Math.min(1.0 / s.theta, 2.0 * gEdge))),
        };
      },
      draw([left, right], th, s, colors, limits) {
        labels(left, "eigenvalue λ of W + θĥĥᵀ", "density");
        labels(right, "λ above the bulk", "G(λ)");
        const where = Number.isFinite(th.outlier) ? `outlier at λ_pop = ${fmt(th.outlier)}`
          : `θ ≤ δ + √δ = ${fmt(th.threshold)}: no outlier`;
        const ymax = limits.get("y", th.peak);
        left.begin([0, th.right], [0, ymax], { title: `θ = ${fmt(s.theta)}, δ = ${fmt(s.delta)}: ${where}` });
        left.line(th.x, th.density, { color: colors.theory });
        left.vline(th.hi, { color: colors.edge, dash: "dot", width: 1.2 });
        left.vline(th.outlier, { color: colors.causal, dash: "dash", width: 1.8 });
        const topEigenvalue = Number.isFinite(th.outlier) ? th.outlier : th.hi;
        left.marker(topEigenvalue, 0.06 * ymax, { size: 5, color: "#000", fill: "gold" });
        left.end();
        right.begin([th.hi, th.right], [0, th.gMax], { title: "the secular equation G(λ) = 1/θ" });
        right.line(th.axis, th.g, { color: colors.theory });
        right.hline(th.gEdge, { color: colors.edge, dash: "dot", width: 1.2 });
        right.hline(1.0 / s.theta, { color: colors.causal, dash: "dash", width: 1.5 });
        right.marker(th.outlier, 1.0 / s.theta, { size: 5, color: "#000", fill: "gold" });
        right.end();
      },
      legend(th, s, colors) {
        return [["line", colors.theory, "MP_δ density; G(λ) above the bulk"],
          ["dot", colors.edge, "upper edge; G there"], ["dash", colors.causal, "outlier λ_pop; the level 1/θ"],
          ["o", "gold", "the top eigenvalue (λ_pop, or the edge b)"]];
      },
      readout(th) {
        const p = th.sp;
        return [
          { cells: ["threshold θ_pop = δ + √δ", fmt(th.threshold)], key: "threshold", values: [th.threshold] },
          { cells: ["outlier λ_pop = (x+1)(x+δ)/x, x = θ − δ",
            outlierText(p.population_eigenvalue, "θ ≤ θ_pop")],
            key: "outlier", values: [p.population_eigenvalue] },
          { cells: ["cos²(v_pop, ĥ) = 1 − δ/x²", fmt(p.population_overlap)], key: "overlap",
            values: [p.population_overlap] },
        ];
      },
    },

    "MP ⊠ MP": {
      theory(s, limits) {
        const edges = TH.bulk_edges(s.delta, s.gamma, 1.0);
        const sp = TH.spike(s.theta, s.delta, s.gamma, 1.0);
        const right = limits.get("x", 1.08 * maxFinite([edges[1], TH.mp_edges(s.delta)[1], TH.mp_edges(s.gamma)[1],
          sp.sample_eigenvalue, sp.population_eigenvalue]));
        const x = linspace(0.0, right, 700);
        const laws = [TH.bulk_density(x, s.delta, s.gamma, 1.0), TH.mp_density(x, s.delta), TH.mp_density(x, s.gamma)];
        const thetaGrid = linspace(0.0, THETA_MAX, 400);
        return {
          edges, sp, right, x, laws, thresholds: TH.thresholds(s.delta, s.gamma), thetaGrid,
          curves: TH.spike(thetaGrid, s.delta, s.gamma, 1.0),
          peak: 1.1 * Math.max(...laws.map((f) => quantile(f, 0.98))),
        };
      },
      draw([left, right], th, s, colors, limits) {
        labels(left, "eigenvalue λ", "density");
        labels(right, "θ", "squared overlap with ĥ");
        const ymax = limits.get("y", th.peak);
        left.begin([0, th.right], [0, ymax], { title: `δ = ${fmt(s.delta)}, γ = ${fmt(s.gamma)}: MP_δ ⊠ MP_γ on `
          + `[${fmt(th.edges[0])}, ${fmt(th.edges[1])}]` });
        left.line(th.x, th.laws[1], { color: colors.mean, dash: "dash" });
        left.line(th.x, th.laws[2], { color: colors.optimal, dash: "dashdot" });
        left.line(th.x, th.laws[0], { color: colors.theory, width: 2 });
        left.vline(th.sp.population_eigenvalue, { color: colors.mean, dash: "dot", width: 1.5 });
        left.vline(th.sp.sample_eigenvalue, { color: colors.causal, dash: "dash", width: 1.8 });
        left.end();
        right.begin([0, THETA_MAX], [0, 1.02], { title: "sampling delays the transition" });
        th.thresholds.forEach((t, i) => right.vline(t, { color: i ? colors.causal : colors.mean, dash: "dot",
          width: 1.2 }));
        right.line(th.thetaGrid, th.curves.population_overlap, { color: colors.mean, dash: "dash" });
        right.line(th.thetaGrid, th.curves.sample_overlap, { color: colors.causal });
        right.vline(s.theta, { color: "#000", dash: "dash", width: 1 });
        right.marker(s.theta, th.sp.sample_overlap, { size: 5, color: "#000", fill: "gold" });
        right.end();
      },
      legend(th, s, colors) {
        return [["line", colors.theory, "MP_δ ⊠ MP_γ"], ["dash", colors.mean, "MP_δ; cos²(v_pop, ĥ)"],
          ["dashdot", colors.optimal, "MP_γ"], ["dot", colors.mean, "λ_pop; θ_pop"],
          ["line", colors.causal, "outlier of S; cos²(v̂, ĥ); θ_smp"], ["o", "gold", "θ of the slider"]];
      },
      readout(th) {
        const [pop, smp] = th.thresholds;
        const p = th.sp;
        return [
          { cells: ["edges of MP_δ ⊠ MP_γ", `${fmt(th.edges[0])}, ${fmt(th.edges[1])}`], key: "edges",
            values: th.edges },
          { cells: ["thresholds θ_pop = δ + √δ, θ_smp = δ + x*", `${fmt(pop)}, ${fmt(smp)}`], key: "thresholds",
            values: [pop, smp] },
          { cells: ["outlier of S, cos²(v̂, ĥ)", `${outlierText(p.sample_eigenvalue, "θ ≤ θ_smp")}, `
            + `${fmt(p.sample_overlap)}`], key: "sample", values: [p.sample_eigenvalue, p.sample_overlap] },
        ];
      },
    },
  };

  // ----------------------------------------------------------------------------------------- the kind

  const KINDS = {
    primer: {
      panels: [{ ratio: 1, xlabel: "λ", ylabel: "density" }, { ratio: 1, xlabel: "λ", ylabel: "G" }],
      height: 250,
      theory(s) {
        if (this.view !== s.view) this.limits = new web.plot.AxisLimits(); // each view its own axes
        this.view = s.view;
        return VIEWS[s.view].theory(s, this.limits);
      },
      draw(plots, th, s) {
        VIEWS[s.view].draw(plots, th, s, this.colors, this.limits);
      },
      legend(th, s) {
        return VIEWS[s.view].legend(th, s, this.colors);
      },
      readout(th, s) {
        return VIEWS[s.view].readout(th, s);
      },
    },
  };
  web.kinds = Object.assign(web.kinds || {}, KINDS);
})(window);
