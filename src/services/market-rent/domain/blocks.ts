import { BEDROOM_VALUES, DWELLING_TYPES } from './factors.ts';

/**
 * The shapes of month blocks (store/blocks.ts reads them; domain/report.ts defines an answer over them,
 * engine/ makes it fast). A cell is SA2 × dwelling type × bedrooms, numbered
 * `sa2Index · 30 + dwelling · 6 + bedrooms`.
 */
export const CELLS_PER_SA2 = DWELLING_TYPES.length * BEDROOM_VALUES.length;

/** Histogram entries of one month: entry i is (cell, rent) with its bonds and the sum of their bonds. */
export interface RentBlock {
  readonly cells: Int32Array;
  readonly rents: Int32Array;
  readonly counts: Int32Array;
  readonly bondSums: Float64Array;
}

/** Counts of one month per cell (bonds closed in the month, or active at its end). */
export interface CountBlock {
  readonly cells: Int32Array;
  readonly counts: Int32Array;
}
