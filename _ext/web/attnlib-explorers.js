/*
 * attnlib-explorers.js: turns every <div class="attnlib-explorer"> of a page (written by
 * attnlib.webexplorer.embed when the chapter executed) into a live figure: controls, canvas panels, a legend
 * and a read-out, recomputed with window.attnlibTheory (attnlib-theory.js, loaded first) at every move of a
 * control. Simulated overlays come precomputed in the block's JSON and are shown whenever the controls sit
 * on a simulated setting.
 *
 * A classic script (works from file://). It defines window.attnlibExplorers = {instances, boot, format}.
 * Each figure's root element carries data-ready, data-redraws and data-state (for tests); every read-out
 * row carries data-key and data-values (the full-precision numbers behind the rounded text).
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const SIM_COLOR = "#9ecae1";

  // ------------------------------------------------------------------------------------- numbers, text

  /** Round to `digits` significant digits as Python's round() does (half to even on exact ties). */
  function sig(x, digits) {
    if (x === 0 || !Number.isFinite(x)) return x;
    const [mantissa, exponent] = Math.abs(x).toExponential(99).split("e");
    const ds = mantissa.replace(".", "");
    if (/^50*$/.test(ds.slice(digits)) && Number(ds[digits - 1]) % 2 === 0) {
      const head = ds.slice(0, digits);
      return Number(`${x < 0 ? "-" : ""}${head[0]}.${head.slice(1) || "0"}e${exponent}`);
    }
    return Number(x.toPrecision(digits));
  }

  /** Python's format(v, "g"). */
  function formatG(v) {
    if (v === 0) return Object.is(v, -0) ? "-0" : "0";
    const [mantissa, exp] = v.toExponential(5).split("e");
    const e = Number(exp);
    if (e < -4 || e >= 6) {
      return `${mantissa.replace(/\.?0+$/, "")}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    }
    const fixed = v.toFixed(Math.max(0, 5 - e));
    return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
  }

  /** The explorers' number format: f"{sig(x, 3):g}", an en dash for a missing or non-finite value. */
  function fmt(x, digits = 3) {
    if (x === null || x === undefined || !Number.isFinite(x)) return "–";
    return formatG(sig(x, digits));
  }

  function linspace(lo, hi, n) {
    const out = new Float64Array(n);
    const step = (hi - lo) / (n - 1);
    for (let k = 0; k < n; k++) out[k] = lo + k * step;
    out[n - 1] = hi;
    return out;
  }

  function quantile(values, q) {
    const v = Array.from(values).filter(Number.isFinite).sort((a, b) => a - b);
    if (!v.length) return NaN;
    const pos = q * (v.length - 1);
    const i = Math.floor(pos);
    return i + 1 < v.length ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
  }

  function maxFinite(values, start = -Infinity) {
    let m = start;
    for (const v of values) if (Number.isFinite(v) && v > m) m = v;
    return m;
  }

  function sum(values) {
    let s = 0;
    for (const v of values) s += v;
    return s;
  }

  /** Smallest {1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8} x 10^k >= value. */
  function niceCeil(value) {
    if (!Number.isFinite(value) || value <= 0) return 1.0;
    const e = Math.floor(Math.log10(value));
    for (const m of [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
      const c = m * 10 ** e;
      if (c >= value * (1 - 1e-12)) return c;
    }
    return 10 ** (e + 1);
  }

  /** Axis limits that grow at once but shrink only when less than `shrink` of them is used. */
  class AxisLimits {
    constructor(shrink = 0.45) {
      this.shrink = shrink;
      this.current = {};
    }

    get(name, needed, coarse = false) {
      let now = this.current[name];
      if (now === undefined || needed > now || needed < this.shrink * now) {
        now = coarse && needed > 0 ? 2 ** Math.ceil(Math.log2(needed)) : niceCeil(needed);
      }
      this.current[name] = now;
      return now;
    }
  }

  function el(tag, attrs = {}, children = []) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const child of children) node.append(child);
    return node;
  }

  function sameState(a, b) {
    return Object.keys(a).every((k) => a[k] === b[k]);
  }

  function cachedBy(fn) {
    const cache = new Map();
    return (...args) => {
      const key = JSON.stringify(args);
      if (!cache.has(key)) cache.set(key, fn(...args));
      return cache.get(key);
    };
  }

  const correlation = cachedBy((family, T, r, L) => TH.correlation(family, T, r, L));
  const lambdaMax = cachedBy((family, T, r, L) => {
    const R = correlation(family, T, r, L);
    return TH.eigh(R).values[T - 1];
  });
  const optimalWeights = cachedBy((family, T, r, L) => TH.optimal(correlation(family, T, r, L)));
  const TAU_GRID = linspace(0.0, 8.0, 81);
  const causalCurve = cachedBy((family, T, r, L) => {
    const R = correlation(family, T, r, L);
    return Float64Array.from(TAU_GRID, (tau) => TH.snr(TH.causal(T, tau), R));
  });

  function weightsFor(name, s) {
    if (name === "optimal") return optimalWeights(s.family, s.T, s.r, s.L);
    if (name === "causal") return TH.causal(s.T, s.tau);
    return TH.mean(s.T);
  }

  // ------------------------------------------------------------------------------------------- plotting

  const RDBU_R = ["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582",
    "#d6604d", "#b2182b", "#67001f"].map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));

  function rdbu(v) { // v in [-1, 1]
    const pos = Math.min(1, Math.max(0, (v + 1) / 2)) * (RDBU_R.length - 1);
    const i = Math.min(RDBU_R.length - 2, Math.floor(pos));
    const f = pos - i;
    const c = RDBU_R[i].map((a, k) => Math.round(a + f * (RDBU_R[i + 1][k] - a)));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  const DASHES = { solid: [], dash: [6, 4], dot: [2, 3], dashdot: [7, 3, 2, 3] };

  function ticks(lo, hi, count = 5) {
    const span = hi - lo;
    if (!(span > 0)) return { values: [lo], step: 1 };
    const raw = span / count;
    const e = Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * 10 ** e).find((s) => s >= raw * 0.999);
    const values = [];
    for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
      values.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    }
    return { values, step };
  }

  /** Ticks at whole numbers (positions 1..T). */
  function integerTicks(lo, hi, count = 6) {
    const raw = (hi - lo) / count;
    const step = Math.max(1, [1, 2, 5, 10, 20, 50].find((s) => s >= raw) || 100);
    const values = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) if (v >= 1) values.push(v);
    return { values, step };
  }

  function tickLabel(v, step) {
    const e = Math.floor(Math.log10(step) + 1e-9);
    const m = step / 10 ** e;
    return v.toFixed(Math.max(0, -e + (Math.abs(m - 2.5) < 1e-9 ? 1 : 0)));
  }

  /** One panel: a canvas with axes, ticks, labels and a few drawing primitives (data coordinates). */
  class Plot {
    constructor(opts) {
      this.opts = opts;
      this.canvas = el("canvas", { role: "img", "aria-label": opts.aria || opts.title || "figure" });
      this.ctx = this.canvas.getContext("2d");
      this.margin = { left: 50, right: 12, top: 22, bottom: 36 };
    }

    resize(width, height) {
      const dpr = global.devicePixelRatio || 1;
      this.width = width;
      this.height = height;
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }

    X(x) {
      const m = this.margin;
      return m.left + (x - this.xlim[0]) / (this.xlim[1] - this.xlim[0]) * (this.width - m.left - m.right);
    }

    Y(y) {
      const m = this.margin;
      const f = (y - this.ylim[0]) / (this.ylim[1] - this.ylim[0]);
      return this.height - m.bottom - (this.yflip ? 1 - f : f) * (this.height - m.top - m.bottom);
    }

    begin(xlim, ylim, { title, grid = true, yflip = false, xticks, yticks } = {}) {
      const c = this.ctx;
      const m = this.margin;
      this.xlim = xlim;
      this.ylim = ylim;
      this.yflip = yflip;
      c.save();
      c.clearRect(0, 0, this.width, this.height);
      c.fillStyle = "#ffffff";
      c.fillRect(0, 0, this.width, this.height);
      c.font = "11px system-ui, sans-serif";
      c.fillStyle = "#333";
      c.strokeStyle = "#333";
      const nx = Math.max(3, Math.round((this.width - 60) / 70));
      const ny = Math.max(3, Math.round((this.height - 60) / 45));
      const xt = xticks || (this.opts.integer ? integerTicks(xlim[0], xlim[1], nx + 2) : ticks(xlim[0], xlim[1], nx));
      const yt = yticks || (this.opts.integer === "both" ? integerTicks(ylim[0], ylim[1], ny + 2)
        : ticks(ylim[0], ylim[1], ny));
      c.textAlign = "center";
      c.textBaseline = "top";
      for (const v of xt.values) {
        const px = this.X(v);
        if (grid) this.gridLine(px, m.top, px, this.height - m.bottom);
        c.fillText(tickLabel(v, xt.step), px, this.height - m.bottom + 4);
      }
      c.textAlign = "right";
      c.textBaseline = "middle";
      for (const v of yt.values) {
        const py = this.Y(v);
        if (grid) this.gridLine(m.left, py, this.width - m.right, py);
        c.fillText(tickLabel(v, yt.step), m.left - 5, py);
      }
      c.textAlign = "center";
      c.textBaseline = "bottom";
      if (this.opts.xlabel) c.fillText(this.opts.xlabel, (m.left + this.width - m.right) / 2, this.height - 2);
      if (this.opts.ylabel) {
        c.save();
        c.translate(11, (m.top + this.height - m.bottom) / 2);
        c.rotate(-Math.PI / 2);
        c.textBaseline = "middle";
        c.fillText(this.opts.ylabel, 0, 0);
        c.restore();
      }
      const head = title !== undefined ? title : this.opts.title;
      if (head) {
        c.textBaseline = "top";
        c.fillText(head, (m.left + this.width - m.right) / 2, 3);
      }
      c.beginPath();
      c.rect(m.left, m.top, this.width - m.left - m.right, this.height - m.top - m.bottom);
      c.clip();
    }

    gridLine(x0, y0, x1, y1) {
      const c = this.ctx;
      c.save();
      c.strokeStyle = "rgba(0,0,0,0.08)";
      c.beginPath();
      c.moveTo(x0, y0);
      c.lineTo(x1, y1);
      c.stroke();
      c.restore();
    }

    end() {
      const c = this.ctx;
      const m = this.margin;
      c.restore();
      c.save();
      c.strokeStyle = "#333";
      c.lineWidth = 1;
      c.beginPath();
      c.moveTo(m.left, m.top);
      c.lineTo(m.left, this.height - m.bottom);
      c.lineTo(this.width - m.right, this.height - m.bottom);
      c.stroke();
      c.restore();
    }

    stroke(style, draw) {
      const c = this.ctx;
      c.save();
      c.strokeStyle = style.color || "#000";
      c.lineWidth = style.width || 1.5;
      c.setLineDash(DASHES[style.dash || "solid"]);
      c.beginPath();
      draw(c);
      c.stroke();
      c.restore();
    }

    line(xs, ys, style = {}) {
      this.stroke(style, (c) => {
        let pen = false;
        for (let i = 0; i < xs.length; i++) {
          if (!Number.isFinite(ys[i]) || !Number.isFinite(xs[i])) { pen = false; continue; }
          if (pen) c.lineTo(this.X(xs[i]), this.Y(ys[i]));
          else c.moveTo(this.X(xs[i]), this.Y(ys[i]));
          pen = true;
        }
      });
    }

    vline(x, style = {}) {
      if (!Number.isFinite(x)) return;
      this.stroke(style, (c) => {
        c.moveTo(this.X(x), this.margin.top);
        c.lineTo(this.X(x), this.height - this.margin.bottom);
      });
    }

    hline(y, style = {}) {
      if (!Number.isFinite(y)) return;
      this.stroke(style, (c) => {
        c.moveTo(this.margin.left, this.Y(y));
        c.lineTo(this.width - this.margin.right, this.Y(y));
      });
    }

    bars(lo, hi, heights, color) {
      const c = this.ctx;
      const width = (hi - lo) / heights.length;
      c.save();
      c.fillStyle = color;
      c.strokeStyle = "#ffffff";
      c.lineWidth = 0.5;
      heights.forEach((h, i) => {
        if (!(h > 0)) return;
        const x0 = this.X(lo + i * width);
        const x1 = this.X(lo + (i + 1) * width);
        c.fillRect(x0, this.Y(h), x1 - x0, this.Y(0) - this.Y(h));
        c.strokeRect(x0, this.Y(h), x1 - x0, this.Y(0) - this.Y(h));
      });
      c.restore();
    }

    polygon(xs, ys, fill) {
      const c = this.ctx;
      c.save();
      c.fillStyle = fill;
      c.beginPath();
      xs.forEach((x, i) => (i ? c.lineTo(this.X(x), this.Y(ys[i])) : c.moveTo(this.X(x), this.Y(ys[i]))));
      c.closePath();
      c.fill();
      c.restore();
    }

    marker(x, y, { shape = "o", size = 4, color = "#000", fill, edge } = {}) {
      if (!Number.isFinite(x) || !Number.isFinite(y)) return;
      const c = this.ctx;
      const px = this.X(x);
      const py = this.Y(y);
      c.save();
      c.beginPath();
      if (shape === "s") c.rect(px - size, py - size, 2 * size, 2 * size);
      else if (shape === "v") { c.moveTo(px - size, py - size); c.lineTo(px + size, py - size); c.lineTo(px, py + size); c.closePath(); }
      else c.arc(px, py, size, 0, 2 * Math.PI);
      c.fillStyle = fill === undefined ? color : fill;
      if (fill !== "none") c.fill();
      c.strokeStyle = edge || color;
      c.lineWidth = 1.2;
      c.stroke();
      c.restore();
    }

    errorbar(x, y, err, style = {}) {
      if (!Number.isFinite(err) || !Number.isFinite(y)) return;
      this.stroke({ color: style.color, width: 1 }, (c) => {
        c.moveTo(this.X(x), this.Y(y - err));
        c.lineTo(this.X(x), this.Y(y + err));
      });
      this.marker(x, y, style);
    }

    heatmap(M, vmin, vmax) {
      const c = this.ctx;
      const T = M.length;
      c.save();
      for (let i = 0; i < T; i++) {
        for (let j = 0; j < T; j++) {
          c.fillStyle = rdbu((2 * (M[i][j] - vmin)) / (vmax - vmin) - 1);
          const x0 = this.X(j + 0.5);
          const y0 = this.Y(i + 0.5);
          c.fillRect(x0, y0, this.X(j + 1.5) - x0 + 0.5, this.Y(i + 1.5) - y0 + 0.5);
        }
      }
      c.restore();
    }
  }

  // ------------------------------------------------------------------------------------- the seven kinds

  const REGION_FILL = (data, k) => data.regions[k][2];

  /** Simulated spike points of one curve (theta, [mean, sd]) matching delta and gamma, or null. */
  function spikeCurve(data, delta, gamma) {
    const sims = data.simulations;
    if (!sims || sims.delta !== delta) return null;
    return sims.curves.find((c) => gamma === undefined || c.gamma === gamma) || null;
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
    spectrum: {
      panels: [{ ratio: 1, xlabel: "eigenvalue of S", ylabel: "density (non-zero part)" }],
      height: 300,
      theory(s) {
        const R = correlation(s.family, s.T, s.r, s.L);
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
          { cells: ["thresholds θ_pop = δ+√δ, θ_sample", `${fmt(pop)}, ${fmt(smp)}`], key: "thresholds", values: [pop, smp] },
          { cells: ["bulk edges", `${fmt(th.edges[0])}, ${fmt(th.edges[1])}`], key: "edges", values: th.edges },
          { cells: ["predicted outlier (sample)", Number.isFinite(u.sample_eigenvalue) ? fmt(u.sample_eigenvalue)
            : "none: θ below the sample threshold"], key: "outlier", values: [u.sample_eigenvalue] },
          { cells: ["cos²(top eigenvector, h) / (…, u)", `${fmt(h.sample_overlap)} / ${fmt(u.sample_overlap)}`],
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
          ["line", this.colors.mean, "population cos²(v₁, h)"], ["line", this.colors.causal, "sample cos²(v̂₁, h)"],
          ["dash", "#000", "θ of the point"]];
        this.data.regions.forEach((r) => items.push(["patch", r[2], r[0]]));
        if (th.sim) items.push(["s", this.colors.causal, "simulated cos²(v̂₁, h), mean ± sd"]);
        return items;
      },
      readout(th, s) {
        const p = th.point;
        return [
          { cells: ["region", this.data.regions[th.code][1]], key: "region", values: [th.code] },
          { cells: ["thresholds at this γ: θ_pop, θ_sample", `${fmt(th.here[0])}, ${fmt(th.here[1])}`], key: "thresholds", values: th.here },
          { cells: ["population outlier ℓ/κ, cos²(v₁, h)", `${fmt(p.population_eigenvalue)}, ${fmt(p.population_overlap)}`],
            key: "population", values: [p.population_eigenvalue, p.population_overlap] },
          { cells: ["sample outlier λ/κ, cos²(v̂₁, h)", `${fmt(p.sample_eigenvalue)}, ${fmt(p.sample_overlap)}`],
            key: "sample", values: [p.sample_eigenvalue, p.sample_overlap] },
          { cells: ["bulk right edge /κ", fmt(th.edge)], key: "edge", values: [th.edge] },
          spikeReadoutRow(th.sim, s.theta, "sample", this.data.simulations),
        ];
      },
    },

    weights: {
      panels: [{ ratio: 1.3, xlabel: "position t", ylabel: "weight w_t (sum 1)", integer: true },
        { ratio: 0.8, xlabel: "s", ylabel: "t", title: "R", square: true, integer: "both" },
        { ratio: 1.1, xlabel: "τ (causal attention)", ylabel: "α/κ", title: "α/κ of causal pooling along τ" }],
      height: 290,
      theory(s) {
        const R = correlation(s.family, s.T, s.r, s.L);
        const weights = {};
        const scalars = {};
        for (const name of ["mean", "causal", "optimal"]) {
          const w = weightsFor(name, s);
          weights[name] = w;
          scalars[name] = [TH.alpha(w, R), TH.kappa(w), TH.snr(w, R)];
        }
        const key = { family: s.family, T: s.T, r: s.r, L: s.L };
        const sim = this.data.simulations.families.find((f) => sameState(f.state, key)) || null;
        return { R, weights, scalars, lambdaMax: lambdaMax(s.family, s.T, s.r, s.L), causal: causalCurve(s.family, s.T, s.r, s.L), sim };
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

    population: {
      panels: [{ ratio: 1, xlabel: "θ (units of κ)", ylabel: "top eigenvalue / κ", title: "population top eigenvalue" },
        { ratio: 1, xlabel: "θ (units of κ)", ylabel: "cos²(v₁, h)", title: "population overlap" }],
      height: 280,
      theory(s, f) {
        const grid = linspace(0.0, 8.0, 400);
        return {
          threshold: TH.thresholds(f.delta, 1.0)[0], edge: TH.mp_edges(f.delta)[1], grid,
          curves: TH.spike(grid, f.delta, 1.0, 1.0), point: TH.spike(s.theta, f.delta, 1.0, 1.0),
          sim: spikeCurve(this.data, f.delta),
        };
      },
      draw([left, right], th, s) {
        const top = maxFinite(th.curves.population_eigenvalue, th.edge);
        const simTop = th.sim ? maxFinite(th.sim.points.map((p) => p.top[0] + p.top[1])) : 0;
        left.begin([0, 8], [0, this.limits.get("y", 1.05 * Math.max(top, simTop))]);
        left.hline(th.edge, { color: this.colors.edge, dash: "dot", width: 1.2 });
        left.vline(th.threshold, { color: this.colors.mean, dash: "dot", width: 1.2 });
        left.line(th.grid, th.curves.population_eigenvalue, { color: this.colors.theory });
        simPoints(left, th.sim, "top", this.colors.mean);
        const y = Number.isFinite(th.point.population_eigenvalue) ? th.point.population_eigenvalue : th.edge;
        left.marker(s.theta, y, { size: 5.5, color: "#000", fill: "gold" });
        left.end();
        right.begin([0, 8], [0, 1.02]);
        right.vline(th.threshold, { color: this.colors.mean, dash: "dot", width: 1.2 });
        right.line(th.grid, th.curves.population_overlap, { color: this.colors.theory });
        simPoints(right, th.sim, "overlap_h", this.colors.mean);
        right.marker(s.theta, th.point.population_overlap, { size: 5.5, color: "#000", fill: "gold" });
        right.end();
      },
      legend(th) {
        const items = [["line", this.colors.theory, "theory"], ["dot", this.colors.edge, "bulk right edge (1+√δ)²"],
          ["dot", this.colors.mean, "threshold δ+√δ"], ["o", "gold", "θ of the slider"]];
        if (th.sim) items.push(["s", this.colors.mean, "simulated, mean ± sd"]);
        return items;
      },
      readout(th, s) {
        const p = th.point;
        return [
          { cells: ["population threshold θ_pop = δ+√δ", fmt(th.threshold)], key: "threshold", values: [th.threshold] },
          { cells: ["population outlier ℓ/κ", Number.isFinite(p.population_eigenvalue) ? fmt(p.population_eigenvalue)
            : "none: θ below the population threshold"], key: "outlier", values: [p.population_eigenvalue] },
          { cells: ["cos²(v₁, h)", fmt(p.population_overlap)], key: "overlap", values: [p.population_overlap] },
          { cells: ["bulk right edge /κ, (1+√δ)²", fmt(th.edge)], key: "edge", values: [th.edge] },
          spikeReadoutRow(th.sim, s.theta, "population", this.data.simulations),
        ];
      },
    },

    sample: {
      panels: [{ ratio: 1, xlabel: "θ (units of κ)", ylabel: "top eigenvalue / κ", title: "top eigenvalue of S" },
        { ratio: 1, xlabel: "θ (units of κ)", ylabel: "squared overlap with h", title: "overlaps" }],
      height: 280,
      theory(s, f) {
        const grid = linspace(0.0, 8.0, 400);
        return {
          here: TH.thresholds(f.delta, s.gamma), edge: TH.bulk_edges(f.delta, s.gamma)[1], grid,
          curves: TH.spike(grid, f.delta, s.gamma, 1.0), point: TH.spike(s.theta, f.delta, s.gamma, 1.0),
          sim: spikeCurve(this.data, f.delta, s.gamma),
        };
      },
      draw([left, right], th, s) {
        const top = maxFinite(th.curves.sample_eigenvalue, th.edge);
        const simTop = th.sim ? maxFinite(th.sim.points.map((p) => p.top[0] + p.top[1])) : 0;
        left.begin([0, 8], [0, this.limits.get("y", 1.05 * Math.max(top, simTop))],
          { title: `top eigenvalue of S (γ = ${fmt(s.gamma)})` });
        left.hline(th.edge, { color: this.colors.edge, dash: "dot", width: 1.2 });
        left.vline(th.here[1], { color: this.colors.causal, dash: "dot", width: 1.2 });
        left.line(th.grid, th.curves.sample_eigenvalue, { color: this.colors.causal });
        simPoints(left, th.sim, "top", this.colors.causal);
        const y = Number.isFinite(th.point.sample_eigenvalue) ? th.point.sample_eigenvalue : th.edge;
        left.marker(s.theta, y, { size: 5.5, color: "#000", fill: "gold" });
        left.end();
        right.begin([0, 8], [0, 1.02]);
        right.vline(th.here[0], { color: this.colors.mean, dash: "dot", width: 1.2 });
        right.vline(th.here[1], { color: this.colors.causal, dash: "dot", width: 1.2 });
        right.line(th.grid, th.curves.population_overlap, { color: this.colors.mean, dash: "dash" });
        right.line(th.grid, th.curves.sample_overlap, { color: this.colors.causal });
        simPoints(right, th.sim, "overlap_h", this.colors.causal);
        right.marker(s.theta, th.point.sample_overlap, { size: 5.5, color: "#000", fill: "gold" });
        right.end();
      },
      legend(th) {
        const items = [["line", this.colors.causal, "sample (S): outlier λ/κ, cos²(v̂₁, h)"],
          ["dash", this.colors.mean, "population: cos²(v₁, h)"], ["dot", this.colors.edge, "bulk right edge"],
          ["dot", this.colors.causal, "sample threshold δ+x*"], ["dot", this.colors.mean, "population threshold δ+√δ"],
          ["o", "gold", "θ of the slider"]];
        if (th.sim) items.push(["s", this.colors.causal, "simulated, mean ± sd"]);
        return items;
      },
      readout(th, s) {
        const p = th.point;
        return [
          { cells: ["thresholds θ_pop, θ_sample", `${fmt(th.here[0])}, ${fmt(th.here[1])}`], key: "thresholds", values: th.here },
          { cells: ["sample outlier λ/κ, cos²(v̂₁, h)", `${fmt(p.sample_eigenvalue)}, ${fmt(p.sample_overlap)}`],
            key: "sample", values: [p.sample_eigenvalue, p.sample_overlap] },
          { cells: ["population outlier ℓ/κ, cos²(v₁, h)", `${fmt(p.population_eigenvalue)}, ${fmt(p.population_overlap)}`],
            key: "population", values: [p.population_eigenvalue, p.population_overlap] },
          { cells: ["bulk right edge /κ", fmt(th.edge)], key: "edge", values: [th.edge] },
          spikeReadoutRow(th.sim, s.theta, "sample", this.data.simulations),
        ];
      },
    },

    family: {
      panels: [{ ratio: 1, xlabel: "position t", ylabel: "weight w_t (sum 1)", integer: true },
        { ratio: 1, xlabel: "α/κ", ylabel: "cos²(û, u)", title: "recovery against α/κ" }],
      height: 280,
      theory(s, f) {
        const p = { family: s.family, T: f.T, r: f.r, L: f.L, tau: 0.0 };
        const R = correlation(p.family, p.T, p.r, p.L);
        const rows = {};
        for (const name of ["mean", "causal", "optimal"]) {
          const w = weightsFor(name, p);
          const alpha = TH.alpha(w, R);
          const kappa = TH.kappa(w);
          rows[name] = { w, alpha, kappa, snr: TH.snr(w, R),
            overlap: TH.signal(f.delta, f.gamma, alpha, kappa, f.mu_norm2).sample_overlap };
        }
        const lmax = lambdaMax(p.family, p.T, p.r, p.L);
        const sims = this.data.simulations.points.filter((q) => q.family === s.family);
        return { rows, lmax, sims };
      },
      draw([prof, curve], th, s) {
        const f = this.data.fixed;
        const all = Object.values(th.rows).flatMap((r) => Array.from(r.w));
        const pos = Array.from({ length: f.T }, (_, i) => i + 1);
        prof.begin([0.5, f.T + 0.5], [0, this.limits.get("w", 1.1 * Math.max(...all))],
          { title: `${s.family} R (T = ${f.T}${s.family === "markov" ? `, r = ${fmt(f.r)}` : ""}`
            + `${["prefix", "suffix", "blocks"].includes(s.family) ? `, L = ${f.L}` : ""})` });
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
        items.push(["line", this.colors.theory, "predicted cos²(û, u)"], ["dot", this.colors.optimal, "λmax(R)"]);
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
      header: ["weights", "α", "κ", "α/κ", "cos²(û, u) predicted", "simulated"],
    },
  };

  // ----------------------------------------------------------------------------------------- the widget

  function swatch(kind, color) {
    const svg = (body) => `<svg width="22" height="10" aria-hidden="true">${body}</svg>`;
    const dash = { line: "", dash: "5 3", dot: "1.5 2.5", dashdot: "6 2 1.5 2" }[kind];
    if (dash !== undefined) return svg(`<line x1="1" y1="5" x2="21" y2="5" stroke="${color}" stroke-width="2" stroke-dasharray="${dash}"/>`);
    if (kind === "patch") return svg(`<rect x="3" y="1" width="16" height="8" fill="${color}"/>`);
    if (kind === "s") return svg(`<rect x="7" y="1.5" width="7" height="7" fill="#fff" stroke="${color}" stroke-width="1.3"/>`);
    if (kind === "v") return svg(`<path d="M6 1 L16 1 L11 9 Z" fill="${color}"/>`);
    return svg(`<circle cx="11" cy="5" r="4" fill="${color}" stroke="#000" stroke-width="1"/>`);
  }

  class Explorer {
    constructor(root, data) {
      if (!KINDS[data.kind]) throw new Error(`unknown explorer kind ${data.kind}`);
      Object.assign(this, KINDS[data.kind]);
      this.root = root;
      this.data = data;
      this.colors = data.colors;
      this.defaults = Object.assign({}, data.state);
      this.state = Object.assign({}, data.state);
      this.limits = new AxisLimits();
      this.timings = [];
      this.redraws = 0;
      this.build();
      this.layout();
      this.redraw(false);
      if (global.ResizeObserver) {
        new global.ResizeObserver(() => {
          if (Math.abs(this.root.clientWidth - this.width) > 2) {
            this.layout();
            this.redraw(false);
          }
        }).observe(this.root);
      }
      root.dataset.ready = "1";
    }

    build() {
      const root = this.root;
      root.querySelectorAll(".attnlib-explorer-fallback").forEach((n) => n.remove());
      this.controlsBox = el("div", { class: "ax-controls" });
      this.inputs = {};
      for (const row of this.data.controls) {
        const line = el("div", { class: "ax-row" });
        for (const spec of row) line.append(this.control(spec));
        this.controlsBox.append(line);
      }
      const reset = el("button", { type: "button", class: "ax-reset", text: "reset", title: "back to the default setting" });
      reset.addEventListener("click", () => {
        this.limits = new AxisLimits();
        this.update(Object.assign({}, this.defaults));
      });
      this.controlsBox.lastChild.append(reset);
      this.figure = el("div", { class: "ax-figure" });
      this.plots = this.panels.map((p) => new Plot(p));
      this.plots.forEach((p) => this.figure.append(p.canvas));
      this.legendBox = el("div", { class: "ax-legend" });
      this.readoutBox = el("table", { class: "ax-readout" });
      this.message = el("div", { class: "ax-message", role: "status" });
      root.append(this.controlsBox, this.figure, this.legendBox, this.readoutBox, this.message);
      this.sync();
    }

    control(spec) {
      const name = spec.name;
      const box = el(spec.kind === "toggle" ? "div" : "label", { class: "ax-control", "data-control": name,
        title: spec.help || "" });
      box.append(el("span", { class: "ax-label", text: spec.label }));
      let input;
      if (spec.kind === "float" || spec.kind === "int") {
        input = el("input", { type: "range", min: "0", step: "1", "aria-label": spec.label });
        const out = el("output", { class: "ax-value" });
        input.addEventListener("input", () => this.update({ [name]: this.sliderValues(spec)[Number(input.value)] }));
        box.append(input, out);
        this.inputs[name] = { spec, input, out };
      } else if (spec.kind === "dropdown") {
        input = el("select", { "aria-label": spec.label });
        for (const [value, help] of spec.options) input.append(el("option", { value, text: `${value}: ${help}` }));
        input.addEventListener("change", () => this.update({ [name]: input.value }));
        box.append(input);
        this.inputs[name] = { spec, input };
      } else if (spec.kind === "toggle") {
        input = el("span", { class: "ax-toggle", role: "group", "aria-label": spec.label });
        for (const [value, help] of spec.options) {
          const b = el("button", { type: "button", "data-value": value, title: help, text: value });
          b.addEventListener("click", (event) => { event.preventDefault(); this.update({ [name]: value }); });
          input.append(b);
        }
        box.append(input);
        this.inputs[name] = { spec, input };
      } else {
        input = el("input", { type: "checkbox" });
        input.addEventListener("change", () => this.update({ [name]: input.checked }));
        box.prepend(input);
        this.inputs[name] = { spec, input };
      }
      return box;
    }

    sliderValues(spec) {
      if (spec.values) return spec.values;
      const high = typeof spec.high === "string" ? this.state[spec.high] : spec.high;
      return Array.from({ length: high - spec.low + 1 }, (_, i) => spec.low + i);
    }

    sync() { // controls show the state; hide what does not apply
      for (const [name, { spec, input, out }] of Object.entries(this.inputs)) {
        const value = this.state[name];
        if (spec.kind === "float" || spec.kind === "int") {
          const values = this.sliderValues(spec);
          input.max = String(values.length - 1);
          input.value = String(values.indexOf(value));
          input.setAttribute("aria-valuetext", String(value));
          out.textContent = String(value);
        } else if (spec.kind === "dropdown") {
          input.value = value;
        } else if (spec.kind === "toggle") {
          input.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.value === value)));
        } else {
          input.checked = value;
        }
        const when = spec.shown_when;
        const shown = !when || !(when[0] in this.state) || when[1].includes(this.state[when[0]]);
        input.closest(".ax-control").hidden = !shown;
      }
    }

    update(changes) {
      const next = Object.assign({}, this.state, changes);
      if ("T" in changes && !("L" in changes) && "L" in next) next.L = Math.min(next.L, next.T);
      const previous = this.state;
      this.state = next;
      this.sync();
      if (!this.redraw(true)) {
        this.state = previous;
        this.sync();
      }
    }

    layout() {
      const width = Math.max(240, this.root.clientWidth || 700);
      this.width = this.root.clientWidth;
      const total = this.panels.reduce((a, p) => a + p.ratio, 0);
      const narrow = width < 560 && this.panels.length > 1;
      this.plots.forEach((plot, i) => {
        const w = narrow ? width : Math.floor((width - 4 * (this.panels.length - 1)) * this.panels[i].ratio / total);
        plot.resize(w, this.panels[i].square ? Math.min(this.height, w + 20) : this.height);
      });
    }

    redraw(timed) {
      const t0 = global.performance.now();
      try {
        const th = this.theory(this.state, this.data.fixed);
        this.draw(this.plots, th, this.state);
        this.showLegend(this.legend(th, this.state));
        this.showReadout(this.readout(th, this.state));
        this.message.textContent = "";
      } catch (err) {
        this.message.textContent = String(err.message || err);
        return false;
      } finally {
        if (timed) this.timings.push(global.performance.now() - t0);
      }
      this.redraws += 1;
      this.root.dataset.redraws = String(this.redraws);
      this.root.dataset.state = JSON.stringify(this.state);
      return true;
    }

    showLegend(items) {
      const html = items.map(([kind, color, label]) => `<span class="ax-item">${swatch(kind, color)}${escape(label)}</span>`).join("");
      if (html !== this.legendHTML) {
        this.legendBox.innerHTML = html;
        this.legendHTML = html;
      }
    }

    showReadout(rows) {
      const box = this.readoutBox;
      box.textContent = "";
      if (this.header) box.append(el("tr", {}, this.header.map((h) => el("th", { text: h }))));
      for (const row of rows) {
        const tr = el("tr", { "data-key": row.key, "data-values": JSON.stringify(row.values.map((v) => (Number.isFinite(v) ? v : null))) });
        const span = this.header ? this.header.length - row.cells.length + 1 : 1;
        row.cells.forEach((c, i) => tr.append(el("td", i === row.cells.length - 1 && span > 1
          ? { text: c, colspan: String(span) } : { text: c })));
        box.append(tr);
      }
    }
  }

  function escape(text) {
    return String(text).replace(/[&<>"]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[ch]));
  }

  const instances = [];

  function boot() {
    for (const root of document.querySelectorAll(".attnlib-explorer")) {
      if (root.dataset.ready || root.dataset.failed) continue;
      try {
        const script = root.querySelector("script.attnlib-explorer-data");
        instances.push(new Explorer(root, JSON.parse(script.textContent)));
      } catch (err) {
        root.dataset.failed = "1";
        root.append(el("p", { class: "ax-message", text: `This interactive figure could not start: ${err.message || err}` }));
        global.console.error(err);
      }
    }
  }

  global.attnlibExplorers = { instances, boot, format: fmt, sig };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})(window);
