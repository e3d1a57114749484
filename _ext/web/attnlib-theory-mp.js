/*
 * attnlib-theory-mp.js: the Marchenko-Pastur law of the primer's explorer: its density and its Stieltjes
 * transform G on the real axis (the boundary value G(x + i0): real outside the support, with -Im G / pi
 * equal to the density inside it), as attnlib.theory.mp_density and attnlib.theory.mp_stieltjes_complex
 * compute them, operation for operation.
 *
 * A classic script: it needs attnlib-theory-checks.js and attnlib-theory-law.js (mp_edges) loaded first,
 * and adds window.attnlibWeb.mp.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { finite, finiteArray } = web.checks;
  const { mp_edges } = web.law;

  function densityAt(x, ratio, scale, lo, hi) {
    if (!(x > lo && x < hi && x > 0)) return 0.0;
    return Math.sqrt(Math.abs((hi - x) * (x - lo))) / (2.0 * Math.PI * ratio * scale * x);
  }

  /** Density of the continuous part of scale * MP_ratio at x (a number or an array). */
  function mp_density(x, ratio, scale = 1.0) {
    const [lo, hi] = mp_edges(ratio, scale);
    if (typeof x === "number") return densityAt(finite("x", x), ratio, scale, lo, hi);
    return Float64Array.from(finiteArray("x", x), (v) => densityAt(v, ratio, scale, lo, hi));
  }

  /** Principal square root of the complex number a + 0i, as [real, imaginary]. */
  function sqrtReal(a) {
    return a >= 0 ? [Math.sqrt(a), 0.0] : [0.0, Math.sqrt(-a)];
  }

  function transformAt(x, c, lo, hi) {
    if (x === 0) throw new RangeError("zeta must be finite and non-zero (G has a pole or a branch point at 0), got 0");
    const [ar, ai] = sqrtReal(x - lo);
    const [br, bi] = sqrtReal(x - hi);
    const rootRe = ar * br - ai * bi; // numpy's complex product, term by term
    const rootIm = ar * bi + ai * br;
    const scale = 1.0 / (2.0 * c * x); // numpy divides by a complex of zero imaginary part so (Smith's rule)
    return [(x + c - 1.0 - rootRe) * scale, (0.0 - rootIm) * scale];
  }

  /**
   * G(x + i0) of MP_ratio at a real x (not 0): [re, im] for a number, [Float64Array re, Float64Array im]
   * for an array. Real outside the support; -im / pi is the density inside it.
   */
  function mp_stieltjes_complex(x, ratio) {
    const [lo, hi] = mp_edges(ratio, 1.0);
    if (typeof x === "number") return transformAt(finite("zeta", x), ratio, lo, hi);
    const xs = finiteArray("zeta", x);
    const re = new Float64Array(xs.length);
    const im = new Float64Array(xs.length);
    xs.forEach((v, i) => { [re[i], im[i]] = transformAt(v, ratio, lo, hi); });
    return [re, im];
  }

  web.mp = { mp_density, mp_stieltjes_complex };
})(typeof window !== "undefined" ? window : globalThis);
