import type { RentHistogram } from './histogram.ts';
import { qnorm } from './normal.ts';
import { rangeQuartilesInto } from './quantiles.ts';

/** Summary statistics are published only when at least this many bonds were lodged in the period. */
export const SUPPRESSION_THRESHOLD = 5;

/** The published figures of a row, in the order of the published item. */
export const FIGURE_NAMES = ['mean', 'lq', 'med', 'uq', 'sd', 'brr', 'lmean', 'lsd', 'slq', 'suq'] as const;
const FIGURES = FIGURE_NAMES.length;
/** Decimals each figure is published with (FIGURE_NAMES' order): whole dollars, brr 2, lmean and lsd 4. */
export const FIGURE_DECIMALS = [0, 0, 0, 0, 0, 2, 4, 4, 0, 0] as const;

const Z_LOWER_QUARTILE = qnorm(0.25);
const Z_UPPER_QUARTILE = qnorm(0.75);

/** The statistics of the spec at full double precision, before output rounding and suppression. */
export interface ExactStatistics {
  n: number;
  mean: number;
  lq: number;
  med: number;
  uq: number;
  /** Sample standard deviation (n − 1); null for a single bond, as PostgreSQL's stddev_samp. */
  sd: number | null;
  brr: number;
  lmean: number;
  lsd: number | null;
  slq: number | null;
  suq: number | null;
}

/**
 * Exact statistics of the bonds a histogram describes; null when it holds none. Every sum runs over the
 * distinct rents in ascending order, so a given histogram always gives the same bits however it was
 * assembled. Spread is summed around the mean (two passes over the distinct rents) rather than as
 * Σx² − n·mean², which loses every digit when the spread is small against the mean; the float sums use
 * Neumaier's compensation.
 */
export function exactStatistics(histogram: RentHistogram): ExactStatistics | null {
  const { rents, counts, bondSums, n } = histogram;
  return exactStatisticsOfRange(rents, counts, bondSums, 0, rents.length, n);
}

/** Natural logarithms of the usual rents, computed once: Math.log gives the same bits either way. */
const LN = Float64Array.from({ length: 4096 }, (_, i) => Math.log(i));
const ln = (rent: number) => (rent < 4096 ? (LN[rent] as number) : Math.log(rent));

/**
 * exactStatistics of the histogram held in entries from … to − 1 of flat arrays (histograms packed end
 * to end, as a national answer keeps them): same sums in the same order, so the same bits.
 */
export function exactStatisticsOfRange(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  bondSums: ArrayLike<number>,
  from: number,
  to: number,
  n: number,
): ExactStatistics | null {
  if (n === 0) return null;
  const e = exact;
  exactStatisticsInto(rents, counts, bondSums, from, to, n, e);
  const orNull = (x: number) => (Number.isNaN(x) ? null : x);
  return {
    n,
    mean: e[0] as number,
    lq: e[1] as number,
    med: e[2] as number,
    uq: e[3] as number,
    sd: orNull(e[4] as number),
    brr: e[5] as number,
    lmean: e[6] as number,
    lsd: orNull(e[7] as number),
    slq: orNull(e[8] as number),
    suq: orNull(e[9] as number),
  };
}

/** Working array of exactStatisticsOfRange (JavaScript runs its calls one at a time). */
const exact = new Float64Array(FIGURES);

/**
 * The exact statistics of the histogram in entries from … to − 1 (n > 0 bonds) into `out`, in the order
 * of FIGURE_NAMES; NaN where exactStatistics has null (sd, lsd, slq, suq of a single bond). One
 * implementation for the object forms and for publishing rows without an object per row.
 */
export function exactStatisticsInto(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  bondSums: ArrayLike<number>,
  from: number,
  to: number,
  n: number,
  out: Float64Array,
): void {
  // Σ count·rent is a sum of integers below 2^53: exact without compensation. The other sums are
  // Neumaier's (as CompensatedSum), written out because this runs for every published row.
  let rentSum = 0;
  let logSum = 0;
  let logCarry = 0;
  let ratioSum = 0;
  let ratioCarry = 0;
  for (let i = from; i < to; i++) {
    const rent = rents[i] as number;
    const count = counts[i] as number;
    rentSum += count * rent;
    const l = count * ln(rent);
    let t = logSum + l;
    logCarry += Math.abs(logSum) >= Math.abs(l) ? logSum - t + l : l - t + logSum;
    logSum = t;
    const r = (bondSums[i] as number) / rent;
    t = ratioSum + r;
    ratioCarry += Math.abs(ratioSum) >= Math.abs(r) ? ratioSum - t + r : r - t + ratioSum;
    ratioSum = t;
  }
  const mean = rentSum / n;
  const lmean = (logSum + logCarry) / n;
  let squares = 0;
  let squaresCarry = 0;
  let logSquares = 0;
  let logSquaresCarry = 0;
  for (let i = from; i < to; i++) {
    const rent = rents[i] as number;
    const count = counts[i] as number;
    const d = rent - mean;
    const dl = ln(rent) - lmean;
    const s = count * d * d;
    let t = squares + s;
    squaresCarry += Math.abs(squares) >= Math.abs(s) ? squares - t + s : s - t + squares;
    squares = t;
    const sl = count * dl * dl;
    t = logSquares + sl;
    logSquaresCarry += Math.abs(logSquares) >= Math.abs(sl) ? logSquares - t + sl : sl - t + logSquares;
    logSquares = t;
  }
  const lsd = n > 1 ? Math.sqrt((logSquares + logSquaresCarry) / (n - 1)) : Number.NaN;
  out[0] = mean;
  rangeQuartilesInto(rents, counts, from, to, n, out, 1);
  out[4] = n > 1 ? Math.sqrt((squares + squaresCarry) / (n - 1)) : Number.NaN;
  out[5] = (ratioSum + ratioCarry) / n;
  out[6] = lmean;
  out[7] = lsd;
  out[8] = n > 1 ? Math.exp(lmean + Z_LOWER_QUARTILE * lsd) : Number.NaN;
  out[9] = n > 1 ? Math.exp(lmean + Z_UPPER_QUARTILE * lsd) : Number.NaN;
}

/** Neumaier's improved Kahan summation: the error of each addition is carried, whichever term is larger. */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (Math.abs(this.sum) >= Math.abs(x)) this.compensation += this.sum - t + x;
    else this.compensation += x - t + this.sum;
    this.sum = t;
  }

  get value(): number {
    return this.sum + this.compensation;
  }
}

/** The published figures of one row; null when suppressed. */
export interface PublishedStatistics {
  mean: number | null;
  lq: number | null;
  med: number | null;
  uq: number | null;
  sd: number | null;
  brr: number | null;
  lmean: number | null;
  lsd: number | null;
  slq: number | null;
  suq: number | null;
}

export const SUPPRESSED: Readonly<PublishedStatistics> = Object.freeze({
  mean: null,
  lq: null,
  med: null,
  uq: null,
  sd: null,
  brr: null,
  lmean: null,
  lsd: null,
  slq: null,
  suq: null,
});

/**
 * Suppression and output rounding as the published service shows them: rent figures (mean, lq, med,
 * uq, sd, slq, suq) in whole dollars, brr to 2 decimals, lmean and lsd to 4; all half away from zero.
 * Fewer than SUPPRESSION_THRESHOLD bonds lodged → every statistic null (the counts are published
 * separately, randomly rounded).
 */
export function publishedStatistics(histogram: RentHistogram): PublishedStatistics {
  const { rents, counts, bondSums, n } = histogram;
  return publishedStatisticsOfRange(rents, counts, bondSums, 0, rents.length, n);
}

/** publishedStatistics of the histogram in entries from … to − 1 of flat arrays. */
export function publishedStatisticsOfRange(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  bondSums: ArrayLike<number>,
  from: number,
  to: number,
  n: number,
): PublishedStatistics {
  const p = published;
  if (!publishedStatisticsInto(rents, counts, bondSums, from, to, n, p)) return { ...SUPPRESSED };
  const orNull = (x: number) => (Number.isNaN(x) ? null : x);
  return {
    mean: orNull(p[0] as number),
    lq: orNull(p[1] as number),
    med: orNull(p[2] as number),
    uq: orNull(p[3] as number),
    sd: orNull(p[4] as number),
    brr: orNull(p[5] as number),
    lmean: orNull(p[6] as number),
    lsd: orNull(p[7] as number),
    slq: orNull(p[8] as number),
    suq: orNull(p[9] as number),
  };
}

const published = new Float64Array(FIGURES);

/**
 * The published figures of the histogram in entries from … to − 1 into `out` (FIGURE_NAMES' order, NaN
 * for null), rounded as publishedStatistics rounds them; false, and `out` untouched, when suppressed.
 * The rows of an answer are published through this, without an object per row.
 */
export function publishedStatisticsInto(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  bondSums: ArrayLike<number>,
  from: number,
  to: number,
  n: number,
  out: Float64Array,
): boolean {
  if (n < SUPPRESSION_THRESHOLD) return false;
  exactStatisticsInto(rents, counts, bondSums, from, to, n, out);
  for (let f = 0; f < FIGURES; f++) {
    const x = out[f] as number;
    // roundHalfAwayFromZero without its checks of `decimals`: this runs for every figure of every row.
    if (!Number.isNaN(x)) out[f] = roundAwayFromZero(x, FIGURE_DECIMALS[f] as number);
  }
  return true;
}

/**
 * Rounds to `decimals` places, ties away from zero, judged on the exact value of the double: 502.5 → 503,
 * but 3.835 (stored as 3.83499999999999996…) → 3.83. Whole dollars use Math.round on the magnitude,
 * which is exact. With decimals, x·10^d is itself rounded, so when it lands near a tie the decision is
 * taken by toFixed, which works on the exact binary value (and rounds its ties up, i.e. away from zero).
 */
export function roundHalfAwayFromZero(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return x;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 15) {
    throw new RangeError(`decimals must be an integer 0..15, got ${decimals}`);
  }
  return roundAwayFromZero(x, decimals);
}

/** roundHalfAwayFromZero of a number that is not NaN, `decimals` an integer 0 … 15 (not checked). */
function roundAwayFromZero(x: number, decimals: number): number {
  const magnitude = Math.abs(x);
  let rounded: number;
  if (decimals === 0) rounded = Math.round(magnitude);
  else {
    const scale = 10 ** decimals;
    const scaled = magnitude * scale;
    const nearTie = Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6;
    rounded = nearTie && magnitude < 1e15 ? Number(magnitude.toFixed(decimals)) : Math.round(scaled) / scale;
  }
  // `|| 0` turns −0 into 0: −0.3 rounds to 0, and a JSON client should not see a sign on zero.
  return (x < 0 ? -rounded : rounded) || 0;
}
