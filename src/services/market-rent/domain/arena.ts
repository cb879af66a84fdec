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
  // The whole kept arrays (not views of a given size): the arena fills what it needs and grows them.
  rents = (scratch.get('arena.rents') as Int32Array | undefined) ?? sharedInt32(1 << 16);
  counts = (scratch.get('arena.counts') as Float64Array | undefined) ?? sharedFloat64(1 << 16);
  bondSums = (scratch.get('arena.bondSums') as Float64Array | undefined) ?? sharedFloat64(1 << 16);
  size = 0;
  readonly start: Int32Array;
  readonly length: Int32Array;
  readonly n: Float64Array;

  constructor(slots: number) {
    this.start = scratchInt32('arena.start', slots).fill(0);
    this.length = scratchInt32('arena.length', slots).fill(0);
    this.n = scratchFloat64('arena.n', slots).fill(0);
  }

  /** Empties the accumulator into slot `slot`. */
  store(slot: number, accumulator: RentAccumulator): void {
    this.reserve(this.size + accumulator.distinct);
    this.n[slot] = accumulator.n;
    this.start[slot] = this.size;
    const length = accumulator.takeInto(this.rents, this.counts, this.bondSums, this.size);
    this.length[slot] = length;
    this.size += length;
  }

  /** Room for `needed` entries in all. */
  reserve(needed: number): void {
    if (needed <= this.rents.length) return;
    const capacity = Math.max(needed, this.rents.length * 2);
    // Storing after growing writes only the new arrays: a reader of the old ones (the report thread)
    // still finds every histogram stored before.
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
    scratch.set('arena.rents', rents);
    scratch.set('arena.counts', counts);
    scratch.set('arena.bondSums', bondSums);
  }

  /** Slot `target` holds the same histogram as `source`. */
  alias(target: number, source: number): void {
    this.start[target] = this.start[source] as number;
    this.length[target] = this.length[source] as number;
    this.n[target] = this.n[source] as number;
  }

  addTo(accumulator: RentAccumulator, slot: number): void {
    const from = this.start[slot] as number;
    accumulator.addRange(this.rents, this.counts, this.bondSums, from, from + (this.length[slot] as number));
  }
}
