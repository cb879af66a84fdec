import type { CountBlock } from '../domain/blocks.ts';
import { CELLS_PER_SA2 } from '../domain/blocks.ts';
import { ALL, BEDROOM_VALUES, type Bedrooms, DWELLING_TYPES, type DwellingType } from '../domain/factors.ts';
import type { StatisticsQuery } from '../domain/params.ts';
import type { PendingBond, ReportInput, StatisticsItem } from '../domain/report.ts';
import { bedroomsKey, dwellingKey, randomRound3 } from '../domain/rounding.ts';
import { utf8Into } from '../domain/siphash.ts';
import { FIGURE_NAMES, publishedStatisticsInto } from '../domain/statistics.ts';
import { RentAccumulator } from './accumulator.ts';
import { Arena, type SlotArena, scratchFloat64, scratchInt32 } from './arena.ts';
import {
  type AnswerFormat,
  answerEncoder,
  type LentAnswer,
  type RowSink,
  reserveAnswerBuffer,
} from './encode.ts';
import { type IndexedRentBlock, indexRentBlock } from './indexed-blocks.ts';

/**
 * The rows of one /statistics answer made fast: the same rows as the definition (domain/report.ts,
 * `buildReport`), written straight into the answer's bytes. Every figure comes from merged histograms,
 * never from the bonds again:
 *
 * 1. An area's histogram entries of every month (found through each month's index by SA2,
 *    indexed-blocks.ts) are routed to its row cells (area × dwelling × bedrooms) by a counting sort of
 *    that area's entries, then each row cell's entries are summed in the accumulator: the base histograms.
 * 2. With include-aggregates, each ALL row is the merge of the next finer rows (area × dwelling × ALL
 *    from the base, area × ALL × ALL from those, and so on), so no entry is added more than a few times.
 * 3. Each row is published: suppression and output rounding, and keyed random rounding of the counts.
 *
 * Steps 1 (the sums of each row cell) and 2 are done area by area, each area's just before its rows are
 * published, and the ALL area's (over every area) last, so an area's histograms are still in the cache
 * when its rows are published (an answer streamed that way was tried and was slower on two cores:
 * docs/decisions/0004-computed-rental-statistics.md). The same merges of the same histograms in the
 * same order as level by level, so the same bytes. Areas are independent until the ALL area: a report
 * thread makes the first areas' histograms and rows while this thread makes the others'
 * (report-thread.ts).
 *
 * A histogram is the same whatever order its entries are added in (counts and bond sums are whole
 * numbers, summed exactly), so sorting an area's entries alone gives the bytes of one sort of every
 * entry of the period (a copy of that older path is compared too, test/services/market-rent/reference).
 */

const D = DWELLING_TYPES.length; // 5; index D means ALL
const B = BEDROOM_VALUES.length; // 6; index B means ALL
const SLOTS = (D + 1) * (B + 1);

/** The rows as objects, as the engine makes them (tests compare them with `buildReport`'s). */
export function reportItems(input: ReportInput): StatisticsItem[] {
  const items: StatisticsItem[] = [];
  let label = '';
  const figure = (figures: Float64Array | null, f: number) => {
    const x = figures === null ? Number.NaN : (figures[f] as number);
    return Number.isNaN(x) ? null : x;
  };
  produceRows(input, {
    area(next) {
      label = next;
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
  return items;
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
 * Room in an arena per base entry, made before any histogram is stored: every area's histograms fit
 * (the base, and each of an area's three ALL levels at most its base entries), so the arena lent to a
 * report thread never has to grow there (report-thread.ts); only the ALL area's may grow this thread's.
 */
const ARENA_PER_ENTRY = 4;
/** The share of the entries the arena lent to a report thread is made ready for at start (it grows if need be). */
const THREAD_ARENA_SHARE = 0.6;
/** Bytes of JSON per histogram entry of a national answer with aggregates (12.5 MB for 499,107). */
const ANSWER_BYTES_PER_ENTRY = 26;
/** The most entries the working memory was made ready for. */
let reservedEntries = 0;

/**
 * Makes the working memory of an answer over `entries` histogram entries ready (the arenas, the
 * answer's buffer), its pages touched: the first national answer of a process then neither grows
 * arrays by doubling nor meets tens of megabytes of new memory (docs/decisions/0004-computed-rental-statistics.md:
 * the first answer's computation took 190–270 ms against 125–170 for the next ones; with the memory
 * ready, 150–200). About 185 bytes per histogram entry, 90 MB for the full sandbox: this thread's arena
 * of four times the entries, the one lent to the report thread for 60% of them, the answer's buffer and
 * the two parts' buffers of an answer made on two threads. The arrays are those every later answer
 * keeps anyway; answers' bytes are unchanged.
 */
export function reserveWorkingMemory(entries: number): void {
  // Each environment asks at start; the arrays are shared, so only a larger size does anything.
  if (!(entries > reservedEntries)) return;
  reservedEntries = entries;
  // This thread's arena, and the one lent to a report thread (for about half of the areas).
  for (const [name, share] of [
    ['arena', ARENA_PER_ENTRY],
    // Its areas' histograms and their sums for the ALL area (threadArrays).
    [THREAD_ARENA, THREAD_ARENA_SHARE * (ARENA_PER_ENTRY + 1)],
  ] as const) {
    const arena = new Arena(0, name);
    arena.reserve(Math.ceil(entries * share));
    arena.rents.fill(0);
    arena.counts.fill(0);
    arena.bondSums.fill(0);
  }
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
export interface SlotArrays extends SlotArena {
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
  private keyBytes: Uint8Array;

  constructor(
    private readonly plan: PublishPlan,
    private readonly rowUniforms: ReportInput['rowUniforms'],
    private readonly sink: RowSink,
  ) {
    this.suffixes = plan.suffixes.map((row) => row.map((suffix) => textEncoder.encode(suffix)));
    // Keys written where rowUniforms hashes them, when it says where (no copy per row).
    this.keyBytes = (rowUniforms as { keyBuffer?: Uint8Array }).keyBuffer ?? new Uint8Array(512);
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
          const areaPrefix = `${plan.keyPrefix}${plan.keys[a]}|`;
          if (areaPrefix.length * 3 + 128 > keyBytes.length) {
            keyBytes = new Uint8Array(areaPrefix.length * 6 + 128);
            this.keyBytes = keyBytes;
          }
          areaPrefixLength = utf8Into(areaPrefix, keyBytes);
        }
        let rLodged = nLodged;
        let rClosed = nClosed;
        let rCurr = nCurr;
        if (nLodged % 3 !== 0 || nClosed % 3 !== 0 || nCurr % 3 !== 0) {
          const suffix = suffixes[d]![b]!;
          // A loop, not TypedArray.set: the suffix is a few bytes and this runs for most rows.
          for (let i = 0; i < suffix.length; i++) keyBytes[areaPrefixLength + i] = suffix[i] as number;
          // Indexed, not destructured (an iterator per row otherwise, in the hottest loop).
          const u = rowUniforms(keyBytes, areaPrefixLength + suffix.length, areaPrefixLength);
          rLodged = randomRound3(nLodged, u[0]);
          rClosed = randomRound3(nClosed, u[1]);
          rCurr = randomRound3(nCurr, u[2]);
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
 * What an answer's histograms are made from, all in shared memory: a report thread (report-thread.ts)
 * makes some areas' histograms from the same arrays, without a copy.
 */
export interface AnswerSources {
  areaCount: number;
  includeAggregates: boolean;
  /** One block per month of the period, indexed by SA2. */
  months: IndexedRentBlock[];
  /** For every cell (SA2 × dwelling × bedrooms), the base row slot it feeds, or −1 when not reported. */
  rowOfCell: Int32Array;
  /** The SA2s of area a: areaSa2s[areaSa2Start[a]] … areaSa2s[areaSa2Start[a + 1] − 1]. */
  areaSa2Start: Int32Array;
  areaSa2s: Int32Array;
  /** Histogram entries of areas 0 … a − 1 (every cell of their SA2s, and their bonds not yet lodged). */
  entriesBefore: Float64Array;
  /** Bonds not yet lodged (taken back out) of area a: entries pendingStart[a] … pendingStart[a + 1] − 1. */
  pendingStart: Int32Array;
  pendingSlot: Int32Array;
  pendingRent: Int32Array;
  pendingBond: Float64Array;
}

/**
 * The histograms of an answer, made area by area: `histogramsOf(a)` for a = 0, 1, … in order (the ALL
 * area's, index areaCount, last, from every area's), then `arrays()` holds them. With a report thread,
 * it makes areas 0 … f − 1 in `threadArrays(f)` and this thread the others; then `nationalOf` makes
 * the ALL area's from both.
 */
export interface AnswerWork {
  plan: PublishPlan;
  sources: AnswerSources;
  histogramsOf(a: number): void;
  /** Area a's base histograms only (the ALL area's need them; its ALL levels may wait). */
  baseOf(a: number): void;
  /** Area a's ALL levels, from its base histograms (with aggregates; nothing without). */
  levelsOf(a: number): void;
  /**
   * The ALL area's histograms: areas 0 … firstAreas − 1 from `first` (their sums, which the report
   * thread made there), the others from `arrays()`.
   */
  nationalOf(first: SlotArrays | null, firstAreas: number): void;
  arrays(): SlotArrays;
  /**
   * The arrays a report thread makes areas 0 … firstAreas − 1 in: an arena of their own with room for
   * all their histograms (it cannot grow there), and those areas' closed and current counts.
   */
  threadArrays(firstAreas: number): SlotArrays;
  /** Histogram entries of the answer's areas (at least those of its base rows). */
  entries: number;
  /** Entries of areas 0 … a − 1. */
  entriesBefore(a: number): number;
}

/**
 * Routes the cells of an answer to its rows and indexes its months, ready for its histograms to be made
 * area by area (each area's entries are found through the months' SA2 index, so no pass over every
 * entry of the period comes first).
 */
export function prepareAnswer(input: ReportInput): AnswerWork {
  const { query, geography } = input;
  const plan = publishPlan(query);
  const { areaCount } = plan;
  const sa2Count = geography.sa2Codes.length;
  const dwellings = indexesOf(DWELLING_TYPES, query.dwellingTypes);
  const bedrooms = indexesOf(BEDROOM_VALUES, query.bedrooms);
  const { rowOfCell, areaSa2Start, areaSa2s } = routeCells(input, dwellings, bedrooms);
  const months = input.rent.map((block) => indexRentBlock(block, sa2Count));
  const pending = pendingByArea(input, rowOfCell, areaCount);
  // Entries of areas 0 … a − 1 (every cell of their SA2s, and their bonds not yet lodged).
  const before = scratchFloat64('entriesBefore', areaCount + 1);
  before[0] = 0;
  for (let a = 0; a < areaCount; a++) {
    let entries = (pending.pendingStart[a + 1] as number) - (pending.pendingStart[a] as number);
    const to = areaSa2Start[a + 1] as number;
    for (const { sa2Start } of months) {
      for (let k = areaSa2Start[a] as number; k < to; k++) {
        const s = areaSa2s[k] as number;
        entries += (sa2Start[s + 1] as number) - (sa2Start[s] as number);
      }
    }
    before[a + 1] = (before[a] as number) + entries;
  }
  const entries = before[areaCount] as number;
  // Row slots: (area or ALL at index areaCount) × (dwelling or ALL) × (bedrooms or ALL).
  const slotCount = (areaCount + 1) * SLOTS;
  const arena = new Arena(slotCount);
  // Every area's histograms fit (ARENA_PER_ENTRY); only the ALL area's may grow it.
  arena.reserve(entries * ARENA_PER_ENTRY);
  const closed = scratchFloat64('closed', slotCount).fill(0);
  const current = scratchFloat64('current', slotCount).fill(0);
  baseCounts(input, rowOfCell, closed, current);
  const sources: AnswerSources = {
    areaCount,
    includeAggregates: query.includeAggregates,
    months,
    rowOfCell,
    areaSa2Start,
    areaSa2s,
    entriesBefore: before,
    ...pending,
  };
  const histograms = new AreaHistograms(sources, arena, closed, current);
  const arrays = (): SlotArrays => ({ ...arena.arrays(), closed, current });
  return {
    plan,
    sources,
    entries,
    entriesBefore: (a) => before[a] as number,
    histogramsOf(a) {
      if (a < areaCount) histograms.base(a);
      else histograms.national(null, 0);
      histograms.levels(a);
    },
    baseOf: (a) => histograms.base(a),
    levelsOf: (a) => histograms.levels(a),
    nationalOf: (first, firstAreas) => histograms.national(first, firstAreas),
    // Storing may have grown the arena's arrays: read them after.
    arrays,
    threadArrays(firstAreas) {
      // Its areas' slots and the ALL area's (where it sums its areas for `nationalOf`), room for
      // their histograms and those sums (each at most its areas' entries).
      const lent = new Arena(slotCount, THREAD_ARENA);
      lent.reserve((before[firstAreas] as number) * (ARENA_PER_ENTRY + 1));
      const slots = firstAreas * SLOTS;
      const lentClosed = scratchFloat64(`${THREAD_ARENA}.closed`, slots);
      const lentCurrent = scratchFloat64(`${THREAD_ARENA}.current`, slots);
      lentClosed.set(closed.subarray(0, slots));
      lentCurrent.set(current.subarray(0, slots));
      return { ...lent.arrays(), closed: lentClosed, current: lentCurrent };
    },
  };
}

/**
 * Entries sorted at a time when making base histograms: a run of neighbouring areas, read month by
 * month, whose sorted entries stay in the cache.
 */
const RUN_ENTRIES = 8192;

/** The name of the arena lent to the report thread (arena.ts keeps its arrays between answers). */
export const THREAD_ARENA = 'threadArena';

/**
 * Makes the histograms of areas on one thread, into one arena: the request's thread into its own, the
 * report thread into the one lent to it (report-thread-worker.ts).
 */
export class AreaHistograms {
  private readonly accumulator = new RentAccumulator();
  private readonly levelsOf: ReturnType<typeof aggregates>;

  constructor(
    private readonly sources: AnswerSources,
    private readonly arena: Arena,
    closed: Float64Array,
    current: Float64Array,
  ) {
    this.levelsOf = aggregates(sources.areaCount, arena, this.accumulator, closed, current);
    this.made = new Uint8Array(sources.areaCount);
  }

  /** Areas whose base histograms are made. */
  private readonly made: Uint8Array;

  /**
   * The base histograms of area a (its slots whose dwelling and bedrooms are not ALL), made with those
   * of the next areas (before `limit`, not made yet) as one run of about RUN_ENTRIES entries; nothing
   * when they are made already.
   */
  base(a: number, limit = this.sources.areaCount): void {
    const { made } = this;
    if (made[a] === 1) return;
    const { entriesBefore } = this.sources;
    const start = entriesBefore[a] as number;
    let to = a + 1;
    while (to < limit && made[to] === 0 && (entriesBefore[to + 1] as number) - start <= RUN_ENTRIES) to++;
    storeBases(a, to, this.sources, this.arena, this.accumulator);
    made.fill(1, a, to);
  }

  /** Area a's ALL levels from its base histograms (with aggregates). */
  levels(a: number): void {
    if (this.sources.includeAggregates) this.levelsOf.area(a);
  }

  /**
   * The ALL area's base-level histograms (each dwelling × bedrooms over the areas); with `first`, areas
   * 0 … firstAreas − 1 as a report thread summed them there (`partial`).
   */
  national(first: SlotArrays | null, firstAreas: number): void {
    this.levelsOf.national(first, firstAreas);
  }

  /** On a report thread: its areas 0 … firstAreas − 1 summed for the ALL area (with aggregates). */
  partial(firstAreas: number): void {
    if (this.sources.includeAggregates) this.levelsOf.partial(firstAreas);
  }
}

function indexesOf<T extends string>(universe: readonly T[], chosen: readonly T[] | null): number[] {
  return universe.flatMap((value, i) => (chosen === null || chosen.includes(value) ? [i] : []));
}

/**
 * For every cell (SA2 × dwelling × bedrooms), the base row slot it feeds, or −1 when not reported; and
 * the SA2s of each area.
 */
function routeCells(
  input: ReportInput,
  dwellings: number[],
  bedrooms: number[],
): { rowOfCell: Int32Array; areaSa2Start: Int32Array; areaSa2s: Int32Array } {
  const { geography, query } = input;
  const areaCount = query.areas.length;
  const areaOfSa2 = scratchInt32('areaOfSa2', geography.sa2Codes.length).fill(-1);
  query.areas.forEach((area, a) => {
    for (const code of area.sa2Codes) {
      const index = geography.sa2Index.get(code);
      if (index !== undefined) areaOfSa2[index] = a;
    }
  });
  const rowOfCell = scratchInt32('rowOfCell', geography.sa2Codes.length * CELLS_PER_SA2).fill(-1);
  const areaSa2Start = scratchInt32('areaSa2Start', areaCount + 1).fill(0);
  for (let s = 0; s < areaOfSa2.length; s++) {
    const a = areaOfSa2[s] as number;
    if (a < 0) continue;
    areaSa2Start[a + 1] = (areaSa2Start[a + 1] as number) + 1;
    for (const d of dwellings) {
      for (const b of bedrooms) {
        rowOfCell[s * CELLS_PER_SA2 + d * B + b] = (a * (D + 1) + d) * (B + 1) + b;
      }
    }
  }
  for (let a = 1; a <= areaCount; a++)
    areaSa2Start[a] = (areaSa2Start[a] as number) + (areaSa2Start[a - 1] as number);
  const areaSa2s = scratchInt32('areaSa2s', areaSa2Start[areaCount] as number);
  const fill = scratchInt32('areaSa2Fill', areaCount).fill(0);
  fill.set(areaSa2Start.subarray(0, areaCount));
  for (let s = 0; s < areaOfSa2.length; s++) {
    const a = areaOfSa2[s] as number;
    if (a < 0) continue;
    const at = fill[a] as number;
    fill[a] = at + 1;
    areaSa2s[at] = s;
  }
  return { rowOfCell, areaSa2Start, areaSa2s };
}

/** The bonds not yet lodged that started in the period, by area, each with its base row slot. */
function pendingByArea(
  input: ReportInput,
  rowOfCell: Int32Array,
  areaCount: number,
): Pick<AnswerSources, 'pendingStart' | 'pendingSlot' | 'pendingRent' | 'pendingBond'> {
  const months = new Set(input.query.period.months);
  const slotOf = (p: PendingBond) =>
    p.cell >= 0 && months.has(p.startMonth) ? (rowOfCell[p.cell] as number) : -1;
  const pending = input.pending.filter((p) => slotOf(p) >= 0);
  const pendingStart = scratchInt32('pendingStart', areaCount + 1).fill(0);
  for (const p of pending) {
    const a = (slotOf(p) / SLOTS) | 0;
    pendingStart[a + 1] = (pendingStart[a + 1] as number) + 1;
  }
  for (let a = 1; a <= areaCount; a++)
    pendingStart[a] = (pendingStart[a] as number) + (pendingStart[a - 1] as number);
  const pendingSlot = scratchInt32('pendingSlot', pending.length);
  const pendingRent = scratchInt32('pendingRent', pending.length);
  const pendingBond = scratchFloat64('pendingBond', pending.length);
  const fill = scratchInt32('pendingFill', areaCount).fill(0);
  fill.set(pendingStart.subarray(0, areaCount));
  for (const p of pending) {
    const slot = slotOf(p);
    const a = (slot / SLOTS) | 0;
    const at = fill[a] as number;
    fill[a] = at + 1;
    pendingSlot[at] = slot;
    pendingRent[at] = p.rent;
    pendingBond[at] = p.bond;
  }
  return { pendingStart, pendingSlot, pendingRent, pendingBond };
}

/** A run of areas' entries sorted by their base row slots (each thread its own; they only grow). */
let runRents = new Int32Array(1 << 12);
let runCounts = new Float64Array(1 << 12);
let runBondSums = new Float64Array(1 << 12);
let runStarts = new Int32Array(SLOTS + 1);
let runFill = new Int32Array(SLOTS);

/**
 * The base histograms of areas from … to − 1 into the arena: their entries of every month (found
 * through the months' SA2 index, month by month, so each month is read in one sweep when the areas'
 * SA2s are neighbours) and their bonds not yet lodged, sorted by row slot (a counting sort of these
 * entries alone, small enough to stay in the cache), then each slot's entries summed in the
 * accumulator. A histogram is the same whatever order its entries are added in: counts and bond sums
 * are whole numbers, summed exactly.
 */
function storeBases(
  from: number,
  to: number,
  sources: AnswerSources,
  arena: Arena,
  accumulator: RentAccumulator,
): void {
  const { months, rowOfCell, areaSa2Start, areaSa2s, pendingStart, pendingSlot, pendingRent, pendingBond } =
    sources;
  const first = from * SLOTS;
  const slots = (to - from) * SLOTS;
  const sa2From = areaSa2Start[from] as number;
  const sa2To = areaSa2Start[to] as number;
  const pendingFrom = pendingStart[from] as number;
  const pendingTo = pendingStart[to] as number;
  if (runStarts.length < slots + 1) {
    runStarts = new Int32Array(slots * 2 + 1);
    runFill = new Int32Array(slots * 2);
  }
  // Sizes first (shifted by one), then running sums.
  const starts = runStarts.fill(0, 0, slots + 1);
  for (let m = 0; m < months.length; m++) {
    const { cells, sa2Start } = months[m] as IndexedRentBlock;
    for (let k = sa2From; k < sa2To; k++) {
      const s = areaSa2s[k] as number;
      const end = sa2Start[s + 1] as number;
      for (let i = sa2Start[s] as number; i < end; i++) {
        const slot = rowOfCell[cells[i] as number] as number;
        if (slot >= 0) starts[slot - first + 1] = (starts[slot - first + 1] as number) + 1;
      }
    }
  }
  for (let j = pendingFrom; j < pendingTo; j++) {
    const at = (pendingSlot[j] as number) - first + 1;
    starts[at] = (starts[at] as number) + 1;
  }
  for (let j = 1; j <= slots; j++) starts[j] = (starts[j] as number) + (starts[j - 1] as number);
  const total = starts[slots] as number;
  if (total === 0) return;
  if (runRents.length < total) {
    const size = Math.max(total, runRents.length * 2);
    runRents = new Int32Array(size);
    runCounts = new Float64Array(size);
    runBondSums = new Float64Array(size);
  }
  const rents = runRents;
  const counts = runCounts;
  const bondSums = runBondSums;
  const fill = runFill;
  fill.set(starts.subarray(0, slots));
  for (let m = 0; m < months.length; m++) {
    const block = months[m] as IndexedRentBlock;
    const { cells, sa2Start } = block;
    for (let k = sa2From; k < sa2To; k++) {
      const s = areaSa2s[k] as number;
      const end = sa2Start[s + 1] as number;
      for (let i = sa2Start[s] as number; i < end; i++) {
        const slot = rowOfCell[cells[i] as number] as number;
        if (slot < 0) continue;
        const at = fill[slot - first] as number;
        fill[slot - first] = at + 1;
        rents[at] = block.rents[i] as number;
        counts[at] = block.counts[i] as number;
        bondSums[at] = block.bondSums[i] as number;
      }
    }
  }
  // Bonds not yet lodged on the as-of day come back out of their cells.
  for (let j = pendingFrom; j < pendingTo; j++) {
    const local = (pendingSlot[j] as number) - first;
    const at = fill[local] as number;
    fill[local] = at + 1;
    rents[at] = pendingRent[j] as number;
    counts[at] = -1;
    bondSums[at] = -(pendingBond[j] as number);
  }
  for (let j = 0; j < slots; j++) {
    const begin = starts[j] as number;
    const end = starts[j + 1] as number;
    if (begin === end) continue;
    accumulator.addPacked(rents, counts, bondSums, begin, end);
    arena.store(first + j, accumulator);
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
): {
  area(a: number): void;
  national(first: SlotArrays | null, firstAreas: number): void;
  partial(firstAreas: number): void;
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
  /** Adds the dwelling d × bedrooms b histograms of areas from … to − 1; returns how many had entries. */
  const addAreas = (d: number, b: number, from: number, to: number): number => {
    let filled = 0;
    const { rents, counts, bondSums } = arena;
    for (let a = from; a < to; a++) {
      const s = slot(a, d, b);
      const size = length[s] as number;
      if (size === 0) continue;
      filled++;
      const at = start[s] as number;
      accumulator.addPacked(rents, counts, bondSums, at, at + size);
    }
    return filled;
  };
  return {
    area(a) {
      // Area × dwelling × ALL from its bedroom values; area × ALL × bedrooms from its dwellings; then ALL × ALL.
      for (let d = 0; d < D; d++) merge(slot(a, d, B), slot(a, d, 0), 1, B);
      for (let b = 0; b < B; b++) merge(slot(a, D, b), slot(a, 0, b), B + 1, D);
      merge(slot(a, D, B), slot(a, 0, B), B + 1, D);
    },
    national(first, firstAreas) {
      // The ALL area × each dwelling × each bedroom value, summed over the areas: with a report thread,
      // its areas' sum (`partial`, in its arena) and this thread's areas. Always summed, never aliased:
      // the one source could be in the other thread's arena (a sum of one histogram is that histogram).
      const from = first === null ? 0 : firstAreas;
      for (let d = 0; d < D; d++) {
        for (let b = 0; b < B; b++) {
          const target = slot(areaCount, d, b);
          let c = 0;
          let n = 0;
          for (let a = 0; a < areaCount; a++) {
            const s = slot(a, d, b);
            c += closed[s] as number;
            n += current[s] as number;
          }
          closed[target] = c;
          current[target] = n;
          let filled = 0;
          const theirs = first === null ? 0 : (first.length[target] as number);
          if (first !== null && theirs > 0) {
            filled++;
            const at = first.start[target] as number;
            // With its entries whose counts summed to 0 (their bond sums still count).
            accumulator.addPackedEntries(first.rents, first.counts, first.bondSums, at, at + theirs);
          }
          filled += addAreas(d, b, from, areaCount);
          if (filled > 0) arena.store(target, accumulator);
        }
      }
    },
    partial(firstAreas) {
      // A report thread's part of the ALL area: its areas' sum for each dwelling × bedrooms, kept in its
      // arena at the ALL area's slots for the request's thread's `national`.
      for (let d = 0; d < D; d++) {
        for (let b = 0; b < B; b++) {
          const filled = addAreas(d, b, 0, firstAreas);
          // Kept with entries whose counts summed to 0: a sum of the areas' histograms in one go would
          // keep their bond sums for the other areas' entries of the same rent (bonds taken back out
          // that the blocks do not hold give negative counts).
          if (filled > 0) arena.store(slot(areaCount, d, b), accumulator, true);
        }
      }
    },
  };
}
