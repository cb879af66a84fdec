import type { RentAccumulator } from './accumulator.ts';

/**
 * Working arrays kept between answers. A national answer needs some tens of megabytes of typed arrays;
 * allocating them afresh each time makes V8 count that much new external memory and collect garbage
 * for it. Answers are built synchronously, one at a time, so reuse is safe; the arrays only grow. They
 * live in shared memory, so the report thread (report-thread.ts) reads the histograms where they are.
 */
const scratch = new Map<string, Int32Array | Float64Array>();

export const sharedInt32 = (size: number) => new Int32Array(new SharedArrayBuffer(size * 4));
export const sharedFloat64 = (size: number) => new Float64Array(new SharedArrayBuffer(size * 8));

export function scratchInt32(name: string, size: number): Int32Array {
  let array = scratch.get(name) as Int32Array | undefined;
  if (!array || array.length < size) {
    array = sharedInt32(Math.ceil(size * 1.25));
    scratch.set(name, array);
  }
  return array.subarray(0, size);
}

export function scratchFloat64(name: string, size: number): Float64Array {
  let array = scratch.get(name) as Float64Array | undefined;
  if (!array || array.length < size) {
    array = sharedFloat64(Math.ceil(size * 1.25));
    scratch.set(name, array);
  }
  return array.subarray(0, size);
}

/** Histograms of every row slot, packed end to end: slot s owns entries start[s] … start[s] + length[s] − 1. */
export class Arena {
  rents: Int32Array;
  counts: Float64Array;
  bondSums: Float64Array;
  size = 0;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly n: Float64Array;
  /** Over lent arrays: never grows. */
  private readonly fixed: boolean = false;

  /**
   * The arena kept under `name` (the request's thread keeps two: its own, `arena`, and the one it lends
   * the report thread, `threadArena`), its slot arrays emptied for `slots` slots; or, with `over`, an
   * arena over arrays another thread lent (it never grows: `reserve` beyond them throws, since the
   * lender could not see arrays made here).
   */
  constructor(
    slots: number,
    private readonly name = 'arena',
    over?: SlotArena,
  ) {
    if (over !== undefined) {
      this.rents = over.rents;
      this.counts = over.counts;
      this.bondSums = over.bondSums;
      this.start = over.start;
      this.length = over.length;
      this.n = over.n;
      this.fixed = true;
      return;
    }
    // The whole kept arrays (not views of a given size): the arena fills what it needs and grows them.
    this.rents = (scratch.get(`${name}.rents`) as Int32Array | undefined) ?? sharedInt32(1 << 16);
    this.counts = (scratch.get(`${name}.counts`) as Float64Array | undefined) ?? sharedFloat64(1 << 16);
    this.bondSums = (scratch.get(`${name}.bondSums`) as Float64Array | undefined) ?? sharedFloat64(1 << 16);
    this.start = scratchInt32(`${name}.start`, slots).fill(0);
    this.length = scratchInt32(`${name}.length`, slots).fill(0);
    this.n = scratchFloat64(`${name}.n`, slots).fill(0);
  }

  /** Empties the accumulator into slot `slot` (`keepZeroCounts`: see `RentAccumulator.takeInto`). */
  store(slot: number, accumulator: RentAccumulator, keepZeroCounts = false): void {
    this.reserve(this.size + accumulator.distinct);
    this.n[slot] = accumulator.n;
    this.start[slot] = this.size;
    const length = accumulator.takeInto(this.rents, this.counts, this.bondSums, this.size, keepZeroCounts);
    this.length[slot] = length;
    this.size += length;
  }

  /** Room for `needed` entries in all. */
  reserve(needed: number): void {
    if (needed <= this.rents.length) return;
    if (this.fixed) throw new Error(`arena: ${needed} entries needed, ${this.rents.length} lent`);
    const capacity = Math.max(needed, this.rents.length * 2);
    // Storing after growing writes only the new arrays: a reader of the old ones still finds every
    // histogram stored before.
    const rents = sharedInt32(capacity);
    const counts = sharedFloat64(capacity);
    const bondSums = sharedFloat64(capacity);
    rents.set(this.rents.subarray(0, this.size));
    counts.set(this.counts.subarray(0, this.size));
    bondSums.set(this.bondSums.subarray(0, this.size));
    this.rents = rents;
    this.counts = counts;
    this.bondSums = bondSums;
    // The grown arrays serve the next answers too.
    scratch.set(`${this.name}.rents`, rents);
    scratch.set(`${this.name}.counts`, counts);
    scratch.set(`${this.name}.bondSums`, bondSums);
  }

  /** Slot `target` holds the same histogram as `source`. */
  alias(target: number, source: number): void {
    this.start[target] = this.start[source] as number;
    this.length[target] = this.length[source] as number;
    this.n[target] = this.n[source] as number;
  }

  /** The arrays, for another thread (`new Arena(0, name, arrays)` there). */
  arrays(): SlotArena {
    const { rents, counts, bondSums, start, length, n } = this;
    return { rents, counts, bondSums, start, length, n };
  }
}

/** An arena's arrays: the entries and, per slot, where its histogram is and its bonds. */
export interface SlotArena {
  rents: Int32Array;
  counts: Float64Array;
  bondSums: Float64Array;
  start: Int32Array;
  length: Int32Array;
  n: Float64Array;
}

/**
 * Forgets the arrays kept under `name`: the next arena of that name gets new ones (those lent to a
 * report thread that stopped answering may still be written by it).
 */
export function forgetArena(name: string): void {
  for (const key of [...scratch.keys()]) if (key.startsWith(`${name}.`)) scratch.delete(key);
}
