/*
 * attnlib-theory-families.js: the R of the explorers' families (independent, markov, prefix, suffix,
 * blocks), as attnlib.model.positional.family builds them, and the pooling weights of a weighting by name.
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

  function blockLength(T, L) {
    positiveInt("L", L);
    if (L > T) throw new RangeError(`L must be between 1 and T = ${T}, got ${L}`);
    return L;
  }

  /**
   * The families by name, in the order of attnlib.model.positional.FAMILY_RECORDS: the names of a family's
   * parameters (its state fields; their sliders, defaults and help come with the explorer's controls) and its
   * R (T x T, an array of rows) from T and those parameters. A new family is one more entry here (and one more
   * record in positional.py): tests/browser/test_js_theory.py checks every R against Python's.
   */
  const RECORDS = {
    independent: { params: [], R: (T, idx) => sharedSign(idx) },
    markov: {
      params: ["r"],
      R: (T, idx, { r }) => {
        between("r", r, -1.0, 1.0);
        return idx.map((t) => Float64Array.from(idx, (s) => Math.pow(r, Math.abs(t - s))));
      },
    },
    prefix: { params: ["L"], R: (T, idx, { L }) => sharedSign(idx.map((t) => (t < blockLength(T, L) ? 0 : t))) },
    suffix: {
      params: ["L"],
      R: (T, idx, { L }) => sharedSign(idx.map((t) => (t >= T - blockLength(T, L) ? T - L : t))),
    },
    blocks: { params: ["L"], R: (T, idx, { L }) => sharedSign(idx.map((t) => Math.floor(t / blockLength(T, L)))) },
  };
  const FAMILIES = Object.keys(RECORDS);

  function sharedSign(labels) {
    return labels.map((li) => Float64Array.from(labels, (lj) => (li === lj ? 1.0 : 0.0)));
  }

  /** The parameters of ``family`` taken from ``state`` (any object holding them, as an explorer's state). */
  function parameters(family, state) {
    choice("family", family, FAMILIES);
    return Object.fromEntries(RECORDS[family].params.map((name) => [name, state[name]]));
  }

  /**
   * R (T x T, an array of rows) of a named family, as attnlib.model.positional.family builds it: independent
   * (I), markov (r^|t-s|, r in [-1, 1]), prefix / suffix (the first / last L positions share a sign), blocks
   * (consecutive blocks of L, the last one shorter if L does not divide T). ``params``: an object holding the
   * family's parameters (other fields are ignored).
   */
  function correlation(family, T, params) {
    const own = parameters(family, params);
    positiveInt("T", T);
    return RECORDS[family].R(T, Array.from({ length: T }, (_, i) => i), own);
  }

  /** Pooling weights (sum 1) of a weighting by name, as attnlib.explorers.weights_for. */
  function named(weighting, R, tau = 0.0) {
    choice("weighting", weighting, ["mean", "causal", "optimal"]);
    if (weighting === "mean") return mean(R.length);
    if (weighting === "causal") return causal(R.length, tau);
    return optimal(R);
  }

  web.families = { FAMILIES, parameters, correlation, named };
})(typeof window !== "undefined" ? window : globalThis);
