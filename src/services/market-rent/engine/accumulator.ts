import { EMPTY_HISTOGRAM, type RentHistogram } from '../domain/histogram.ts';
import type { PackedHistograms } from './packed.ts';

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
  /**
   * The dense slots touched since the last take(), one bit per rent (a slot whose count went back to 0
   * stays touched), and one bit per word of it that has a bit set: take() reads the rents out in
   * ascending order from the bits, without sorting them (a sort of the touched rents cost a tenth of a
   * national answer).
   */
  private readonly bits: Int32Array;
  private readonly words: Int32Array;
  private touchedSize = 0;
  private readonly sparse = new Map<number, { count: number; bondSum: number }>();
  private total = 0;

  constructor(private readonly denseLimit = DEFAULT_DENSE_LIMIT) {
    this.denseCounts = new Float64Array(denseLimit + 1);
    this.denseBonds = new Float64Array(denseLimit + 1);
    this.bits = new Int32Array((denseLimit >> 5) + 1);
    this.words = new Int32Array((denseLimit >> 10) + 1);
  }

  /** Bonds added since the last take(). */
  get n(): number {
    return this.total;
  }

  add(rent: number, count: number, bondSum: number): void {
    if (count === 0) return;
    this.addEntry(rent, count, bondSum);
  }

  /**
   * `add` of an entry whose count may be 0 (its bond sum still counts): a partial sum kept with such
   * entries (`takeInto`'s `keepZeroCounts`) adds up to what its parts would have.
   */
  addEntry(rent: number, count: number, bondSum: number): void {
    this.total += count;
    if (rent <= this.denseLimit) {
      this.touch(rent);
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

  /**
   * addRange for the typed arrays of an answer's working set, written out with the dense arrays in
   * locals: this runs for every entry of every row of an answer, several times over with aggregates.
   */
  addPacked(rents: Int32Array, counts: Float64Array, bondSums: Float64Array, from: number, to: number): void {
    const denseCounts = this.denseCounts;
    const denseBonds = this.denseBonds;
    const bits = this.bits;
    const words = this.words;
    const limit = this.denseLimit;
    let total = this.total;
    let touched = this.touchedSize;
    for (let i = from; i < to; i++) {
      const rent = rents[i] as number;
      const count = counts[i] as number;
      if (count === 0) continue;
      if (rent > limit) {
        this.total = total;
        this.touchedSize = touched;
        this.add(rent, count, bondSums[i] as number);
        total = this.total;
        continue;
      }
      total += count;
      const w = rent >> 5;
      const word = bits[w] as number;
      const bit = 1 << (rent & 31);
      if ((word & bit) === 0) {
        bits[w] = word | bit;
        words[w >> 5] = (words[w >> 5] as number) | (1 << (w & 31));
        touched++;
      }
      denseCounts[rent] = (denseCounts[rent] as number) + count;
      denseBonds[rent] = (denseBonds[rent] as number) + (bondSums[i] as number);
    }
    this.total = total;
    this.touchedSize = touched;
  }

  /** `addPacked` of entries whose count may be 0 (a partial sum kept with `keepZeroCounts`). */
  addPackedEntries(
    rents: Int32Array,
    counts: Float64Array,
    bondSums: Float64Array,
    from: number,
    to: number,
  ): void {
    for (let i = from; i < to; i++)
      this.addEntry(rents[i] as number, counts[i] as number, bondSums[i] as number);
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
   * entries written; read `n` before calling for their total. With `keepZeroCounts`, a rent whose count
   * came back to 0 while its bond sum did not is written too: a partial sum that more will be added to
   * (the report thread's part of the ALL area) must add up to what its parts would have.
   */
  takeInto(
    rents: Int32Array,
    counts: Float64Array,
    bondSums: Float64Array,
    at: number,
    keepZeroCounts = false,
  ): number {
    const { bits, words, denseCounts, denseBonds } = this;
    let k = at;
    // Set bits lowest first: words in ascending order, bits in each word from the lowest, so the rents
    // come out ascending.
    for (let g = 0; g < words.length; g++) {
      let summary = words[g] as number;
      if (summary === 0) continue;
      words[g] = 0;
      while (summary !== 0) {
        const low = summary & -summary;
        summary ^= low;
        const w = (g << 5) | (31 - Math.clz32(low));
        let word = bits[w] as number;
        bits[w] = 0;
        while (word !== 0) {
          const bit = word & -word;
          word ^= bit;
          const rent = (w << 5) | (31 - Math.clz32(bit));
          const count = denseCounts[rent] as number;
          if (count !== 0 || (keepZeroCounts && (denseBonds[rent] as number) !== 0)) {
            rents[k] = rent;
            counts[k] = count;
            bondSums[k] = denseBonds[rent] as number;
            k++;
          }
          denseCounts[rent] = 0;
          denseBonds[rent] = 0;
        }
      }
    }
    if (this.sparse.size > 0) {
      for (const rent of [...this.sparse.keys()].sort((a, b) => a - b)) {
        const slot = this.sparse.get(rent) as { count: number; bondSum: number };
        if (slot.count !== 0 || (keepZeroCounts && slot.bondSum !== 0)) {
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

  /** Marks a dense slot touched. */
  private touch(rent: number): void {
    const w = rent >> 5;
    const word = this.bits[w] as number;
    const bit = 1 << (rent & 31);
    if ((word & bit) !== 0) return;
    this.bits[w] = word | bit;
    this.words[w >> 5] = (this.words[w >> 5] as number) | (1 << (w & 31));
    this.touchedSize++;
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
