/*
 * attnlib-kinds-heads.js: the explorer kind "heads" (concatenated causal heads: their number, each head's
 * tau, anti-causal even heads; the outliers of S along ||mu||^2 with their thresholds, and the top spike's
 * threshold as heads are added) and the port of attnlib.theory.heads that it draws, window.attnlibWeb.heads.
 *
 * The port follows attnlib's order of operations: the H x H matrices A = W'RW and B = W'W, the resolvent
 * matrix Phi(l) = U diag((1 + psi(l/b_i))/l) U' (psi = zeta G - 1 of MP_delta in its stable form, 1/l where
 * b_i = 0),
 * K(l) = A^{1/2} Phi(l) A^{1/2}, the sample map z(y) = y (1 + gamma sum_i psi(y/b_i)), its critical point
 * y* (the first sign change of z' on attnlib's grid, then bisection to the last bit), spike k where
 * h2 lambda_k(K(l)) = 1 (bisection), thresholds 1/lambda_k(K(y)) - delta. tests/browser/test_js_theory.py
 * compares it with attnlib.
 *
 * A classic script: it needs attnlib-theory.js and attnlib-format.js loaded first (the kind also
 * attnlib-plot.js, at draw time), and adds the kind to window.attnlibWeb.kinds.
 */
(function (global) {
  "use strict";

  const TH = global.attnlibTheory;
  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const ZERO = 1e-12;

  // ------------------------------------------------------------------------------------ small matrices

  function matmul(X, Y) {
    const n = X.length;
    const m = Y[0].length;
    return Array.from({ length: n }, (_, i) => {
      const out = new Float64Array(m);
      for (let j = 0; j < m; j++) {
        let acc = 0.0;
        for (let k = 0; k < Y.length; k++) acc += X[i][k] * Y[k][j];
        out[j] = acc;
      }
      return out;
    });
  }

  /** U diag(f(values)) U' from an eigh() result (vectors[k] the k-th eigenvector). */
  function compose(vectors, diag) {
    const n = diag.length;
    return Array.from({ length: n }, (_, i) => Float64Array.from({ length: n }, (_, j) => {
      let s = 0.0;
      for (let k = 0; k < n; k++) s += vectors[k][i] * diag[k] * vectors[k][j];
      return s;
    }));
  }

  function descending(M) {
    return Array.from(TH.eigh(M).values).reverse();
  }

  const RELATIVE_K = 1e-6; // attnlib.theory.heads.RELATIVE_K

  /** The eigenvalues of K, descending, those at most RELATIVE_K times the largest set to 0. */
  function kValues(K) {
    const lam = descending(K);
    return lam.map((v) => (v > RELATIVE_K * Math.max(lam[0], 0.0) ? v : 0.0));
  }

  // ---------------------------------------------------------------------------------- heads and matrices

  /** The heads (T x H, rows = positions): causal weights at each tau, the heads in `reversed` read backwards. */
  function headsMatrix(T, taus, reversed = []) {
    const cols = taus.map((tau, j) => {
      const w = Array.from(TH.causal(T, tau));
      return reversed.includes(j) ? w.reverse() : w;
    });
    return Array.from({ length: T }, (_, t) => Float64Array.from(cols, (w) => w[t]));
  }

  function headMatrices(R, W) {
    const Wt = Array.from(W[0], (_, j) => Float64Array.from(W, (row) => row[j]));
    return [matmul(matmul(Wt, R), W), matmul(Wt, W)];
  }

  function noiseScales(B) {
    const b = Array.from(TH.eigh(B).values, (v) => Math.max(v, 0.0));
    const top = b[b.length - 1];
    return b.map((v) => (v <= ZERO * top ? 0.0 : v));
  }

  function spectral(B) {
    const e = TH.eigh(B);
    const b = Array.from(e.values, (v) => Math.max(v, 0.0));
    const top = b[b.length - 1];
    return { b: b.map((v) => (v <= ZERO * top ? 0.0 : v)), vectors: e.vectors };
  }

  function root(A) {
    const e = TH.eigh(A);
    return compose(e.vectors, Array.from(e.values, (v) => Math.sqrt(Math.max(v, 0.0))));
  }

  // ------------------------------------------------------------------------------- MP_delta and the maps

  /** psi(zeta) = zeta G(zeta) - 1 of MP_delta, or psi' = -psi/r (attnlib.theory.heads.mp_psi). */
  function mpPsi(zeta, delta, derivative = false) {
    const edge = (1.0 + Math.sqrt(delta)) ** 2;
    if (zeta < edge * (1.0 - 1e-13)) throw new RangeError("zeta must be at least the edge");
    const atEdge = Math.abs(zeta / edge - 1.0) < 1e-14; // the edge up to rounding: r = 0 exactly
    const a = atEdge ? 2.0 * Math.sqrt(delta) : zeta - 1.0 - delta;
    const r = atEdge ? 0.0 : Math.sqrt(Math.max(a * a - 4.0 * delta, 0.0));
    const psi = 2.0 / (a + r);
    if (!derivative) return psi;
    if (r === 0) throw new RangeError("psi' is infinite at the edge of MP_delta");
    return -psi / r;
  }

  function phi(l, b, delta, derivative = false) {
    if (!(b > 0)) return derivative ? -1.0 / l ** 2 : 1.0 / l;
    const zeta = l / b;
    const psi = mpPsi(zeta, delta);
    return derivative ? (zeta * mpPsi(zeta, delta, true) - 1.0 - psi) / l ** 2 : (1.0 + psi) / l;
  }

  function populationEdge(B, delta) {
    const b = noiseScales(B);
    return b[b.length - 1] * (1.0 + Math.sqrt(delta)) ** 2;
  }

  function resolvent(l, sp, delta, derivative = false) {
    return compose(sp.vectors, sp.b.map((b) => phi(l, b, delta, derivative)));
  }

  function signalMatrix(l, S, sp, delta) {
    return matmul(matmul(S, resolvent(l, sp, delta)), S);
  }

  /** z(y) or z'(y) over the positive scales b (attnlib.theory.heads._z). */
  function zOf(y, b, delta, gamma, derivative = false) {
    let s = 0.0;
    for (const bi of b) {
      if (!(bi > 0)) continue;
      const zeta = y / bi;
      const psi = mpPsi(zeta, delta);
      if (!derivative) {
        s += psi;
        continue;
      }
      const a = zeta - 1.0 - delta;
      const r = Math.sqrt(Math.max(a * a - 4.0 * delta, 0.0));
      if (r === 0) throw new RangeError("z' is infinite at the population edge");
      const gap = -((1.0 + delta) * (2.0 * zeta - 1.0 - delta) + 4.0 * delta) / (r + zeta);
      s += psi * gap / r;
    }
    return derivative ? 1.0 + gamma * s : y * (1.0 + gamma * s);
  }

  /** The root of f in [lo, hi] (f(lo) and f(hi) of opposite signs), by bisection to the last bit. */
  function bisect(f, lo, hi) {
    let flo = f(lo);
    for (let i = 0; i < 2000; i++) {
      const mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      const fm = f(mid);
      if (fm === 0) return mid;
      if ((fm > 0) === (flo > 0)) {
        lo = mid;
        flo = fm;
      } else {
        hi = mid;
      }
    }
    return 0.5 * (lo + hi);
  }

  function criticalPoint(B, delta, gamma) {
    const edge = populationEdge(B, delta);
    if (gamma === 0) return edge;
    const b = noiseScales(B).filter((v) => v > 0);
    const dz = (y) => zOf(y, b, delta, gamma, true);
    const n = 400;
    let prev = null;
    for (let i = 0; i < n; i++) { // edge (1 + geomspace(1e-12, 1e4, 400)), as attnlib
      const y = edge * (1.0 + 10 ** (-12 + (16 * i) / (n - 1)));
      if (dz(y) > 0) {
        if (prev === null) throw new RangeError("z'(y) is positive at the population edge: no critical point");
        return bisect(dz, prev, y);
      }
      prev = y;
    }
    throw new RangeError("no critical point of z(y) on the grid");
  }

  function sampleMap(y, B, delta, gamma, derivative = false) {
    return zOf(y, noiseScales(B).filter((v) => v > 0), delta, gamma, derivative);
  }

  function bulkUpperEdge(B, delta, gamma) {
    const y = criticalPoint(B, delta, gamma);
    return gamma === 0 ? y : sampleMap(y, B, delta, gamma);
  }

  // ---------------------------------------------------------------------------------------------- spikes

  /** attnlib.theory.heads.spikes: outliers (NaN below) and squared overlaps with R^H (x) h (0 below). */
  function spikes(h2, A, B, delta, gamma) {
    const sp = spectral(B);
    const S = root(A);
    const edge = populationEdge(B, delta);
    const top = kValues(signalMatrix(edge, S, sp, delta)).map((v) => v * h2);
    const yStar = criticalPoint(B, delta, gamma);
    const out = { population_eigenvalue: [], sample_eigenvalue: [], population_overlap: [], sample_overlap: [] };
    top.forEach((value, k) => {
      if (!(value > 1.0)) {
        out.population_eigenvalue.push(NaN);
        out.sample_eigenvalue.push(NaN);
        out.population_overlap.push(0.0);
        out.sample_overlap.push(0.0);
        return;
      }
      const f = (l) => h2 * descending(signalMatrix(l, S, sp, delta))[k] - 1.0;
      let hi = 2.0 * edge;
      while (f(hi) > 0) hi *= 2.0;
      const l = bisect(f, edge, hi);
      let pop = 0.0; // at the edge Phi' is infinite: overlap 0
      if (l > edge * (1.0 + 1e-14)) {
        const Phi = resolvent(l, sp, delta);
        const dPhi = resolvent(l, sp, delta, true);
        const e = TH.eigh(matmul(matmul(S, Phi), S));
        const y = e.vectors[e.values.length - 1 - k];
        const a = Array.from(S, (row) => row.reduce((acc, v, j) => acc + v * y[j], 0.0));
        const quad = (M) => a.reduce((acc, ai, i) => acc + ai * M[i].reduce((s, v, j) => s + v * a[j], 0.0), 0.0);
        pop = quad(matmul(Phi, Phi)) / -quad(dPhi);
      }
      out.population_eigenvalue.push(l);
      out.population_overlap.push(pop);
      if (l > yStar) {
        const z = sampleMap(l, B, delta, gamma);
        out.sample_eigenvalue.push(z);
        out.sample_overlap.push(pop * l * sampleMap(l, B, delta, gamma, true) / z);
      } else {
        out.sample_eigenvalue.push(NaN);
        out.sample_overlap.push(0.0);
      }
    });
    return out;
  }

  /** [population, sample] thresholds on ||mu||^2 of every spike (0 if q alone suffices, Infinity if none). */
  function thresholds(R, W, delta, gamma) {
    const [A, B] = headMatrices(R, W);
    const sp = spectral(B);
    const S = root(A);
    return [0.0, gamma].map((g) => {
      const lam = kValues(signalMatrix(criticalPoint(B, delta, g), S, sp, delta));
      return lam.map((v) => (v > 0 ? Math.max(1.0 / v - delta, 0.0) : Infinity));
    });
  }

  /** Spike k along its branch, parametrised by the population outlier l (attnlib.theory.heads.spike_curves). */
  function spikeCurves(R, W, delta, gamma, ells) {
    const [A, B] = headMatrices(R, W);
    const sp = spectral(B);
    const S = root(A);
    const yStar = criticalPoint(B, delta, gamma);
    const H = A.length;
    const mu2 = Array.from({ length: H }, () => new Float64Array(ells.length));
    const sample = new Float64Array(ells.length);
    ells.forEach((l, i) => {
      kValues(signalMatrix(l, S, sp, delta)).forEach((v, k) => {
        mu2[k][i] = v > 0 ? 1.0 / v - delta : Infinity;
      });
      sample[i] = l > yStar ? sampleMap(l, B, delta, gamma) : NaN;
    });
    return { mu2, sample, yStar };
  }

  function signalSpikes(R, W, delta, gamma, mu2) {
    const [A, B] = headMatrices(R, W);
    const out = spikes(mu2 + delta, A, B, delta, gamma);
    const f = mu2 / (mu2 + delta);
    out.population_overlap = out.population_overlap.map((v) => v * f);
    out.sample_overlap = out.sample_overlap.map((v) => v * f);
    return out;
  }

  web.heads = { headsMatrix, headMatrices, mpPsi, populationEdge, sampleMap, criticalPoint, bulkUpperEdge, spikes,
    signalSpikes, thresholds, spikeCurves };

  // ------------------------------------------------------------------------------------------- the kind

  if (!web.format) return; // the theory alone (the JS test loads it without the explorers)
  const { fmt, sameState } = web.format;
  const COLORS = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd"];
  const MU2_MAX = 2.0;

  function stateHeads(s, T) {
    const H = Number(s.heads); // a toggle: "1" to "4"
    const taus = Array.from({ length: H }, (_, j) => s[`tau${j + 1}`]);
    const reversed = s.anticausal ? [1, 3].filter((j) => j < H) : [];
    return headsMatrix(T, taus, reversed);
  }

  const heads = {
    panels: [{ ratio: 1.3, xlabel: "‖μ‖²", ylabel: "outliers of S" },
      { ratio: 0.9, xlabel: "heads used (the first H)", ylabel: "‖μ‖² threshold", integer: true }],
    height: 280,
    theory(s, f) {
      const R = TH.correlation(s.family, f.T, s);
      const W = stateHeads(s, f.T);
      const [A, B] = headMatrices(R, W);
      const yStar = criticalPoint(B, s.delta, s.gamma);
      const aMax = descending(A)[0];
      const top = Math.max(2.0 * yStar, 2.0 * aMax * (Math.max(MU2_MAX, s.mu_norm2) + s.delta));
      const ells = Array.from({ length: 200 }, (_, i) => yStar * (1.0 + 1e-8 * ((top / yStar - 1.0) / 1e-8) ** (i / 199)));
      const curves = spikeCurves(R, W, s.delta, s.gamma, ells);
      const nested = Array.from({ length: W[0].length }, (_, h) => thresholds(R, W.map((row) => row.slice(0, h + 1)), s.delta, s.gamma)[1]);
      const sims = this.data.simulations;
      return {
        curves, nested, edge: sampleMap(yStar, B, s.delta, s.gamma),
        thresholds: thresholds(R, W, s.delta, s.gamma)[1],
        point: signalSpikes(R, W, s.delta, s.gamma, s.mu_norm2),
        sim: sims.settings.find((x) => sameState(x.state, s)) || null,
      };
    },
    draw([left, right], th, s) {
      const xmax = 1.5 * Math.max(MU2_MAX, s.mu_norm2);
      let highest = 1.1 * th.edge;
      th.curves.sample.forEach((v, i) => {
        if (Number.isFinite(v) && th.curves.mu2.some((mu2) => mu2[i] <= xmax)) highest = Math.max(highest, v);
      });
      const ymax = this.limits.get("top", highest);
      left.begin([0, xmax], [0.8 * th.edge, ymax], { title: "the spikes of the concatenated heads" });
      left.hline(th.edge, { color: this.colors.edge, dash: "dot", width: 1.2 });
      th.curves.mu2.forEach((mu2, k) => {
        left.line(mu2, th.curves.sample, { color: COLORS[k] });
        if (Number.isFinite(th.thresholds[k])) left.vline(th.thresholds[k], { color: COLORS[k], dash: "dot", width: 1.1 });
      });
      if (th.sim) {
        for (const [mu2, tops] of th.sim.points) {
          for (const [mean, sd] of tops) left.errorbar(mu2, mean, sd, { shape: "s", size: 3, color: "#555", fill: "#fff" });
        }
      }
      left.vline(s.mu_norm2, { color: "#000", dash: "dash", width: 1 });
      th.point.sample_eigenvalue.forEach((v, k) => {
        if (Number.isFinite(v)) left.marker(s.mu_norm2, v, { size: 4, color: "#000", fill: COLORS[k] });
      });
      left.end();
      const hs = th.nested.map((_, h) => h + 1);
      const vals = th.nested.flatMap((t) => t.slice(0, 2)).filter(Number.isFinite);
      right.begin([0.5, hs.length + 0.5], [0, 1.1 * Math.max(0.1, ...vals)],
        { title: `${s.family}, δ = ${fmt(s.delta)}, γ = ${fmt(s.gamma)}` });
      for (let k = 0; k < Math.min(2, hs.length); k++) {
        const xs = hs.slice(k);
        const ys = th.nested.slice(k).map((t) => t[k]);
        right.line(xs, ys, { color: COLORS[k] });
        xs.forEach((x, i) => right.marker(x, ys[i], { size: 3.5, color: COLORS[k], fill: COLORS[k] }));
      }
      right.end();
    },
    legend(th) {
      const items = th.curves.mu2.map((_, k) => ["line", COLORS[k], `spike ${k + 1}`]);
      items.push(["dot", "#555", "threshold on ‖μ‖²"], ["dot", this.colors.edge, "bulk edge"],
        ["dash", "#000", "‖μ‖² of the read-out"]);
      if (th.sim) items.push(["s", "#555", `simulated (d = ${this.data.simulations.d}), mean ± sd`]);
      return items;
    },
    header: (s) => ["spike", "threshold on ‖μ‖²", `outlier at ‖μ‖² = ${fmt(s.mu_norm2)}`, "cos²(v̂, ℝᴴ⊗u)"],
    readout(th) {
      const rows = th.thresholds.map((thr, k) => ({
        cells: [`${k + 1}`, fmt(thr), fmt(th.point.sample_eigenvalue[k]), fmt(th.point.sample_overlap[k])],
        key: `spike-${k + 1}`, values: [thr, th.point.sample_eigenvalue[k], th.point.sample_overlap[k]],
      }));
      rows.push({ cells: ["bulk edge", fmt(th.edge)], key: "edge", values: [th.edge] });
      return rows;
    },
  };

  web.kinds = Object.assign(web.kinds || {}, { heads });
})(typeof window !== "undefined" ? window : globalThis);
