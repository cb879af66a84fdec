/**
 * A histogram of weekly rents: the sufficient statistic of one cell (area × month × dwelling × bedrooms).
 *
 * Rents are whole dollars, so the distinct values in a cell are few (they cluster on multiples of $10)
 * and every statistic the service publishes is a function of (rent → count) except the bond/rent ratio,
 * which is a function of (rent → sum of bonds at that rent). Keeping both per distinct rent makes the
 * histogram exact, small, and mergeable: an aggregate row is a merge of finer cells, never a re-scan.
 * Counts and bond sums of whole-dollar bonds are integers, so merging is exact and order-independent:
 * merge(a, b) is bit-for-bit the histogram built from a ∪ b.
 */
export interface RentHistogram {
  /** Distinct weekly rents, strictly ascending, each a positive whole number of dollars. */
  readonly rents: Int32Array;
  /** Number of bonds at each rent; never zero. */
  readonly counts: Float64Array;
  /** Sum of the bond amounts of the bonds at each rent. */
  readonly bondSums: Float64Array;
  /** Total number of bonds (sum of counts). */
  readonly n: number;
}

export const EMPTY_HISTOGRAM: RentHistogram = Object.freeze({
  rents: new Int32Array(0),
  counts: new Float64Array(0),
  bondSums: new Float64Array(0),
  n: 0,
});

const MAX_RENT = 2 ** 31 - 1;

function checkRent(rent: number): void {
  // ln(rent) and bond/rent must exist, and rents are whole dollars by definition of the data.
  if (!Number.isInteger(rent) || rent < 1 || rent > MAX_RENT) {
    throw new RangeError(`weekly rent must be a whole number of dollars ≥ 1, got ${rent}`);
  }
}

function checkBond(bond: number): void {
  if (!Number.isFinite(bond) || bond < 0)
    throw new RangeError(`bond must be a finite amount ≥ 0, got ${bond}`);
}

/** Builds a histogram from individual bonds (parallel arrays of weekly rent and bond amount). */
export function histogramOfBonds(rents: ArrayLike<number>, bonds: ArrayLike<number>): RentHistogram {
  if (rents.length !== bonds.length) throw new RangeError('rents and bonds must have the same length');
  const counts = new Array<number>(rents.length).fill(1);
  return histogramOfGroups(rents, counts, bonds);
}

/**
 * Builds a histogram from grouped rows, e.g. `SELECT rent, count(*), sum(bond) … GROUP BY rent`.
 * Rows may come in any order and may repeat a rent; rows with a zero count are dropped.
 */
export function histogramOfGroups(
  rents: ArrayLike<number>,
  counts: ArrayLike<number>,
  bondSums: ArrayLike<number>,
): RentHistogram {
  const length = rents.length;
  if (counts.length !== length || bondSums.length !== length) {
    throw new RangeError('rents, counts and bond sums must have the same length');
  }
  const slot = new Map<number, number>();
  const outRents: number[] = [];
  const outCounts: number[] = [];
  const outBonds: number[] = [];
  for (let i = 0; i < length; i++) {
    const rent = rents[i] as number;
    const count = counts[i] as number;
    const bondSum = bondSums[i] as number;
    checkRent(rent);
    checkBond(bondSum);
    if (!Number.isSafeInteger(count) || count < 0)
      throw new RangeError(`count must be an integer ≥ 0, got ${count}`);
    if (count === 0) continue;
    const at = slot.get(rent);
    if (at === undefined) {
      slot.set(rent, outRents.length);
      outRents.push(rent);
      outCounts.push(count);
      outBonds.push(bondSum);
    } else {
      outCounts[at] = (outCounts[at] as number) + count;
      outBonds[at] = (outBonds[at] as number) + bondSum;
    }
  }
  const order = outRents.map((_, i) => i).sort((a, b) => (outRents[a] as number) - (outRents[b] as number));
  const result = allocate(order.length);
  let n = 0;
  order.forEach((from, to) => {
    result.rents[to] = outRents[from] as number;
    result.counts[to] = outCounts[from] as number;
    result.bondSums[to] = outBonds[from] as number;
    n += outCounts[from] as number;
  });
  return { ...result, n };
}

function allocate(size: number): Omit<RentHistogram, 'n'> {
  return { rents: new Int32Array(size), counts: new Float64Array(size), bondSums: new Float64Array(size) };
}

/** Merge of two histograms: a linear merge of their sorted rents. */
export function mergeHistograms(a: RentHistogram, b: RentHistogram): RentHistogram {
  if (a.n === 0) return b;
  if (b.n === 0) return a;
  const out = allocate(a.rents.length + b.rents.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.rents.length || j < b.rents.length) {
    const ra = i < a.rents.length ? (a.rents[i] as number) : Number.POSITIVE_INFINITY;
    const rb = j < b.rents.length ? (b.rents[j] as number) : Number.POSITIVE_INFINITY;
    const rent = Math.min(ra, rb);
    let count = 0;
    let bondSum = 0;
    if (ra === rent) {
      count += a.counts[i] as number;
      bondSum += a.bondSums[i] as number;
      i++;
    }
    if (rb === rent) {
      count += b.counts[j] as number;
      bondSum += b.bondSums[j] as number;
      j++;
    }
    out.rents[k] = rent;
    out.counts[k] = count;
    out.bondSums[k] = bondSum;
    k++;
  }
  return trim(out, k, a.n + b.n);
}

function trim(h: Omit<RentHistogram, 'n'>, size: number, n: number): RentHistogram {
  if (size === h.rents.length) return { ...h, n };
  return {
    rents: h.rents.slice(0, size),
    counts: h.counts.slice(0, size),
    bondSums: h.bondSums.slice(0, size),
    n,
  };
}

/**
 * The histogram of signed entries (rent, count, bond sum) in any order: counts and bond sums added up
 * per rent, a negative count taking bonds back out (bonds not yet lodged on the as-of day); an entry
 * without bonds adds nothing, and a rent whose count comes to 0 is left out with its bond sum. Exact:
 * counts and whole-dollar bond sums are integers.
 */
export function histogramOfEntries(entries: Iterable<readonly [number, number, number]>): RentHistogram {
  const byRent = new Map<number, [count: number, bondSum: number]>();
  for (const [rent, count, bondSum] of entries) {
    if (count === 0) continue;
    const at = byRent.get(rent);
    if (at === undefined) byRent.set(rent, [count, bondSum]);
    else {
      at[0] += count;
      at[1] += bondSum;
    }
  }
  const rents = [...byRent.keys()].filter((rent) => byRent.get(rent)?.[0] !== 0).sort((a, b) => a - b);
  if (rents.length === 0) return EMPTY_HISTOGRAM;
  const out = allocate(rents.length);
  let n = 0;
  rents.forEach((rent, i) => {
    const [count, bondSum] = byRent.get(rent) as [number, number];
    out.rents[i] = rent;
    out.counts[i] = count;
    out.bondSums[i] = bondSum;
    n += count;
  });
  return { ...out, n };
}

/** The entries of a histogram, for `histogramOfEntries`. */
export function* entriesOf(histogram: RentHistogram): Generator<[number, number, number]> {
  for (let i = 0; i < histogram.rents.length; i++)
    yield [histogram.rents[i] as number, histogram.counts[i] as number, histogram.bondSums[i] as number];
}

/**
 * The sum of histograms (an ALL row over finer cells): every entry of every one added up per rent, a
 * rent whose count comes to 0 left out, as `histogramOfEntries`. One histogram is its own sum.
 */
export function sumHistograms(histograms: readonly RentHistogram[]): RentHistogram {
  if (histograms.length === 1) return histograms[0] as RentHistogram;
  return histogramOfEntries(histograms.flatMap((h) => [...entriesOf(h)]));
}
