/*
 * attnlib-kinds-spectrum.js: the explorer kinds on the spectrum of S, "spectrum" (the bulk and its
 * outliers for a pooling) and "bulk" (the bulk law alone), with the simulated eigenvalues.
 *
 * A classic script: it needs attnlib-theory.js, attnlib-format.js and attnlib-kinds-weights.js loaded
 * first, and adds the two kinds to window.attnlibWeb.kinds.
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { fmt, linspace, quantile, maxFinite, sum, sameState } = web.format;
  const { correlation, weightsFor } = web.pooling;
  const SIM_COLOR = "#9ecae1";

  // --------------------------------------------------------------------------- the kinds on the spectrum

  const KINDS = {
    spectrum: {
      panels: [{ ratio: 1, xlabel: "eigenvalue of S", ylabel: "density (non-zero part)" }],
      height: 300,
      theory(s) {
        const R = correlation(s.family, s.T, s);
        const w = weightsFor(s.weighting, s);
        const alpha = TH.alpha(w, R);
        const kappa = TH.kappa(w);
        const edges = TH.bulk_edges(s.delta, s.gamma, kappa);
        const atom = TH.zero_atom(s.delta, s.gamma);
        const x = linspace(edges[0], edges[1], 600);
        const density = TH.bulk_density(x, s.delta, s.gamma, kappa).map((v) => v / (1.0 - atom));
        const theta = TH.spike_strength(alpha, kappa, s.mu_norm2, s.delta);
        return {
          alpha, kappa, edges, atom, x, density, theta,
          signal: TH.signal(s.delta, s.gamma, alpha, kappa, s.mu_norm2),
          signal_h: TH.spike(theta, s.delta, s.gamma, kappa),
          mean: s.centered ? null : TH.mean_spike(s.delta, s.gamma, sum(w), kappa),
          thresholds: TH.thresholds(s.delta, s.gamma),
          draw: this.data.simulations.draws.find((d) => sameState(d.state, s)) || null,
        };
      },
      draw([plot], th, s) {
        const sample = th.signal.sample_eigenvalue;
        const meanValue = th.mean ? th.mean.sample_eigenvalue : NaN;
        let right = maxFinite([th.edges[1], sample, meanValue]);
        let needY = 1.15 * quantile(th.density, 0.97);
        const hist = th.draw && th.draw.hist;
        let heights = null;
        if (hist) {
          const width = (hist.range[1] - hist.range[0]) / hist.counts.length;
          heights = hist.counts.map((n) => n / (hist.n * width));
          right = Math.max(right, th.draw.top[0]);
          needY = Math.max(needY, 1.05 * maxFinite(heights));
        }
        const xmax = this.limits.get("x", 1.08 * right);
        const ymax = this.limits.get("y", needY);
        plot.begin([0, xmax], [0, ymax], { title: `δ = ${fmt(s.delta)}, γ = ${fmt(s.gamma)}, ‖μ‖² = `
          + `${fmt(s.mu_norm2)}, ${s.family} R (T = ${s.T}), ${s.weighting} pooling: θ = ${fmt(th.theta)}` });
        if (heights) plot.bars(hist.range[0], hist.range[1], heights, SIM_COLOR);
        plot.line(th.x, th.density, { color: this.colors.theory });
        th.edges.forEach((e) => plot.vline(e, { color: this.colors.edge, dash: "dot", width: 1.2 }));
        plot.vline(sample, { color: this.colors.causal, dash: "dash" });
        plot.vline(meanValue, { color: this.colors.optimal, dash: "dashdot" });
        if (hist) plot.marker(th.draw.top[0], 0.04 * ymax, { shape: "v", size: 5, color: "#000" });
        plot.end();
      },
      legend(th, s) {
        const items = [["line", this.colors.theory, "bulk κ(MP_δ ⊠ MP_γ)"], ["dot", this.colors.edge, "bulk edges"],
          ["dash", this.colors.causal, "predicted signal outlier"]];
        if (!s.centered) items.push(["dashdot", this.colors.optimal, "predicted mean outlier (uncentered)"]);
        if (th.draw) items.push(["patch", SIM_COLOR, "simulated eigenvalues"], ["v", "#000", "simulated top eigenvalue"]);
        return items;
      },
      readout(th) {
        const [pop, smp] = th.thresholds;
        const u = th.signal;
        const h = th.signal_h;
        const rows = [
          { cells: ["α = wᵀRw, κ = ‖w‖²", `${fmt(th.alpha)}, ${fmt(th.kappa)}`], key: "alpha_kappa", values: [th.alpha, th.kappa] },
          { cells: ["spike strength θ = α(‖μ‖²+δ)/κ", fmt(th.theta)], key: "theta", values: [th.theta] },
          { cells: ["thresholds θ_pop = δ+√δ, θ_smp", `${fmt(pop)}, ${fmt(smp)}`], key: "thresholds", values: [pop, smp] },
          { cells: ["bulk edges", `${fmt(th.edges[0])}, ${fmt(th.edges[1])}`], key: "edges", values: th.edges },
          { cells: ["predicted outlier (sample)", Number.isFinite(u.sample_eigenvalue) ? fmt(u.sample_eigenvalue)
            : "none: θ below the sample threshold"], key: "outlier", values: [u.sample_eigenvalue] },
          { cells: ["cos²(v̂, h) / cos²(v̂, u)", `${fmt(h.sample_overlap)} / ${fmt(u.sample_overlap)}`],
            key: "overlaps", values: [h.sample_overlap, u.sample_overlap] },
        ];
        if (th.mean) {
          rows.push({ cells: ["mean spike θ_g, its outlier", `${fmt(th.mean.theta)}, ${fmt(th.mean.sample_eigenvalue)}`],
            key: "mean_spike", values: [th.mean.theta, th.mean.sample_eigenvalue] });
        }
        const sims = this.data.simulations;
        if (th.draw) {
          const d = th.draw;
          rows.push({ cells: [`simulated (d=${sims.d}, V=${d.V}, N=${d.N})`, `top eigenvalues ${fmt(d.top[0])}, `
            + `${fmt(d.top[1])}; cos² with h ${fmt(d.overlap_h)}, u ${fmt(d.overlap_u)}, g ${fmt(d.overlap_g)}; `
            + `zeros ${fmt(100 * d.hist.zeros)}% (atom ${fmt(100 * th.atom)}%)`], key: "simulated", values: d.top });
        } else {
          rows.push({ cells: ["simulated", `stored for ${sims.draws.length} settings: the default and single `
            + "changes of it (δ, γ, ‖μ‖², weights, R family, centering); reset to return"], key: "simulated", values: [] });
        }
        return rows;
      },
    },

    bulk: {
      panels: [{ ratio: 1, xlabel: "eigenvalue / κ", ylabel: "density (non-zero part)" }],
      height: 280,
      theory(s) {
        const edges = TH.bulk_edges(s.delta, s.gamma, 1.0);
        const atom = TH.zero_atom(s.delta, s.gamma);
        const x = linspace(edges[0], edges[1], 600);
        return {
          edges, atom, x, density: TH.bulk_density(x, s.delta, s.gamma, 1.0).map((v) => v / (1.0 - atom)),
          draw: this.data.simulations.draws.find((d) => sameState(d.state, s)) || null,
        };
      },
      draw([plot], th, s) {
        let right = th.edges[1];
        let needY = 1.15 * quantile(th.density, 0.97);
        let heights = null;
        const hist = th.draw && th.draw.hist;
        if (hist) {
          const width = (hist.range[1] - hist.range[0]) / hist.counts.length;
          heights = hist.counts.map((n) => n / (hist.n * width));
          right = Math.max(right, hist.range[1]);
          needY = Math.max(needY, 1.05 * maxFinite(heights));
        }
        plot.begin([0, this.limits.get("x", 1.08 * right)], [0, this.limits.get("y", needY)],
          { title: `δ = ${fmt(s.delta)}, γ = ${fmt(s.gamma)}: atom at 0 of mass ${fmt(th.atom)}` });
        if (heights) plot.bars(hist.range[0], hist.range[1], heights, SIM_COLOR);
        plot.line(th.x, th.density, { color: this.colors.theory });
        th.edges.forEach((e) => plot.vline(e, { color: this.colors.edge, dash: "dot", width: 1.2 }));
        plot.end();
      },
      legend(th) {
        const items = [["line", this.colors.theory, "κ(MP_δ ⊠ MP_γ) / κ, continuous part (mass 1)"],
          ["dot", this.colors.edge, "edges"]];
        if (th.draw) items.push(["patch", SIM_COLOR, "simulated non-zero eigenvalues / κ"]);
        return items;
      },
      readout(th) {
        const sims = this.data.simulations;
        const rows = [
          { cells: ["bulk edges / κ", `${fmt(th.edges[0])}, ${fmt(th.edges[1])}`], key: "edges", values: th.edges },
          { cells: ["atom at 0: max(0, 1 − 1/δ, 1 − 1/γ)", fmt(th.atom)], key: "atom", values: [th.atom] },
        ];
        if (th.draw) {
          rows.push({ cells: [`simulated (${sims.draws_per_setting} draws, d = ${sims.d}, V = ${th.draw.V}, `
            + `N = ${th.draw.N}, T = ${sims.T})`,
            `zeros ${fmt(100 * th.draw.hist.zeros)}% (atom ${fmt(100 * th.atom)}%)`], key: "simulated", values: [th.draw.hist.zeros] });
        } else {
          const grid = [...new Set(sims.draws.map((d) => d.state.delta))].map((v) => fmt(v)).join(", ");
          rows.push({ cells: ["simulated", `stored for δ and γ in {${grid}}`], key: "simulated", values: [] });
        }
        return rows;
      },
    },
  };
  web.kinds = Object.assign(web.kinds || {}, KINDS);
})(window);
