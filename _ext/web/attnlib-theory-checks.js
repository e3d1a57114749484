/*
 * attnlib-theory-checks.js: the argument checks of the closed forms (the attnlib-theory-*.js scripts):
 * finite, positive and non-negative numbers, integers, choices, arrays of finite numbers, square
 * symmetric matrices and weight vectors. A failed check throws a RangeError whose message names the
 * argument, as in attnlib.
 *
 * A classic script, the first of the theory scripts: it adds window.attnlibWeb.checks.
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});

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

  web.checks = {
    show, isNumber, positive, nonnegative, finite, positiveInt, between, choice, finiteArray, checkMatrix,
    checkWeights,
  };
})(typeof window !== "undefined" ? window : globalThis);
