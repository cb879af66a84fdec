import { RentAccumulator } from './accumulator.ts';
import type { Geography } from './areas.ts';
import { Arena, scratchFloat64, scratchInt32 } from './arena.ts';
import { CELLS_PER_SA2, type CountBlock, type RentBlock } from './blocks.ts';
import { type AnswerFormat, answerEncoder, type RowSink, rowsEncoder } from './encode.ts';
import { ALL, BEDROOM_VALUES, type Bedrooms, DWELLING_TYPES, type DwellingType } from './factors.ts';
import type { StatisticsQuery } from './params.ts';
import { bedroomsKey, dwellingKey, randomRound3 } from './rounding.ts';
import { FIGURE_NAMES, type PublishedStatistics, publishedStatisticsInto } from './statistics.ts';

/**
 * Builds the rows of one /statistics answer from month blocks. Every figure comes from merged
 * histograms, never from the bonds again:
 *
 * 1. Each histogram entry of every month is routed to its row cell (area × dwelling × bedrooms) by a
 *    counting sort, then each row cell's entries are summed in the accumulator: the base histograms.
 * 2. With include-aggregates, each ALL row is the merge of the next finer rows (area × dwelling × ALL
 *    from the base, area × ALL × ALL from those, and so on), so no entry is added more than a few times.
 * 3. Each row is published: suppression and output rounding, and keyed random rounding of the counts.
 *
 * Steps 1 (the sums of each row cell) and 2 are done area by area, each area's just before its rows are
 * published, and the ALL area's (over every area) last: a streamed answer (streamReport) hands its first
 * rows on after the counting sort alone, not after every histogram of the answer. The same merges of the
 * same histograms in the same order as level by level, so the same bytes.
 */

const D = DWELLING_TYPES.length; // 5; index D means ALL
const B = BEDROOM_VALUES.length; // 6; index B means ALL
const SLOTS = (D + 1) * (B + 1);

/** A bond lodged after the as-of day: in the tables, but not yet to be counted. */
export interface PendingBond {
  cell: number;
  /** `yyyy-mm` of the tenancy start and of the closing (null when open). */
  startMonth: string;
  closedMonth: string | null;
  rent: number;
  bond: number;
}

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
   * `length` bytes of `key` (a reused buffer, so no string is built per row). `prefixLength`: how many
   * leading bytes the rows of this area share (a hint; `sipRowUniforms` hashes them once per area).
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

/** All rows of an answer in one array (tests and small answers). */
export function buildReport(input: ReportInput): StatisticsItem[] {
  const items: StatisticsItem[] = [];
  writeReport(input, (rows) => {
    for (const row of rows) items.push(row);
  });
  return items;
}

/** The rows of an answer as objects, handed to `sink` one area at a time (the area's rows, in order). */
export function writeReport(input: ReportInput, sink: (rows: StatisticsItem[]) => void): void {
  let label = '';
  let items: StatisticsItem[] = [];
  const figure = (figures: Float64Array | null, f: number) => {
    const x = figures === null ? Number.NaN : (figures[f] as number);
    return Number.isNaN(x) ? null : x;
  };
  produceRows(input, {
    area(next) {
      if (items.length > 0) sink(items);
      label = next;
      items = [];
    },
    row(d, b, nLodged, nClosed, nCurr, figures) {
      items.push({
        area: label,
        dwell: d < D ? (DWELLING_TYPES[d] as DwellingType) : ALL,
        nBedrms: b < B ? (BEDROOM_VALUES[b] as Bedrooms) : ALL,
        nLodged,
        nClosed,
        nCurr,
        mean: figure(figures, 0),
        lq: figure(figures, 1),
        med: figure(figures, 2),
        uq: figure(figures, 3),
        sd: figure(figures, 4),
        brr: figure(figures, 5),
        lmean: figure(figures, 6),
        lsd: figure(figures, 7),
        slq: figure(figures, 8),
        suq: figure(figures, 9),
      });
    },
  });
  if (items.length > 0) sink(items);
}

/** The answer's bytes in a format: the rows written straight into the encoder, no object per row. */
export function encodeReport(input: ReportInput, format: AnswerFormat): Buffer {
  const encoder = answerEncoder(format, input.query.areaDefinition, input.query.period.periodCovered);
  produceRows(input, encoder);
  return encoder.finish();
}

/** The rows of some areas as bytes (a `rowsEncoder`'s) and those areas' part of the ALL area. */
export interface RowsPart {
  rows: Uint8Array;
  part: NationalPart | null;
}

/** The rows of areas `from` … `to` − 1 in a format, for `encodeReportInParts` (in any thread). */
export function produceRowsPart(
  input: ReportInput,
  format: AnswerFormat,
  from: number,
  to: number,
): RowsPart {
  const encoder = rowsEncoder(format);
  const part = produceAreas(input, encoder, from, to);
  return { rows: encoder.finish(), part };
}

/**
 * The answer's bytes, the areas from `split` on produced by `rest` (another thread's
 * `produceRowsPart`) while this thread produces those before it: the same bytes as `encodeReport`.
 * Each step here is synchronous, so answers in between cannot disturb the working arrays.
 */
export async function encodeReportInParts(
  input: ReportInput,
  format: AnswerFormat,
  split: number,
  rest: (from: number, to: number) => Promise<RowsPart>,
): Promise<Buffer> {
  const areaCount = input.query.areas.length;
  const theirs = rest(split, areaCount);
  const encoder = answerEncoder(format, input.query.areaDefinition, input.query.period.periodCovered);
  let mine: NationalPart | null;
  try {
    mine = produceAreas(input, encoder, 0, split);
  } catch (error) {
    // The other part's failure, if any, is not left unhandled.
    theirs.catch(() => {});
    throw error;
  }
  const { rows, part } = await theirs;
  encoder.append(rows);
  if (mine && part) produceNational(input, encoder, [mine, part]);
  return encoder.finish();
}

const figures = new Float64Array(FIGURE_NAMES.length);

/**
 * What the ALL area needs from a range of areas: for each dwelling × bedroom value (index d · B + b),
 * the merged histogram of those areas' rows (entries start[i] … start[i] + length[i] − 1), its bonds,
 * and the rows' closed and current counts. `produceAreas` makes one (in any thread), `produceNational`
 * combines them: histograms merge exactly (counts and whole-dollar bond sums add; an entry that nets to
 * zero is dropped either way), so the ALL rows of any split of the areas are those of one part.
 */
export interface NationalPart {
  start: Int32Array;
  length: Int32Array;
  n: Float64Array;
  closed: Float64Array;
  current: Float64Array;
  rents: Int32Array;
  counts: Float64Array;
  bondSums: Float64Array;
}

/**
 * The rows of an answer, in order, into `sink`: `area` before the first row of each area that has
 * rows, then its rows; the ALL area last (with include-aggregates).
 */
export function produceRows(input: ReportInput, sink: RowSink): void {
  const part = produceAreas(input, sink, 0, input.query.areas.length);
  if (part) produceNational(input, sink, [part]);
}

/**
 * The rows of areas `from` … `to` − 1 into `sink`, and (with include-aggregates) those areas' part of
 * the ALL area, in memory of its own. Synchronous and self-contained (the working arrays are shared
 * between answers), so the areas of one answer can be split between threads (store/report-threads.ts).
 */
export function produceAreas(
  input: ReportInput,
  sink: RowSink,
  from: number,
  to: number,
): NationalPart | null {
  const { query } = input;
  const areaCount = query.areas.length;
  const dwellings = indexesOf(DWELLING_TYPES, query.dwellingTypes);
  const bedrooms = indexesOf(BEDROOM_VALUES, query.bedrooms);
  const rowOfCell = routeCells(input, dwellings, bedrooms);
  // Row slots: (area or ALL at index areaCount) × (dwelling or ALL) × (bedrooms or ALL).
  const slotCount = (areaCount + 1) * SLOTS;
  const arena = new Arena(slotCount);
  const closed = scratchFloat64('closed', slotCount).fill(0);
  const current = scratchFloat64('current', slotCount).fill(0);
  const accumulator = new RentAccumulator();
  const sorted = sortEntries(input, rowOfCell, areaCount * SLOTS, arena, from * SLOTS, to * SLOTS);
  baseCounts(input, rowOfCell, closed, current);
  const levels = aggregates(arena, accumulator, closed, current);
  const publish = publisher(input, sink, dwellings, bedrooms);
  for (let a = from; a < to; a++) {
    // An area's histograms are made just before its rows are published.
    storeBase(a, sorted, arena, accumulator);
    if (query.includeAggregates) levels.area(a);
    const area = query.areas[a] as StatisticsQuery['areas'][number];
    publish(a, arena, closed, current, area.label, area.key);
  }
  return query.includeAggregates ? levels.part(from, to, areaCount) : null;
}

/** The rows of the ALL area (include-aggregates) from the parts of every area, into `sink`. */
export function produceNational(input: ReportInput, sink: RowSink, parts: readonly NationalPart[]): void {
  const { query } = input;
  const dwellings = indexesOf(DWELLING_TYPES, query.dwellingTypes);
  const bedrooms = indexesOf(BEDROOM_VALUES, query.bedrooms);
  // One area's slots: the ALL area, as area 0.
  const arena = new Arena(SLOTS);
  const closed = scratchFloat64('closed', SLOTS).fill(0);
  const current = scratchFloat64('current', SLOTS).fill(0);
  const accumulator = new RentAccumulator();
  const levels = aggregates(arena, accumulator, closed, current);
  levels.combine(parts);
  levels.area(0);
  publisher(input, sink, dwellings, bedrooms)(0, arena, closed, current, ALL, query.allAreasKey);
}

/**
 * Publishes the rows of one area from its slots (area index `a` in the arena): suppression, output
 * rounding and keyed random rounding of the counts, written into the sink.
 */
function publisher(
  input: ReportInput,
  sink: RowSink,
  dwellings: number[],
  bedrooms: number[],
): (
  a: number,
  arena: Arena,
  closed: Float64Array,
  current: Float64Array,
  label: string,
  key: string,
) => void {
  const { query } = input;
  const dwellingSlots = query.includeAggregates ? [...dwellings, D] : dwellings;
  const bedroomSlots = query.includeAggregates ? [...bedrooms, B] : bedrooms;
  // The parts of each row's rounding key (rowKey in domain/rounding.ts), computed once per answer.
  const { periodEnding, numMonths } = query.period;
  const keyPrefix = `mr2|${periodEnding}|${numMonths}|`;
  const dwellingKeys = [
    ...DWELLING_TYPES.map((d) => dwellingKey(d)),
    dwellingKey(query.dwellingTypes ?? ALL),
  ];
  const bedroomKeys = [...BEDROOM_VALUES.map((b) => bedroomsKey(b)), bedroomsKey(query.bedrooms ?? ALL)];
  const encoder = new TextEncoder();
  const suffixes = dwellingKeys.map((d) => bedroomKeys.map((b) => encoder.encode(`${d}|${b}`)));
  let keyBytes = new Uint8Array(512);
  return (a, arena, closed, current, label, key) => {
    // The arena's arrays as they are now (storing may have grown them).
    const { rents, counts, bondSums, start, length, n } = arena;
    let areaPrefixLength = -1;
    for (const d of dwellingSlots) {
      for (const b of bedroomSlots) {
        const slot = (a * (D + 1) + d) * (B + 1) + b;
        const nLodged = n[slot] as number;
        const nClosed = closed[slot] as number;
        const nCurr = current[slot] as number;
        if (nLodged === 0 && nClosed === 0 && nCurr === 0) continue;
        if (areaPrefixLength < 0) {
          // The area's first row: its label for the sink, its part of the rounding keys.
          sink.area(label);
          const areaPrefix = encoder.encode(`${keyPrefix}${key}|`);
          if (areaPrefix.length + 128 > keyBytes.length)
            keyBytes = new Uint8Array(areaPrefix.length * 2 + 128);
          keyBytes.set(areaPrefix, 0);
          areaPrefixLength = areaPrefix.length;
        }
        let rLodged = nLodged;
        let rClosed = nClosed;
        let rCurr = nCurr;
        if (nLodged % 3 !== 0 || nClosed % 3 !== 0 || nCurr % 3 !== 0) {
          const suffix = suffixes[d]![b]!;
          // A loop, not TypedArray.set: the suffix is a few bytes and this runs for most rows.
          for (let i = 0; i < suffix.length; i++) keyBytes[areaPrefixLength + i] = suffix[i] as number;
          const [u0, u1, u2] = input.rowUniforms(
            keyBytes,
            areaPrefixLength + suffix.length,
            areaPrefixLength,
          );
          rLodged = randomRound3(nLodged, u0);
          rClosed = randomRound3(nClosed, u1);
          rCurr = randomRound3(nCurr, u2);
        }
        const from = start[slot] as number;
        const published = publishedStatisticsInto(
          rents,
          counts,
          bondSums,
          from,
          from + (length[slot] as number),
          nLodged,
          figures,
        );
        sink.row(d, b, rLodged, rClosed, rCurr, published ? figures : null);
      }
    }
  };
}

function indexesOf<T extends string>(universe: readonly T[], chosen: readonly T[] | null): number[] {
  return universe.flatMap((value, i) => (chosen === null || chosen.includes(value) ? [i] : []));
}

/** For every cell (SA2 × dwelling × bedrooms), the base row slot it feeds, or −1 when not reported. */
function routeCells(input: ReportInput, dwellings: number[], bedrooms: number[]): Int32Array {
  const { geography, query } = input;
  const areaOfSa2 = scratchInt32('areaOfSa2', geography.sa2Codes.length).fill(-1);
  query.areas.forEach((area, a) => {
    for (const code of area.sa2Codes) {
      const index = geography.sa2Index.get(code);
      if (index !== undefined) areaOfSa2[index] = a;
    }
  });
  const rowOfCell = scratchInt32('rowOfCell', geography.sa2Codes.length * CELLS_PER_SA2).fill(-1);
  for (let s = 0; s < areaOfSa2.length; s++) {
    const a = areaOfSa2[s] as number;
    if (a < 0) continue;
    for (const d of dwellings) {
      for (const b of bedrooms) {
        rowOfCell[s * CELLS_PER_SA2 + d * B + b] = (a * (D + 1) + d) * (B + 1) + b;
      }
    }
  }
  return rowOfCell;
}

/** Every base entry of an answer, sorted by its row slot: slot s owns entries starts[s] … starts[s + 1] − 1. */
interface SortedEntries {
  starts: Int32Array;
  rents: Int32Array;
  counts: Float64Array;
  bondSums: Float64Array;
}

/**
 * Routes every histogram entry of the period (and every bond not yet lodged) to its base row slot, for
 * the slots `lo` … `hi` − 1 (the areas being produced; the others stay empty).
 */
function sortEntries(
  input: ReportInput,
  rowOfCell: Int32Array,
  baseCount: number,
  arena: Arena,
  lo: number,
  hi: number,
): SortedEntries {
  const months = new Set(input.query.period.months);
  const pending = input.pending.filter((p) => months.has(p.startMonth) && p.cell >= 0);
  // Counting sort of every entry by its row slot: sizes first (shifted by one), then running sums.
  const starts = scratchInt32('starts', baseCount + 1).fill(0);
  for (const block of input.rent) {
    const cells = block.cells;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] as number;
      const slot = cell >= 0 ? (rowOfCell[cell] as number) : -1;
      if (slot >= lo && slot < hi) starts[slot + 1] = (starts[slot + 1] as number) + 1;
    }
  }
  for (const p of pending) {
    const slot = rowOfCell[p.cell] as number;
    if (slot >= lo && slot < hi) starts[slot + 1] = (starts[slot + 1] as number) + 1;
  }
  for (let s = 1; s <= baseCount; s++) starts[s] = (starts[s] as number) + (starts[s - 1] as number);
  const total = starts[baseCount] as number;
  const rents = scratchInt32('sorted.rents', total);
  const counts = scratchFloat64('sorted.counts', total);
  const bondSums = scratchFloat64('sorted.bondSums', total);
  const fill = scratchInt32('fill', baseCount);
  fill.set(starts.subarray(0, baseCount));
  for (const block of input.rent) {
    const cells = block.cells;
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i] as number;
      const slot = cell >= 0 ? (rowOfCell[cell] as number) : -1;
      if (slot < lo || slot >= hi) continue;
      const at = fill[slot] as number;
      fill[slot] = at + 1;
      rents[at] = block.rents[i] as number;
      counts[at] = block.counts[i] as number;
      bondSums[at] = block.bondSums[i] as number;
    }
  }
  // Bonds not yet lodged on the as-of day come back out of their cells.
  for (const p of pending) {
    const slot = rowOfCell[p.cell] as number;
    if (slot < lo || slot >= hi) continue;
    const at = fill[slot] as number;
    fill[slot] = at + 1;
    rents[at] = p.rent;
    counts[at] = -1;
    bondSums[at] = -p.bond;
  }
  // Base histograms, then the ALL levels above them, take a few times the base entries.
  arena.reserve(total * 3);
  return { starts, rents, counts, bondSums };
}

/** The base histograms of area `a` (its slots whose dwelling and bedrooms are not ALL) into the arena. */
function storeBase(a: number, sorted: SortedEntries, arena: Arena, accumulator: RentAccumulator): void {
  const { starts, rents, counts, bondSums } = sorted;
  for (let slot = a * SLOTS; slot < (a + 1) * SLOTS; slot++) {
    const from = starts[slot] as number;
    const to = starts[slot + 1] as number;
    if (from === to) continue;
    accumulator.addPacked(rents, counts, bondSums, from, to);
    arena.store(slot, accumulator);
  }
}

function baseCounts(
  input: ReportInput,
  rowOfCell: Int32Array,
  closed: Float64Array,
  current: Float64Array,
): void {
  const add = (block: CountBlock, into: Float64Array) => {
    for (let i = 0; i < block.cells.length; i++) {
      const cell = block.cells[i] as number;
      const slot = cell >= 0 ? (rowOfCell[cell] as number) : -1;
      if (slot >= 0) into[slot] = (into[slot] as number) + (block.counts[i] as number);
    }
  };
  for (const block of input.closed) add(block, closed);
  add(input.active, current);
  const { months, periodEnding } = input.query.period;
  const inPeriod = new Set(months);
  for (const p of input.pending) {
    const slot = p.cell >= 0 ? (rowOfCell[p.cell] as number) : -1;
    if (slot < 0) continue;
    if (p.closedMonth !== null && inPeriod.has(p.closedMonth)) closed[slot] = (closed[slot] as number) - 1;
    // Pending bonds all started by the end of the period (the store asks only for those).
    if (p.closedMonth === null || p.closedMonth > periodEnding) current[slot] = (current[slot] as number) - 1;
  }
}

/**
 * Fills the ALL slots from finer ones: each level merges the level below it. The sources of every ALL
 * slot are evenly spaced slots (first, first + stride, …), so they are walked by index, with no list.
 * `area(a)` fills area a's ALL slots from its base slots. `part(from, to, areaCount)` merges each
 * dwelling × bedroom value over areas from … to − 1 into the ALL area's slots and copies them out;
 * `combine(parts)` fills area 0's base slots (the ALL area, in an arena of its own) from such parts.
 */
function aggregates(
  arena: Arena,
  accumulator: RentAccumulator,
  closed: Float64Array,
  current: Float64Array,
): {
  area(a: number): void;
  part(from: number, to: number, areaCount: number): NationalPart;
  combine(parts: readonly NationalPart[]): void;
} {
  const slot = (a: number, d: number, b: number) => (a * (D + 1) + d) * (B + 1) + b;
  const { length, start } = arena;
  const merge = (target: number, first: number, stride: number, count: number) => {
    let c = 0;
    let n = 0;
    let filled = 0;
    let only = -1;
    const end = first + stride * count;
    for (let s = first; s < end; s += stride) {
      c += closed[s] as number;
      n += current[s] as number;
      if ((length[s] as number) > 0) {
        filled++;
        only = s;
      }
    }
    closed[target] = c;
    current[target] = n;
    // A merge of one histogram is that histogram: share its entries (stored ones never change).
    if (filled === 1) return arena.alias(target, only);
    if (filled === 0) return;
    const { rents, counts, bondSums } = arena;
    for (let s = first; s < end; s += stride) {
      const size = length[s] as number;
      if (size === 0) continue;
      const from = start[s] as number;
      accumulator.addPacked(rents, counts, bondSums, from, from + size);
    }
    arena.store(target, accumulator);
  };
  return {
    area(a) {
      // Area × dwelling × ALL from its bedroom values; area × ALL × bedrooms from its dwellings; then ALL × ALL.
      for (let d = 0; d < D; d++) merge(slot(a, d, B), slot(a, d, 0), 1, B);
      for (let b = 0; b < B; b++) merge(slot(a, D, b), slot(a, 0, b), B + 1, D);
      merge(slot(a, D, B), slot(a, 0, B), B + 1, D);
    },
    part(from, to, areaCount) {
      const part: NationalPart = {
        start: new Int32Array(D * B),
        length: new Int32Array(D * B),
        n: new Float64Array(D * B),
        closed: new Float64Array(D * B),
        current: new Float64Array(D * B),
        rents: new Int32Array(0),
        counts: new Float64Array(0),
        bondSums: new Float64Array(0),
      };
      let size = 0;
      for (let d = 0; d < D; d++) {
        for (let b = 0; b < B; b++) {
          const target = slot(areaCount, d, b);
          merge(target, slot(from, d, b), SLOTS, to - from);
          size += length[target] as number;
        }
      }
      part.rents = new Int32Array(size);
      part.counts = new Float64Array(size);
      part.bondSums = new Float64Array(size);
      let at = 0;
      for (let i = 0; i < D * B; i++) {
        const target = slot(areaCount, Math.floor(i / B), i % B);
        const from = start[target] as number;
        const to = from + (length[target] as number);
        part.start[i] = at;
        part.length[i] = to - from;
        part.n[i] = arena.n[target] as number;
        part.closed[i] = closed[target] as number;
        part.current[i] = current[target] as number;
        part.rents.set(arena.rents.subarray(from, to), at);
        part.counts.set(arena.counts.subarray(from, to), at);
        part.bondSums.set(arena.bondSums.subarray(from, to), at);
        at += to - from;
      }
      return part;
    },
    combine(parts) {
      for (let i = 0; i < D * B; i++) {
        const target = slot(0, Math.floor(i / B), i % B);
        let c = 0;
        let n = 0;
        let filled = 0;
        for (const part of parts) {
          c += part.closed[i] as number;
          n += part.current[i] as number;
          const from = part.start[i] as number;
          const size = part.length[i] as number;
          if (size === 0) continue;
          filled++;
          accumulator.addPacked(part.rents, part.counts, part.bondSums, from, from + size);
        }
        closed[target] = c;
        current[target] = n;
        if (filled > 0) arena.store(target, accumulator);
      }
    },
  };
}
