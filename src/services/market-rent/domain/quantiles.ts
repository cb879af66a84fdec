import type { RentHistogram } from './histogram.ts';

/**
 * Quantiles exactly as PostgreSQL's `percentile_cont` computes them (Hyndman & Fan type 7, the default of
 * R and NumPy): for n sorted values x[0..n-1] and fraction p, let h = p·(n−1); the result is
 * x[floor h] + (x[ceil h] − x[floor h])·(h − floor h). PostgreSQL evaluates it in this order, in doubles,
 * so our figures equal `percentile_cont(p) WITHIN GROUP (ORDER BY rent)` to the last bit.
 */
export function percentileCont(sorted: ArrayLike<number>, p: number): number | null {
  checkFraction(p);
  const n = sorted.length;
  if (n === 0) return null;
  const h = p * (n - 1);
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return lerp(sorted[lo] as number, sorted[hi] as number, h - lo);
}

/** `percentile_cont` over the bonds a histogram describes, without expanding it. */
export function histogramPercentiles(
  histogram: RentHistogram,
  fractions: readonly number[],
): (number | null)[] {
  for (const p of fractions) checkFraction(p);
  if (histogram.n === 0) return fractions.map(() => null);
  return fractions.map((p) =>
    rangePercentile(histogram.rents, histogram.counts, 0, histogram.rents.length, histogram.n, p),
  );
}

/**
 * `percentile_cont(p)` of the histogram held in entries from … to − 1 of flat arrays (n bonds, n > 0):
 * the same walk as histogramPercentiles, for histograms packed end to end, without a view per call.
 */
export function rangePercentile(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  from: number,
  to: number,
  n: number,
  p: number,
): number {
  const h = p * (n - 1);
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  // Values at 0-based ranks lo ≤ hi of the sorted expansion, in one walk over the cumulative counts. A
  // histogram has a few dozen distinct rents, so a walk per quantile beats any index structure.
  let seen = 0; // bonds at rents up to and including entry i
  let i = from;
  for (; i < to; i++) {
    seen += counts[i] as number;
    if (lo < seen) break;
  }
  const lower = rents[i] as number;
  while (hi >= seen && i + 1 < to) {
    i++;
    seen += counts[i] as number;
  }
  return lerp(lower, rents[i] as number, h - lo);
}

/**
 * The three quartiles (p = 0.25, 0.5, 0.75) of the histogram in entries from … to − 1, into out[at],
 * out[at + 1], out[at + 2]: each exactly what rangePercentile gives, in one walk. Each quartile's lower
 * rank is not below the one before, so its search for the lower value resumes where the previous
 * quartile's stopped (every entry passed had bonds up to it ≤ the previous lower rank, so it would not
 * have stopped the search either); the upper value is looked for from there, as rangePercentile does.
 */
export function rangeQuartilesInto(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  from: number,
  to: number,
  n: number,
  out: Float64Array,
  at: number,
): void {
  let i = from;
  let seen = counts[i] as number; // bonds at rents up to and including entry i
  for (let q = 1; q <= 3; q++) {
    const h = q * 0.25 * (n - 1);
    const lo = Math.floor(h);
    const hi = Math.ceil(h);
    while (!(lo < seen) && i + 1 < to) {
      i++;
      seen += counts[i] as number;
    }
    const lower = rents[i] as number;
    let j = i;
    let upTo = seen;
    while (hi >= upTo && j + 1 < to) {
      j++;
      upTo += counts[j] as number;
    }
    out[at + q - 1] = lerp(lower, rents[j] as number, h - lo);
  }
}

/** PostgreSQL's float8 interpolation, `lo + (hi - lo) * pct`, in that order. */
function lerp(lo: number, hi: number, fraction: number): number {
  return lo + (hi - lo) * fraction;
}

function checkFraction(p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`percentile must be between 0 and 1, got ${p}`);
}
