/*
 * attnlib-theory-families.js: the R of the explorers' families (independent, markov, prefix, suffix,
 * blocks), as attnlib.explorers.make_process builds them, and the pooling weights of a weighting by name.
 *
 * A classic script: it needs attnlib-theory-checks.js and -weights.js loaded first, and adds
 * window.attnlibWeb.families.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});
  const { between, choice, positiveInt } = web.checks;
  const { causal, mean, optimal } = web.weights;

  // ----------------------------------------------------------------------------- the R of the families

  const FAMILIES = ["independent", "markov", "prefix", "suffix", "blocks"];

  function sharedSign(labels) {
    return labels.map((li) => Float64Array.from(labels, (lj) => (li === lj ? 1.0 : 0.0)));
  }

  /**
   * R (T x T, an array of rows) of a named family, as attnlib.explorers.make_process builds it:
   * independent (I), markov (r^|t-s|, r in [-1, 1]), prefix / suffix (the first / last L positions share
   * a sign), blocks (consecutive blocks of L, the last one shorter if L does not divide T).
   */
  function correlation(family, T, r = 0.6, L = 4) {
    choice("family", family, FAMILIES);
    positiveInt("T", T);
    const idx = Array.from({ length: T }, (_, i) => i);
    if (family === "independent") return sharedSign(idx);
    if (family === "markov") {
      between("r", r, -1.0, 1.0);
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

  web.families = { FAMILIES, correlation, named };
})(typeof window !== "undefined" ? window : globalThis);
