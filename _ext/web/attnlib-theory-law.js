/*
 * attnlib-theory-law.js: the bulk law of the closed forms, kappa (MP_delta [x] MP_gamma): its density,
 * the critical points x and the outlier map z(x), the edges of its support, the atom at 0, the
 * Marchenko-Pastur edges and the two spike thresholds.
 *
 * A classic script: it needs attnlib-theory-checks.js and attnlib-theory-libm.js loaded first, and adds
 * window.attnlibWeb.law.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { finite, finiteArray, positive } = web.checks;
  const { cbrt, copysign, cube } = web.libm;

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

  web.law = {
    sigmas, ratios, zOf, bulk_density, critical_x, outlier_map, bulk_edges, mp_edges, zero_atom, thresholds,
  };
})(typeof window !== "undefined" ? window : globalThis);
