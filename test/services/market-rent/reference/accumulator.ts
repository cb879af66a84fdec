import {
  EMPTY_HISTOGRAM,
  type RentHistogram,
} from '../../../../src/services/market-rent/domain/histogram.ts';
import type { PackedHistograms } from '../../../../src/services/market-rent/engine/packed.ts';

/** Rents up to this many dollars a week are counted in dense arrays; rarer, higher ones in a map. */
const DEFAULT_DENSE_LIMIT = 4095;

/**
 * Adds up histograms into one. Rents are whole dollars in a narrow band, so a dense array indexed by
 * rent makes each addition a couple of array writes; the slots touched are remembered, so reading the
 * result out and resetting costs the number of distinct rents, not the width of the band. Rents above
 * the dense limit (outliers, typos in real data) go to a map, so one odd value cannot make the
 * accumulator allocate a huge array. Reuse one accumulator for many rows: `take()` resets it.
 */
export class RentAccumulator {
  private readonly denseCounts: Float64Array;
  private readonly denseBonds: Float64Array;
  /** 1 for the dense slots touched since the last take(); a slot whose count went back to 0 stays touched. */
  private readonly seen: Uint8Array;
  private touched: Int32Array = new Int32Array(64);
  private touchedSize = 0;
  private readonly sparse = new Map<number, { count: number; bondSum: number }>();
  private total = 0;

  constructor(private readonly denseLimit = DEFAULT_DENSE_LIMIT) {
    this.denseCounts = new Float64Array(denseLimit + 1);
    this.denseBonds = new Float64Array(denseLimit + 1);
    this.seen = new Uint8Array(denseLimit + 1);
  }

  /** Bonds added since the last take(). */
  get n(): number {
    return this.total;
  }

  add(rent: number, count: number, bondSum: number): void {
    if (count === 0) return;
    this.total += count;
    if (rent <= this.denseLimit) {
      if (this.seen[rent] === 0) this.touch(rent);
      this.denseCounts[rent] = (this.denseCounts[rent] as number) + count;
      this.denseBonds[rent] = (this.denseBonds[rent] as number) + bondSum;
      return;
    }
    const slot = this.sparse.get(rent);
    if (slot === undefined) this.sparse.set(rent, { count, bondSum });
    else {
      slot.count += count;
      slot.bondSum += bondSum;
    }
  }

  addHistogram(h: RentHistogram): void {
    for (let i = 0; i < h.rents.length; i++) {
      this.add(h.rents[i] as number, h.counts[i] as number, h.bondSums[i] as number);
    }
  }

  /** Adds entries from … to − 1 of flat arrays (histograms packed end to end). */
  addRange(
    rents: ArrayLike<number>,
    counts: ArrayLike<number>,
    bondSums: ArrayLike<number>,
    from: number,
    to: number,
  ): void {
    for (let i = from; i < to; i++) this.add(rents[i] as number, counts[i] as number, bondSums[i] as number);
  }

  /** An upper bound on the entries the next take() returns. */
  get distinct(): number {
    return this.touchedSize + this.sparse.size;
  }

  /** Adds cell `cell` of a packed set, straight from the flat arrays. */
  addCell(packed: PackedHistograms, cell: number): void {
    const to = packed.offsets[cell + 1] as number;
    for (let i = packed.offsets[cell] as number; i < to; i++) {
      this.add(packed.rents[i] as number, packed.counts[i] as number, packed.bondSums[i] as number);
    }
  }

  /**
   * The histogram of everything added, after which the accumulator is empty again. Negative additions
   * are allowed (taking bonds back out of a cell); a rent whose count comes back to zero is left out.
   */
  take(): RentHistogram {
    const n = this.total;
    const size = this.distinct;
    const out = {
      rents: new Int32Array(size),
      counts: new Float64Array(size),
      bondSums: new Float64Array(size),
    };
    const length = this.takeInto(out.rents, out.counts, out.bondSums, 0);
    if (n === 0 || length === 0) return EMPTY_HISTOGRAM;
    if (length === size) return { ...out, n };
    return {
      rents: out.rents.slice(0, length),
      counts: out.counts.slice(0, length),
      bondSums: out.bondSums.slice(0, length),
      n,
    };
  }

  /**
   * Writes the histogram of everything added into flat arrays from index `at` (room for `distinct`
   * entries is the caller's), ascending by rent, and empties the accumulator. Returns the number of
   * entries written; read `n` before calling for their total.
   */
  takeInto(rents: Int32Array, counts: Float64Array, bondSums: Float64Array, at: number): number {
    const dense = this.touched.subarray(0, this.touchedSize);
    // Most histograms hold a few dozen rents: an insertion sort beats the built-in sort's call overhead.
    if (dense.length <= 48) insertionSort(dense);
    else dense.sort();
    let k = at;
    for (let j = 0; j < dense.length; j++) {
      const rent = dense[j] as number;
      const count = this.denseCounts[rent] as number;
      if (count !== 0) {
        rents[k] = rent;
        counts[k] = count;
        bondSums[k] = this.denseBonds[rent] as number;
        k++;
      }
      this.denseCounts[rent] = 0;
      this.denseBonds[rent] = 0;
      this.seen[rent] = 0;
    }
    if (this.sparse.size > 0) {
      for (const rent of [...this.sparse.keys()].sort((a, b) => a - b)) {
        const slot = this.sparse.get(rent) as { count: number; bondSum: number };
        if (slot.count !== 0) {
          rents[k] = rent;
          counts[k] = slot.count;
          bondSums[k] = slot.bondSum;
          k++;
        }
      }
      this.sparse.clear();
    }
    this.touchedSize = 0;
    this.total = 0;
    return k - at;
  }

  private touch(rent: number): void {
    this.seen[rent] = 1;
    if (this.touchedSize === this.touched.length) {
      const grown = new Int32Array(this.touched.length * 2);
      grown.set(this.touched);
      this.touched = grown;
    }
    this.touched[this.touchedSize++] = rent;
  }
}

function insertionSort(values: Int32Array): void {
  for (let i = 1; i < values.length; i++) {
    const value = values[i] as number;
    let j = i - 1;
    while (j >= 0 && (values[j] as number) > value) {
      values[j + 1] = values[j] as number;
      j--;
    }
    values[j + 1] = value;
  }
}

// One accumulator serves every call below: JavaScript runs them one at a time and take() resets it.
const shared = new RentAccumulator();

/** Merge of many histograms (an ALL row over many cells) in one pass over their entries. */
export function mergeAllHistograms(histograms: readonly RentHistogram[]): RentHistogram {
  if (histograms.length === 1) return histograms[0] as RentHistogram;
  for (const h of histograms) shared.addHistogram(h);
  return shared.take();
}

/** Merge of the given cells of a packed set. */
export function mergePackedCells(packed: PackedHistograms, cells: Iterable<number>): RentHistogram {
  for (const cell of cells) shared.addCell(packed, cell);
  return shared.take();
}
