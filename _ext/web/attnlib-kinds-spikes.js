/*
 * attnlib-kinds-spikes.js: the explorer kind on a spike, "phase" (the phase diagram and the overlaps
 * along theta), with the simulated spike points.
 *
 * A classic script: it needs attnlib-theory.js and attnlib-format.js loaded first, and adds the kind
 * to window.attnlibWeb.kinds.
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { fmt, linspace } = web.format;

  // --------------------------------------------------------------------------------- the kind on a spike

  const REGION_FILL = (data, k) => data.regions[k][2];

  /** Simulated spike points of one curve (theta, [mean, sd]) matching delta and gamma, or null. */
  function spikeCurve(data, delta, gamma) {
    const sims = data.simulations;
    if (!sims || sims.delta !== delta) return null;
    return sims.curves.find((c) => c.gamma === gamma) || null;
  }

  function simPoints(plot, curve, field, color) {
    if (!curve) return;
    for (const p of curve.points) {
      plot.errorbar(p.theta, p[field][0], p[field][1], { shape: "s", size: 3.5, color, fill: "#ffffff" });
    }
  }

  function spikeReadoutRow(curve, theta, level, d) {
    const point = curve && curve.points.find((p) => p.theta === theta);
    if (!curve) return { cells: ["simulated", "none stored for this setting"], key: "simulated", values: [] };
    const trials = d.trials;
    if (!point) {
      return { cells: [`simulated (${level}, d = ${d.d})`, `at θ = ${curve.points.map((p) => fmt(p.theta)).join(", ")}`
        + ` (${trials} draws each): the squares`], key: "simulated", values: [] };
    }
    return {
      cells: [`simulated at this θ (${level}, d = ${d.d}, ${trials} draws)`,
        `top eigenvalue/κ ${fmt(point.top[0])} ± ${fmt(point.top[1])}, cos²(·, h) ${fmt(point.overlap_h[0])}`
        + ` ± ${fmt(point.overlap_h[1])}`],
      key: "simulated", values: [point.top[0], point.overlap_h[0]],
    };
  }

  const KINDS = {
    phase: {
      panels: [{ ratio: 1.1, xlabel: "γ = d/N", ylabel: "θ (units of κ)" },
        { ratio: 1, xlabel: "θ (units of κ)", ylabel: "squared overlap", title: "overlaps along θ, at the point's γ" }],
      height: 320,
      theory(s) {
        const gammaGrid = linspace(3.0 / 120, 3.0, 120);
        const thetaSample = Float64Array.from(gammaGrid, (g) => TH.thresholds(s.delta, g)[1]);
        const here = TH.thresholds(s.delta, s.gamma);
        const thetaGrid = linspace(0.0, 8.0, 400);
        return {
          gammaGrid, thetaPopulation: here[0], thetaSample, here,
          code: (s.theta > here[0] ? 1 : 0) + (s.theta > here[1] ? 1 : 0),
          thetaGrid, curves: TH.spike(thetaGrid, s.delta, s.gamma, 1.0), point: TH.spike(s.theta, s.delta, s.gamma, 1.0),
          edge: TH.bulk_edges(s.delta, s.gamma)[1], sim: spikeCurve(this.data, s.delta, s.gamma),
        };
      },
      draw([left, right], th, s) {
        const g = [0, ...th.gammaGrid];
        const pop = g.map(() => th.thetaPopulation);
        const smp = [th.thetaPopulation, ...th.thetaSample];
        const regionNames = this.data.regions.map((r) => r[0]).join(" · ");
        left.begin([0, 3], [0, 8], { title: `${regionNames} (δ = ${fmt(s.delta)})` });
        const band = (lo, hi, fill) => left.polygon([...g, ...g.slice().reverse()], [...lo, ...hi.slice().reverse()], fill);
        band(g.map(() => 0), pop, REGION_FILL(this.data, 0));
        band(pop, smp, REGION_FILL(this.data, 1));
        band(smp, g.map(() => 8), REGION_FILL(this.data, 2));
        left.line(g, pop, { color: this.colors.mean, width: 1.8 });
        left.line(g, smp, { color: this.colors.causal, width: 1.8 });
        left.marker(s.gamma, s.theta, { size: 5.5, color: "#000", fill: "gold" });
        left.end();
        right.begin([0, 8], [0, 1.02]);
        right.line(th.thetaGrid, th.curves.population_overlap, { color: this.colors.mean });
        right.line(th.thetaGrid, th.curves.sample_overlap, { color: this.colors.causal });
        right.vline(s.theta, { color: "#000", dash: "dash", width: 1 });
        simPoints(right, th.sim, "overlap_h", this.colors.causal);
        right.end();
      },
      legend(th) {
        const items = [["line", this.colors.mean, "population threshold δ+√δ"],
          ["line", this.colors.causal, "sample threshold δ+x*(δ,γ)"], ["o", "gold", "the point"],
          ["line", this.colors.mean, "population cos²(v_pop, h)"], ["line", this.colors.causal, "sample cos²(v̂, h)"],
          ["dash", "#000", "θ of the point"]];
        this.data.regions.forEach((r) => items.push(["patch", r[2], r[0]]));
        if (th.sim) items.push(["s", this.colors.causal, "simulated cos²(v̂, h), mean ± sd"]);
        return items;
      },
      readout(th, s) {
        const p = th.point;
        return [
          { cells: ["region", this.data.regions[th.code][1]], key: "region", values: [th.code] },
          { cells: ["thresholds at this γ: θ_pop, θ_smp", `${fmt(th.here[0])}, ${fmt(th.here[1])}`], key: "thresholds", values: th.here },
          { cells: ["population outlier λ_pop/κ, cos²(v_pop, h)", `${fmt(p.population_eigenvalue)}, ${fmt(p.population_overlap)}`],
            key: "population", values: [p.population_eigenvalue, p.population_overlap] },
          { cells: ["sample outlier λ/κ, cos²(v̂, h)", `${fmt(p.sample_eigenvalue)}, ${fmt(p.sample_overlap)}`],
            key: "sample", values: [p.sample_eigenvalue, p.sample_overlap] },
          { cells: ["bulk right edge /κ", fmt(th.edge)], key: "edge", values: [th.edge] },
          spikeReadoutRow(th.sim, s.theta, "sample", this.data.simulations),
        ];
      },
    },
  };
  web.kinds = Object.assign(web.kinds || {}, KINDS);
})(window);
