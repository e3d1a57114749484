/*
 * attnlib-theory.js: the closed forms of attnlib (theory, weights, the explorers' R families) for the HTML
 * book, so that its live figures recompute the theory in the reader's browser with no kernel.
 *
 * A classic script (no ES module: pages opened from file:// may not load modules). It defines one global,
 * window.attnlibTheory, whose functions carry attnlib's names and arguments:
 *
 *   bulk_density(x, delta, gamma, kappa)      density of kappa (MP_delta [x] MP_gamma), x a number or an array
 *   critical_x(delta, gamma)                  the three roots of x^3 - sigma_2 x - 2 sigma_3 (descending)
 *   outlier_map(x, delta, gamma, kappa)       kappa (x+1)(x+delta)(x+gamma)/x^2
 *   bulk_edges, mp_edges, zero_atom, thresholds, spike, spike_strength, signal, mean_spike
 *   weights: mean(T), causal(T, tau, strict), optimal(R, normalize), snr(w, R), alpha(w, R), kappa(w)
 *   correlation(family, T, r, L)              R of the explorers' families (attnlib.explorers.make_process)
 *   eigh(R)                                   symmetric eigen-decomposition (Householder + QL), ascending
 *
 * attnlib is the reference; tests/browser/test_js_theory.py compares the two on 10,000 random points.
 * Every formula is written in numpy's order of operations, and the two libm functions whose last bit
 * matters where the density's cubic cancels near the edges are computed as numpy computes them: x**3 as
 * the correctly rounded cube (numpy calls pow(x, 3)) and cbrt as glibc's (frexp, a polynomial, one
 * Halley step, ldexp). Errors are RangeError with a message naming the argument, as in attnlib.
 */
(function (global) {
  "use strict";

  // ------------------------------------------------------------------------------------------ validation

  function show(value) {
    return typeof value === "string" ? JSON.stringify(value) : String(value);
  }

  function isNumber(value) {
    return typeof value === "number" && Number.isFinite(value);
  }

  function positive(name, value) {
    if (!isNumber(value) || !(value > 0)) {
      throw new RangeError(`${name} must be a positive finite number, got ${show(value)}`);
    }
    return value;
  }

  function nonnegative(name, value) {
    if (!isNumber(value) || !(value >= 0)) {
      throw new RangeError(`${name} must be a non-negative finite number, got ${show(value)}`);
    }
    return value;
  }

  function finite(name, value) {
    if (!isNumber(value)) throw new RangeError(`${name} must be a finite real number, got ${show(value)}`);
    return value;
  }

  function positiveInt(name, value, minimum) {
    const low = minimum === undefined ? 1 : minimum;
    if (!Number.isInteger(value) || value < low) {
      throw new RangeError(`${name} must be an integer >= ${low}, got ${show(value)}`);
    }
    return value;
  }

  function between(name, value, low, high) {
    if (!isNumber(value) || value < low || value > high) {
      throw new RangeError(`${name} must be between ${low} and ${high}, got ${show(value)}`);
    }
    return value;
  }

  function choice(name, value, allowed) {
    if (!allowed.includes(value)) {
      throw new RangeError(`${name} must be one of ${allowed.map(show).join(", ")}, got ${show(value)}`);
    }
    return value;
  }

  function finiteArray(name, values) {
    const arr = Array.from(values);
    arr.forEach((v, i) => {
      if (!isNumber(v)) throw new RangeError(`${name} must contain only finite numbers, got ${show(v)} at ${i}`);
    });
    return arr;
  }

  // ------------------------------------------------------------------------ libm, as numpy computes it

  const view = new DataView(new ArrayBuffer(8));
  const TWO54 = 18014398509481984;

  /** [m, e] with |x| = m 2^e, m in [0.5, 1) (x finite, non-zero), as C's frexp. */
  function frexp(x) {
    let shift = 0;
    let ax = Math.abs(x);
    if (ax < 2.2250738585072014e-308) {
      ax *= TWO54;
      shift = -54;
    }
    view.setFloat64(0, ax);
    const high = view.getUint32(0);
    view.setUint32(0, (high & 0x800fffff) | (1022 << 20));
    return [view.getFloat64(0), shift + ((high >>> 20) & 0x7ff) - 1022];
  }

  function pow2(n) {
    view.setUint32(0, (n + 1023) << 20);
    view.setUint32(4, 0);
    return view.getFloat64(0);
  }

  /** y 2^n, as C's ldexp. */
  function ldexp(y, n) {
    let out = y;
    let k = n;
    while (k > 1000) { out *= pow2(1000); k -= 1000; }
    while (k < -1000) { out *= pow2(-1000); k += 1000; }
    return out * pow2(k);
  }

  const CBRT2 = 1.2599210498948731648;
  const SQR_CBRT2 = 1.5874010519681994748;
  const CBRT_FACTOR = [1.0 / SQR_CBRT2, 1.0 / CBRT2, 1.0, CBRT2, SQR_CBRT2];

  /** Cube root with glibc's algorithm (the libm numpy.cbrt calls): bit-identical results. */
  function cbrt(x) {
    if (x === 0 || !Number.isFinite(x)) return x + x;
    const [m, e] = frexp(x);
    // polynomial start (Horner), then one rational (Halley) step, then the exponent's third
    let u = 0.784932344976639262 - 0.145263899385486377 * m;
    u = -1.83469277483613086 + u * m;
    u = 2.44693122563534430 + u * m;
    u = -2.11499494167371287 + u * m;
    u = 1.50819193781584896 + u * m;
    u = 0.354895765043919860 + u * m;
    const u3 = u * u * u;
    const y = u * (u3 + 2.0 * m) / (2.0 * u3 + m) * CBRT_FACTOR[2 + (e % 3)];
    return ldexp(x > 0 ? y : -y, Math.trunc(e / 3));
  }

  const SPLIT = 134217729; // 2^27 + 1 (Veltkamp)

  /** [p, err] with p = fl(a b) and p + err = a b exactly (Dekker). */
  function twoProduct(a, b) {
    const p = a * b;
    let t = SPLIT * a;
    const ah = t - (t - a);
    const al = a - ah;
    t = SPLIT * b;
    const bh = t - (t - b);
    const bl = b - bh;
    return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
  }

  /** x**3 as numpy computes it (pow(x, 3)): the correctly rounded cube, through double-double products. */
  function cube(x) {
    const [p, e1] = twoProduct(x, x);
    const [h, e2] = twoProduct(p, x);
    return h + (e2 + e1 * x);
  }

  function copysign(magnitude, sign) {
    const m = Math.abs(magnitude);
    return sign < 0 || Object.is(sign, -0) ? -m : m;
  }

  // ---------------------------------------------------------------------------------------- bulk law

  const SQRT3_HALF = Math.sqrt(3.0) / 2.0;

  function sigmas(delta, gamma) {
    return [1.0 + delta + gamma, delta + gamma + delta * gamma, delta * gamma];
  }

  function ratios(delta, gamma, kappa) {
    positive("delta", delta);
    positive("gamma", gamma);
    positive("kappa", kappa);
  }

  /** [real, imag] of the complex pair of roots of phi^3 + B phi^2 + C phi + D (imag 0 if all real). */
  function complexPair(B, C, D) {
    const p = C - B * B / 3.0;
    const q = 2.0 * cube(B) / 27.0 - B * C / 3.0 + D;
    const half = q / 2.0;
    const disc = half * half + cube(p / 3.0);
    const hasPair = disc > 0;
    const sq = Math.sqrt(hasPair ? disc : 0.0);
    const u = -copysign(cbrt(Math.abs(q) / 2.0 + sq), q);
    const v = u === 0 ? 0.0 : -p / (3.0 * u);
    const real = -(u + v) / 2.0 - B / 3.0;
    const imag = hasPair ? SQRT3_HALF * Math.abs(u - v) : 0.0;
    return [real, imag];
  }

  function densityAt(x, s, kappa) {
    const t = x / kappa;
    const [a, b] = complexPair(s[0] - t, s[1], s[2]);
    if (!(t > 0 && b > 0)) return 0.0 / kappa;
    const modulus = Math.hypot(a, b); // |phi|, finite next to a hard edge at 0 where |phi| -> infinity
    return (b / modulus) / modulus / (Math.PI * t) / kappa;
  }

  /** Density of the continuous part of kappa (MP_delta [x] MP_gamma) at x (a number or an array). */
  function bulk_density(x, delta, gamma, kappa = 1.0) {
    ratios(delta, gamma, kappa);
    const s = sigmas(delta, gamma);
    if (typeof x === "number") return densityAt(finite("x", x), s, kappa);
    const xs = finiteArray("x", x);
    const out = new Float64Array(xs.length);
    for (let i = 0; i < xs.length; i++) out[i] = densityAt(xs[i], s, kappa);
    return out;
  }

  /** The three (real) roots of x^3 - sigma_2 x - 2 sigma_3, descending: x* first. */
  function critical_x(delta, gamma) {
    positive("delta", delta);
    positive("gamma", gamma);
    const [, s2, s3] = sigmas(delta, gamma);
    const r = 2.0 * Math.sqrt(s2 / 3.0);
    const arg = Math.min(1.0, Math.max(-1.0, (3.0 * s3 / s2) * Math.sqrt(3.0 / s2)));
    const phase = Math.acos(arg) / 3.0;
    return [0, 1, 2].map((k) => r * Math.cos(phase - 2.0 * Math.PI * k / 3.0));
  }

  function zOf(x, delta, gamma, kappa) {
    return kappa * (x + 1.0) * (x + delta) * (x + gamma) / (x * x);
  }

  /** kappa (x+1)(x+delta)(x+gamma)/x^2: the sample outlier of a spike at x = theta - delta. */
  function outlier_map(x, delta, gamma, kappa = 1.0) {
    if (typeof x === "number") return zOf(x, delta, gamma, kappa);
    return Float64Array.from(x, (v) => zOf(v, delta, gamma, kappa));
  }

  /** [lower, upper] ends of the continuous support of kappa (MP_delta [x] MP_gamma). */
  function bulk_edges(delta, gamma, kappa = 1.0) {
    ratios(delta, gamma, kappa);
    const [top, , low] = critical_x(delta, gamma);
    return [Math.max(zOf(low, delta, gamma, kappa), 0.0), zOf(top, delta, gamma, kappa)];
  }

  /** [lower, upper] = scale (1 -+ sqrt(ratio))^2: the support of scale * MP_ratio (continuous part). */
  function mp_edges(ratio, scale = 1.0) {
    positive("ratio", ratio);
    positive("scale", scale);
    const lo = 1.0 - Math.sqrt(ratio);
    const hi = 1.0 + Math.sqrt(ratio);
    return [scale * (lo * lo), scale * (hi * hi)];
  }

  /** Mass of the atom at 0: max(0, 1 - 1/delta, 1 - 1/gamma). */
  function zero_atom(delta, gamma) {
    positive("delta", delta);
    positive("gamma", gamma);
    return Math.max(0.0, 1.0 - 1.0 / delta, 1.0 - 1.0 / gamma);
  }

  /** [theta_population, theta_sample] = [delta + sqrt(delta), delta + x*]. */
  function thresholds(delta, gamma) {
    positive("delta", delta);
    positive("gamma", gamma);
    return [delta + Math.sqrt(delta), delta + critical_x(delta, gamma)[0]];
  }

  function spikeAt(theta, delta, gamma, kappa, s2, s3, [thetaPop, thetaSample]) {
    const x = theta - delta;
    const pop = theta > thetaPop; // the comparisons of thresholds(), as attnlib makes them
    const smp = theta > thetaSample;
    return {
      theta,
      population_eigenvalue: pop ? kappa * (x + 1.0) * (x + delta) / x : NaN,
      population_overlap: pop ? 1.0 - delta / (x * x) : 0.0,
      sample_eigenvalue: smp ? zOf(x, delta, gamma, kappa) : NaN,
      sample_overlap: smp ? (cube(x) - s2 * x - 2.0 * s3) / (x * x * (x + gamma)) : 0.0,
    };
  }

  /**
   * Spike of strength theta (units of kappa): population / sample eigenvalue (NaN below the threshold) and
   * squared overlaps (0 below). theta a number (an object of numbers) or an array (an object of arrays).
   */
  function spike(theta, delta, gamma, kappa = 1.0) {
    ratios(delta, gamma, kappa);
    const [, s2, s3] = sigmas(delta, gamma);
    const limits = thresholds(delta, gamma);
    if (typeof theta === "number") return spikeAt(nonnegative("theta", theta), delta, gamma, kappa, s2, s3, limits);
    const th = finiteArray("theta", theta);
    th.forEach((v) => nonnegative("theta", v));
    const rows = th.map((v) => spikeAt(v, delta, gamma, kappa, s2, s3, limits));
    const out = {};
    for (const key of ["theta", "population_eigenvalue", "population_overlap", "sample_eigenvalue",
      "sample_overlap"]) {
      out[key] = Float64Array.from(rows, (r) => r[key]);
    }
    return out;
  }

  /** theta = alpha (||mu||^2 + delta) / kappa. */
  function spike_strength(alpha, kappa, mu_norm2, delta) {
    nonnegative("alpha", alpha);
    positive("kappa", kappa);
    nonnegative("mu_norm2", mu_norm2);
    positive("delta", delta);
    return alpha * (mu_norm2 + delta) / kappa;
  }

  /** The signal spike, overlaps against u = mu/||mu|| (factor ||mu||^2 / (||mu||^2 + delta)). */
  function signal(delta, gamma, alpha, kappa, mu_norm2) {
    ratios(delta, gamma, kappa);
    const theta = spike_strength(alpha, kappa, mu_norm2, delta);
    const sp = spike(theta, delta, gamma, kappa);
    const factor = mu_norm2 > 0 ? mu_norm2 / (mu_norm2 + delta) : 0.0;
    sp.population_overlap *= factor;
    sp.sample_overlap *= factor;
    return sp;
  }

  /** The vocabulary-mean spike of the uncentered S: strength (sum w)^2 delta / kappa, against g. */
  function mean_spike(delta, gamma, weight_sum, kappa) {
    ratios(delta, gamma, kappa);
    finite("weight_sum", weight_sum);
    return spike(weight_sum * weight_sum * delta / kappa, delta, gamma, kappa);
  }

  // ----------------------------------------------------------------------------------------- weights

  function checkMatrix(name, R) {
    const T = R.length;
    if (!T || R.some((row) => row.length !== T)) throw new RangeError(`${name} must be a square matrix`);
    for (let i = 0; i < T; i++) {
      const row = R[i];
      for (let j = 0; j < T; j++) {
        if (!isNumber(row[j])) throw new RangeError(`${name} must contain only finite numbers, got ${show(row[j])}`);
        if (j < i && Math.abs(row[j] - R[j][i]) > 1e-10) throw new RangeError(`${name} must be symmetric`);
      }
    }
    return T;
  }

  function checkWeights(name, w, T) {
    const arr = finiteArray(name, w);
    if (T !== undefined && arr.length !== T) {
      throw new RangeError(`${name} must have length T = ${T}, got ${arr.length}`);
    }
    if (!arr.some((v) => v !== 0)) throw new RangeError(`${name} must not be all zero`);
    return arr;
  }

  /** Mean pooling: w_t = 1/T. */
  function mean(T) {
    positiveInt("T", T);
    return new Float64Array(T).fill(1.0 / T);
  }

  /** Suffix sums s_k = sum_{j >= k} a_j accumulated from the end, as numpy's cumsum of the reversed array. */
  function suffixSums(a) {
    const out = new Float64Array(a.length);
    let acc = 0;
    for (let k = a.length - 1; k >= 0; k--) {
      acc += a[k];
      out[k] = acc;
    }
    return out;
  }

  function sum(a) {
    let s = 0;
    for (const v of a) s += v;
    return s;
  }

  /** High-dimensional limit of causal self-attention pooling (weights on keys, sum 1). */
  function causal(T, tau = 0.0, strict = false) {
    positiveInt("T", T);
    finite("tau", tau);
    if (strict) {
      if (T < 2) throw new RangeError(`T must be >= 2 for strictly causal attention, got ${T}`);
      const inv = new Float64Array(T);
      for (let t = 1; t < T; t++) inv[t] = 1.0 / t;
      const tails = suffixSums(inv);
      const w = new Float64Array(T);
      for (let s = 0; s < T - 1; s++) w[s] = tails[s + 1];
      const total = sum(w);
      return w.map((v) => v / total);
    }
    const et = Math.exp(-tau);
    const selfTerm = new Float64Array(T);
    const other = new Float64Array(T);
    for (let t = 0; t < T; t++) {
      selfTerm[t] = 1.0 / (1.0 + t * et);
      other[t] = et / (1.0 + t * et);
    }
    const tails = suffixSums(other);
    const w = new Float64Array(T);
    for (let s = 0; s < T; s++) w[s] = (selfTerm[s] + (s + 1 < T ? tails[s + 1] : 0.0)) / T;
    return w;
  }

  function quadratic(w, R) {
    let total = 0;
    for (let i = 0; i < w.length; i++) {
      let row = 0;
      for (let j = 0; j < w.length; j++) row += R[i][j] * w[j];
      total += w[i] * row;
    }
    return total;
  }

  function dot(a, b) {
    let s = 0;
    for (let i = 0; i < a.length; i++) s += a[i] * b[i];
    return s;
  }

  /** alpha = w^T R w. */
  function alpha(w, R) {
    const T = checkMatrix("R", R);
    return quadratic(checkWeights("w", w, T), R);
  }

  /** kappa = ||w||^2. */
  function kappa(w) {
    const arr = checkWeights("w", w);
    return dot(arr, arr);
  }

  /** alpha/kappa = w^T R w / ||w||^2. */
  function snr(w, R) {
    const T = checkMatrix("R", R);
    const arr = checkWeights("w", w, T);
    return quadratic(arr, R) / dot(arr, arr);
  }

  /**
   * Eigen-decomposition of a symmetric matrix: {values, vectors}, values ascending and vectors[k] the unit
   * eigenvector of values[k]. Householder reduction to a tridiagonal matrix, then the implicit QL algorithm
   * with Wilkinson-type shifts (as LAPACK's symmetric solvers, O(T^3)): backward stable, about a millisecond
   * for T = 64.
   */
  function eigh(R) {
    const n = checkMatrix("R", R);
    const V = R.map((row) => Float64Array.from(row)); // V[i][j]; becomes the eigenvectors (columns)
    const d = new Float64Array(n);
    const e = new Float64Array(n);
    tridiagonalize(V, d, e, n);
    diagonalize(V, d, e, n);
    const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => d[i] - d[j]);
    return {
      values: Float64Array.from(order, (k) => d[k]),
      vectors: order.map((k) => Float64Array.from(V, (row) => row[k])),
    };
  }

  /** Householder: V (symmetric, in place) -> the orthogonal Q with Q^T A Q tridiagonal (d, e). */
  function tridiagonalize(V, d, e, n) {
    for (let j = 0; j < n; j++) d[j] = V[n - 1][j];
    for (let i = n - 1; i > 0; i--) {
      let scale = 0.0;
      let h = 0.0;
      for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
      if (scale === 0.0) {
        e[i] = d[i - 1];
        for (let j = 0; j < i; j++) {
          d[j] = V[i - 1][j];
          V[i][j] = 0.0;
          V[j][i] = 0.0;
        }
      } else {
        for (let k = 0; k < i; k++) {
          d[k] /= scale;
          h += d[k] * d[k];
        }
        let f = d[i - 1];
        let g = Math.sqrt(h);
        if (f > 0) g = -g;
        e[i] = scale * g;
        h -= f * g;
        d[i - 1] = f - g;
        for (let j = 0; j < i; j++) e[j] = 0.0;
        for (let j = 0; j < i; j++) { // e = A u (lower triangle of A stored in V)
          f = d[j];
          V[j][i] = f;
          g = e[j] + V[j][j] * f;
          for (let k = j + 1; k <= i - 1; k++) {
            g += V[k][j] * d[k];
            e[k] += V[k][j] * f;
          }
          e[j] = g;
        }
        f = 0.0;
        for (let j = 0; j < i; j++) {
          e[j] /= h;
          f += e[j] * d[j];
        }
        const hh = f / (h + h);
        for (let j = 0; j < i; j++) e[j] -= hh * d[j];
        for (let j = 0; j < i; j++) { // A <- A - u p^T - p u^T
          f = d[j];
          g = e[j];
          for (let k = j; k <= i - 1; k++) V[k][j] -= f * e[k] + g * d[k];
          d[j] = V[i - 1][j];
          V[i][j] = 0.0;
        }
      }
      d[i] = h;
    }
    for (let i = 0; i < n - 1; i++) { // accumulate the transformations into V
      V[n - 1][i] = V[i][i];
      V[i][i] = 1.0;
      const h = d[i + 1];
      if (h !== 0.0) {
        for (let k = 0; k <= i; k++) d[k] = V[k][i + 1] / h;
        for (let j = 0; j <= i; j++) {
          let g = 0.0;
          for (let k = 0; k <= i; k++) g += V[k][i + 1] * V[k][j];
          for (let k = 0; k <= i; k++) V[k][j] -= g * d[k];
        }
      }
      for (let k = 0; k <= i; k++) V[k][i + 1] = 0.0;
    }
    for (let j = 0; j < n; j++) {
      d[j] = V[n - 1][j];
      V[n - 1][j] = 0.0;
    }
    V[n - 1][n - 1] = 1.0;
    e[0] = 0.0;
  }

  /** Implicit QL on the tridiagonal (d, e): d <- eigenvalues, V <- V times the rotations (eigenvectors). */
  function diagonalize(V, d, e, n) {
    for (let i = 1; i < n; i++) e[i - 1] = e[i];
    e[n - 1] = 0.0;
    const eps = 2.220446049250313e-16;
    let f = 0.0;
    let tst1 = 0.0;
    for (let l = 0; l < n; l++) {
      tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
      let m = l;
      while (m < n && Math.abs(e[m]) > eps * tst1) m++;
      if (m > l) {
        for (let iter = 0; iter < 60; iter++) {
          let g = d[l]; // shift from the leading 2 x 2 block
          let p = (d[l + 1] - g) / (2.0 * e[l]);
          let r = Math.hypot(p, 1.0);
          if (p < 0) r = -r;
          d[l] = e[l] / (p + r);
          d[l + 1] = e[l] * (p + r);
          const dl1 = d[l + 1];
          let h = g - d[l];
          for (let i = l + 2; i < n; i++) d[i] -= h;
          f += h;
          p = d[m];
          let c = 1.0;
          let c2 = c;
          let c3 = c;
          const el1 = e[l + 1];
          let s = 0.0;
          let s2 = 0.0;
          for (let i = m - 1; i >= l; i--) { // chase the bulge with plane rotations
            c3 = c2;
            c2 = c;
            s2 = s;
            g = c * e[i];
            h = c * p;
            r = Math.hypot(p, e[i]);
            e[i + 1] = s * r;
            s = e[i] / r;
            c = p / r;
            p = c * d[i] - s * g;
            d[i + 1] = h + s * (c * g + s * d[i]);
            for (let k = 0; k < n; k++) {
              const row = V[k];
              h = row[i + 1];
              row[i + 1] = s * row[i] + c * h;
              row[i] = c * row[i] - s * h;
            }
          }
          p = -s * s2 * c3 * el1 * e[l] / dl1;
          e[l] = s * p;
          d[l] = c * p;
          if (!(Math.abs(e[l]) > eps * tst1)) break;
        }
      }
      d[l] += f;
      e[l] = 0.0;
    }
  }

  /**
   * Weights maximising alpha/kappa: the top eigenvector of R. In a degenerate top eigenspace: the
   * projection of the uniform vector onto it, else of e_0, e_1, ... (attnlib's rule). normalize "sum"
   * (weights sum to 1) or "norm" (unit norm, sign making the sum positive, else the first weight).
   */
  function optimal(R, normalize = "sum", tol = 1e-10) {
    const T = checkMatrix("R", R);
    choice("normalize", normalize, ["sum", "norm"]);
    const { values, vectors } = eigh(R);
    const top = values[T - 1];
    const basis = vectors.filter((_, k) => values[k] >= top - tol * Math.max(1.0, Math.abs(top)));
    let w = null;
    for (let k = -1; k < T; k++) {
      const start = new Float64Array(T);
      if (k < 0) start.fill(1.0); else start[k] = 1.0;
      const proj = new Float64Array(T);
      for (const b of basis) {
        const c = dot(b, start);
        for (let i = 0; i < T; i++) proj[i] += c * b[i];
      }
      w = proj;
      if (Math.sqrt(dot(w, w)) > 1e-8 * Math.sqrt(dot(start, start))) break;
    }
    const norm = Math.sqrt(dot(w, w));
    w = w.map((x) => x / norm);
    let total = sum(w);
    if (Math.abs(total) > 1e-10) {
      if (total < 0) w = w.map((x) => -x);
    } else {
      const first = w.findIndex((x) => Math.abs(x) > 1e-8);
      if (w[Math.max(first, 0)] < 0) w = w.map((x) => -x);
    }
    total = sum(w);
    if (normalize === "norm") return w;
    if (total < 1e-8) {
      throw new RangeError("the optimal weights of this R sum to ~0 and cannot be normalised to sum 1; "
        + "use normalize='norm'");
    }
    return w.map((x) => x / total);
  }

  // ----------------------------------------------------------------------------- the R of the families

  const FAMILIES = ["independent", "markov", "prefix", "suffix", "blocks"];

  function sharedSign(labels) {
    return labels.map((li) => Float64Array.from(labels, (lj) => (li === lj ? 1.0 : 0.0)));
  }

  /**
   * R (T x T, an array of rows) of a named family, as attnlib.explorers.make_process builds it:
   * independent (I), markov (r^|t-s|, r in [0, 0.99]), prefix / suffix (the first / last L positions share
   * a sign), blocks (consecutive blocks of L, the last one shorter if L does not divide T).
   */
  function correlation(family, T, r = 0.6, L = 4) {
    choice("family", family, FAMILIES);
    positiveInt("T", T);
    const idx = Array.from({ length: T }, (_, i) => i);
    if (family === "independent") return sharedSign(idx);
    if (family === "markov") {
      between("r", r, 0.0, 0.99);
      return idx.map((t) => Float64Array.from(idx, (s) => Math.pow(r, Math.abs(t - s))));
    }
    positiveInt("L", L);
    if (L > T) throw new RangeError(`L must be between 1 and T = ${T}, got ${L}`);
    if (family === "prefix") return sharedSign(idx.map((t) => (t < L ? 0 : t)));
    if (family === "suffix") return sharedSign(idx.map((t) => (t >= T - L ? T - L : t)));
    return sharedSign(idx.map((t) => Math.floor(t / L)));
  }

  /** Pooling weights (sum 1) of a weighting by name, as attnlib.explorers.weights_for. */
  function named(weighting, R, tau = 0.0) {
    choice("weighting", weighting, ["mean", "causal", "optimal"]);
    if (weighting === "mean") return mean(R.length);
    if (weighting === "causal") return causal(R.length, tau);
    return optimal(R);
  }

  global.attnlibTheory = Object.freeze({
    bulk_density, critical_x, outlier_map, bulk_edges, mp_edges, zero_atom, thresholds, spike, spike_strength, signal,
    mean_spike, mean, causal, optimal, snr, alpha, kappa, eigh, correlation, named, FAMILIES,
    _libm: Object.freeze({ cbrt, cube, frexp, ldexp }),
  });
})(typeof window !== "undefined" ? window : globalThis);
