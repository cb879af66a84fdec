import { CELLS_PER_SA2, type RentBlock } from '../domain/blocks.ts';

/**
 * A month's rent block as an answer reads it: its entries grouped by SA2 in the geography's order
 * (entries of SA2 s are sa2Start[s] … sa2Start[s + 1] − 1; entries of SA2s not in the geography
 * dropped), every array in shared memory so the report thread reads the same block (report-thread.ts).
 * An area's entries are then found without a pass over the whole month.
 */
export interface IndexedRentBlock extends RentBlock {
  readonly sa2Start: Int32Array;
}

const indexed = new WeakMap<RentBlock, IndexedRentBlock>();

const isShared = (array: ArrayBufferView) => array.buffer instanceof SharedArrayBuffer;

/**
 * The block indexed by SA2 (kept with the block: the store's blocks are indexed once). A block already
 * grouped by SA2 in order, in shared memory (the store's: the database sends the entries sorted by
 * cell) keeps its arrays; any other is copied, grouped by a stable counting sort.
 */
export function indexRentBlock(block: RentBlock, sa2Count: number): IndexedRentBlock {
  const known = indexed.get(block);
  if (known !== undefined && known.sa2Start.length === sa2Count + 1) return known;
  const { cells } = block;
  const sa2Start = new Int32Array(new SharedArrayBuffer((sa2Count + 1) * 4));
  let grouped =
    isShared(cells) && isShared(block.rents) && isShared(block.counts) && isShared(block.bondSums);
  let last = -1;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i] as number;
    const s = cell >= 0 ? (cell / CELLS_PER_SA2) | 0 : -1;
    if (s < last || s < 0 || s >= sa2Count) grouped = false;
    if (s < 0 || s >= sa2Count) continue;
    last = s;
    sa2Start[s + 1] = (sa2Start[s + 1] as number) + 1;
  }
  for (let s = 1; s <= sa2Count; s++) sa2Start[s] = (sa2Start[s] as number) + (sa2Start[s - 1] as number);
  let result: IndexedRentBlock;
  if (grouped) result = { ...pick(block), sa2Start };
  else {
    const total = sa2Start[sa2Count] as number;
    const out = {
      cells: new Int32Array(new SharedArrayBuffer(total * 4)),
      rents: new Int32Array(new SharedArrayBuffer(total * 4)),
      counts: new Int32Array(new SharedArrayBuffer(total * 4)),
      bondSums: new Float64Array(new SharedArrayBuffer(total * 8)),
    };
    const fill = sa2Start.slice(0, sa2Count);
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] as number;
      const s = cell >= 0 ? (cell / CELLS_PER_SA2) | 0 : -1;
      if (s < 0 || s >= sa2Count) continue;
      const at = fill[s] as number;
      fill[s] = at + 1;
      out.cells[at] = cell;
      out.rents[at] = block.rents[i] as number;
      out.counts[at] = block.counts[i] as number;
      out.bondSums[at] = block.bondSums[i] as number;
    }
    result = { ...out, sa2Start };
  }
  indexed.set(block, result);
  return result;
}

const pick = ({ cells, rents, counts, bondSums }: RentBlock): RentBlock => ({
  cells,
  rents,
  counts,
  bondSums,
});
