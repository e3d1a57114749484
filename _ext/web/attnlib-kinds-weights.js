/*
 * attnlib-kinds-weights.js: the explorer kinds on pooling weights, "weights" (weights, R and alpha/kappa
 * along tau) and "family" (the weights of a family of R and the recovery they give), with the cached
 * theory of a family's R (also used by the spectrum kind).
 *
 * A classic script: it needs attnlib-theory.js and attnlib-format.js loaded first, and adds the two kinds
 * to window.attnlibWeb.kinds and the cached theory as window.attnlibWeb.pooling.
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { fmt, linspace, maxFinite, sameState } = web.format;

  // ------------------------------------------------------------------- the cached theory of a family's R

  function cachedBy(fn) {
    const cache = new Map();
    return (...args) => {
      const key = JSON.stringify(args);
      if (!cache.has(key)) cache.set(key, fn(...args));
      return cache.get(key);
    };
  }

  // Each takes (family, T, state) and caches on the family's own parameters only (TH.parameters).
  function byFamily(fn) {
    const cached = cachedBy(fn);
    return (family, T, state) => cached(family, T, TH.parameters(family, state));
  }

  const correlation = byFamily((family, T, params) => TH.correlation(family, T, params));
  const lambdaMax = byFamily((family, T, params) => {
    const R = correlation(family, T, params);
    return TH.eigh(R).values[T - 1];
  });
  const optimalWeights = byFamily((family, T, params) => TH.optimal(correlation(family, T, params)));
  const TAU_GRID = linspace(0.0, 8.0, 81);
  const causalCurve = byFamily((family, T, params) => {
    const R = correlation(family, T, params);
    return Float64Array.from(TAU_GRID, (tau) => TH.snr(TH.causal(T, tau), R));
  });

  /** ", r = 0.6" for each parameter of the state's family: the controls (rows of the payload) shown for it. */
  function familyLabel(controls, s) {
    return controls.flat().filter((c) => c.shown_when && c.shown_when[0] === "family"
      && c.shown_when[1].includes(s.family))
      .map((c) => `, ${c.label} = ${c.kind === "float" ? fmt(s[c.name]) : s[c.name]}`).join("");
  }

  function weightsFor(name, s) {
    if (name === "optimal") return optimalWeights(s.family, s.T, s);
    if (name === "causal") return TH.causal(s.T, s.tau);
    return TH.mean(s.T);
  }

  // ------------------------------------------------------------------------ the kinds on pooling weights

  const KINDS = {
    weights: {
      panels: [{ ratio: 1.3, xlabel: "position t", ylabel: "weight w_t (sum 1)", integer: true },
        { ratio: 0.8, xlabel: "s", ylabel: "t", title: "R", square: true, integer: "both" },
        { ratio: 1.1, xlabel: "τ (causal attention)", ylabel: "α/κ", title: "α/κ of causal pooling along τ" }],
      height: 290,
      theory(s) {
        const R = correlation(s.family, s.T, s);
        const weights = {};
        const scalars = {};
        for (const name of ["mean", "causal", "optimal"]) {
          const w = weightsFor(name, s);
          weights[name] = w;
          scalars[name] = [TH.alpha(w, R), TH.kappa(w), TH.snr(w, R)];
        }
        const sim = this.data.simulations.families.find((f) => sameState(f.state, s)) || null; // family, T, params
        return { R, weights, scalars, lambdaMax: lambdaMax(s.family, s.T, s), causal: causalCurve(s.family, s.T, s), sim };
      },
      draw([prof, heat, curve], th, s) {
        const all = Object.values(th.weights).flatMap((w) => Array.from(w));
        const wmax = Math.max(...all);
        const wmin = Math.min(...all);
        const top = this.limits.get("w_top", 1.1 * wmax);
        const bottom = wmin < 0 ? -this.limits.get("w_bottom", -1.1 * wmin) : 0;
        const pos = Array.from({ length: s.T }, (_, i) => i + 1);
        prof.begin([0.5, s.T + 0.5], [bottom, top], { title: `${s.family}, causal τ = ${fmt(s.tau)}` });
        for (const name of ["mean", "causal", "optimal"]) {
          prof.line(pos, th.weights[name], { color: this.colors[name], width: 1.4 });
          pos.forEach((p, i) => prof.marker(p, th.weights[name][i], { size: 2.2, color: this.colors[name] }));
        }
        prof.end();
        heat.begin([0.5, s.T + 0.5], [0.5, s.T + 0.5], { grid: false, yflip: true });
        heat.heatmap(th.R, -1, 1);
        heat.end();
        const lows = [maxFinite(th.causal), th.scalars.mean[2], th.lambdaMax];
        const ytop = this.limits.get("snr", 1.08 * Math.max(...lows), true);
        curve.begin([0, 8], [0, ytop]);
        curve.line(TAU_GRID, th.causal, { color: this.colors.causal });
        curve.hline(th.scalars.mean[2], { color: this.colors.mean, dash: "dash", width: 1.2 });
        curve.hline(th.lambdaMax, { color: this.colors.optimal, dash: "dash", width: 1.2 });
        curve.marker(s.tau, th.scalars.causal[2], { size: 4.5, color: this.colors.causal });
        if (th.sim) {
          th.sim.causal.forEach(([tau, v]) => curve.marker(tau, v, { shape: "s", size: 3.5, color: this.colors.causal, fill: "#fff" }));
          curve.marker(7.8, th.sim.mean, { shape: "s", size: 3.5, color: this.colors.mean, fill: "#fff" });
          curve.marker(7.8, th.sim.optimal, { shape: "s", size: 3.5, color: this.colors.optimal, fill: "#fff" });
        }
        curve.end();
      },
      legend(th) {
        const items = ["mean", "causal", "optimal"].map((n) => ["line", this.colors[n], n]);
        items.push(["dash", this.colors.mean, "α/κ of mean pooling"], ["dash", this.colors.optimal, "optimal α/κ = λmax(R)"]);
        if (th.sim) items.push(["s", "#555", `α/κ measured on ${this.data.simulations.n} sampled sign sequences`]);
        return items;
      },
      readout(th, s) {
        const rows = ["mean", "causal", "optimal"].map((name) => {
          const [a, k, r] = th.scalars[name];
          return { cells: [name + (name === "causal" ? ` (τ = ${fmt(s.tau)})` : ""), fmt(a), fmt(k), fmt(r)], key: name, values: [a, k, r] };
        });
        rows.push({ cells: ["λmax(R)", `${fmt(th.lambdaMax)} (the largest α/κ any weights reach)`], key: "lambda_max",
          values: [th.lambdaMax] });
        if (th.sim) {
          const causal = th.sim.causal.map(([tau, v]) => `${fmt(v)} (τ = ${fmt(tau)})`).join(", ");
          rows.push({ cells: [`measured (${this.data.simulations.n} sampled sequences)`, `mean ${fmt(th.sim.mean)}, causal ${causal}, `
            + `optimal ${fmt(th.sim.optimal)}`], key: "simulated", values: [th.sim.mean, th.sim.optimal] });
        }
        return rows;
      },
      header: ["weights", "α = wᵀRw", "κ = ‖w‖²", "α/κ"],
    },

    family: {
      panels: [{ ratio: 1, xlabel: "position t", ylabel: "weight w_t (sum 1)", integer: true },
        { ratio: 1, xlabel: "α/κ", ylabel: "cos²(v̂, u)", title: "recovery against α/κ" }],
      height: 280,
      theory(s, f) {
        const p = { ...s, T: f.T, tau: 0.0 };
        const R = correlation(p.family, p.T, p);
        const rows = {};
        for (const name of ["mean", "causal", "optimal"]) {
          const w = weightsFor(name, p);
          const alpha = TH.alpha(w, R);
          const kappa = TH.kappa(w);
          rows[name] = { w, alpha, kappa, snr: TH.snr(w, R),
            overlap: TH.signal(f.delta, f.gamma, alpha, kappa, f.mu_norm2).sample_overlap };
        }
        const lmax = lambdaMax(p.family, p.T, p);
        const sims = this.data.simulations.points.filter((q) => sameState(q.state, s));
        return { rows, lmax, sims };
      },
      draw([prof, curve], th, s) {
        const f = this.data.fixed;
        const all = Object.values(th.rows).flatMap((r) => Array.from(r.w));
        const pos = Array.from({ length: f.T }, (_, i) => i + 1);
        prof.begin([0.5, f.T + 0.5], [0, this.limits.get("w", 1.1 * Math.max(...all))],
          { title: `${s.family} R (T = ${f.T}${familyLabel(this.data.controls, s)})` });
        for (const name of ["mean", "causal", "optimal"]) {
          prof.line(pos, th.rows[name].w, { color: this.colors[name], width: 1.4 });
          pos.forEach((p, i) => prof.marker(p, th.rows[name].w[i], { size: 2.2, color: this.colors[name] }));
        }
        prof.end();
        const xmax = this.limits.get("x", 1.15 * th.lmax);
        const grid = linspace(0, xmax, 300);
        const curveY = Float64Array.from(grid, (a) => TH.signal(f.delta, f.gamma, a, 1.0, f.mu_norm2).sample_overlap);
        curve.begin([0, xmax], [0, 1.02], { title: `recovery against α/κ (δ = ${fmt(f.delta)}, γ = ${fmt(f.gamma)}, ‖μ‖² = ${fmt(f.mu_norm2)})` });
        curve.line(grid, curveY, { color: this.colors.theory });
        curve.vline(th.lmax, { color: this.colors.optimal, dash: "dot", width: 1.2 });
        for (const q of th.sims) {
          curve.errorbar(q.snr, q.overlap_u[0], q.overlap_u[1], { shape: "s", size: 3.5, color: this.colors[q.weighting], fill: "#fff" });
        }
        for (const name of ["mean", "causal", "optimal"]) {
          curve.marker(th.rows[name].snr, th.rows[name].overlap, { size: 4.5, color: this.colors[name] });
        }
        curve.end();
      },
      legend(th) {
        const items = ["mean", "causal", "optimal"].map((n) => ["line", this.colors[n], n]);
        items.push(["line", this.colors.theory, "predicted cos²(v̂, u)"], ["dot", this.colors.optimal, "λmax(R)"]);
        if (th.sims.length) items.push(["s", "#555", "simulated, mean ± sd"]);
        return items;
      },
      readout(th) {
        const sims = this.data.simulations;
        const rows = ["mean", "causal", "optimal"].map((name) => {
          const r = th.rows[name];
          const q = th.sims.find((p) => p.weighting === name);
          return { cells: [name, fmt(r.alpha), fmt(r.kappa), fmt(r.snr), fmt(r.overlap),
            q ? `${fmt(q.overlap_u[0])} ± ${fmt(q.overlap_u[1])}` : "–"], key: name, values: [r.alpha, r.kappa, r.snr, r.overlap] };
        });
        rows.push({ cells: ["λmax(R)", "", "", fmt(th.lmax), `simulated: d = ${sims.d}, V = ${sims.V}, N = ${sims.N}, `
          + `${sims.trials} draws per weighting`], key: "lambda_max", values: [th.lmax] });
        return rows;
      },
      header: ["weights", "α", "κ", "α/κ", "cos²(v̂, u) predicted", "simulated"],
    },
  };
  web.kinds = Object.assign(web.kinds || {}, KINDS);
  web.pooling = { correlation, lambdaMax, optimalWeights, TAU_GRID, causalCurve, familyLabel, weightsFor };
})(window);
