/*
 * attnlib-theory-spikes.js: the spikes of the closed forms: population and sample outliers and squared
 * overlaps of a spike of strength theta, the spike strength of a pooling, the signal spike, the signal
 * strengths ||mu||^2 of its two thresholds and the vocabulary-mean spike.
 *
 * A classic script: it needs attnlib-theory-checks.js, -libm.js and -law.js loaded first, and adds
 * window.attnlibWeb.spikes.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { finite, finiteArray, nonnegative, positive } = web.checks;
  const { cube } = web.libm;
  const { ratios, sigmas, thresholds, zOf } = web.law;

  // ---------------------------------------------------------------------------------------------- spikes

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

  /**
   * The signal spike, overlaps against u = mu/||mu|| (factor ||mu||^2 / (||mu||^2 + delta)). mu_norm2 a number
   * (an object of numbers) or an array (an object of arrays, one entry per mu_norm2).
   */
  function signal(delta, gamma, alpha, kappa, mu_norm2) {
    ratios(delta, gamma, kappa);
    const factor = (m) => (m > 0 ? m / (m + delta) : NaN);  // u = mu/||mu|| is undefined at mu = 0
    if (typeof mu_norm2 === "number") {
      const sp = spike(spike_strength(alpha, kappa, mu_norm2, delta), delta, gamma, kappa);
      sp.population_overlap *= factor(mu_norm2);
      sp.sample_overlap *= factor(mu_norm2);
      return sp;
    }
    const mus = finiteArray("mu_norm2", mu_norm2);
    const sp = spike(mus.map((m) => spike_strength(alpha, kappa, m, delta)), delta, gamma, kappa);
    mus.forEach((m, i) => {
      sp.population_overlap[i] *= factor(m);
      sp.sample_overlap[i] *= factor(m);
    });
    return sp;
  }

  /**
   * [mu2_population, mu2_sample]: the ||mu||^2 above which the signal spike has an outlier,
   * max(theta_c kappa / alpha - delta, 0) for each threshold theta_c (Infinity if alpha = 0).
   */
  function signal_thresholds(delta, gamma, alpha, kappa) {
    ratios(delta, gamma, kappa);
    nonnegative("alpha", alpha);
    return thresholds(delta, gamma).map((thetaC) => Math.max((alpha > 0 ? thetaC * kappa / alpha : Infinity) - delta, 0.0));
  }

  /** The vocabulary-mean spike of the uncentered S: strength (sum w)^2 delta / kappa, against g. */
  function mean_spike(delta, gamma, weight_sum, kappa) {
    ratios(delta, gamma, kappa);
    finite("weight_sum", weight_sum);
    return spike(weight_sum * weight_sum * delta / kappa, delta, gamma, kappa);
  }

  web.spikes = { spike, spike_strength, signal, signal_thresholds, mean_spike };
})(typeof window !== "undefined" ? window : globalThis);
