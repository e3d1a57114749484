/*
 * attnlib-theory-eigen.js: the symmetric eigen-decomposition of the closed forms (eigh: Householder
 * reduction to a tridiagonal matrix, then implicit QL), for the optimal weights and lambda_max(R).
 *
 * A classic script: it needs attnlib-theory-checks.js loaded first, and adds window.attnlibWeb.eigen.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { checkMatrix } = web.checks;

  // --------------------------------------------------------------------------------- eigen-decomposition

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

  web.eigen = { eigh };
})(typeof window !== "undefined" ? window : globalThis);
