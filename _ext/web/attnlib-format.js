/*
 * attnlib-format.js: numbers and text for the live explorers: rounding and printing numbers as attnlib's
 * explorers do (Python's round() and format(v, "g")), grids and quantiles, DOM elements, state
 * comparison.
 *
 * A classic script: it adds window.attnlibWeb.format (used by attnlib-plot.js, the attnlib-kinds-*.js
 * scripts and attnlib-explorers.js).
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});

  // ------------------------------------------------------------------------------------- numbers, text

  /** Round to `digits` significant digits as Python's round() does (half to even on exact ties). */
  function sig(x, digits) {
    if (x === 0 || !Number.isFinite(x)) return x;
    const [mantissa, exponent] = Math.abs(x).toExponential(99).split("e");
    const ds = mantissa.replace(".", "");
    if (/^50*$/.test(ds.slice(digits)) && Number(ds[digits - 1]) % 2 === 0) {
      const head = ds.slice(0, digits);
      return Number(`${x < 0 ? "-" : ""}${head[0]}.${head.slice(1) || "0"}e${exponent}`);
    }
    return Number(x.toPrecision(digits));
  }

  /** Python's format(v, "g"). */
  function formatG(v) {
    if (v === 0) return Object.is(v, -0) ? "-0" : "0";
    const [mantissa, exp] = v.toExponential(5).split("e");
    const e = Number(exp);
    if (e < -4 || e >= 6) {
      return `${mantissa.replace(/\.?0+$/, "")}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
    }
    const fixed = v.toFixed(Math.max(0, 5 - e));
    return fixed.includes(".") ? fixed.replace(/0+$/, "").replace(/\.$/, "") : fixed;
  }

  /** The explorers' number format: f"{sig(x, 3):g}", an en dash for a missing or non-finite value. */
  function fmt(x, digits = 3) {
    if (x === null || x === undefined || !Number.isFinite(x)) return "–";
    return formatG(sig(x, digits));
  }

  function linspace(lo, hi, n) {
    const out = new Float64Array(n);
    const step = (hi - lo) / (n - 1);
    for (let k = 0; k < n; k++) out[k] = lo + k * step;
    out[n - 1] = hi;
    return out;
  }

  function quantile(values, q) {
    const v = Array.from(values).filter(Number.isFinite).sort((a, b) => a - b);
    if (!v.length) return NaN;
    const pos = q * (v.length - 1);
    const i = Math.floor(pos);
    return i + 1 < v.length ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
  }

  function maxFinite(values, start = -Infinity) {
    let m = start;
    for (const v of values) if (Number.isFinite(v) && v > m) m = v;
    return m;
  }

  function sum(values) {
    let s = 0;
    for (const v of values) s += v;
    return s;
  }

  function el(tag, attrs = {}, children = []) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    for (const child of children) node.append(child);
    return node;
  }

  function sameState(a, b) {
    return Object.keys(a).every((k) => a[k] === b[k]);
  }

  web.format = { sig, formatG, fmt, linspace, quantile, maxFinite, sum, el, sameState };
})(window);
