import { describe, expect, it } from 'vitest';
import { CELLS_PER_SA2, type RentBlock } from '../../../src/services/market-rent/domain/blocks.ts';
import { indexRentBlock } from '../../../src/services/market-rent/engine/indexed-blocks.ts';

/**
 * Month blocks indexed by SA2 (engine/indexed-blocks.ts): an answer finds an area's entries of a month through
 * the index, and the report thread reads the same arrays, so they must be in shared memory.
 */
const sharedInt32 = (values: number[]) => {
  const array = new Int32Array(new SharedArrayBuffer(values.length * 4));
  array.set(values);
  return array;
};
const sharedFloat64 = (values: number[]) => {
  const array = new Float64Array(new SharedArrayBuffer(values.length * 8));
  array.set(values);
  return array;
};

const cell = (sa2: number, d: number, b: number) => sa2 * CELLS_PER_SA2 + d * 6 + b;

describe('indexRentBlock', () => {
  it('keeps the arrays of a block in shared memory already grouped by SA2, and indexes them', () => {
    const block: RentBlock = {
      cells: sharedInt32([cell(0, 0, 1), cell(0, 2, 3), cell(2, 1, 1), cell(2, 1, 1), cell(3, 4, 5)]),
      rents: sharedInt32([300, 410, 500, 520, 610]),
      counts: sharedInt32([1, 2, 3, 4, 5]),
      bondSums: sharedFloat64([1200, 3280, 6000, 8320, 12_200]),
    };
    const indexed = indexRentBlock(block, 5);
    expect(indexed.cells).toBe(block.cells);
    expect(indexed.bondSums).toBe(block.bondSums);
    expect([...indexed.sa2Start]).toEqual([0, 2, 2, 4, 5, 5]);
    expect(indexed.sa2Start.buffer).toBeInstanceOf(SharedArrayBuffer);
    // Indexed once: the same index the next time.
    expect(indexRentBlock(block, 5)).toBe(indexed);
  });

  it('copies any other block into shared memory, grouped by SA2 in order, dropping cells outside the geography', () => {
    const block: RentBlock = {
      cells: Int32Array.from([cell(2, 0, 0), -1, cell(0, 1, 1), cell(2, 3, 0), cell(0, 0, 0), cell(7, 0, 0)]),
      rents: Int32Array.from([200, 999, 300, 250, 310, 400]),
      counts: Int32Array.from([1, 9, 2, 3, 4, 5]),
      bondSums: Float64Array.from([800, 9000, 1200, 750, 1240, 1600]),
    };
    const indexed = indexRentBlock(block, 4);
    for (const array of [indexed.cells, indexed.rents, indexed.counts, indexed.bondSums, indexed.sa2Start])
      expect(array.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([...indexed.sa2Start]).toEqual([0, 2, 2, 4, 4]);
    // Stable: each SA2's entries in the block's order; −1 and SA2 7 (not among the 4) left out.
    expect([...indexed.cells]).toEqual([cell(0, 1, 1), cell(0, 0, 0), cell(2, 0, 0), cell(2, 3, 0)]);
    expect([...indexed.rents]).toEqual([300, 310, 200, 250]);
    expect([...indexed.counts]).toEqual([2, 4, 1, 3]);
    expect([...indexed.bondSums]).toEqual([1200, 1240, 800, 750]);
  });

  it('indexes an empty block', () => {
    const empty: RentBlock = {
      cells: new Int32Array(0),
      rents: new Int32Array(0),
      counts: new Int32Array(0),
      bondSums: new Float64Array(0),
    };
    const indexed = indexRentBlock(empty, 3);
    expect([...indexed.sa2Start]).toEqual([0, 0, 0, 0]);
  });
});
