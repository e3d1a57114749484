/*
 * attnlib-theory-weights.js: the pooling weights of the closed forms (mean, causal, optimal) and their
 * alpha = w^T R w, kappa = ||w||^2 and alpha/kappa.
 *
 * A classic script: it needs attnlib-theory-checks.js and -eigen.js loaded first, and adds
 * window.attnlibWeb.weights.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { checkMatrix, checkWeights, choice, finite, positiveInt } = web.checks;
  const { eigh } = web.eigen;

  // ----------------------------------------------------------------------------------------- weights

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

  web.weights = { mean, causal, optimal, snr, alpha, kappa };
})(typeof window !== "undefined" ? window : globalThis);
