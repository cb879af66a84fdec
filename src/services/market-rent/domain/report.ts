import type { Geography } from './areas.ts';
import { CELLS_PER_SA2, type CountBlock, type RentBlock } from './blocks.ts';
import { type Cell, EMPTY_CELL, mergeCells } from './cells.ts';
import { ALL, BEDROOM_VALUES, type Bedrooms, DWELLING_TYPES, type DwellingType } from './factors.ts';
import { histogramOfEntries } from './histogram.ts';
import type { StatisticsQuery } from './params.ts';
import { roundRowCounts } from './rounding.ts';
import { type PublishedStatistics, publishedStatistics } from './statistics.ts';

/**
 * What a /statistics answer is, written plainly: the rows of a query from the month blocks of its
 * period, one object per cell, every rule where it is stated (`histogramOfEntries`, `mergeCells`,
 * `roundRowCounts`, `publishedStatistics`). render.ts turns the rows into JSON and CSV. This is the
 * definition the engine (engine/) is tested against: engine/report.ts makes the same bytes with packed
 * arrays, shared memory and two threads, and the equality test compares the two on 1,000 random queries.
 *
 * 1. The base cells (area × dwelling type × bedroom value): the entries of every month of the period
 *    routed to their area's cell, the bonds not yet lodged on the as-of day taken back out (a count of
 *    −1 at their rent), and the bonds closed in the period and current at its end counted.
 * 2. With include-aggregates, the ALL cells, each a merge of the next finer ones, level by level: the
 *    ALL area's base cells over the areas; then for every area and the ALL area, area × dwelling × ALL
 *    from its bedroom values, area × ALL × bedrooms from its dwelling types, area × ALL × ALL from its
 *    dwelling × ALL cells. (A merge leaves out a rent whose count comes to 0, so the levels matter when
 *    a bond taken back out is not in its block.)
 * 3. Each cell with a bond lodged, closed or current is published: its counts randomly rounded with the
 *    keyed draws of its row key, its statistics suppressed or rounded.
 *
 * Rows come in the order of the areas (the ALL area last), then dwelling types and bedroom values in
 * the order of factors.ts, ALL after them.
 */

/** A bond lodged after the as-of day: in the tables, but not yet to be counted. */
export interface PendingBond {
  cell: number;
  /** `yyyy-mm` of the tenancy start and of the closing (null when open). */
  startMonth: string;
  closedMonth: string | null;
  rent: number;
  bond: number;
}

/** A validated query and what the store holds for it: everything an answer is a function of. */
export interface ReportInput {
  query: StatisticsQuery;
  geography: Geography;
  /** One block per month of the period, oldest first. */
  rent: readonly RentBlock[];
  closed: readonly CountBlock[];
  /** Bonds active at the end of the period. */
  active: CountBlock;
  pending: readonly PendingBond[];
  /**
   * Three keyed uniforms for a row key (see roundRowCounts), given as the key's UTF-8 bytes: the first
   * `length` bytes of `key`. `prefixLength`: how many leading bytes the rows of this area share (a hint
   * the engine gives; the draws are the same without it).
   */
  rowUniforms: (key: Uint8Array, length: number, prefixLength?: number) => readonly [number, number, number];
}

export interface StatisticsItem extends PublishedStatistics {
  area: string;
  dwell: string;
  nBedrms: string;
  nLodged: number;
  nClosed: number;
  nCurr: number;
}

export const ITEM_KEYS = [
  'area',
  'dwell',
  'nBedrms',
  'nLodged',
  'nClosed',
  'nCurr',
  'mean',
  'lq',
  'med',
  'uq',
  'sd',
  'brr',
  'lmean',
  'lsd',
  'slq',
  'suq',
] as const satisfies readonly (keyof StatisticsItem)[];

const D = DWELLING_TYPES.length; // index D: ALL dwelling types
const B = BEDROOM_VALUES.length; // index B: ALL bedroom values

/** The base cell an entry of a block counts for, or undefined when the query leaves its cell out. */
interface Route {
  area: number;
  dwelling: number;
  bedrooms: number;
}

/** The rows of an answer, in order. */
export function buildReport(input: ReportInput): StatisticsItem[] {
  const { query } = input;
  const areaCount = query.areas.length;
  const routeOf = router(input);
  const { months, periodEnding, numMonths } = query.period;
  const inPeriod = new Set(months);

  // 1. The base cells' entries and counts, [area][dwelling][bedrooms].
  const grid = <T>(areas: number, make: () => T): T[][][] =>
    Array.from({ length: areas }, () =>
      Array.from({ length: D + 1 }, () => Array.from({ length: B + 1 }, make)),
    );
  const entries = grid(areaCount, (): [number, number, number][] => []);
  const closed = grid(areaCount, () => 0);
  const current = grid(areaCount, () => 0);
  const at = <T>(cells: T[][][], r: Route) => cells[r.area]![r.dwelling]!;
  for (const block of input.rent) {
    block.cells.forEach((cell, i) => {
      const r = routeOf(cell);
      if (r)
        at(entries, r)[r.bedrooms]!.push([
          block.rents[i] as number,
          block.counts[i] as number,
          block.bondSums[i] as number,
        ]);
    });
  }
  const count = (block: CountBlock, into: number[][][]) =>
    block.cells.forEach((cell, i) => {
      const r = routeOf(cell);
      if (r) at(into, r)[r.bedrooms]! += block.counts[i] as number;
    });
  for (const block of input.closed) count(block, closed);
  count(input.active, current);
  for (const p of input.pending) {
    const r = routeOf(p.cell);
    if (!r) continue;
    // Started in the period: out of the bonds lodged.
    if (inPeriod.has(p.startMonth)) at(entries, r)[r.bedrooms]!.push([p.rent, -1, -p.bond]);
    // Every bond not yet lodged started by the period's end (the store asks only for those).
    if (p.closedMonth !== null && inPeriod.has(p.closedMonth)) at(closed, r)[r.bedrooms]! -= 1;
    if (p.closedMonth === null || p.closedMonth > periodEnding) at(current, r)[r.bedrooms]! -= 1;
  }
  // Index areaCount: the ALL area.
  const cells: Cell[][][] = grid(areaCount + 1, () => EMPTY_CELL);
  for (let a = 0; a < areaCount; a++)
    for (let d = 0; d < D; d++)
      for (let b = 0; b < B; b++)
        cells[a]![d]![b] = {
          lodged: histogramOfEntries(entries[a]![d]![b]!),
          nClosed: closed[a]![d]![b]!,
          nCurr: current[a]![d]![b]!,
        };

  // 2. The ALL cells, each level merged from the one below.
  if (query.includeAggregates) {
    const areas = Array.from({ length: areaCount }, (_, a) => a);
    const dwellings = Array.from({ length: D }, (_, d) => d);
    const bedroomValues = Array.from({ length: B }, (_, b) => b);
    for (const d of dwellings)
      for (const b of bedroomValues)
        cells[areaCount]![d]![b] = mergeCells(areas.map((a) => cells[a]![d]![b]!));
    for (const area of cells) {
      for (const d of dwellings) area[d]![B] = mergeCells(bedroomValues.map((b) => area[d]![b]!));
      for (const b of bedroomValues) area[D]![b] = mergeCells(dwellings.map((d) => area[d]![b]!));
      area[D]![B] = mergeCells(dwellings.map((d) => area[d]![B]!));
    }
  }

  // 3. The rows.
  const dwellingSlots = chosen(DWELLING_TYPES, query.dwellingTypes);
  const bedroomSlots = chosen(BEDROOM_VALUES, query.bedrooms);
  if (query.includeAggregates) {
    dwellingSlots.push(D);
    bedroomSlots.push(B);
  }
  const encoder = new TextEncoder();
  const draws = (key: string) => {
    const bytes = encoder.encode(key);
    return input.rowUniforms(bytes, bytes.length);
  };
  const items: StatisticsItem[] = [];
  const areaSlots = query.includeAggregates ? areaCount + 1 : areaCount;
  for (let a = 0; a < areaSlots; a++) {
    const area = query.areas[a];
    for (const d of dwellingSlots) {
      for (const b of bedroomSlots) {
        const cell = cells[a]![d]![b]!;
        if (cell.lodged.n === 0 && cell.nClosed === 0 && cell.nCurr === 0) continue;
        const counts = roundRowCounts(
          { nLodged: cell.lodged.n, nClosed: cell.nClosed, nCurr: cell.nCurr },
          {
            periodEnding,
            numMonths,
            area: area ? area.key : query.allAreasKey,
            dwelling: d < D ? (DWELLING_TYPES[d] as DwellingType) : (query.dwellingTypes ?? ALL),
            bedrooms: b < B ? (BEDROOM_VALUES[b] as Bedrooms) : (query.bedrooms ?? ALL),
          },
          draws,
        );
        items.push({
          area: area ? area.label : ALL,
          dwell: d < D ? (DWELLING_TYPES[d] as string) : ALL,
          nBedrms: b < B ? (BEDROOM_VALUES[b] as string) : ALL,
          ...counts,
          ...publishedStatistics(cell.lodged),
        });
      }
    }
  }
  return items;
}

/** Indexes of the chosen values in their universe's order (all of them when none are chosen). */
function chosen<T extends string>(universe: readonly T[], values: readonly T[] | null): number[] {
  return universe.flatMap((value, i) => (values === null || values.includes(value) ? [i] : []));
}

/**
 * Where a cell (SA2 × dwelling × bedrooms) of a block counts: its SA2's area among the query's, with
 * its dwelling type and bedroom value when the query reports them; nowhere for a cell outside the
 * geography.
 */
function router(input: ReportInput): (cell: number) => Route | undefined {
  const { geography, query } = input;
  const areaOfSa2 = new Map<number, number>();
  query.areas.forEach((area, a) => {
    for (const code of area.sa2Codes) {
      const s = geography.sa2Index.get(code);
      if (s !== undefined) areaOfSa2.set(s, a);
    }
  });
  const dwellings = new Set(chosen(DWELLING_TYPES, query.dwellingTypes));
  const bedrooms = new Set(chosen(BEDROOM_VALUES, query.bedrooms));
  const cellCount = geography.sa2Codes.length * CELLS_PER_SA2;
  return (cell) => {
    if (!(cell >= 0 && cell < cellCount)) return undefined;
    const area = areaOfSa2.get(Math.floor(cell / CELLS_PER_SA2));
    const dwelling = Math.floor((cell % CELLS_PER_SA2) / B);
    const bedroomValue = cell % B;
    if (area === undefined || !dwellings.has(dwelling) || !bedrooms.has(bedroomValue)) return undefined;
    return { area, dwelling, bedrooms: bedroomValue };
  };
}
