/*
 * attnlib-theory-libm.js: the two libm functions whose last bit matters where the bulk density's cubic
 * cancels near the edges, computed as numpy computes them: x**3 as the correctly rounded cube (numpy calls
 * pow(x, 3)) and cbrt as glibc's (frexp, a polynomial, one Halley step, ldexp); with copysign.
 *
 * A classic script: it adds window.attnlibWeb.libm (loaded before attnlib-theory-law.js).
 */
(function (global) {
  "use strict";

  const web = (global.attnlibWeb = global.attnlibWeb || {});

  // ------------------------------------------------------------------------ libm, as numpy computes it

  const view = new DataView(new ArrayBuffer(8));
  const TWO54 = 18014398509481984;

  /** [m, e] with |x| = m 2^e, m in [0.5, 1) (x finite, non-zero), as C's frexp. */
  function frexp(x) {
    let shift = 0;
    let ax = Math.abs(x);
    if (ax < 2.2250738585072014e-308) {
      ax *= TWO54;
      shift = -54;
    }
    view.setFloat64(0, ax);
    const high = view.getUint32(0);
    view.setUint32(0, (high & 0x800fffff) | (1022 << 20));
    return [view.getFloat64(0), shift + ((high >>> 20) & 0x7ff) - 1022];
  }

  function pow2(n) {
    view.setUint32(0, (n + 1023) << 20);
    view.setUint32(4, 0);
    return view.getFloat64(0);
  }

  /** y 2^n, as C's ldexp. */
  function ldexp(y, n) {
    let out = y;
    let k = n;
    while (k > 1000) { out *= pow2(1000); k -= 1000; }
    while (k < -1000) { out *= pow2(-1000); k += 1000; }
    return out * pow2(k);
  }

  const CBRT2 = 1.2599210498948731648;
  const SQR_CBRT2 = 1.5874010519681994748;
  const CBRT_FACTOR = [1.0 / SQR_CBRT2, 1.0 / CBRT2, 1.0, CBRT2, SQR_CBRT2];

  /** Cube root with glibc's algorithm (the libm numpy.cbrt calls): bit-identical results. */
  function cbrt(x) {
    if (x === 0 || !Number.isFinite(x)) return x + x;
    const [m, e] = frexp(x);
    // polynomial start (Horner), then one rational (Halley) step, then the exponent's third
    let u = 0.784932344976639262 - 0.145263899385486377 * m;
    u = -1.83469277483613086 + u * m;
    u = 2.44693122563534430 + u * m;
    u = -2.11499494167371287 + u * m;
    u = 1.50819193781584896 + u * m;
    u = 0.354895765043919860 + u * m;
    const u3 = u * u * u;
    const y = u * (u3 + 2.0 * m) / (2.0 * u3 + m) * CBRT_FACTOR[2 + (e % 3)];
    return ldexp(x > 0 ? y : -y, Math.trunc(e / 3));
  }

  const SPLIT = 134217729; // 2^27 + 1 (Veltkamp)

  /** [p, err] with p = fl(a b) and p + err = a b exactly (Dekker). */
  function twoProduct(a, b) {
    const p = a * b;
    let t = SPLIT * a;
    const ah = t - (t - a);
    const al = a - ah;
    t = SPLIT * b;
    const bh = t - (t - b);
    const bl = b - bh;
    return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
  }

  /** x**3 as numpy computes it (pow(x, 3)): the correctly rounded cube, through double-double products. */
  function cube(x) {
    const [p, e1] = twoProduct(x, x);
    const [h, e2] = twoProduct(p, x);
    return h + (e2 + e1 * x);
  }

  function copysign(magnitude, sign) {
    const m = Math.abs(magnitude);
    return sign < 0 || Object.is(sign, -0) ? -m : m;
  }

  web.libm = { frexp, ldexp, cbrt, cube, copysign };
})(typeof window !== "undefined" ? window : globalThis);
