/*
 * attnlib-kinds-recovery.js: the recovery kinds "population_recovery" and "sample_recovery": how much of
 * the signal direction u = mu/||mu|| the top eigenvector recovers, and where its outlier sits, against the
 * signal strength ||mu||^2, for mean, causal and optimal pooling of one R family; at the level of the
 * population covariance (chapter 03) or of the sample covariance S (chapter 04). With simulated points.
 *
 * A classic script: it needs attnlib-theory.js, attnlib-format.js and attnlib-kinds-weights.js (the cached
 * theory of a family's R) loaded first, and adds the two kinds to window.attnlibWeb.kinds.
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { fmt, linspace, maxFinite, sameState } = web.format;
  const { correlation, familyLabel, weightsFor } = web.pooling;
  const NAMES = ["mean", "causal", "optimal"];
  const MU2_MAX = 2.0; // right end of the ||mu||^2 axis (widened by the read-out's ||mu||^2), as attnlib.webstills

  function label(name, f) {
    return name === "causal" ? `causal (τ = ${fmt(f.tau)})` : name;
  }

  function recovery(level) {
    const population = level === "population";
    const eig = population ? "population_eigenvalue" : "sample_eigenvalue";
    const ov = population ? "population_overlap" : "sample_overlap";
    const [vector, threshold] = population ? ["v_pop", "‖μ‖²_pop"] : ["v̂", "‖μ‖²_smp"];
    return {
      panels: [{ ratio: 1, xlabel: "‖μ‖²", ylabel: population ? "λ_pop / κ" : "λ₁ / κ" },
        { ratio: 1, xlabel: "‖μ‖²", ylabel: `cos²(${vector}, u)` }],
      height: 280,
      theory(s, f) {
        const gamma = population ? 1.0 : s.gamma; // the population level does not depend on gamma
        const p = { ...s, T: f.T, tau: f.tau };
        const R = correlation(p.family, p.T, p);
        const grid = linspace(0.0, this.limits.get("mu2", Math.max(MU2_MAX, s.mu_norm2)), 301);
        const rows = {};
        for (const name of NAMES) {
          const w = weightsFor(name, p);
          const alpha = TH.alpha(w, R);
          const kappa = TH.kappa(w);
          const curve = TH.signal(s.delta, gamma, alpha, kappa, grid);
          const point = TH.signal(s.delta, gamma, alpha, kappa, s.mu_norm2);
          rows[name] = {
            snr: alpha / kappa, threshold: TH.signal_thresholds(s.delta, gamma, alpha, kappa)[population ? 0 : 1],
            outlier: curve[eig].map((v) => v / kappa), overlap: curve[ov],
            pointOutlier: point[eig] / kappa, pointOverlap: point[ov],
          };
        }
        const sims = this.data.simulations;
        return {
          grid, rows, gamma,
          edge: population ? TH.mp_edges(s.delta)[1] : TH.bulk_edges(s.delta, gamma)[1],
          ceiling: grid.map((m) => m / (m + s.delta)), pointCeiling: s.mu_norm2 / (s.mu_norm2 + s.delta),
          sim: sims.settings.find((x) => sameState(x.state, s)) || null,
        };
      },
      draw([left, right], th, s) {
        const xlim = [0, th.grid[th.grid.length - 1]];
        const simTop = th.sim ? maxFinite(NAMES.flatMap((n) => th.sim.curves[n].map((q) => q[1] + q[2]))) : 0;
        const top = maxFinite(NAMES.flatMap((n) => Array.from(th.rows[n].outlier)), Math.max(th.edge, simTop));
        const stage = population ? "the population covariance" : "S";
        left.begin(xlim, [0.85 * th.edge, this.limits.get("top", 1.05 * top)], { title: `top eigenvalue of ${stage}` });
        left.hline(th.edge, { color: this.colors.edge, dash: "dot", width: 1.2 });
        right.begin(xlim, [0, 1.02], { title: this.title(s, th) });
        right.line(th.grid, th.ceiling, { color: this.colors.edge, dash: "dash", width: 1.2 });
        for (const name of NAMES) {
          const row = th.rows[name];
          const color = this.colors[name];
          left.line(th.grid, row.outlier, { color });
          right.line(th.grid, row.overlap, { color });
          right.vline(row.threshold, { color, dash: "dot", width: 1.1 });
          if (th.sim) {
            for (const [m, topMean, topSd, ovMean, ovSd] of th.sim.curves[name]) {
              left.errorbar(m, topMean, topSd, { shape: "s", size: 3, color, fill: "#fff" });
              right.errorbar(m, ovMean, ovSd, { shape: "s", size: 3, color, fill: "#fff" });
            }
          }
        }
        for (const plot of [left, right]) plot.vline(s.mu_norm2, { color: "#000", dash: "dash", width: 1 });
        for (const name of NAMES) {
          const row = th.rows[name];
          left.marker(s.mu_norm2, row.pointOutlier, { size: 4, color: "#000", fill: this.colors[name] });
          right.marker(s.mu_norm2, row.pointOverlap, { size: 4, color: "#000", fill: this.colors[name] });
        }
        left.end();
        right.end();
      },
      title(s, th) {
        return `${s.family} R (T = ${this.data.fixed.T}${familyLabel(this.data.controls, s)}), δ = ${fmt(s.delta)}${population ? "" : `, γ = ${fmt(th.gamma)}`}`;
      },
      legend(th) {
        const f = this.data.fixed;
        const items = NAMES.map((n) => ["line", this.colors[n], `${label(n, f)}: α/κ = ${fmt(th.rows[n].snr)}`]);
        items.push(["dot", "#555", `${threshold}: its outlier appears`], ["dot", this.colors.edge, "bulk edge"],
          ["dash", this.colors.edge, "ceiling ‖μ‖²/(‖μ‖²+δ)"], ["dash", "#000", "‖μ‖² of the read-out"]);
        if (th.sim) items.push(["s", "#555", `simulated (d = ${this.data.simulations.d}), mean ± sd`]);
        return items;
      },
      header: (s) => ["weights", "α/κ", `outlier for ‖μ‖² > ${threshold}`,
        `${population ? "λ_pop" : "λ₁"}/κ at ‖μ‖² = ${fmt(s.mu_norm2)}`, `cos²(${vector}, u)`, "simulated"],
      readout(th, s) {
        const sims = this.data.simulations;
        const f = this.data.fixed;
        const rows = NAMES.map((name) => {
          const r = th.rows[name];
          const q = th.sim && th.sim.curves[name].find((x) => x[0] === s.mu_norm2);
          return { cells: [label(name, f), fmt(r.snr), fmt(r.threshold),
            Number.isFinite(r.pointOutlier) ? fmt(r.pointOutlier) : "none", fmt(r.pointOverlap),
            q ? `${fmt(q[3])} ± ${fmt(q[4])}` : "–"],
          key: name, values: [r.snr, r.threshold, r.pointOutlier, r.pointOverlap] };
        });
        rows.push({ cells: ["bulk edge / κ; ceiling", `${fmt(th.edge)}; ${fmt(th.pointCeiling)}`], key: "edge",
          values: [th.edge, th.pointCeiling] });
        const grid = sims.settings.length ? sims.settings[0].curves.mean.map((x) => fmt(x[0])).join(", ") : "";
        rows.push({ cells: ["simulated", th.sim
          ? `d = ${sims.d}, V = ${th.sim.V}${population ? "" : `, N = ${th.sim.N}`}, ${sims.trials} draws at ‖μ‖² = ${grid}`
          : `stored for ${sims.settings.length} settings: the first one and single changes of it (family, δ`
            + `${population ? "" : ", γ"}); reset to return`], key: "simulated", values: [] });
        return rows;
      },
    };
  }

  web.kinds = Object.assign(web.kinds || {}, { population_recovery: recovery("population"),
    sample_recovery: recovery("sample") });
})(window);
