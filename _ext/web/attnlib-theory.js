/*
 * attnlib-theory.js: the closed forms of attnlib (theory, weights, the explorers' R families) for the HTML
 * book, so that its live figures recompute the theory in the reader's browser with no kernel.
 *
 * A classic script (no ES module: pages opened from file:// may not load modules), loaded after the
 * scripts that hold the closed forms, in this order (they share code through window.attnlibWeb):
 *
 *   attnlib-theory-checks.js    argument checks (RangeError with a message naming the argument)
 *   attnlib-theory-libm.js      cbrt and x**3 as numpy computes them
 *   attnlib-theory-law.js       the bulk law: density, critical points, edges, atom, thresholds
 *   attnlib-theory-spikes.js    the spikes: outliers and overlaps
 *   attnlib-theory-eigen.js     symmetric eigen-decomposition
 *   attnlib-theory-weights.js   pooling weights and alpha, kappa, alpha/kappa
 *   attnlib-theory-families.js  the R of the explorers' families, weights by name
 *   attnlib-theory-mp.js        the Marchenko-Pastur density and its Stieltjes transform on the real axis
 *
 * This file defines the one public global, window.attnlibTheory, whose functions carry attnlib's names
 * and arguments:
 *
 *   bulk_density(x, delta, gamma, kappa)      density of kappa (MP_delta [x] MP_gamma), x a number or an array
 *   critical_x(delta, gamma)                  the three roots of x^3 - sigma_2 x - 2 sigma_3 (descending)
 *   outlier_map(x, delta, gamma, kappa)       kappa (x+1)(x+delta)(x+gamma)/x^2
 *   bulk_edges, mp_edges, zero_atom, thresholds, spike, spike_strength, signal, mean_spike
 *   signal(delta, gamma, alpha, kappa, mu_norm2)  mu_norm2 a number or an array
 *   signal_thresholds(delta, gamma, alpha, kappa) the ||mu||^2 of the population and sample thresholds
 *   weights: mean(T), causal(T, tau, strict), optimal(R, normalize), snr(w, R), alpha(w, R), kappa(w)
 *   correlation(family, T, params)            R of the explorers' families (attnlib.model.positional.family)
 *   parameters(family, state)                 the family's parameters (r, L, ...) picked from a state
 *   eigh(R)                                   symmetric eigen-decomposition (Householder + QL), ascending
 *   mp_density(x, ratio, scale)               density of scale * MP_ratio, x a number or an array
 *   mp_stieltjes_complex(x, ratio)            G(x + i0) of MP_ratio at a real x, as [re, im]
 *
 * attnlib is the reference; tests/browser/test_js_theory.py compares the two on random points.
 * Every formula is written in numpy's order of operations, and the two libm functions whose last bit
 * matters where the density's cubic cancels near the edges are computed as numpy computes them: x**3 as
 * the correctly rounded cube (numpy calls pow(x, 3)) and cbrt as glibc's (frexp, a polynomial, one
 * Halley step, ldexp). Errors are RangeError with a message naming the argument, as in attnlib.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { cbrt, cube, frexp, ldexp } = web.libm;
  const { bulk_density, critical_x, outlier_map, bulk_edges, mp_edges, zero_atom, thresholds } = web.law;
  const { spike, spike_strength, signal, signal_thresholds, mean_spike } = web.spikes;
  const { eigh } = web.eigen;
  const { mean, causal, optimal, snr, alpha, kappa } = web.weights;
  const { FAMILIES, parameters, correlation, named } = web.families;
  const { mp_density, mp_stieltjes_complex } = web.mp;

  global.attnlibTheory = Object.freeze({
    bulk_density, critical_x, outlier_map, bulk_edges, mp_edges, zero_atom, thresholds, spike, spike_strength, signal,
    signal_thresholds, mean_spike, mean, causal, optimal, snr, alpha, kappa, eigh, correlation, named, FAMILIES,
    parameters, mp_density, mp_stieltjes_complex,
    _libm: Object.freeze({ cbrt, cube, frexp, ldexp }),
  });
})(typeof window !== "undefined" ? window : globalThis);
