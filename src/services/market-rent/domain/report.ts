import { RentAccumulator } from './accumulator.ts';
import type { Geography } from './areas.ts';
import { Arena, scratchFloat64, scratchInt32 } from './arena.ts';
import { CELLS_PER_SA2, type CountBlock, type RentBlock } from './blocks.ts';
import {
  type AnswerFormat,
  answerEncoder,
  type LentAnswer,
  type RowSink,
  reserveAnswerBuffer,
} from './encode.ts';
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
 * published, and the ALL area's (over every area) last, so an area's histograms are still in the cache
 * when its rows are published (an answer streamed that way was tried and was slower on two cores:
 * docs/benchmarks.md, issue 18). The same merges of the same histograms in the same order as level by
 * level, so the same bytes.
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

/** `encodeReport` without the copy: the bytes are lent until `release()` (encode.ts, `finishLent`). */
export function encodeReportLent(input: ReportInput, format: AnswerFormat): LentAnswer {
  const encoder = answerEncoder(format, input.query.areaDefinition, input.query.period.periodCovered);
  produceRows(input, encoder);
  return encoder.finishLent();
}

const figures = new Float64Array(FIGURE_NAMES.length);

/**
 * Room in the arena per base entry, made before any histogram is stored: every area's histograms fit
 * (the base, and each of an area's three ALL levels at most its base entries), so storing them never
 * moves the arena while the report thread reads it (report-thread.ts); only the ALL area's may grow it.
 */
const ARENA_PER_ENTRY = 4;
/** Bytes of JSON per histogram entry of a national answer with aggregates (12.5 MB for 499,107). */
const ANSWER_BYTES_PER_ENTRY = 26;
/** The most entries the working memory was made ready for. */
let reservedEntries = 0;

/**
 * Makes the working memory of an answer over `entries` histogram entries ready (the sorted entries,
 * the arena, the answer's buffer), its pages touched: the first national answer of a process then
 * neither grows arrays by doubling nor meets tens of megabytes of new memory (issue 18: the first
 * answer's computation took 190–270 ms against 125–170 for the next ones; with the memory ready,
 * 150–200). The arrays are those every later answer keeps anyway; answers' bytes are unchanged.
 */
export function reserveWorkingMemory(entries: number): void {
  // Each environment asks at start; the arrays are shared, so only a larger size does anything.
  if (!(entries > reservedEntries)) return;
  reservedEntries = entries;
  scratchInt32('sorted.rents', entries).fill(0);
  scratchFloat64('sorted.counts', entries).fill(0);
  scratchFloat64('sorted.bondSums', entries).fill(0);
  const arena = new Arena(0);
  arena.reserve(entries * ARENA_PER_ENTRY);
  arena.rents.fill(0);
  arena.counts.fill(0);
  arena.bondSums.fill(0);
  reserveAnswerBuffer(entries * ANSWER_BYTES_PER_ENTRY);
}

/**
 * The rows of an answer, in order, into `sink`: `area` before the first row of each area that has
 * rows, then its rows.
 */
export function produceRows(input: ReportInput, sink: RowSink): void {
  publishAll(prepareAnswer(input), input.rowUniforms, sink);
}

/** Every area's histograms and rows, on this thread. */
export function publishAll(work: AnswerWork, rowUniforms: ReportInput['rowUniforms'], sink: RowSink): void {
  const publisher = new AreaPublisher(work.plan, rowUniforms, sink);
  for (let a = 0; a < work.plan.areaSlots; a++) {
    // An area's histograms are made just before its rows are published (the ALL area's last, from
    // every area's), so its histograms are still in the cache when its rows are published.
    work.histogramsOf(a);
    publisher.publish(a, work.arrays());
  }
}

/** What publishing the rows of an answer needs besides its histograms; plain data (a helper thread gets a copy). */
export interface PublishPlan {
  areaCount: number;
  /** Areas with rows to publish: the areas, and the ALL area with aggregates. */
  areaSlots: number;
  dwellingSlots: number[];
  bedroomSlots: number[];
  /** Each area's label and rounding key part (index areaCount: the ALL area's). */
  labels: string[];
  keys: string[];
  /** `mr2|period-ending|months|`: every row key starts with it. */
  keyPrefix: string;
  /** The `dwelling|bedrooms` end of a row key for each dwelling and bedrooms slot. */
  suffixes: string[][];
}

/** Every row slot's histogram (packed end to end, as the arena keeps them) and counts. */
export interface SlotArrays {
  rents: Int32Array;
  counts: Float64Array;
  bondSums: Float64Array;
  start: Int32Array;
  length: Int32Array;
  n: Float64Array;
  closed: Float64Array;
  current: Float64Array;
}

/** The plan of an answer's rows. */
export function publishPlan(query: StatisticsQuery): PublishPlan {
  const areaCount = query.areas.length;
  const dwellings = indexesOf(DWELLING_TYPES, query.dwellingTypes);
  const bedrooms = indexesOf(BEDROOM_VALUES, query.bedrooms);
  const { periodEnding, numMonths } = query.period;
  const dwellingKeys = [
    ...DWELLING_TYPES.map((d) => dwellingKey(d)),
    dwellingKey(query.dwellingTypes ?? ALL),
  ];
  const bedroomKeys = [...BEDROOM_VALUES.map((b) => bedroomsKey(b)), bedroomsKey(query.bedrooms ?? ALL)];
  return {
    areaCount,
    areaSlots: query.includeAggregates ? areaCount + 1 : areaCount,
    dwellingSlots: query.includeAggregates ? [...dwellings, D] : dwellings,
    bedroomSlots: query.includeAggregates ? [...bedrooms, B] : bedrooms,
    labels: [...query.areas.map((area) => area.label), ALL],
    keys: [...query.areas.map((area) => area.key), query.allAreasKey],
    keyPrefix: `mr2|${periodEnding}|${numMonths}|`,
    suffixes: dwellingKeys.map((d) => bedroomKeys.map((b) => `${d}|${b}`)),
  };
}

const textEncoder = new TextEncoder();

/**
 * Publishes the rows of one area at a time into a sink: suppression and output rounding of each row's
 * figures, keyed random rounding of its counts. Works on any thread that can see the slot arrays.
 */
export class AreaPublisher {
  private readonly suffixes: Uint8Array[][];
  private keyBytes = new Uint8Array(512);

  constructor(
    private readonly plan: PublishPlan,
    private readonly rowUniforms: ReportInput['rowUniforms'],
    private readonly sink: RowSink,
  ) {
    this.suffixes = plan.suffixes.map((row) => row.map((suffix) => textEncoder.encode(suffix)));
  }

  /** The rows of area `a` (index areaCount: the ALL area), in order; nothing for an area without rows. */
  publish(a: number, arrays: SlotArrays): void {
    const { plan, sink, suffixes, rowUniforms } = this;
    const { rents, counts, bondSums, start, length, n, closed, current } = arrays;
    let keyBytes = this.keyBytes;
    let areaPrefixLength = -1;
    for (const d of plan.dwellingSlots) {
      for (const b of plan.bedroomSlots) {
        const slot = (a * (D + 1) + d) * (B + 1) + b;
        const nLodged = n[slot] as number;
        const nClosed = closed[slot] as number;
        const nCurr = current[slot] as number;
        if (nLodged === 0 && nClosed === 0 && nCurr === 0) continue;
        if (areaPrefixLength < 0) {
          // The area's first row: its label for the sink, its part of the rounding keys.
          sink.area(plan.labels[a] as string);
          const areaPrefix = textEncoder.encode(`${plan.keyPrefix}${plan.keys[a]}|`);
          if (areaPrefix.length + 128 > keyBytes.length) {
            keyBytes = new Uint8Array(areaPrefix.length * 2 + 128);
            this.keyBytes = keyBytes;
          }
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
          const [u0, u1, u2] = rowUniforms(keyBytes, areaPrefixLength + suffix.length, areaPrefixLength);
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
  }
}

/**
 * The histograms of an answer, made area by area: `histogramsOf(a)` for a = 0, 1, … in order (the ALL
 * area's, index areaCount, last, from every area's), then `arrays()` holds them.
 */
export interface AnswerWork {
  plan: PublishPlan;
  histogramsOf(a: number): void;
  arrays(): SlotArrays;
  /** Histogram entries of the answer's base rows (its size). */
  entries: number;
  /** Base entries of areas 0 … a − 1. */
  entriesBefore(a: number): number;
}

/** Routes and sorts the entries of an answer, ready for its histograms to be made area by area. */
export function prepareAnswer(input: ReportInput): AnswerWork {
  const { query } = input;
  const plan = publishPlan(query);
  const { areaCount } = plan;
  const dwellings = indexesOf(DWELLING_TYPES, query.dwellingTypes);
  const bedrooms = indexesOf(BEDROOM_VALUES, query.bedrooms);
  const rowOfCell = routeCells(input, dwellings, bedrooms);
  const baseCount = areaCount * SLOTS;
  // Row slots: (area or ALL at index areaCount) × (dwelling or ALL) × (bedrooms or ALL).
  const slotCount = (areaCount + 1) * SLOTS;
  const arena = new Arena(slotCount);
  const closed = scratchFloat64('closed', slotCount).fill(0);
  const current = scratchFloat64('current', slotCount).fill(0);
  const accumulator = new RentAccumulator();
  const sorted = sortEntries(input, rowOfCell, baseCount, arena);
  baseCounts(input, rowOfCell, closed, current);
  const levels = aggregates(areaCount, arena, accumulator, closed, current);
  const { start, length, n } = arena;
  return {
    plan,
    entries: sorted.starts[baseCount] as number,
    entriesBefore: (a) => sorted.starts[a * SLOTS] as number,
    histogramsOf(a) {
      if (a < areaCount) storeBase(a, sorted, arena, accumulator);
      else levels.national();
      if (query.includeAggregates) levels.area(a);
    },
    // Storing may have grown the arena's arrays: read them after.
    arrays: () => ({
      rents: arena.rents,
      counts: arena.counts,
      bondSums: arena.bondSums,
      start,
      length,
      n,
      closed,
      current,
    }),
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

/** Routes every histogram entry of the period (and every bond not yet lodged) to its base row slot. */
function sortEntries(
  input: ReportInput,
  rowOfCell: Int32Array,
  baseCount: number,
  arena: Arena,
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
      if (slot >= 0) starts[slot + 1] = (starts[slot + 1] as number) + 1;
    }
  }
  for (const p of pending) {
    const slot = rowOfCell[p.cell] as number;
    if (slot >= 0) starts[slot + 1] = (starts[slot + 1] as number) + 1;
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
      if (slot < 0) continue;
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
    if (slot < 0) continue;
    const at = fill[slot] as number;
    fill[slot] = at + 1;
    rents[at] = p.rent;
    counts[at] = -1;
    bondSums[at] = -p.bond;
  }
  // Base histograms, then the ALL levels above them: room for every area's (ARENA_PER_ENTRY).
  arena.reserve(total * ARENA_PER_ENTRY);
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
 * `area(a)` fills area a's ALL slots from its base slots (for the ALL area: from the national slots,
 * which `national()` fills first by merging each dwelling × bedrooms slot over the areas).
 */
function aggregates(
  areaCount: number,
  arena: Arena,
  accumulator: RentAccumulator,
  closed: Float64Array,
  current: Float64Array,
): { area(a: number): void; national(): void } {
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
    national() {
      // The ALL area × each dwelling × each bedroom value: merge over the areas.
      for (let d = 0; d < D; d++)
        for (let b = 0; b < B; b++) merge(slot(areaCount, d, b), slot(0, d, b), SLOTS, areaCount);
    },
  };
}
