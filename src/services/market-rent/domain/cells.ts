import { EMPTY_HISTOGRAM, type RentHistogram, sumHistograms } from './histogram.ts';
import { type CellKeyParts, roundCounts } from './rounding.ts';
import { type PublishedStatistics, publishedStatistics } from './statistics.ts';

/**
 * Everything the service needs to know about one population of bonds over one period: the histogram of
 * the bonds lodged in it (whose size is nLodged), the bonds closed in it, and the bonds active at its end.
 */
export interface Cell {
  readonly lodged: RentHistogram;
  readonly nClosed: number;
  readonly nCurr: number;
}

export const EMPTY_CELL: Cell = Object.freeze({ lodged: EMPTY_HISTOGRAM, nClosed: 0, nCurr: 0 });

/**
 * Cells of disjoint populations over the same period (areas, dwelling types, bedroom counts): every
 * figure adds. This is how ALL rows are made, from the finer cells rather than from the bonds again.
 */
export function mergeCells(cells: readonly Cell[]): Cell {
  if (cells.length === 0) return EMPTY_CELL;
  if (cells.length === 1) return cells[0] as Cell;
  let nClosed = 0;
  let nCurr = 0;
  for (const c of cells) {
    nClosed += c.nClosed;
    nCurr += c.nCurr;
  }
  return { lodged: sumHistograms(cells.map((c) => c.lodged)), nClosed, nCurr };
}

/**
 * Consecutive months of the same population, in chronological order, joined into one period. Lodged and
 * closed bonds add (each bond is lodged once and closed once); bonds active at the end of the period are
 * those active at the end of its last month, so nCurr is not a sum.
 */
export function joinMonths(months: readonly Cell[]): Cell {
  if (months.length === 0) return EMPTY_CELL;
  const last = months[months.length - 1] as Cell;
  return { ...mergeCells(months), nCurr: last.nCurr };
}

/** One published row's figures: keyed, randomly rounded counts and the suppressed-or-rounded statistics. */
export interface PublishedFigures extends PublishedStatistics {
  nLodged: number;
  nClosed: number;
  nCurr: number;
}

/**
 * Figures of one row. `uniform` is the caller's keyed source, normally
 * `(key) => keyedUniform(environmentSecret, key)`; suppression is decided on the true count of bonds
 * lodged, before rounding, as the spec says.
 */
export function publishCell(
  cell: Cell,
  key: Omit<CellKeyParts, 'statistic'>,
  uniform: (key: string) => number,
): PublishedFigures {
  const counts = roundCounts(
    { nLodged: cell.lodged.n, nClosed: cell.nClosed, nCurr: cell.nCurr },
    key,
    uniform,
  );
  return { ...counts, ...publishedStatistics(cell.lodged) };
}
