/**
 * Quantile function of the standard normal distribution, Wichura's algorithm AS 241 (PPND16, 1988),
 * accurate to about 1 part in 10^16: the same algorithm as R's `qnorm` and Python's
 * `statistics.NormalDist.inv_cdf`. Used for the synthetic quartiles slq and suq.
 *
 * The paper prints its coefficients to 20 digits; below each is written as the shortest literal of the
 * double nearest to it, which is the value any 20-digit literal would become at runtime anyway.
 * Coefficients run from the highest power down.
 */

// Central region, |p − 0.5| ≤ 0.425, in r = 0.180625 − q².
const A = [
  2509.0809287301227, 33430.57558358813, 67265.7709270087, 45921.95393154987, 13731.69376550946,
  1971.5909503065513, 133.14166789178438, 3.3871328727963665,
];
const B = [
  5226.495278852546, 28729.085735721943, 39307.89580009271, 21213.794301586597, 5394.196021424751,
  687.1870074920579, 42.31333070160091, 1,
];
// Tails with r = sqrt(−ln(min(p, 1 − p))) ≤ 5, in r − 1.6.
const C = [
  0.0007745450142783414, 0.022723844989269184, 0.2417807251774506, 1.2704582524523684, 3.6478483247632045,
  5.769497221460691, 4.630337846156546, 1.4234371107496835,
];
const D = [
  1.0507500716444169e-9, 0.0005475938084995345, 0.015198666563616457, 0.14810397642748008, 0.6897673349851,
  1.6763848301838038, 2.053191626637759, 1,
];
// Far tails, r > 5 (p below about 1e−11), in r − 5.
const E = [
  2.0103343992922881e-7, 0.000027115555687434876, 0.0012426609473880784, 0.026532189526576124,
  0.29656057182850487, 1.7848265399172913, 5.463784911164114, 6.657904643501103,
];
const F = [
  2.0442631033899397e-15, 1.421511758316446e-7, 0.000018463183175100548, 0.0007868691311456133,
  0.014875361290850615, 0.1369298809227358, 0.599832206555888, 1,
];

export function qnorm(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (horner(r, A) * q) / horner(r, B);
  }
  const r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const x = r <= 5 ? horner(r - 1.6, C) / horner(r - 1.6, D) : horner(r - 5, E) / horner(r - 5, F);
  return q < 0 ? -x : x;
}

/** Evaluated in the nesting AS 241 uses, so results match other implementations to the bit. */
function horner(x: number, coefficients: readonly number[]): number {
  let value = 0;
  for (const c of coefficients) value = value * x + c;
  return value;
}
